//! The simulation engine: a [`World`] is the whole state of a run as a value (the store, every
//! client's position, variables and retry state, the virtual clock, the one generator, the lost
//! updates so far), and [`World::step`] runs one statement of one client.
//!
//! Semantics (scenario-language.md §4, §6, §7; kubernetes-semantics.md §4):
//! - a step runs one statement; a local edit, a `sleep` and a backoff sleep between two
//!   attempts are steps of their own; entering or leaving a `retry` block is not a step;
//! - `retry on conflict` is client-go's `RetryOnConflict` = `OnError(backoff, IsConflict, fn)`
//!   over `wait.ExponentialBackoff`, reproduced to the nanosecond ([`backoff_delay`]);
//! - a non-2xx response outside the rules of retry stops the client with that Status; a runtime
//!   error (a missing path, adding a string to an object) stops it with reason `RuntimeError`.
//!
//! The world holds no trace: [`World::step`] returns a [`StepRecord`] for the caller to keep,
//! so two worlds reached by different schedules compare equal when their states are equal.

pub mod expr;
mod narrate;

use crate::json::HValue;
use crate::lang::ast::{Backoff, PatchType, Scenario, SetupBody, Stmt, StmtKind};
use crate::rng::Rng;
use crate::store::{
    Actor, Env, LostUpdate, Method, ObjectRef, Outcome, Request, Resource, Response, Store,
};
use crate::vecmap::VecMap;
use serde_json::{Map, Value};
use std::fmt;

pub use narrate::{fmt_duration, lost_sentence, verb_noun};

/// At most this many steps in one run (a run that reaches it stops and says so).
pub const MAX_STEPS: u32 = 10_000;
/// At most this many clients (one schedule letter each, `a`–`z`).
pub const MAX_CLIENTS: u32 = 26;
/// The fieldManager setup objects are created with (as `kubectl create` does).
pub const SETUP_MANAGER: &str = "kubectl-create";
/// The actor name setup writes are recorded under.
pub const SETUP_ACTOR: &str = "setup";
/// The reason of a client stopped by a runtime error of its script.
pub const RUNTIME_ERROR: &str = "RuntimeError";

/// Why a run could not start or go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A setup object could not be created.
    #[error("line {line}: setting up {object} failed: {message}")]
    Setup {
        object: String,
        line: u32,
        message: String,
    },
    /// Too many clients for schedule letters.
    #[error(
        "a scenario has at most {MAX_CLIENTS} clients (one schedule letter each), this one has {0}"
    )]
    TooManyClients(u32),
    /// The schedule token is malformed.
    #[error("schedule: {0}")]
    Token(#[from] crate::schedule::TokenError),
    /// A step of the schedule token cannot be taken.
    #[error("schedule step {step}: {error}")]
    Schedule { step: u32, error: ScheduleError },
}

/// Why a client cannot take the next step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// There is no client with this index.
    #[error("there is no client {}", crate::schedule::letter(*.0))]
    UnknownClient(u32),
    /// The client has already finished.
    #[error("client {} ({name}) has already finished", crate::schedule::letter(*client))]
    Finished { client: u32, name: String },
}

/// What a client's run came to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClientOutcome {
    Succeeded,
    Failed(Failure),
}

/// Why a client stopped: an error Status, or a runtime error of its script.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Failure {
    /// The Status reason (`Conflict`, `AlreadyExists`, `NotFound`, `Invalid`, …, possibly
    /// empty), or [`RUNTIME_ERROR`].
    pub reason: String,
    pub message: String,
    /// The HTTP code, when a response caused it.
    pub code: Option<u16>,
    /// The Status body, exactly as the server sent it.
    pub status: Option<HValue>,
}

impl Failure {
    fn runtime(message: String) -> Self {
        Failure {
            reason: RUNTIME_ERROR.into(),
            message,
            code: None,
            status: None,
        }
    }

    fn from_response(r: &Response) -> Self {
        let reason = r.body["reason"].as_str().unwrap_or("").to_string();
        let message = r.body["message"].as_str().unwrap_or("").to_string();
        Failure {
            reason,
            message,
            code: Some(r.code),
            status: Some(HValue(r.body.clone())),
        }
    }

    /// client-go's `errors.IsConflict`: reason `Conflict`, or a 409 whose reason is not a known
    /// one (so `AlreadyExists` is *not* a conflict).
    pub fn is_conflict(&self) -> bool {
        crate::store::is_conflict_reason(&self.reason, self.code.unwrap_or(0))
    }

    /// `409 Conflict`, `RuntimeError`.
    pub fn label(&self) -> String {
        match self.code {
            Some(c) if self.reason.is_empty() => format!("{c}"),
            Some(c) => format!("{c} {}", self.reason),
            None => self.reason.clone(),
        }
    }
}

/// An object a variable holds, as it came from the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Held {
    pub object: ObjectRef,
    /// The resourceVersion of the response it came from (§6: local edits, even of
    /// `metadata.resourceVersion`, do not change it).
    pub base: u64,
}

/// A client variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Var {
    pub value: HValue,
    /// Set when the value is (a copy of) an object a response returned.
    pub held: Option<Held>,
}

/// The state of one `retry on conflict` block being run: apimachinery's `wait.Backoff` as
/// `ExponentialBackoff` mutates it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RetryState {
    /// The attempt being run, from 1.
    pub attempt: u32,
    /// `Backoff.Duration`: the next sleep before jitter, in nanoseconds.
    pub duration_nanos: u64,
    /// `Backoff.Steps`: attempts left including the current one.
    pub steps: u32,
    /// The last conflict an attempt ended with.
    pub last_error: Option<Failure>,
}

