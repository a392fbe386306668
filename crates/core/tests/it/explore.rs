//! The explorer over scenarios: exact counts derived by hand, agreement with a brute-force
//! walk that merges nothing, replay of every token it reports, bounds and slices.

use rvlab_core::count::Count;
use rvlab_core::engine::World;
use rvlab_core::explore::{bench, explore, Bounds, ExploreReport, ScenarioExplorer, ScenarioModel};
use rvlab_core::lang::ast::{ExpectKind, Scenario};
use rvlab_core::lessons::LESSONS;
use rvlab_core::run::{check_expectations, Run};
use rvlab_core::schedule::parse_token;
use std::collections::BTreeMap;
use std::sync::OnceLock;

fn scenario(text: &str) -> Scenario {
    let parsed = rvlab_core::lang::parse(text);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    parsed.scenario.expect("scenario")
}

/// A count the test knows fits in a `u64`.
fn fits(c: &Count) -> u64 {
    c.to_u64().expect("the count fits in a u64")
}

fn full(s: &Scenario) -> ExploreReport {
    explore(s, 0, Bounds::default()).expect("setup")
}

fn violations(r: &ExploreReport) -> Vec<u64> {
    r.expectations.iter().map(|e| fits(&e.violations)).collect()
}

/// Every lesson explored with seed 0, computed once for all the tests that need them
/// (retry-policies has ~90,000 states).
fn lesson_report(id: &str) -> &'static (Scenario, ExploreReport) {
    let i = LESSONS.iter().position(|l| l.id == id).expect("lesson");
    &lesson_reports()[i]
}

fn lesson_reports() -> &'static Vec<(Scenario, ExploreReport)> {
    static REPORTS: OnceLock<Vec<(Scenario, ExploreReport)>> = OnceLock::new();
    REPORTS.get_or_init(|| {
        LESSONS
            .iter()
            .map(|l| {
                let s = scenario(l.source);
                let r = full(&s);
                (s, r)
            })
            .collect()
    })
}

/// What a walk over every request order finds, merging nothing.
#[derive(Debug, Default, PartialEq)]
struct Brute {
    schedules: u64,
    violations: Vec<u64>,
    /// Outcome class key → count.
    outcomes: BTreeMap<String, u64>,
}

/// Runs `client`'s steps that send no request (as the explorer's transitions do, but written
/// here independently, on plain worlds).
fn run_local(s: &Scenario, w: &mut World, client: u32) {
    while w.clients[client as usize].outcome.is_none() && !w.next_sends_request(s, client) {
        w.take_step(s, Some(client)).expect("step");
    }
}

fn brute(s: &Scenario, seed: u64) -> Brute {
    let model = ScenarioModel::new(s);
    let mut w = World::new(s, seed).expect("setup");
    for c in 0..s.clients.len() as u32 {
        run_local(s, &mut w, c);
    }
    let mut out = Brute {
        violations: vec![0; s.expectations.len()],
        ..Brute::default()
    };
    walk(s, &model, w, &mut out);
    out
}

fn walk(s: &Scenario, model: &ScenarioModel, w: World, out: &mut Brute) {
    let unfinished = w.unfinished();
    if unfinished.is_empty() {
        out.schedules += 1;
        let lost = !w.lost_updates.is_empty();
        for (i, r) in check_expectations(s, &w).iter().enumerate() {
            if !r.holds {
                out.violations[i] += 1;
            }
        }
        *out.outcomes.entry(model.outcome(&w, lost).0).or_default() += 1;
        return;
    }
    for c in unfinished {
        let mut next = w.clone();
        next.take_step(s, Some(c)).expect("step");
        run_local(s, &mut next, c);
        walk(s, model, next, out);
    }
}

fn agrees_with_brute_force(s: &Scenario, r: &ExploreReport, seed: u64) {
    let b = brute(s, seed);
    assert_eq!(r.schedules, b.schedules);
    assert_eq!(violations(r), b.violations);
    let found: BTreeMap<String, u64> = r
        .outcomes
        .iter()
        .map(|o| (o.key.clone(), fits(&o.count)))
        .collect();
    assert_eq!(found, b.outcomes);
}

