//! The live view of `rvlab serve` (issue #15): every request a real client sends, as the step
//! view the page's Live view shows (docs/serve.md, "The live view").
//!
//! The server keeps one [`Live`] next to its store, under the same lock: [`Live::before`] is
//! asked before a request is served and [`Live::record`] after, and returns the event the
//! server pushes to the page (`GET /rvlab/v1/live`, server-sent events). Each event is the
//! core's [`StepView`] (narration, mark, request and response, the revision written) with the
//! object after the step as YAML ([`ObjectView`]) and the lanes: one per real client program
//! (`kubectl`, `python`, `kube-rs`, the interferer), each with what it last read (the
//! [`crate::limits::LANE_READS`] objects it read last) and whether the server has moved past
//! it (the stale badges). The page renders these and holds no
//! domain logic.
//!
//! Bounded: the history keeps the newest [`crate::limits::LIVE_HISTORY_STEPS`] steps and
//! [`crate::limits::LIVE_HISTORY_BYTES`] of event text; `dropped` counts the steps let go,
//! and the history's start (the objects before its first kept step) rolls forward as steps
//! drop, so [`Live::scenario`] ("Save as scenario") always starts from a state that existed.
//!
//! Event JSON (`v` 1; docs/json-trace.md, "The live view's events"):
//! - `hello`: `{"v":1, "kind":"hello", "server": ID, "dropped": N, "bound": B, "objects": [OBJ],
//!   "revision": R}`: sent first on every connection, then every kept `step`; a page that sees
//!   a new `server` (a restart) starts over;
//! - `step`: `{"v":1, "kind":"step", "index": I, "dropped": N, "step": STEP, "object": OBJ |
//!   null, "gone": "configmap/x" | null, "lanes": [LANE], "command": "kubectl apply" | null,
//!   "interference": {...} | null}`, where STEP is [`StepView::to_json`], OBJ
//!   `{"name", "resource_version", "yaml"}` and LANE `{"name", "letter", "reads": [{"object",
//!   "revision", "stale", "label"}]}`.

use rvlab_core::engine::{self, request_target, request_verb, StepKind, StepRecord, WriteKind};
use rvlab_core::json::object;
use rvlab_core::store::{Method, ObjectRef, Outcome, Request, Response, Store};
use rvlab_core::vecmap::VecMap;
use rvlab_core::view::{self, ObjectView};
use serde_json::Value;
use std::collections::VecDeque;

/// The version of the live events (`"v"`).
pub const LIVE_VERSION: u64 = 1;

/// At most this many lanes; the clients after them share the last one.
pub const MAX_LANES: usize = 12;

/// How many write kinds the narration remembers (it names who moved an object since a stale
/// read: older writes are narrated as updates).
const VERBS_KEPT: usize = 4096;

/// One request a real client sent, as the history keeps it (for the events and for
/// [`Live::scenario`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRequest {
    /// The lane: the client's program (`kubectl`, `python`, `kube-rs`, `rvlab-interferer`).
    pub program: String,
    /// The writer's name (its field manager), as the trace and managedFields name it.
    pub name: String,
    /// kubectl's `Kubectl-Command` header (`kubectl apply`).
    pub command: Option<String>,
    /// kubectl's `Kubectl-Session` header: one per kubectl invocation.
    pub session: Option<String>,
    /// Whether the answer was asked for as a Table (a human `kubectl get`).
    pub table: bool,
    /// The request as the store served it (path with query, decoded body).
    pub request: Request,
    pub response: Response,
    /// The revision the request wrote.
    pub revision: Option<u64>,
    /// The wall-clock time since the server started, nanoseconds (the step's clock).
    pub clock_nanos: u64,
    /// The interferer's reason (its `interference` JSON), for its own writes.
    pub interference: Option<Value>,
}

/// What [`Live::before`] notes about a request before the store serves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Before {
    target: Option<ObjectRef>,
    revision: Option<u64>,
}

/// One kept step.
#[derive(Debug, Clone)]
struct Kept {
    recorded: LiveRequest,
    target: Option<ObjectRef>,
    /// The target after the step, as JSON text (`None`: absent): it becomes the start's when
    /// the step is dropped.
    after: Option<String>,
    /// The event text pushed for it.
    event: String,
}

