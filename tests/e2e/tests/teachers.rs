//! Browser journeys for teachers' own exercises (issue #20): an exercise opened from a link
//! works like the built-in course (instructions, hints one at a time, locked clients, Check),
//! and "Copy my work" gives the hand-in. Same style as `journeys.rs`.

use anyhow::{ensure, Context, Result};
use rvlab_e2e::harness::{rvlab, work_dir};
use rvlab_e2e::page::{journey, Page};
use std::path::Path;

/// A teacher's exercise: the course's `retry-reread` under the teacher's own id.
fn teachers_exercise() -> String {
    include_str!("../../../crates/core/exercises/02-retry-reread.rvl")
        .replace("exercise \"retry-reread\"", "exercise \"class-retry\"")
}

/// The course's reference solution as a student's editor holds it: without the header lines
/// the page takes out of the editor.
fn solution() -> String {
    strip_header(include_str!(
        "../../../crates/core/exercises/02-retry-reread.solution.rvl"
    ))
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

/// The teacher's link: `rvlab exercise link FILE --base URL`, as the teacher types it.
fn make_link(page: &Page, dir: &Path, text: &str) -> Result<String> {
    let file = dir.join("class-retry.rvl");
    std::fs::write(&file, text)?;
    let base = format!("{}/", page.url);
    let out = rvlab(&["exercise", "link", path(&file)?, "--base", &base])?;
    let link = out.trim().to_string();
    ensure!(link.starts_with(&format!("{base}#v1&z=")), "{out}");
    Ok(link)
}

fn path(p: &Path) -> Result<&str> {
    p.to_str().context("a UTF-8 path")
}

#[test]
fn a_teachers_exercise_opens_from_its_link_and_passes_check_when_solved() {
    journey("teachers-exercise", |page| {
        let dir = work_dir("teachers-exercise")?;
        let link = make_link(page, &dir, &teachers_exercise())?;
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
        // The teacher grades the hand-in, as text and as the link.
        let hand_in_file = dir.join("student-1.txt");
        std::fs::write(&hand_in_file, &hand_in)?;
        let exercise = dir.join("class-retry.rvl");
        let graded = rvlab(&["grade", path(&exercise)?, path(&hand_in_file)?, href])?;
        ensure!(
            graded == format!("PASS {}\nPASS link 2\n", hand_in_file.display()),
            "{graded}"
        );
        Ok(())
    });
}

/// A course of three: the built-in `first-conflict`, `retry-reread` and `counter` under a
/// teacher's ids, each with its reference solution, in the course file's order.
fn course_folder(dir: &Path) -> Result<()> {
    let files = [
        ("01-first-conflict", "w3-conflict"),
        ("02-retry-reread", "w3-retry"),
        ("11-counter", "w3-counter"),
    ];
    let mut course = String::from("title \"Week 3: conflicts\"\nid \"week-3\"\nbuiltin hide\n");
    for (file, id) in files {
        let old = file.split_once('-').map_or(file, |(_, id)| id);
        for suffix in [".rvl", ".solution.rvl"] {
            let from = project_root_file(&format!("crates/core/exercises/{file}{suffix}"))?;
            let text = from.replace(
                &format!("exercise \"{old}\""),
                &format!("exercise \"{id}\""),
            );
            ensure!(text != from, "{file}: no exercise line");
            std::fs::write(dir.join(format!("{id}{suffix}")), text)?;
        }
        course.push_str(&format!("{id}.rvl\n"));
    }
    std::fs::write(dir.join("course"), course)?;
    Ok(())
}

fn project_root_file(rel: &str) -> Result<String> {
    let p = rvlab_e2e::harness::project_root().join(rel);
    std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))
}

