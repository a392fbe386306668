//! The [`World`]: the whole state of a run as a value, and the queries and bookkeeping the
//! steps, the scheduler and the views share.

use super::backoff::RetryState;
use super::expr;
use super::kubectl::{file_of, Running};
use super::records::{ClientOutcome, Failure, StepRecord, WriteKind};
use super::request::{body_revision, query, with_identity, Direct, Transport};
use super::vars::{revision_in, set_revision, Revisions, Vars};
use super::{RunError, ScheduleError, MAX_CLIENTS, SETUP_ACTOR, SETUP_MANAGER};
use crate::kubectl::{Files, Terminal};
use crate::lang::ast::{Backoff, Scenario, SetupBody, Stmt, StmtKind};
use crate::rng::Rng;
use crate::store::{Actor, Env, LostUpdate, Method, ObjectRef, Request, Store};
use crate::vecmap::VecMap;
use serde_json::{Map, Value};

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
    /// The client's files (kubectl's `-f F` and `> F`, `file` statements), starting as the
    /// scenario's top-level files.
    pub files: Files,
    /// The kubectl command in progress, between two of its requests.
    pub kubectl: Option<Running>,
    /// What the client's last finished kubectl command printed, and its exit status (for
    /// `expect CLIENT prints` / `exits`).
    pub terminal: Option<Terminal>,
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
    pub write_verbs: VecMap<u64, WriteKind>,
}

/// The block a frame at `depth` iterates, and the retry policy around it.
pub(super) fn block_at<'s>(
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

/// The value of a setup object's or a file's body: the literal, or the field lines written into
/// `base` (an empty object when `None`). `root` names the value in error messages.
pub(super) fn eval_body(
    body: &SetupBody,
    vars: &Vars,
    root: &str,
    base: Option<Value>,
) -> Result<Value, String> {
    match body {
        SetupBody::Literal(e) => expr::eval(e, vars),
        SetupBody::Fields(fields) => {
            let mut v = base.unwrap_or_else(|| Value::Object(Map::new()));
            for (path, e) in fields {
                let val = expr::eval(e, vars)?;
                expr::write_path(&mut v, root, path, val)?;
            }
            Ok(v)
        }
    }
}

/// The scenario's top-level files, as every client starts with them.
/// The request that creates a setup object: a POST of its body, as `kubectl create` would (the
/// field manager [`SETUP_MANAGER`]), sent by [`SETUP_ACTOR`]; the object's `at resourceVersion
/// N` is the store's to honour. Public for the reference goldens, which send the same requests
/// to a real kube-apiserver (docs/reference.md).
pub fn setup_request(obj: &crate::lang::ast::SetupObject) -> Result<Request, String> {
    setup_request_with(obj, &Vars::default())
}

fn setup_request_with(obj: &crate::lang::ast::SetupObject, vars: &Vars) -> Result<Request, String> {
    let body = eval_body(&obj.body, vars, "object", None)?;
    let body = with_identity(&obj.target, body)?;
    Ok(Request {
        method: Method::Post,
        path: query(obj.target.collection_path(), SETUP_MANAGER, false),
        content_type: Some("application/json".into()),
        body: Some(body),
    })
}

fn setup_files(scenario: &Scenario) -> Result<Files, RunError> {
    let mut files = Files::new();
    if !crate::kubectl::IN_BUILD {
        // No `file` statement parses in this build.
        return Ok(files);
    }
    for f in &scenario.files {
        let value = eval_body(&f.body, &Vars::default(), "file", None).map_err(|message| {
            RunError::Setup {
                object: format!("file \"{}\"", f.name),
                line: f.span.line,
                message,
            }
        })?;
        files.insert(f.name.clone(), file_of(value));
    }
    Ok(files)
}