/// One level of a client's position: the index of the next statement in a block.
/// Frame 0 is the client's body; frame `i > 0` is the body of the `retry` statement at
/// `frames[i - 1].index`, with its retry state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    pub index: u32,
    pub retry: Option<RetryState>,
}

/// Everything about one client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientState {
    /// Where the client is (see [`Frame`]); normalized so that it always points at a simple
    /// statement while the client runs.
    pub frames: Vec<Frame>,
    /// The next step is the backoff sleep of the innermost retry block.
    pub backoff_pending: bool,
    pub vars: Vars,
    /// The latest revision of each object this client has observed in a response.
    pub observed: Revisions,
    /// Virtual nanoseconds at which the client may run again.
    pub ready_at: u64,
    /// The largest attempt number any of its retry blocks reached (1 without retries).
    pub attempts: u32,
    /// Set once the client has finished.
    pub outcome: Option<ClientOutcome>,
}

/// Which write made a revision (for narration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verb {
    Setup,
    Get,
    Create,
    Update,
    MergePatch,
    JsonPatch,
    StrategicPatch,
    Apply,
    Delete,
}

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// It sent a request.
    Request,
    /// A local edit or binding: nothing sent.
    Local,
    /// `sleep`.
    Sleep,
    /// The backoff sleep between two attempts.
    Backoff,
    /// A runtime error stopped the client before anything was sent.
    Error,
}

/// How the timeline marks a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Ok,
    Conflict,
    Invalid,
    NotFound,
    LostUpdate,
    OtherError,
    Local,
    Sleep,
}

impl Mark {
    /// `ok`, `conflict`, `invalid`, `notfound`, `lost-update`, `other-error`, `local`, `sleep`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Ok => "ok",
            Mark::Conflict => "conflict",
            Mark::Invalid => "invalid",
            Mark::NotFound => "notfound",
            Mark::LostUpdate => "lost-update",
            Mark::OtherError => "other-error",
            Mark::Local => "local",
            Mark::Sleep => "sleep",
        }
    }
}

/// What one step did, for the timeline, the narration and the trace (kept outside the world).
#[derive(Debug, Clone, PartialEq)]
pub struct StepRecord {
    pub client: u32,
    /// The statement's line (for a backoff sleep: the `retry` line).
    pub line: u32,
    /// The statement's text (for a backoff sleep: `backoff sleep (DefaultRetry)`).
    pub statement: String,
    /// The virtual clock when the step ran, in nanoseconds.
    pub clock_nanos: u64,
    pub action: Action,
    pub verb: Option<Verb>,
    pub target: Option<ObjectRef>,
    pub request: Option<Request>,
    pub response: Option<Response>,
    /// The revision the request wrote, if it changed the store.
    pub revision: Option<u64>,
    pub lost_updates: Vec<LostUpdate>,
    pub narration: String,
    pub mark: Mark,
    /// For a sleep: how long.
    pub sleep_nanos: Option<u64>,
    /// Set when the client finished with this step.
    pub finished: Option<ClientOutcome>,
}

/// A client's variables by name (a [`VecMap`] rather than one more `BTreeMap` type in the page:
/// docs/size.md).
pub type Vars = VecMap<String, Var>;

/// A revision per object (a [`VecMap`] rather than one more `BTreeMap` type in the page:
/// docs/size.md).
pub type Revisions = VecMap<ObjectRef, u64>;

fn revision_in(revisions: &Revisions, target: &ObjectRef) -> Option<u64> {
    revisions.get(target).copied()
}

fn set_revision(revisions: &mut Revisions, target: &ObjectRef, revision: u64) {
    revisions.set(target, revision);
}

/// The state of a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct World {
    pub store: Store,
    pub clients: Vec<ClientState>,
    /// Virtual nanoseconds since the run's start (Go `time.Duration`).
    pub clock_nanos: u64,
    pub rng: Rng,
    /// Every lost update accepted so far, in order.
    pub lost_updates: Vec<LostUpdate>,
    /// Each setup object's revision at the end of setup (every client's starting knowledge).
    pub setup_revisions: Revisions,
    /// Which kind of write made each client-written revision; read it with
    /// [`World::write_verb`].
    pub write_verbs: VecMap<u64, Verb>,
}

/// Go's `Jitter(d, maxFactor)`: `d + time.Duration(rand.Float64()*maxFactor*float64(d))`.
pub fn jitter(duration_nanos: u64, max_factor: f64, rng: &mut Rng) -> u64 {
    let f = if max_factor <= 0.0 { 1.0 } else { max_factor };
    let extra = rng.next_f64() * f * duration_nanos as f64;
    duration_nanos.saturating_add(extra as u64)
}

/// apimachinery's `delay()` (what `Backoff.Step()` does): returns the sleep and the new
/// `(Duration, Steps)`.
pub fn backoff_delay(
    policy: &Backoff,
    duration: u64,
    steps: u32,
    rng: &mut Rng,
) -> (u64, u64, u32) {
    if steps < 1 {
        let d = if policy.jitter > 0.0 {
            jitter(duration, policy.jitter, rng)
        } else {
            duration
        };
        return (d, duration, 0);
    }
    let mut steps = steps - 1;
    let next = if policy.factor != 0.0 {
        let mut n = (duration as f64 * policy.factor) as u64;
        if policy.cap_nanos > 0 && n > policy.cap_nanos {
            n = policy.cap_nanos;
            steps = 0;
        }
        n
    } else {
        duration
    };
    let sleep = if policy.jitter > 0.0 {
        jitter(duration, policy.jitter, rng)
    } else {
        duration
    };
    (sleep, next, steps)
}

