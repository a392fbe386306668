//! The explorer over a scenario: every order of the clients' requests, with exact counts.
//!
//! # The model
//! - **Root**: the world after setup, with each client's leading statements that send no
//!   request run eagerly, client by client (`a`'s, then `b`'s, …). Those steps are the report's
//!   `prefix`; every token the report gives starts with them.
//! - **Choice**: any unfinished client (docs/scenario-language.md, "Schedules": exploration ignores time, so a
//!   sleeping client may go next, and stepping it advances the clock exactly as an explicit
//!   token step does in `rvlab run`). After every transition each unfinished client's next step
//!   sends a request, so a choice is always a request.
//! - **Transition**: the chosen client's request step, then its following steps that send
//!   nothing (local edits, bindings, `sleep`s, backoff sleeps) up to its next request or its
//!   end. The letters of all those steps are the edge of the transition, so prefix + edges is
//!   a complete schedule token that [`crate::run::Run::new`] replays step for step: the
//!   explorer steps through the same [`World::take_step`] the run does (tie-break draw
//!   included).
//! - **Evaluation**: the scenario's expectations on the final world, and an outcome class: the
//!   final objects without the metadata that differs only by timing or by the generator
//!   (`creationTimestamp`, `uid`, `managedFields[].time`; resourceVersions and content kept),
//!   each client's outcome (`succeeded`, or failed with code and reason), and whether any
//!   write lost an update.
//!
//! # Merging worlds (what makes the counts cheap, and why they stay exact)
//! The generic search memoises worlds by value. A scenario world is normalised after every
//! transition by dropping what can no longer influence anything the report shows, so that
//! worlds that differ only there merge:
//! 1. the store's event log and the engine's `write_verbs` (history for the timeline only);
//! 2. the list of lost updates, kept as one flag (only its emptiness is evaluated);
//! 3. a finished client's variables, observations, files, kubectl command in progress,
//!    position and wake-up time (only its outcome is evaluated; no other client reads them),
//!    every client's `attempts` statistic (written, never read by a step), and every client's
//!    last kubectl output when no expectation reads it (`prints`, `exits`: nothing else does);
//! 4. **time**, when it provably no longer matters: the clock reaches the store only as
//!    timestamps with one-second resolution. Every future clock value lies between the current
//!    clock and `max(clock, wake-up times) + Σ` (a static bound on all the sleeps each unfinished
//!    client can still take, jitter at its maximum, kubectl's own back-off included). When
//!    both ends fall in the same second, every future write is stamped with that second
//!    whatever the order (and every AGE kubectl prints, whole seconds since a creation
//!    stamped in whole seconds, is the same), so the clock is
//!    replaced by the start of that second and the wake-up times by 0. If, in addition, the
//!    scenario has no `create` or `apply` (the only requests that draw uids or names from the
//!    generator; nor a `kubectl apply`, `kubectl create`), the generator can only change
//!    jitter, i.e. the clock, and is reset too.
//!
//! Why this is exact: items 1–3 are never read by a step or by the evaluation, so a step
//! maps worlds with the same normalisation to worlds with the same normalisation. For item 4,
//! the bound covers every continuation, so from two worlds equal but for clock, wake-up times
//! (and generator, when reset) every continuation stamps the same second, draws the same uids
//! (none) and sends the same requests: the store, the clients' variables and outcomes evolve
//! identically, and only the parts dropped differ at the end. Hence two merged worlds have the
//! same schedules, expectation results and outcome classes below them, and a token found below
//! one replays from the other to the same violation and outcome class. The tests check this
//! against a walk that merges nothing (every lesson but the largest, and the benchmark counter)
//! and replay every counterexample and example of every lesson with [`crate::run::Run`].
//!
//! Measured (states with history dropped only → with all four items): the lesson
//! `retry-policies` does not finish within 200,000 states → 91,627 (1.6 × 10¹² schedules);
//! the benchmark counters and the other lessons are small either way (see the tests).
//!
//! No partial-order reduction on top: requests that commute in effect (two reads, or writes to
//! different objects) already reach equal worlds when they leave the same state (two reads do;
//! two writes do not, since each takes the next revision, so their orders are really different
//! states); and every order must be counted anyway, which the memo does at no cost.
//!
//! # Packed worlds and the transition table
//! A world is kept *packed* ([`Packed`]): the number of its store and of each client's state
//! in the model's tables (each distinct value once, numbered by its `Hash` stream, so equal
//! numbers are equal values), plus the clock, the generator and the lost-update flag. The
//! memo key of a world is then a few dozen bytes, and a step copies numbers, not objects.
//!
//! A step of client `c` reads only the store, `c`'s own state, the clock, the generator, and,
//! through the default scheduler's tie-break draw that every step takes
//! ([`World::take_step`]), how many unfinished clients tie for the earliest ready time; it
//! writes only the store, `c`'s state, the clock, the generator and the lost-update list. So
//! each distinct combination of what it reads (the *transition key*: store number, `c`, `c`'s
//! state number, clock, generator, and the sorted ready times `max(wake-up, clock)` of the
//! other unfinished clients) runs the engine once; every other world with the same key reuses
//! the result. While it is computed, the other clients are stand-ins that keep only their
//! outcome and wake-up time, so a step that read anything else of them would see an empty
//! client, not a stale one. A step that takes no revision keeps its store's number (checked
//! in debug builds). Item 4 then runs on the packed world, from facts kept per client state
//! (finished or not, wake-up time, the number of the same state woken).
//!
//! This is exact because the key holds everything the step reads; the tests check it twice:
//! the counts against a walk that merges nothing, and [`ScenarioModel::verifying`], which
//! recomputes every reused transition on the whole world and panics on any difference
//! (taking the client's index or the other clients' ready times out of the key makes it
//! panic). On the 5-client counter (43,737 states) the engine runs a few thousand distinct
//! steps instead of one per edge (docs/explorer.md has the profile and the figures).
//!
//! # Symmetric clients
//! Clients with the same program are interchangeable when nothing in the scenario tells them
//! apart but their names (`symmetry::groups`, the `symmetry` feature: the same statement
//! texts; no expectation names them; no kubectl, `apply`, `file` or `managedFields` in the
//! scenario; all sleeps together under a second, so that every write is stamped with the same
//! second and an outcome class, which leaves out `managedFields` times, maps through a swap).
//! Swapping two of them maps a world to another with the
//! same schedules up to renaming the letters: their slots swapped, and their names swapped
//! wherever the world records them (field managers in every object of the store and of the
//! clients' variables, with `managedFields` sorted again since the apiserver orders the
//! entries by operation, time and manager name; the writers of provenance and of the
//! lost-delete bookkeeping). [`Model::canonical`] keeps one representative per world: the
//! slots of each group sorted by a signature of their states (the state with those names
//! erased), ties by slot, and the names renamed to match; the permutation back is kept on the
//! edge. The search then merges worlds with equal representatives and maps what it reuses:
//! counts are the same, expectations name no permuted client so violations are the same,
//! outcome classes are mapped through the permutation (the class of the permuted final world,
//! computed once per class and permutation), and a counterexample or example is spelled out
//! with its letters mapped by the permutations along its path, so every token names the
//! original clients. `states` counts the representatives.
//!
//! This is exact because renaming commutes with every step: a step reads names only to
//! compare them (is this manager me, who wrote this field), so the swapped client's step
//! from the swapped world is the swapped step. [`ScenarioModel::verifying`] checks exactly
//! that on every step (for a rotation of each group) and that each world is its
//! representative permuted back; the tests compare schedules, violations and outcome classes
//! with [`ScenarioModel::without_symmetry`] and replay every token. Leaving out the sort of
//! `managedFields` or the renaming of provenance makes the verifying model panic.
//!
//! # Memory
//! A memoised world costs its packed form in the memo plus its summary; the stores and client
//! states are shared by all the worlds that have them (docs/explorer.md measures bytes per
//! state).
//!
//! `states` counts distinct normalised worlds; `schedules` the complete request orders.