/// Replays every counterexample and outcome example with `Run::new` and checks that the token
/// is consumed exactly (no default-scheduler step after it) and reaches the same violation or
/// the same outcome class.
fn replays(s: &Scenario, r: &ExploreReport, seed: u64) {
    let model = ScenarioModel::new(s);
    let clients = s.clients.len() as u32;
    let replay = |token: &str| {
        let run = Run::new(s, seed, Some(token)).expect("token replays");
        let steps = parse_token(token, clients).expect("token parses").len();
        assert_eq!(run.len(), steps, "token {token} is a complete schedule");
        assert!(run.is_finished());
        assert!(token.starts_with(&r.prefix));
        run
    };
    for (i, e) in r.expectations.iter().enumerate() {
        assert_eq!(e.violations > 0, e.counterexample.is_some(), "{}", e.text);
        if let Some(token) = &e.counterexample {
            let run = replay(token);
            let results = run.expectations();
            assert!(!results[i].holds, "{token} violates `{}`", e.text);
            if matches!(s.expectations[i].kind, ExpectKind::NoLostUpdates) {
                assert!(!run.last().lost_updates.is_empty());
            }
        }
    }
    for o in &r.outcomes {
        let run = replay(&o.example);
        let lost = !run.last().lost_updates.is_empty();
        let (key, summary) = model.outcome(run.last(), lost);
        assert_eq!(key, o.key, "{} reaches its class", o.example);
        assert_eq!(summary, o.summary);
    }
    assert_eq!(
        r.outcomes.iter().map(|o| &o.count).sum::<Count>(),
        r.schedules
    );
}

/// Two clients that read and then write conditionally, with no statement in between: the
/// write is a merge patch carrying the resourceVersion read (a precondition, like update).
const GET_UPDATE: &str = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: "from-alice"}}

client bob:
    obj = get configmap/my-config
    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: "from-bob"}}

expect all clients succeed
"#;

/// `update obj` right after `get` sends the object unchanged: a no-op write, which keeps the
/// resourceVersion (as the apiserver does), so the other client's update never goes stale.
/// Same 6 orders as below, none violates.
#[test]
fn unchanged_updates_are_no_ops_and_never_conflict() {
    let s = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    obj = get configmap/my-config
    update obj

client bob:
    obj = get configmap/my-config
    update obj

expect all clients succeed
"#,
    );
    let r = full(&s);
    assert_eq!(r.schedules, 6);
    assert_eq!(violations(&r), vec![0]);
    agrees_with_brute_force(&s, &r, 0);
}

/// Two clients, get then conditional write, no retry. The orders of the requests
/// (g = get, w = write): aabb (ga wa gb wb), abab, abba, baab, baba, bbaa: 6. All succeed only
/// when one client's get-write pair does not overlap the other's (aabb, bbaa); in the 4 others
/// the second write carries a stale resourceVersion and gets 409 Conflict.
#[test]
fn two_clients_get_update_six_orders_four_violate() {
    let s = scenario(GET_UPDATE);
    let r = full(&s);
    assert!(r.complete);
    assert_eq!(r.stopped_by, None);
    assert_eq!(r.prefix, "");
    assert_eq!(r.schedules, 6);
    assert_eq!(violations(&r), vec![4]);
    // All 6 schedules have 4 steps; the first violating one in search order is abab.
    assert_eq!(r.expectations[0].counterexample.as_deref(), Some("abab"));
    // Outcomes: both succeed with alice's or bob's value last (1 each), alice fails (2),
    // bob fails (2).
    let mut counts: Vec<u64> = r.outcomes.iter().map(|o| fits(&o.count)).collect();
    counts.sort_unstable();
    assert_eq!(counts, vec![1, 1, 2, 2]);
    assert!(r
        .text()
        .contains("4 of 6 schedules violate `all clients succeed`; shortest counterexample: abab"));
    agrees_with_brute_force(&s, &r, 0);
    replays(&s, &r, 0);
}