/// The block a frame at `depth` iterates, and the retry policy around it.
fn block_at<'s>(
    body: &'s [Stmt],
    frames: &[Frame],
    depth: usize,
) -> Option<(&'s [Stmt], Option<&'s Backoff>)> {
    let mut block = body;
    let mut policy = None;
    for f in frames.iter().take(depth) {
        match &block.get(f.index as usize)?.kind {
            StmtKind::Retry { policy: p, body } => {
                block = body;
                policy = Some(p);
            }
            _ => return None,
        }
    }
    Some((block, policy))
}

/// Fills `apiVersion`, `kind`, `metadata.name` and `metadata.namespace` from a reference, in
/// that order at the front of the object.
fn with_identity(target: &ObjectRef, body: Value) -> Result<Value, String> {
    let Value::Object(fields) = body else {
        return Err(format!(
            "the body for {target} must be an object, not {}",
            expr::type_name(&body)
        ));
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), target.resource.api_version().into());
    out.insert("kind".into(), target.resource.kind().into());
    let mut meta = match fields.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut m2 = Map::new();
    m2.insert("name".into(), target.name.clone().into());
    m2.insert("namespace".into(), target.namespace.clone().into());
    for (k, v) in std::mem::take(&mut meta) {
        if k != "name" && k != "namespace" {
            m2.insert(k, v);
        }
    }
    out.insert("metadata".into(), Value::Object(m2));
    for (k, v) in fields {
        if k != "apiVersion" && k != "kind" && k != "metadata" {
            out.insert(k, v);
        }
    }
    Ok(Value::Object(out))
}

/// The revision in an object body's `metadata.resourceVersion`.
fn body_revision(v: &Value) -> Option<u64> {
    v.get("metadata")?
        .get("resourceVersion")?
        .as_str()?
        .parse()
        .ok()
}

/// The resource a body's `apiVersion`/`kind` names.
fn resource_of(body: &Value) -> Option<Resource> {
    let api = body.get("apiVersion")?.as_str()?;
    let kind = body.get("kind")?.as_str()?;
    match (api, kind) {
        ("v1", "ConfigMap") => Some(Resource::ConfigMap),
        ("apps/v1", "Deployment") => Some(Resource::Deployment),
        (api, kind) => {
            let group = api.strip_suffix("/v1")?;
            // A CRD's kind lowercases to a DNS-1035 label, so it is ASCII; a body with any
            // other kind names no resource (and `to_lowercase` would link 20 kB of Unicode
            // case tables into the page: docs/size.md).
            if !kind.is_ascii() {
                return None;
            }
            let lower = kind.to_ascii_lowercase();
            let plural = if let Some(s) = lower.strip_suffix('y') {
                format!("{s}ies")
            } else {
                format!("{lower}s")
            };
            Some(Resource::Custom {
                plural,
                group: group.to_string(),
            })
        }
    }
}

fn query(path: String, manager: &str, force: bool) -> String {
    let mut p = format!("{path}?fieldManager={manager}");
    if force {
        p.push_str("&force=true");
    }
    p
}