use super::Recorder;
use super::{compress, Bounds, Evaluation, Explorer, Model, Progress, Report};
use crate::count::Count;
use crate::engine::{ClientOutcome, RunError, World};
use crate::engine::{ClientState, Revisions};
use crate::json::object;
use crate::kubectl::{Command, Verb};
use crate::lang::ast::{Backoff, ExpectKind, Scenario, Stmt, StmtKind};
use crate::rng::Rng;
use crate::run::check_expectations;
use crate::store::Store;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hash::Hash;

#[cfg(feature = "symmetry")]
mod symmetry;

const SECOND: u64 = 1_000_000_000;

/// A world as the explorer keeps it: normalised (see the module docs), with its store and
/// client states replaced by their numbers in the model's tables ("Packed worlds and the
/// transition table" in the module docs) and the lost-update flag outside the world.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Packed {
    /// The number of the store.
    store: u32,
    /// The number of each client's state, by client index.
    clients: Box<[u32]>,
    clock_nanos: u64,
    rng: Rng,
    /// Some accepted write lost an update on the way here.
    lost: bool,
}

/// Distinct values, each with a number: equal numbers are equal values, because two values
/// share a number exactly when their `Hash` streams are equal (see [`Model::encode`]: for the
/// types here the stream determines the value). Keyed by the stream rather than by `Eq`, which
/// the page would link for every type in a store (docs/size.md).
struct Interned<T> {
    ids: BTreeMap<Box<[u8]>, u32>,
    values: Vec<T>,
}

impl<T: Hash> Interned<T> {
    fn new() -> Self {
        Interned {
            ids: BTreeMap::new(),
            values: Vec::new(),
        }
    }

    /// The value's number, and whether it is new.
    fn intern(&mut self, value: T) -> (u32, bool) {
        let next = self.values.len() as u32;
        let id = *self.ids.entry(recorded(&value).into()).or_insert(next);
        if id == next {
            self.values.push(value);
        }
        (id, id == next)
    }
}

/// What the search and the normalisation of time read of a client state, kept next to it.
#[derive(Clone, Copy)]
struct Facts {
    unfinished: bool,
    ready_at: u64,
    /// The number of the same state with `ready_at` 0 (item 4 of the module docs).
    woken: u32,
}

/// One step of one client, computed once: what it makes of the parts it reads.
struct Transition {
    store: u32,
    client: u32,
    clock_nanos: u64,
    rng: Rng,
    lost: bool,
    /// The steps run, as schedule letters.
    letters: Box<[u8]>,
}

