//! `rvlab course build` and `rvlab exercise link`: a teacher's own exercises, as a course pack
//! or one link.

use super::support::*;
use rvlab_core::exercises::builtin;
use rvlab_core::exercises::course::Course;
use rvlab_core::share::{ShareState, Source};
use std::path::{Path, PathBuf};

const EXERCISE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/exercises/01-first-conflict.rvl"
);

/// A built-in exercise's text with its id changed.
fn renamed(text: &str, from: &str, to: &str) -> String {
    let out = text.replacen(
        &format!("exercise \"{from}\""),
        &format!("exercise \"{to}\""),
        1,
    );
    assert_ne!(out, text, "{from} has an exercise line");
    out
}

/// The line each reference solution gets, found nowhere but in the solutions.
fn marker(n: usize) -> String {
    format!("# the reference solution {n}: keep it to yourself")
}

/// A course folder of three exercises (with solutions) and a `course` file that orders them
/// against their names.
fn course_dir(root: &Path) -> PathBuf {
    let dir = root.join("week-3");
    std::fs::create_dir_all(&dir).expect("dir");
    for (n, (file, id, new_id)) in [
        ("a-counter.rvl", "counter", "my-counter"),
        ("b-conflict.rvl", "first-conflict", "my-conflict"),
        ("c-retry.rvl", "retry-reread", "my-retry"),
    ]
    .into_iter()
    .enumerate()
    {
        let b = builtin(id).expect("built-in");
        std::fs::write(dir.join(file), renamed(b.source, id, new_id)).expect("write");
        let solution = format!("{}{}\n", renamed(b.solution(), id, new_id), marker(n));
        let sol_file = file.replace(".rvl", ".solution.rvl");
        std::fs::write(dir.join(sol_file), solution).expect("write");
    }
    std::fs::write(
        dir.join("course"),
        "# my course\ntitle \"Week 3 <OCC> & more\"\nid \"week-3\"\nbuiltin hide\nb-conflict.rvl\nc-retry.rvl\na-counter.rvl\n",
    )
    .expect("write");
    dir
}

/// A release page as `cargo xtask dist` writes it, in small.
fn page_dir(root: &Path) -> PathBuf {
    let page = root.join("dist");
    std::fs::create_dir_all(&page).expect("dir");
    let html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rvlab</title><link rel=\"stylesheet\" href=\"./style-0123456789abcdef.css\"></head><body></body></html>\n";
    std::fs::write(page.join("index.html"), html).expect("write");
    std::fs::write(
        page.join("kubectl.html"),
        html.replace("<body>", "<body class=\"k\">"),
    )
    .expect("write");
    std::fs::write(page.join("style-0123456789abcdef.css"), "body{}\n").expect("write");
    // The precompressed copies dist writes (docs/deploy.md); any bytes will do here.
    for name in [
        "index.html.gz",
        "kubectl.html.gz",
        "style-0123456789abcdef.css.gz",
    ] {
        std::fs::write(page.join(name), "gz").expect("write");
    }
    std::fs::write(page.join("previous-builds.txt"), "").expect("write");
    page
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The course in a pack's page.
fn course_in(html: &str) -> Course {
    let start = "<script type=\"application/json\" id=\"rvlab-course\">";
    let from = html.find(start).expect("the script element") + start.len();
    let to = from + html[from..].find("</script>").expect("its end");
    assert_eq!(html.matches(start).count(), 1, "one course element: {html}");
    assert!(
        html[to..].starts_with("</script></head>"),
        "just before </head>"
    );
    Course::from_json(&html[from..to]).expect("the course reads back")
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    for p in names {
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).expect("read")));
        }
    }
    out
}