impl World {
    /// Builds the starting world: the store with the setup objects created in order (as
    /// `POST ?fieldManager=kubectl-create` by `setup`), every client at its first statement.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<World, RunError> {
        let n = u32::try_from(scenario.clients.len()).unwrap_or(u32::MAX);
        if n > MAX_CLIENTS {
            return Err(RunError::TooManyClients(n));
        }
        let mut world = World {
            store: Store::new(),
            clients: Vec::new(),
            clock_nanos: 0,
            rng: Rng::new(seed),
            lost_updates: Vec::new(),
            setup_revisions: Revisions::new(),
            write_verbs: VecMap::new(),
        };
        let no_vars = Vars::default();
        for obj in &scenario.objects {
            let fail = |message: String| RunError::Setup {
                object: obj.target.to_string(),
                line: obj.span.line,
                message,
            };
            let body = match &obj.body {
                SetupBody::Literal(e) => expr::eval(e, &no_vars).map_err(fail)?,
                SetupBody::Fields(fields) => {
                    let mut v = Value::Object(Map::new());
                    for (path, e) in fields {
                        let val = expr::eval(e, &no_vars).map_err(fail)?;
                        expr::write_path(&mut v, "object", path, val).map_err(fail)?;
                    }
                    v
                }
            };
            let body = with_identity(&obj.target, body).map_err(fail)?;
            if let Some(rv) = obj.at_revision {
                world.store.advance_to(rv).map_err(fail)?;
            }
            let req = Request {
                method: Method::Post,
                path: query(obj.target.collection_path(), SETUP_MANAGER, false),
                content_type: Some("application/json".into()),
                body: Some(body),
            };
            let actor = Actor {
                name: SETUP_ACTOR.into(),
                base_revision: 0,
            };
            let mut env = Env {
                now_ms: 0,
                rng: &mut world.rng,
            };
            let out = world.store.handle(&req, &actor, &mut env);
            if !(200..300).contains(&out.response.code) {
                let f = Failure::from_response(&out.response);
                return Err(fail(format!("{}: {}", f.label(), f.message)));
            }
            if let Some(r) = out.revision.or_else(|| body_revision(&out.response.body)) {
                set_revision(&mut world.setup_revisions, &obj.target, r);
                world.record_write(r, Verb::Setup);
            }
        }
        for _ in &scenario.clients {
            world.clients.push(ClientState {
                frames: vec![Frame {
                    index: 0,
                    retry: None,
                }],
                backoff_pending: false,
                vars: Vars::default(),
                observed: Revisions::new(),
                ready_at: 0,
                attempts: 1,
                outcome: None,
            });
        }
        for c in 0..n {
            world.normalize(scenario, c);
        }
        Ok(world)
    }

    /// Clients that have not finished, in letter order.
    pub fn unfinished(&self) -> Vec<u32> {
        (0..self.clients.len() as u32)
            .filter(|&c| self.clients[c as usize].outcome.is_none())
            .collect()
    }

    /// Whether every client has finished.
    pub fn is_finished(&self) -> bool {
        self.clients.iter().all(|c| c.outcome.is_some())
    }

    /// The statement the client runs next (`None` when it has finished or its next step is a
    /// backoff sleep).
    pub fn next_statement<'s>(&self, scenario: &'s Scenario, client: u32) -> Option<&'s Stmt> {
        let c = self.clients.get(client as usize)?;
        if c.outcome.is_some() || c.backoff_pending {
            return None;
        }
        let body = &scenario.clients.get(client as usize)?.body;
        let depth = c.frames.len().checked_sub(1)?;
        let (block, _) = block_at(body, &c.frames, depth)?;
        block.get(c.frames[depth].index as usize)
    }

    /// The retry policy and state of the innermost retry block the client is in.
    pub fn current_retry<'s>(
        &self,
        scenario: &'s Scenario,
        client: u32,
    ) -> Option<(&'s Backoff, &RetryState)> {
        let c = self.clients.get(client as usize)?;
        let body = &scenario.clients.get(client as usize)?.body;
        let depth = c.frames.len().checked_sub(1)?;
        let (_, policy) = block_at(body, &c.frames, depth)?;
        Some((policy?, c.frames[depth].retry.as_ref()?))
    }

    /// Whether the client's next step sends a request (the explorer merges other steps into
    /// the request steps: they never create a choice).
    pub fn next_sends_request(&self, scenario: &Scenario, client: u32) -> bool {
        matches!(
            self.next_statement(scenario, client).map(|s| &s.kind),
            Some(
                StmtKind::Get { .. }
                    | StmtKind::Update { .. }
                    | StmtKind::Create { .. }
                    | StmtKind::Patch { .. }
                    | StmtKind::Apply { .. }
                    | StmtKind::Delete { .. }
            )
        )
    }

    /// When the client may run next: its wake-up time, or now if it is ready.
    pub fn ready_time(&self, client: u32) -> u64 {
        self.clients
            .get(client as usize)
            .map_or(u64::MAX, |c| c.ready_at.max(self.clock_nanos))
    }

    /// The default scheduler's choice: the unfinished client with the earliest ready time,
    /// ties broken by the world's generator (drawn only when there is a tie).
    pub fn pick_default(&mut self) -> Option<u32> {
        let unfinished = self.unfinished();
        let earliest = unfinished.iter().map(|&c| self.ready_time(c)).min()?;
        let tied: Vec<u32> = unfinished
            .into_iter()
            .filter(|&c| self.ready_time(c) == earliest)
            .collect();
        match tied.len() {
            0 => None,
            1 => Some(tied[0]),
            n => Some(tied[self.rng.below(n as u32) as usize]),
        }
    }

    /// Which kind of write made `revision` (`Update` when no client write made it).
    pub fn write_verb(&self, revision: u64) -> Verb {
        self.write_verbs
            .get(&revision)
            .copied()
            .unwrap_or(Verb::Update)
    }

    fn record_write(&mut self, revision: u64, verb: Verb) {
        self.write_verbs.insert(revision, verb);
    }

    /// The latest revision of `target` the client has observed (§6 base), falling back to the
    /// end-of-setup revision (common knowledge), else 0.
    pub fn observed_revision(&self, client: u32, target: &ObjectRef) -> u64 {
        self.clients
            .get(client as usize)
            .and_then(|c| revision_in(&c.observed, target))
            .or_else(|| revision_in(&self.setup_revisions, target))
            .unwrap_or(0)
    }

    /// Moves the client's position past blocks that ended and into retry blocks that start,
    /// so that it points at a simple statement, or finishes the client.
    fn normalize(&mut self, scenario: &Scenario, client: u32) {
        let Some(spec) = scenario.clients.get(client as usize) else {
            return;
        };
        let c = &mut self.clients[client as usize];
        loop {
            if c.outcome.is_some() || c.backoff_pending {
                return;
            }
            let Some(depth) = c.frames.len().checked_sub(1) else {
                c.outcome = Some(ClientOutcome::Succeeded);
                return;
            };
            let Some((block, _)) = block_at(&spec.body, &c.frames, depth) else {
                c.outcome = Some(ClientOutcome::Failed(Failure::runtime(
                    "internal: the client's position is outside its script".into(),
                )));
                return;
            };
            let idx = c.frames[depth].index as usize;
            match block.get(idx).map(|s| &s.kind) {
                None if depth == 0 => {
                    c.outcome = Some(ClientOutcome::Succeeded);
                    return;
                }
                None => {
                    // The attempt succeeded: leave the retry block.
                    c.frames.pop();
                    if let Some(f) = c.frames.last_mut() {
                        f.index += 1;
                    }
                }
                Some(StmtKind::Retry { policy, .. }) => {
                    if policy.steps == 0 {
                        // ExponentialBackoff with no steps runs nothing and OnError returns nil.
                        c.frames[depth].index += 1;
                    } else {
                        c.frames.push(Frame {
                            index: 0,
                            retry: Some(RetryState {
                                attempt: 1,
                                duration_nanos: policy.duration_nanos,
                                steps: policy.steps,
                                last_error: None,
                            }),
                        });
                    }
                }
                Some(_) => return,
            }
        }
    }

    /// An error ended the client's current statement. A conflict inside a retry block ends the
    /// attempt (and schedules the backoff sleep, or gives up with it when the steps ran out);
    /// anything else stops the client. Returns a sentence about what happens next.
    fn fail(&mut self, scenario: &Scenario, client: u32, failure: Failure) -> String {
        let spec = &scenario.clients[client as usize];
        let name = spec.name.clone();
        let c = &mut self.clients[client as usize];
        let conflict = failure.is_conflict();
        let mut exhausted_note = String::new();
        loop {
            let depth = c.frames.len().saturating_sub(1);
            if depth == 0 || !conflict {
                let inside_retry = depth > 0;
                c.outcome = Some(ClientOutcome::Failed(failure.clone()));
                return if !exhausted_note.is_empty() {
                    format!(
                        "{exhausted_note}: {name} fails with the last {}",
                        failure.reason
                    )
                } else if inside_retry && failure.reason == "AlreadyExists" {
                    format!(
                        "client-go's IsConflict is false for AlreadyExists, so retry on conflict does not retry it: {name} stops here"
                    )
                } else if inside_retry {
                    format!("retry on conflict retries only conflicts: {name} stops here")
                } else {
                    format!("{name} stops here with this error")
                };
            }
            let policy_name = block_at(&spec.body, &c.frames, depth)
                .and_then(|(_, p)| p)
                .map(|p| p.name.clone())
                .unwrap_or_default();
            let Some(retry) = c.frames[depth].retry.as_mut() else {
                c.outcome = Some(ClientOutcome::Failed(failure.clone()));
                return format!("{name} stops here with this error");
            };
            retry.last_error = Some(failure.clone());
            if retry.steps > 1 {
                c.backoff_pending = true;
                return format!(
                    "the attempt ends; {name} will back off and try again ({policy_name}: attempt {} of at most {})",
                    retry.attempt + 1,
                    retry.attempt + retry.steps - 1
                );
            }
            exhausted_note = format!(
                "that was attempt {} of {}, so retry on conflict gives up",
                retry.attempt, retry.attempt
            );
            // Give up: the conflict propagates to the enclosing block.
            c.frames.pop();
        }
    }

    /// Runs one step of `client`: its next statement, or the backoff sleep between two attempts.
    /// Stepping a sleeping client first advances the clock to its wake-up time.
    pub fn step(&mut self, scenario: &Scenario, client: u32) -> Result<StepRecord, ScheduleError> {
        let Some(state) = self.clients.get(client as usize) else {
            return Err(ScheduleError::UnknownClient(client));
        };
        let Some(spec) = scenario.clients.get(client as usize) else {
            return Err(ScheduleError::UnknownClient(client));
        };
        if state.outcome.is_some() {
            return Err(ScheduleError::Finished {
                client,
                name: spec.name.clone(),
            });
        }
        self.clock_nanos = self.clock_nanos.max(state.ready_at);
        let mut rec = if state.backoff_pending {
            self.backoff_step(scenario, client)
        } else {
            match self.next_statement(scenario, client) {
                Some(stmt) => self.run_stmt(scenario, client, stmt),
                None => {
                    // Cannot happen after normalize; finish the client rather than loop.
                    self.clients[client as usize].outcome = Some(ClientOutcome::Succeeded);
                    StepRecord::new(client, 0, String::new(), self.clock_nanos, Action::Local)
                }
            }
        };
        self.normalize(scenario, client);
        if let Some(o) = &self.clients[client as usize].outcome {
            rec.finished = Some(o.clone());
        }
        Ok(rec)
    }

    fn backoff_step(&mut self, scenario: &Scenario, client: u32) -> StepRecord {
        let spec = &scenario.clients[client as usize];
        let name = spec.name.clone();
        let now = self.clock_nanos;
        let c = &mut self.clients[client as usize];
        c.backoff_pending = false;
        let depth = c.frames.len().saturating_sub(1);
        let retry_stmt = if depth > 0 {
            block_at(&spec.body, &c.frames, depth - 1)
                .and_then(|(b, _)| b.get(c.frames[depth - 1].index as usize))
        } else {
            None
        };
        let Some(StmtKind::Retry { policy, .. }) = retry_stmt.map(|s| &s.kind) else {
            c.outcome = Some(ClientOutcome::Failed(Failure::runtime(
                "internal: a backoff sleep outside a retry block".into(),
            )));
            return StepRecord::new(client, 0, String::new(), now, Action::Error);
        };
        let line = retry_stmt.map_or(0, |s| s.span.line);
        let Some(retry) = c.frames[depth].retry.as_mut() else {
            c.outcome = Some(ClientOutcome::Failed(Failure::runtime(
                "internal: a backoff sleep without retry state".into(),
            )));
            return StepRecord::new(client, line, String::new(), now, Action::Error);
        };
        let (sleep, next, steps) =
            backoff_delay(policy, retry.duration_nanos, retry.steps, &mut self.rng);
        retry.duration_nanos = next;
        retry.steps = steps;
        let statement = format!("backoff sleep ({})", policy.name);
        let mut rec = StepRecord::new(client, line, statement, now, Action::Backoff);
        rec.mark = Mark::Sleep;
        rec.sleep_nanos = Some(sleep);
        c.ready_at = now.saturating_add(sleep);
        if steps > 0 {
            retry.attempt += 1;
            let attempt = retry.attempt;
            c.attempts = c.attempts.max(attempt);
            c.frames[depth].index = 0;
            rec.narration = format!(
                "{name} sleeps {} before attempt {attempt} of {} ({}: wait.Backoff jitter {})",
                fmt_duration(sleep),
                policy.steps,
                policy.name,
                narrate::fmt_float(policy.jitter),
            );
        } else {
            // The cap was reached: Steps became 0, so ExponentialBackoff stops after this sleep.
            let last = retry
                .last_error
                .clone()
                .unwrap_or_else(|| Failure::runtime("retry gave up".into()));
            c.frames.pop();
            let reason = last.reason.clone();
            let note = self.fail(scenario, client, last);
            let note = if self.clients[client as usize].outcome.is_some() {
                format!("{name} fails with the last {reason}")
            } else {
                note
            };
            rec.narration = format!(
                "{name} sleeps {}; the backoff reached its cap of {}, which sets Steps to 0, so client-go stops retrying after this sleep: {note}",
                fmt_duration(sleep),
                fmt_duration(policy.cap_nanos),
            );
        }
        rec
    }

    fn runtime_error(
        &mut self,
        scenario: &Scenario,
        client: u32,
        mut rec: StepRecord,
        msg: String,
    ) -> StepRecord {
        let name = &scenario.clients[client as usize].name;
        rec.narration =
            format!("{name} hit a runtime error in its script: {msg}; {name} stops here");
        rec.action = Action::Error;
        rec.mark = Mark::OtherError;
        self.clients[client as usize].outcome = Some(ClientOutcome::Failed(Failure::runtime(msg)));
        rec
    }

    fn advance(&mut self, client: u32) {
        let c = &mut self.clients[client as usize];
        if let Some(f) = c.frames.last_mut() {
            f.index += 1;
        }
    }

    fn run_stmt(&mut self, scenario: &Scenario, client: u32, stmt: &Stmt) -> StepRecord {
        let name = scenario.clients[client as usize].name.clone();
        let now = self.clock_nanos;
        let mut rec = StepRecord::new(
            client,
            stmt.span.line,
            stmt.text.clone(),
            now,
            Action::Local,
        );
        let vars = &self.clients[client as usize].vars;
        match &stmt.kind {
            StmtKind::Assign { var, path, value } => {
                let v = match expr::eval(value, vars) {
                    Ok(v) => v,
                    Err(e) => return self.runtime_error(scenario, client, rec, e),
                };
                rec.mark = Mark::Local;
                let c = &mut self.clients[client as usize];
                if path.is_empty() {
                    let held = match &value.kind {
                        crate::lang::ast::ExprKind::Var { name: src, path: p } if p.is_empty() => {
                            c.vars.get(src).and_then(|x| x.held.clone())
                        }
                        _ => None,
                    };
                    rec.narration = format!(
                        "{name} set {var} to {} (a local value: nothing is sent)",
                        narrate::short_json(&v)
                    );
                    c.vars.insert(
                        var.clone(),
                        Var {
                            value: HValue(v),
                            held,
                        },
                    );
                } else {
                    let Some(slot) = c.vars.get_mut(var) else {
                        let msg = format!("{var} is not defined (nothing was assigned to it yet)");
                        return self.runtime_error(scenario, client, rec, msg);
                    };
                    let shown = narrate::short_json(&v);
                    if let Err(e) = expr::write_path(&mut slot.value.0, var, path, v) {
                        return self.runtime_error(scenario, client, rec, e);
                    }
                    rec.narration = format!(
                        "{name} set {} to {shown} in their local copy (nothing is sent)",
                        expr::var_path_text(var, path)
                    );
                }
                self.advance(client);
                rec
            }
            StmtKind::Sleep { nanos } => {
                rec.action = Action::Sleep;
                rec.mark = Mark::Sleep;
                rec.sleep_nanos = Some(*nanos);
                let c = &mut self.clients[client as usize];
                c.ready_at = now.saturating_add(*nanos);
                rec.narration = format!(
                    "{name} sleeps {} (until {} on the virtual clock)",
                    fmt_duration(*nanos),
                    fmt_duration(c.ready_at)
                );
                self.advance(client);
                rec
            }
            StmtKind::Retry { .. } => {
                // Normalization enters retry blocks; reaching one here means an empty block.
                self.advance(client);
                rec
            }
            _ => self.request_stmt(scenario, client, stmt, rec),
        }
    }

    /// For a conflict inside a retry block that never re-reads `var`: says so (the trap of
    /// retrying without re-reading).
    fn no_reread_hint(&self, scenario: &Scenario, client: u32, var: &str) -> Option<String> {
        let c = self.clients.get(client as usize)?;
        let body = &scenario.clients.get(client as usize)?.body;
        let depth = c.frames.len().checked_sub(1).filter(|d| *d > 0)?;
        let (block, _) = block_at(body, &c.frames, depth)?;
        let rereads = block
            .iter()
            .any(|s| matches!(&s.kind, StmtKind::Get { var: v, .. } if v == var));
        (!rereads).then(|| {
            format!(
                "nothing in the retry block re-reads {var}, so every attempt sends the same stale version"
            )
        })
    }

    fn request_stmt(
        &mut self,
        scenario: &Scenario,
        client: u32,
        stmt: &Stmt,
        mut rec: StepRecord,
    ) -> StepRecord {
        let name = scenario.clients[client as usize].name.clone();
        let vars = &self.clients[client as usize].vars;
        let built: Result<(Verb, ObjectRef, Request, u64, Option<String>), String> = (|| {
            Ok(match &stmt.kind {
                StmtKind::Get { var, target } => (
                    Verb::Get,
                    target.clone(),
                    Request {
                        method: Method::Get,
                        path: target.path(),
                        content_type: None,
                        body: None,
                    },
                    self.observed_revision(client, target),
                    Some(var.clone()),
                ),
                StmtKind::Update { var } => {
                    let v = vars.get(var).ok_or_else(|| {
                        format!("{var} is not defined (nothing was assigned to it yet)")
                    })?;
                    let body = v.value.0.clone();
                    if !body.is_object() {
                        return Err(format!(
                            "update {var}: {var} is {}, not an object",
                            expr::type_name(&body)
                        ));
                    }
                    let resource = match &v.held {
                        Some(h) => h.object.resource.clone(),
                        None => resource_of(&body).ok_or_else(|| {
                            format!("update {var}: {var} has no apiVersion and kind to send it to")
                        })?,
                    };
                    let meta = &body["metadata"];
                    let name_ = meta["name"]
                        .as_str()
                        .map(str::to_string)
                        .or_else(|| v.held.as_ref().map(|h| h.object.name.clone()))
                        .ok_or_else(|| format!("update {var}: {var} has no metadata.name"))?;
                    let namespace = meta["namespace"]
                        .as_str()
                        .map(str::to_string)
                        .or_else(|| v.held.as_ref().map(|h| h.object.namespace.clone()))
                        .unwrap_or_else(|| "default".into());
                    let target = ObjectRef {
                        resource,
                        namespace,
                        name: name_,
                    };
                    let base = match &v.held {
                        Some(h) if h.object == target => h.base,
                        _ => self.observed_revision(client, &target),
                    };
                    (
                        Verb::Update,
                        target.clone(),
                        Request {
                            method: Method::Put,
                            path: query(target.path(), &name, false),
                            content_type: Some("application/json".into()),
                            body: Some(body),
                        },
                        base,
                        Some(var.clone()),
                    )
                }
                StmtKind::Create { var, target, body } => {
                    let b = match body {
                        Some(e) => expr::eval(e, vars)?,
                        None => Value::Object(Map::new()),
                    };
                    let b = with_identity(target, b)?;
                    (
                        Verb::Create,
                        target.clone(),
                        Request {
                            method: Method::Post,
                            path: query(target.collection_path(), &name, false),
                            content_type: Some("application/json".into()),
                            body: Some(b),
                        },
                        self.observed_revision(client, target),
                        var.clone(),
                    )
                }
                StmtKind::Patch {
                    var,
                    target,
                    patch_type,
                    body,
                } => {
                    let b = expr::eval(body, vars)?;
                    let verb = match patch_type {
                        PatchType::Merge => Verb::MergePatch,
                        PatchType::Json => Verb::JsonPatch,
                        PatchType::Strategic => Verb::StrategicPatch,
                    };
                    (
                        verb,
                        target.clone(),
                        Request {
                            method: Method::Patch,
                            path: query(target.path(), &name, false),
                            content_type: Some(patch_type.content_type().into()),
                            body: Some(b),
                        },
                        self.observed_revision(client, target),
                        var.clone(),
                    )
                }
                StmtKind::Apply {
                    var,
                    target,
                    body,
                    manager,
                    force,
                } => {
                    let b = with_identity(target, expr::eval(body, vars)?)?;
                    (
                        Verb::Apply,
                        target.clone(),
                        Request {
                            method: Method::Patch,
                            path: query(target.path(), manager, *force),
                            content_type: Some("application/apply-patch+yaml".into()),
                            body: Some(b),
                        },
                        self.observed_revision(client, target),
                        var.clone(),
                    )
                }
                StmtKind::Delete {
                    target,
                    resource_version,
                    uid,
                } => {
                    let as_text = |v: Value| match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    let mut pre = Map::new();
                    if let Some(e) = uid {
                        pre.insert("uid".into(), as_text(expr::eval(e, vars)?).into());
                    }
                    if let Some(e) = resource_version {
                        pre.insert(
                            "resourceVersion".into(),
                            as_text(expr::eval(e, vars)?).into(),
                        );
                    }
                    // Built by hand: `json!` would serialise `pre` through serde (docs/size.md).
                    let body = (!pre.is_empty()).then(|| {
                        let mut o = Map::new();
                        o.insert("kind".into(), "DeleteOptions".into());
                        o.insert("apiVersion".into(), "v1".into());
                        o.insert("preconditions".into(), Value::Object(pre));
                        Value::Object(o)
                    });
                    (
                        Verb::Delete,
                        target.clone(),
                        Request {
                            method: Method::Delete,
                            path: target.path(),
                            content_type: body.as_ref().map(|_| "application/json".to_string()),
                            body,
                        },
                        self.observed_revision(client, target),
                        None,
                    )
                }
                _ => return Err("internal: not a request statement".into()),
            })
        })();
        let (verb, target, request, base, var) = match built {
            Ok(x) => x,
            Err(e) => return self.runtime_error(scenario, client, rec, e),
        };
        rec.action = Action::Request;
        rec.verb = Some(verb);
        rec.target = Some(target.clone());
        // What the store held before (for the narration of conflicts and no-ops).
        let before = self.store.get(&target).and_then(body_revision);
        let actor = Actor {
            name: name.clone(),
            base_revision: base,
        };
        let mut env = Env {
            now_ms: self.clock_nanos / 1_000_000,
            rng: &mut self.rng,
        };
        let Outcome {
            response,
            revision,
            lost_updates,
        } = self.store.handle(&request, &actor, &mut env);
        let ok = (200..300).contains(&response.code);
        if let Some(r) = revision {
            self.record_write(r, verb);
        }
        self.lost_updates.extend(lost_updates.iter().cloned());
        let after = self.store.get(&target).and_then(body_revision);
        let observed = body_revision(&response.body).or(if ok { revision } else { None });
        {
            let c = &mut self.clients[client as usize];
            if let Some(r) = observed {
                set_revision(&mut c.observed, &target, r);
            }
            if ok {
                if let (Some(var), true) = (&var, response.body.is_object()) {
                    let held = body_revision(&response.body).map(|b| Held {
                        object: target.clone(),
                        base: b,
                    });
                    c.vars.insert(
                        var.clone(),
                        Var {
                            value: HValue(response.body.clone()),
                            held,
                        },
                    );
                }
            }
        }
        let ctx = narrate::RequestCtx {
            client: &name,
            verb,
            target: &target,
            request: &request,
            response: &response,
            revision,
            before,
            after,
            lost: &lost_updates,
            world: self,
        };
        let mut sentence = narrate::request(&ctx);
        rec.mark = narrate::mark(&response, !lost_updates.is_empty());
        rec.request = Some(request);
        rec.revision = revision;
        rec.lost_updates = lost_updates;
        if ok {
            self.advance(client);
        } else {
            let failure = Failure::from_response(&response);
            if let (StmtKind::Update { var }, true) = (&stmt.kind, failure.is_conflict()) {
                if let Some(hint) = self.no_reread_hint(scenario, client, var) {
                    sentence = format!("{sentence} ({hint})");
                }
            }
            let note = self.fail(scenario, client, failure);
            sentence = format!("{sentence}; {note}");
        }
        rec.response = Some(response);
        rec.narration = sentence;
        rec
    }
}