/// The model's tables: every distinct store and client state, and every transition computed.
struct Tables {
    stores: Interned<Store>,
    clients: Interned<ClientState>,
    /// By client-state number.
    facts: Vec<Facts>,
    transitions: Vec<Transition>,
    /// The number of each transition by its key ([`ScenarioModel::transition_key`]).
    transition_ids: BTreeMap<Box<[u8]>, u32>,
    /// The end-of-setup revisions (the same in every world).
    setup_revisions: Revisions,
    /// What stands in for the other clients while a step is computed: only its outcome and
    /// wake-up time are set (they decide the tie-break draw), everything else is empty.
    stand_in: ClientState,
    /// Symmetry's tables ("Symmetric clients" in the module docs).
    #[cfg(feature = "symmetry")]
    sym: symmetry::SymTables,
}

impl Tables {
    fn new() -> Self {
        Tables {
            stores: Interned::new(),
            clients: Interned::new(),
            facts: Vec::new(),
            transitions: Vec::new(),
            transition_ids: BTreeMap::new(),
            setup_revisions: Revisions::new(),
            stand_in: ClientState {
                frames: Vec::new(),
                backoff_pending: false,
                vars: Default::default(),
                observed: Revisions::new(),
                ready_at: 0,
                attempts: 0,
                outcome: None,
                files: Default::default(),
                kubectl: None,
                terminal: None,
            },
            #[cfg(feature = "symmetry")]
            sym: symmetry::SymTables::new(),
        }
    }

    fn client(&mut self, state: ClientState) -> u32 {
        let ready_at = state.ready_at;
        let unfinished = state.outcome.is_none();
        let woken = (ready_at != 0).then(|| ClientState {
            ready_at: 0,
            ..state.clone()
        });
        let (id, new) = self.clients.intern(state);
        if new {
            self.facts.push(Facts {
                unfinished,
                ready_at,
                woken: id,
            });
            if let Some(w) = woken {
                let w = self.client(w);
                self.facts[id as usize].woken = w;
            }
        }
        id
    }
}

fn recorded<T: Hash + ?Sized>(x: &T) -> Vec<u8> {
    let mut r = Recorder::default();
    x.hash(&mut r);
    r.0
}

/// A scenario as an explorer [`Model`].
pub struct ScenarioModel {
    scenario: Scenario,
    /// Per client: an upper bound on the virtual time all its sleeps can take in one run.
    sleep_bound: Vec<u64>,
    /// The scenario may draw from the generator after setup (`create`, `apply`).
    draws_random: bool,
    /// Whether worlds are normalised beyond history (items 3 and 4 of the module docs).
    merge_more: bool,
    /// Some expectation reads a client's last kubectl output (`prints`, `exits`).
    reads_terminals: bool,
    /// The distinct stores, client states and transitions seen.
    tables: RefCell<Tables>,
    /// Recompute every reused transition on the whole world and panic on a difference.
    #[cfg(feature = "verify")]
    verify: bool,
    /// The groups of interchangeable clients (indices, sorted; each of two or more), empty
    /// without the `symmetry` feature, when symmetry is off, or when no two clients qualify
    /// (`symmetry::groups`).
    groups: Vec<Vec<u32>>,
}

/// The most virtual time the sleeps of `stmts` can take in one run.
fn max_sleep(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |acc, s| {
        let here = match &s.kind {
            StmtKind::Sleep { nanos } => *nanos,
            StmtKind::Kubectl { cmd, .. } => kubectl_max_wait(cmd),
            StmtKind::Retry { policy, body } => u64::from(policy.steps)
                .saturating_mul(max_sleep(body))
                .saturating_add(max_backoff(policy)),
            _ => 0,
        };
        acc.saturating_add(here)
    })
}

/// The most virtual time all backoff sleeps of one retry block can take (`u64::MAX` when it is
/// too large to matter): sleep `i` is at most `d·max(factor, 1)^i` (and at most `max(d, cap)`
/// with a cap), stretched by the largest jitter, plus a nanosecond for rounding.
fn max_backoff(p: &Backoff) -> u64 {
    if p.steps > 10_000 || !p.factor.is_finite() || !p.jitter.is_finite() {
        return u64::MAX;
    }
    let first = p.duration_nanos as f64;
    let cap = if p.cap_nanos > 0 {
        first.max(p.cap_nanos as f64)
    } else {
        f64::INFINITY
    };
    let grow = p.factor.abs().max(1.0);
    let stretch = 1.0 + p.jitter.max(0.0);
    let mut d = first;
    let mut total = 0.0f64;
    // A sleep needs `Steps > 1` before it and lowers it: at most `steps - 1` sleeps.
    for _ in 1..p.steps {
        total += d.min(cap) * stretch + 1.0;
        d *= grow;
    }
    if total >= u64::MAX as f64 {
        u64::MAX
    } else {
        total.ceil() as u64
    }
}

/// The most virtual time one kubectl command can wait between its requests: client-side
/// apply's conflict retries (kubectl 1.32 `pkg/cmd/apply/patcher.go`: at most `maxPatchRetry`
/// = 5 retries, each after `patchRetryBackOffPeriod` = 1 s but the first, so 4 s); the other
/// commands never wait (`kubectl::Machine` asks a wait only there).
fn kubectl_max_wait(cmd: &Command) -> u64 {
    match cmd.verb {
        Verb::Apply {
            server_side: false, ..
        } => 4 * SECOND,
        _ => 0,
    }
}

