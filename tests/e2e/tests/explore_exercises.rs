//! Browser journeys through the explorer panel (its Web Worker) and the exercises view. Each
//! journey starts from a fresh load of the page; they share one browser and take turns.

use anyhow::{ensure, Context, Result};
use rvlab_e2e::page::{journey, testid, Page};

/// The reference solution of the `retry-reread` exercise, as the course ships it.
const RETRY_REREAD_SOLUTION: &str =
    include_str!("../../../crates/core/exercises/02-retry-reread.solution.rvl");

/// Clicks the exercise of the course list with this id.
fn open_exercise(page: &Page, id: &str) -> Result<()> {
    page.click("exercises-tab")?;
    page.find("exercise-list")?;
    let css = format!("{}[data-id=\"{id}\"]", testid("exercise-item"));
    let item = page.wait_until(&format!("exercise `{id}` is listed"), || {
        Ok(page.session.find_all(&css)?.into_iter().next())
    })?;
    page.session.click(&item)?;
    page.wait_until(&format!("exercise `{id}` is open"), || {
        let Some(el) = page.all("exercise")?.into_iter().next() else {
            return Ok(None);
        };
        Ok((page.session.attribute(&el, "data-id")?.as_deref() == Some(id)).then_some(()))
    })
}

/// A counter incremented by `n` clients with `retry on conflict`: far too many schedules to
/// finish quickly, so there is time to cancel.
fn big_counter(n: usize) -> String {
    let mut s =
        String::from("object configmap/counter at resourceVersion 10:\n    data.count = \"0\"\n");
    for i in 0..n {
        s.push_str(&format!(
            "\nclient c{i}:\n    retry on conflict:\n        c = get configmap/counter\n        \
             c.data.count = c.data.count + 1\n        update c\n"
        ));
    }
    s.push_str("\nexpect no lost updates\n");
    s
}

#[test]
fn the_explorer_counts_violations_and_loads_a_counterexample() {
    journey("explorer", |page| {
        page.open()?;
        page.wait_text_contains("position", "step 0 of 6")?;
        page.wait_text_contains("explorer", "budget: 200,000 states")?;
        page.click("explore-button")?;
        page.find("explore-progress")?;
        let results =
            page.wait_text_contains("explore-results", "Complete: explored 6 schedules")?;
        page.wait_text_contains("explore-progress", "6 schedules (done)")?;
        // One line per expect, in order; the seed story has four.
        page.wait_count("explore-violation", 4)?;
        let lines: Vec<String> = page
            .all("explore-violation")?
            .iter()
            .map(|e| page.session.text(e))
            .collect::<Result<_>>()?;
        ensure!(
            lines[0].contains("2 of 6 schedules violate expect alice succeeds"),
            "{lines:?}"
        );
        ensure!(
            lines[1].contains("4 of 6 schedules violate expect bob fails with Conflict"),
            "{lines:?}"
        );
        ensure!(
            lines[3].contains("expect no lost updates holds in all 6 schedules"),
            "{lines:?}"
        );
        page.wait_count("explore-outcome", 4)?;
        ensure!(results.contains("409 Conflict"), "{results}");
        page.script("document.querySelector('[data-testid=explorer]').scrollIntoView()")?;
        page.screenshot("explorer-results")?;
        // Alice's shortest counterexample: she reads, edits, bob does everything, she updates.
        let load = page.all("load-counterexample")?;
        ensure!(
            load.len() == 3,
            "three violated expectations: {}",
            load.len()
        );
        page.session.click(&load[0])?;
        page.wait_text_contains("position", "step 6 of 6")?;
        page.wait_text_contains("narration", "alice's update was rejected with 409 Conflict")?;
        let rows = page.all("timeline-row")?;
        let last = rows.last().context("no rows")?;
        let last = page.session.text(last)?;
        ensure!(last.contains("409 Conflict"), "{last}");
        page.wait_text_contains("expectations", "fails")?;
        page.script("document.querySelector('[data-testid=timeline]').scrollIntoView()")?;
        page.screenshot("explorer-counterexample")?;
        // Editing the text marks the results stale.
        page.type_text("editor", "\n# edited\n")?;
        page.wait_text_contains("explore-stale", "Stale")?;
        Ok(())
    });
}

