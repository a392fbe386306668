//! Browser journeys for kubectl in the page (issue #14): the page's first build (`index.html`)
//! leaves the kubectl model out for its download budget and opens every kubectl scenario in
//! its kubectl build (`kubectl.html`), which shows each client's terminal. Same style as
//! `journeys.rs`: a fresh load per journey, `data-testid` only, wait-until conditions.

use anyhow::{ensure, Context, Result};
use rvlab_e2e::page::{journey, testid, Page};

/// What real kubectl 1.32 prints for the seed's stale server-side apply (captured from the
/// binary against `rvlab serve`: tests/clients/kubectl-corpus, the differential test).
const SEED_LINE: &str = "error: Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again";

/// Waits until the page shown is the kubectl build, and returns its URL.
fn wait_kubectl_page(page: &Page) -> Result<String> {
    let url = page.wait_until("the kubectl build is open", || {
        let url = page.session.current_url()?;
        Ok(url.contains("/kubectl.html").then_some(url))
    })?;
    page.find("app")?;
    Ok(url)
}

/// The text of client `name`'s terminal, byte for byte as the page holds it.
fn terminal(page: &Page, name: &str) -> Result<String> {
    let css = format!(
        "{} {}",
        testid(&format!("terminal-{name}")),
        testid("terminal-text")
    );
    let v = page.session.execute(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
        vec![css.into()],
    )?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}

fn wait_terminal(page: &Page, name: &str, needle: &str) -> Result<String> {
    page.wait_until(&format!("{name}'s terminal shows {needle:?}"), || {
        let t = terminal(page, name)?;
        Ok(t.contains(needle).then_some(t))
    })
}

#[test]
fn the_seed_in_kubectl_plays_step_by_step_in_the_kubectl_build() {
    journey("kubectl-seed", |page| {
        page.open()?;
        ensure!(
            page.count("terminals")? == 0,
            "the first build has no terminals"
        );
        // The first build lists the kubectl lessons and opens them in the kubectl build.
        page.wait_text_contains(
            "lesson-picker",
            "The seed in kubectl: a stale file is refused",
        )?;
        page.pick_lesson("kubectl-stale-apply")?;
        let url = wait_kubectl_page(page)?;
        ensure!(url.contains("lesson=kubectl-stale-apply"), "{url}");
        page.wait_text_contains("scenario-title", "The seed in kubectl")?;
        page.find("terminals")?;
        ensure!(page.count("share-notice")? == 0, "a notice showed");
        // Step 1: ops applies the file; its terminal shows the command and kubectl's line.
        page.click("step-forward")?;
        page.wait_text_contains("narration", "kubectl apply --server-side -f my-config.yaml")?;
        let ops = wait_terminal(page, "ops", "configmap/my-config serverside-applied")?;
        ensure!(
            ops == "$ kubectl apply --server-side -f my-config.yaml\nconfigmap/my-config serverside-applied\n",
            "{ops:?}"
        );
        // To the end: bob's stale apply is refused with the seed's line, and kubectl exits 1.
        page.click("run-to-end")?;
        let bob = wait_terminal(page, "bob", SEED_LINE)?;
        ensure!(
            bob.starts_with("$ kubectl get configmap my-config -o jsonpath='{.metadata.resourceVersion}'\n1$ kubectl get configmap my-config -o yaml > my-config.yaml\n"),
            "{bob:?}"
        );
        ensure!(bob.contains("$ kubectl apply --server-side -f my-config.yaml\nerror: Operation cannot be fulfilled"), "{bob:?}");
        page.wait_text_contains("terminal-bob", "exit 1")?;
        // The last step's storage step: the apiserver refuses the stale version on its own
        // read of the key, before any etcd transaction.
        page.wait_text_contains(
            "storage-step",
            "read /registry/configmaps/default/my-config: mod_revision 2; resourceVersion 1 ≠ 2 → 409, no etcd transaction",
        )?;
        let alice = terminal(page, "alice")?;
        ensure!(
            alice.ends_with("configmap/my-config serverside-applied\n"),
            "{alice:?}"
        );
        let expectations = page.text("expectations")?;
        ensure!(!expectations.contains('✗'), "{expectations}");
        page.script("document.querySelector('[data-testid=terminals]').scrollIntoView()")?;
        page.screenshot("kubectl-seed-end")?;
        // Back to the start: no command has run yet.
        page.click("reset")?;
        page.wait_until("the terminals are empty again", || {
            let t = terminal(page, "bob")?;
            Ok((!t.contains('$') && t.contains("no commands yet")).then_some(()))
        })?;
        // The explorer's worker runs the kubectl build's own module.
        page.click("explore-button")?;
        page.wait_text_contains("explore-results", "Complete: explored")?;
        Ok(())
    });
}