/// Whether a statement may draw from the generator (uids and generated names of objects it
/// creates): `create`, `apply`, and the kubectl commands that can create an object.
fn has_random_draws(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Create { .. } | StmtKind::Apply { .. } => true,
        StmtKind::Kubectl { cmd, .. } => matches!(
            cmd.verb,
            Verb::Apply { .. } | Verb::Create { .. } | Verb::CreateConfigMap { .. }
        ),
        StmtKind::Retry { body, .. } => has_random_draws(body),
        _ => false,
    })
}

impl ScenarioModel {
    /// The model of a scenario, with every normalisation of the module docs.
    pub fn new(scenario: &Scenario) -> Self {
        ScenarioModel {
            scenario: scenario.clone(),
            sleep_bound: scenario
                .clients
                .iter()
                .map(|c| max_sleep(&c.body))
                .collect(),
            draws_random: scenario.clients.iter().any(|c| has_random_draws(&c.body)),
            merge_more: true,
            reads_terminals: scenario
                .expectations
                .iter()
                .any(|e| matches!(e.kind, ExpectKind::Prints { .. } | ExpectKind::Exits { .. })),
            tables: RefCell::new(Tables::new()),
            #[cfg(feature = "verify")]
            verify: false,
            #[cfg(feature = "symmetry")]
            groups: symmetry::groups(scenario),
            #[cfg(not(feature = "symmetry"))]
            groups: Vec::new(),
        }
    }

    /// The model of [`ScenarioModel::new`] without symmetry reduction: the baseline the
    /// reduction is tested and measured against.
    pub fn without_symmetry(scenario: &Scenario) -> Self {
        ScenarioModel {
            groups: Vec::new(),
            ..ScenarioModel::new(scenario)
        }
    }

    /// The groups of interchangeable clients the model merges over (client indices).
    pub fn symmetry(&self) -> &[Vec<u32>] {
        &self.groups
    }

    /// The model of [`ScenarioModel::new`] that checks its transition table: every time a
    /// transition is reused, it is computed again on the whole world (no stand-ins) and must
    /// give the same store, client state, clock, generator, lost flag and letters, and leave
    /// the other clients as they were. With symmetric clients it also checks on every step
    /// that the step commutes with swapping them, and that each world is its representative
    /// permuted back. It panics otherwise. For tests: it runs every step (the `verify`
    /// feature, on by default; the page leaves it out).
    #[cfg(feature = "verify")]
    pub fn verifying(scenario: &Scenario) -> Self {
        ScenarioModel {
            verify: true,
            ..ScenarioModel::new(scenario)
        }
    }

    /// The model with only history dropped (items 1 and 2 of the module docs): the baseline
    /// that the merging of finished clients and of time is measured and tested against.
    pub fn history_only(scenario: &Scenario) -> Self {
        ScenarioModel {
            merge_more: false,
            ..ScenarioModel::new(scenario)
        }
    }

    /// The scenario explored.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The root world and the prefix (each client's leading steps that send nothing).
    pub fn root(&self, seed: u64) -> Result<(Packed, Vec<u8>), RunError> {
        let mut world = World::new(&self.scenario, seed)?;
        let mut letters = Vec::new();
        for c in 0..self.scenario.clients.len() as u32 {
            self.run_local(&mut world, c, &mut letters);
        }
        let lost = self.normalise_parts(&mut world);
        let mut t = self.tables.borrow_mut();
        t.setup_revisions = world.setup_revisions.clone();
        let mut packed = Packed {
            store: t.stores.intern(world.store).0,
            clients: world.clients.into_iter().map(|c| t.client(c)).collect(),
            clock_nanos: world.clock_nanos,
            rng: world.rng,
            lost,
        };
        self.normalise_time(&t, &mut packed);
        Ok((packed, letters))
    }

    /// The whole world a packed one stands for (history dropped: no events, no lost-update
    /// list, no write verbs; see [`Packed`] for the flag).
    pub fn world(&self, packed: &Packed) -> World {
        self.unpack(&self.tables.borrow(), packed, None)
    }

    /// The world of `packed`; with `only`, every other client is a stand-in.
    fn unpack(&self, t: &Tables, packed: &Packed, only: Option<u32>) -> World {
        let clients = packed
            .clients
            .iter()
            .enumerate()
            .map(|(i, &id)| match only {
                Some(c) if c as usize != i => {
                    let f = t.facts[id as usize];
                    ClientState {
                        ready_at: f.ready_at,
                        outcome: (!f.unfinished).then_some(ClientOutcome::Succeeded),
                        ..t.stand_in.clone()
                    }
                }
                _ => t.clients.values[id as usize].clone(),
            })
            .collect();
        World {
            store: t.stores.values[packed.store as usize].clone(),
            clients,
            clock_nanos: packed.clock_nanos,
            rng: packed.rng.clone(),
            lost_updates: Vec::new(),
            setup_revisions: t.setup_revisions.clone(),
            write_verbs: Default::default(),
        }
    }

