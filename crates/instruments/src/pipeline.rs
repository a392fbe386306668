//! The request pipeline of `rvlab serve`: one store request served in the domain's order, on
//! the server's state ([`Lab`]), as a pure function of the request and the time. The server
//! parses HTTP into an [`Asked`], takes its one lock, calls [`Lab::serve`], and does the I/O
//! the [`Served`] answer lists (trace file lines, live events, waking the watchers).
//!
//! [`Lab::serve`]'s steps, in order:
//! 1. the client's `Actor` ([`Lab::actor`]: its name, and the newer of what its program last
//!    observed of the object and the body's resourceVersion);
//! 2. interference (not for a dry run): `--interfere scenario FILE`'s scripted world takes its
//!    next request, or `--interfere POLICY`'s interferer commits its write; either is traced
//!    first, as a step of its own with its `interference`;
//! 3. the live view's note of the target before the request;
//! 4. the commit: the watch cache and the store, a panic caught as the apiserver's 500
//!    ([`guarded`]; [`Lab::panic_on`] is the fault [`PANIC_ON_VAR`] injects), and after a
//!    write the state kept for stale reads;
//! 5. `--stale-reads K`: a GET may be answered from an older state instead
//!    ([`crate::stale::KeptStates::instead`]);
//! 6. the books: a custom resource that answered is served from now on, and unless it was a
//!    dry run the client's program observed the answer;
//! 7. the trace step (with `stale_read`), then, unless it was a dry run, the live step.
//!
//! `--etcd` serves the store call itself on etcd and records through the same books
//! ([`Lab::record_served`]: steps 6 and 7).

use crate::client::{body_revision, object_of, query_value, Observed, UrlTarget};
use crate::interfere::{Interferer, Seen, INTERFERER};
use crate::live::{Live, LiveRequest};
use crate::scripted::{Scripted, Via};
use crate::stale::{Fresh, KeptStates};
use crate::trace::{step_json, Ring};
use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Outcome, Request, Resource, Response, Store};
use rvlab_core::watch::WatchCache;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

/// The environment variable that makes `rvlab serve` panic in the store call of a request
/// whose path contains its value (a fault for tests: the panic must become a 500
/// `InternalError` and the server must go on serving; docs/serve.md). The server reads it
/// into [`Lab::panic_on`].
pub const PANIC_ON_VAR: &str = "RVLAB_TEST_PANIC_ON";

/// The server's domain state: everything one request reads and writes under the lock.
#[derive(Debug)]
pub struct Lab {
    pub store: Store,
    /// The one generator (uids, the store's choices), whoever writes.
    pub rng: Rng,
    /// What each client program observed of each object.
    pub observed: Observed,
    /// The trace kept in memory (`GET /rvlab/v1/trace`).
    pub trace: Ring,
    /// Every request goes through it, so watches see every write.
    pub cache: WatchCache,
    /// The custom resources served (plural, group): the scenario's, and any a write created.
    pub customs: BTreeSet<(String, String)>,
    /// `--interfere POLICY`: fed every write before the store serves it.
    pub interferer: Option<Interferer>,
    /// The live view's history (`GET /rvlab/v1/live`).
    pub live: Live,
    /// `--stale-reads K`: the last K + 1 states and the decisions.
    pub stale: Option<KeptStates>,
    /// `--interfere scenario FILE`: the scripted world, one request before each real one.
    pub scripted: Option<Scripted>,
    /// A fault for tests of the safety net ([`PANIC_ON_VAR`]): the store call for a request
    /// whose path contains this text panics.
    pub panic_on: Option<String>,
}

/// The time of a request, as the server reads its clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Wall-clock milliseconds since the store's epoch (timestamps).
    pub now_ms: u64,
    /// The time since the server started (the trace's `clock_ms`, a live step's clock).
    pub elapsed: Duration,
}

impl Clock {
    fn trace_ms(self) -> f64 {
        self.elapsed.as_secs_f64() * 1000.0
    }

    fn nanos(self) -> u64 {
        u64::try_from(self.elapsed.as_nanos()).unwrap_or(u64::MAX)
    }
}

/// One store request as the server read it from HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The store's request (the path as the store is given it, the decoded body).
    pub request: Request,
    /// What the path addresses.
    pub target: UrlTarget,
    /// The path and query as sent (the trace's).
    pub path_q: String,
    /// The query's pairs, decoded, in order.
    pub pairs: Vec<(String, String)>,
    /// The client's name (its field manager).
    pub name: String,
    /// The client's program (whose observations count).
    pub program: String,
    /// The body's media type as sent (without parameters; `None`: none).
    pub sent_type: Option<String>,
    /// kubectl's `Kubectl-Command` and `Kubectl-Session` headers.
    pub kubectl_command: Option<String>,
    pub kubectl_session: Option<String>,
    /// Whether the answer is asked for as a Table.
    pub table: bool,
}

