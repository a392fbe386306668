//! The Live view (issue #15): `rvlab serve --page DIST` serves the page's kubectl build with its
//! live endpoint; the learner opens the printed URL, runs the real kubectl, and each request
//! shows as a row as it is served: a read, then a replace with a stale resourceVersion (409,
//! the conflict badge); "Save as scenario" opens the history in the editor. It also measures,
//! inside the browser, how long a request takes to become a row (printed, never asserted).

use anyhow::{bail, ensure, Context, Result};
use rvlab_e2e::harness::{project_root, rvlab, work_dir};
use rvlab_e2e::page::{journey, Page};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The real kubectl (`cargo xtask install`).
const KUBECTL: &str = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";

/// A running `rvlab serve`, stopped (by its own process id) when dropped.
struct Serve {
    child: Child,
    /// The live view's URL it printed (`http://127.0.0.1:PORT/`).
    url: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `rvlab` binary `cargo run -p rvlab-cli` builds.
fn rvlab_binary() -> Result<PathBuf> {
    rvlab(&["--version"])?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| project_root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        project_root().join(target)
    };
    let bin = target.join("debug/rvlab");
    ensure!(bin.exists(), "no {}", bin.display());
    Ok(bin)
}

/// `rvlab serve lesson:stale-update --page DIST --listen 127.0.0.1:0 --kubeconfig K`, once it
/// has printed its three lines.
fn serve(dist: &Path, kubeconfig: &Path) -> Result<Serve> {
    let mut child = Command::new(rvlab_binary()?)
        .args(["serve", "lesson:stale-update", "--page"])
        .arg(dist)
        .args(["--listen", "127.0.0.1:0", "--kubeconfig"])
        .arg(kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start rvlab serve")?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut serve = Serve {
        child,
        url: String::new(),
    };
    let mut lines = BufReader::new(stdout).lines();
    let mut printed = Vec::new();
    while serve.url.is_empty() {
        let Some(line) = lines.next() else {
            bail!("rvlab serve ended after printing {printed:?}");
        };
        let line = line?;
        if let Some(rest) = line.strip_prefix("live view: ") {
            serve.url = rest.split_whitespace().next().unwrap_or("").to_string();
        }
        printed.push(line);
    }
    ensure!(
        printed[0].starts_with("listening on http://"),
        "{printed:?}"
    );
    // Keep reading (and dropping) its standard output, so that it never blocks on a pipe.
    std::thread::spawn(move || for _ in lines {});
    Ok(serve)
}

/// The real kubectl with the server's kubeconfig, a fresh `HOME` and `KUBECACHEDIR`.
fn kubectl(dir: &Path, kubeconfig: &Path, args: &[&str]) -> Result<Output> {
    let out = Command::new(KUBECTL)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir.join("home"))
        .env("KUBECACHEDIR", dir.join("kube-cache"))
        .current_dir(dir)
        .output()
        .with_context(|| format!("cannot run {KUBECTL}"))?;
    Ok(out)
}