    /// What a step of `client` from `packed` reads, as bytes: the store's number, the
    /// client's index and state number, the clock, the generator, and the other unfinished
    /// clients' ready times (`max(wake-up, clock)`; the clock only grows during a step),
    /// sorted: the default scheduler's tie-break draw, which every step takes, depends only on
    /// how many clients tie for the earliest ready time (`World::pick_default`).
    fn transition_key(&self, t: &Tables, packed: &Packed, client: u32) -> Vec<u8> {
        let mut others: Vec<u64> = packed
            .clients
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != client as usize)
            .map(|(_, &id)| t.facts[id as usize])
            .filter(|f| f.unfinished)
            .map(|f| f.ready_at.max(packed.clock_nanos))
            .collect();
        crate::sort::sort(&mut others);
        let mut key = Recorder(Vec::with_capacity(32 + 8 * others.len()));
        packed.store.hash(&mut key);
        client.hash(&mut key);
        packed.clients[client as usize].hash(&mut key);
        packed.clock_nanos.hash(&mut key);
        packed.rng.hash(&mut key);
        others.hash(&mut key);
        key.0
    }

    /// Runs a step of `client` from `packed` (with the other clients as stand-ins unless
    /// `whole`) and packs what it changes.
    fn compute(&self, t: &mut Tables, packed: &Packed, client: u32, whole: bool) -> Transition {
        let mut world = self.unpack(t, packed, (!whole).then_some(client));
        let mut letters = Vec::new();
        if world.take_step(&self.scenario, Some(client)).is_ok() {
            letters.push(b'a' + client as u8);
            self.run_local(&mut world, client, &mut letters);
        }
        let lost = self.normalise_parts(&mut world);
        if whole {
            for (i, c) in world.clients.iter().enumerate() {
                let before = &t.clients.values[packed.clients[i] as usize];
                assert!(
                    i == client as usize || recorded(c) == recorded(before),
                    "a step of client {client} changed client {i}"
                );
            }
        }
        let state = world.clients.swap_remove(client as usize);
        let old = &t.stores.values[packed.store as usize];
        // A step that writes nothing takes no revision and leaves the store as it was.
        let store = if world.store.revision() == old.revision() {
            debug_assert!(recorded(&world.store) == recorded(old));
            packed.store
        } else {
            t.stores.intern(world.store).0
        };
        Transition {
            store,
            client: t.client(state),
            clock_nanos: world.clock_nanos,
            rng: world.rng,
            lost,
            letters: letters.into(),
        }
    }

    /// Runs `client`'s steps that send nothing, up to its next request or its end.
    fn run_local(&self, world: &mut World, client: u32, letters: &mut Vec<u8>) {
        while world
            .clients
            .get(client as usize)
            .is_some_and(|c| c.outcome.is_none())
            && !world.next_sends_request(&self.scenario, client)
        {
            if world.take_step(&self.scenario, Some(client)).is_err() {
                return;
            }
            letters.push(b'a' + client as u8);
        }
    }

    /// Items 1–3 of the module docs on a whole world; returns whether an update was lost
    /// (item 2: the list becomes a flag).
    fn normalise_parts(&self, w: &mut World) -> bool {
        let lost = !w.lost_updates.is_empty();
        w.lost_updates.clear();
        w.write_verbs.clear();
        w.store.clear_events();
        if !self.merge_more {
            return lost;
        }
        for c in &mut w.clients {
            c.attempts = 0;
            if !self.reads_terminals {
                c.terminal = None;
            }
            if c.outcome.is_some() {
                c.vars.clear();
                c.observed.clear();
                c.frames.clear();
                c.backoff_pending = false;
                c.ready_at = 0;
                c.files.clear();
                c.kubectl = None;
            }
        }
        lost
    }

    /// Item 4 of the module docs, on a packed world.
    fn normalise_time(&self, t: &Tables, w: &mut Packed) {
        if !self.merge_more {
            return;
        }
        let mut latest = w.clock_nanos;
        let mut sleeps = 0u64;
        for (id, bound) in w.clients.iter().zip(&self.sleep_bound) {
            let f = t.facts[*id as usize];
            if f.unfinished {
                latest = latest.max(f.ready_at);
                sleeps = sleeps.saturating_add(*bound);
            }
        }
        let last = latest.saturating_add(sleeps);
        if last < u64::MAX && last / SECOND == w.clock_nanos / SECOND {
            w.clock_nanos = w.clock_nanos / SECOND * SECOND;
            for id in w.clients.iter_mut() {
                *id = t.facts[*id as usize].woken;
            }
            if !self.draws_random {
                w.rng = Rng::new(0);
            }
        }
    }

    /// The outcome class of a finished world: its key and its one-line summary.
    pub fn outcome(&self, world: &World, lost: bool) -> (String, String) {
        let mut key = Vec::new();
        let mut parts = Vec::new();
        for (r, obj) in world.store.objects() {
            let stable = without_volatile(obj);
            parts.push(describe_object(
                &r.to_string(),
                obj,
                world.store.provenance(r),
            ));
            key.push(Value::Array(vec![r.to_string().into(), stable]));
        }
        for o in &self.scenario.objects {
            if world.store.get(&o.target).is_none() {
                parts.push(format!("{} deleted", o.target));
            }
        }
        let mut clients = Vec::new();
        for (spec, c) in self.scenario.clients.iter().zip(&world.clients) {
            let o = match &c.outcome {
                Some(ClientOutcome::Succeeded) => "succeeded".to_string(),
                Some(ClientOutcome::Failed(f)) => format!("failed ({})", f.label()),
                None => "did not finish".to_string(),
            };
            key.push(Value::Array(vec![
                spec.name.clone().into(),
                o.clone().into(),
            ]));
            clients.push(format!("{} {o}", spec.name));
        }
        key.push(lost.into());
        let mut summary = parts.join(", ");
        if !clients.is_empty() {
            if !summary.is_empty() {
                summary.push_str("; ");
            }
            summary.push_str(&clients.join(", "));
        }
        if lost {
            summary.push_str("; an update was lost");
        }
        (Value::Array(key).to_string(), summary)
    }
}

