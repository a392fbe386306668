//! A [`Run`]: a scenario played from a seed along a schedule, with the world after every step
//! kept, so the page can jump anywhere in O(1), and the expectations checked at the end.

use crate::engine::{expr, ClientOutcome, RunError, StepKind, StepRecord, World, MAX_STEPS};
use crate::lang::ast::{ExpectKind, Expectation, Scenario};
use crate::schedule::{format_token, parse_token};
use std::borrow::Cow;

/// A run keeps the world after every this many steps; any other world is rebuilt from the
/// checkpoint before it by replaying at most `CHECKPOINT_EVERY - 1` steps.
pub const CHECKPOINT_EVERY: usize = 16;

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

/// A run: the scenario, the seed, the record of every step, and the worlds: the latest one, and
/// one every [`CHECKPOINT_EVERY`] steps, so that any world is at most that many steps away.
#[derive(Debug, Clone)]
pub struct Run {
    pub scenario: Scenario,
    pub seed: u64,
    /// `checkpoints[k]` is the world after `k * CHECKPOINT_EVERY` steps.
    checkpoints: Vec<World>,
    /// The world after every step taken.
    current: World,
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
            checkpoints: vec![world.clone()],
            current: world,
            steps: Vec::new(),
            stopped: None,
        })
    }

    /// Runs the scenario to the end: the steps of `token` first (`None`: the scenario's own
    /// `schedule`, if any; `Some("")`: none), then the default scheduler.
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
        &self.current
    }

    /// The world after `i` steps (`0`: before any), clamped to the run's length: a kept world,
    /// or one rebuilt by replaying fewer than [`CHECKPOINT_EVERY`] steps from a checkpoint.
    pub fn world_at(&self, i: usize) -> Cow<'_, World> {
        let i = i.min(self.steps.len());
        if i == self.steps.len() {
            return Cow::Borrowed(&self.current);
        }
        let k = i / CHECKPOINT_EVERY;
        let Some(base) = self.checkpoints.get(k) else {
            return Cow::Borrowed(&self.current);
        };
        if i.is_multiple_of(CHECKPOINT_EVERY) {
            return Cow::Borrowed(base);
        }
        let mut w = base.clone();
        for j in k * CHECKPOINT_EVERY..i {
            // Replaying recorded steps cannot fail: they succeeded the first time.
            let _ = w.take_step(&self.scenario, Some(self.steps[j].client));
        }
        Cow::Owned(w)
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
        let step = self.steps.len() as u32 + 1;
        // `take_step` draws the scheduler's tie-break whoever picks the client, so a token
        // replays the run it was read from exactly.
        let taken = self
            .current
            .take_step(&self.scenario, client)
            .map_err(|error| RunError::Schedule { step, error })?;
        let Some(rec) = taken else {
            return Ok(None);
        };
        self.steps.push(rec);
        if self.steps.len().is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(self.current.clone());
        }
        Ok(self.steps.last())
    }

    /// Runs the default scheduler until every client has finished (or the step limit).
    pub fn run_to_end(&mut self) {
        while let Ok(Some(_)) = self.step(None) {}
    }

    /// Forgets every step after the first `n` (to take another branch from there).
    pub fn truncate(&mut self, n: usize) {
        if n >= self.steps.len() {
            return;
        }
        self.current = self.world_at(n).into_owned();
        self.steps.truncate(n);
        self.checkpoints.truncate(n / CHECKPOINT_EVERY + 1);
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

    /// The step (index into `steps`) that decided an expectation's result: the first lost
    /// update, the last write to the object, the step that finished the client, the first
    /// client to fail.
    pub fn decisive_step(&self, e: &Expectation) -> Option<usize> {
        let steps = &self.steps;
        let client_index = |name: &str| {
            self.scenario
                .clients
                .iter()
                .position(|c| c.name == name)
                .map(|i| i as u32)
        };
        let finished_step = |c: u32| {
            steps
                .iter()
                .rposition(|s| s.client == c && s.finished.is_some())
        };
        match &e.kind {
            ExpectKind::NoLostUpdates => steps.iter().position(|s| !s.lost_updates.is_empty()),
            ExpectKind::Field { target, .. }
            | ExpectKind::Contains { target, .. }
            | ExpectKind::Exists(target)
            | ExpectKind::Deleted(target) => steps.iter().rposition(|s| {
                s.action == StepKind::Request
                    && s.revision.is_some()
                    && s.target.as_ref() == Some(target)
            }),
            ExpectKind::Succeeds(name)
            | ExpectKind::FailsWith { client: name, .. }
            | ExpectKind::Prints { client: name, .. }
            | ExpectKind::Exits { client: name, .. } => client_index(name).and_then(finished_step),
            ExpectKind::AllSucceed => steps
                .iter()
                .position(|s| matches!(s.finished, Some(ClientOutcome::Failed(_)))),
        }
    }

    /// Where to show a run that breaks an expectation: the number of steps up to and
    /// including the decisive step of the first expectation that fails (the run's length when
    /// none fails or no step decided it).
    pub fn first_break_position(&self) -> usize {
        self.expectations()
            .iter()
            .zip(&self.scenario.expectations)
            .find(|(r, _)| !r.holds)
            .and_then(|(_, e)| self.decisive_step(e))
            .map_or(self.len(), |i| i + 1)
    }
}