impl Asked {
    /// The path without its query.
    pub fn path(&self) -> &str {
        self.path_q.split('?').next().unwrap_or("")
    }

    /// `dryRun` is the store's (it answers as written, on a copy): nothing is stored, watched
    /// or observed.
    pub fn dry_run(&self) -> bool {
        query_value(&self.pairs, "dryRun").is_some()
    }

    /// The request as the trace shows it: the path as sent, and a body's media type as sent (a
    /// protobuf or YAML object body is traced decoded, under its own type: `kubectl create
    /// configmap` sends protobuf), the store's when none was given.
    fn traced(&self) -> Request {
        let request = &self.request;
        Request {
            path: self.path_q.clone(),
            content_type: request
                .content_type
                .clone()
                .and(self.sent_type.clone())
                .or(request.content_type.clone()),
            ..request.clone()
        }
    }

    /// The live view's record of the request served as `traced` with `outcome`.
    fn recorded(
        self,
        traced: Request,
        outcome: &Outcome,
        clock: Clock,
        interference: Option<Value>,
    ) -> LiveRequest {
        LiveRequest {
            program: self.program,
            name: self.name,
            command: self.kubectl_command,
            session: self.kubectl_session,
            table: self.table,
            request: traced,
            response: outcome.response.clone(),
            revision: outcome.revision,
            clock_nanos: clock.nanos(),
            interference,
        }
    }
}

/// What the server must do after a request, under the lock, in this order: append the trace
/// lines to `--trace FILE`, publish the live events, wake the watchers if the revision moved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Io {
    /// Each new trace step's JSON text, in order.
    pub trace_lines: Vec<String>,
    /// Each new live step's event, in order.
    pub live_events: Vec<String>,
    /// Whether the store's revision moved (a write committed).
    pub revision_moved: bool,
}

/// A served request: its outcome (the answer) and the I/O it asks of the server.
#[derive(Debug, Clone)]
pub struct Served {
    pub outcome: Outcome,
    pub io: Io,
}

/// Runs a store call, catching a panic as the apiserver's 500 (a bug in rvlab).
pub fn guarded(serve: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(serve)).unwrap_or_else(|_| Outcome {
        response: Response {
            code: 500,
            body: internal_error(),
        },
        revision: None,
        lost_updates: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The Status of [`guarded`]'s 500 (the fields in the order of the server's Status bodies).
fn internal_error() -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), "Status".into());
    m.insert("apiVersion".into(), "v1".into());
    m.insert("metadata".into(), Value::Object(Map::new()));
    m.insert("status".into(), "Failure".into());
    m.insert(
        "message".into(),
        "Internal error occurred: the server failed serving this request (a bug in rvlab: please report it)"
            .into(),
    );
    m.insert("reason".into(), "InternalError".into());
    m.insert("code".into(), 500.into());
    Value::Object(m)
}

/// The custom resources (plural, group) a store holds objects of.
pub fn customs_of(store: &Store) -> BTreeSet<(String, String)> {
    store
        .objects()
        .filter_map(|(r, _)| match &r.resource {
            Resource::Custom { plural, group } => Some((plural.clone(), group.clone())),
            _ => None,
        })
        .collect()
}

impl Lab {
    /// The state of a server whose store starts as `store`: the custom resources it holds are
    /// served, its live history is named `instance`, its trace keeps `trace_bytes` of steps;
    /// no interference, no stale reads, no fault.
    pub fn new(store: Store, rng: Rng, instance: &str, trace_bytes: usize) -> Lab {
        let live = Live::new(
            &store,
            instance,
            crate::limits::LIVE_HISTORY_STEPS,
            crate::limits::LIVE_HISTORY_BYTES,
        );
        Lab {
            customs: customs_of(&store),
            store,
            rng,
            observed: Observed::default(),
            trace: Ring::new(trace_bytes),
            cache: WatchCache::default(),
            interferer: None,
            live,
            stale: None,
            scripted: None,
            panic_on: None,
        }
    }

    /// The state a watch is served from and its revision: `None` when stale reads are off.
    pub fn watch_state(&self) -> Option<(&Store, u64)> {
        self.stale.as_ref().map(KeptStates::watch_state)
    }

    /// Serves one store request (the module's steps, in order).
    pub fn serve(&mut self, asked: Asked, clock: Clock) -> Served {
        let mut io = Io::default();
        let actor = self.actor(&asked);
        let dry_run = asked.dry_run();
        if !dry_run {
            self.interfere(&asked, clock, &mut io);
        }
        let before = self.live.before(&self.store, &asked.request);
        let mut outcome = self.commit(&asked.request, &actor, clock.now_ms, &mut io);
        let stale_read = self.stale_read(&asked, &actor, clock.now_ms, &mut outcome);
        let traced = self.books(&asked, &outcome, stale_read.as_ref(), clock, &mut io);
        if !dry_run {
            let rec = asked.recorded(traced, &outcome, clock, stale_read);
            io.live_events
                .push(self.live.record(before, &self.store, rec, &outcome));
        }
        Served { outcome, io }
    }

