//! The watch cache (`rvlab_core::watch`) against the apiserver's watch rules
//! (k8s.io/apiserver `pkg/endpoints/handlers/watch.go`, `pkg/storage/cacher`).

use proptest::prelude::*;
use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, EventType, Method, Outcome, Request, Resource, Store};
use rvlab_core::watch::{
    bookmark_json, entry_json, error_json, parse_watch, WatchCache, WatchEntry, WatchFilter,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

struct World {
    store: Store,
    cache: WatchCache,
    rng: Rng,
}

impl World {
    fn new(capacity: usize) -> World {
        World {
            store: Store::new(),
            cache: WatchCache::new(capacity),
            rng: Rng::new(3),
        }
    }

    fn send(
        &mut self,
        method: Method,
        path: &str,
        ct: Option<&str>,
        body: Option<Value>,
    ) -> Outcome {
        let req = Request {
            method,
            path: path.to_string(),
            content_type: ct.map(str::to_string),
            body,
        };
        let actor = Actor {
            name: "w".into(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut self.rng,
        };
        self.cache.handle(&mut self.store, &req, &actor, &mut env)
    }

    fn create(&mut self, ns: &str, name: &str, v: &str) -> Outcome {
        self.send(
            Method::Post,
            &format!("/api/v1/namespaces/{ns}/configmaps"),
            Some("application/json"),
            Some(json!({"metadata":{"name":name},"data":{"k":v}})),
        )
    }

    fn set(&mut self, ns: &str, name: &str, v: &str) -> Outcome {
        self.send(
            Method::Patch,
            &format!("/api/v1/namespaces/{ns}/configmaps/{name}"),
            Some("application/merge-patch+json"),
            Some(json!({"data":{"k":v}})),
        )
    }

    fn delete(&mut self, ns: &str, name: &str) -> Outcome {
        self.send(
            Method::Delete,
            &format!("/api/v1/namespaces/{ns}/configmaps/{name}"),
            None,
            None,
        )
    }

    fn since(
        &self,
        f: &WatchFilter,
        rv: Option<&str>,
    ) -> Result<Vec<WatchEntry>, rvlab_core::store::Response> {
        self.cache.events_since(&self.store, f, rv)
    }
}

fn cms() -> WatchFilter {
    WatchFilter::new(Resource::ConfigMap)
}

fn rv_of(v: &Value) -> &str {
    v["metadata"]["resourceVersion"].as_str().unwrap_or("")
}

fn summary(es: &[WatchEntry]) -> Vec<(EventType, String, u64)> {
    es.iter()
        .map(|e| {
            (
                e.kind,
                e.object["metadata"]["name"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                e.resource_version,
            )
        })
        .collect()
}

#[test]
fn unset_and_zero_give_the_state_as_added_events_in_key_order_each_at_its_own_rv() {
    let mut w = World::new(100);
    w.create("default", "b", "1"); // 1
    w.create("default", "a", "1"); // 2
    w.create("team", "c", "1"); // 3
    w.set("default", "b", "2"); // 4
    w.delete("team", "c"); // 5
    let want = vec![
        (EventType::Added, "a".to_string(), 2),
        (EventType::Added, "b".to_string(), 4),
    ];
    assert_eq!(summary(&w.since(&cms(), None).unwrap()), want);
    assert_eq!(summary(&w.since(&cms(), Some("0")).unwrap()), want);
    assert_eq!(summary(&w.since(&cms(), Some("")).unwrap()), want);
    // The objects are exactly what GET returns, with apiVersion and kind.
    let es = w.since(&cms(), None).unwrap();
    assert_eq!(es[1].object, *w.store.objects().nth(1).unwrap().1);
    assert_eq!(es[1].object["kind"], "ConfigMap");
    assert_eq!(es[1].object["apiVersion"], "v1");
    assert_eq!(rv_of(&es[1].object), "4");
    // Namespace and name filters.
    let mut f = cms();
    f.name = Some("b".into());
    assert_eq!(summary(&w.since(&f, None).unwrap()), want[1..].to_vec());
    f.name = None;
    f.namespace = Some("team".into());
    assert!(w.since(&f, None).unwrap().is_empty());
    // Another resource sees nothing.
    assert!(w
        .since(&WatchFilter::new(Resource::Deployment), None)
        .unwrap()
        .is_empty());
}

#[test]
fn a_resource_version_gives_only_later_changes_and_deleted_carries_the_last_state_at_the_deletion_rv(
) {
    let mut w = World::new(100);
    w.create("default", "a", "1"); // 1
    w.create("default", "b", "1"); // 2
    w.set("default", "a", "2"); // 3
    let before_delete = w.store.objects().next().unwrap().1.clone();
    w.delete("default", "a"); // 4
    let es = w.since(&cms(), Some("1")).unwrap();
    assert_eq!(
        summary(&es),
        vec![
            (EventType::Added, "b".to_string(), 2),
            (EventType::Modified, "a".to_string(), 3),
            (EventType::Deleted, "a".to_string(), 4),
        ]
    );
    let mut want = before_delete;
    want["metadata"]["resourceVersion"] = json!("4");
    assert_eq!(es[2].object, want);
    assert_eq!(es[2].object["data"]["k"], "2");
    // Nothing after the current revision; a no-op write records nothing.
    assert!(w.since(&cms(), Some("4")).unwrap().is_empty());
    let o = w.set("default", "b", "1");
    assert_eq!(o.revision, None);
    assert!(w.since(&cms(), Some("4")).unwrap().is_empty());
    // Failed writes record nothing either.
    assert_eq!(w.create("default", "b", "1").response.code, 409);
    assert!(w.since(&cms(), Some("4")).unwrap().is_empty());
}

#[test]
fn the_wire_lines_are_the_apiservers() {
    let mut w = World::new(100);
    w.create("default", "a", "1");
    let es = w.since(&cms(), None).unwrap();
    let line = entry_json(&es[0]).to_string();
    assert!(line.starts_with(r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","#), "{line}");
    assert_eq!(
        bookmark_json(&Resource::ConfigMap, 12345).to_string(),
        r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"12345"}}}"#
    );
    assert_eq!(
        bookmark_json(&Resource::Deployment, 7).to_string(),
        r#"{"type":"BOOKMARK","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"7"}}}"#
    );
}

#[test]
fn too_old_is_410_expired_with_the_oldest_deliverable_revision_minus_one() {
    let mut w = World::new(3);
    for i in 0..5 {
        w.create("default", &format!("c{i}"), "1"); // revisions 1..=5
    }
    // Kept: 3, 4, 5. Oldest deliverable 3, so 2 is fine and 1 is too old: "(2)".
    assert_eq!(summary(&w.since(&cms(), Some("2")).unwrap()).len(), 3);
    let err = w.since(&cms(), Some("1")).unwrap_err();
    assert_eq!(err.code, 410);
    assert_eq!(
        error_json(&err).to_string(),
        r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}"#
    );
    // Unset and "0" still work: they come from the state, not the history.
    assert_eq!(w.since(&cms(), None).unwrap().len(), 5);
    // Eviction is per resource: deployments keep their own window.
    w.send(
        Method::Post,
        "/apis/apps/v1/namespaces/default/deployments",
        Some("application/json"),
        Some(json!({"metadata":{"name":"d"},"spec":{"replicas":1}})),
    ); // 6
    let d = WatchFilter::new(Resource::Deployment);
    assert_eq!(summary(&w.since(&d, Some("1")).unwrap()).len(), 1);
}

#[test]
fn the_history_is_bounded_in_bytes_too_and_keeps_the_newest_event() {
    let mut w = World::new(100);
    w.cache = WatchCache::new(100).with_max_bytes(3_000);
    let big = "x".repeat(1_000);
    w.create("default", "a", &big); // 1: about 1 kB
    w.set("default", "a", &format!("{big}2")); // 2: about 2 kB (object and previous)
                                               // 1 and 2 together are over 3,000 bytes: 1 is evicted, so a watch from 1 gets 2 only.
    assert_eq!(summary(&w.since(&cms(), Some("1")).unwrap()).len(), 1);
    let err = w.since(&cms(), Some("0")).map(|e| e.len());
    assert_eq!(err, Ok(1), "0 is the state, not the history");
    // An event over the whole budget is kept alone: the newest is always deliverable.
    let huge = "y".repeat(5_000);
    w.set("default", "a", &huge); // 3
    assert_eq!(summary(&w.since(&cms(), Some("2")).unwrap()).len(), 1);
    assert_eq!(w.since(&cms(), Some("1")).unwrap_err().code, 410);
}

#[test]
fn before_any_eviction_the_window_starts_where_the_cache_first_saw_the_store() {
    let mut w = World::new(100);
    // Writes the cache does not see (straight on the store), then the cache starts at 2.
    let mut plain = World::new(100);
    plain.create("default", "x", "1");
    plain.create("default", "y", "1");
    w.store = plain.store.clone();
    w.create("default", "z", "1"); // 3
    let err = w.since(&cms(), Some("1")).unwrap_err();
    assert_eq!(err.body["message"], "too old resource version: 1 (2)");
    assert_eq!(
        summary(&w.since(&cms(), Some("2")).unwrap()),
        vec![(EventType::Added, "z".to_string(), 3)]
    );
}

#[test]
fn a_future_resource_version_waits_for_the_changes_after_it() {
    let mut w = World::new(100);
    w.create("default", "a", "1"); // 1
    assert!(w.since(&cms(), Some("3")).unwrap().is_empty());
    w.set("default", "a", "2"); // 2
    w.set("default", "a", "3"); // 3
    assert!(w.since(&cms(), Some("3")).unwrap().is_empty());
    w.set("default", "a", "4"); // 4
    assert_eq!(
        summary(&w.since(&cms(), Some("3")).unwrap()),
        vec![(EventType::Modified, "a".to_string(), 4)]
    );
}

#[test]
fn an_unparseable_resource_version_is_the_raw_500() {
    let w = World::new(100);
    for (rv, why) in [
        ("abc", "invalid syntax"),
        ("-1", "invalid syntax"),
        ("99999999999999999999", "value out of range"),
    ] {
        let err = w.since(&cms(), Some(rv)).unwrap_err();
        assert_eq!(err.code, 500);
        assert_eq!(
            err.body,
            json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                   "message": format!("resourceVersion: Invalid value: \"{rv}\": strconv.ParseUint: parsing \"{rv}\": {why}"),
                   "code":500})
        );
    }
}

