//! Accessibility and a clean load: an axe-core audit of the page in its main states (light and
//! dark), no error in the browser's log on load, the timeline's rows from the keyboard, and
//! the help dialog giving the focus back to where it was opened from.

use anyhow::{bail, ensure, Context, Result};
use rvlab_e2e::harness::project_root;
use rvlab_e2e::page::{journey, Page};
use rvlab_e2e::webdriver::keys;
use serde_json::Value;

fn wait_position(page: &Page, step: usize, of: usize) -> Result<()> {
    page.wait_text_contains("position", &format!("step {step} of {of}"))
        .map(drop)
}

/// axe-core, as `cargo xtask install` puts it into `.tools/`.
fn axe_source() -> Result<String> {
    let path = project_root().join(".tools/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {} (run `cargo xtask install`)", path.display()))
}

/// Runs axe-core on the current document (injecting it first if this document lacks it) and
/// fails listing every violation: rule, impact, and each node with axe's summary.
fn audit(page: &Page, axe: &str, state: &str) -> Result<()> {
    if page.script("return typeof window.axe")? != "object" {
        page.script(axe)?;
    }
    let result = page.session.execute_async(
        "const done = arguments[arguments.length - 1]; \
         axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations.map(v => \
           v.id + ' (' + v.impact + '): ' + v.help + v.nodes.map(n => '\\n    ' + \
             n.target.join(' ') + ' :: ' + (n.failureSummary || '').replace(/\\s+/g, ' ')).join('')))) \
           .catch(e => done(['axe failed: ' + e]));",
        vec![],
    )?;
    let violations: Vec<&str> = result
        .as_array()
        .context("axe returned no list")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if !violations.is_empty() {
        page.screenshot(&format!("axe-{state}"))?;
        bail!(
            "axe-core finds {} violation(s) {state}:\n  {}",
            violations.len(),
            violations.join("\n  ")
        );
    }
    Ok(())
}

/// [`audit`] in the light and the dark colour scheme.
fn audit_both_schemes(page: &Page, axe: &str, state: &str) -> Result<()> {
    audit(page, axe, &format!("{state} (light)"))?;
    page.session.emulate_color_scheme("dark")?;
    let dark = audit(page, axe, &format!("{state} (dark)"));
    page.session.emulate_color_scheme("light")?;
    dark
}

#[test]
fn axe_finds_no_violation_at_the_start_at_a_409_in_the_exercises_and_in_an_embed() {
    journey("axe", |page| {
        let axe = axe_source()?;
        page.open()?;
        page.wait_count("timeline-row", 6)?;
        audit_both_schemes(page, &axe, "at the start")?;
        page.press(&[keys::END])?;
        wait_position(page, 6, 6)?;
        page.wait_text_contains("inspector-http", "409 Conflict")?;
        audit_both_schemes(page, &axe, "at the 409")?;
        page.click("exercises-tab")?;
        page.find("exercise-item")?;
        audit_both_schemes(page, &axe, "in the exercises view")?;
        page.open_fragment("v1&lesson=stale-update&p=6&embed=1")?;
        wait_position(page, 6, 6)?;
        audit_both_schemes(page, &axe, "in an embed")?;
        // The kubectl build (the link opens there), its terminals at bob's refused apply.
        page.open_fragment("v1&lesson=kubectl-stale-apply")?;
        page.find("terminals")?;
        page.press(&[keys::END])?;
        page.wait_text_contains("terminals", "exit 1")?;
        audit_both_schemes(page, &axe, "in the kubectl build's terminals")?;
        Ok(())
    });
}

/// The `SEVERE` entries of the browser's log (console errors, failed loads) since last read.
fn severe(page: &Page) -> Result<Vec<String>> {
    Ok(page
        .session
        .browser_log()?
        .into_iter()
        .filter(|(level, _)| level == "SEVERE")
        .map(|(_, message)| message)
        .collect())
}

#[test]
fn the_page_and_an_embed_load_without_an_error_in_the_log() {
    journey("clean-load", |page| {
        severe(page)?; // what earlier journeys left
        page.open()?;
        page.wait_count("timeline-row", 6)?;
        // The page names its icon, so the browser does not ask for a missing /favicon.ico.
        let icon = page.script(
            "const l = document.querySelector('link[rel~=icon]'); return l ? l.href : null",
        )?;
        ensure!(
            icon.as_str()
                .is_some_and(|h| h.starts_with("data:image/svg+xml")),
            "no inline icon: {icon}"
        );
        let errors = severe(page)?;
        ensure!(errors.is_empty(), "errors on load: {errors:#?}");
        page.open_fragment("v1&lesson=retry-reread&embed=1")?;
        page.find("position")?;
        let errors = severe(page)?;
        ensure!(errors.is_empty(), "errors on loading an embed: {errors:#?}");
        page.open_fragment("v1&lesson=kubectl-stale-apply")?;
        page.find("terminals")?;
        let errors = severe(page)?;
        ensure!(
            errors.is_empty(),
            "errors on opening the kubectl build: {errors:#?}"
        );
        Ok(())
    });
}

