//! Browser journeys through the playground (headless Chromium; see `rvlab_e2e`). Each journey
//! starts from a fresh load of the page; they share one browser and take turns.

use anyhow::{ensure, Context, Result};
use rvlab_e2e::page::{journey, Page};
use rvlab_e2e::webdriver::keys;

/// The seed story's rejected update, as the apiserver words it.
const CONFLICT_MESSAGE: &str = "Operation cannot be fulfilled on configmaps \\\"my-config\\\": the object has been modified; please apply your changes to the latest version and try again";

fn position(page: &Page) -> Result<String> {
    page.text("position")
}

fn wait_position(page: &Page, step: usize, of: usize) -> Result<()> {
    page.wait_text_contains("position", &format!("step {step} of {of}"))
        .map(drop)
}

#[test]
fn the_page_loads_with_its_regions() {
    journey("load", |page| {
        page.open()?;
        for region in [
            "editor",
            "diagnostics",
            "timeline",
            "controls",
            "narration",
            "inspector",
            "inspector-object",
            "inspector-http",
            "expectations",
            "lesson-picker",
        ] {
            page.find(region)?;
        }
        let title = page.script("return document.title")?;
        ensure!(title == "rvlab", "title is {title}");
        ensure!(
            page.count("error-panel")? == 0,
            "the error panel is showing"
        );
        page.wait_count("timeline-row", 6)?;
        page.wait_text_contains("lesson-picker", "Two writers, one stale read")?;
        Ok(())
    });
}

#[test]
fn stepping_the_seed_story_reaches_the_409_with_its_exact_status() {
    journey("seed-story", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        page.wait_text_contains("narration", "Nothing has happened yet")?;
        page.click("step-forward")?;
        page.wait_text_contains(
            "narration",
            "alice read configmap/my-config at resourceVersion 100",
        )?;
        for _ in 1..6 {
            page.click("step-forward")?;
        }
        wait_position(page, 6, 6)?;
        page.wait_text_contains(
            "narration",
            "bob's update was rejected with 409 Conflict: bob sent resourceVersion 100, but alice's update moved configmap/my-config to 101",
        )?;
        let http = page.wait_text_contains("inspector-http", "409 Conflict")?;
        ensure!(
            http.contains("PUT /api/v1/namespaces/default/configmaps/my-config"),
            "{http}"
        );
        page.wait_text_contains("inspector-http", CONFLICT_MESSAGE)?;
        page.wait_text_contains("inspector-http", "\"reason\": \"Conflict\"")?;
        page.wait_text_contains("inspector-object", "resourceVersion: \"101\"")?;
        // The conflict row is marked with a word, not only a colour.
        let rows = page.all("timeline-row")?;
        let last = rows.last().context("no rows")?;
        let text = page.session.text(last)?;
        ensure!(
            text.contains("409 Conflict") && text.contains("conflict"),
            "{text}"
        );
        page.wait_text_contains("expectations", "holds")?;
        page.screenshot("seed-story-409")?;
        Ok(())
    });
}

#[test]
fn the_learner_schedules_around_the_conflict() {
    journey("scheduler", |page| {
        page.open()?;
        // alice reads, edits and writes before bob even reads.
        for _ in 0..3 {
            page.click("next-alice")?;
        }
        wait_position(page, 3, 6)?;
        page.wait_text_contains(
            "narration",
            "alice's update of configmap/my-config was accepted",
        )?;
        page.wait_until("alice has no next button", || {
            Ok((page.count("next-alice")? == 0).then_some(()))
        })?;
        for _ in 0..3 {
            page.click("next-bob")?;
        }
        wait_position(page, 6, 6)?;
        page.wait_text_contains(
            "narration",
            "bob's update of configmap/my-config was accepted",
        )?;
        page.wait_text_contains("inspector-object", "from-bob")?;
        let rows = page.all("timeline-row")?;
        for row in &rows {
            let text = page.session.text(row)?;
            ensure!(!text.contains("409"), "no row should conflict: {text}");
        }
        // The lesson expected bob to fail: with this schedule it does not.
        page.wait_text_contains("expectations", "fails")?;
        Ok(())
    });
}

#[test]
fn a_broken_text_keeps_the_last_run_and_a_fix_updates_it() {
    journey("edit", |page| {
        page.open()?;
        page.wait_count("timeline-row", 6)?;
        let source = page.value("editor")?;
        let broken = source.replacen("update obj", "updat obj", 1);
        page.replace_text("editor", &broken)?;
        page.wait_text_contains("diagnostics", "error")?;
        page.wait_text_contains("diagnostics", "last valid run")?;
        page.wait_count("timeline-row", 6)?;
        page.screenshot("broken-text")?;
        // A click on the diagnostic puts the caret on the line.
        page.click("diagnostic")?;
        let caret = page.script("return document.activeElement.dataset.testid")?;
        ensure!(caret == "editor", "focus is on {caret}");
        // Fix it with one more local step for bob: the run updates.
        let fixed = source.replace(
            "    obj.data.key = \"from-bob\"\n",
            "    obj.data.key = \"from-bob\"\n    obj.data.other = \"x\"\n",
        );
        ensure!(fixed != source, "the lesson text changed shape");
        page.replace_text("editor", &fixed)?;
        page.wait_text_contains("diagnostics", "No problems")?;
        page.wait_count("timeline-row", 7)?;
        Ok(())
    });
}