/// An object without the metadata that differs only by timing or by the generator.
fn without_volatile(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("creationTimestamp");
        meta.remove("uid");
        if let Some(Value::Array(mf)) = meta.get_mut("managedFields") {
            for e in mf {
                if let Some(e) = e.as_object_mut() {
                    e.remove("time");
                }
            }
        }
    }
    v
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn leaves(v: &Value, path: &mut String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let len = path.len();
                if is_identifier(k) {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                } else {
                    let _ = write!(path, "[{}]", Value::String(k.clone()));
                }
                leaves(x, path, out);
                path.truncate(len);
            }
        }
        other => out.push((path.clone(), other.to_string())),
    }
}

/// `configmap/counter data.count="2" by bob rv 103`: the content fields (not metadata or
/// status), at most six of them, each with the client that wrote it, and the resourceVersion.
fn describe_object(
    name: &str,
    obj: &Value,
    provenance: Option<&[(String, crate::store::Provenance)]>,
) -> String {
    let mut fields = Vec::new();
    if let Value::Object(m) = obj {
        let content: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "status"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        leaves(&Value::Object(content), &mut String::new(), &mut fields);
    }
    fields.retain(|(path, _)| !path.is_empty());
    let more = fields.len().saturating_sub(6);
    fields.truncate(6);
    let mut fields: Vec<String> = fields
        .into_iter()
        .map(|(path, value)| {
            match provenance
                .and_then(|p| p.iter().find(|p| p.0 == path))
                .map(|p| p.1.writer.as_str())
            {
                Some(w) if w != crate::engine::SETUP_ACTOR => format!("{path}={value} by {w}"),
                _ => format!("{path}={value}"),
            }
        })
        .collect();
    if more > 0 {
        fields.push(format!("(+{more} more)"));
    }
    let rv = obj["metadata"]["resourceVersion"].as_str().unwrap_or("?");
    let mut s = name.to_string();
    for f in fields {
        s.push(' ');
        s.push_str(&f);
    }
    let _ = write!(s, " rv {rv}");
    s
}

impl Model for ScenarioModel {
    type World = Packed;
    const SYMMETRIC: bool = cfg!(feature = "symmetry");

    fn choices(&self, w: &Packed) -> Vec<u32> {
        let t = self.tables.borrow();
        (0..w.clients.len() as u32)
            .filter(|&c| t.facts[w.clients[c as usize] as usize].unfinished)
            .collect()
    }

    /// Looks the transition up in the table by what it reads, or computes it once. The
    /// verifying model also checks that the step commutes with the symmetry: the step of the
    /// swapped client from the swapped world is the swapped step.
    fn advance(&self, w: &Packed, client: u32) -> (Packed, Vec<u8>) {
        let (next, letters) = self.step(w, client);
        #[cfg(all(feature = "verify", feature = "symmetry"))]
        if self.verify {
            self.check_commutes(w, client, &next, &letters);
        }
        (next, letters)
    }

    fn evaluate(&self, w: &Packed) -> Evaluation {
        let world = self.world(w);
        let results = check_expectations(&self.scenario, &world);
        let violated = self
            .scenario
            .expectations
            .iter()
            .zip(&results)
            .map(|(e, r)| match e.kind {
                ExpectKind::NoLostUpdates => w.lost,
                _ => !r.holds,
            })
            .collect();
        let (outcome_key, outcome_summary) = self.outcome(&world, w.lost);
        Evaluation {
            violated,
            outcome_key,
            outcome_summary,
        }
    }

    #[cfg(feature = "symmetry")]
    fn canonical(&self, w: Packed) -> (Packed, Option<Box<[u8]>>) {
        self.representative(w)
    }

    #[cfg(feature = "symmetry")]
    fn permute(&self, w: &Packed, perm: &[u8]) -> Packed {
        self.apply(&mut self.tables.borrow_mut(), w, perm)
    }
}

impl ScenarioModel {
    /// A step of `client` from `w`, through the transition table.
    fn step(&self, w: &Packed, client: u32) -> (Packed, Vec<u8>) {
        let mut t = self.tables.borrow_mut();
        let key = self.transition_key(&t, w, client);
        let id = match t.transition_ids.get(key.as_slice()) {
            Some(&id) => {
                #[cfg(feature = "verify")]
                if self.verify {
                    self.check(&mut t, w, client, id);
                }
                id
            }
            None => {
                let tr = self.compute(&mut t, w, client, false);
                let id = t.transitions.len() as u32;
                t.transitions.push(tr);
                t.transition_ids.insert(key.into(), id);
                id
            }
        };
        let tr = &t.transitions[id as usize];
        let mut next = w.clone();
        next.store = tr.store;
        next.clients[client as usize] = tr.client;
        next.clock_nanos = tr.clock_nanos;
        next.rng = tr.rng.clone();
        next.lost |= tr.lost;
        let letters = tr.letters.to_vec();
        self.normalise_time(&t, &mut next);
        (next, letters)
    }
}