/// The `data-step` of the focused element when it is a timeline row.
fn focused_step(page: &Page) -> Result<Option<String>> {
    let v = page.script(
        "const a = document.activeElement; \
         return a && a.tagName === 'TR' && a.closest('[data-testid=timeline]') ? a.dataset.step : null",
    )?;
    Ok(v.as_str().map(str::to_owned))
}

/// The `data-step` of every row that is a tab stop (`tabindex="0"`).
fn tab_stops(page: &Page) -> Result<Value> {
    page.script(
        "return [...document.querySelectorAll('[data-testid=timeline] tr[data-step]')] \
         .filter(r => r.tabIndex === 0).map(r => r.dataset.step)",
    )
}

fn wait_focused_step(page: &Page, step: &str) -> Result<()> {
    page.wait_until(&format!("row {step} has the focus"), || {
        Ok((focused_step(page)?.as_deref() == Some(step)).then_some(()))
    })
}

#[test]
fn the_timeline_rows_are_one_tab_stop_moved_by_the_arrows_and_activated_by_enter_or_space() {
    journey("timeline-keyboard", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        page.wait_count("timeline-row", 6)?;
        page.wait_until("the current row is the one tab stop", || {
            Ok((tab_stops(page)? == serde_json::json!(["0"])).then_some(()))
        })?;
        // Tab from the controls reaches the current row (the setup row at the start).
        page.script("document.querySelector('[data-testid=step-forward]').focus()")?;
        let mut seen = Vec::new();
        for _ in 0..30 {
            page.press(&[keys::TAB])?;
            if let Some(step) = focused_step(page)? {
                seen.push(step);
                break;
            }
            seen.push(page.focused()?);
        }
        ensure!(
            seen.last().map(String::as_str) == Some("0"),
            "Tab never reached the timeline's current row: {seen:?}"
        );
        // ↓ moves the focus (and the tab stop), not the run.
        page.press(&[keys::DOWN, keys::DOWN, keys::DOWN])?;
        wait_focused_step(page, "3")?;
        ensure!(
            tab_stops(page)? == serde_json::json!(["3"]),
            "{}",
            tab_stops(page)?
        );
        wait_position(page, 0, 6)?;
        // Enter jumps the run to the focused row's step; the row stays focused and is current.
        page.press(&[keys::ENTER])?;
        wait_position(page, 3, 6)?;
        wait_focused_step(page, "3")?;
        let current = page.script("return document.activeElement.getAttribute('aria-current')")?;
        ensure!(
            current == "step",
            "the focused row is not current: {current}"
        );
        // ↑ then Space: the run goes to step 2 (Space does not start autoplay here).
        page.press(&[keys::UP])?;
        wait_focused_step(page, "2")?;
        page.press(&[keys::SPACE])?;
        wait_position(page, 2, 6)?;
        let playing = page.find("autoplay")?;
        ensure!(
            page.session.attribute(&playing, "aria-pressed")?.as_deref() == Some("false"),
            "Space on a row started autoplay"
        );
        // ↑ at the setup row stays there.
        page.press(&[keys::UP, keys::UP, keys::UP])?;
        wait_focused_step(page, "0")?;
        // One Tab leaves the rows; Shift+Tab comes back to the same row.
        page.press(&[keys::TAB])?;
        page.wait_until("the focus left the rows", || {
            Ok(focused_step(page)?.is_none().then_some(()))
        })?;
        page.session.chord(keys::SHIFT, keys::TAB)?;
        wait_focused_step(page, "0")?;
        // Clicking a row still jumps, as before.
        page.click("timeline-row")?;
        wait_position(page, 1, 6)?;
        Ok(())
    });
}

#[test]
fn the_help_dialog_gives_the_focus_back_to_its_opener() {
    journey("help-focus", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        let focus_in_dialog = || {
            page.wait_until("the focus is in the dialog", || {
                Ok((page.focused()? == "help-close").then_some(()))
            })
        };
        let focus_back_on = |id: &str| {
            page.wait_count("help-overlay", 0)?;
            page.wait_until(&format!("the focus is back on `{id}`"), || {
                Ok((page.focused()? == id).then_some(()))
            })
        };
        // The help button, from the keyboard: Enter opens, Esc closes.
        page.script("document.querySelector('[data-testid=help]').focus()")?;
        page.press(&[keys::ENTER])?;
        focus_in_dialog()?;
        page.press(&[keys::ESCAPE])?;
        focus_back_on("help")?;
        // With the mouse: the button opens, the close button closes.
        page.click("help")?;
        focus_in_dialog()?;
        page.click("help-close")?;
        focus_back_on("help")?;
        // `?` from a timeline row: the focus goes back to that row.
        page.script("document.querySelector('[data-testid=timeline] tr.current').focus()")?;
        wait_focused_step(page, "0")?;
        page.press(&["?"])?;
        focus_in_dialog()?;
        page.press(&["?"])?;
        page.wait_count("help-overlay", 0)?;
        wait_focused_step(page, "0")?;
        Ok(())
    });
}