/// The same with a local edit between get and update: edits send nothing and never create a
/// choice, so there are still the same 6 orders and 4 violations; each token now has the
/// edit step right after its get (abab becomes a2b2ab).
#[test]
fn local_edits_create_no_choice() {
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
    update obj

expect all clients succeed
"#,
    );
    let r = full(&s);
    assert_eq!(r.schedules, 6);
    assert_eq!(violations(&r), vec![4]);
    assert_eq!(r.expectations[0].counterexample.as_deref(), Some("a2b2ab"));
    agrees_with_brute_force(&s, &r, 0);
    replays(&s, &r, 0);
}

/// Three clients, get then update each: 6!/(2!·2!·2!) = 90 orders. All succeed exactly when
/// the three get-update intervals are disjoint (an update inside another client's interval
/// makes that client's update stale; two overlapping intervals always contain one of the two
/// updates), i.e. in the 3! = 6 sequential orders: 84 violate.
#[test]
fn three_clients_ninety_orders() {
    let text = GET_UPDATE.replace(
        "expect all clients succeed",
        "client carol:\n    obj = get configmap/my-config\n    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: \"from-carol\"}}\n\nexpect all clients succeed",
    );
    let s = scenario(&text);
    let r = full(&s);
    assert_eq!(r.schedules, 90);
    assert_eq!(violations(&r), vec![84]);
    agrees_with_brute_force(&s, &r, 0);
    replays(&s, &r, 0);
}

/// Alice retries get-update on conflict; Bob sends two merge patches (p1, p2) that always
/// succeed. Alice's update conflicts exactly when a patch lands between her get and her
/// update. The orders of her first attempt (g u) with p1 p2:
/// 1. g u p p: no conflict                                   → 1 schedule
/// 2. g p u p: conflict; then attempt 2 (g' u') with p2 left:
///    p2 g' u' (ok), g' u' p2 (ok), g' p2 u' (conflict, attempt 3 alone) → 3 schedules
/// 3. g p p u: conflict; attempt 2 alone                      → 1
/// 4. p g u p: no conflict                                   → 1
/// 5. p g p u: conflict; attempt 2 alone                      → 1
/// 6. p p g u: no conflict                                   → 1
///
/// Total 8, and Alice always succeeds (at most 3 of DefaultRetry's 5 attempts).
#[test]
fn retry_count_derived_by_hand() {
    let s = scenario(
        r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"
    data.tick = "0"

client alice:
    retry on conflict:
        obj = get configmap/my-config
        obj.data.key = "from-alice"
        update obj

client bob:
    patch configmap/my-config merge {data: {tick: "1"}}
    patch configmap/my-config merge {data: {tick: "2"}}

expect all clients succeed
expect configmap/my-config data.tick == "2"
"#,
    );
    let r = full(&s);
    assert_eq!(r.schedules, 8);
    assert_eq!(violations(&r), vec![0, 0]);
    agrees_with_brute_force(&s, &r, 0);
    replays(&s, &r, 0);
    // Schedule 2b, with its backoff sleeps: a3 (get, edit, update → 409, backoff), b (p1)...
    // every outcome example still replays with another seed (other jitter).
    let r7 = explore(&s, 7, Bounds::default()).expect("setup");
    assert_eq!(r7.schedules, 8);
    replays(&s, &r7, 7);
}

#[test]
fn every_lesson_explores_completely_and_its_tokens_replay() {
    for (s, r) in lesson_reports() {
        assert!(r.complete, "{:?}: {}", s.title, r.text());
        assert_eq!(r.stopped_by, None);
        assert!(r.schedules > 0 && r.states > 0);
        replays(s, r, 0);
    }
}

#[test]
fn lessons_agree_with_a_walk_that_merges_nothing() {
    for (s, r) in lesson_reports() {
        // retry-policies has about 1.6 × 10^12 schedules: only the memoised search counts them.
        if r.schedules > 100_000 {
            continue;
        }
        agrees_with_brute_force(s, r, 0);
    }
    let (_, counter3) = &bench::scenarios()[1];
    let s = scenario(counter3);
    agrees_with_brute_force(&s, &full(&s), 0);
}