fn ok(out: Output) -> Result<String> {
    ensure!(
        out.status.success(),
        "kubectl failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Waits until a `live-row` contains every one of `needles`; returns its text.
fn wait_row(page: &Page, needles: &[&str]) -> Result<String> {
    page.wait_until(&format!("a live-row shows {needles:?}"), || {
        for row in page.all("live-row")? {
            let text = page.session.text(&row)?;
            if needles.iter().all(|n| text.contains(n)) {
                return Ok(Some(text));
            }
        }
        Ok(None)
    })
}

/// Milliseconds from a same-origin `fetch()` GET of the config map to its row in the Live
/// view (a `MutationObserver` on the rows), `n` times one after the other.
const LATENCY: &str = r#"
const [n, done] = arguments;
const rows = document.querySelector('[data-testid=live-rows]');
const last = () => {
  const r = rows.lastElementChild;
  return r ? Number(r.getAttribute('data-index')) : -1;
};
const times = [];
const once = () => new Promise((resolve, reject) => {
  const before = last();
  let t0 = 0;
  const seen = () => {
    if (last() > before) { observer.disconnect(); resolve(performance.now() - t0); }
  };
  const observer = new MutationObserver(seen);
  observer.observe(rows, { childList: true, subtree: true });
  t0 = performance.now();
  fetch('/api/v1/namespaces/default/configmaps/my-config').then(r => r.text()).catch(reject);
});
(async () => {
  for (let i = 0; i < n; i++) times.push(await once());
  done(times);
})().catch(e => done(String(e)));
"#;

#[test]
fn kubectl_requests_show_live_and_save_as_a_scenario() {
    journey("live", |page| {
        let dir = work_dir("live")?;
        let kubeconfig = dir.join("kubeconfig");
        let server = serve(page.dist, &kubeconfig)?;
        page.session.goto("about:blank")?;
        page.session.goto(&server.url)?;
        // Served with the live endpoint: the Live view is open from the start.
        page.find("live-view")?;
        page.wait_text_contains("live-status", "connected")?;
        let tab = page.find("tab-live")?;
        ensure!(
            page.session.attribute(&tab, "aria-selected")?.as_deref() == Some("true"),
            "the Live tab is not selected"
        );
        ensure!(page.count("live-row")? == 0, "rows before any request");

        // A read: kubectl get -o yaml.
        let yaml = ok(kubectl(
            &dir,
            &kubeconfig,
            &["get", "configmap", "my-config", "-o", "yaml"],
        )?)?;
        let row = wait_row(page, &["GET my-config", "200 OK"])?;
        ensure!(row.contains("kubectl get"), "{row}");
        page.wait_text_contains("live-object", "resourceVersion")?;
        page.wait_text_contains("live-exchange", "HTTP/1.1 200 OK")?;
        let lanes = page.text("live-lane")?;
        ensure!(lanes.contains("kubectl"), "{lanes}");

        // Another change moves the config map; then a replace with the old resourceVersion.
        ok(kubectl(
            &dir,
            &kubeconfig,
            &[
                "patch",
                "configmap",
                "my-config",
                "--type",
                "merge",
                "-p",
                r#"{"data":{"key":"from-patch"}}"#,
            ],
        )?)?;
        wait_row(page, &["PATCH my-config", "200 OK"])?;
        ensure!(yaml.contains("resourceVersion:"), "{yaml}");
        let stale = dir.join("stale.yaml");
        std::fs::write(&stale, yaml.replace("key: ", "key: from-replace-"))?;
        let replaced = kubectl(
            &dir,
            &kubeconfig,
            &["replace", "-f", stale.to_str().context("UTF-8")?],
        )?;
        ensure!(!replaced.status.success(), "the stale replace succeeded");
        let row = wait_row(page, &["PUT my-config", "409 Conflict", "⚠ conflict"])?;
        ensure!(row.contains("kubectl replace"), "{row}");
        let conflicts = page.script(
            "return document.querySelectorAll('[data-testid=live-row].mark-conflict').length",
        )?;
        ensure!(conflicts.as_u64() == Some(1), "{conflicts}");
        // The newest row is shown: its narration, exchange and object.
        page.wait_text_contains("live-step-narration", "409 Conflict")?;
        page.wait_text_contains("live-exchange", "HTTP/1.1 409 Conflict")?;
        page.screenshot("live-conflict")?;

        // Clicking an older row shows it, until "Follow the newest".
        let first = page.all("live-row")?.into_iter().next().context("a row")?;
        page.session.click(&first)?;
        page.wait_text_contains("live-exchange", "HTTP/1.1 200 OK")?;
        page.click("live-follow")?;
        page.wait_text_contains("live-exchange", "HTTP/1.1 409 Conflict")?;

        // From request to row, measured in the browser.
        let times = page
            .session
            .execute_async(LATENCY, vec![21.into()])
            .context("the latency script")?;
        let mut ms: Vec<f64> = times
            .as_array()
            .with_context(|| format!("the latency script said {times}"))?
            .iter()
            .filter_map(|t| t.as_f64())
            .collect();
        ensure!(ms.len() == 21, "{times}");
        ms.sort_by(f64::total_cmp);
        eprintln!(
            "live: request to row, 21 same-origin GETs in Chromium: median {:.1} ms, min {:.1} ms, max {:.1} ms",
            ms[10], ms[0], ms[20]
        );
        let rows = page.count("live-row")?;
        ensure!(rows >= 3 + 21, "{rows} rows");

        // Save as scenario: the history in the editor, as the playground's scenario.
        let expected = rvlab_e2e::http::request(
            "GET",
            &format!("{}rvlab/v1/scenario", server.url),
            None,
            Duration::from_secs(10),
        )?;
        ensure!(expected.status == 200, "{}", expected.status);
        let expected = String::from_utf8(expected.body)?;
        page.click("live-save")?;
        page.wait_until("the scenario is in the editor", || {
            Ok((page.count("editor")? == 1 && page.value("editor")? == expected).then_some(()))
        })?;
        ensure!(
            page.count("live-view")? == 0,
            "the Live view is still shown"
        );
        page.find("timeline")?;
        page.screenshot("live-saved")?;
        Ok(())
    });
}