#[test]
fn a_course_builds_into_the_page_in_course_order_without_its_solutions() {
    let root = temp_dir("course-build");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    // A subfolder of the page is copied too.
    std::fs::create_dir_all(page.join("icons")).expect("dir");
    std::fs::write(page.join("icons/a-0123456789abcdef.svg"), "<svg/>").expect("write");
    let out = root.join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().next(),
        Some("course \"Week 3 <OCC> & more\" (id week-3): 3 exercises checked, 3 with a reference solution")
    );
    assert!(stdout(&o).contains(&format!("{}", out.join("index.html").display())));
    assert_eq!(stderr(&o), "", "no warnings");

    // Every file of the page, the assets byte for byte.
    let got: Vec<PathBuf> = files(&out)
        .into_iter()
        .map(|(p, _)| p.strip_prefix(&out).expect("inside").to_path_buf())
        .collect();
    // All but the pages' precompressed copies: they are the pages without the course.
    let want: Vec<PathBuf> = files(&page)
        .into_iter()
        .map(|(p, _)| p.strip_prefix(&page).expect("inside").to_path_buf())
        .filter(|p| !p.ends_with("index.html.gz") && !p.ends_with("kubectl.html.gz"))
        .collect();
    assert_eq!(got, want);
    assert!(got
        .iter()
        .any(|p| p.ends_with("style-0123456789abcdef.css.gz")));
    for name in [
        "style-0123456789abcdef.css",
        "previous-builds.txt",
        "icons/a-0123456789abcdef.svg",
    ] {
        assert_eq!(
            std::fs::read(out.join(name)).expect("copied"),
            std::fs::read(page.join(name)).expect("page")
        );
    }
    for name in ["index.html", "kubectl.html"] {
        let html = std::fs::read_to_string(out.join(name)).expect("page");
        assert!(
            html.contains("<title>Week 3 &lt;OCC&gt; &amp; more · rvlab</title>"),
            "{html}"
        );
        assert!(!html.contains("<title>rvlab</title>"));
        let course = course_in(&html);
        assert_eq!(course.title, "Week 3 <OCC> & more");
        assert_eq!(course.id, "week-3");
        assert!(!course.builtin);
        let ids: Vec<&str> = course.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["my-conflict", "my-retry", "my-counter"]);
        let files: Vec<&str> = course.entries.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(files, ["b-conflict.rvl", "c-retry.rvl", "a-counter.rvl"]);
        // The starting texts exactly.
        let conflict = course.find("my-conflict").expect("there");
        assert_eq!(
            conflict.text,
            std::fs::read_to_string(dir.join("b-conflict.rvl")).expect("read")
        );
    }
    // The rest of kubectl.html is its own.
    assert!(std::fs::read_to_string(out.join("kubectl.html"))
        .expect("page")
        .contains("<body class=\"k\">"));
    // No solution anywhere in the pack.
    for (path, bytes) in files(&out) {
        let text = String::from_utf8_lossy(&bytes);
        for n in 0..3 {
            assert!(
                !text.contains(&marker(n)),
                "{} holds a solution",
                path.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_rebuild_replaces_an_earlier_pack_and_keeps_its_old_hashed_files() {
    let root = temp_dir("course-rebuild");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    let out = root.join("site");
    let build = || {
        rvlab(&[
            "course",
            "build",
            s(&dir),
            "--out",
            s(&out),
            "--page",
            s(&page),
        ])
    };
    assert_eq!(build().status.code(), Some(0));
    // A precompressed page in the pack (copied there by hand) would be served in place of the
    // new page: the rebuild removes it.
    std::fs::write(out.join("index.html.gz"), "stale").expect("write");
    // A new release: a new asset; the old one stays in the pack for returning visitors.
    std::fs::remove_file(page.join("style-0123456789abcdef.css")).expect("rm");
    std::fs::write(page.join("style-fedcba9876543210.css"), "body{x}\n").expect("write");
    let course = std::fs::read_to_string(dir.join("course")).expect("read");
    std::fs::write(
        dir.join("course"),
        course
            .replace("a-counter.rvl\n", "")
            .replace("builtin hide", "builtin beside"),
    )
    .expect("write");
    let o = build();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a-counter.rvl: warning: it is not listed in"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("2 exercises checked"), "{}", stdout(&o));
    assert!(out.join("style-0123456789abcdef.css").is_file(), "kept");
    assert!(out.join("style-fedcba9876543210.css").is_file(), "added");
    assert!(
        !out.join("index.html.gz").exists(),
        "the stale page copy is gone"
    );
    let course = course_in(&std::fs::read_to_string(out.join("index.html")).expect("page"));
    assert_eq!(course.entries.len(), 2);
    assert!(course.builtin);
    // Nothing staged is left next to the pack.
    let left: Vec<_> = std::fs::read_dir(&root)
        .expect("read")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left.len(), 3, "{left:?}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Builds and expects a refusal: exit 1, the message, and `out` as it was.
fn refused(dir: &Path, out: &Path, page: Option<&Path>, expect: &[&str]) -> String {
    let before = out.exists().then(|| files(out));
    let mut args = vec!["course", "build", s(dir), "--out", s(out)];
    if let Some(page) = page {
        args.extend(["--page", s(page)]);
    }
    let o = rvlab(&args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
    let err = stderr(&o);
    for e in expect {
        assert!(err.contains(e), "{args:?}: wanted {e:?} in:\n{err}");
    }
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(out.exists().then(|| files(out)), before, "{args:?} wrote");
    let staged = std::fs::read_dir(out.parent().expect("parent"))
        .expect("read")
        .filter(|e| {
            e.as_ref()
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .contains("rvlab-build")
        })
        .count();
    assert_eq!(staged, 0);
    err
}

#[test]
fn every_problem_is_reported_and_nothing_is_written() {
    let root = temp_dir("course-refuse");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    let out = root.join("site");
    let shown = |f: &str| dir.join(f).display().to_string();

    // No release page: in the current directory there is no dist/.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rvlab"))
        .args(["course", "build", s(&dir), "--out", s(&out)])
        .current_dir(&dir)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(
        "error: no release page at dist/: build it with `cargo xtask dist`, or give --page DIR (a copy of the deployed page)"
    ), "{}", stderr(&o));
    assert!(!out.exists());
    refused(
        &dir,
        &out,
        Some(&root.join("nope")),
        &["no release page at"],
    );
    // A page without a </head>.
    let bad_page = root.join("bad-page");
    std::fs::create_dir_all(&bad_page).expect("dir");
    std::fs::write(bad_page.join("index.html"), "<html></html>").expect("write");
    refused(
        &dir,
        &out,
        Some(&bad_page),
        &["index.html: error: it has 0 `</head>`"],
    );

    // A folder that is not a pack.
    let foreign = root.join("foreign");
    std::fs::create_dir_all(&foreign).expect("dir");
    std::fs::write(foreign.join("notes.txt"), "mine").expect("write");
    std::fs::write(foreign.join("index.html"), "<head></head>").expect("write");
    refused(
        &dir,
        &foreign,
        Some(&page),
        &["is not empty and not an earlier course pack"],
    );
    assert_eq!(
        std::fs::read_to_string(foreign.join("notes.txt")).expect("kept"),
        "mine"
    );
    // Inside the course folder, or the page inside OUT.
    refused(
        &dir,
        &dir.join("site"),
        Some(&page),
        &["overlaps the course folder"],
    );
    refused(&dir, &root, Some(&page), &["overlaps"]);

    // A starting text that already passes: the solution as the exercise.
    let sol = std::fs::read_to_string(dir.join("b-conflict.solution.rvl")).expect("read");
    let start = std::fs::read_to_string(dir.join("b-conflict.rvl")).expect("read");
    std::fs::write(dir.join("b-conflict.rvl"), &sol).expect("write");
    refused(
        &dir,
        &out,
        Some(&page),
        &[&format!(
            "{}: error: its starting text already passes its goal",
            shown("b-conflict.rvl")
        )],
    );
    // A solution that fails: the start as the solution.
    std::fs::write(dir.join("b-conflict.rvl"), &start).expect("write");
    std::fs::write(dir.join("b-conflict.solution.rvl"), &start).expect("write");
    refused(
        &dir,
        &out,
        Some(&page),
        &[&format!(
            "{}: error: its reference solution fails: `bob succeeds` still holds",
            shown("b-conflict.rvl")
        )],
    );
    std::fs::write(dir.join("b-conflict.solution.rvl"), &sol).expect("write");

    // A parse error, shown as `rvlab check` shows it; the other problems too, all at once.
    let retry = std::fs::read_to_string(dir.join("c-retry.rvl")).expect("read");
    std::fs::write(
        dir.join("c-retry.rvl"),
        retry.replacen("goal fix", "goal fixx", 1),
    )
    .expect("write");
    let counter = std::fs::read_to_string(dir.join("a-counter.rvl")).expect("read");
    std::fs::write(
        dir.join("a-counter.rvl"),
        renamed(&counter, "my-counter", "my-conflict"),
    )
    .expect("write");
    let err = refused(
        &dir,
        &out,
        Some(&page),
        &[
            &format!("{}:", shown("c-retry.rvl")),
            " | ",
            "^",
            &format!(
                "{}: error: it is not a valid exercise",
                shown("c-retry.rvl")
            ),
            &format!(
                "{}: error: its exercise id `my-conflict` is {}'s too",
                shown("a-counter.rvl"),
                shown("b-conflict.rvl")
            ),
        ],
    );
    let line = retry
        .lines()
        .position(|l| l.starts_with("goal fix"))
        .expect("a goal line")
        + 1;
    assert!(
        err.contains(&format!("{}:{line}:", shown("c-retry.rvl"))),
        "{err}"
    );
    std::fs::write(dir.join("c-retry.rvl"), &retry).expect("write");
    std::fs::write(dir.join("a-counter.rvl"), &counter).expect("write");

    // A bad course file line, a listed file that is missing.
    let course = std::fs::read_to_string(dir.join("course")).expect("read");
    std::fs::write(
        dir.join("course"),
        format!("{course}builtin maybe\nmissing.rvl\n"),
    )
    .expect("write");
    let n = course.lines().count();
    refused(
        &dir,
        &out,
        Some(&page),
        &[
            &format!("{}:{}: error: `builtin` is", shown("course"), n + 1),
            &format!(
                "{}:{}: error: there is no file `missing.rvl`",
                shown("course"),
                n + 2
            ),
        ],
    );
    std::fs::write(dir.join("course"), &course).expect("write");

    // An empty course, an oversized exercise.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    refused(&empty, &out, Some(&page), &["the course has no exercises"]);
    std::fs::write(
        dir.join("a-counter.rvl"),
        format!("{counter}\n#{}\n", "x".repeat(70_000)),
    )
    .expect("write");
    refused(&dir, &out, Some(&page), &["an exercise has at most 65536"]);
    std::fs::write(dir.join("a-counter.rvl"), &counter).expect("write");

    // And with all put back, it builds.
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_solution_is_a_warning_and_no_course_file_means_every_exercise_by_name() {
    let root = temp_dir("course-plain");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    std::fs::remove_file(dir.join("course")).expect("rm");
    std::fs::remove_file(dir.join("c-retry.solution.rvl")).expect("rm");
    let out = root.join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "{}: warning: no reference solution (c-retry.solution.rvl): the build cannot check that the exercise can be solved\n",
            dir.join("c-retry.rvl").display()
        )
    );
    assert!(
        stdout(&o).starts_with(
            "course \"week-3\" (id week-3): 3 exercises checked, 2 with a reference solution\n"
        ),
        "{}",
        stdout(&o)
    );
    let course = course_in(&std::fs::read_to_string(out.join("index.html")).expect("page"));
    let ids: Vec<&str> = course.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["my-counter", "my-conflict", "my-retry"]);
    assert!(course.builtin, "beside by default");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["course"],
        vec!["course", "build"],
        vec!["course", "build", "x"],
        vec!["course", "make", "x", "--out", "y"],
        vec!["course", "build", "x", "y", "--out", "z"],
        vec!["course", "build", "x", "--out", "y", "--bogus"],
    ] {
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
    let o = rvlab(&["course", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("rvlab course build DIR --out OUT [--page PAGE]"));
    assert!(stdout(&o).contains("Checks a folder of exercises"));
    let o = rvlab(&["course", "build", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: rvlab course build [OPTIONS] --out <OUT> <DIR>"));
    assert!(stdout(&o).contains("--page <PAGE>") && stdout(&o).contains("Exit codes: 0"));
}

#[test]
fn the_exported_builtin_course_builds_into_a_pack() {
    let root = temp_dir("course-export");
    let x = root.join("x");
    let page = page_dir(&root);
    let o = rvlab(&["exercises", "--export", s(&x)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("{}\n", x.join("course").display())));
    let site = root.join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&x),
        "--out",
        s(&site),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let n = rvlab_core::exercises::EXERCISES.len();
    assert!(
        stdout(&o).starts_with(&format!(
            "course \"rvlab's course\" (id rvlab-exercises): {n} exercises checked, {n} with a reference solution\n"
        )),
        "{}",
        stdout(&o)
    );
    let course = course_in(&std::fs::read_to_string(site.join("index.html")).expect("page"));
    let ids: Vec<&str> = course.entries.iter().map(|e| e.id.as_str()).collect();
    let builtin: Vec<&str> = rvlab_core::exercises::EXERCISES
        .iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(ids, builtin);
    assert!(!course.builtin, "the built-in course is not shown twice");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn exercise_link_carries_the_file_text_exactly() {
    let o = rvlab(&["exercise", "link", EXERCISE]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let fragment = out.strip_suffix('\n').expect("one line");
    assert!(fragment.starts_with("#v1&z="), "{fragment}");
    let state = ShareState::decode(fragment).expect("decodes");
    let text = std::fs::read_to_string(EXERCISE).expect("exercise");
    assert_eq!(state.source, Source::Text(text));
    assert_eq!(
        (state.token.as_str(), state.position, state.seed),
        ("", 0, 0)
    );

    let o = rvlab(&[
        "exercise",
        "link",
        EXERCISE,
        "--base",
        "https://school.example/rvlab/",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!("https://school.example/rvlab/{fragment}\n")
    );
}

#[test]
fn exercise_link_refuses_what_is_not_an_exercise_or_too_long() {
    let dir = temp_dir("ex-link");
    let plain = dir.join("plain.rvl");
    std::fs::write(&plain, "client a:\n    o = get configmap/c\n").expect("write");
    let p = s(&plain);
    let o = rvlab(&["exercise", "link", p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty());
    assert!(
        stderr(&o).contains(&format!("{p}:1:1: error:")),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(&format!("{p}: not a valid exercise")),
        "{}",
        stderr(&o)
    );
    // Too long for a URL: text that does not compress.
    let big = dir.join("big.rvl");
    let ex = std::fs::read_to_string(EXERCISE).expect("exercise");
    let mut x: u64 = 1;
    let noise: String = (0..40_000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b'a' + (x >> 59) as u8)
        })
        .collect();
    std::fs::write(&big, format!("{ex}\n# {noise}\n")).expect("write");
    let o = rvlab(&["exercise", "link", s(&big)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("too long for a URL"), "{}", stderr(&o));
    assert!(stderr(&o).contains("rvlab course build"), "{}", stderr(&o));
    for args in [
        vec!["exercise"],
        vec!["exercise", "link"],
        vec!["exercise", "link", "a", "b"],
        vec!["exercise", "nope", "a"],
        vec!["exercise", "link", EXERCISE, "--bogus"],
        vec!["exercise", "link", EXERCISE, "--base", "http://x/#y"],
    ] {
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
    assert_eq!(rvlab(&["exercise", "--help"]).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_problems_are_reported_in_course_order_exactly() {
    let root = temp_dir("course-order");
    let dir = course_dir(&root);
    let shown = |f: &str| dir.join(f).display().to_string();
    // A bad line and a missing file in the course file; c-retry.rvl left out of it.
    std::fs::write(
        dir.join("course"),
        "title \"T\"\nbuiltin maybe\nb-conflict.rvl\nmissing.rvl\na-counter.rvl\nd-dup.rvl\n",
    )
    .expect("write");
    std::fs::write(dir.join("orphan.solution.rvl"), "").expect("write");
    std::fs::write(
        dir.join("b-conflict.rvl"),
        "client a:\n    o = get configmap/c\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("a-counter.solution.rvl"),
        format!("#{}\n", "x".repeat(70_000)),
    )
    .expect("write");
    let counter = std::fs::read_to_string(dir.join("a-counter.rvl")).expect("read");
    std::fs::write(dir.join("d-dup.rvl"), &counter).expect("write");
    let out = dir.join("site");
    let nope = root.join("nope");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&nope),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let d = dir.display();
    assert_eq!(
        stderr(&o),
        format!(
            "{course}:2: error: `builtin` is `builtin beside` (the built-in course is shown too) or `builtin hide`\n\
             {course}:4: error: there is no file `missing.rvl` in {d}\n\
             {retry}: warning: it is not listed in {course}, so it is not in the course\n\
             {orphan}: warning: there is no exercise orphan.rvl for this reference solution\n\
             {conflict}:1:1: error: this scenario is not an exercise: it has no `exercise \"ID\"` line\n  |\n1 | client a:\n  | ^\n  = hint: start the file with `exercise \"my-exercise\"` and a `goal` line\n\n\
             {conflict}: error: it is not a valid exercise\n\
             {counter_sol}: error: it is 70002 bytes; an exercise has at most 65536 (the editor's limit)\n\
             {dup}: error: its exercise id `my-counter` is {counter}'s too (ids must differ in a course)\n\
             {dup}: warning: no reference solution (d-dup.solution.rvl): the build cannot check that the exercise can be solved\n\
             error: no release page at {nope}: give the folder `cargo xtask dist` writes (or a copy of the deployed page)\n\
             error: --out {out}: it overlaps the course folder {d} (the pack must not hold the solutions): write it elsewhere\n\
             course \"T\" (id week-3): 7 error(s); nothing written\n",
            course = shown("course"),
            retry = shown("c-retry.rvl"),
            orphan = shown("orphan.solution.rvl"),
            conflict = shown("b-conflict.rvl"),
            counter_sol = shown("a-counter.solution.rvl"),
            counter = shown("a-counter.rvl"),
            dup = shown("d-dup.rvl"),
            nope = nope.display(),
            out = out.display(),
        )
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_course_folder_that_cannot_be_read_is_an_error() {
    let root = temp_dir("course-nodir");
    let dir = root.join("nothing-here");
    let o = rvlab(&["course", "build", s(&dir), "--out", s(&root.join("site"))]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        format!(
            "error: cannot read the course folder {}: No such file or directory (os error 2)\n",
            dir.display()
        )
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_unreadable_course_file_is_an_error_and_every_exercise_is_checked() {
    let root = temp_dir("course-badfile");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    std::fs::write(dir.join("course"), b"title \"\xff\"\n").expect("write");
    // An exercise without a solution is still checked and warned about.
    std::fs::remove_file(dir.join("c-retry.solution.rvl")).expect("rm");
    let out = root.join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        format!(
            "{}: error: cannot read it: stream did not contain valid UTF-8\n\
             {}: warning: no reference solution (c-retry.solution.rvl): the build cannot check that the exercise can be solved\n\
             course \"week-3\" (id week-3): 1 error(s); nothing written\n",
            dir.join("course").display(),
            dir.join("c-retry.rvl").display()
        )
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn more_exercises_than_a_course_may_have_is_an_error() {
    let root = temp_dir("course-many");
    let dir = root.join("many");
    std::fs::create_dir_all(&dir).expect("dir");
    for k in 0..201 {
        std::fs::write(dir.join(format!("{k:03}.rvl")), "").expect("write");
    }
    let page = page_dir(&root);
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&root.join("site")),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "{}: error: the course has 201 exercises; a course has at most 200\n{}:1:1: error: ",
            dir.display(),
            dir.join("000.rvl").display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with("course \"many\" (id many): 202 error(s); nothing written\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_pack_that_cannot_be_written_is_an_error_after_the_checks() {
    let root = temp_dir("course-unwritable");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    std::fs::write(root.join("a-file"), "").expect("write");
    let out = root.join("a-file").join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "course \"Week 3 <OCC> & more\" (id week-3): 3 exercises checked, 3 with a reference solution\n"
    );
    assert_eq!(
        stderr(&o),
        format!(
            "error: cannot create {}: File exists (os error 17); the pack at {} is not written (an earlier pack's pages are unchanged)\n",
            root.join("a-file").display(),
            out.display()
        )
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_built_pack_says_what_it_wrote_exactly() {
    let root = temp_dir("course-said");
    let dir = course_dir(&root);
    let page = page_dir(&root);
    let out = root.join("site");
    let o = rvlab(&[
        "course",
        "build",
        s(&dir),
        "--out",
        s(&out),
        "--page",
        s(&page),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!(
            "course \"Week 3 <OCC> & more\" (id week-3): 3 exercises checked, 3 with a reference solution\n\
             wrote {} and {} (the page with the course) and 3 other file(s) copied from {}\n\
             host {} like the release page (docs/deploy.md)\n",
            out.join("index.html").display(),
            out.join("kubectl.html").display(),
            page.display(),
            out.display()
        )
    );
    assert_eq!(stderr(&o), "");
    let _ = std::fs::remove_dir_all(&root);
}
