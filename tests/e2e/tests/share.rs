//! Browser journeys for sharing, embedding, saved work, the keyboard and the accessible views
//! (issue 7). Same style as `journeys.rs`: a fresh load per journey, `data-testid` only,
//! wait-until conditions, never a sleep.

use anyhow::{ensure, Context, Result};
use rvlab_e2e::page::{journey, Page};
use rvlab_e2e::webdriver::keys;

fn wait_position(page: &Page, step: usize, of: usize) -> Result<String> {
    page.wait_text_contains("position", &format!("step {step} of {of}"))
}

/// The fragment of the current URL (without `#`).
fn url_fragment(page: &Page) -> Result<String> {
    let url = page.session.current_url()?;
    Ok(url
        .split_once('#')
        .map(|(_, f)| f.to_owned())
        .unwrap_or_default())
}

#[test]
fn a_share_link_reopens_the_same_step() {
    journey("share-link", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        // The learner schedules: bob reads first, then alice.
        page.click("next-bob")?;
        page.click("next-alice")?;
        wait_position(page, 2, 6)?;
        let narration = page.wait_text_contains("narration", "alice read configmap/my-config")?;
        page.click("table-view")?;
        page.find("timeline-table")?;
        // The URL follows the state (replaceState, debounced): wait for the last change, the
        // table view (the position alone may be there from before the click).
        let fragment = page.wait_until("the URL holds the state", || {
            let f = url_fragment(page)?;
            Ok(f.contains("view=table").then_some(f))
        })?;
        ensure!(
            fragment == "v1&lesson=stale-update&t=ba&p=2&view=table",
            "{fragment}"
        );
        let history = page.script("return history.length")?;
        page.click("copy-link")?;
        let link = page.wait_until("the link is shown", || {
            let v = page.value("share-output")?;
            Ok(v.contains("#v1").then_some(v))
        })?;
        ensure!(link.ends_with(&format!("#{fragment}")), "{link}");
        page.screenshot("share-link")?;
        eprintln!("seed story link after two picks: {} characters", link.len());
        // Stepping does not add history entries.
        page.click("step-forward")?;
        wait_position(page, 3, 6)?;
        page.wait_until("the URL follows the step", || {
            Ok(url_fragment(page)?.contains("p=3").then_some(()))
        })?;
        ensure!(
            page.script("return history.length")? == history,
            "history grew"
        );
        // A fresh load of the link (the default lesson in between, so it is a new document).
        page.open()?;
        wait_position(page, 0, 6)?;
        page.session.goto("about:blank")?;
        page.session.goto(&link)?;
        page.find("app")?;
        wait_position(page, 2, 6)?;
        ensure!(page.text("narration")? == narration, "another narration");
        page.find("timeline-table")?;
        page.wait_text_contains("live-narration", "alice read configmap/my-config")?;
        ensure!(page.count("share-notice")? == 0, "a notice showed");
        // The restored run continues like the original: bob's stale write conflicts.
        page.click("run-to-end")?;
        wait_position(page, 6, 6)?;
        page.wait_text_contains("narration", "409 Conflict")?;
        // A link followed within the page (only the fragment changes: `hashchange`).
        page.script("location.hash = '#v1&lesson=counter&p=4'")?;
        wait_position(page, 4, 17)?;
        page.wait_until("the counter lesson is in the editor", || {
            Ok(page.value("editor")?.contains("client carol").then_some(()))
        })?;
        Ok(())
    });
}

#[test]
fn an_edited_scenario_shares_as_a_full_link() {
    journey("share-text", |page| {
        page.open()?;
        page.type_text("editor", "\n# shared note\n")?;
        page.wait_text_contains("diagnostics", "No problems")?;
        page.click("step-forward")?;
        wait_position(page, 1, 6)?;
        page.click("copy-link")?;
        let link = page.wait_until("the link is shown", || {
            let v = page.value("share-output")?;
            Ok(v.contains("#v1&z=").then_some(v))
        })?;
        eprintln!("seed story full-text link: {} characters", link.len());
        page.open()?;
        page.session.goto("about:blank")?;
        page.session.goto(&link)?;
        page.find("app")?;
        wait_position(page, 1, 6)?;
        let text = page.value("editor")?;
        ensure!(text.contains("# shared note"), "{text}");
        page.click("copy-embed")?;
        let code = page.wait_until("the embed code is shown", || {
            let v = page.value("share-output")?;
            Ok(v.starts_with("<iframe").then_some(v))
        })?;
        ensure!(
            code.contains("&embed=1\"") && code.contains("rvlab:height"),
            "{code}"
        );
        Ok(())
    });
}

