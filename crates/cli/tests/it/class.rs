//! `rvlab grade` on a whole class: hand-ins as files, text and links, `--report`.

use super::support::*;
use rvlab_core::exercises::submission::{Submission, Work};

const EXERCISE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/exercises/01-first-conflict.rvl"
);
const SOLUTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/exercises/01-first-conflict.solution.rvl"
);

/// A minimal CSV reader (quoted fields with `""`, commas and newlines inside).
fn read_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(field.is_empty() && row.is_empty(), "no final newline");
    rows
}

/// The class: (argument, expected name, expected result, expected reason prefix).
fn class(dir: &std::path::Path) -> Vec<(String, String, &'static str, &'static str)> {
    let source = std::fs::read_to_string(EXERCISE).expect("exercise");
    let other = dir.join("other.txt");
    std::fs::write(
        &other,
        "rvlab submission 1\nexercise: counter\nschedule: ab\n",
    )
    .expect("write");
    let in_file = dir.join("hand-in.txt");
    std::fs::write(
        &in_file,
        "rvlab submission 1\nexercise: first-conflict\nschedule: ba3b2\n",
    )
    .expect("write");
    let link = Submission {
        exercise: "first-conflict".into(),
        work: Work::Token("ba3b2".into()),
    }
    .to_fragment(&source)
    .expect("fragment");
    let path = |p: &std::path::Path| p.to_str().expect("path").to_string();
    vec![
        (
            SOLUTION.into(),
            SOLUTION.into(),
            "PASS",
            "`bob succeeds` fails in the run of schedule ba3b2",
        ),
        (
            EXERCISE.into(),
            EXERCISE.into(),
            "FAIL",
            "`bob succeeds` still holds in the run of schedule a3b3",
        ),
        (
            "rvlab submission 1\nexercise: first-conflict\nschedule: ba3b2\n".into(),
            "hand-in 3".into(),
            "PASS",
            "`bob succeeds` fails",
        ),
        (
            format!("https://teacher.example/rvlab/#{link}"),
            "link 4".into(),
            "PASS",
            "`bob succeeds` fails",
        ),
        (
            path(&in_file),
            path(&in_file),
            "PASS",
            "`bob succeeds` fails",
        ),
        (
            path(&other),
            path(&other),
            "FAIL",
            "this hand-in is for exercise `counter`, not `first-conflict`",
        ),
        (
            "rvlab submission 1\nexercise: first-conflict\n".into(),
            "hand-in 7".into(),
            "FAIL",
            "the hand-in cannot be read: it holds no work",
        ),
        (
            "/nonexistent/sub.rvl".into(),
            "/nonexistent/sub.rvl".into(),
            "FAIL",
            "cannot read /nonexistent/sub.rvl",
        ),
    ]
}

