//! The `rvlab` binary, run as a user runs it.

use super::support::*;

const FAILING: &str = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.key = "from-alice"
    update obj

client bob:
    obj = get configmap/my-config
    obj.data.key = "from-bob"
    update obj

schedule "abaabb"
expect all clients succeed
"#;

#[test]
fn help_everywhere() {
    for args in [
        vec!["--help"],
        vec!["check", "--help"],
        vec!["run", "--help"],
        vec!["lessons", "--help"],
    ] {
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(stdout(&o).contains("Usage"), "{args:?}");
    }
    assert_eq!(rvlab(&[]).status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(rvlab(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(rvlab(&["run"]).status.code(), Some(2));
    assert_eq!(
        rvlab(&["run", "lesson:stale-update", "--bogus"])
            .status
            .code(),
        Some(2)
    );
    let o = rvlab(&["run", "lesson:stale-update", "--seed", "x"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rvlab(&["run", "lesson:stale-update", "--schedule", "abz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown client 'z'"), "{}", stderr(&o));
    // A space is not part of a token, on the command line as in a file's `schedule` line.
    let o = rvlab(&["run", "lesson:stale-update", "--schedule", "ab ab"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unexpected ' ' at character 3"),
        "{}",
        stderr(&o)
    );
    let o = rvlab(&["run", "lesson:stale-update", "--schedule", "a9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has already finished"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_reports_diagnostics_with_file_line_col() {
    let d = temp_dir("check");
    let bad = d.join("bad.rvl");
    std::fs::write(&bad, "client alice:\n    obj = gt configmap/x\n").unwrap();
    let path = bad.to_string_lossy().into_owned();
    let o = rvlab(&["check", &path]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(&format!("{path}:2:")), "{}", stderr(&o));
    assert!(stderr(&o).contains("error:"));
    let o = rvlab(&["check", "lesson:counter"]);
    assert_eq!(o.status.code(), Some(0));
    let o = rvlab_stdin(&["check", "-"], FAILING);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = rvlab(&["check", "/nonexistent/x.rvl"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn run_narrates_and_exits_by_expectations() {
    let o = rvlab(&["run", "lesson:stale-update"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("409 Conflict: bob's update was rejected with 409 Conflict"));
    assert!(out.contains("holds  expect bob fails with Conflict"));

    let o = rvlab_stdin(&["run", "-"], FAILING);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAILS  expect all clients succeed"));
    // Another schedule makes it hold.
    let o = rvlab_stdin(&["run", "-", "--schedule", "a3b3"], FAILING);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn run_json_is_the_trace() {
    let o = rvlab(&["run", "lesson:stale-update", "--json", "--seed", "7"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["schedule"], "aba2b2");
    assert_eq!(v["seed"], 7);
    assert_eq!(v["steps"][5]["response"]["code"], 409);
    assert_eq!(v["clients"][1]["error"]["reason"], "Conflict");
    assert_eq!(v["expectations"].as_array().map(Vec::len), Some(4));
}

#[test]
fn every_lesson_runs_with_exit_0() {
    let o = rvlab(&["lessons"]);
    assert_eq!(o.status.code(), Some(0));
    let list = stdout(&o);
    let ids: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(ids.len() >= 13);
    assert!(list.contains("stale-update  "));
    for id in ids {
        let o = rvlab(&["run", &format!("lesson:{id}")]);
        assert_eq!(o.status.code(), Some(0), "{id}: {}", stdout(&o));
    }
    assert_eq!(rvlab(&["run", "lesson:nope"]).status.code(), Some(1));
}

#[test]
fn lessons_export_writes_files() {
    let d = temp_dir("export");
    let out = d.join("lessons");
    let o = rvlab(&["lessons", "--export", &out.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("stale-update.rvl")).unwrap();
    assert!(text.starts_with("title "));
    let o = rvlab(&["check", &out.join("counter.rvl").to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0));
}
