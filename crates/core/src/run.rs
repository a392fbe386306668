//! A [`Run`]: a scenario played from a seed along a schedule, with the world after every step
//! kept, so the page can jump anywhere in O(1), and the expectations checked at the end.

use crate::engine::{expr, ClientOutcome, RunError, StepRecord, World, MAX_STEPS};
use crate::lang::ast::{ExpectKind, Scenario};
use crate::schedule::{format_token, parse_token};
use std::collections::BTreeMap;

/// The result of one `expect` line on a final world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectationResult {
    /// The text after `expect`, as written.
    pub text: String,
    pub line: u32,
    pub holds: bool,
    /// Why it holds or fails, in a sentence.
    pub detail: String,
}

/// A run: the scenario, the seed, every world (`worlds[0]` before any step, `worlds[i + 1]`
/// after step `i`) and the record of every step.
#[derive(Debug, Clone)]
pub struct Run {
    pub scenario: Scenario,
    pub seed: u64,
    worlds: Vec<World>,
    /// One record per step taken.
    pub steps: Vec<StepRecord>,
    /// Set when the run stopped at [`MAX_STEPS`] with clients still unfinished.
    pub stopped: Option<String>,
}

impl Run {
    /// The run at its start: setup done, no client step taken.
    pub fn start(scenario: &Scenario, seed: u64) -> Result<Run, RunError> {
        let world = World::new(scenario, seed)?;
        Ok(Run {
            scenario: scenario.clone(),
            seed,
            worlds: vec![world],
            steps: Vec::new(),
            stopped: None,
        })
    }

    /// Runs the scenario to the end: the steps of `token` first (`None`: the scenario's own
    /// `schedule`, if any), then the default scheduler.
    pub fn new(scenario: &Scenario, seed: u64, token: Option<&str>) -> Result<Run, RunError> {
        let mut run = Run::start(scenario, seed)?;
        let token = token.or(scenario.schedule.as_ref().map(|(t, _)| t.as_str()));
        if let Some(t) = token {
            let clients = scenario.clients.len() as u32;
            for c in parse_token(t, clients)? {
                let step = run.steps.len() as u32 + 1;
                run.step(Some(c)).map_err(|e| match e {
                    RunError::Schedule { error, .. } => RunError::Schedule { step, error },
                    other => other,
                })?;
            }
        }
        run.run_to_end();
        Ok(run)
    }

    /// The latest world.
    pub fn last(&self) -> &World {
        // `worlds` is never empty: `start` puts the first world in.
        &self.worlds[self.worlds.len() - 1]
    }

    /// The world after `i` steps (`0`: before any), clamped to the run's length.
    pub fn world_at(&self, i: usize) -> &World {
        &self.worlds[i.min(self.worlds.len() - 1)]
    }

    /// How many steps were taken.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether no step was taken.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Whether every client has finished.
    pub fn is_finished(&self) -> bool {
        self.last().is_finished()
    }

    /// Takes one step: of `client`, or of the default scheduler's choice. `Ok(None)` when every
    /// client has finished or the step limit is reached.
    pub fn step(&mut self, client: Option<u32>) -> Result<Option<&StepRecord>, RunError> {
        if self.steps.len() as u32 >= MAX_STEPS {
            if !self.is_finished() {
                self.stopped = Some(format!(
                    "the run stopped after {MAX_STEPS} steps (the limit) with clients still running"
                ));
            }
            return Ok(None);
        }
        let mut world = self.last().clone();
        let c = match client {
            Some(c) => c,
            None => match world.pick_default() {
                Some(c) => c,
                None => return Ok(None),
            },
        };
        let step = self.steps.len() as u32 + 1;
        let rec = world
            .step(&self.scenario, c)
            .map_err(|error| RunError::Schedule { step, error })?;
        self.worlds.push(world);
        self.steps.push(rec);
        Ok(self.steps.last())
    }

    /// Runs the default scheduler until every client has finished (or the step limit).
    pub fn run_to_end(&mut self) {
        while let Ok(Some(_)) = self.step(None) {}
    }

    /// Forgets every step after the first `n` (to take another branch from there).
    pub fn truncate(&mut self, n: usize) {
        self.steps.truncate(n);
        self.worlds.truncate(n + 1);
        self.stopped = None;
    }

