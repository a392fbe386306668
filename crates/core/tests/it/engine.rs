//! The engine: client-go retry semantics, runs, schedules, narration, views, traces, lessons.

use proptest::prelude::*;
use rvlab_core::engine::{ClientOutcome, Mark, RunError, ScheduleError, StepKind, World};
use rvlab_core::lang::ast::Scenario;
use rvlab_core::lang::parse;
use rvlab_core::lessons::LESSONS;
use rvlab_core::rng::Rng;
use rvlab_core::run::Run;
use rvlab_core::schedule::{format_token, parse_token, TokenError};
use rvlab_core::trace::{fingerprint, trace};
use rvlab_core::view::{step_view, world_view, ClientStatus};
use serde_json::json;

fn scenario(src: &str) -> Scenario {
    let p = parse(src);
    assert!(
        !p.has_errors(),
        "{}",
        rvlab_core::lang::render_all(&p.diagnostics, "test.rvl", src)
    );
    p.scenario.expect("a scenario")
}

const SEED_STORY: &str = r#"
title "Two writers, one stale read"

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
expect no lost updates
"#;

const SEED_STORY_FIXED: &str = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.key = "from-alice"
    update obj

client bob:
    retry on conflict:
        obj = get configmap/my-config
        obj.data.key = "from-bob"
        update obj

expect all clients succeed
expect no lost updates
"#;

fn failure_of(run: &Run, client: usize) -> Option<rvlab_core::engine::Failure> {
    match &run.last().clients[client].outcome {
        Some(ClientOutcome::Failed(f)) => Some(f.clone()),
        _ => None,
    }
}

#[test]
fn seed_story_bob_gets_the_exact_409() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    assert_eq!(run.len(), 6);
    assert_eq!(run.token(), "aba2b2");
    let alice_update = &run.steps[3];
    assert_eq!(alice_update.revision, Some(101));
    let bob_update = &run.steps[5];
    assert_eq!(bob_update.mark, Mark::Conflict);
    let req = bob_update.request.as_ref().unwrap();
    assert_eq!(req.method.as_str(), "PUT");
    assert_eq!(
        req.path,
        "/api/v1/namespaces/default/configmaps/my-config?fieldManager=bob"
    );
    assert_eq!(
        req.body.as_ref().unwrap()["metadata"]["resourceVersion"],
        json!("100")
    );
    let resp = bob_update.response.as_ref().unwrap();
    assert_eq!(resp.code, 409);
    assert_eq!(
        resp.body.to_string(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"my-config","kind":"configmaps"},"code":409}"#
    );
    assert!(
        bob_update.narration.starts_with(
            "bob's update was rejected with 409 Conflict: bob sent resourceVersion 100, but alice's update moved configmap/my-config to 101"
        ),
        "{}",
        bob_update.narration
    );
    let f = failure_of(&run, 1).unwrap();
    assert_eq!(f.reason, "Conflict");
    assert_eq!(f.status.unwrap().0, resp.body);
    assert!(matches!(
        run.last().clients[0].outcome,
        Some(ClientOutcome::Succeeded)
    ));
    // The conditional update could not lose anything.
    assert!(run.all_hold());
    assert_eq!(
        run.last().store.get(&s.objects[0].target).unwrap()["data"]["key"],
        json!("from-alice")
    );
}

#[test]
fn seed_story_with_retry_succeeds_at_the_next_attempt() {
    let s = scenario(SEED_STORY_FIXED);
    let run = Run::new(&s, 3, Some("abaabb")).unwrap();
    let kinds: Vec<(u32, StepKind, Option<u16>)> = run
        .steps
        .iter()
        .map(|r| (r.client, r.action, r.response.as_ref().map(|x| x.code)))
        .collect();
    assert_eq!(
        kinds[4..],
        [
            (1, StepKind::Local, None),
            (1, StepKind::Request, Some(409)),
            (1, StepKind::Backoff, None),
            (1, StepKind::Request, Some(200)),
            (1, StepKind::Local, None),
            (1, StepKind::Request, Some(200)),
        ]
    );
    let last = run.steps.last().unwrap();
    assert_eq!(last.revision, Some(102));
    assert!(run.all_hold(), "{:?}", run.expectations());
    assert_eq!(run.last().clients[1].attempts, 2);
    // The backoff step made bob sleep 10–11ms, and the clock moved to his wake-up time.
    let sleep = run.steps[6].sleep_nanos.unwrap();
    assert!((10_000_000..11_000_000).contains(&sleep));
    assert_eq!(run.steps[7].clock_nanos, sleep);
    assert!(run.steps[6].narration.contains("before attempt 2 of 5"));
}

