//! The Live view's state (the page's kubectl build, feature `live`; issue #15): what
//! `rvlab serve` pushed over its live endpoint (`<meta name="rvlab-live">`, server-sent
//! events), as the server formatted it. The page holds no domain logic: each `step` event is
//! read back into the core's [`StepView`] ([`StepView::from_json`]) with the lanes, the object
//! and the badges the server computed (`rvlab_instruments::live`, its module docs give the events).
//!
//! Bounded: at most [`MAX_ROWS`] rows; the older ones are counted (`not_shown`). Steps the page
//! never received (the server had dropped them, or they went by while the page was away) are
//! counted from the gaps in the steps' `index` (`server_dropped`).

use super::exercises::ExerciseAction;
use super::{Action, AppState, Restore};
use rvlab_core::view::{ObjectView, StepView};
use serde_json::Value;
use std::rc::Rc;

/// The page keeps at most this many rows (the oldest go first).
pub const MAX_ROWS: usize = 500;

/// The connection to the live endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Not connected yet.
    Connecting,
    /// The server said hello.
    Connected,
    /// The connection broke; the browser tries again by itself.
    Reconnecting,
    /// The browser gave up (the endpoint did not answer with an event stream).
    Closed,
}

impl Connection {
    /// The status line's word.
    pub fn label(self) -> &'static str {
        match self {
            Connection::Connecting => "connecting…",
            Connection::Connected => "connected",
            Connection::Reconnecting => "reconnecting…",
            Connection::Closed => "disconnected: reload the page to connect again",
        }
    }
}

/// What a lane last read of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveRead {
    /// `configmap/my-config`.
    pub object: String,
    pub revision: u64,
    pub stale: bool,
    /// `current`, `stale: the server is at 102`.
    pub label: String,
}

/// A lane: one client program, as of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveLane {
    /// `kubectl`, `python`, `rvlab-interferer`.
    pub name: String,
    pub letter: String,
    pub reads: Vec<LiveRead>,
}

/// One step the server pushed.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRow {
    /// The step's index in the server's history (0-based, counting dropped steps).
    pub index: u64,
    pub step: StepView,
    /// The step's target after it (`None`: no target, or it is gone).
    pub object: Option<ObjectView>,
    /// `configmap/x` when the step deleted its target.
    pub gone: Option<String>,
    /// Every lane after the step.
    pub lanes: Rc<Vec<LiveLane>>,
    /// kubectl's command (`kubectl apply`).
    pub command: Option<String>,
    /// The interferer's reason, when the server injected this write (its JSON, compact).
    pub interference: Option<String>,
}

/// The Live view.
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    /// The live endpoint (`<meta name="rvlab-live" content=…>`); `None`: no Live view.
    pub endpoint: Option<String>,
    /// Whether the Live view is showing.
    pub open: bool,
    pub connection: Option<Connection>,
    /// The server instance the rows came from (`hello`'s `server`).
    pub server: Option<String>,
    /// The objects when the server's kept history starts (`hello`'s `objects`).
    pub objects: Rc<Vec<ObjectView>>,
    /// The rows, oldest first.
    pub rows: Rc<Vec<Rc<LiveRow>>>,
    /// The steps before the rows the page never received.
    pub server_dropped: u64,
    /// The rows the page let go ([`MAX_ROWS`]).
    pub not_shown: u64,
    /// The index the next step should have.
    next: u64,
    /// The step the learner picked (`None`: the newest, following new rows).
    pub picked: Option<u64>,
    /// A "Save as scenario" fetch is under way.
    pub saving: bool,
}

/// What can happen to the Live view.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveAction {
    /// Show it, or the playground.
    Open(bool),
    /// The browser opened, lost or closed the connection.
    Connection(Connection),
    /// An event's data (`hello` or `step`, told apart by its `kind`).
    Event(String),
    /// Show this step's details (its `index`); the newest: follow new rows again.
    Pick(u64),
    /// Follow new rows again.
    Follow,
    /// "Save as scenario": fetch the history as a scenario text.
    Save,
    /// The history as a scenario text, or why it could not be fetched.
    Saved(Result<String, String>),
}