#[test]
fn a_name_filter_sees_only_that_object_and_its_deletion() {
    let mut w = World::new(100);
    let mut f = cms();
    f.name = Some("a".into());
    w.create("default", "a", "1");
    w.create("default", "b", "1");
    w.delete("default", "a");
    w.create("default", "a", "2");
    assert_eq!(
        summary(&w.since(&f, Some("0")).unwrap()),
        vec![(EventType::Added, "a".to_string(), 4)]
    );
    // From revision 1 (the create of a): b is filtered out, a's deletion and re-creation seen.
    assert_eq!(
        summary(&w.since(&f, Some("1")).unwrap()),
        vec![
            (EventType::Deleted, "a".to_string(), 3),
            (EventType::Added, "a".to_string(), 4)
        ]
    );
}

/// One write of the property test.
#[derive(Debug, Clone)]
enum Op {
    Create(u8, u8, u8),
    Set(u8, u8, u8),
    Delete(u8, u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..2u8, 0..3u8, 0..3u8).prop_map(|(n, m, v)| Op::Create(n, m, v)),
        (0..2u8, 0..3u8, 0..3u8).prop_map(|(n, m, v)| Op::Set(n, m, v)),
        (0..2u8, 0..3u8).prop_map(|(n, m)| Op::Delete(n, m)),
    ]
}

