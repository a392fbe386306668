//! Exercises: the format, grading, and the built-in course.

use rvlab_core::exercises::{
    self, grade, grade_token, grade_with_bounds, Exercise, Goal, EXERCISES,
};
use rvlab_core::explore::Bounds;
use rvlab_core::lang;
use rvlab_core::run::Run;
use rvlab_core::share::{ShareState, Source};

fn builtin(id: &str) -> Exercise {
    exercises::builtin(id)
        .unwrap_or_else(|| panic!("no exercise {id}"))
        .parse()
        .unwrap_or_else(|d| panic!("{id} does not parse: {d:?}"))
}

/// The exercise's starting text with `from` replaced by `to` (which must occur).
fn edited(ex: &Exercise, from: &str, to: &str) -> String {
    assert!(ex.text.contains(from), "{}: no `{from}` in the text", ex.id);
    ex.text.replacen(from, to, 1)
}

fn reasons(v: &exercises::Verdict) -> String {
    v.reasons.join("\n")
}

#[test]
fn every_starting_text_fails_and_every_solution_passes() {
    let mut kinds = Vec::new();
    for b in EXERCISES {
        let ex = b.parse().unwrap_or_else(|d| panic!("{}: {d:?}", b.file));
        let start = grade(&ex, b.source);
        assert!(
            !start.pass,
            "{}: the starting text passes: {:?}",
            b.id, start.reasons
        );
        assert!(!start.reasons.is_empty());
        let solution = grade(&ex, b.solution());
        assert!(
            solution.pass,
            "{}: the solution fails: {:?}",
            b.id, solution.reasons
        );
        // The solution is the same exercise, and a plain scenario that runs.
        let sol = exercises::parse(b.solution()).expect("the solution parses as an exercise");
        assert_eq!(sol.id, ex.id);
        assert_eq!(sol.goal, ex.goal);
        assert!(lang::parse(b.solution()).scenario.is_some());
        kinds.push(ex.goal.kind());
    }
    assert!(EXERCISES.len() >= 10);
    assert!(kinds.contains(&"break") && kinds.contains(&"fix"));
}

#[test]
fn every_exercise_file_is_a_plain_scenario_that_runs() {
    for b in EXERCISES {
        for (file, text) in [(b.file, b.source), (b.solution_file, b.solution())] {
            let p = lang::parse(text);
            assert!(p.diagnostics.is_empty(), "{file}: {:?}", p.diagnostics);
            let scenario = p.scenario.expect("parses");
            let run = Run::new(&scenario, 0, None).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(run.is_finished() && run.stopped.is_none(), "{file}");
        }
    }
}

#[test]
fn starting_texts_of_break_exercises_hold_on_their_own_schedule() {
    // A break-it exercise ships a schedule in which the expectation still holds.
    for b in EXERCISES {
        let ex = b.parse().expect("parses");
        let Goal::Break { expectation } = &ex.goal else {
            continue;
        };
        let run = Run::new(&ex.scenario, 0, None).expect("runs");
        let r = run
            .expectations()
            .into_iter()
            .find(|r| r.text == *expectation)
            .expect("the goal names an expectation");
        assert!(r.holds, "{}: {}", b.id, r.detail);
    }
}