#[test]
fn retry_lessons_replay_with_another_seed() {
    for id in [
        "retry-reread",
        "retry-without-reread",
        "counter",
        "patch-precondition",
    ] {
        let l = rvlab_core::lessons::lesson(id).expect("lesson");
        let s = scenario(l.source);
        let r = explore(&s, 7, Bounds::default()).expect("setup");
        assert!(r.complete);
        replays(&s, &r, 7);
        agrees_with_brute_force(&s, &r, 7);
    }
}

fn with_expectation(id: &str, extra: &str) -> Scenario {
    let l = rvlab_core::lessons::lesson(id).expect("lesson");
    scenario(&format!("{}\nexpect {extra}\n", l.source))
}

fn no_lost_updates(s: &Scenario, r: &ExploreReport) -> u64 {
    let i = s
        .expectations
        .iter()
        .position(|e| matches!(e.kind, ExpectKind::NoLostUpdates))
        .expect("expect no lost updates");
    fits(&r.expectations[i].violations)
}

#[test]
fn lost_update_lessons_violate_and_their_fixes_do_not() {
    // The lessons that lose an update, with `expect no lost updates` added.
    for id in [
        "unconditional-update",
        "merge-patch-overwrite",
        "fresh-version-stale-body",
    ] {
        let s = with_expectation(id, "no lost updates");
        let r = full(&s);
        let k = no_lost_updates(&s, &r);
        assert!(k > 0 && r.schedules > k, "{id}: {k} of {}", r.schedules);
        replays(&s, &r, 0);
        agrees_with_brute_force(&s, &r, 0);
    }
    // Their fixes: re-read and retry, and the counter that does so in three clients.
    for id in ["retry-reread", "counter"] {
        let (s, r) = lesson_report(id);
        assert_eq!(no_lost_updates(s, r), 0, "{id}");
    }
    // The unconditional update fixed by re-reading inside retry on conflict.
    let fixed = rvlab_core::lessons::lesson("unconditional-update")
        .expect("lesson")
        .source
        .replace(
            "client bob:\n    obj = get configmap/my-config\n    obj.data.key = \"from-bob\"\n    obj.metadata.resourceVersion = \"\"\n    update obj",
            "client bob:\n    retry on conflict:\n        obj = get configmap/my-config\n        obj.data.key = \"from-bob\"\n        update obj",
        );
    assert!(fixed.contains("retry on conflict"));
    let s = scenario(&format!("{fixed}\nexpect no lost updates\n"));
    let r = full(&s);
    assert_eq!(no_lost_updates(&s, &r), 0);
    assert_eq!(r.schedules, 6);
}

#[test]
fn merging_finished_clients_and_time_changes_no_count() {
    for (s, r) in lesson_reports() {
        if r.states > 10_000 {
            continue;
        }
        let h = ScenarioExplorer::with_model(ScenarioModel::history_only(s), 0, Bounds::default())
            .expect("setup")
            .finish();
        assert!(h.complete);
        assert!(h.states >= r.states);
        assert_eq!(h.schedules, r.schedules);
        assert_eq!(violations(&h), violations(r));
        let keys = |x: &ExploreReport| -> Vec<(String, u64)> {
            let mut v: Vec<_> = x
                .outcomes
                .iter()
                .map(|o| (o.key.clone(), fits(&o.count)))
                .collect();
            v.sort();
            v
        };
        assert_eq!(keys(&h), keys(r));
    }
}