/// A lane: one client program.
#[derive(Debug, Clone)]
struct Lane {
    program: String,
    /// The revision it last observed of each of the [`crate::limits::LANE_READS`] objects it read last
    /// (`configmap/my-config` → (101, when)), `when` counting its reads.
    reads: VecMap<ObjectRef, (u64, u64)>,
    /// Reads so far (the `when` of the next).
    count: u64,
}

impl Lane {
    /// Notes a read of `o` at `rv`; past [`crate::limits::LANE_READS`] objects, the one read longest ago is
    /// forgotten.
    fn read(&mut self, o: ObjectRef, rv: u64) {
        use crate::limits::LANE_READS;
        self.count += 1;
        self.reads.insert(o, (rv, self.count));
        if self.reads.len() > LANE_READS {
            let oldest = self
                .reads
                .iter()
                .min_by_key(|(_, (_, when))| *when)
                .map(|(o, _)| o.clone());
            if let Some(o) = oldest {
                self.reads.remove(&o);
            }
        }
    }
}

/// The live history.
#[derive(Debug, Clone)]
pub struct Live {
    server: String,
    /// The objects before the first kept step, and the revision then.
    /// Kept as JSON text: a copy of every object the history has rolled past, so as values
    /// it doubled the store's memory (measured: 22 of 134 MB with 10,000 objects).
    start: VecMap<ObjectRef, String>,
    start_revision: u64,
    kept: VecDeque<Kept>,
    bytes: usize,
    max_steps: usize,
    max_bytes: usize,
    dropped: u64,
    next: u64,
    lanes: Vec<Lane>,
    verbs: VecMap<u64, WriteKind>,
    /// Other servers write the same store (replicas on etcd): their writes are not steps.
    shared: bool,
}