#[test]
fn the_explorer_explores_the_counter_lesson_and_cancels_a_big_one() {
    journey("explorer-cancel", |page| {
        page.open()?;
        page.pick_lesson("counter")?;
        page.wait_text_contains("position", "of 17")?;
        page.click("explore-button")?;
        page.wait_text_contains("explore-results", "Complete: explored 498 schedules")?;
        page.wait_count("explore-outcome", 3)?;
        // A counter with six clients has trillions of schedules: cancel it while it runs.
        page.set_editor(&big_counter(6))?;
        page.wait_text_contains("diagnostics", "No problems")?;
        page.wait_until("the explore button is enabled", || {
            let b = page.find("explore-button")?;
            Ok(page
                .session
                .attribute(&b, "disabled")?
                .is_none()
                .then_some(()))
        })?;
        page.click("explore-button")?;
        page.find("explore-cancel")?;
        // Progress arrives from the worker while it runs.
        page.wait_until("the worker reports progress", || {
            let p = page.find("explore-progress")?;
            let states: u64 = page
                .session
                .attribute(&p, "data-states")?
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            Ok((states > 0).then_some(()))
        })?;
        page.wait_text_contains("explore-progress", "so far")?;
        page.click("explore-cancel")?;
        page.wait_count("explore-cancel", 0)?;
        page.wait_count("explore-progress", 0)?;
        ensure!(
            page.count("explore-results")? == 0,
            "no results after a cancel"
        );
        let b = page.find("explore-button")?;
        ensure!(
            page.session.attribute(&b, "disabled")?.is_none(),
            "the explore button is enabled again"
        );
        Ok(())
    });
}

#[test]
fn a_break_it_exercise_is_solved_by_scheduling_the_conflict() {
    journey("exercise-break", |page| {
        page.open()?;
        open_exercise(page, "first-conflict")?;
        page.wait_text_contains("exercise-instructions", "Be the scheduler")?;
        ensure!(
            page.count("lesson-picker")? == 0,
            "the lessons picker is hidden"
        );
        let source = page.value("editor")?;
        ensure!(!source.contains("hint \""), "hints stay hidden: {source}");
        // Hints on demand, one at a time.
        page.click("exercise-hint")?;
        page.wait_count("exercise-hint-text", 1)?;
        // As loaded, bob succeeds: Check says why not.
        page.click("exercise-check")?;
        page.wait_text_contains("exercise-verdict", "Not yet")?;
        page.wait_text_contains("exercise-verdict", "still holds")?;
        // Be the scheduler: bob reads, alice does everything, bob edits and updates.
        page.click("reset")?;
        page.wait_text_contains("position", "step 0 of 6")?;
        page.click("next-bob")?;
        for _ in 0..3 {
            page.click("next-alice")?;
        }
        page.wait_text_contains("position", "step 4 of 6")?;
        page.click("next-bob")?;
        page.click("next-bob")?;
        page.wait_text_contains("position", "step 6 of 6")?;
        page.wait_text_contains("narration", "409 Conflict")?;
        page.click("exercise-check")?;
        let verdict = page.wait_text_contains("exercise-verdict", "Passed")?;
        ensure!(verdict.contains("ba3b2"), "{verdict}");
        page.screenshot("exercise-break-passed")?;
        // The progress survives a reload.
        page.open()?;
        page.click("exercises-tab")?;
        let css = format!(
            "{}[data-id=\"first-conflict\"][data-solved=\"true\"]",
            testid("exercise-item")
        );
        page.wait_until("first-conflict is marked solved after a reload", || {
            Ok(page.session.find_all(&css)?.into_iter().next())
        })?;
        Ok(())
    });
}