#[test]
fn the_embed_sample_shows_two_widgets_sized_by_their_messages() {
    journey("embed-sample", |page| {
        page.open_path("embed-sample.html")?;
        for id in ["embed-seed", "embed-retry"] {
            let height = page.wait_until(&format!("{id} reported its height"), || {
                let v = page.script(&format!(
                    "const f = document.querySelector('[data-testid={id}]'); \
                     return f && f.dataset.reportedHeight ? \
                       [Number(f.dataset.reportedHeight), f.getBoundingClientRect().height, \
                        f.contentDocument.querySelectorAll('[data-testid=timeline-row]').length, \
                        f.contentDocument.querySelectorAll('[data-testid=editor]').length] : null"
                ))?;
                Ok(v.as_array().cloned())
            })?;
            let n = |i: usize| height[i].as_f64().unwrap_or(-1.0);
            ensure!(n(0) > 200.0, "{id}: reported {height:?}");
            ensure!((n(0) - n(1)).abs() <= 1.0, "{id}: not resized: {height:?}");
            ensure!(n(2) >= 6.0, "{id}: no timeline: {height:?}");
            ensure!(n(3) == 0.0, "{id}: the editor shows in embed mode");
        }
        // The seed widget opened at step 2, as its link says.
        let pos = page.script(
            "return document.querySelector('[data-testid=embed-seed]').contentDocument\
             .querySelector('[data-testid=position]').textContent",
        )?;
        ensure!(pos == "step 2 of 6", "{pos}");
        page.screenshot("embed-sample")?;
        // `&editor=1` adds the editor to an embed; the share bar never shows in one.
        page.open_fragment("v1&lesson=stale-update&embed=1&editor=1")?;
        page.find("editor")?;
        page.wait_count("timeline-row", 6)?;
        ensure!(
            page.count("copy-embed")? == 0,
            "the share bar shows in an embed"
        );
        ensure!(
            page.count("inspector")? == 0,
            "the inspector shows in an embed"
        );
        Ok(())
    });
}

#[test]
fn a_reload_keeps_edits_until_reset_to_lesson() {
    journey("saved-work", |page| {
        page.open()?;
        page.type_text("editor", "\n# my own note\n")?;
        page.click("step-forward")?;
        wait_position(page, 1, 6)?;
        page.wait_until("the work is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .is_some_and(|s| s.contains("my own note") && s.contains("\"position\":1"))
                .then_some(()))
        })?;
        page.open_plain()?;
        let text = page.value("editor")?;
        ensure!(text.contains("# my own note"), "not restored: {text}");
        wait_position(page, 1, 6)?;
        ensure!(page.count("share-notice")? == 0, "a notice showed");
        page.click("reset-to-lesson")?;
        page.wait_until("the lesson text is back", || {
            Ok((!page.value("editor")?.contains("my own note")).then_some(()))
        })?;
        wait_position(page, 0, 6)?;
        page.wait_text_contains("lesson-picker", "Two writers, one stale read")?;
        page.wait_until("the reset is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .is_some_and(|s| !s.contains("my own note"))
                .then_some(()))
        })?;
        page.open_plain()?;
        ensure!(
            !page.value("editor")?.contains("my own note"),
            "the edit came back"
        );
        // Corrupt saved work: a notice and the first lesson. The fresh page saves its state
        // once, debounced, after it loads; make a change and wait for its save first, so that no
        // save is pending to overwrite the record planted next.
        page.click("step-forward")?;
        wait_position(page, 1, 6)?;
        page.wait_until("the step is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .is_some_and(|s| s.contains("\"position\":1"))
                .then_some(()))
        })?;
        page.script("localStorage.setItem('rvlab.work', '{\"v\":1,')")?;
        page.open_plain()?;
        page.wait_text_contains("share-notice", "saved work could not be restored")?;
        page.wait_count("timeline-row", 6)?;
        // The page saves the first lesson over the corrupt record; only then plant the next one.
        page.wait_until("the first lesson is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .is_some_and(|s| s.contains("\"v\":1,\"source\""))
                .then_some(()))
        })?;
        page.script("localStorage.setItem('rvlab.work', '{\"v\":99,\"source\":\"x\"}')")?;
        page.open_plain()?;
        page.wait_text_contains("share-notice", "format version 99")?;
        page.wait_text_contains("lesson-picker", "Two writers, one stale read")?;
        Ok(())
    });
}