#[test]
fn a_kubectl_link_to_the_first_build_opens_in_the_kubectl_build() {
    journey("kubectl-link", |page| {
        // From another page of the site, so that Back has somewhere known to go.
        page.open_path("previous-builds.txt")?;
        page.session.goto(&format!(
            "{}/#v1&lesson=kubectl-edit-and-replace&p=2",
            page.url
        ))?;
        let url = wait_kubectl_page(page)?;
        ensure!(
            url.ends_with("/kubectl.html#v1&lesson=kubectl-edit-and-replace&p=2"),
            "{url}"
        );
        page.wait_text_contains("position", "step 2 of")?;
        page.wait_text_contains("scenario-title", "kubectl edit and replace")?;
        ensure!(page.count("share-notice")? == 0, "a notice showed");
        // The kubectl build plays the other lessons too.
        page.pick_lesson("stale-update")?;
        page.wait_text_contains("position", "step 0 of 6")?;
        ensure!(
            page.session.current_url()?.contains("/kubectl.html"),
            "it left the kubectl build"
        );
        Ok(())
    });
}

#[test]
fn a_typed_kubectl_line_opens_with_its_text_in_the_kubectl_build() {
    journey("kubectl-typed", |page| {
        page.open()?;
        let text = "client a:\n    kubectl create configmap my-config --from-literal=key=v\n    kubectl get configmap my-config -o name\n";
        page.set_editor(text)?;
        page.wait_text_contains(
            "diagnostics",
            "this build of rvlab does not run kubectl statements",
        )?;
        let link = page.find("open-kubectl")?;
        page.session.click(&link)?;
        wait_kubectl_page(page)?;
        page.wait_until("the text came along", || {
            Ok((page.value("editor")? == text).then_some(()))
        })?;
        page.wait_text_contains("diagnostics", "No problems")?;
        page.click("run-to-end")?;
        let a = wait_terminal(page, "a", "configmap/my-config\n")?;
        ensure!(
            a == "$ kubectl create configmap my-config --from-literal=key=v\nconfigmap/my-config created\n$ kubectl get configmap my-config -o name\nconfigmap/my-config\n",
            "{a:?}"
        );
        // Saved work with kubectl statements reopens in the kubectl build, from either page.
        page.wait_until("the work is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .unwrap_or("")
                .contains("--from-literal")
                .then_some(()))
        })?;
        page.open_plain()?;
        wait_kubectl_page(page)?;
        page.wait_until("the saved text is back", || {
            Ok((page.value("editor")? == text).then_some(()))
        })?;
        Ok(())
    });
}

#[test]
fn the_first_builds_course_links_the_kubectl_exercises() {
    journey("kubectl-exercise", |page| {
        page.open()?;
        page.click("exercises-tab")?;
        page.find("exercise-list")?;
        let css = format!(
            "{}[data-id=\"kubectl-stale-file\"]",
            testid("exercise-kubectl")
        );
        let item = page
            .session
            .find_all(&css)?
            .into_iter()
            .next()
            .context("the kubectl exercise is listed")?;
        let label = page.session.text(&item)?;
        ensure!(
            label.contains("Make kubectl replace refuse a stale file"),
            "{label}"
        );
        page.session.click(&item)?;
        wait_kubectl_page(page)?;
        page.wait_until("the exercise is open", || {
            let css = format!(
                "{}[data-id=\"kubectl-stale-file\"][aria-current=\"true\"]",
                testid("exercise-item")
            );
            Ok(page.session.find_all(&css)?.into_iter().next().map(drop))
        })?;
        page.find("terminals")?;
        Ok(())
    });
}