/// A client whose retry never re-reads: every attempt conflicts.
fn always_conflicting(policy: &str) -> Scenario {
    scenario(&format!(
        r#"
object configmap/c at resourceVersion 5:
    data.k = "0"

client alice:
    obj = get configmap/c
    obj.data.k = "a"
    update obj

client bob:
    obj = get configmap/c
    retry on conflict with {policy}:
        obj.data.k = "b"
        update obj
"#
    ))
}

/// The backoff sleeps of a run, each checked against Go's `Jitter` from the world's generator
/// just before that step (after the scheduler's tie-break draw).
fn checked_sleeps(run: &Run, jitter: f64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for (i, r) in run.steps.iter().enumerate() {
        if r.action != StepKind::Backoff {
            continue;
        }
        let before = run.world_at(i);
        let (_, state) = before.current_retry(&run.scenario, r.client).unwrap();
        let d = state.duration_nanos;
        // Every step first draws the scheduler's tie-break (picked by hand or not), then runs.
        let mut scheduled = before.clone().into_owned();
        let _ = scheduled.pick_default();
        let mut rng: Rng = scheduled.rng.clone();
        let want = d + (rng.next_f64() * jitter * d as f64) as u64;
        assert_eq!(r.sleep_nanos, Some(want), "step {i}");
        out.push((d, want));
    }
    out
}

#[test]
fn default_retry_makes_five_attempts_with_four_10ms_sleeps() {
    let s = always_conflicting("DefaultRetry");
    let run = Run::new(&s, 7, Some("abaab")).unwrap();
    let sleeps = checked_sleeps(&run, 0.1);
    let bases: Vec<u64> = sleeps.iter().map(|x| x.0).collect();
    assert_eq!(bases, vec![10_000_000; 4]);
    let conflicts = run
        .steps
        .iter()
        .filter(|r| r.mark == Mark::Conflict)
        .count();
    assert_eq!(conflicts, 5);
    assert_eq!(run.last().clients[1].attempts, 5);
    assert_eq!(failure_of(&run, 1).unwrap().reason, "Conflict");
    // The last step is the fifth conflict: no sleep after the last attempt.
    assert_eq!(run.steps.last().unwrap().mark, Mark::Conflict);
    assert!(run.steps.last().unwrap().narration.contains("gives up"));
}

#[test]
fn default_backoff_makes_four_attempts_with_growing_sleeps() {
    let s = always_conflicting("DefaultBackoff");
    let run = Run::new(&s, 11, Some("abaab")).unwrap();
    let bases: Vec<u64> = checked_sleeps(&run, 0.1).iter().map(|x| x.0).collect();
    assert_eq!(bases, vec![10_000_000, 50_000_000, 250_000_000]);
    assert_eq!(run.last().clients[1].attempts, 4);
    assert_eq!(failure_of(&run, 1).unwrap().reason, "Conflict");
    // The clock reached the sum of the sleeps.
    let total: u64 = run.steps.iter().filter_map(|r| r.sleep_nanos).sum();
    assert_eq!(run.last().clock_nanos, total);
}