#[test]
fn a_course_pack_is_built_served_and_keeps_progress_over_a_reload() {
    journey("course-pack", |page| {
        let work = work_dir("course-pack")?;
        let dir = work.join("week-3");
        std::fs::create_dir_all(&dir)?;
        course_folder(&dir)?;
        let site = work.join("site");
        let out = rvlab(&[
            "course",
            "build",
            path(&dir)?,
            "--out",
            path(&site)?,
            "--page",
            path(page.dist)?,
        ])?;
        ensure!(
            out.starts_with("course \"Week 3: conflicts\" (id week-3): 3 exercises checked, 3 with a reference solution"),
            "{out}"
        );
        // Served as a host serves it: the pack alone.
        page.server.set_roots(vec![site.clone()]);
        page.open_plain()?;
        page.script("localStorage.clear(); return 0")?;
        page.open_plain()?;
        // A first visit opens the course, on its first exercise; the built-in course is hidden.
        page.wait_text_contains("own-course", "Week 3: conflicts: 0 of 3 solved")?;
        ensure!(
            page.count("exercise-list")? == 0,
            "the built-in course is listed"
        );
        page.wait_text_contains("exercise", "Make bob's update conflict")?;
        page.wait_text_contains("exercises-tab", "(0/3 ✓)")?;
        let titles = page.text("own-course-list")?;
        ensure!(
            titles.contains("1. Make bob's update conflict")
                && titles.contains("2. Re-read, reapply, retry")
                && titles.contains("3. Three clients, one counter"),
            "{titles}"
        );
        let title = page.script("return document.title")?;
        ensure!(title == "Week 3: conflicts · rvlab", "{title}");
        // Solve the second one (fix it) with its reference solution.
        page.click_item("exercise-item", "w3-retry")?;
        page.wait_text_contains("exercise", "Re-read, reapply, retry")?;
        page.wait_until("the address names the exercise", || {
            Ok(page
                .session
                .current_url()?
                .ends_with("#exercise=w3-retry")
                .then_some(()))
        })?;
        let solution = std::fs::read_to_string(dir.join("w3-retry.solution.rvl"))?;
        set_editor(page, &strip_header(&solution))?;
        page.click("exercise-check")?;
        page.wait_text_contains("exercise-verdict", "Passed")?;
        page.wait_text_contains("exercises-tab", "(1/3 ✓)")?;
        page.wait_text_contains("own-course", "1 of 3 solved")?;
        page.screenshot("course-pack-solved")?;
        // A reload keeps the progress and the work, and the link opens the same exercise.
        let saved = serde_json::to_string(&strip_header(&solution))?;
        page.wait_until("the work is saved", || {
            let v = page.script("return localStorage.getItem('rvlab.work') || ''")?;
            Ok(v.as_str()
                .is_some_and(|w| w.contains("\"exercise\":\"w3-retry\"") && w.contains(&saved))
                .then_some(()))
        })?;
        let here = page.session.current_url()?;
        page.session.goto("about:blank")?;
        page.session.goto(&here)?;
        page.wait_text_contains("exercise", "Re-read, reapply, retry")?;
        page.wait_text_contains("exercises-tab", "(1/3 ✓)")?;
        let item = page.wait_until("the solved mark", || {
            let v = page.script(
                "const e = document.querySelector('[data-testid=exercise-item][data-id=w3-retry]'); \
                 return e ? e.dataset.solved : null",
            )?;
            Ok(v.as_str().map(str::to_string))
        })?;
        ensure!(item == "true", "{item}");
        ensure!(
            page.value("editor")? == strip_header(&solution),
            "the work did not come back"
        );
        // A link within the page (the address's fragment changed by hand) opens that exercise.
        page.script("location.hash = 'exercise=w3-counter'; return 0")?;
        page.wait_text_contains("exercise", "Three clients, one counter")?;
        // No solution was shipped: two lines only the solution has are in no file of the
        // pack, as text or in the course's JSON.
        let start = std::fs::read_to_string(dir.join("w3-retry.rvl"))?;
        let lines: Vec<&str> = solution.lines().collect();
        let at = lines
            .iter()
            .position(|l| !start.lines().any(|s| s == *l))
            .context("the solution has a line of its own")?;
        let only = lines[at..lines.len().min(at + 2)].join("\n");
        ensure!(!start.contains(&only) && only.contains('\n'), "{only}");
        let json = serde_json::to_string(&only)?;
        let json = json.trim_matches('"').to_string();
        for entry in std::fs::read_dir(&site)? {
            let entry = entry?;
            let text = String::from_utf8_lossy(&std::fs::read(entry.path())?).into_owned();
            ensure!(
                !text.contains(&only) && !text.contains(&json),
                "{} holds the solution",
                entry.path().display()
            );
        }
        Ok(())
    });
}

/// A text without its exercise header lines, as the page's editor holds it.
fn strip_header(text: &str) -> String {
    text.lines()
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
