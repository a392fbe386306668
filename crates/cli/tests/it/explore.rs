//! `rvlab explore`, run as a user runs it.

use super::support::*;

#[test]
fn help_and_usage_errors() {
    let o = rvlab(&["explore", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: rvlab explore [OPTIONS] <FILE>"));
    assert!(stdout(&o).contains("--max-states <N>"));
    // The top-level help lists the command.
    assert!(stdout(&rvlab(&["--help"])).contains("\n  explore "));
    for args in [
        vec!["explore"],
        vec!["explore", "lesson:counter", "--max-states", "many"],
        vec!["explore", "lesson:counter", "--seed", "-1"],
        vec!["explore", "lesson:counter", "--frobnicate"],
        vec!["explore", "a.rvl", "b.rvl"],
    ] {
        assert_eq!(rvlab(&args).status.code(), Some(2), "{args:?}");
    }
    let o = rvlab(&["explore", "lesson:nope"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn violations_exit_1_with_counts_and_a_counterexample() {
    let o = rvlab(&["explore", "lesson:stale-update"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.starts_with("explored 6 schedules ("), "{out}");
    assert!(out.contains(", complete"));
    assert!(
        out.contains(
            "4 of 6 schedules violate `bob fails with Conflict`; shortest counterexample: "
        ),
        "{out}"
    );
    assert!(out.contains("0 of 6 schedules violate `no lost updates`"));
}

#[test]
fn no_violation_exits_0() {
    let o = rvlab(&["explore", "lesson:counter"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("0 of 498 schedules violate `no lost updates`"));
}

#[test]
fn counterexamples_replay_with_run() {
    let o = rvlab(&["explore", "lesson:unconditional-update", "--json"]);
    let report = json(&o);
    for e in report["expectations"].as_array().expect("expectations") {
        let Some(token) = e["counterexample"].as_str() else {
            continue;
        };
        let run = rvlab(&[
            "run",
            "lesson:unconditional-update",
            "--schedule",
            token,
            "--json",
        ]);
        assert_eq!(run.status.code(), Some(1), "{token}");
        let trace = json(&run);
        assert_eq!(trace["schedule"], token);
        let failed = trace["expectations"]
            .as_array()
            .expect("expectations")
            .iter()
            .any(|x| x["text"] == e["text"] && x["holds"] == false);
        assert!(failed, "{token} violates {}", e["text"]);
    }
    for out in report["outcomes"].as_array().expect("outcomes") {
        let token = out["example"].as_str().expect("token");
        let run = rvlab(&[
            "run",
            "lesson:unconditional-update",
            "--schedule",
            token,
            "--json",
        ]);
        assert_eq!(json(&run)["schedule"], token);
    }
}

#[test]
fn incomplete_searches_say_so_and_exit_1() {
    let o = rvlab(&["explore", "lesson:counter", "--max-states", "10"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("INCOMPLETE: stopped by --max-states (10)"));
    let o = rvlab(&["explore", "lesson:counter", "--max-schedules=5", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let j = json(&o);
    assert_eq!(j["complete"], false);
    assert_eq!(j["stopped_by"], "max_schedules");
}

#[test]
fn files_with_errors_exit_1() {
    let dir = std::env::temp_dir().join(format!("rvlab-explore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.rvl");
    std::fs::write(&path, "client alice\n    get\n").expect("write");
    let o = rvlab(&["explore", path.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn seed_and_stats() {
    let o = rvlab(&[
        "explore",
        "lesson:retry-reread",
        "--seed",
        "7",
        "--json",
        "--stats",
    ]);
    let j = json(&o);
    assert_eq!(j["seed"], 7);
    assert_eq!(j["schedules"], 6);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("schedules/s") && err.contains("states/s"),
        "{err}"
    );
}

/// Every built-in lesson explores completely under the default bounds.
#[test]
fn every_lesson_explores_completely() {
    for l in rvlab_core::lessons::LESSONS {
        let o = rvlab(&["explore", &format!("lesson:{}", l.id), "--json"]);
        let j = json(&o);
        assert_eq!(j["complete"], true, "{}", l.id);
        let violated = j["expectations"]
            .as_array()
            .expect("expectations")
            .iter()
            .any(|e| e["violations"].as_u64() != Some(0));
        assert_eq!(
            o.status.code(),
            Some(if violated { 1 } else { 0 }),
            "{}",
            l.id
        );
    }
}

#[test]
fn bench_explore_prints_the_three_scenarios() {
    let o = rvlab(&["bench-explore", "--runs", "1", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let rows = json(&o);
    let names: Vec<&str> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["seed-story", "counter-3", "counter-4"]);
    assert!(rows[2]["states_per_second"]
        .as_f64()
        .is_some_and(|x| x > 0.0));
}