/// Every reused transition, recomputed on the whole world (no stand-ins for the other
/// clients), gives the same result and leaves the other clients alone
/// ([`ScenarioModel::verifying`] panics otherwise), and the report is the same.
#[cfg(feature = "verify")]
#[test]
fn reused_transitions_equal_the_step_on_every_lesson() {
    for (s, r) in lesson_reports() {
        if r.states > 20_000 {
            continue;
        }
        let v = ScenarioExplorer::with_model(ScenarioModel::verifying(s), 0, Bounds::default())
            .expect("setup")
            .finish();
        assert_eq!(&v, r);
    }
    for (_, text) in &bench::counters()[..2] {
        let s = scenario(text);
        let v = ScenarioExplorer::with_model(ScenarioModel::verifying(&s), 0, Bounds::default())
            .expect("setup")
            .finish();
        assert_eq!(v, full(&s));
    }
}

#[cfg(feature = "verify")]
#[test]
fn time_merging_pays_and_changes_no_count() {
    // retry-policies with the controller cut to its first three patches: sleeps, backoff with
    // jitter and contention, small enough to explore without merging time too.
    let source = rvlab_core::lessons::lesson("retry-policies")
        .expect("lesson")
        .source;
    let cut = source
        .find("    sleep 10ms\n    patch configmap/shared merge {data: {tick: \"4\"}}")
        .expect("fourth patch");
    let end = source.find("\nexpect").expect("expectations");
    let s = scenario(&format!("{}{}", &source[..cut], &source[end..]));
    let merged = full(&s);
    let h = ScenarioExplorer::with_model(ScenarioModel::history_only(&s), 0, Bounds::default())
        .expect("setup")
        .finish();
    assert!(merged.complete && h.complete);
    assert!(
        merged.states * 2 < h.states,
        "{} vs {}",
        merged.states,
        h.states
    );
    assert_eq!(merged.schedules, h.schedules);
    assert_eq!(violations(&merged), violations(&h));
    replays(&s, &merged, 0);
    let v = ScenarioExplorer::with_model(ScenarioModel::verifying(&s), 0, Bounds::default())
        .expect("setup")
        .finish();
    assert_eq!(v, merged);
    // The whole lesson completes with time merged (it does not within 200,000 states without).
    let (_, whole) = lesson_report("retry-policies");
    assert!(whole.complete);
}

#[test]
fn slices_give_the_same_report_as_one_run() {
    let s = scenario(&bench::scenarios()[1].1);
    let whole = full(&s);
    let mut e = ScenarioExplorer::new(&s, 0, Bounds::default()).expect("setup");
    assert!(e.report().is_none());
    let mut slices = 0;
    let mut last = 0;
    loop {
        let p = e.run(5);
        assert!(p.states >= last);
        last = p.states;
        slices += 1;
        if p.done {
            break;
        }
    }
    assert!(slices > 10);
    assert_eq!(e.report(), Some(whole));
}

#[test]
fn bounds_and_cancel_say_the_search_is_incomplete() {
    let s = scenario(&bench::scenarios()[1].1);
    let r = explore(
        &s,
        0,
        Bounds {
            max_states: 20,
            ..Bounds::default()
        },
    )
    .expect("setup");
    assert!(!r.complete);
    assert_eq!(r.stopped_by, Some("max_states"));
    assert!(r
        .text()
        .contains("INCOMPLETE: stopped by --max-states (20)"));
    let r = explore(
        &s,
        0,
        Bounds {
            max_schedules: 10,
            ..Bounds::default()
        },
    )
    .expect("setup");
    assert!(!r.complete);
    assert_eq!(r.stopped_by, Some("max_schedules"));
    // Whatever was covered still replays.
    replays(&s, &r, 0);
    let mut e = ScenarioExplorer::new(&s, 0, Bounds::default()).expect("setup");
    e.run(10);
    e.cancel();
    let p = e.run(10);
    assert!(p.done);
    let r = e.report().expect("done");
    assert_eq!(r.stopped_by, Some("cancelled"));
    assert!(!r.complete);
}