fn text(v: &Value, key: &str) -> Option<String> {
    v[key].as_str().map(str::to_string)
}

/// An object as the server showed it (`{"name", "resource_version", "yaml"}`), its YAML
/// line by line for the inspector's markup.
fn object_of(v: &Value) -> Option<ObjectView> {
    let yaml = text(v, "yaml")?;
    Some(ObjectView {
        name: text(v, "name")?,
        resource_version: text(v, "resource_version")?,
        lines: crate::labels::yaml_lines(&yaml),
        yaml,
    })
}

fn lanes_of(v: &Value) -> Vec<LiveLane> {
    let Some(lanes) = v.as_array() else {
        return Vec::new();
    };
    lanes
        .iter()
        .filter_map(|l| {
            let reads = l["reads"].as_array().map_or(Vec::new(), |reads| {
                reads
                    .iter()
                    .filter_map(|r| {
                        Some(LiveRead {
                            object: text(r, "object")?,
                            revision: r["revision"].as_u64()?,
                            stale: r["stale"].as_bool()?,
                            label: text(r, "label")?,
                        })
                    })
                    .collect()
            });
            Some(LiveLane {
                name: text(l, "name")?,
                letter: text(l, "letter")?,
                reads,
            })
        })
        .collect()
}

/// A `step` event read back; `None` when it is not one.
fn row_of(v: &Value) -> Option<LiveRow> {
    let interference = &v["interference"];
    Some(LiveRow {
        index: v["index"].as_u64()?,
        step: StepView::from_json(&v["step"])?,
        object: object_of(&v["object"]),
        gone: text(v, "gone"),
        lanes: Rc::new(lanes_of(&v["lanes"])),
        command: text(v, "command"),
        interference: (!interference.is_null()).then(|| interference.to_string()),
    })
}

impl LiveState {
    /// The Live view of a page served with the live endpoint `endpoint` (`None`: there is
    /// none): open from the start, so the learner who opened the printed address watches.
    pub fn new(endpoint: Option<String>) -> LiveState {
        LiveState {
            open: endpoint.is_some(),
            connection: endpoint.as_ref().map(|_| Connection::Connecting),
            endpoint,
            ..LiveState::default()
        }
    }

    /// The newest row.
    pub fn newest(&self) -> Option<&Rc<LiveRow>> {
        self.rows.last()
    }

    /// The row whose details show: the one picked, else the newest.
    pub fn shown(&self) -> Option<&Rc<LiveRow>> {
        self.picked
            .and_then(|p| self.rows.iter().find(|r| r.index == p))
            .or_else(|| self.newest())
    }

    /// The lanes as of the newest row (one column each).
    pub fn lanes(&self) -> &[LiveLane] {
        self.newest().map_or(&[], |r| &r.lanes[..])
    }

    fn hello(&mut self, v: &Value) {
        let server = text(v, "server");
        let dropped = v["dropped"].as_u64().unwrap_or(0);
        self.connection = Some(Connection::Connected);
        if server != self.server {
            // Another server (a restart): start over.
            self.server = server;
            self.rows = Rc::default();
            self.not_shown = 0;
            self.picked = None;
            self.server_dropped = dropped;
            self.next = dropped;
        } else if dropped > self.next {
            // The server let go of steps while the page was away.
            self.server_dropped += dropped - self.next;
            self.next = dropped;
        }
        let objects = v["objects"].as_array().map_or(Vec::new(), |objects| {
            objects.iter().filter_map(object_of).collect()
        });
        if self.rows.is_empty() {
            self.objects = Rc::new(objects);
        }
    }

    fn step(&mut self, v: &Value) {
        let Some(row) = row_of(v) else {
            return;
        };
        // A reconnection to the same server sends its kept steps again.
        if row.index < self.next {
            return;
        }
        self.server_dropped += row.index - self.next;
        self.next = row.index + 1;
        let rows = Rc::make_mut(&mut self.rows);
        rows.push(Rc::new(row));
        if rows.len() > MAX_ROWS {
            let gone = rows.len() - MAX_ROWS;
            rows.drain(..gone);
            self.not_shown += gone as u64;
            if self
                .picked
                .is_some_and(|p| rows.first().is_some_and(|r| r.index > p))
            {
                self.picked = None;
            }
        }
    }