#[test]
fn a_mixed_class_is_graded_into_csv_and_json() {
    let dir = temp_dir("class");
    let subs = class(&dir);
    for ext in ["csv", "json"] {
        let report = dir.join(format!("class.{ext}"));
        let mut args = vec!["grade", "first-conflict"];
        args.extend(subs.iter().map(|s| s.0.as_str()));
        args.extend(["--report", report.to_str().expect("path")]);
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        // The normal lines stay, one per submission, never the whole argument.
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), subs.len(), "{out}");
        for (line, (_, name, result, reason)) in lines.iter().zip(&subs) {
            if *result == "PASS" {
                assert_eq!(*line, format!("PASS {name}"));
            } else {
                assert!(
                    line.starts_with(&format!("FAIL {name}: {reason}")),
                    "{line}"
                );
            }
        }
        let text = std::fs::read_to_string(&report).expect("report written");
        let rows: Vec<[String; 4]> = if ext == "csv" {
            let rows = read_csv(&text);
            assert_eq!(rows[0], ["name", "result", "reason", "link"]);
            rows[1..]
                .iter()
                .map(|r| r.clone().try_into().expect("four fields"))
                .collect()
        } else {
            let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            v.as_array()
                .expect("array")
                .iter()
                .map(|o| {
                    let keys: Vec<&str> = o
                        .as_object()
                        .expect("object")
                        .keys()
                        .map(|k| k.as_str())
                        .collect();
                    assert_eq!(keys, ["name", "result", "reason", "link"]);
                    ["name", "result", "reason", "link"]
                        .map(|k| o[k].as_str().expect("string").to_string())
                })
                .collect()
        };
        assert_eq!(rows.len(), subs.len(), "{text}");
        for (row, (_, name, result, reason)) in rows.iter().zip(&subs) {
            assert_eq!(&row[0], name);
            assert_eq!(row[1], *result, "{name}");
            assert!(row[2].starts_with(reason), "{name}: {}", row[2]);
            if row[2].contains("run of schedule") {
                assert!(row[3].starts_with("#v1&z="), "{name}: {}", row[3]);
            } else {
                assert_eq!(row[3], "", "{name}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fix_it_hand_in_is_graded_on_its_text() {
    let b = rvlab_core::exercises::builtin("counter").expect("exists");
    for (text, pass) in [(b.solution(), true), (b.source, false)] {
        let hand_in = Submission {
            exercise: "counter".into(),
            work: Work::Text {
                text: text.into(),
                token: "ab".into(),
            },
        }
        .to_text();
        let o = rvlab_stdin(&["grade", "counter", "-"], &hand_in);
        assert_eq!(
            o.status.code(),
            Some(if pass { 0 } else { 1 }),
            "{}",
            stdout(&o)
        );
        assert!(stdout(&o).starts_with(if pass { "PASS -" } else { "FAIL -: " }));
    }
}

#[test]
fn a_tampered_link_is_graded_as_a_change_to_a_locked_client() {
    // The student edits the locked alice too (in the text behind the link, as a tampered
    // link would have it): the teacher's grade names the lock, as for a file.
    let b = rvlab_core::exercises::builtin("retry-reread").expect("exists");
    let tampered = b
        .solution()
        .replacen("c.data.count + 1\n", "c.data.count + 100\n", 1);
    assert_ne!(tampered, b.solution());
    let link = Submission {
        exercise: "retry-reread".into(),
        work: Work::Text {
            text: tampered,
            token: String::new(),
        },
    }
    .to_fragment("")
    .expect("fits a link");
    let o = rvlab(&[
        "grade",
        "retry-reread",
        &format!("https://school.example/rvlab/#{link}"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o)
            .starts_with("FAIL link 1: client `alice` is locked, but the submission changes it"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_100_kb_submission_is_never_echoed_whole() {
    let dir = temp_dir("class-long");
    let token_like = dir.join("token.txt");
    std::fs::write(&token_like, "ab".repeat(50_000)).expect("write");
    let junk = dir.join("junk.rvl");
    let mut x: u32 = 7;
    let noise: String = (0..100_000)
        .map(|i| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if i % 97 == 96 {
                '\n'
            } else {
                char::from(b'!' + (x >> 26) as u8)
            }
        })
        .collect();
    std::fs::write(&junk, noise).expect("write");
    let long_line = dir.join("long-line.rvl");
    std::fs::write(
        &long_line,
        format!("client a:\n    {}\n", "x".repeat(100_000)),
    )
    .expect("write");
    let report = dir.join("r.json");
    for ex in ["first-conflict", "counter"] {
        for file in [&token_like, &junk, &long_line] {
            for verbose in [false, true] {
                let mut args = vec![
                    "grade",
                    ex,
                    file.to_str().expect("path"),
                    "--report",
                    report.to_str().expect("path"),
                ];
                if verbose {
                    args.push("--verbose");
                }
                let o = rvlab(&args);
                assert_eq!(o.status.code(), Some(1), "{args:?}");
                let out = stdout(&o);
                assert!(
                    out.len() < 3_000,
                    "{args:?}: {} bytes: {}",
                    out.len(),
                    &out[..300]
                );
                let r = std::fs::read_to_string(&report).expect("report");
                assert!(r.len() < 3_000, "{args:?}: report {} bytes", r.len());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn report_usage_errors_exit_2() {
    for args in [
        vec!["grade", "counter", "x.rvl", "--report", "class.txt"],
        vec!["grade", "counter", "x.rvl", "--report", "class"],
        vec!["grade", "counter", "x.rvl", "--report"],
    ] {
        let o = rvlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
    let o = rvlab(&["grade", "counter", "x.rvl", "--report", "class.txt"]);
    assert!(stderr(&o).contains(".csv") && stderr(&o).contains(".json"));
    // An unwritable report is exit 1, after the lines.
    let o = rvlab(&[
        "grade",
        "first-conflict",
        SOLUTION,
        "--report",
        "/nonexistent/dir/r.csv",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("PASS {SOLUTION}\n"));
    assert!(stderr(&o).contains("cannot write the report"));
}