#[test]
fn json_form_has_the_documented_fields() {
    let s = scenario(GET_UPDATE);
    let j = full(&s).to_json();
    assert_eq!(j["version"], 1);
    assert_eq!(j["schedules"], 6);
    assert_eq!(j["complete"], true);
    assert!(j["states"].as_u64().is_some_and(|n| n > 6));
    assert_eq!(j["stopped_by"], serde_json::Value::Null);
    assert_eq!(j["bounds"]["max_states"], Bounds::default().max_states);
    assert_eq!(j["bounds"]["max_schedules"], serde_json::Value::Null);
    assert_eq!(j["expectations"][0]["text"], "all clients succeed");
    assert_eq!(j["expectations"][0]["violations"], 4);
    assert_eq!(j["expectations"][0]["counterexample"], "abab");
    let outcomes = j["outcomes"].as_array().expect("outcomes");
    assert_eq!(outcomes.len(), 4);
    assert_eq!(outcomes[0]["count"], 2);
    assert!(outcomes
        .iter()
        .all(|o| o["example"].is_string() && o["summary"].is_string()));
    let keys: Vec<&str> = j
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "schedules",
            "states",
            "complete",
            "stopped_by",
            "bounds",
            "seed",
            "prefix",
            "expectations",
            "outcomes",
            "symmetric"
        ]
    );
    // Alice and Bob write different values: no symmetry.
    assert_eq!(j["symmetric"], serde_json::json!([]));
}

/// Three clients with 16 reads each: every interleaving is a distinct schedule, 48!/(16!)³ =
/// C(48,16)·C(32,16) of them, about 1.4 × 10²¹, more than a u64 holds. The count is exact (the
/// oracle is the multinomial in u128), and the JSON carries it as a decimal string.
#[test]
fn counts_beyond_a_u64_are_exact_in_the_report_and_the_json() {
    let mut text = String::from("object configmap/x at resourceVersion 10:\n    data.a = \"0\"\n");
    for name in ["alice", "bob", "carol"] {
        text.push_str(&format!("\nclient {name}:\n"));
        for _ in 0..16 {
            text.push_str("    c = get configmap/x\n");
        }
    }
    text.push_str("\nexpect all clients succeed\n");
    let s = scenario(&text);
    let r = full(&s);
    assert!(r.complete, "{:?}", r.stopped_by);
    fn choose(n: u128, k: u128) -> u128 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }
    let expected = choose(48, 16) * choose(32, 16);
    assert!(expected > u128::from(u64::MAX));
    assert_eq!(r.schedules.to_string(), expected.to_string());
    assert_eq!(r.schedules.to_u64(), None);
    let outcomes: Count = r.outcomes.iter().map(|o| &o.count).sum();
    assert_eq!(outcomes, r.schedules);
    let j = r.to_json();
    assert_eq!(
        j["schedules"],
        serde_json::Value::String(expected.to_string())
    );
    assert_eq!(j["expectations"][0]["violations"], 0);
    assert_eq!(
        Count::from_json(&j["outcomes"][0]["count"]),
        Some(r.schedules.clone())
    );
    assert!(r
        .text()
        .starts_with(&format!("explored {expected} schedules (")));
}

#[test]
fn the_prefix_is_each_clients_leading_local_steps() {
    // retry-policies: the controller starts with `sleep 5ms`, the others with a request.
    let (s, r) = lesson_report("retry-policies");
    assert_eq!(s.clients[2].name, "controller");
    assert_eq!(r.prefix, "c");
    assert!(r.outcomes.iter().all(|o| o.example.starts_with('c')));
}

#[test]
fn bench_scenarios_parse_and_count() {
    let names: Vec<&str> = bench::scenarios().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["seed-story", "counter-3", "counter-4"]);
    let parse = |i: usize| bench::parse_scenario(&bench::scenarios()[i].1).expect("parses");
    let seed = bench::bench_explore(&parse(0)).expect("explores");
    assert_eq!(seed.schedules, 6);
    let c3 = bench::bench_explore(&parse(1)).expect("explores");
    assert!(c3.complete);
    assert_eq!(violations(&c3), vec![0, 0, 0]);
    assert!(bench::parse_scenario("client :").is_err());
}