    /// Whether the reducer can skip `action` (`Some`), as far as the Live view knows; `None`:
    /// for the rest of the state to say.
    pub fn ignores(&self, action: &Action) -> Option<bool> {
        match action {
            Action::Live(a) => Some(match a {
                LiveAction::Open(open) => (*open && self.endpoint.is_some()) == self.open,
                LiveAction::Follow => self.picked.is_none(),
                LiveAction::Save => self.saving || self.endpoint.is_none(),
                _ => false,
            }),
            // While the Live view shows, the view tabs leave it.
            Action::Exercise(ExerciseAction::Open(_)) if self.open => Some(false),
            _ => None,
        }
    }

    /// The URL of the history as a scenario text (`/rvlab/v1/scenario` next to the live
    /// endpoint `/rvlab/v1/live`).
    pub fn scenario_url(&self) -> Option<String> {
        let endpoint = self.endpoint.as_deref()?;
        let dir = endpoint.rsplit_once('/').map_or("", |(dir, _)| dir);
        Some(format!("{dir}/scenario"))
    }

    /// The state after `action` (pure). `Saved(Ok(_))` is the page's to load (see
    /// `AppState::apply`); here it only ends the fetch.
    pub fn apply(&mut self, action: LiveAction) {
        match action {
            LiveAction::Open(open) => self.open = open && self.endpoint.is_some(),
            LiveAction::Connection(c) => self.connection = Some(c),
            LiveAction::Event(data) => {
                let Ok(v) = serde_json::from_str::<Value>(&data) else {
                    return;
                };
                match v["kind"].as_str() {
                    Some("hello") => self.hello(&v),
                    Some("step") => self.step(&v),
                    _ => {}
                }
            }
            LiveAction::Pick(index) => {
                let newest = self.newest().map(|r| r.index);
                self.picked = (Some(index) != newest).then_some(index);
            }
            LiveAction::Follow => self.picked = None,
            LiveAction::Save => self.saving = self.endpoint.is_some(),
            LiveAction::Saved(_) => self.saving = false,
        }
    }
}

impl AppState {
    /// The Live view's actions; "Save as scenario"'s text opens in the editor as the
    /// playground's scenario (as a share link's text does), from its first step.
    pub(super) fn apply_live(&mut self, action: LiveAction) {
        match &action {
            LiveAction::Saved(Ok(text)) => {
                self.live.open = false;
                self.exercises.open = false;
                self.exercises.current = None;
                let table_view = self.table_view;
                self.restore(Restore {
                    source: text.clone(),
                    lesson: None,
                    base_lesson: self.base_lesson,
                    schedule: None,
                    position: 0,
                    seed: 0,
                    table_view,
                });
            }
            LiveAction::Saved(Err(why)) => {
                self.notice = Some(format!(
                    "The history could not be saved as a scenario ({why})."
                ));
            }
            _ => {}
        }
        self.live.apply(action);
    }
}

/// Live events as `rvlab serve` sends them, made by the core's [`rvlab_instruments::live::Live`] over
/// a real store (for the page's tests).
#[cfg(test)]
pub mod fixture {
    use rvlab_core::rng::Rng;
    use rvlab_core::store::{Actor, Env, Method, Request, Store};
    use rvlab_instruments::live::{Live, LiveRequest};
    use serde_json::Value;

    const PATH: &str = "/api/v1/namespaces/default/configmaps";

    /// A server's live history: its store and the events so far (`hello` first).
    pub struct Server {
        pub store: Store,
        pub live: Live,
        rng: Rng,
        pub events: Vec<String>,
    }