#[cfg(feature = "verify")]
impl ScenarioModel {
    /// [`ScenarioModel::verifying`]: the reused transition `id` equals the step on the whole
    /// world.
    fn check(&self, t: &mut Tables, w: &Packed, client: u32, id: u32) {
        let fresh = self.compute(t, w, client, true);
        let kept = &t.transitions[id as usize];
        assert!(
            (
                fresh.store,
                fresh.client,
                fresh.clock_nanos,
                &fresh.rng,
                fresh.lost,
                &fresh.letters
            ) == (
                kept.store,
                kept.client,
                kept.clock_nanos,
                &kept.rng,
                kept.lost,
                &kept.letters
            ),
            "a reused transition of client {client} differs from its step"
        );
    }
}

/// One expectation over every schedule explored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectationReport {
    /// The text after `expect`, as written.
    pub text: String,
    pub line: u32,
    /// How many schedules violate it.
    pub violations: Count,
    /// The shortest violating schedule, as a full token (`None` when none violates it).
    pub counterexample: Option<String>,
}

/// One outcome class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeReport {
    /// How many schedules end this way.
    pub count: Count,
    /// The shortest schedule that ends this way, as a full token.
    pub example: String,
    /// `configmap/counter data.count="2" rv 103; alice succeeded, bob failed (409 Conflict)`.
    pub summary: String,
    /// The class key (stable JSON of the final objects and outcomes; not shown).
    pub key: String,
}

/// What exploring a scenario found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExploreReport {
    /// Complete request orders covered (each counted once; exact at any size).
    pub schedules: Count,
    /// Distinct (normalised) worlds visited.
    pub states: u64,
    /// True only when every schedule was covered.
    pub complete: bool,
    /// The bound that stopped the search (`max_schedules`, `max_states`, `max_depth`) or
    /// `cancelled`.
    pub stopped_by: Option<&'static str>,
    pub bounds: Bounds,
    /// The seed of the generator (jitter, uids).
    pub seed: u64,
    /// The steps before the first choice, as a token.
    pub prefix: String,
    /// One entry per `expect`, in order.
    pub expectations: Vec<ExpectationReport>,
    /// The outcome classes, most frequent first.
    pub outcomes: Vec<OutcomeReport>,
    /// The groups of clients merged up to swapping them (symmetry reduction, the `symmetry`
    /// feature: same program, never named by an expectation). `states` then counts worlds up
    /// to swapping the clients of each group; the counts, violations, outcome classes and
    /// tokens are the same as without it (tokens may pick another of equally short ones).
    pub symmetric: Vec<Vec<String>>,
}

/// The version of the explorer report's JSON form.
pub const REPORT_VERSION: u32 = 1;