#[test]
fn clients_without_requests_make_one_schedule_of_prefix() {
    let s = scenario(
        r#"
client alice:
    x = 1
    sleep 10ms

client bob:
    y = {a: 2}

expect all clients succeed
"#,
    );
    let r = full(&s);
    assert!(r.complete);
    assert_eq!(r.schedules, 1);
    assert_eq!(r.prefix, "a2b");
    assert_eq!(r.outcomes.len(), 1);
    assert_eq!(r.outcomes[0].example, "a2b");
    assert_eq!(r.outcomes[0].summary, "alice succeeded, bob succeeded");
    replays(&s, &r, 0);
}

#[test]
fn a_setup_error_is_an_error_value() {
    let s = scenario(
        r#"
object configmap/a:
    data.k = 3

client alice:
    obj = get configmap/a
"#,
    );
    assert!(ScenarioExplorer::new(&s, 0, Bounds::default()).is_err());
}

/// Strategic merge and server-side apply keep both finalizers (resp. conditions) in every
/// order, only in different orders; `contains` counts no violation there, while the merge
/// patch keeps only the last writer's entry (the other half of the schedules keep Backup's).
#[test]
fn contains_counts_no_order_as_a_violation() {
    let (s, r) = lesson_report("finalizers");
    assert!(r.complete);
    assert_eq!(r.schedules, 70);
    assert_eq!(violations(r), vec![0, 35, 0, 0, 0, 0]);
    agrees_with_brute_force(s, r, 0);
    let (s, r) = lesson_report("conditions");
    assert!(r.complete);
    assert_eq!(r.schedules, 20);
    assert_eq!(violations(r), vec![0, 10, 0, 0]);
    agrees_with_brute_force(s, r, 0);
    // The same list written in the other order still satisfies `contains`, never `==`.
    let s = scenario(
        r#"
object configmap/c
client a:
    patch configmap/c strategic {metadata: {finalizers: ["x"]}}
client b:
    patch configmap/c strategic {metadata: {finalizers: ["y"]}}
expect configmap/c metadata.finalizers contains "x"
expect configmap/c metadata.finalizers contains "y"
expect configmap/c metadata.finalizers == ["y", "x"]
"#,
    );
    let r = full(&s);
    assert_eq!(r.schedules, 2);
    assert_eq!(violations(&r), vec![0, 0, 1]);
}

/// Symmetry reduction (clients with the same program are interchangeable): the explorer with
/// it visits fewer states and reports the same schedules, violations and outcome classes with
/// the same counts as without it, every token it gives replays to what it claims (the tokens
/// name the original clients), and the verifying model checks on every step that the step
/// commutes with swapping the clients and that a world is its representative permuted back.
#[cfg(all(feature = "verify", feature = "symmetry"))]
#[test]
fn symmetric_clients_merge_and_change_no_count() {
    // Two identical clients and a third with another program: only the two are swapped. The
    // third's name sorts between theirs, so swapping them reorders `managedFields`.
    let mixed = r#"
object configmap/counter at resourceVersion 10:
    data.count = "0"

client alice:
    retry on conflict:
        c = get configmap/counter
        c.data.count = c.data.count + 1
        update c

client zed:
    retry on conflict:
        c = get configmap/counter
        c.data.count = c.data.count + 1
        update c

client mike:
    c = get configmap/counter
    c.data.extra = "x"
    update c

expect all clients succeed
expect configmap/counter data.count == "2"
expect no lost updates
"#;
    // Identical clients without retry, writing with a merge patch and a status update.
    let patches = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client one:
    obj = get configmap/my-config
    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: obj.data.key + "!"}}
    obj = get configmap/my-config
    update obj

client two:
    obj = get configmap/my-config
    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: obj.data.key + "!"}}
    obj = get configmap/my-config
    update obj

client three:
    obj = get configmap/my-config
    patch configmap/my-config merge {metadata: {resourceVersion: obj.metadata.resourceVersion}, data: {key: obj.data.key + "!"}}
    obj = get configmap/my-config
    update obj