    fn configmap(rv: Option<&str>, value: &str) -> Value {
        let mut meta = serde_json::Map::new();
        meta.insert("name".into(), "my-config".into());
        meta.insert("namespace".into(), "default".into());
        if let Some(rv) = rv {
            meta.insert("resourceVersion".into(), rv.into());
        }
        let mut data = serde_json::Map::new();
        data.insert("key".into(), value.into());
        let mut o = serde_json::Map::new();
        o.insert("apiVersion".into(), "v1".into());
        o.insert("kind".into(), "ConfigMap".into());
        o.insert("metadata".into(), meta.into());
        o.insert("data".into(), data.into());
        o.into()
    }

    impl Server {
        /// A server (`id`) whose store holds `configmap/my-config`, keeping at most `bound`
        /// steps.
        pub fn new(id: &str, bound: usize) -> Server {
            let mut store = Store::new();
            let mut rng = Rng::new(1);
            let create = Request {
                method: Method::Post,
                path: PATH.into(),
                content_type: Some("application/json".into()),
                body: Some(configmap(None, "initial")),
            };
            let setup = Actor {
                name: "setup".into(),
                base_revision: 0,
            };
            let env = &mut Env {
                now_ms: 0,
                rng: &mut rng,
            };
            let created = store.handle(&create, &setup, env);
            assert_eq!(created.response.code, 201, "{:?}", created.response);
            let live = Live::new(&store, id, bound, 8 << 20);
            let hello = live.hello();
            Server {
                store,
                live,
                rng,
                events: vec![hello],
            }
        }

        /// The `hello` a new connection gets now.
        pub fn hello(&self) -> String {
            self.live.hello()
        }

        fn send(&mut self, program: &str, request: Request) -> String {
            let before = self.live.before(&self.store, &request);
            // What the writer observed: the resourceVersion it sends (as the server's
            // observed revisions would say for these clients).
            let sent = request
                .body
                .as_ref()
                .and_then(|b| b["metadata"]["resourceVersion"].as_str()?.parse().ok());
            let actor = Actor {
                name: program.into(),
                base_revision: sent.unwrap_or_else(|| self.store.revision()),
            };
            let env = &mut Env {
                now_ms: 0,
                rng: &mut self.rng,
            };
            let outcome = self.store.handle(&request, &actor, env);
            let rec = LiveRequest {
                program: program.into(),
                name: program.into(),
                command: (program == "kubectl").then(|| "kubectl get".to_string()),
                session: None,
                table: false,
                request,
                response: outcome.response.clone(),
                revision: outcome.revision,
                clock_nanos: self.live.len() * 1_000_000,
                interference: None,
            };
            let event = self.live.record(before, &self.store, rec, &outcome);
            self.events.push(event.clone());
            event
        }

        /// `program` GETs the config map.
        pub fn get(&mut self, program: &str) -> String {
            let path = format!("{PATH}/my-config");
            self.send(
                program,
                Request {
                    method: Method::Get,
                    path,
                    content_type: None,
                    body: None,
                },
            )
        }

        /// `program` PUTs the config map with `value`, carrying resourceVersion `rv`.
        pub fn put(&mut self, program: &str, rv: u64, value: &str) -> String {
            let path = format!("{PATH}/my-config?fieldManager={program}");
            let body = configmap(Some(&rv.to_string()), value);
            self.send(
                program,
                Request {
                    method: Method::Put,
                    path,
                    content_type: Some("application/json".into()),
                    body: Some(body),
                },
            )
        }

        /// The config map's resourceVersion now.
        pub fn revision(&self) -> u64 {
            self.store.revision()
        }
    }