type State = BTreeMap<(String, String), Value>;

fn state(store: &Store, f: &WatchFilter) -> State {
    store
        .objects()
        .filter(|(r, o)| {
            r.resource == f.resource
                && f.namespace.as_deref().is_none_or(|ns| r.namespace == ns)
                && f.name.as_deref().is_none_or(|n| o["metadata"]["name"] == n)
        })
        .map(|(r, o)| ((r.namespace.clone(), r.name.clone()), o.clone()))
        .collect()
}

fn replay(mut s: State, es: &[WatchEntry]) -> State {
    for e in es {
        let key = (
            e.object["metadata"]["namespace"]
                .as_str()
                .unwrap_or("")
                .to_string(),
            e.object["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        );
        assert_eq!(rv_of(&e.object), e.resource_version.to_string());
        match e.kind {
            EventType::Added => {
                assert!(
                    s.insert(key, e.object.clone()).is_none(),
                    "ADDED of a known object"
                );
            }
            EventType::Modified => {
                assert!(
                    s.insert(key, e.object.clone()).is_some(),
                    "MODIFIED of an unknown object"
                );
            }
            EventType::Deleted => {
                assert!(s.remove(&key).is_some(), "DELETED of an unknown object");
            }
        }
    }
    s
}

proptest! {
    /// The events since any revision the cache still holds, replayed over the state at that
    /// revision, give the current state; revisions out of the window are 410; unset replays
    /// from nothing.
    #[test]
    fn events_since_any_rv_replayed_over_the_state_then_give_the_state_now(
        ops in prop::collection::vec(op(), 0..40),
        capacity in 1usize..50,
        ns_filter in prop::option::of(0..2u8),
        name_filter in prop::option::of(0..3u8),
    ) {
        let mut w = World::new(capacity);
        let mut f = cms();
        f.namespace = ns_filter.map(|n| format!("ns{n}"));
        f.name = name_filter.map(|m| format!("c{m}"));
        let mut at: BTreeMap<u64, State> = BTreeMap::new();
        at.insert(0, State::new());
        for o in &ops {
            match *o {
                Op::Create(n, m, v) => w.create(&format!("ns{n}"), &format!("c{m}"), &v.to_string()),
                Op::Set(n, m, v) => w.set(&format!("ns{n}"), &format!("c{m}"), &v.to_string()),
                Op::Delete(n, m) => w.delete(&format!("ns{n}"), &format!("c{m}")),
            };
            at.insert(w.store.revision(), state(&w.store, &f));
        }
        let now = state(&w.store, &f);
        prop_assert_eq!(replay(State::new(), &w.since(&f, None).unwrap()), now.clone());
        let mut expired = 0;
        for (rev, s) in &at {
            if *rev == 0 {
                continue;
            }
            match w.since(&f, Some(&rev.to_string())) {
                Ok(es) => prop_assert_eq!(replay(s.clone(), &es), now.clone()),
                Err(e) => {
                    prop_assert_eq!(e.code, 410);
                    expired += 1;
                }
            }
        }
        // Exactly the revisions before the oldest kept event's minus one are out of the window.
        let writes = at.len() - 1;
        prop_assert_eq!(expired, writes.saturating_sub(capacity + 1));
        // Continuing from the store's revision: nothing more.
        prop_assert!(w.since(&f, Some(&w.store.revision().to_string())).unwrap().is_empty());
    }
}

#[test]
fn label_selectors_turn_label_changes_into_added_and_deleted() {
    let mut w = World::new(100);
    let req = parse_watch("/api/v1/namespaces/default/configmaps?watch=true&labelSelector=app%3Dweb&resourceVersion=0").unwrap();
    assert_eq!(req.resource_version.as_deref(), Some("0"));
    assert!(!req.allow_bookmarks);
    let f = req.filter;
    assert_eq!(f.namespace.as_deref(), Some("default"));
    w.create("default", "a", "1"); // 1, no labels
    let label = |w: &mut World, v: Value| {
        w.send(
            Method::Patch,
            "/api/v1/namespaces/default/configmaps/a",
            Some("application/merge-patch+json"),
            Some(json!({"metadata":{"labels":{"app":v}}})),
        )
    };
    label(&mut w, json!("web")); // 2: starts matching
    w.set("default", "a", "2"); // 3: still matching
    label(&mut w, json!("db")); // 4: stops matching
    w.set("default", "a", "3"); // 5: not matching
    let es = w.since(&f, Some("1")).unwrap();
    assert_eq!(
        summary(&es),
        vec![
            (EventType::Added, "a".to_string(), 2),
            (EventType::Modified, "a".to_string(), 3),
            (EventType::Deleted, "a".to_string(), 4),
        ]
    );
    // The DELETED of an object leaving the selector: its previous content at the new RV.
    assert_eq!(es[2].object["metadata"]["labels"]["app"], "web");
    assert_eq!(es[2].object["data"]["k"], "2");
    assert_eq!(rv_of(&es[2].object), "4");
    // The state: nothing matches now.
    assert!(w.since(&f, None).unwrap().is_empty());
}

#[test]
fn parse_watch_reads_kubectls_and_pythons_watch_requests() {
    // kubectl get cm -w NAME (a name's watch: cli-runtime `pkg/resource/helper.go`, `WatchSingle`).
    let r = parse_watch("/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dmy-config&resourceVersion=104&watch=true").unwrap();
    assert_eq!(r.resource_version.as_deref(), Some("104"));
    let mut w = World::new(100);
    w.create("default", "my-config", "1");
    w.create("default", "other", "1");
    assert_eq!(
        summary(&w.since(&r.filter, None).unwrap()),
        vec![(EventType::Added, "my-config".to_string(), 1)]
    );
    // Every namespace, bookmarks, a timeout.
    let r = parse_watch("/api/v1/configmaps?watch=True&allowWatchBookmarks=true&timeoutSeconds=30")
        .unwrap();
    assert_eq!(r.filter.namespace, None);
    assert!(r.allow_bookmarks);
    assert_eq!(r.timeout_seconds, Some(30));
    assert!(
        !parse_watch("/api/v1/configmaps?allowWatchBookmarks=false")
            .unwrap()
            .allow_bookmarks
    );
    // LIST's errors.
    let e =
        parse_watch("/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=spec.x%3D1")
            .unwrap_err();
    assert_eq!(e.code, 400);
    assert_eq!(
        e.body["message"],
        "\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
    );
    assert_eq!(
        parse_watch("/api/v1/namespaces/default/configmaps?labelSelector=a%3D%3D%3Db")
            .unwrap_err()
            .code,
        400
    );
    assert_eq!(
        parse_watch("/api/v1/namespaces/default/configmaps?timeoutSeconds=x")
            .unwrap_err()
            .code,
        400
    );
    assert_eq!(
        parse_watch("/api/v1/namespaces/default/pods?watch=true")
            .unwrap_err()
            .code,
        404
    );
}

#[test]
fn a_namespace_watch_starts_from_every_namespace_and_sees_created_ones() {
    let mut w = World::new(100);
    let f = parse_watch("/api/v1/namespaces?watch=true").unwrap().filter;
    let names = |es: &[WatchEntry]| -> Vec<String> {
        es.iter()
            .map(|e| e.object["metadata"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&w.since(&f, None).unwrap()),
        ["default", "kube-node-lease", "kube-public", "kube-system"]
    );
    w.create("default", "c", "1"); // 1
    let o = w.send(
        Method::Post,
        "/api/v1/namespaces",
        Some("application/json"),
        Some(json!({"metadata":{"name":"team-a"}})),
    ); // 2
    assert_eq!(o.response.code, 201);
    let es = w.since(&f, Some("0")).unwrap();
    assert_eq!(names(&es)[4], "team-a");
    assert_eq!(
        summary(&w.since(&f, Some("1")).unwrap()),
        vec![(EventType::Added, "team-a".to_string(), 2)]
    );
    assert!(w.since(&f, Some("2")).unwrap().is_empty());
}

#[test]
fn a_dry_run_is_not_an_event() {
    let mut w = World::new(100);
    w.create("default", "a", "1"); // 1
    let o = w.send(
        Method::Post,
        "/api/v1/namespaces/default/configmaps?dryRun=All",
        Some("application/json"),
        Some(json!({"metadata":{"name":"b"}})),
    );
    assert_eq!(o.response.code, 201);
    assert_eq!(o.revision, None);
    assert!(w.since(&cms(), Some("1")).unwrap().is_empty());
    assert_eq!(w.since(&cms(), None).unwrap().len(), 1);
}

/// `--stale-reads K` (`rvlab_core::stale`): a lagging watch gets the changes up to the old
/// state's revision only, and its initial state from that old state.
#[test]
fn events_until_stops_at_the_lagging_revision() {
    let mut w = World::new(100);
    w.create("default", "a", "1"); // 1
    let old = w.store.clone();
    w.set("default", "a", "2"); // 2
    w.create("default", "b", "1"); // 3
    let until = |rv: Option<&str>, store: &Store, upto: u64| {
        summary(&w.cache.events_until(store, &cms(), rv, upto).unwrap())
    };
    assert_eq!(
        until(Some("1"), &w.store, 2),
        vec![(EventType::Modified, "a".to_string(), 2)]
    );
    assert_eq!(until(Some("1"), &w.store, 1), vec![]);
    assert_eq!(until(Some("2"), &w.store, 3).len(), 1);
    // Unset: the old state's objects as ADDED, at their old revisions.
    assert_eq!(
        until(None, &old, 1),
        vec![(EventType::Added, "a".to_string(), 1)]
    );
    // events_since is events_until with no bound.
    assert_eq!(
        summary(&w.since(&cms(), Some("1")).unwrap()),
        until(Some("1"), &w.store, u64::MAX)
    );
}