    /// The schedule as executed, compressed (`aba2b2`).
    pub fn token(&self) -> String {
        let clients: Vec<u32> = self.steps.iter().map(|s| s.client).collect();
        format_token(&clients)
    }

    /// The scenario's expectations, checked on the latest world.
    pub fn expectations(&self) -> Vec<ExpectationResult> {
        check_expectations(&self.scenario, self.last())
    }

    /// Whether every expectation holds on the latest world.
    pub fn all_hold(&self) -> bool {
        self.expectations().iter().all(|e| e.holds)
    }
}

/// Checks every `expect` of the scenario against a world (scenario-language.md §5). Clients
/// that have not finished count as neither succeeded nor failed.
pub fn check_expectations(scenario: &Scenario, world: &World) -> Vec<ExpectationResult> {
    let outcome = |name: &str| -> Option<Option<&ClientOutcome>> {
        let i = scenario.clients.iter().position(|c| c.name == name)?;
        Some(world.clients.get(i).and_then(|c| c.outcome.as_ref()))
    };
    let describe = |name: &str| -> String {
        match outcome(name) {
            None => format!("there is no client named {name}"),
            Some(None) => format!("{name} has not finished"),
            Some(Some(o)) => format!("{name} {o}"),
        }
    };
    scenario
        .expectations
        .iter()
        .map(|e| {
            let (holds, detail) = match &e.kind {
                ExpectKind::NoLostUpdates => {
                    if world.lost_updates.is_empty() {
                        (true, "no write overwrote a change its writer had not read".into())
                    } else {
                        let l = &world.lost_updates;
                        let first = &l[0];
                        (
                            false,
                            format!(
                                "{} lost update(s); first: {}'s write at revision {} overwrote {} {}, which {} had set at revision {} after {} read revision {}",
                                l.len(),
                                first.writer,
                                first.revision,
                                first.object,
                                if first.path.is_empty() { "(deleted)".to_string() } else { first.path.clone() },
                                first.overwritten_writer,
                                first.overwritten_revision,
                                first.writer,
                                first.base_revision
                            ),
                        )
                    }
                }
                ExpectKind::Field {
                    target,
                    path,
                    equal,
                    value,
                } => {
                    let want = expr::eval(value, &BTreeMap::new());
                    match (world.store.get(target), want) {
                        (_, Err(err)) => (false, format!("cannot evaluate the expected value: {err}")),
                        (None, Ok(_)) => (false, format!("{target} does not exist")),
                        (Some(obj), Ok(want)) => {
                            let name = target.to_string();
                            match expr::read_path(obj, &name, path) {
                                Err(err) => (!equal, err),
                                Ok(got) => {
                                    let same = *got == want;
                                    (
                                        same == *equal,
                                        format!("{target} {} is {got}", expr::path_text(path)),
                                    )
                                }
                            }
                        }
                    }
                }
                ExpectKind::Exists(target) => match world.store.get(target) {
                    Some(_) => (true, format!("{target} exists")),
                    None => (false, format!("{target} does not exist")),
                },
                ExpectKind::Deleted(target) => match world.store.get(target) {
                    Some(_) => (false, format!("{target} still exists")),
                    None => (true, format!("{target} does not exist")),
                },
                ExpectKind::Succeeds(name) => (
                    matches!(outcome(name), Some(Some(ClientOutcome::Succeeded))),
                    describe(name),
                ),
                ExpectKind::FailsWith { client, reason } => (
                    matches!(outcome(client), Some(Some(ClientOutcome::Failed(f))) if f.reason == *reason),
                    describe(client),
                ),
                ExpectKind::AllSucceed => {
                    let bad: Vec<String> = scenario
                        .clients
                        .iter()
                        .zip(&world.clients)
                        .filter(|(_, s)| !matches!(s.outcome, Some(ClientOutcome::Succeeded)))
                        .map(|(c, _)| describe(&c.name))
                        .collect();
                    if bad.is_empty() {
                        (true, "every client succeeded".into())
                    } else {
                        (false, bad.join("; "))
                    }
                }
            };
            ExpectationResult {
                text: e.text.clone(),
                line: e.span.line,
                holds,
                detail,
            }
        })
        .collect()
}