#[test]
fn break_it_accepts_a_bare_token_and_explains_the_decisive_step() {
    let ex = builtin("first-conflict");
    let v = grade(&ex, "ba3b2\n");
    assert!(v.pass, "{}", reasons(&v));
    assert!(reasons(&v).contains("`bob succeeds` fails in the run of schedule ba3b2"));
    assert!(
        reasons(&v).contains("step 6 (bob") && reasons(&v).contains("bob sent resourceVersion 100"),
        "{}",
        reasons(&v)
    );
    // The link opens the exercise's text on that schedule, at the decisive step.
    let link = v.link.expect("a link");
    let state = ShareState::decode(&link).expect("the link decodes");
    assert_eq!(state.source, Source::Text(ex.text.clone()));
    assert_eq!(state.token, "ba3b2");
    assert_eq!(state.position, 6);
    assert_eq!(grade_token(&ex, "ba3b2"), grade(&ex, "ba3b2"));

    let v = grade(&ex, "a3b3");
    assert!(!v.pass);
    assert!(
        reasons(&v)
            .contains("`bob succeeds` still holds in the run of schedule a3b3: bob succeeded"),
        "{}",
        reasons(&v)
    );
    let v = grade(&ex, "c");
    assert!(!v.pass);
    assert!(reasons(&v).contains("cannot be played"), "{}", reasons(&v));
}

#[test]
fn break_it_with_a_scenario_needs_a_schedule_and_untouched_clients() {
    let ex = builtin("first-conflict");
    let v = grade(&ex, &edited(&ex, "schedule \"a3b3\"\n", ""));
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("no `schedule` line"),
        "{}",
        reasons(&v)
    );
    // Making bob conflict by editing alice is not playing the scheduler.
    let cheat = edited(
        &ex,
        "obj.data.key = \"from-alice\"",
        "obj.metadata.resourceVersion = \"1\"",
    )
    .replace("a3b3", "ba3b2");
    let v = grade(&ex, &cheat);
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("client `alice` is locked"),
        "{}",
        reasons(&v)
    );
}

#[test]
fn wrong_answer_retry_without_reread_fails_with_the_conflict() {
    let ex = builtin("retry-reread");
    let sub = edited(
        &ex,
        "client bob:\n    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    update c\n",
        "client bob:\n    c = get configmap/counter\n    retry on conflict:\n        c.data.count = c.data.count + 10\n        update c\n",
    );
    let v = grade(&ex, &sub);
    assert!(!v.pass);
    let r = reasons(&v);
    assert!(
        r.contains("`all clients succeed` fails in 2 of 6 schedules, e.g. schedule "),
        "{r}"
    );
    assert!(r.contains("bob failed with 409 Conflict"), "{r}");
    // The link opens the submission on the counterexample.
    let state = ShareState::decode(&v.link.expect("a link")).expect("decodes");
    assert_eq!(state.source, Source::Text(sub.clone()));
    let scenario = lang::parse(&sub).scenario.expect("parses");
    let run = Run::new(&scenario, state.seed, Some(&state.token)).expect("replays");
    assert!(!run.all_hold());
}

#[test]
fn wrong_answer_clearing_the_resource_version_loses_an_update() {
    let ex = builtin("retry-reread");
    let sub = edited(
        &ex,
        "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n",
        "    c = get configmap/counter\n    c.metadata.resourceVersion = \"\"\n    c.data.count = c.data.count + 10\n",
    );
    let v = grade(&ex, &sub);
    assert!(!v.pass);
    let r = reasons(&v);
    assert!(
        r.contains("`no lost updates` fails in 2 of 6 schedules"),
        "{r}"
    );
    assert!(r.contains("data.count, which alice had set"), "{r}");
    assert!(!r.contains("`all clients succeed` fails"), "{r}");
}

#[test]
fn wrong_answer_patching_instead_of_updating_loses_increments() {
    let ex = builtin("retry-reread");
    let sub = edited(
        &ex,
        "    c.data.count = c.data.count + 10\n    update c\n",
        "    patch configmap/counter merge {data: {count: c.data.count + 10}}\n",
    );
    let v = grade(&ex, &sub);
    assert!(!v.pass);
    let r = reasons(&v);
    assert!(
        r.contains("`configmap/counter data.count == \"11\"` fails in"),
        "{r}"
    );
    assert!(r.contains("`no lost updates` fails in"), "{r}");

    // The same mistake in the counter exercise, with a retry around it: still lost.
    let ex = builtin("counter");
    let retried = ex.text.replace(
        "    c = get configmap/counter\n    patch configmap/counter merge {data: {count: c.data.count + 1}}\n",
        "    retry on conflict:\n        c = get configmap/counter\n        patch configmap/counter merge {data: {count: c.data.count + 1}}\n",
    );
    assert_ne!(retried, ex.text);
    let v = grade(&ex, &retried);
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("`no lost updates` fails in"),
        "{}",
        reasons(&v)
    );
}