    /// kubectl and python read; python writes; kubectl writes on its stale read: a 409.
    pub fn stale_story(id: &str) -> Server {
        let mut s = Server::new(id, 2000);
        let rv = s.revision();
        s.get("kubectl");
        s.get("python");
        s.put("python", rv, "from-python");
        s.put("kubectl", rv, "from-kubectl");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{stale_story, Server};
    use super::*;
    use crate::state::AppState;
    use rvlab_core::engine::Mark;

    fn live_app() -> AppState {
        AppState {
            live: LiveState::new(Some("/rvlab/v1/live".into())),
            ..AppState::default()
        }
    }

    fn feed(mut s: AppState, events: &[String]) -> AppState {
        for e in events {
            s = s.apply(Action::Live(LiveAction::Event(e.clone())));
        }
        s
    }

    #[test]
    fn the_live_view_opens_only_with_an_endpoint() {
        let s = AppState::default();
        assert!(!s.live.open && s.live.endpoint.is_none());
        assert!(s.ignores(&Action::Live(LiveAction::Open(true))));
        assert!(
            !s.clone()
                .apply(Action::Live(LiveAction::Open(true)))
                .live
                .open
        );
        let s = live_app();
        assert!(s.live.open);
        assert_eq!(s.live.connection, Some(Connection::Connecting));
        assert_eq!(s.live.scenario_url().as_deref(), Some("/rvlab/v1/scenario"));
        // The tabs leave it, even to the tab already selected underneath.
        let lessons = Action::Exercise(ExerciseAction::Open(false));
        assert!(!s.ignores(&lessons));
        let s = s.apply(lessons);
        assert!(!s.live.open && !s.exercises.open);
        let s = s.apply(Action::Live(LiveAction::Open(true)));
        assert!(s.live.open);
    }

    #[test]
    fn steps_become_rows_with_the_servers_fields() {
        let server = stale_story("s1");
        let s = feed(live_app(), &server.events);
        let live = &s.live;
        assert_eq!(live.connection, Some(Connection::Connected));
        assert_eq!(live.rows.len(), 4);
        assert_eq!((live.server_dropped, live.not_shown), (0, 0));
        let marks: Vec<Mark> = live.rows.iter().map(|r| r.step.mark).collect();
        assert_eq!(marks, [Mark::Ok, Mark::Ok, Mark::Ok, Mark::Conflict]);
        let last = live.newest().unwrap();
        assert_eq!(last.step.client, "kubectl");
        assert_eq!(last.step.status_code, Some(409));
        assert_eq!(last.command.as_deref(), Some("kubectl get"));
        let lanes: Vec<&str> = live.lanes().iter().map(|l| l.name.as_str()).collect();
        assert_eq!(lanes, ["kubectl", "python"]);
        // kubectl's read is stale: python wrote since.
        let kubectl = &live.lanes()[0];
        assert!(kubectl.reads.iter().any(|r| r.stale), "{kubectl:?}");
        assert!(live.lanes()[1].reads.iter().all(|r| !r.stale));
        let o = last.object.as_ref().expect("the object after the step");
        assert_eq!(o.name, "configmap/my-config");
        assert!(o.lines.iter().any(|l| l.resource_version));
        assert_eq!(live.objects.len(), 1);
    }

    #[test]
    fn the_newest_row_is_followed_until_an_older_one_is_picked() {
        let mut server = Server::new("s1", 2000);
        server.get("kubectl");
        server.get("kubectl");
        let s = feed(live_app(), &server.events);
        assert_eq!(s.live.shown().map(|r| r.index), Some(1));
        let s = s.apply(Action::Live(LiveAction::Pick(0)));
        assert_eq!(s.live.picked, Some(0));
        let next = server.get("python");
        let s = feed(s, &[next]);
        assert_eq!(s.live.shown().map(|r| r.index), Some(0), "the pick stays");
        // Picking the newest follows again; so does "Follow the newest".
        let s = s.apply(Action::Live(LiveAction::Pick(2)));
        assert_eq!(s.live.picked, None);
        let next = server.get("python");
        let s = feed(s, &[next]);
        assert_eq!(s.live.shown().map(|r| r.index), Some(3));
        let s = s.apply(Action::Live(LiveAction::Pick(1)));
        assert!(!s.ignores(&Action::Live(LiveAction::Follow)));
        let s = s.apply(Action::Live(LiveAction::Follow));
        assert_eq!(s.live.shown().map(|r| r.index), Some(3));
        assert!(s.ignores(&Action::Live(LiveAction::Follow)));
    }

    #[test]
    fn a_hello_from_another_server_starts_over_and_the_same_server_is_not_repeated() {
        let server = stale_story("s1");
        let s = feed(live_app(), &server.events);
        // A reconnection to the same server: hello and every kept step again.
        let s = s.apply(Action::Live(LiveAction::Connection(
            Connection::Reconnecting,
        )));
        assert_eq!(s.live.connection, Some(Connection::Reconnecting));
        let again = feed(s.clone(), &server.events);
        assert_eq!(again.live.rows.len(), 4, "no row twice");
        assert_eq!(again.live.connection, Some(Connection::Connected));
        // A restarted server: another id, the rows start over.
        let mut restarted = Server::new("s2", 2000);
        restarted.get("kubectl");
        let s = feed(
            again.apply(Action::Live(LiveAction::Pick(1))),
            &restarted.events,
        );
        assert_eq!(s.live.rows.len(), 1);
        assert_eq!(s.live.server.as_deref(), Some("s2"));
        assert_eq!((s.live.picked, s.live.server_dropped), (None, 0));
    }

    #[test]
    fn steps_the_server_dropped_are_counted() {
        let mut server = Server::new("s1", 3);
        for _ in 0..5 {
            server.get("kubectl");
        }
        // A page that connects now: hello says 2 dropped, then the 3 kept steps.
        let mut events = vec![server.hello()];
        events.extend(server.live.events().map(str::to_string));
        let s = feed(live_app(), &events);
        assert_eq!(s.live.rows.len(), 3);
        assert_eq!(s.live.server_dropped, 2);
        assert_eq!(s.live.rows[0].index, 2);
        // A page connected from the start has them all.
        let s = feed(live_app(), &server.events);
        assert_eq!((s.live.rows.len(), s.live.server_dropped), (5, 0));
    }

    #[test]
    fn the_page_keeps_at_most_500_rows() {
        let mut server = Server::new("s1", 2000);
        for _ in 0..MAX_ROWS + 20 {
            server.get("kubectl");
        }
        let s = feed(live_app(), &server.events[..10]);
        let s = s.apply(Action::Live(LiveAction::Pick(3)));
        let s = feed(s, &server.events[10..]);
        assert_eq!(s.live.rows.len(), MAX_ROWS);
        assert_eq!(s.live.not_shown, 20);
        assert_eq!(s.live.rows[0].index, 20);
        assert_eq!(
            s.live.picked, None,
            "the picked row is gone: follow the newest"
        );
        assert_eq!(s.live.shown().map(|r| r.index), Some(519));
    }

    #[test]
    fn save_as_scenario_opens_the_text_in_the_editor() {
        let s = feed(live_app(), &stale_story("s1").events);
        let s = s.apply(Action::Live(LiveAction::Save));
        assert!(s.live.saving && s.ignores(&Action::Live(LiveAction::Save)));
        let text = rvlab_core::lessons::lesson("counter")
            .unwrap()
            .source
            .to_string();
        let s = s.apply(Action::Live(LiveAction::Saved(Ok(text.clone()))));
        assert!(!s.live.saving && !s.live.open);
        assert_eq!(s.source, text);
        assert!((s.lesson, s.cursor) == (None, 0) && !s.has_errors() && !s.is_empty());
        assert_eq!(s.live.rows.len(), 4, "the Live view keeps its rows");
        let s = s
            .apply(Action::Live(LiveAction::Save))
            .apply(Action::Live(LiveAction::Saved(Err(
                "HTTP 404 Not Found".into()
            ))));
        assert!(
            s.notice.as_deref().unwrap().contains("HTTP 404"),
            "{:?}",
            s.notice
        );
        assert_eq!(s.source, text);
    }

    #[test]
    fn what_is_not_an_event_changes_nothing() {
        let s = feed(live_app(), &stale_story("s1").events);
        let s = feed(
            s,
            &["not json".into(), "{\"kind\":\"step\"}".into(), "[]".into()],
        );
        assert_eq!(s.live.rows.len(), 4);
    }
}
