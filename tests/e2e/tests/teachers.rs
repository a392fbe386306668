//! Browser journeys for teachers' own exercises (issue #20): an exercise opened from a link
//! works like the built-in course (instructions, hints one at a time, locked clients, Check),
//! and "Copy my work" gives the hand-in. Same style as `journeys.rs`.

use anyhow::{ensure, Result};
use rvlab_e2e::page::{journey, Page};

/// A teacher's exercise: the course's `retry-reread` under the teacher's own id.
fn teachers_exercise() -> String {
    include_str!("../../../crates/core/exercises/02-retry-reread.rvl")
        .replace("exercise \"retry-reread\"", "exercise \"class-retry\"")
}

/// The course's reference solution as a student's editor holds it: without the header lines
/// the page takes out of the editor.
fn solution() -> String {
    include_str!("../../../crates/core/exercises/02-retry-reread.solution.rvl")
        .lines()
        .filter(|l| {
            !["exercise ", "instructions ", "hint ", "goal ", "editable "]
                .iter()
                .any(|h| l.starts_with(h))
        })
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .trim_start_matches('\n')
        .to_string()
}

/// Sets the editor's text as one input event.
fn set_editor(page: &Page, text: &str) -> Result<()> {
    page.find("editor")?;
    page.session.execute(
        "const t = document.querySelector('[data-testid=editor]'); t.value = arguments[0]; \
         t.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![text.into()],
    )?;
    Ok(())
}

/// The teacher's link: the page's own "Copy link" of the exercise file's text.
fn make_link(page: &Page, text: &str) -> Result<String> {
    page.open()?;
    set_editor(page, text)?;
    page.wait_until("the text is parsed", || {
        Ok(page
            .text("diagnostics")?
            .contains("No problems")
            .then_some(()))
    })?;
    page.click("copy-link")?;
    page.wait_until("the link is shown", || {
        let v = page.value("share-output")?;
        Ok((v.contains("#v1&z=")).then_some(v))
    })
}

#[test]
fn a_teachers_exercise_opens_from_its_link_and_passes_check_when_solved() {
    journey("teachers-exercise", |page| {
        let link = make_link(page, &teachers_exercise())?;
        page.session.goto("about:blank")?;
        page.session.goto(&link)?;
        page.find("app")?;
        // Opened as the exercise, not as a plain scenario.
        let panel = page.wait_text_contains("exercise", "Re-read, reapply, retry")?;
        ensure!(panel.contains("fix it"), "{panel}");
        page.wait_text_contains("exercise-instructions", "Edit Bob so that")?;
        let locks = page.text("exercise")?;
        ensure!(
            locks.contains("alice locked") && locks.contains("bob editable"),
            "{locks}"
        );
        ensure!(
            !page.value("editor")?.contains("hint \""),
            "the hints are in the editor"
        );
        // Hints one at a time.
        ensure!(page.count("exercise-hint-text")? == 0, "a hint showed");
        page.click("exercise-hint")?;
        page.wait_count("exercise-hint-text", 1)?;
        page.wait_text_contains("exercise-hint-text", "Read the object again")?;
        // As it starts, Check fails; the solution passes.
        page.click("exercise-check")?;
        page.wait_text_contains("exercise-verdict", "Not yet")?;
        set_editor(page, &solution())?;
        page.click("exercise-check")?;
        let verdict = page.wait_text_contains("exercise-verdict", "Passed")?;
        ensure!(verdict.contains("every expectation holds"), "{verdict}");
        // The link stays in the address bar: a reload opens the exercise again.
        ensure!(page.session.current_url()? == link, "the URL changed");
        // Copy my work: the hand-in names the teacher's exercise.
        page.click("exercise-hand-in")?;
        let hand_in = page.wait_until("the hand-in is shown", || {
            let v = page.value("hand-in-text")?;
            Ok((!v.is_empty()).then_some(v))
        })?;
        ensure!(
            hand_in
                == format!(
                    "rvlab submission 1\nexercise: class-retry\nscenario:\n{}",
                    solution()
                ),
            "{hand_in}"
        );
        let href =
            page.script("return document.querySelector('[data-testid=hand-in-link]').href")?;
        let href = href.as_str().unwrap_or_default();
        ensure!(
            href.contains("#v1&z=") && href.ends_with("&ex=class-retry"),
            "{href}"
        );
        page.screenshot("teachers-exercise-passed")?;
        // The built-in course's progress does not count it.
        let tab = page.text("exercises-tab")?;
        ensure!(tab.contains("(0/"), "{tab}");
        Ok(())
    });
}