expect all clients succeed
"#;
    let texts = [
        bench::counter(&["alice", "bob", "carol"]),
        bench::counter(&["alice", "bob", "carol", "dave"]),
        mixed.to_string(),
        patches.to_string(),
    ];
    let groups: [&[&[u32]]; 4] = [&[&[0, 1, 2]], &[&[0, 1, 2, 3]], &[&[0, 1]], &[&[0, 1, 2]]];
    for (text, want) in texts.iter().zip(groups) {
        let s = scenario(text);
        let model = ScenarioModel::verifying(&s);
        let got: Vec<&[u32]> = model.symmetry().iter().map(Vec::as_slice).collect();
        assert_eq!(got, want, "{text}");
        let sym = ScenarioExplorer::with_model(model, 0, Bounds::default())
            .expect("setup")
            .finish();
        let plain =
            ScenarioExplorer::with_model(ScenarioModel::without_symmetry(&s), 0, Bounds::default())
                .expect("setup")
                .finish();
        assert!(sym.complete && plain.complete);
        let names: Vec<Vec<String>> = want
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&c| s.clients[c as usize].name.clone())
                    .collect()
            })
            .collect();
        assert_eq!(sym.symmetric, names);
        assert!(plain.symmetric.is_empty());
        assert_eq!(sym.to_json()["symmetric"][0][0], names[0][0].as_str());
        assert!(
            sym.states < plain.states,
            "{} states with symmetry, {} without",
            sym.states,
            plain.states
        );
        assert_eq!(sym.schedules, plain.schedules);
        assert_eq!(violations(&sym), violations(&plain));
        let classes = |r: &ExploreReport| -> BTreeMap<String, (Count, String)> {
            r.outcomes
                .iter()
                .map(|o| (o.key.clone(), (o.count.clone(), o.summary.clone())))
                .collect()
        };
        assert_eq!(classes(&sym), classes(&plain));
        // Shortest tokens stay shortest (ties may pick another of the swapped clients).
        for (a, b) in sym.expectations.iter().zip(&plain.expectations) {
            let len = |t: &Option<String>| {
                t.as_deref()
                    .map(|t| parse_token(t, s.clients.len() as u32).expect("token").len())
            };
            assert_eq!(len(&a.counterexample), len(&b.counterexample), "{}", a.text);
        }
        replays(&s, &sym, 0);
    }
    let c3 = scenario(&bench::counter(&["alice", "bob", "carol"]));
    let r = full(&c3);
    agrees_with_brute_force(&c3, &r, 0);
    assert!(r
        .text()
        .starts_with("explored 498 schedules (30 distinct states up to swapping alice, bob and carol), complete\n"));
}

/// Symmetry only swaps clients the scenario never tells apart: not a client an expectation
/// names, not clients running kubectl, and not clients with different programs.
#[cfg(feature = "symmetry")]
#[test]
fn symmetry_leaves_named_and_kubectl_clients_alone() {
    let mut named = bench::counter(&["alice", "bob", "carol"]);
    named.push_str("expect alice succeeds\n");
    let s = scenario(&named);
    let m = ScenarioModel::new(&s);
    assert_eq!(m.symmetry(), &[vec![1, 2]]);
    let kubectl = r#"
object configmap/my-config at resourceVersion 100:
    data.key = "initial"

client alice:
    kubectl get configmap my-config

client bob:
    kubectl get configmap my-config
"#;
    assert!(ScenarioModel::new(&scenario(kubectl)).symmetry().is_empty());
    // Writes in different seconds: an outcome class leaves out managedFields' times, which
    // order the entries, so classes could not be mapped through a swap; no symmetry.
    let slow = bench::counter(&["alice", "bob"])
        .replace("        update c\n", "        update c\n    sleep 600ms\n");
    let s = scenario(&slow);
    assert!(s.clients[0].body.len() == 2, "{slow}");
    assert!(ScenarioModel::new(&s).symmetry().is_empty());
    let fast = slow.replace("600ms", "400ms");
    assert_eq!(
        ScenarioModel::new(&scenario(&fast)).symmetry(),
        &[vec![0, 1]]
    );
    let seed = scenario(bench::SEED_STORY);
    assert!(ScenarioModel::new(&seed).symmetry().is_empty());
}