#[test]
fn back_and_forward_stay_consistent() {
    journey("back-forward", |page| {
        page.open()?;
        page.click("run-to-end")?;
        wait_position(page, 6, 6)?;
        let at_end = page.text("narration")?;
        let http_end = page.text("inspector-http")?;
        page.click("step-back")?;
        page.click("step-back")?;
        wait_position(page, 4, 6)?;
        page.wait_text_contains(
            "narration",
            "alice's update of configmap/my-config was accepted",
        )?;
        page.wait_text_contains("inspector-object", "resourceVersion: \"101\"")?;
        page.click("step-back")?;
        wait_position(page, 3, 6)?;
        page.wait_text_contains("inspector-object", "resourceVersion: \"100\"")?;
        page.click("step-forward")?;
        page.click("step-forward")?;
        page.click("step-forward")?;
        wait_position(page, 6, 6)?;
        ensure!(
            page.text("narration")? == at_end,
            "the narration changed after back and forth"
        );
        ensure!(
            page.text("inspector-http")? == http_end,
            "the HTTP exchange changed"
        );
        // A click on a row jumps there.
        let rows = page.all("timeline-row")?;
        page.session.click(&rows[1])?;
        wait_position(page, 2, 6)?;
        page.wait_text_contains("narration", "bob read configmap/my-config")?;
        ensure!(position(page)?.contains("step 2"), "position");
        Ok(())
    });
}

#[test]
fn screenshots_wide_and_narrow() {
    journey("screenshots", |page| {
        page.open()?;
        for _ in 0..6 {
            page.click("step-forward")?;
        }
        wait_position(page, 6, 6)?;
        page.screenshot("wide")?;
        page.session.emulate_color_scheme("dark")?;
        let dark = page.script("return matchMedia('(prefers-color-scheme: dark)').matches");
        page.screenshot("wide-dark")?;
        page.session.emulate_color_scheme("light")?;
        ensure!(dark? == true, "the dark scheme was not emulated");
        page.session.set_window_size(390, 844)?;
        let result = (|| {
            page.open()?;
            page.click("run-to-end")?;
            wait_position(page, 6, 6)?;
            // Elements sticking out to the right, innermost first (none, when the page fits).
            let wide = page.script(
                "const w = document.documentElement.clientWidth; \
                 return [...document.querySelectorAll('body *')] \
                   .filter(e => e.getBoundingClientRect().right > w + 1 && e.closest('.scroll, .code, pre') === null) \
                   .slice(-5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));",
            )?;
            let overflow = page.script(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth",
            )?;
            page.screenshot("narrow")?;
            for (region, name) in [
                ("controls", "narrow-controls"),
                ("timeline", "narrow-timeline"),
                ("inspector", "narrow-inspector"),
            ] {
                page.script(&format!(
                    "document.querySelector('[data-testid={region}]').scrollIntoView()"
                ))?;
                page.screenshot(name)?;
            }
            ensure!(
                overflow == false,
                "the page scrolls sideways at 390 px: {wide}"
            );
            Ok(())
        })();
        page.session.set_window_size(1280, 900)?;
        result
    });
}

#[test]
fn the_keyboard_drives_the_run() {
    journey("keyboard", |page| {
        page.open()?;
        wait_position(page, 0, 6)?;
        page.press(&[keys::RIGHT, keys::RIGHT])?;
        wait_position(page, 2, 6)?;
        page.press(&[keys::LEFT])?;
        wait_position(page, 1, 6)?;
        // "2": the second client (bob) goes next.
        page.press(&["2"])?;
        wait_position(page, 2, 6)?;
        page.wait_text_contains("narration", "bob read configmap/my-config")?;
        // Keys typed into the editor stay in the editor.
        page.type_text("editor", "2")?;
        wait_position(page, 2, 6)?;
        Ok(())
    });
}

#[test]
fn another_lesson_loads_from_the_picker() {
    journey("lessons", |page| {
        page.open()?;
        page.pick_lesson("counter")?;
        page.wait_text_contains("narration", "Nothing has happened yet")?;
        let source = page.wait_until("the counter lesson is in the editor", || {
            let v = page.value("editor")?;
            Ok(v.contains("client carol").then_some(v))
        })?;
        ensure!(source.contains("retry on conflict"), "{source}");
        for _ in 0..8 {
            page.click("step-forward")?;
        }
        wait_position(page, 8, 17)?;
        page.screenshot("counter-step-8")?;
        page.click("run-to-end")?;
        page.wait_text_contains("inspector-object", "count: \"3\"")?;
        page.wait_text_contains("expectations", "holds")?;
        let expectations = page.text("expectations")?;
        ensure!(!expectations.contains("fails"), "{expectations}");
        Ok(())
    });
}

#[test]
fn autoplay_plays_to_the_end_and_stops() {
    journey("autoplay", |page| {
        page.open()?;
        page.script(
            "const s = document.querySelector('[data-testid=speed]'); \
             s.value = '150'; s.dispatchEvent(new Event('change', { bubbles: true }));",
        )?;
        page.click("autoplay")?;
        page.wait_text_contains("autoplay", "Pause")?;
        wait_position(page, 6, 6)?;
        page.wait_text_contains("autoplay", "Play")?;
        page.wait_text_contains("narration", "409 Conflict")?;
        Ok(())
    });
}
