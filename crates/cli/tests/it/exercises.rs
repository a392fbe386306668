//! `rvlab exercises` and `rvlab grade`, run as a teacher runs them.

use super::support::*;

#[test]
fn exercises_lists_id_kind_and_title_in_course_order() {
    let o = rvlab(&["exercises"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), rvlab_core::exercises::EXERCISES.len());
    assert!(lines.len() >= 10);
    let first: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(&first[..2], ["first-conflict", "break"]);
    assert!(lines[0].ends_with("Make bob's update conflict"));
    assert!(out.contains("counter") && out.contains(" fix "));
    assert_eq!(rvlab(&["exercises", "--help"]).status.code(), Some(0));
    assert_eq!(rvlab(&["exercises", "extra"]).status.code(), Some(2));
    assert_eq!(rvlab(&["exercises", "--nope"]).status.code(), Some(2));
}

#[test]
fn export_writes_starting_texts_and_solutions_that_grade_as_expected() {
    let dir = temp_dir("ex-export");
    let d = dir.to_str().expect("utf-8 path");
    let o = rvlab(&["exercises", "--export", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for b in rvlab_core::exercises::EXERCISES {
        let start = dir.join(format!("{}.rvl", b.id));
        let solution = dir.join(format!("{}.solution.rvl", b.id));
        assert_eq!(std::fs::read_to_string(&start).expect("start"), b.source);
        assert_eq!(
            std::fs::read_to_string(&solution).expect("solution"),
            b.solution()
        );
    }
    // Exported files are plain scenarios: `rvlab run` accepts them.
    let counter = dir.join("counter.solution.rvl");
    let o = rvlab(&["run", counter.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // A whole class at once: the solution passes, the starting text fails; exit 1.
    let start = dir.join("counter.rvl");
    let o = rvlab(&[
        "grade",
        "counter",
        counter.to_str().expect("path"),
        start.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], format!("PASS {}", counter.display()));
    assert!(
        lines[1].starts_with(&format!(
            "FAIL {}: `configmap/counter data.count == \"3\"` fails in ",
            start.display()
        )),
        "{out}"
    );
    // An exercise given as a file works like its id.
    let ex = dir.join("first-conflict.rvl");
    let sol = dir.join("first-conflict.solution.rvl");
    let o = rvlab(&[
        "grade",
        ex.to_str().expect("path"),
        sol.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), format!("PASS {}\n", sol.display()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grade_reads_a_token_from_stdin_and_explains_with_verbose() {
    let o = rvlab_stdin(&["grade", "first-conflict", "-"], "ba3b2\n");
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), "PASS -\n");
    let o = rvlab_stdin(&["grade", "first-conflict", "-", "--verbose"], "ba3b2\n");
    let out = stdout(&o);
    assert!(
        out.starts_with("PASS -\n  `bob succeeds` fails in the run of schedule ba3b2"),
        "{out}"
    );
    assert!(out.contains("  open: #v1&z="), "{out}");
    assert!(out.contains("&t=ba3b2&p=6"), "{out}");

    let o = rvlab_stdin(&["grade", "first-conflict", "-"], "a3b3\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "FAIL -: `bob succeeds` still holds in the run of schedule a3b3: bob succeeded\n"
    );
}

#[test]
fn grade_names_a_changed_locked_client() {
    let dir = temp_dir("ex-locked");
    let b = rvlab_core::exercises::builtin("retry-reread").expect("exists");
    let cheat = b
        .solution()
        .replacen("        c.data.count = c.data.count + 1\n", "", 1);
    assert_ne!(cheat, b.solution());
    let path = dir.join("cheat.rvl");
    std::fs::write(&path, cheat).expect("write");
    let o = rvlab(&["grade", "retry-reread", path.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("client `alice` is locked, but the submission changes it"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grade_usage_errors_exit_2() {
    for args in [
        vec!["grade"],
        vec!["grade", "counter"],
        vec!["grade", "no-such-exercise", "x.rvl"],
        vec!["grade", "counter", "-", "-"],
        vec!["grade", "--bogus", "counter", "x.rvl"],
    ] {
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
    let o = rvlab(&["grade", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: rvlab grade [OPTIONS] <EXERCISE> <SUBMISSION>..."));
    assert!(stdout(&o).contains("--report <FILE>") && stdout(&o).contains("Exit codes: 0"));
    // A missing submission file is a failed submission, not a usage error.
    let o = rvlab(&["grade", "counter", "/nonexistent/sub.rvl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("FAIL /nonexistent/sub.rvl: cannot read"));
}

#[test]
fn grade_reports_an_invalid_exercise_file_with_diagnostics() {
    let dir = temp_dir("ex-invalid");
    let path = dir.join("ex.rvl");
    std::fs::write(
        &path,
        "exercise \"x\"\ngoal break \"nothing\"\nclient a:\n    o = get configmap/c\nexpect a succeeds\n",
    )
    .expect("write");
    let p = path.to_str().expect("path");
    let o = rvlab(&["grade", p, "ab"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{p}:2:12: error: no `expect` line reads `nothing`"
        )),
        "{err}"
    );
    // `rvlab check` reports the same problem.
    let o = rvlab(&["check", p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("no `expect` line reads `nothing`")
            || stderr(&o).contains("no `expect` line reads `nothing`")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn top_level_help_lists_the_commands() {
    let o = rvlab(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    for command in ["exercises", "exercise", "course", "grade"] {
        assert!(stdout(&o).contains(&format!("\n  {command} ")), "{command}");
    }
}