#[test]
fn a_capped_backoff_stops_after_the_sleep_that_hits_the_cap() {
    // 10ms → 20ms → 40ms would exceed the 30ms cap: Duration becomes 30ms and Steps 0, so
    // ExponentialBackoff sleeps 20ms (jittered) and returns without a third attempt.
    let s = always_conflicting("backoff(steps=6, duration=10ms, factor=2.0, jitter=0.5, cap=30ms)");
    let run = Run::new(&s, 5, Some("abaab")).unwrap();
    let bases: Vec<u64> = checked_sleeps(&run, 0.5).iter().map(|x| x.0).collect();
    assert_eq!(bases, vec![10_000_000, 20_000_000]);
    assert_eq!(run.last().clients[1].attempts, 2);
    let f = failure_of(&run, 1).unwrap();
    assert_eq!(f.reason, "Conflict");
    let last = run.steps.last().unwrap();
    assert_eq!(last.action, StepKind::Backoff);
    assert!(
        last.narration.ends_with(
            "so client-go stops retrying after this sleep: bob fails with the last Conflict"
        ),
        "{}",
        last.narration
    );

    // Without jitter the sleeps are exact.
    let s = always_conflicting("backoff(steps=4, duration=10ms, factor=3.0, jitter=0.0)");
    let run = Run::new(&s, 5, Some("abaab")).unwrap();
    let sleeps: Vec<u64> = run.steps.iter().filter_map(|r| r.sleep_nanos).collect();
    assert_eq!(sleeps, vec![10_000_000, 30_000_000, 90_000_000]);
    assert_eq!(run.last().clients[1].attempts, 4);
}

#[test]
fn non_conflict_errors_stop_a_retry_at_once() {
    let s = scenario(
        r#"
client alice:
    retry on conflict:
        obj = get configmap/missing
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    assert_eq!(run.len(), 1);
    assert_eq!(run.steps[0].mark, Mark::NotFound);
    assert_eq!(failure_of(&run, 0).unwrap().reason, "NotFound");
}

#[test]
fn already_exists_is_not_retried() {
    let s = scenario(
        r#"
object configmap/lock:
    data.holder = "setup"

client alice:
    retry on conflict with DefaultBackoff:
        create configmap/lock {data: {holder: "alice"}}
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    assert_eq!(run.len(), 1, "no backoff, no second attempt");
    let r = &run.steps[0];
    assert_eq!(r.response.as_ref().unwrap().code, 409);
    assert_eq!(r.mark, Mark::Conflict);
    assert!(r
        .narration
        .contains("IsConflict is false for AlreadyExists"));
    assert_eq!(failure_of(&run, 0).unwrap().reason, "AlreadyExists");
}

#[test]
fn clearing_the_resource_version_loses_an_update() {
    let s = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    obj.data.key = "from-alice"
    update obj

client bob:
    obj = get configmap/my-config
    obj.data.key = "from-bob"
    obj.metadata.resourceVersion = ""
    update obj

expect no lost updates
"#,
    );
    let run = Run::new(&s, 0, Some("abaabbb")).unwrap();
    let last = run.steps.last().unwrap();
    assert_eq!(last.response.as_ref().unwrap().code, 200);
    assert_eq!(last.mark, Mark::LostUpdate);
    assert_eq!(last.lost_updates.len(), 1);
    let l = &last.lost_updates[0];
    assert_eq!(
        (
            l.path.as_str(),
            l.writer.as_str(),
            l.overwritten_writer.as_str()
        ),
        ("data.key", "bob", "alice")
    );
    assert_eq!((l.overwritten_revision, l.base_revision), (101, 100));
    assert!(last.narration.contains(
        "bob's update overwrote data.key, which alice had set at revision 101 after bob read revision 100: alice's change is lost"
    ));
    let e = run.expectations();
    assert!(!e[0].holds);
    // The other order loses nothing: bob's unconditional write comes before alice reads.
    let run = Run::new(&s, 0, Some("b4a3")).unwrap();
    assert!(run.all_hold());
}

#[test]
fn a_merge_patch_overwrites_a_concurrent_change() {
    let s = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"
    data.other = "x"

client alice:
    patch configmap/my-config merge {data: {key: "from-alice"}}

client bob:
    patch configmap/my-config merge {data: {key: "from-bob"}}

client carol:
    patch configmap/my-config merge {data: {other: "from-carol"}}

expect no lost updates
"#,
    );
    let run = Run::new(&s, 0, Some("acb")).unwrap();
    assert_eq!(
        run.steps[1].lost_updates,
        vec![],
        "different fields do not collide"
    );
    let l = &run.steps[2].lost_updates;
    assert_eq!(l.len(), 1);
    assert_eq!(
        (l[0].writer.as_str(), l[0].path.as_str()),
        ("bob", "data.key")
    );
    assert_eq!(l[0].base_revision, 100);
    assert!(!run.all_hold());
    // Having read alice's change first, bob's patch loses nothing.
    let s2 = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    patch configmap/my-config merge {data: {key: "from-alice"}}

client bob:
    obj = get configmap/my-config
    patch configmap/my-config merge {data: {key: "from-bob"}}

expect no lost updates
"#,
    );
    assert!(Run::new(&s2, 0, Some("abb")).unwrap().all_hold());
    assert!(!Run::new(&s2, 0, Some("bab")).unwrap().all_hold());
}