    /// `--etcd`: records a request etcd served (`stores`: the store it was served on and the
    /// store after it, when etcd answered) as [`Lab::serve`] records one: the books, the trace
    /// step and, unless it was a dry run, the live step.
    pub fn record_served(
        &mut self,
        asked: Asked,
        outcome: Outcome,
        stores: Option<(&Store, &Store)>,
        clock: Clock,
    ) -> Served {
        let mut io = Io::default();
        let traced = self.books(&asked, &outcome, None, clock, &mut io);
        if let (false, Some((before, after))) = (asked.dry_run(), stores) {
            let before = self.live.before(before, &asked.request);
            let rec = asked.recorded(traced, &outcome, clock, None);
            io.live_events
                .push(self.live.record(before, after, rec, &outcome));
        }
        Served { outcome, io }
    }

    /// Records a request the HTTP layer refused (413, 415, 400) in the trace.
    pub fn refused(
        &mut self,
        name: &str,
        request: &Request,
        response: &Response,
        clock: Clock,
    ) -> Io {
        let index = self.trace.next_index();
        let line = self.trace.push(step_json(
            index,
            name,
            clock.trace_ms(),
            request,
            response,
            None,
            &[],
        ));
        Io {
            trace_lines: vec![line],
            ..Io::default()
        }
    }

    /// Who sends a request: its name, and as base the newer of what its program last observed
    /// of the object and the resourceVersion its body carries (lost updates for real clients).
    pub fn actor(&self, asked: &Asked) -> Actor {
        let observed = match &asked.target {
            UrlTarget::Object(key) => self.observed.get(&asked.program, key),
            _ => 0,
        };
        let body = body_revision(asked.request.body.as_ref()).unwrap_or(0);
        Actor {
            name: asked.name.clone(),
            base_revision: observed.max(body),
        }
    }

    /// Runs one request through the watch cache and the store (the path of every write, the
    /// interferer's too), catching a panic as a 500; after a write, keeps the state for stale
    /// reads.
    fn commit(&mut self, request: &Request, actor: &Actor, now_ms: u64, io: &mut Io) -> Outcome {
        let (store, rng, cache) = (&mut self.store, &mut self.rng, &mut self.cache);
        let panic_on = self.panic_on.as_deref();
        let outcome = guarded(|| {
            if panic_on.is_some_and(|p| request.path.contains(p)) {
                panic!(
                    "{PANIC_ON_VAR}: the store call for {} panics (a test of the 500 safety net)",
                    request.path
                );
            }
            let mut env = Env { now_ms, rng };
            cache.handle(store, request, actor, &mut env)
        });
        if outcome.revision.is_some() {
            if let Some(kept) = self.stale.as_mut() {
                kept.wrote(&self.store);
            }
            io.revision_moved = true;
        }
        outcome
    }

    /// `--interfere POLICY`: asks the interferer about the request about to be served and
    /// commits its write first (`--interfere scenario FILE`: the scripted world's next request,
    /// [`Lab::scripted_before`]), through [`Lab::commit`] (so the watch cache, managedFields
    /// and lost updates see it), tracing it as a step of `rvlab-interferer` with its
    /// `interference`, and recording its live step.
    fn interfere(&mut self, asked: &Asked, clock: Clock, io: &mut Io) {
        if self.scripted.is_some() {
            // `--interfere scenario FILE`: before every store request, reads too.
            return self.scripted_before(asked, clock, io);
        }
        let Some(interferer) = self.interferer.as_mut() else {
            return;
        };
        let UrlTarget::Object(key) = &asked.target else {
            return;
        };
        let Some(object) = object_of(key) else {
            return;
        };
        let request = &asked.request;
        let seen = Seen {
            client: &asked.name,
            method: request.method,
            content_type: request.content_type.as_deref(),
            body: request.body.as_ref(),
            object: Some(&object),
            status: asked.path().ends_with("/status"),
            current: self.store.get(&object),
            observed: self.observed.get(&asked.program, key),
        };
        let Some(injection) = interferer.before(&seen) else {
            return;
        };
        let before = self.live.before(&self.store, &injection.request);
        let outcome = self.commit(&injection.request, &injection.actor, clock.now_ms, io);
        let index = self.trace.next_index();
        let mut step = step_json(
            index,
            INTERFERER,
            clock.trace_ms(),
            &injection.request,
            &outcome.response,
            outcome.revision,
            &outcome.lost_updates,
        );
        if let Value::Object(m) = &mut step {
            m.insert("interference".into(), injection.to_json());
        }
        io.trace_lines.push(self.trace.push(step));
        let rec = LiveRequest {
            program: INTERFERER.into(),
            name: injection.actor.name.clone(),
            command: None,
            session: None,
            table: false,
            request: injection.request.clone(),
            response: outcome.response.clone(),
            revision: outcome.revision,
            clock_nanos: clock.nanos(),
            interference: Some(injection.to_json()),
        };
        io.live_events
            .push(self.live.record(before, &self.store, rec, &outcome));
    }

