//! The benchmark scenarios of the explorer, as texts, and the work one measurement does. The
//! timing itself is the caller's (core reads no clock): `rvlab bench-explore` natively, the
//! page's worker in the browser.

use super::scenario::{explore, ExploreReport, ScenarioExplorer, ScenarioModel};
use super::Bounds;
use crate::lang::ast::Scenario;
use crate::lang::parse;

/// (a) The seed story: two clients, get / edit / update each, no retry.
pub const SEED_STORY: &str = include_str!("../../lessons/01-stale-update.rvl");

/// The counter scenario for the given client names: each client increments one ConfigMap
/// counter inside `retry on conflict` (get; count += 1; update), and the scenario expects every
/// client to succeed, the count to equal the number of clients and no lost update.
pub fn counter(clients: &[&str]) -> String {
    let mut s = format!(
        "title \"{} clients increment one counter with retry on conflict\"\n\n\
         object configmap/counter at resourceVersion 10:\n    data.count = \"0\"\n",
        clients.len()
    );
    for c in clients {
        s.push_str(&format!(
            "\nclient {c}:\n    retry on conflict:\n        c = get configmap/counter\n        \
             c.data.count = c.data.count + 1\n        update c\n"
        ));
    }
    s.push_str(&format!(
        "\nexpect all clients succeed\nexpect configmap/counter data.count == \"{}\"\nexpect no lost updates\n",
        clients.len()
    ));
    s
}

/// The benchmark scenarios: `(name, text)` for (a) the seed story, (b) three clients each
/// incrementing one ConfigMap counter inside `retry on conflict`, (c) four such clients.
pub fn scenarios() -> Vec<(&'static str, String)> {
    vec![
        ("seed-story", SEED_STORY.to_string()),
        ("counter-3", counter(&["alice", "bob", "carol"])),
        ("counter-4", counter(&["alice", "bob", "carol", "dave"])),
    ]
}

/// The counter scenarios with 3, 4, 5 and 6 clients (`counter-3` … `counter-6`): the ones
/// compared with the stateright peer (`cargo xtask bench`, docs/explorer.md).
pub fn counters() -> Vec<(&'static str, String)> {
    const NAMES: [&str; 6] = ["alice", "bob", "carol", "dave", "erin", "frank"];
    const IDS: [&str; 4] = ["counter-3", "counter-4", "counter-5", "counter-6"];
    IDS.iter()
        .zip(3..)
        .map(|(id, n)| (*id, counter(&NAMES[..n])))
        .collect()
}

/// Parses a benchmark text (errors: the rendered diagnostics).
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    let parsed = parse(text);
    match parsed.scenario {
        Some(s) if !parsed.has_errors() => Ok(s),
        _ => {
            let msgs: Vec<String> = parsed
                .diagnostics
                .iter()
                .map(|d| d.render("bench", text))
                .collect();
            Err(msgs.join("\n"))
        }
    }
}

/// One measured unit of work: explore `scenario` completely under default bounds with seed 0
/// (what `rvlab bench-explore` times, parsing excluded).
pub fn bench_explore(scenario: &Scenario) -> Result<ExploreReport, String> {
    bench_explore_within(scenario, Bounds::default().max_states)
}

/// The same with at most `max_states` distinct states instead of the default 200,000 (the
/// 6-client counter has about 1.2 million: docs/explorer.md).
pub fn bench_explore_within(scenario: &Scenario, max_states: u64) -> Result<ExploreReport, String> {
    let bounds = Bounds {
        max_states,
        ..Bounds::default()
    };
    explore(scenario, 0, bounds).map_err(|e| e.to_string())
}

/// The same with only history merged ([`ScenarioModel::history_only`]): the baseline that
/// shows what merging finished clients and time saves.
pub fn bench_explore_baseline(scenario: &Scenario) -> Result<ExploreReport, String> {
    ScenarioExplorer::with_model(ScenarioModel::history_only(scenario), 0, Bounds::default())
        .map(ScenarioExplorer::finish)
        .map_err(|e| e.to_string())
}