#[test]
fn runtime_errors_stop_the_client_with_a_clear_message() {
    let s = scenario(
        r#"
object configmap/c:
    data.k = "v"

client alice:
    obj = get configmap/c
    x = obj.data.missing
    update obj

client bob:
    obj = get configmap/c
    obj.data.k = obj.data + 1
"#,
    );
    let run = Run::new(&s, 0, Some("aabb")).unwrap();
    let a = failure_of(&run, 0).unwrap();
    assert_eq!(a.reason, "RuntimeError");
    assert!(
        a.message.contains("obj.data.missing does not exist"),
        "{}",
        a.message
    );
    let b = failure_of(&run, 1).unwrap();
    assert_eq!(b.reason, "RuntimeError");
    assert!(
        b.message.contains("cannot add a number to an object"),
        "{}",
        b.message
    );
    assert_eq!(run.len(), 4, "alice's update is never sent");
}

#[test]
fn counters_stay_strings() {
    let s = scenario(
        r#"
object configmap/n:
    data.count = "41"

client alice:
    c = get configmap/n
    c.data.count = c.data.count + 1
    update c

expect configmap/n data.count == "42"
"#,
    );
    assert!(Run::new(&s, 0, None).unwrap().all_hold());
}

#[test]
fn schedule_errors_name_the_step_and_the_client() {
    let s = scenario(SEED_STORY);
    match Run::new(&s, 0, Some("abc")) {
        Err(RunError::Token(TokenError::UnknownClient { letter: 'c', .. })) => {}
        other => panic!("{other:?}"),
    }
    match Run::new(&s, 0, Some("a4")) {
        Err(
            e @ RunError::Schedule {
                step: 4,
                error: ScheduleError::Finished { client: 0, .. },
            },
        ) => {
            assert_eq!(
                e.to_string(),
                "schedule step 4: client a (alice) has already finished"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_short_token_is_completed_by_the_default_scheduler() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 9, Some("b")).unwrap();
    assert_eq!(run.steps[0].client, 1);
    assert_eq!(run.len(), 6);
    assert!(run.is_finished());
    // The executed token replays the same run.
    let again = Run::new(&s, 9, Some(&run.token())).unwrap();
    assert_eq!(fingerprint(&run), fingerprint(&again));
}

#[test]
fn step_by_step_runs_match_whole_runs_and_jump_back() {
    let s = scenario(SEED_STORY_FIXED);
    let whole = Run::new(&s, 4, Some("ab")).unwrap();
    let mut stepped = Run::start(&s, 4).unwrap();
    stepped.step(Some(0)).unwrap();
    stepped.step(Some(1)).unwrap();
    while stepped.step(None).unwrap().is_some() {}
    assert_eq!(stepped.token(), whole.token());
    assert_eq!(fingerprint(&stepped), fingerprint(&whole));
    assert_eq!(*stepped.world_at(0), World::new(&s, 4).unwrap());
    // Going back and taking another branch.
    stepped.truncate(1);
    assert_eq!(stepped.len(), 1);
    stepped.step(Some(0)).unwrap();
    assert_eq!(stepped.token(), "a2");
}

#[test]
fn every_world_of_a_run_can_be_revisited() {
    // The default scheduler breaks ties with the generator; replays must draw the same way.
    let mut many = String::from("object configmap/n:\n    data.count = \"0\"\n");
    for c in ["a1", "a2", "a3", "a4", "a5", "a6"] {
        many.push_str(&format!(
            "client {c}:\n    retry on conflict:\n        x = get configmap/n\n        x.data.count = x.data.count + 1\n        update x\n"
        ));
    }
    for (id, src) in [
        ("many", many.as_str()),
        (
            "retry-policies",
            rvlab_core::lessons::lesson("retry-policies")
                .unwrap()
                .source,
        ),
    ] {
        let s = scenario(src);
        let mut run = Run::start(&s, 21).unwrap();
        let mut seen = vec![run.last().clone()];
        while run.step(None).unwrap().is_some() {
            seen.push(run.last().clone());
        }
        assert!(
            run.len() > rvlab_core::run::CHECKPOINT_EVERY,
            "{id}: {}",
            run.len()
        );
        for (i, w) in seen.iter().enumerate() {
            assert_eq!(&*run.world_at(i), w, "{id}: world {i}");
        }
        // Going back and continuing reproduces the same run.
        let token = run.token();
        run.truncate(run.len() / 2 + 3);
        assert_eq!(run.last(), &seen[run.len()]);
        while run.step(None).unwrap().is_some() {}
        assert_eq!(run.token(), token);
    }
}

#[test]
fn same_seed_same_fingerprint_other_seed_other_jitter() {
    let l = rvlab_core::lessons::lesson("retry-policies").unwrap();
    let s = l.parse().scenario.unwrap();
    let a = Run::new(&s, 1, None).unwrap();
    let b = Run::new(&s, 1, None).unwrap();
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_eq!(fingerprint(&a).len(), 16);
    let c = Run::new(&s, 2, None).unwrap();
    assert_ne!(fingerprint(&a), fingerprint(&c));
}

#[test]
fn views_are_preformatted() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    let v = step_view(&s, 5, &run.steps[5]);
    assert_eq!(v.number, 6);
    assert_eq!((v.client.as_str(), v.letter), ("bob", 'b'));
    assert_eq!(v.status_line.as_deref(), Some("409 Conflict"));
    assert_eq!(v.mark_label, "conflict");
    assert_eq!(v.kubectl.as_deref(), Some("kubectl replace -f obj.yaml"));
    assert!(v
        .response_body
        .unwrap()
        .contains("\"reason\": \"Conflict\""));
    let g = step_view(&s, 0, &run.steps[0]);
    assert_eq!(
        g.kubectl.as_deref(),
        Some("kubectl get configmap my-config -o yaml")
    );
    assert_eq!(
        g.request_line.as_deref(),
        Some("GET /api/v1/namespaces/default/configmaps/my-config")
    );
    let local = step_view(&s, 2, &run.steps[2]);
    assert_eq!(local.mark_label, "local");
    assert_eq!(local.status_line, None);
    assert_eq!(
        local.narration,
        "alice set obj.data.key to \"from-alice\" in their local copy (nothing is sent)"
    );

    // After alice's update, bob's copy is stale.
    let w = world_view(&s, &run.world_at(4));
    let bob = &w.clients[1];
    assert_eq!(bob.vars[0].name, "obj");
    assert!(bob.vars[0].stale);
    assert_eq!(bob.vars[0].resource_version.as_deref(), Some("100"));
    assert_eq!(
        bob.vars[0].stale_label.as_deref(),
        Some("stale: the server is at 101")
    );
    assert!(!w.clients[0].vars[0].stale);
    assert_eq!(bob.status, ClientStatus::Ready);
    assert_eq!(
        bob.next_statement.as_deref(),
        Some("obj.data.key = \"from-bob\"")
    );
    assert!(!bob.next_sends_request);
    let obj = &w.objects[0];
    assert_eq!(obj.name, "configmap/my-config");
    assert_eq!(obj.resource_version, "101");
    let rv_lines: Vec<&str> = obj
        .lines
        .iter()
        .filter(|l| l.resource_version)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(rv_lines, vec!["  resourceVersion: \"101\""]);
    assert_eq!(w.events.len(), 2);
    assert_eq!(
        w.events[1].text,
        "MODIFIED configmap/my-config at 101 by alice"
    );
}

#[test]
fn the_json_trace_has_the_documented_fields() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    let t = trace(&run);
    assert_eq!(t["schedule"], json!("aba2b2"));
    assert_eq!(t["seed"], json!(0));
    let steps = t["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    assert_eq!(steps[2]["request"], json!(null));
    assert_eq!(steps[5]["response"]["code"], json!(409));
    assert_eq!(steps[5]["request"]["method"], json!("PUT"));
    assert_eq!(steps[5]["client"], json!("bob"));
    assert_eq!(t["clients"][1]["outcome"], json!("failed"));
    assert_eq!(t["clients"][1]["error"]["reason"], json!("Conflict"));
    assert_eq!(t["clients"][0]["error"], json!(null));
    assert_eq!(t["objects"][0]["metadata"]["resourceVersion"], json!("101"));
    assert_eq!(t["expectations"][0]["holds"], json!(true));
}

#[test]
fn every_lesson_holds_on_its_default_schedule() {
    for l in LESSONS {
        let p = l.parse();
        assert!(!p.has_errors(), "{}: {:?}", l.id, p.diagnostics);
        let s = p.scenario.unwrap();
        assert!(s.title.is_some() && s.about.is_some(), "{}", l.id);
        assert!(!s.expectations.is_empty(), "{}", l.id);
        // The story holds whatever the seed (jitter and tie-breaks change, the lesson does not).
        for seed in 0..6 {
            let run = Run::new(&s, seed, None).unwrap();
            assert!(run.is_finished(), "{}", l.id);
            for e in run.expectations() {
                assert!(
                    e.holds,
                    "{} (seed {seed}): expect {} ({})",
                    l.id, e.text, e.detail
                );
            }
        }
    }
}

#[test]
fn narrated_runs_of_every_lesson() {
    for l in LESSONS {
        let s = l.parse().scenario.unwrap();
        let run = Run::new(&s, 0, None).unwrap();
        insta::assert_snapshot!(format!("lesson_{}", l.id), rvlab_core::view::run_text(&run));
    }
}

#[test]
fn the_seed_story_trace() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&trace(&run)).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tokens_round_trip(steps in proptest::collection::vec(0u32..26, 0..200)) {
        let t = format_token(&steps);
        prop_assert_eq!(parse_token(&t, 26), Ok(steps));
    }

    #[test]
    fn token_parsing_never_panics(t in "[a-e0-9 x-]{0,20}") {
        let _ = parse_token(&t, 3);
    }

    #[test]
    fn the_engine_never_panics(
        lesson in 0..LESSONS.len(),
        drop in proptest::collection::vec(any::<bool>(), 0..64),
        token in "[a-e0-9]{0,24}",
        seed in any::<u64>(),
    ) {
        // Drop some lines of a lesson; whatever still parses must run without panicking.
        let src: String = LESSONS[lesson]
            .source
            .lines()
            .enumerate()
            .filter(|(i, _)| !drop.get(*i).copied().unwrap_or(false))
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let p = parse(&src);
        let errors = p.has_errors();
        if let (Some(s), false) = (p.scenario, errors) {
            match Run::new(&s, seed, Some(&token)) {
                Ok(run) => {
                    prop_assert!(run.is_finished() || run.stopped.is_some());
                    let _ = fingerprint(&run);
                    let _ = world_view(&s, run.last());
                    for (i, r) in run.steps.iter().enumerate() {
                        prop_assert!(!r.narration.is_empty(), "step {} has no narration", i);
                        let _ = step_view(&s, i as u32, r);
                    }
                }
                Err(e) => {
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

#[test]
fn kubectl_equivalents_for_each_request() {
    let s = scenario(
        r#"
object configmap/c in team-a:
    data.k = "v"

client alice:
    obj = get configmap/c in team-a
    patch configmap/c in team-a merge {data: {k: "m"}}
    patch configmap/c in team-a json [{op: "replace", path: "/data/k", value: "j"}]
    apply configmap/c in team-a {data: {k: "a"}} as ops force
    delete configmap/c in team-a precondition resourceVersion "999"
    delete configmap/c in team-a
    create configmap/d {data: {k: "new"}}
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    let cmds: Vec<Option<String>> = run
        .steps
        .iter()
        .enumerate()
        .map(|(i, r)| step_view(&s, i as u32, r).kubectl)
        .collect();
    assert_eq!(
        cmds[..4],
        [
            Some("kubectl get configmap c -n team-a -o yaml".to_string()),
            Some(r#"kubectl patch configmap c -n team-a --type=merge -p '{"data":{"k":"m"}}'"#.to_string()),
            Some(
                r#"kubectl patch configmap c -n team-a --type=json -p '[{"op":"replace","path":"/data/k","value":"j"}]'"#
                    .to_string()
            ),
            Some("kubectl apply --server-side --field-manager=ops --force-conflicts -f -".to_string()),
        ]
    );
    // The precondition delete fails (409), so alice stops there: no kubectl flag for it.
    assert_eq!(cmds[4], None);
    assert_eq!(run.len(), 5);
    assert_eq!(run.steps[4].mark, Mark::Conflict);
    assert!(
        run.steps[4]
            .narration
            .contains("the precondition says resourceVersion 999, but configmap/c in team-a is at"),
        "{}",
        run.steps[4].narration
    );
    assert_eq!(
        run.steps[3].request.as_ref().unwrap().path,
        "/api/v1/namespaces/team-a/configmaps/c?fieldManager=ops&force=true"
    );
    assert_eq!(
        run.steps[3]
            .request
            .as_ref()
            .unwrap()
            .content_type
            .as_deref(),
        Some("application/apply-patch+yaml")
    );
}

#[test]
fn deletes_and_creates_narrate_revisions() {
    let s = scenario(
        r#"
object configmap/c at resourceVersion 7:
    data.k = "v"

client alice:
    delete configmap/c
    create configmap/c {data: {k: "again"}}
    x = get configmap/c

expect configmap/c data.k == "again"
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    assert!(run.all_hold());
    assert_eq!(
        run.steps[0].narration,
        "alice deleted configmap/c (the deletion is revision 8)"
    );
    assert_eq!(
        run.steps[1].narration,
        "alice created configmap/c at resourceVersion 9"
    );
    assert_eq!(
        run.steps[2].narration,
        "alice read configmap/c at resourceVersion 9"
    );
    assert_eq!(
        step_view(&s, 0, &run.steps[0]).kubectl.as_deref(),
        Some("kubectl delete configmap c")
    );
}

/// A run's own token, or any prefix of it, replays the very same run: jitter, clock and uids
/// included (the scheduler draws its tie-break on every step, whether the token or the default
/// scheduler picks the client). This is what share links and "next CLIENT" picks rely on.
#[test]
fn a_token_or_its_prefix_replays_the_run_exactly_for_every_lesson() {
    for lesson in LESSONS {
        let s = lesson.parse().scenario.expect("lessons parse");
        for seed in [0u64, 3, 7] {
            let run = Run::new(&s, seed, Some("")).unwrap();
            let whole = run.token();
            let replay = Run::new(&s, seed, Some(&whole)).unwrap();
            assert_eq!(trace(&replay), trace(&run), "{} seed {seed}", lesson.id);
            let steps: Vec<u32> = run.steps.iter().map(|r| r.client).collect();
            for cut in [1, steps.len() / 2, steps.len().saturating_sub(1)] {
                let prefix = format_token(&steps[..cut]);
                let replay = Run::new(&s, seed, Some(&prefix)).unwrap();
                assert_eq!(
                    fingerprint(&replay),
                    fingerprint(&run),
                    "{} seed {seed} prefix {prefix}",
                    lesson.id
                );
            }
        }
    }
}

#[test]
fn first_break_position_shows_the_step_that_lost_the_update_not_the_end() {
    let text = LESSONS
        .iter()
        .find(|l| l.id == "unconditional-update")
        .expect("lesson")
        .source
        .replace(
            "    update obj\n\nschedule",
            "    update obj\n    obj = get configmap/my-config\n\nschedule",
        )
        .replace("schedule \"aba2b3\"", "schedule \"aba2b4\"")
        + "expect no lost updates\n";
    let run = Run::new(&scenario(&text), 0, None).expect("runs");
    assert_eq!(run.len(), 8, "bob reads again after his update");
    let lost = run
        .steps
        .iter()
        .position(|s| !s.lost_updates.is_empty())
        .expect("bob's update loses alice's change");
    assert_eq!(lost, 6);
    assert_eq!(run.first_break_position(), lost + 1);
    // A run where every expectation holds is shown at its end.
    let holds = Run::new(
        &scenario(&text.replace("expect no lost updates\n", "")),
        0,
        None,
    )
    .expect("runs");
    assert!(holds.all_hold());
    assert_eq!(holds.first_break_position(), holds.len());
}

/// The version a request sent, as the timeline shows it (`PUT my-config rv 100`), comes from
/// the request the engine built: an update's body, a JSON patch's operation on
/// `/metadata/resourceVersion`; a read and a local step send none.
#[test]
fn the_step_view_names_the_version_a_request_sent() {
    let s = scenario(SEED_STORY);
    let run = Run::new(&s, 0, Some("abaabb")).unwrap();
    let steps = rvlab_core::view::steps_view(&run);
    assert_eq!(
        steps[0].sent_resource_version, None,
        "a get sends no version"
    );
    assert_eq!(
        steps[2].sent_resource_version, None,
        "a local step sends nothing"
    );
    assert_eq!(steps[5].sent_resource_version.as_deref(), Some("100"));
    let s = scenario(
        r#"
object configmap/c at resourceVersion 7:
    data.k = "v"

client a:
    patch configmap/c json [
        {op: "test", path: "/metadata/resourceVersion", value: "7"},
        {op: "replace", path: "/data/k", value: "w"},
    ]
    patch configmap/c merge {metadata: {resourceVersion: "8"}, data: {k: "x"}}
    patch configmap/c merge {data: {k: "y"}}
    delete configmap/c precondition resourceVersion "10"
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    let sent: Vec<Option<String>> = rvlab_core::view::steps_view(&run)
        .into_iter()
        .map(|v| v.sent_resource_version)
        .collect();
    let want = [Some("7"), Some("8"), None, None];
    assert_eq!(sent, want.map(|w| w.map(str::to_string)));
}

#[test]
fn contains_holds_for_an_element_anywhere_and_says_why_not() {
    let s = scenario(
        r#"
object configmap/c:
    metadata.finalizers = ["example.com/b", "example.com/a"]
    data.k = "v"
object widgets.example.com/w:
    status.conditions = [{type: "Ready", status: "True"}, {type: "Synced", status: "False"}]
client c:
    sleep 1ms
expect configmap/c metadata.finalizers contains "example.com/a"
expect configmap/c metadata.finalizers contains "example.com/z"
expect configmap/c metadata.labels contains "x"
expect configmap/c data.k contains "v"
expect configmap/gone metadata.finalizers contains "example.com/a"
expect widgets.example.com/w status.conditions contains {status: "False", type: "Synced"}
expect widgets.example.com/w status.conditions contains {type: "Ready"}
"#,
    );
    let run = Run::new(&s, 0, None).unwrap();
    let e = run.expectations();
    let got: Vec<(bool, &str)> = e.iter().map(|r| (r.holds, r.detail.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (
                true,
                r#"configmap/c metadata.finalizers is ["example.com/b","example.com/a"]"#
            ),
            (
                false,
                r#"configmap/c metadata.finalizers is ["example.com/b","example.com/a"], with no element "example.com/z""#
            ),
            (
                false,
                r#"configmap/c.metadata.labels does not exist (configmap/c.metadata has no key "labels")"#
            ),
            (false, r#"configmap/c data.k is "v", not an array"#),
            (false, "configmap/gone does not exist"),
            (
                true,
                r#"widgets.example.com/w status.conditions is [{"status":"True","type":"Ready"},{"status":"False","type":"Synced"}]"#
            ),
            (
                false,
                r#"widgets.example.com/w status.conditions is [{"status":"True","type":"Ready"},{"status":"False","type":"Synced"}], with no element {"type":"Ready"}"#
            ),
        ]
    );
}