#[test]
fn wrong_answer_changing_a_locked_client_names_it() {
    let ex = builtin("retry-reread");
    // Solving bob's conflict by making alice never write is not allowed.
    let sub = edited(&ex, "        update c\n\nclient bob", "\nclient bob");
    let v = grade(&ex, &sub);
    assert!(!v.pass);
    assert_eq!(v.link, None);
    let r = reasons(&v);
    assert!(
        r.contains("client `alice` is locked, but the submission changes it"),
        "{r}"
    );
    assert!(r.contains("only `bob` may be edited"), "{r}");

    // Whitespace, comments and the schedule of a locked client's text do not count.
    let sub = edited(
        &ex,
        "        c.data.count = c.data.count + 1\n",
        "        # add one\n        c.data.count   =   c.data.count+1\n",
    );
    let sub = sub.replacen(
        "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    update c\n",
        "    retry on conflict:\n        c = get configmap/counter\n        c.data.count = c.data.count + 10\n        update c\n",
        1,
    );
    let v = grade(&ex, &sub);
    assert!(v.pass, "{}", reasons(&v));
}

#[test]
fn changing_setup_or_expectations_or_clients_fails() {
    let ex = builtin("retry-reread");
    let solution = exercises::builtin("retry-reread")
        .expect("exists")
        .solution();
    let v = grade(
        &ex,
        &solution.replace("data.count = \"0\"", "data.count = \"1\""),
    );
    assert!(
        reasons(&v).contains("changes the setup objects"),
        "{}",
        reasons(&v)
    );
    let v = grade(&ex, &solution.replace("expect no lost updates\n", ""));
    assert!(
        reasons(&v).contains("changes the expectations"),
        "{}",
        reasons(&v)
    );
    let v = grade(&ex, &format!("{solution}\nclient carol:\n    sleep 1ms\n"));
    assert!(
        reasons(&v).contains("adds client `carol`"),
        "{}",
        reasons(&v)
    );
    let v = grade(&ex, "title \"oops\"\nclient bob:\n    updat c\n");
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("does not parse: line 3:5"),
        "{}",
        reasons(&v)
    );
    let v = grade(&ex, "abab");
    assert!(reasons(&v).contains("fix-it exercise"), "{}", reasons(&v));
    assert!(!grade(&ex, "  \n").pass);
}

#[test]
fn fix_it_fails_when_the_exploration_is_incomplete() {
    // Enough clients with retries to pass the grading bounds.
    let mut text = String::from(
        "exercise \"big\"\ngoal fix\neditable c0\nobject configmap/counter:\n    data.count = \"0\"\n",
    );
    for i in 0..7 {
        text.push_str(&format!(
            "client c{i}:\n    retry on conflict:\n        c = get configmap/counter\n        c.data.count = c.data.count + 1\n        update c\n"
        ));
    }
    text.push_str("expect no lost updates\n");
    let ex = exercises::parse(&text).expect("parses");
    let small = Bounds {
        max_states: 2_000,
        ..exercises::GRADING_BOUNDS
    };
    let v = grade_with_bounds(&ex, &text, small);
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("the exploration is incomplete: it stopped at its limit (max_states)"),
        "{}",
        reasons(&v)
    );
}