impl StepRecord {
    fn new(client: u32, line: u32, statement: String, clock_nanos: u64, action: Action) -> Self {
        StepRecord {
            client,
            line,
            statement,
            clock_nanos,
            action,
            verb: None,
            target: None,
            request: None,
            response: None,
            revision: None,
            lost_updates: Vec::new(),
            narration: String::new(),
            mark: Mark::Local,
            sleep_nanos: None,
            finished: None,
        }
    }
}

impl fmt::Display for ClientOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientOutcome::Succeeded => write!(f, "succeeded"),
            ClientOutcome::Failed(e) => write!(f, "failed with {}: {}", e.label(), e.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_of_a_custom_kind_is_its_ascii_plural_and_other_kinds_name_none() {
        let body = |api: &str, kind: &str| serde_json::json!({"apiVersion": api, "kind": kind});
        let plural = |r: Option<Resource>| match r {
            Some(Resource::Custom { plural, .. }) => Some(plural),
            _ => None,
        };
        assert_eq!(
            plural(resource_of(&body("example.com/v1", "Widget"))).as_deref(),
            Some("widgets")
        );
        assert_eq!(
            plural(resource_of(&body("example.com/v1", "Policy"))).as_deref(),
            Some("policies")
        );
        assert!(resource_of(&body("example.com/v1", "Wídget")).is_none());
        assert!(matches!(
            resource_of(&body("v1", "ConfigMap")),
            Some(Resource::ConfigMap)
        ));
    }

    #[test]
    fn default_retry_sleeps_match_client_go() {
        let p = Backoff::default_retry();
        let mut rng = Rng::new(1);
        let mut check = Rng::new(1);
        let (mut d, mut steps) = (p.duration_nanos, p.steps);
        for _ in 0..4 {
            let (sleep, next, s) = backoff_delay(&p, d, steps, &mut rng);
            let want = 10_000_000 + (check.next_f64() * 0.1 * 10_000_000.0) as u64;
            assert_eq!(sleep, want);
            assert!((10_000_000..11_000_000).contains(&sleep));
            assert_eq!(next, 10_000_000);
            d = next;
            steps = s;
        }
        assert_eq!(steps, 1);
    }

    #[test]
    fn cap_sets_steps_to_zero() {
        let p = Backoff {
            name: "backoff".into(),
            steps: 10,
            duration_nanos: 10_000_000,
            factor: 3.0,
            jitter: 0.0,
            cap_nanos: 50_000_000,
        };
        let mut rng = Rng::new(0);
        let (s1, d1, n1) = backoff_delay(&p, p.duration_nanos, p.steps, &mut rng);
        assert_eq!((s1, d1, n1), (10_000_000, 30_000_000, 9));
        let (s2, d2, n2) = backoff_delay(&p, d1, n1, &mut rng);
        assert_eq!((s2, d2, n2), (30_000_000, 50_000_000, 0));
    }

    #[test]
    fn already_exists_is_not_a_conflict() {
        let mk = |reason: &str, code| Failure {
            reason: reason.into(),
            message: String::new(),
            code: Some(code),
            status: None,
        };
        assert!(mk("Conflict", 409).is_conflict());
        assert!(!mk("AlreadyExists", 409).is_conflict());
        assert!(mk("", 409).is_conflict());
        assert!(!mk("Invalid", 422).is_conflict());
    }
}