/// Checks every `expect` of the scenario against a world (docs/scenario-language.md, "Expectations"). Clients
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
    // The last kubectl command's terminal of a client, or why there is none.
    let terminal = |name: &str| -> Result<&crate::kubectl::Terminal, String> {
        let i = scenario.clients.iter().position(|c| c.name == name);
        match i.and_then(|i| world.clients.get(i)) {
            None => Err(format!("there is no client named {name}")),
            Some(c) => c.terminal.as_ref().ok_or_else(|| {
                if c.kubectl.is_some() {
                    format!("{name}'s first kubectl command has not finished")
                } else {
                    format!("{name} has not run a kubectl command")
                }
            }),
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
                        let verb = world.write_verb(first.revision);
                        (
                            false,
                            format!(
                                "{} lost update(s); the first: {}",
                                l.len(),
                                crate::engine::lost_sentence(first, verb)
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
                    let want = expr::eval(value, &crate::engine::Vars::default());
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
                ExpectKind::Contains {
                    target,
                    path,
                    value,
                } => {
                    let want = expr::eval(value, &crate::engine::Vars::default());
                    match (world.store.get(target), want) {
                        (_, Err(err)) => (false, format!("cannot evaluate the expected value: {err}")),
                        (None, Ok(_)) => (false, format!("{target} does not exist")),
                        (Some(obj), Ok(want)) => {
                            let here = format!("{target} {}", expr::path_text(path));
                            match expr::read_path(obj, &target.to_string(), path) {
                                Err(err) => (false, err),
                                Ok(got @ serde_json::Value::Array(items)) => {
                                    if items.contains(&want) {
                                        (true, format!("{here} is {got}"))
                                    } else {
                                        (false, format!("{here} is {got}, with no element {want}"))
                                    }
                                }
                                Ok(got) => (false, format!("{here} is {got}, not an array")),
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
                ExpectKind::Prints { client, text } => match terminal(client) {
                    Err(why) => (false, why),
                    Ok(t) => {
                        let all: String = t.chunks.iter().map(|c| c.text.as_str()).collect();
                        if all.contains(text.as_str()) {
                            (true, format!("{client}'s last kubectl command printed {text:?}"))
                        } else if all.is_empty() {
                            (false, format!("{client}'s last kubectl command printed nothing"))
                        } else {
                            (
                                false,
                                format!(
                                    "{client}'s last kubectl command printed {:?}, without {text:?}",
                                    all.trim_end()
                                ),
                            )
                        }
                    }
                },
                ExpectKind::Exits { client, code } => match terminal(client) {
                    Err(why) => (false, why),
                    Ok(t) => (
                        t.exit == *code,
                        format!("{client}'s last kubectl command exited {}", t.exit),
                    ),
                },
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