#[test]
fn exercise_headers_parse_into_the_exercise() {
    let ex = builtin("counter");
    assert_eq!(ex.id, "counter");
    assert_eq!(ex.title, "Three clients, one counter");
    assert_eq!(ex.editable, ["alice", "bob", "carol"]);
    assert_eq!(ex.goal, Goal::Fix);
    assert_eq!(ex.instructions.len(), 2);
    assert_eq!(ex.hints.len(), 2);
    let ex = builtin("first-conflict");
    assert_eq!(
        ex.goal,
        Goal::Break {
            expectation: "bob succeeds".into()
        }
    );
    assert!(ex.editable.is_empty());
}

fn errors(text: &str) -> Vec<String> {
    match exercises::parse(text) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                format!(
                    "{}:{}: {} | {}",
                    d.span.line,
                    d.span.col,
                    d.message,
                    d.hint.clone().unwrap_or_default()
                )
            })
            .collect(),
    }
}

const BASE: &str = "client alice:\n    x = get configmap/a\nexpect alice succeeds\n";

#[test]
fn exercise_header_diagnostics() {
    let e = errors(&format!(
        "exercise \"x\"\ngoal break \"alice succeed\"\n{BASE}"
    ));
    assert_eq!(
        e,
        ["2:12: no `expect` line reads `alice succeed` | did you mean \"alice succeeds\"?"]
    );
    let e = errors(&format!("exercise \"x\"\ngoal fix\neditable alcie\n{BASE}"));
    assert_eq!(
        e,
        ["3:10: no client is named `alcie` | did you mean `alice`?"]
    );
    let e = errors(&format!("exercise \"x\"\ngoal fix\n{BASE}"));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("2:1: a `goal fix` exercise needs at least one `editable CLIENT` line")
    );
    let e = errors(&format!("exercise \"x\"\n{BASE}"));
    assert!(e[0].starts_with("1:1: exercise `x` has no goal"), "{e:?}");
    let e = errors(BASE);
    assert!(e[0].contains("has no `exercise \"ID\"` line"), "{e:?}");
    let e = errors(&format!(
        "exercise \"Bad Id\"\ngoal fix\neditable alice\n{BASE}"
    ));
    assert!(
        e[0].starts_with("1:10: `Bad Id` is not a valid exercise id"),
        "{e:?}"
    );
    let e = errors(&format!(
        "exercise \"x\"\ngoal fix\ngoal fix\neditable alice\n{BASE}"
    ));
    assert!(e[0].starts_with("3:1: `goal` is given twice"), "{e:?}");
    let e = errors(&format!("exercise \"x\"\ngoal maybe\n{BASE}"));
    assert!(e[0].starts_with("2:6: unexpected"), "{e:?}");
    let e = errors(&format!(
        "exercise \"x\"\nhint 3\ngoal fix\neditable alice\n{BASE}"
    ));
    assert!(e[0].starts_with("2:6: unexpected"), "{e:?}");
    let e = errors(&format!("exercise \"x\"\ngol fix\n{BASE}"));
    assert!(e[0].contains("did you mean `goal`?"), "{e:?}");
}

#[test]
fn header_words_stay_identifiers_inside_clients() {
    let text = "exercise \"x\"\ngoal fix\neditable alice\nclient alice:\n    hint = get configmap/a\n    goal = hint\nexpect alice succeeds\n";
    let ex = exercises::parse(text).expect("parses");
    assert_eq!(ex.scenario.clients[0].body.len(), 2);
    // The headers are keywords in the editor.
    let classes = lang::highlight(text);
    let first = classes.first().expect("tokens");
    assert_eq!((first.0.start, first.1), (0, lang::TokenClass::Keyword));
    let class_at = |needle: &str| {
        let at = text.find(needle).expect("in the text") as u32;
        classes.iter().find(|(s, _)| s.start == at).map(|(_, c)| *c)
    };
    assert_eq!(class_at("fix"), Some(lang::TokenClass::Keyword));
    assert_eq!(class_at("hint ="), Some(lang::TokenClass::Identifier));
    assert_eq!(class_at("goal ="), Some(lang::TokenClass::Identifier));
}