impl ExploreReport {
    fn from_report(model: &ScenarioModel, seed: u64, bounds: Bounds, r: Report) -> Self {
        let scenario = model.scenario();
        let token = |tail: &[u8]| compress(&[r.prefix.as_slice(), tail].concat());
        let expectations = scenario
            .expectations
            .iter()
            .enumerate()
            .map(|(i, e)| ExpectationReport {
                text: e.text.clone(),
                line: e.span.line,
                violations: r.summary.violations.get(i).cloned().unwrap_or_default(),
                counterexample: r
                    .summary
                    .counterexamples
                    .get(i)
                    .and_then(|c| c.as_deref())
                    .map(token),
            })
            .collect();
        let mut outcomes: Vec<OutcomeReport> = r
            .summary
            .outcomes
            .iter()
            .map(|(id, (count, example))| {
                let (key, summary) = r.classes.get(*id as usize).cloned().unwrap_or_default();
                OutcomeReport {
                    count: count.clone(),
                    example: token(example),
                    summary,
                    key,
                }
            })
            .collect();
        // Most frequent first; ties in the order of their keys (deterministic).
        crate::sort::sort_by(&mut outcomes, |a, b| {
            b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key))
        });
        ExploreReport {
            schedules: r.schedules,
            states: r.states,
            complete: r.complete,
            stopped_by: r.stopped_by,
            bounds,
            seed,
            prefix: compress(&r.prefix),
            expectations,
            outcomes,
            symmetric: model
                .symmetry()
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|&c| scenario.clients[c as usize].name.clone())
                        .collect()
                })
                .collect(),
        }
    }

    /// Whether some explored schedule violates some expectation.
    pub fn any_violation(&self) -> bool {
        self.expectations.iter().any(|e| !e.violations.is_zero())
    }

    /// The report as JSON (docs/json-trace.md, "Explorer report").
    pub fn to_json(&self) -> Value {
        // Built by hand: `json!` serialises each field through serde (docs/size.md).
        object(vec![
            ("version", REPORT_VERSION.into()),
            ("schedules", self.schedules.to_json()),
            ("states", self.states.into()),
            ("complete", self.complete.into()),
            ("stopped_by", self.stopped_by.into()),
            (
                "bounds",
                object(vec![
                    (
                        "max_schedules",
                        (self.bounds.max_schedules < u64::MAX)
                            .then_some(self.bounds.max_schedules)
                            .into(),
                    ),
                    ("max_states", self.bounds.max_states.into()),
                    ("max_depth", self.bounds.max_depth.into()),
                ]),
            ),
            ("seed", self.seed.into()),
            ("prefix", self.prefix.clone().into()),
            (
                "expectations",
                Value::Array(
                    self.expectations
                        .iter()
                        .map(|e| {
                            object(vec![
                                ("text", e.text.clone().into()),
                                ("line", e.line.into()),
                                ("violations", e.violations.to_json()),
                                ("counterexample", e.counterexample.clone().into()),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "outcomes",
                Value::Array(
                    self.outcomes
                        .iter()
                        .map(|o| {
                            object(vec![
                                ("count", o.count.to_json()),
                                ("example", o.example.clone().into()),
                                ("summary", o.summary.clone().into()),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "symmetric",
                Value::Array(
                    self.symmetric
                        .iter()
                        .map(|g| Value::Array(g.iter().map(|n| n.clone().into()).collect()))
                        .collect(),
                ),
            ),
        ])
    }

    /// The report for people, e.g.
    /// "4 of 6 schedules violate `all clients succeed`; shortest counterexample: abab".
    pub fn text(&self) -> String {
        let mut s = String::new();
        let plural = |n: &Count, one: &str, many: &str| {
            if *n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        let mut swapped = String::new();
        for (i, g) in self.symmetric.iter().enumerate() {
            swapped.push_str(if i == 0 {
                " up to swapping "
            } else {
                ", and swapping "
            });
            for (j, name) in g.iter().enumerate() {
                if j > 0 {
                    swapped.push_str(if j + 1 == g.len() { " and " } else { ", " });
                }
                swapped.push_str(name);
            }
        }
        let _ = writeln!(
            s,
            "explored {} ({} distinct states{swapped}){}",
            plural(&self.schedules, "schedule", "schedules"),
            self.states,
            if self.complete { ", complete" } else { "" }
        );
        if !self.complete {
            let (bound, value) = match self.stopped_by {
                Some("max_schedules") => ("--max-schedules", self.bounds.max_schedules),
                Some("max_states") => ("--max-states", self.bounds.max_states),
                Some("max_depth") => ("the depth limit", u64::from(self.bounds.max_depth)),
                _ => ("cancellation", 0),
            };
            let limit = if value > 0 {
                format!(" ({value})")
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "INCOMPLETE: stopped by {bound}{limit}; the counts below cover only the schedules explored"
            );
        }
        for e in &self.expectations {
            match &e.counterexample {
                Some(c) => {
                    let _ = writeln!(
                        s,
                        "{} of {} violate `{}`; shortest counterexample: {c}",
                        e.violations,
                        plural(&self.schedules, "schedule", "schedules"),
                        e.text
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        "0 of {} violate `{}`",
                        plural(&self.schedules, "schedule", "schedules"),
                        e.text
                    );
                }
            }
        }
        let _ = writeln!(
            s,
            "{}:",
            plural(
                &Count::from(self.outcomes.len() as u64),
                "outcome",
                "outcomes"
            )
        );
        for o in &self.outcomes {
            let _ = writeln!(
                s,
                "  {}: {} (e.g. {})",
                plural(&o.count, "schedule", "schedules"),
                o.summary,
                if o.example.is_empty() {
                    "the empty schedule"
                } else {
                    &o.example
                }
            );
        }
        s
    }
}

/// The explorer of one scenario, run in slices (the page's Web Worker calls [`Self::run`]
/// with a budget, reports [`Progress`], and stops calling it to cancel).
pub struct ScenarioExplorer {
    explorer: Explorer<ScenarioModel>,
    seed: u64,
    bounds: Bounds,
}

impl ScenarioExplorer {
    /// Starts exploring `scenario` with generator seed `seed`. Fails when setup fails.
    pub fn new(scenario: &Scenario, seed: u64, bounds: Bounds) -> Result<Self, RunError> {
        Self::with_model(ScenarioModel::new(scenario), seed, bounds)
    }

    /// Starts exploring with a given model (e.g. [`ScenarioModel::history_only`]).
    pub fn with_model(model: ScenarioModel, seed: u64, bounds: Bounds) -> Result<Self, RunError> {
        let (root, prefix) = model.root(seed)?;
        let n = model.scenario.expectations.len();
        Ok(ScenarioExplorer {
            explorer: Explorer::new(model, root, prefix, n, bounds),
            seed,
            bounds,
        })
    }

    /// Does at most `budget` transitions of work.
    pub fn run(&mut self, budget: u64) -> Progress {
        self.explorer.run(budget)
    }

    /// Where the search stands.
    pub fn progress(&self) -> Progress {
        self.explorer.progress()
    }

    /// Stops the search; the next [`Self::run`] ends it with `stopped_by: "cancelled"`.
    pub fn cancel(&mut self) {
        self.explorer.cancel();
    }

    /// The report, once the search is done.
    pub fn report(&self) -> Option<ExploreReport> {
        let r = self.explorer.report_if_done()?;
        Some(ExploreReport::from_report(
            self.explorer.model(),
            self.seed,
            self.bounds,
            r,
        ))
    }

    /// Runs to the end and returns the report.
    pub fn finish(mut self) -> ExploreReport {
        let r = self.explorer.finish_mut();
        ExploreReport::from_report(self.explorer.model(), self.seed, self.bounds, r)
    }
}

/// Explores a scenario completely (within `bounds`).
pub fn explore(scenario: &Scenario, seed: u64, bounds: Bounds) -> Result<ExploreReport, RunError> {
    Ok(ScenarioExplorer::new(scenario, seed, bounds)?.finish())
}
