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
    /// `--stale-reads K`: the last K writes' undo and the decisions.
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

    /// The state a watch starts from and its revision: `None` when stale reads are off.
    pub fn watch_state(&self) -> Option<(Store, u64)> {
        self.stale.as_ref().map(|k| k.watch_state(&self.store))
    }

    /// The revision a watch is served up to: `None` when stale reads are off.
    pub fn watch_revision(&self) -> Option<u64> {
        self.stale.as_ref().map(|k| k.watch_revision(&self.store))
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
        // Stale reads keep the undo of each write, not a copy of the store.
        let mut undo = self.stale.is_some().then(|| self.store.undo_point(request));
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
            self.store
                .keep_recent_events(crate::limits::STORE_EVENTS_KEPT);
            if let (Some(kept), Some(mut undo)) = (self.stale.as_mut(), undo.take()) {
                undo.completed(&outcome);
                kept.wrote(undo);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interfere::{InterferenceSettings, Policy, ScenarioFile, INTERFERER};
    use crate::stale::StaleReadSettings;
    use rvlab_core::store::Method;
    use serde_json::json;

    const CM: &str = "/api/v1/namespaces/default/configmaps";
    const SETUP: &str = "object configmap/x at resourceVersion 100:\n    data.x = \"initial\"\n";

    fn store_of(text: &str) -> Store {
        let parsed = rvlab_core::lang::parse(text);
        let scenario = parsed.scenario.expect("parses");
        let mut store = rvlab_core::engine::World::new(&scenario, 0)
            .expect("sets up")
            .store;
        store.set_strict_namespaces(true);
        store
    }

    fn lab() -> Lab {
        Lab::new(store_of(SETUP), Rng::new(7), "test", 1 << 20)
    }

    /// The `n`-th millisecond of the server's life.
    fn at(n: u64) -> Clock {
        Clock {
            now_ms: 1_000_000 + n,
            elapsed: Duration::from_millis(n),
        }
    }

    fn key(name: &str) -> UrlTarget {
        UrlTarget::Object((
            String::new(),
            "configmaps".into(),
            "default".into(),
            name.into(),
        ))
    }

    /// A request of the program `who` (its User-Agent's product, no `fieldManager` sent), as
    /// the server hands it over: a write names `who` as its manager, as `handler` does.
    fn asked(
        who: &str,
        method: Method,
        path_q: &str,
        target: UrlTarget,
        body: Option<Value>,
    ) -> Asked {
        let pairs: Vec<(String, String)> = path_q
            .split_once('?')
            .map(|(_, q)| {
                q.split('&')
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let writes = matches!(method, Method::Post | Method::Put | Method::Patch);
        let path = if writes {
            let sep = if path_q.contains('?') { '&' } else { '?' };
            format!("{path_q}{sep}fieldManager={who}")
        } else {
            path_q.to_string()
        };
        let content_type = match (method, &body) {
            (_, None) => None,
            (Method::Patch, Some(_)) => Some("application/merge-patch+json".to_string()),
            (_, Some(_)) => Some("application/json".to_string()),
        };
        Asked {
            request: Request {
                method,
                path,
                content_type: content_type.clone(),
                body,
            },
            target,
            path_q: path_q.into(),
            pairs,
            name: who.into(),
            program: who.into(),
            sent_type: content_type,
            kubectl_command: None,
            kubectl_session: None,
            table: false,
        }
    }

    fn get(lab: &mut Lab, who: &str, name: &str, n: u64) -> Served {
        lab.serve(
            asked(who, Method::Get, &format!("{CM}/{name}"), key(name), None),
            at(n),
        )
    }

    fn steps(lab: &Lab) -> Vec<Value> {
        lab.trace.document()["steps"].as_array().cloned().unwrap()
    }

    fn rv(body: &Value) -> &str {
        body["metadata"]["resourceVersion"].as_str().unwrap_or("")
    }

    fn programs(lab: &Lab) -> Vec<String> {
        lab.live.recorded().map(|r| r.program.clone()).collect()
    }

    #[test]
    fn a_create_then_a_stale_update_is_answered_409_and_traced_and_live() {
        let mut lab = lab();
        let y = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "y", "namespace": "default"}, "data": {"k": "1"}});
        let created = lab.serve(
            asked(
                "alice",
                Method::Post,
                CM,
                UrlTarget::Collection(String::new(), "configmaps".into(), Some("default".into())),
                Some(y),
            ),
            at(1),
        );
        assert_eq!(created.outcome.response.code, 201);
        assert_eq!(created.outcome.revision, Some(101));
        assert!(created.io.revision_moved);
        assert_eq!(created.io.trace_lines.len(), 1);
        assert_eq!(created.io.live_events.len(), 1);
        // bob reads y at 101; alice changes it (102); bob's update from 101 is refused.
        let read = get(&mut lab, "bob", "y", 2);
        assert_eq!(read.outcome.response.code, 200);
        assert!(!read.io.revision_moved);
        let mut copy = read.outcome.response.body.clone();
        assert_eq!(rv(&copy), "101");
        let patched = lab.serve(
            asked(
                "alice",
                Method::Patch,
                &format!("{CM}/y"),
                key("y"),
                Some(json!({"data": {"k": "2"}})),
            ),
            at(3),
        );
        assert_eq!(patched.outcome.revision, Some(102));
        copy["data"]["k"] = json!("from-bob");
        let put = lab.serve(
            asked("bob", Method::Put, &format!("{CM}/y"), key("y"), Some(copy)),
            at(4),
        );
        assert_eq!(put.outcome.response.code, 409);
        assert_eq!(put.outcome.response.body["reason"], "Conflict");
        assert_eq!(put.outcome.revision, None);
        assert!(!put.io.revision_moved);
        assert_eq!(lab.store.revision(), 102);
        // The trace: four steps in the store's order, the path as sent, the clock the server's.
        let steps = steps(&lab);
        assert_eq!(steps.len(), 4);
        let last = &steps[3];
        assert_eq!(last["index"], 3);
        assert_eq!(last["client"], "bob");
        assert_eq!(last["statement"], format!("PUT {CM}/y"));
        assert_eq!(last["request"]["path"], format!("{CM}/y"));
        assert_eq!(last["request"]["content_type"], "application/json");
        assert_eq!(last["response"]["code"], 409);
        assert_eq!(last["revision"], Value::Null);
        assert_eq!(last["clock_ms"], 4.0);
        assert_eq!(last["line"], Value::Null);
        assert_eq!(steps[0]["response"]["code"], 201);
        assert_eq!(steps[0]["revision"], 101);
        // The I/O handed back is the trace's own text, line for line.
        assert_eq!(put.io.trace_lines, vec![last.to_string()]);
        // The live view has every request, in order; bob observed 101 of y.
        assert_eq!(programs(&lab), ["alice", "bob", "alice", "bob"]);
        assert_eq!(
            lab.observed.get(
                "bob",
                &("".into(), "configmaps".into(), "default".into(), "y".into())
            ),
            101
        );
        assert!(lab.customs.is_empty());
    }

    #[test]
    fn the_interferer_writes_first_and_is_traced_before_the_request() {
        let mut lab = lab();
        lab.interferer =
            Some(Interferer::new(InterferenceSettings::new(Policy::ReadWrite)).unwrap());
        let read = get(&mut lab, "bob", "x", 1);
        assert_eq!(
            read.io.trace_lines.len(),
            1,
            "a read is not interfered with"
        );
        let mut copy = read.outcome.response.body.clone();
        copy["data"]["x"] = json!("from-bob");
        let put = lab.serve(
            asked("bob", Method::Put, &format!("{CM}/x"), key("x"), Some(copy)),
            at(2),
        );
        // The interferer's write (101) came first: bob's update from 100 is a conflict.
        assert_eq!(put.outcome.response.code, 409);
        assert_eq!(lab.store.revision(), 101);
        assert!(put.io.revision_moved);
        assert_eq!(put.io.trace_lines.len(), 2);
        assert_eq!(put.io.live_events.len(), 2);
        let steps = steps(&lab);
        assert_eq!(steps.len(), 3);
        let inj = &steps[1];
        assert_eq!(inj["index"], 1);
        assert_eq!(inj["client"], INTERFERER);
        assert_eq!(inj["request"]["method"], "PATCH");
        assert_eq!(inj["revision"], 101);
        assert_eq!(inj["interference"]["policy"], "read-write");
        assert_eq!(inj["interference"]["client"], "bob");
        assert_eq!(inj["interference"]["object"], "configmap/x");
        assert_eq!(steps[2]["client"], "bob");
        assert_eq!(steps[2]["response"]["code"], 409);
        assert!(steps[2].get("interference").is_none());
        assert_eq!(programs(&lab), ["bob", INTERFERER, "bob"]);
        let live_inj = lab.live.recorded().nth(1).unwrap();
        assert_eq!(
            live_inj.interference.as_ref().unwrap()["policy"],
            "read-write"
        );
        // The store's value carries the interferer's annotation.
        let x = lab
            .store
            .get(
                &object_of(&("".into(), "configmaps".into(), "default".into(), "x".into()))
                    .unwrap(),
            )
            .unwrap();
        assert!(
            x["metadata"]["annotations"]["rvlab.dev/interference"].is_string(),
            "{x}"
        );
    }

    #[test]
    fn a_dry_run_is_traced_but_not_stored_observed_interfered_with_or_live() {
        let mut lab = lab();
        lab.interferer =
            Some(Interferer::new(InterferenceSettings::new(Policy::ReadWrite)).unwrap());
        let read = get(&mut lab, "bob", "x", 1);
        let mut copy = read.outcome.response.body.clone();
        copy["data"]["x"] = json!("dry");
        let path = format!("{CM}/x?dryRun=All");
        let dry = lab.serve(
            asked("bob", Method::Put, &path, key("x"), Some(copy)),
            at(2),
        );
        assert_eq!(dry.outcome.response.code, 200);
        assert_eq!(dry.outcome.response.body["data"]["x"], "dry");
        assert_eq!(lab.store.revision(), 100);
        assert!(!dry.io.revision_moved);
        assert!(dry.io.live_events.is_empty());
        assert_eq!(dry.io.trace_lines.len(), 1, "no interferer step");
        let steps = steps(&lab);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1]["request"]["path"], path);
        assert_eq!(steps[1]["client"], "bob");
        assert_eq!(programs(&lab), ["bob"]);
        // A dry-run create: not observed either.
        let z = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "z", "namespace": "default"}});
        let coll =
            UrlTarget::Collection(String::new(), "configmaps".into(), Some("default".into()));
        let created = lab.serve(
            asked(
                "bob",
                Method::Post,
                &format!("{CM}?dryRun=All"),
                coll,
                Some(z),
            ),
            at(3),
        );
        assert_eq!(created.outcome.response.code, 201);
        assert_eq!(get(&mut lab, "bob", "z", 4).outcome.response.code, 404);
        assert_eq!(
            lab.observed.get(
                "bob",
                &("".into(), "configmaps".into(), "default".into(), "z".into())
            ),
            0
        );
    }

    #[test]
    fn a_panic_in_the_store_call_is_a_500_and_the_store_serves_on() {
        let mut lab = lab();
        lab.panic_on = Some("boom".into());
        let boom = get(&mut lab, "bob", "boom", 1);
        assert_eq!(boom.outcome.response.code, 500);
        let body = &boom.outcome.response.body;
        assert_eq!(body["reason"], "InternalError");
        assert_eq!(body["code"], 500);
        assert_eq!(body["status"], "Failure");
        assert!(body["message"]
            .as_str()
            .unwrap()
            .starts_with("Internal error occurred"));
        assert_eq!(steps(&lab)[0]["response"]["code"], 500);
        assert_eq!(programs(&lab), ["bob"]);
        let patched = lab.serve(
            asked(
                "alice",
                Method::Patch,
                &format!("{CM}/x"),
                key("x"),
                Some(json!({"data": {"x": "after"}})),
            ),
            at(2),
        );
        assert_eq!(patched.outcome.response.code, 200);
        assert_eq!(patched.outcome.revision, Some(101));
        let read = get(&mut lab, "bob", "x", 3);
        assert_eq!(read.outcome.response.body["data"]["x"], "after");
        assert_eq!(steps(&lab).len(), 3);
    }

    #[test]
    fn stale_reads_answer_from_the_older_state_then_fresh() {
        let mut lab = lab();
        lab.stale = Some(
            KeptStates::new(
                StaleReadSettings {
                    writes_behind: 1,
                    max_stale: 1,
                },
                &lab.store,
            )
            .unwrap(),
        );
        let patched = lab.serve(
            asked(
                "alice",
                Method::Patch,
                &format!("{CM}/x"),
                key("x"),
                Some(json!({"data": {"x": "new"}})),
            ),
            at(1),
        );
        assert_eq!(patched.outcome.revision, Some(101));
        assert_eq!(lab.watch_state().map(|(_, rv)| rv), Some(100));
        let stale = get(&mut lab, "bob", "x", 2);
        assert_eq!(rv(&stale.outcome.response.body), "100");
        assert_eq!(stale.outcome.response.body["data"]["x"], "initial");
        let s = &steps(&lab)[1];
        assert_eq!(s["response"]["body"]["data"]["x"], "initial");
        assert_eq!(s["stale_read"]["served_revision"], 100);
        assert_eq!(s["stale_read"]["current_revision"], 101);
        assert_eq!(s["stale_read"]["writes_behind"], 1);
        // The live step carries the stale read; bob observed what he was answered.
        let live = lab.live.recorded().nth(1).unwrap();
        assert_eq!(live.interference.as_ref().unwrap()["served_revision"], 100);
        let x = ("".into(), "configmaps".into(), "default".into(), "x".into());
        assert_eq!(lab.observed.get("bob", &x), 100);
        // At most one stale answer for bob on x: then fresh.
        let fresh = get(&mut lab, "bob", "x", 3);
        assert_eq!(rv(&fresh.outcome.response.body), "101");
        assert!(steps(&lab)[2].get("stale_read").is_none());
        assert_eq!(lab.observed.get("bob", &x), 101);
    }

    #[test]
    fn a_scripted_request_is_served_and_traced_before_the_real_one() {
        let text = "object configmap/x at resourceVersion 100:\n    data.x = \"initial\"\n\nclient alice:\n    obj = get configmap/x\n    obj.data.a = \"from-alice\"\n    update obj\n";
        let settings = InterferenceSettings::scenario(ScenarioFile {
            name: "alice.rvl".into(),
            text: text.into(),
        });
        let mut world = Scripted::new(&settings, 1_000_000).unwrap();
        let store = world.take_store();
        let rng = world.world().rng.clone();
        let mut lab = Lab::new(store, rng, "test", 1 << 20);
        lab.scripted = Some(world);
        // Before bob's first read: alice's get; before his second: her update (101).
        let first = get(&mut lab, "bob", "x", 1);
        assert_eq!(first.io.trace_lines.len(), 2);
        assert!(!first.io.revision_moved);
        let second = get(&mut lab, "bob", "x", 2);
        assert!(second.io.revision_moved);
        assert_eq!(second.outcome.response.body["data"]["a"], "from-alice");
        let steps = steps(&lab);
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[0]["client"], "alice");
        assert_eq!(steps[0]["request"]["method"], "GET");
        assert_eq!(steps[0]["interference"]["client"], "bob");
        assert!(steps[0]["line"].is_u64());
        assert_eq!(steps[2]["client"], "alice");
        assert_eq!(steps[2]["request"]["method"], "PUT");
        assert_eq!(steps[2]["revision"], 101);
        assert_eq!(steps[3]["client"], "bob");
        // The scripted requests are not the live view's (it shows the real clients).
        assert_eq!(programs(&lab), ["bob", "bob"]);
        assert_eq!(second.io.live_events.len(), 1);
    }

    #[test]
    fn a_refused_request_is_traced_only() {
        let mut lab = lab();
        let request = Request {
            method: Method::Post,
            path: format!("{CM}?x=1"),
            content_type: Some("text/plain".into()),
            body: None,
        };
        let response = Response {
            code: 415,
            body: json!({"code": 415}),
        };
        let io = lab.refused("curl", &request, &response, at(5));
        assert_eq!(io.trace_lines.len(), 1);
        assert!(io.live_events.is_empty() && !io.revision_moved);
        let s = &steps(&lab)[0];
        assert_eq!(s["client"], "curl");
        assert_eq!(s["statement"], format!("POST {CM}?x=1"));
        assert_eq!(s["response"]["code"], 415);
        assert_eq!(s["clock_ms"], 5.0);
        assert!(lab.live.is_empty());
    }
}