    /// `--interfere scenario FILE`: runs the scripted world's next request before a real one
    /// (sent to the store through [`Via`]: the watch cache, the request's clock, the one
    /// generator) and traces it as a step of the scripted client with its `interference`.
    /// Nothing when it has nothing more to send. A panic in the engine or the store (a bug)
    /// ends the scripted world; the store is kept.
    fn scripted_before(&mut self, asked: &Asked, clock: Clock, io: &mut Io) {
        let Lab {
            scripted,
            store,
            cache,
            rng,
            ..
        } = self;
        let Some(world) = scripted.as_mut() else {
            return;
        };
        let request = &asked.request;
        let path = request.path.split('?').next().unwrap_or("");
        let what = format!("{} {path}", request.method.as_str());
        let mut via = Via {
            cache,
            rng,
            now_ms: clock.now_ms,
        };
        let injected = match catch_unwind(AssertUnwindSafe(|| {
            world.before(store, &mut via, &asked.name, &what)
        })) {
            Ok(i) => i,
            Err(_) => {
                *scripted = None;
                return;
            }
        };
        let Some(inj) = injected else { return };
        let rec = &inj.record;
        if rec.revision.is_some() {
            io.revision_moved = true;
        }
        let ok = rec
            .response
            .as_ref()
            .is_some_and(|r| (200..300).contains(&r.code));
        if let (true, Some(t)) = (ok, &rec.target) {
            if let Resource::Custom { plural, group } = &t.resource {
                self.customs.insert((plural.clone(), group.clone()));
            }
        }
        let (Some(req), Some(resp)) = (&rec.request, &rec.response) else {
            return;
        };
        let index = self.trace.next_index();
        let mut step = rvlab_core::trace::TraceStep {
            index,
            client: &inj.client,
            line: Some(rec.line),
            statement: &rec.statement,
            clock_ms: clock.trace_ms(),
            request: Some(req),
            response: Some(resp),
            mark: rvlab_core::engine::mark(resp, !rec.lost_updates.is_empty()),
            revision: rec.revision,
            narration: Some(&rec.narration),
            lost_updates: &rec.lost_updates,
        }
        .to_json();
        if let Value::Object(m) = &mut step {
            m.insert("interference".into(), inj.to_json());
        }
        io.trace_lines.push(self.trace.push(step));
    }

    /// `--stale-reads K`: a GET's answer swapped for an older state's when the rule says so;
    /// the trace step's `stale_read` member.
    fn stale_read(
        &mut self,
        asked: &Asked,
        actor: &Actor,
        now_ms: u64,
        outcome: &mut Outcome,
    ) -> Option<Value> {
        let kept = self.stale.as_mut()?;
        let fresh = Fresh {
            target: &asked.target,
            path: asked.path(),
            pairs: &asked.pairs,
            program: &asked.program,
            request: &asked.request,
            actor,
            store: &self.store,
            rng: &self.rng,
            now_ms,
        };
        kept.instead(fresh, outcome)
    }

    /// The books after a served request: a custom resource that answered is served from now
    /// on (discovery); unless it was a dry run the client observed its answer; the trace step
    /// (with its `stale_read`). Returns the request as traced.
    fn books(
        &mut self,
        asked: &Asked,
        outcome: &Outcome,
        stale_read: Option<&Value>,
        clock: Clock,
        io: &mut Io,
    ) -> Request {
        if let UrlTarget::Object((g, p, _, _)) | UrlTarget::Collection(g, p, _) = &asked.target {
            if g.contains('.') && (200..300).contains(&outcome.response.code) {
                self.customs.insert((p.clone(), g.clone()));
            }
        }
        if !asked.dry_run() {
            self.observed.record(
                &asked.program,
                &asked.target,
                outcome.response.code,
                &outcome.response.body,
                outcome.revision,
            );
        }
        let traced = asked.traced();
        let index = self.trace.next_index();
        let mut step = step_json(
            index,
            &asked.name,
            clock.trace_ms(),
            &traced,
            &outcome.response,
            outcome.revision,
            &outcome.lost_updates,
        );
        if let (Some(s), Value::Object(m)) = (stale_read, &mut step) {
            m.insert("stale_read".into(), s.clone());
        }
        io.trace_lines.push(self.trace.push(step));
        traced
    }
}