impl World {
    /// Builds the starting world: the store with the setup objects created in order (as
    /// `POST ?fieldManager=kubectl-create` by `setup`), every client at its first statement.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<World, RunError> {
        World::new_at(scenario, seed, 0)
    }

    /// [`World::new`] with the setup objects stamped at `now_ms` (milliseconds since
    /// [`crate::store::EPOCH_UNIX_SECONDS`]) instead of the epoch: `rvlab serve` loads a
    /// scenario's objects at the wall-clock time it starts, so their age is real.
    pub fn new_at(scenario: &Scenario, seed: u64, now_ms: u64) -> Result<World, RunError> {
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
        let files = setup_files(scenario)?;
        for obj in &scenario.objects {
            let fail = |message: String| RunError::Setup {
                object: obj.target.to_string(),
                line: obj.span.line,
                message,
            };
            let req = setup_request_with(obj, &no_vars).map_err(fail)?;
            if let Some(rv) = obj.at_revision {
                world.store.advance_to(rv).map_err(fail)?;
            }
            let actor = Actor {
                name: SETUP_ACTOR.into(),
                base_revision: 0,
            };
            let mut env = Env {
                now_ms,
                rng: &mut world.rng,
            };
            let out = world.store.handle(&req, &actor, &mut env);
            if !(200..300).contains(&out.response.code) {
                let f = Failure::from_response(&out.response);
                return Err(fail(format!("{}: {}", f.label(), f.message)));
            }
            if let Some(r) = out.revision.or_else(|| body_revision(&out.response.body)) {
                set_revision(&mut world.setup_revisions, &obj.target, r);
                world.record_write(r, WriteKind::Setup);
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
                files: files.clone(),
                kubectl: None,
                terminal: None,
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
        self.next_statement(scenario, client)
            .is_some_and(|s| s.kind.sends_request())
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

    /// Takes one scheduled step: the one way a run ([`crate::run::Run`], which the page and
    /// the command line build), a replay and the explorer step a world.
    ///
    /// It first draws the default scheduler's tie-break ([`World::pick_default`]), whether
    /// `pick` names the client or not, so that the generator (and with it every later jitter
    /// and uid) is the same whether a step was picked by hand (a token letter, the learner's
    /// pick, the explorer's choice) or by the default scheduler: a run's token, or any prefix
    /// of it, replays that very run. Then it steps `pick`, or else the default choice.
    /// `Ok(None)` when `pick` is `None` and every client has finished (then nothing is drawn:
    /// `pick_default` draws only on ties).
    pub fn take_step(
        &mut self,
        scenario: &Scenario,
        pick: Option<u32>,
    ) -> Result<Option<StepRecord>, ScheduleError> {
        self.take_step_via(&mut Direct, scenario, pick)
    }

    /// [`World::take_step`] with the step's request (if it sends one) served through `via`
    /// instead of directly by the world's store: the same step, the same draws, the same
    /// books; only the path to the store differs (`rvlab serve --interfere scenario FILE`
    /// sends a scripted client's request through the server's watch cache, with the server's
    /// store in [`World::store`] for the step: `crate::scripted`).
    pub fn take_step_via(
        &mut self,
        via: &mut dyn Transport,
        scenario: &Scenario,
        pick: Option<u32>,
    ) -> Result<Option<StepRecord>, ScheduleError> {
        let default = self.pick_default();
        match pick.or(default) {
            Some(client) => self.step(via, scenario, client).map(Some),
            None => Ok(None),
        }
    }

    /// Which kind of write made `revision` (`Update` when no client write made it).
    pub fn write_verb(&self, revision: u64) -> WriteKind {
        self.write_verbs
            .get(&revision)
            .copied()
            .unwrap_or(WriteKind::Update)
    }

    pub(super) fn record_write(&mut self, revision: u64, verb: WriteKind) {
        self.write_verbs.insert(revision, verb);
    }

    /// The latest revision of `target` the client has observed (its base: docs/scenario-language.md,
    /// "Lost updates, precisely"), falling back to the end-of-setup revision (common knowledge), else 0.
    pub fn observed_revision(&self, client: u32, target: &ObjectRef) -> u64 {
        self.clients
            .get(client as usize)
            .and_then(|c| revision_in(&c.observed, target))
            .or_else(|| revision_in(&self.setup_revisions, target))
            .unwrap_or(0)
    }

    /// Moves the client's position past blocks that ended and into retry blocks that start,
    /// so that it points at a simple statement, or finishes the client.
    pub(super) fn normalize(&mut self, scenario: &Scenario, client: u32) {
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
}