#[test]
fn the_keyboard_alone_reaches_every_control_and_the_help() {
    journey("keyboard-only", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        page.script("document.activeElement && document.activeElement.blur()")?;
        // Tab through the page to the step button, noting what is reached on the way.
        let mut seen = Vec::new();
        for _ in 0..60 {
            page.press(&[keys::TAB])?;
            let f = page.focused()?;
            seen.push(f.clone());
            if f == "step-forward" {
                break;
            }
        }
        ensure!(
            seen.last().map(String::as_str) == Some("step-forward"),
            "Tab never reached the step button: {seen:?}"
        );
        for id in [
            "lesson-picker",
            "copy-link",
            "table-view",
            "help",
            "editor",
            "reset",
        ] {
            ensure!(seen.iter().any(|s| s == id), "Tab skipped {id}: {seen:?}");
        }
        // The focused button works with Enter; the arrows and Home/End work from there.
        page.press(&[keys::ENTER])?;
        wait_position(page, 1, 6)?;
        page.press(&[keys::RIGHT])?;
        wait_position(page, 2, 6)?;
        page.press(&[keys::END])?;
        wait_position(page, 6, 6)?;
        page.press(&[keys::HOME])?;
        wait_position(page, 0, 6)?;
        page.press(&["2"])?;
        wait_position(page, 1, 6)?;
        page.wait_text_contains("live-narration", "bob read configmap/my-config")?;
        // The pick made a new run; its rows are new, and the current one is marked.
        page.wait_until("the new run's current row is marked", || {
            let v = page.script(
                "const r = document.querySelector('[data-testid=timeline] tr.current'); \
                 return r ? r.getAttribute('data-step') : null;",
            )?;
            Ok((v.as_str() == Some("1")).then_some(()))
        })?;
        // `?` opens the help as a modal dialog with the focus inside; Esc closes it and gives the
        // focus back.
        let before = page.focused()?;
        page.press(&["?"])?;
        let overlay = page.find("help-overlay")?;
        ensure!(
            page.session.attribute(&overlay, "aria-modal")?.as_deref() == Some("true"),
            "not a modal dialog"
        );
        page.wait_until("the focus is in the dialog", || {
            Ok((page.focused()? == "help-close").then_some(()))
        })?;
        page.wait_text_contains("help-overlay", "step forward")?;
        page.press(&[keys::TAB])?;
        ensure!(page.focused()? == "help-close", "the focus left the dialog");
        // No shortcut fires under the dialog.
        page.press(&[keys::RIGHT])?;
        page.screenshot("help-overlay")?;
        page.press(&[keys::ESCAPE])?;
        page.wait_count("help-overlay", 0)?;
        wait_position(page, 1, 6)?;
        ensure!(
            page.focused()? == before,
            "focus went to {:?}",
            page.focused()?
        );
        // The table view, from the keyboard: a real table with a caption and header scopes.
        page.find("table-view")?;
        page.script("document.querySelector('[data-testid=table-view]').focus()")?;
        page.press(&[keys::ENTER])?;
        let table = page.find("timeline-table")?;
        let shape = page.script(
            "const t = document.querySelector('[data-testid=timeline-table]'); \
             return [t.tagName, !!t.querySelector('caption'), \
                     t.querySelectorAll('thead th[scope=col]').length, \
                     t.querySelectorAll('tbody tr').length, \
                     t.querySelectorAll('tbody th[scope=row]').length]",
        )?;
        ensure!(
            shape == serde_json::json!(["TABLE", true, 5, 6, 6]),
            "{shape}"
        );
        ensure!(
            page.session
                .text(&table)?
                .contains("bob read configmap/my-config"),
            "no narration in the table"
        );
        // `?` typed in the editor is text, not the help.
        page.type_text("editor", "?")?;
        ensure!(
            page.count("help-overlay")? == 0,
            "the help opened while typing"
        );
        Ok(())
    });
}

#[test]
fn corrupt_and_oversized_links_show_a_notice_and_the_first_lesson() {
    journey("broken-links", |page| {
        page.open_fragment("v1&z=AAAA&p=3")?;
        let notice = page.wait_text_contains("share-notice", "could not be opened")?;
        ensure!(notice.contains("damaged"), "{notice}");
        page.wait_count("timeline-row", 6)?;
        wait_position(page, 0, 6)?;
        page.wait_text_contains("lesson-picker", "Two writers, one stale read")?;
        ensure!(page.count("error-panel")? == 0, "the error panel showed");
        page.screenshot("share-notice")?;
        let long = format!("v1&lesson=stale-update&t={}", "a".repeat(30_000));
        page.open_fragment(&long)?;
        page.wait_text_contains("share-notice", "bytes long")?;
        page.wait_count("timeline-row", 6)?;
        page.open_fragment("v1&lesson=no-such-lesson")?;
        page.wait_text_contains("share-notice", "no-such-lesson")?;
        // The notice can be dismissed; a good link afterwards shows none.
        let notice = page.find("share-notice")?;
        let dismiss = page.script(
            "document.querySelector('[data-testid=share-notice] button').click(); return 1",
        )?;
        ensure!(dismiss == 1, "{dismiss}");
        drop(notice);
        page.wait_count("share-notice", 0)?;
        page.open_fragment("v1&lesson=counter&p=4")?;
        wait_position(page, 4, 17)?;
        ensure!(page.count("share-notice")? == 0, "a notice showed");
        page.find("app").context("the page")?;
        Ok(())
    });
}