#[test]
fn a_fix_it_exercise_fails_a_wrong_fix_and_passes_the_solution() {
    journey("exercise-fix", |page| {
        page.open()?;
        open_exercise(page, "retry-reread")?;
        page.wait_text_contains("exercise", "bob editable")?;
        page.wait_text_contains("exercise", "alice locked")?;
        let start = page.value("editor")?;
        // A wrong fix: retry the update without re-reading.
        let wrong = start.replace(
            "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    update c\n",
            "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    retry on conflict:\n        update c\n",
        );
        ensure!(wrong != start, "the exercise text changed shape: {start}");
        page.set_editor(&wrong)?;
        page.click("exercise-check")?;
        let verdict = page.wait_text_contains("exercise-verdict", "Not yet")?;
        ensure!(
            verdict.contains("schedules") && verdict.contains("409 Conflict"),
            "{verdict}"
        );
        page.screenshot("exercise-fix-failed")?;
        // The verdict's run opens in the timeline.
        page.click("exercise-open-run")?;
        page.wait_text_contains("narration", "409 Conflict")?;
        // Typing into a locked line changes nothing (the editor refuses it and says why).
        let before = page.value("editor")?;
        let at = before.find("client alice:").context("alice")? + 3;
        page.script(&format!(
            "const t = document.querySelector('[data-testid=editor]'); t.focus(); t.setSelectionRange({at}, {at});"
        ))?;
        page.press(&["x", "y"])?;
        page.find("exercise-locked-note")?;
        ensure!(page.value("editor")? == before, "a locked line was edited");
        // Typing into bob's lines works.
        let at = before.find("client bob:").context("bob")? + "client bob:".len();
        page.script(&format!(
            "const t = document.querySelector('[data-testid=editor]'); t.focus(); t.setSelectionRange({at}, {at});"
        ))?;
        page.press(&[" "])?;
        page.wait_until("bob's line was edited", || {
            Ok((page.value("editor")? != before).then_some(()))
        })?;
        // A change to a locked client is refused with the reason.
        page.set_editor(&start.replace("+ 1\n", "+ 2\n"))?;
        page.click("exercise-check")?;
        page.wait_text_contains("exercise-verdict", "client `alice` is locked")?;
        // The reference solution passes.
        page.set_editor(RETRY_REREAD_SOLUTION)?;
        page.click("exercise-check")?;
        let verdict = page.wait_text_contains("exercise-verdict", "Passed")?;
        ensure!(verdict.contains("every expectation holds"), "{verdict}");
        page.screenshot("exercise-fix-passed")?;
        Ok(())
    });
}

#[test]
fn the_new_panels_fit_a_narrow_screen() {
    journey("explore-exercises-narrow", |page| {
        page.session.set_window_size(390, 844)?;
        let result = (|| {
            page.open()?;
            page.click("explore-button")?;
            page.find("explore-results")?;
            open_exercise(page, "retry-reread")?;
            page.click("exercise-check")?;
            page.find("exercise-verdict")?;
            let overflow = page.script(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth",
            )?;
            let wide = page.script(
                "const w = document.documentElement.clientWidth; \
                 return [...document.querySelectorAll('body *')] \
                   .filter(e => e.getBoundingClientRect().right > w + 1 && e.closest('.scroll, .code, pre') === null) \
                   .slice(-5).map(e => e.tagName + '.' + e.className);",
            )?;
            page.screenshot("narrow-exercises")?;
            page.script("document.querySelector('[data-testid=explorer]').scrollIntoView()")?;
            page.screenshot("narrow-explorer")?;
            ensure!(
                overflow == false,
                "the page scrolls sideways at 390 px: {wide}"
            );
            page.session.emulate_color_scheme("dark")?;
            page.script("document.querySelector('[data-testid=exercises]').scrollIntoView()")?;
            page.screenshot("narrow-exercises-dark")?;
            page.session.emulate_color_scheme("light")?;
            Ok(())
        })();
        page.session.set_window_size(1280, 900)?;
        result
    });
}
