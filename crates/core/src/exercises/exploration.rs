//! Every schedule of a scenario, as fix-it grading needs it: complete or not, and per
//! expectation how many schedules violate it and the token of one that does.
//!
//! This is a small adapter of the scenario to the generic [`crate::explore::Explorer`]: a
//! choice is a client that can send its next request; taking it runs that client up to and
//! including the request, then through the statements after it that send none
//! (scenario-language.md §7). The scenario explorer of `rvlab explore` follows the same rules;
//! grading only needs the summary below.

use crate::engine::{Action, RunError, World};
use crate::explore::{compress, Bounds, Evaluation, Explorer, Model};
use crate::lang::ast::Scenario;
use crate::run::check_expectations;

/// The search limits used for grading: small scenarios are explored completely well inside
/// them; a scenario that reaches one is reported as incomplete, never as passing.
pub const GRADING_BOUNDS: Bounds = Bounds {
    max_schedules: 5_000_000,
    max_states: 50_000,
    max_depth: 200,
};

/// One expectation over every explored schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectationStats {
    /// The text after `expect`, as written.
    pub text: String,
    /// How many schedules violate it.
    pub violations: u64,
    /// A shortest violating schedule, as a token that `Run::new` replays.
    pub counterexample: Option<String>,
}

/// The summary of an exploration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exploration {
    /// True only when every schedule was covered.
    pub complete: bool,
    /// Which bound stopped the search (`max_states`, `max_schedules`, `max_depth`).
    pub stopped_by: Option<String>,
    /// Complete request orders covered.
    pub schedules: u64,
    /// One entry per `expect` line, in order.
    pub expectations: Vec<ExpectationStats>,
}

struct ScenarioModel<'s> {
    scenario: &'s Scenario,
}

impl ScenarioModel<'_> {
    /// Runs the client's statements that send no request (backoff sleeps included).
    fn run_quiet(&self, world: &mut World, client: u32, letters: &mut Vec<u8>) {
        let letter = b'a' + client as u8;
        while world
            .clients
            .get(client as usize)
            .is_some_and(|c| c.outcome.is_none())
            && !world.next_sends_request(self.scenario, client)
        {
            if world.step(self.scenario, client).is_err() {
                return;
            }
            letters.push(letter);
        }
    }
}

impl Model for ScenarioModel<'_> {
    type World = World;

    fn choices(&self, world: &World) -> Vec<u32> {
        world.unfinished()
    }

    fn advance(&self, world: &World, client: u32) -> (World, Vec<u8>) {
        let mut w = world.clone();
        let mut letters = Vec::new();
        self.run_quiet(&mut w, client, &mut letters);
        if w.clients
            .get(client as usize)
            .is_some_and(|c| c.outcome.is_none())
        {
            if let Ok(rec) = w.step(self.scenario, client) {
                letters.push(b'a' + client as u8);
                if rec.action == Action::Request {
                    self.run_quiet(&mut w, client, &mut letters);
                }
            }
        }
        (w, letters)
    }

    fn evaluate(&self, world: &World) -> Evaluation {
        let results = check_expectations(self.scenario, world);
        let key: Vec<String> = world
            .clients
            .iter()
            .map(|c| format!("{:?}", c.outcome))
            .collect();
        Evaluation {
            violated: results.iter().map(|r| !r.holds).collect(),
            outcome_key: key.join("|"),
            outcome_summary: String::new(),
        }
    }
}

/// Explores every schedule of `scenario` (seed 0) within `bounds`.
pub fn explore(scenario: &Scenario, bounds: Bounds) -> Result<Exploration, RunError> {
    let model = ScenarioModel { scenario };
    let mut root = World::new(scenario, 0)?;
    let mut prefix = Vec::new();
    for c in 0..scenario.clients.len() as u32 {
        model.run_quiet(&mut root, c, &mut prefix);
    }
    let report = Explorer::new(
        &model,
        root,
        prefix.clone(),
        scenario.expectations.len(),
        bounds,
    )
    .finish();
    let expectations = scenario
        .expectations
        .iter()
        .enumerate()
        .map(|(i, e)| ExpectationStats {
            text: e.text.clone(),
            violations: report.summary.violations.get(i).copied().unwrap_or(0),
            counterexample: report
                .summary
                .counterexamples
                .get(i)
                .and_then(|c| c.as_ref())
                .map(|tail| compress(&[prefix.as_slice(), tail.as_slice()].concat())),
        })
        .collect();
    Ok(Exploration {
        complete: report.complete,
        stopped_by: report.stopped_by.map(str::to_string),
        schedules: report.schedules,
        expectations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Run;

    fn scenario(src: &str) -> Scenario {
        crate::lang::parse(src).scenario.expect("parses")
    }

    #[test]
    fn counterexamples_replay_even_with_leading_local_statements() {
        // Both clients start with a statement that sends nothing (the root's prefix).
        let sc = scenario(
            "object configmap/c:\n    data.n = \"0\"\n\
             client alice:\n    v = \"1\"\n    o = get configmap/c\n    o.metadata.resourceVersion = \"\"\n    o.data.n = v\n    update o\n\
             client bob:\n    w = \"2\"\n    o = get configmap/c\n    o.metadata.resourceVersion = \"\"\n    o.data.n = w\n    update o\n\
             expect no lost updates\n",
        );
        let x = explore(&sc, GRADING_BOUNDS).expect("explores");
        assert!(x.complete);
        // 2 requests each: C(4,2) = 6 orders; the interleaved ones (4 of 6) lose an update.
        assert_eq!(x.schedules, 6);
        assert_eq!(x.expectations[0].violations, 4);
        let token = x.expectations[0]
            .counterexample
            .clone()
            .expect("a counterexample");
        assert!(token.starts_with("ab"), "{token}");
        let run = Run::new(&sc, 0, Some(&token)).expect("replays");
        assert!(!run.expectations()[0].holds);
        assert_eq!(run.token(), token);
    }

    #[test]
    fn bounds_make_an_exploration_incomplete() {
        let sc = scenario(
            "object configmap/c:\n    data.n = \"0\"\n\
             client a:\n    o = get configmap/c\n    update o\n\
             client b:\n    o = get configmap/c\n    update o\n\
             expect all clients succeed\n",
        );
        let tiny = Bounds {
            max_states: 2,
            ..GRADING_BOUNDS
        };
        let x = explore(&sc, tiny).expect("explores");
        assert!(!x.complete);
        assert_eq!(x.stopped_by.as_deref(), Some("max_states"));
        let full = explore(&sc, GRADING_BOUNDS).expect("explores");
        assert!(full.complete && full.stopped_by.is_none());
        assert_eq!(full.schedules, 6);
    }
}