fn revision_of(obj: &Value) -> Option<u64> {
    obj["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

fn object_json(v: &ObjectView) -> Value {
    object(vec![
        ("name", v.name.clone().into()),
        ("resource_version", v.resource_version.clone().into()),
        ("yaml", v.yaml.clone().into()),
    ])
}

impl Live {
    /// The history of a server whose store starts as `store`; `server` names this server
    /// instance (a page that sees another one starts over).
    pub fn new(store: &Store, server: &str, max_steps: usize, max_bytes: usize) -> Live {
        Live {
            server: server.to_string(),
            start: VecMap::from_vec(
                store
                    .objects()
                    .map(|(r, o)| (r.clone(), o.to_string()))
                    .collect(),
            ),
            start_revision: store.revision(),
            kept: VecDeque::new(),
            bytes: 0,
            max_steps: max_steps.max(1),
            max_bytes,
            dropped: 0,
            next: 0,
            lanes: Vec::new(),
            verbs: VecMap::new(),
            shared: false,
        }
    }

    /// The store is written by other servers too (`rvlab serve --etcd`'s replicas): the
    /// history has only this server's requests, and a saved scenario says so.
    pub fn shared_with_other_servers(&mut self) {
        self.shared = true;
    }

    /// Whether other servers write the store too ([`Live::shared_with_other_servers`]).
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Notes what the live view needs from the store before it serves `request`.
    pub fn before(&self, store: &Store, request: &Request) -> Before {
        let target = request_target(request);
        let revision = target
            .as_ref()
            .and_then(|t| store.get(t))
            .and_then(revision_of);
        Before { target, revision }
    }

    /// How many steps were let go (the oldest first).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The number of steps recorded so far (kept or dropped).
    pub fn len(&self) -> u64 {
        self.next
    }

    /// No step yet.
    pub fn is_empty(&self) -> bool {
        self.next == 0
    }

    /// The steps kept, oldest first.
    pub fn recorded(&self) -> impl Iterator<Item = &LiveRequest> + '_ {
        self.kept.iter().map(|k| &k.recorded)
    }

    /// The objects before the first kept step, and the store's revision then.
    pub fn start(&self) -> (Vec<Value>, u64) {
        (
            self.start
                .iter()
                .map(|(_, o)| serde_json::from_str(o).unwrap_or(Value::Null))
                .collect(),
            self.start_revision,
        )
    }

    /// The `hello` event: sent first on every connection.
    pub fn hello(&self) -> String {
        let objects: Vec<Value> = self
            .start()
            .0
            .iter()
            .map(|o| object_json(&view::object_view(o)))
            .collect();
        object(vec![
            ("v", LIVE_VERSION.into()),
            ("kind", "hello".into()),
            ("server", self.server.clone().into()),
            ("dropped", self.dropped.into()),
            ("bound", (self.max_steps as u64).into()),
            ("objects", objects.into()),
            ("revision", self.start_revision.into()),
        ])
        .to_string()
    }

    /// Every kept step's event text, oldest first (sent after [`Live::hello`]).
    pub fn events(&self) -> impl Iterator<Item = &str> + '_ {
        self.kept.iter().map(|k| k.event.as_str())
    }

    fn lane(&mut self, program: &str) -> u32 {
        if let Some(i) = self.lanes.iter().position(|l| l.program == program) {
            return i as u32;
        }
        if self.lanes.len() >= MAX_LANES {
            return (MAX_LANES - 1) as u32;
        }
        self.lanes.push(Lane {
            program: program.to_string(),
            reads: VecMap::new(),
            count: 0,
        });
        (self.lanes.len() - 1) as u32
    }

    fn observe(&mut self, lane: u32, rec: &LiveRequest, target: Option<&ObjectRef>) {
        let Some(l) = self.lanes.get_mut(lane as usize) else {
            return;
        };
        let r = &rec.response;
        if !(200..300).contains(&r.code) {
            return;
        }
        if let Some(items) = r.body["items"].as_array() {
            // A list: every item it carried (the list's path names the collection).
            let base =
                rvlab_core::store::path::parse(rec.request.path.split('?').next().unwrap_or(""));
            for item in items {
                let (Ok(b), Some(name), Some(rv)) = (
                    base.as_ref(),
                    item["metadata"]["name"].as_str(),
                    revision_of(item),
                ) else {
                    continue;
                };
                let ns = item["metadata"]["namespace"].as_str().unwrap_or("");
                let o = ObjectRef {
                    resource: b.resource.clone(),
                    namespace: ns.to_string(),
                    name: name.to_string(),
                };
                l.read(o, rv);
            }
            return;
        }
        let Some(t) = target else { return };
        if rec.request.method == Method::Delete {
            l.reads.remove(t);
        } else if let Some(rv) = revision_of(&r.body).or(rec.revision) {
            l.read(t.clone(), rv);
        }
    }

    fn lanes_json(&self, store: &Store) -> Value {
        let lanes: Vec<Value> = self
            .lanes
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let reads: Vec<Value> = l
                    .reads
                    .iter()
                    .map(|(o, (rv, _))| {
                        let current = store.get(o).and_then(revision_of);
                        let (stale, label) = match current {
                            Some(c) if c == *rv => (false, "current".to_string()),
                            Some(c) => (true, format!("stale: the server is at {c}")),
                            None => (true, "stale: the object is gone".to_string()),
                        };
                        object(vec![
                            ("object", o.to_string().into()),
                            ("revision", (*rv).into()),
                            ("stale", stale.into()),
                            ("label", label.into()),
                        ])
                    })
                    .collect();
                object(vec![
                    ("name", l.program.clone().into()),
                    (
                        "letter",
                        rvlab_core::schedule::letter(i as u32).to_string().into(),
                    ),
                    ("reads", reads.into()),
                ])
            })
            .collect();
        lanes.into()
    }

    /// Records a served request (`before` from [`Live::before`], `store` after it) and returns
    /// its event text.
    pub fn record(
        &mut self,
        before: Before,
        store: &Store,
        rec: LiveRequest,
        outcome: &Outcome,
    ) -> String {
        let lane = self.lane(&rec.program);
        let verb = request_verb(&rec.request);
        if let Some(r) = outcome.revision {
            self.verbs.insert(r, verb);
            if self.verbs.len() > VERBS_KEPT {
                let oldest = self.verbs.iter().next().map(|(k, _)| *k);
                if let Some(k) = oldest {
                    self.verbs.remove(&k);
                }
            }
        }
        let target = before.target.clone();
        let after_obj = target.as_ref().and_then(|t| store.get(t)).cloned();
        let narration = match &target {
            Some(t) => engine::narrate_request(&engine::RequestCtx {
                client: &rec.name,
                verb,
                target: t,
                request: &rec.request,
                response: &rec.response,
                revision: outcome.revision,
                before: before.revision,
                after: after_obj.as_ref().and_then(revision_of),
                lost: &outcome.lost_updates,
                store,
                verbs: &self.verbs,
            }),
            None => format!(
                "{} listed {} ({})",
                rec.name,
                rec.request.path.split('?').next().unwrap_or(""),
                view::status_line(rec.response.code)
            ),
        };
        let statement = match &rec.command {
            Some(c) => c.clone(),
            None => format!("{} {}", rec.request.method.as_str(), rec.request.path),
        };
        let record = StepRecord {
            client: lane,
            line: 0,
            statement,
            clock_nanos: rec.clock_nanos,
            action: StepKind::Request,
            verb: Some(verb),
            target: target.clone(),
            request: Some(rec.request.clone()),
            response: Some(rec.response.clone()),
            sent_resource_version: engine::sent_resource_version(&rec.request),
            stored_revision: before.revision,
            revision: outcome.revision,
            narration,
            lost_updates: outcome.lost_updates.clone(),
            mark: engine::mark(&rec.response, !outcome.lost_updates.is_empty()),
            sleep_nanos: None,
            finished: None,
            kubectl: None,
        };
        let step = view::step_view_named(&rec.program, self.next as u32, &record);
        self.observe(lane, &rec, target.as_ref());
        let gone = match (&target, &after_obj) {
            (Some(t), None) if (200..300).contains(&rec.response.code) => Some(t.to_string()),
            _ => None,
        };
        let event = object(vec![
            ("v", LIVE_VERSION.into()),
            ("kind", "step".into()),
            ("index", self.next.into()),
            ("dropped", self.dropped.into()),
            ("step", step.to_json()),
            (
                "object",
                after_obj
                    .as_ref()
                    .map(|o| object_json(&view::object_view(o)))
                    .unwrap_or(Value::Null),
            ),
            ("gone", gone.map(Value::from).unwrap_or(Value::Null)),
            ("lanes", self.lanes_json(store)),
            (
                "command",
                rec.command.clone().map(Value::from).unwrap_or(Value::Null),
            ),
            (
                "interference",
                rec.interference.clone().unwrap_or(Value::Null),
            ),
        ])
        .to_string();
        self.next += 1;
        self.bytes += event.len();
        self.kept.push_back(Kept {
            recorded: rec,
            target,
            after: after_obj.as_ref().map(Value::to_string),
            event: event.clone(),
        });
        while self.kept.len() > self.max_steps
            || (self.bytes > self.max_bytes && self.kept.len() > 1)
        {
            let Some(k) = self.kept.pop_front() else {
                break;
            };
            self.bytes -= k.event.len();
            self.dropped += 1;
            // Roll the history's start forward past the dropped step.
            if let Some(t) = &k.target {
                match k.after {
                    Some(o) => self.start.insert(t.clone(), o),
                    None => {
                        self.start.remove(t);
                    }
                }
            }
            if let Some(r) = k.recorded.revision {
                self.start_revision = self.start_revision.max(r);
            }
        }
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvlab_core::engine::Mark;
    use rvlab_core::rng::Rng;
    use rvlab_core::store::{Actor, Env};
    use rvlab_core::view::StepView;
    use serde_json::json;

    const CM: &str = "/api/v1/namespaces/default/configmaps/my-config";

    fn store() -> Store {
        let s = rvlab_core::lang::parse(
            "object configmap/my-config at resourceVersion 100:\n    data.key = \"initial\"\n",
        );
        let sc = s.scenario.expect("parses");
        rvlab_core::engine::World::new(&sc, 0)
            .expect("sets up")
            .store
    }

    /// Serves a request as the server does (base revision: what `program` last read) and
    /// records it.
    fn send(
        live: &mut Live,
        store: &mut Store,
        program: &str,
        method: Method,
        body: Option<Value>,
        base: u64,
    ) -> Value {
        let request = Request {
            method,
            path: format!("{CM}?fieldManager={program}"),
            content_type: body.as_ref().map(|_| "application/json".to_string()),
            body,
        };
        let before = live.before(store, &request);
        let mut rng = Rng::new(1);
        let outcome = store.handle(
            &request,
            &Actor {
                name: program.into(),
                base_revision: base,
            },
            &mut Env {
                now_ms: 0,
                rng: &mut rng,
            },
        );
        let rec = LiveRequest {
            program: program.into(),
            name: program.into(),
            command: None,
            session: None,
            table: false,
            request,
            response: outcome.response.clone(),
            revision: outcome.revision,
            clock_nanos: 1_500_000,
            interference: None,
        };
        let text = live.record(before, store, rec, &outcome);
        serde_json::from_str(&text).expect("an event is JSON")
    }

    fn put_body(store: &Store, rv: &str, value: &str) -> Value {
        let r = rvlab_core::store::path::parse(CM).expect("a path");
        let t = ObjectRef {
            resource: r.resource,
            namespace: r.namespace,
            name: "my-config".into(),
        };
        let mut o = store.get(&t).expect("exists").clone();
        o["metadata"]["resourceVersion"] = json!(rv);
        o["data"]["key"] = json!(value);
        o
    }

    #[test]
    fn the_seed_story_as_live_events() {
        let mut st = store();
        let mut live = Live::new(&st, "s1", 100, 1 << 20);
        let hello: Value = serde_json::from_str(&live.hello()).unwrap();
        assert_eq!(hello["kind"], "hello");
        assert_eq!(hello["server"], "s1");
        assert_eq!(hello["objects"][0]["name"], "configmap/my-config");
        assert_eq!(hello["objects"][0]["resource_version"], "100");

        let e = send(&mut live, &mut st, "kubectl", Method::Get, None, 0);
        assert_eq!(e["kind"], "step");
        assert_eq!(e["index"], 0);
        assert_eq!(
            e["step"]["narration"],
            "kubectl read configmap/my-config at resourceVersion 100"
        );
        assert_eq!(e["step"]["mark"], "ok");
        assert_eq!(e["lanes"][0]["name"], "kubectl");
        assert_eq!(e["lanes"][0]["reads"][0]["label"], "current");
        assert_eq!(e["object"]["resource_version"], "100");

        let body = put_body(&st, "100", "from-python");
        let e = send(&mut live, &mut st, "python", Method::Put, Some(body), 100);
        assert_eq!(e["step"]["status_line"], "200 OK");
        assert_eq!(e["step"]["revision"], 101);
        assert_eq!(e["step"]["client_index"], 1);
        assert_eq!(e["step"]["letter"], "b");
        assert_eq!(e["lanes"][0]["reads"][0]["stale"], true);
        assert_eq!(
            e["lanes"][0]["reads"][0]["label"],
            "stale: the server is at 101"
        );
        assert_eq!(e["lanes"][1]["reads"][0]["label"], "current");
        assert!(e["object"]["yaml"]
            .as_str()
            .unwrap()
            .contains("key: from-python"));

        // kubectl's stale write: the real 409, narrated with who moved the object.
        let body = put_body(&st, "100", "from-kubectl");
        let e = send(&mut live, &mut st, "kubectl", Method::Put, Some(body), 100);
        assert_eq!(e["step"]["mark"], "conflict");
        assert_eq!(e["step"]["status_line"], "409 Conflict");
        assert_eq!(
            e["step"]["narration"],
            "kubectl's update was rejected with 409 Conflict: kubectl sent resourceVersion 100, but python's update moved configmap/my-config to 101"
        );
        let step = StepView::from_json(&e["step"]).expect("reads back");
        assert_eq!(step.mark, Mark::Conflict);
        assert_eq!(step.sent_resource_version.as_deref(), Some("100"));

        // An unconditional update after a stale read: the lost update, marked and narrated.
        let mut body = put_body(&st, "", "blind");
        body["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("resourceVersion");
        let e = send(&mut live, &mut st, "kubectl", Method::Put, Some(body), 100);
        assert_eq!(e["step"]["mark"], "lost-update");
        assert_eq!(e["step"]["lost_updates"].as_array().unwrap().len(), 1);
        assert_eq!(live.len(), 4);
        assert_eq!(live.events().count(), 4);
    }

    #[test]
    fn a_lane_shows_the_objects_it_read_last() {
        use crate::limits::LANE_READS;
        let cm = |i: usize| ObjectRef {
            resource: rvlab_core::store::Resource::ConfigMap,
            namespace: "default".into(),
            name: format!("cm-{i:03}"),
        };
        let mut lane = Lane {
            program: "python".into(),
            reads: VecMap::new(),
            count: 0,
        };
        for i in 0..100 {
            lane.read(cm(i), i as u64);
        }
        // Read again: now the newest, so the oldest of the others goes first.
        lane.read(cm(84), 500);
        lane.read(cm(100), 100);
        let kept: Vec<(String, u64)> = lane
            .reads
            .iter()
            .map(|(o, (rv, _))| (o.name.clone(), *rv))
            .collect();
        assert_eq!(kept.len(), LANE_READS);
        assert_eq!(kept[0], ("cm-084".to_string(), 500));
        assert_eq!(kept[1].0, "cm-086", "cm-085 was read longest ago");
        assert_eq!(kept[LANE_READS - 1].0, "cm-100");
    }

    #[test]
    fn the_history_is_bounded_and_its_start_rolls_forward() {
        let mut st = store();
        let mut live = Live::new(&st, "s1", 2, 1 << 20);
        for (i, v) in ["a", "b", "c"].iter().enumerate() {
            let rv = (100 + i).to_string();
            let body = put_body(&st, &rv, v);
            let e = send(
                &mut live,
                &mut st,
                "python",
                Method::Put,
                Some(body),
                100 + i as u64,
            );
            assert_eq!(e["step"]["status_code"], 200);
        }
        assert_eq!(live.dropped(), 1);
        assert_eq!(live.events().count(), 2);
        let (objects, revision) = live.start();
        assert_eq!(
            revision, 101,
            "the start is the state after the dropped step"
        );
        assert_eq!(objects[0]["data"]["key"], "a");
        let hello: Value = serde_json::from_str(&live.hello()).unwrap();
        assert_eq!(hello["dropped"], 1);
        assert_eq!(hello["bound"], 2);
        assert_eq!(hello["objects"][0]["resource_version"], "101");
        // The kept events say how many were dropped before them when they were made.
        let first: Value = serde_json::from_str(live.events().next().unwrap()).unwrap();
        assert_eq!(first["index"], 1);
    }

    #[test]
    fn lanes_are_bounded() {
        let mut st = store();
        let mut live = Live::new(&st, "s1", 100, 1 << 20);
        for i in 0..(MAX_LANES + 3) {
            let e = send(&mut live, &mut st, &format!("p{i}"), Method::Get, None, 0);
            let lanes = e["lanes"].as_array().unwrap().len();
            assert_eq!(lanes, (i + 1).min(MAX_LANES));
            assert_eq!(
                e["step"]["client_index"],
                i.min(MAX_LANES - 1) as u64,
                "clients past the bound share the last lane"
            );
        }
    }

    #[test]
    fn every_lesson_step_view_reads_back_from_its_json() {
        for lesson in rvlab_core::lessons::LESSONS {
            let sc = lesson.parse().scenario.expect("a lesson parses");
            let mut run = rvlab_core::run::Run::new(&sc, 0, None).expect("runs");
            run.run_to_end();
            for step in view::steps_view(&run) {
                assert_eq!(
                    StepView::from_json(&step.to_json()).as_ref(),
                    Some(&step),
                    "{}",
                    lesson.id
                );
            }
        }
        assert_eq!(StepView::from_json(&json!({"mark": "nonsense"})), None);
    }
}