/// The author's guide stays true: its example exercise parses and grades as described, and
/// its course table lists every built-in exercise with its kind and title.
#[test]
fn the_guide_matches_the_code() {
    let doc = include_str!("../../../../docs/exercises.md");
    let mut examples = 0;
    for block in doc.split("```").skip(1).step_by(2) {
        let Some(body) = block.strip_prefix("rvl\n") else {
            continue;
        };
        let ex = exercises::parse(body).unwrap_or_else(|d| panic!("{d:?}\n{body}"));
        assert!(!grade(&ex, body).pass);
        assert!(grade(&ex, "ba3b2").pass);
        examples += 1;
    }
    assert!(examples >= 1);
    for (i, b) in EXERCISES.iter().enumerate() {
        let ex = b.parse().expect("parses");
        let row = format!(
            "| {} | `{}` | {} | {} |",
            i + 1,
            ex.id,
            ex.goal.kind(),
            ex.title
        );
        assert!(doc.contains(&row), "docs/exercises.md lacks the row {row}");
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Grading never panics, and always says why: whatever lines of an exercise's starting
        /// text or solution are dropped or repeated, and whatever token is submitted.
        #[test]
        fn grading_any_edit_gives_a_reasoned_verdict(
            which in 0..EXERCISES.len(),
            solution in any::<bool>(),
            edits in proptest::collection::vec((0u32..64, 0u8..3), 0..4),
            token in "[a-d0-9]{0,12}",
        ) {
            let b = &EXERCISES[which];
            let ex = b.parse().expect("parses");
            let mut lines: Vec<&str> = if solution { b.solution() } else { b.source }.lines().collect();
            for (at, op) in edits {
                if lines.is_empty() {
                    break;
                }
                let i = at as usize % lines.len();
                match op {
                    0 => { lines.remove(i); }
                    1 => { let l = lines[i]; lines.insert(i, l); }
                    _ => {
                        let j = (i + 1) % lines.len();
                        lines.swap(i, j);
                    }
                }
            }
            let text = lines.join("\n");
            let v = grade(&ex, &text);
            prop_assert!(!v.reasons.is_empty());
            if v.pass {
                // A pass is never given to a text that changed a locked part or does not parse.
                prop_assert!(lang::parse(&text).scenario.is_some());
            }
            let v = grade(&ex, &token);
            prop_assert!(!v.reasons.is_empty());
            if let Some(link) = &v.link {
                prop_assert!(ShareState::decode(link).is_ok());
            }
        }
    }
}

/// A fix-it exercise graded by `contains`: the merge patch loses a finalizer in some order, a
/// strategic merge patch keeps both in every order (in either order, which `contains` allows);
/// a `contains` line is locked like any expectation, its value included.
#[test]
fn contains_expectations_grade_fix_it_exercises() {
    let start = r#"exercise "keep-both-finalizers"
goal fix
editable audit
object configmap/c
client backup:
    patch configmap/c strategic {metadata: {finalizers: ["example.com/backup"]}}
client audit:
    patch configmap/c merge {metadata: {finalizers: ["example.com/audit"]}}
expect configmap/c metadata.finalizers contains "example.com/backup"
expect configmap/c metadata.finalizers contains "example.com/audit"
"#;
    let ex = exercises::parse(start).expect("parses");
    let v = grade(&ex, start);
    assert!(!v.pass);
    assert!(
        reasons(&v).contains("contains \"example.com/backup\""),
        "{}",
        reasons(&v)
    );
    let fixed = start.replace("c merge {", "c strategic {");
    let v = grade(&ex, &fixed);
    assert!(v.pass, "{}", reasons(&v));
    let v = grade(
        &ex,
        &fixed.replace(
            "contains \"example.com/audit\"",
            "contains \"example.com/x\"",
        ),
    );
    assert!(
        reasons(&v).contains("changes the expectations"),
        "{}",
        reasons(&v)
    );
}
