//! The versioned store against the apiserver's behaviour (tests named after what they check),
//! plus server-side apply, patches, provenance, lost updates, events, generation, and property
//! tests against a small reference model.

use proptest::prelude::*;
use rvlab_core::rng::Rng;
use rvlab_core::store::{
    is_conflict, status_reason, Actor, Env, EventType, Method, ObjectRef, Outcome, Request,
    Resource, Store,
};
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";
const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments";
const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";

const MERGE: &str = "application/merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

/// A store, the run's generator and a virtual clock.
struct World {
    store: Store,
    rng: Rng,
    now_ms: u64,
}

impl World {
    fn new() -> World {
        World {
            store: Store::new(),
            rng: Rng::new(7),
            now_ms: 0,
        }
    }

    fn send(
        &mut self,
        who: &str,
        base: u64,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Option<Value>,
    ) -> Outcome {
        let req = Request {
            method,
            path: path.to_string(),
            content_type: content_type.map(str::to_string),
            body,
        };
        let actor = Actor {
            name: who.to_string(),
            base_revision: base,
        };
        let mut env = Env {
            now_ms: self.now_ms,
            rng: &mut self.rng,
        };
        self.store.handle(&req, &actor, &mut env)
    }

    fn get(&mut self, path: &str) -> Outcome {
        self.send("reader", 0, Method::Get, path, None, None)
    }

    fn post(&mut self, who: &str, path: &str, body: Value) -> Outcome {
        let p = format!("{path}?fieldManager={who}");
        self.send(
            who,
            0,
            Method::Post,
            &p,
            Some("application/json"),
            Some(body),
        )
    }

    fn put(&mut self, who: &str, base: u64, path: &str, body: Value) -> Outcome {
        let p = format!("{path}?fieldManager={who}");
        self.send(
            who,
            base,
            Method::Put,
            &p,
            Some("application/json"),
            Some(body),
        )
    }

    fn patch(&mut self, who: &str, base: u64, path: &str, ct: &str, body: Value) -> Outcome {
        let p = format!("{path}?fieldManager={who}");
        self.send(who, base, Method::Patch, &p, Some(ct), Some(body))
    }

    fn apply(&mut self, who: &str, path: &str, body: Value, force: bool) -> Outcome {
        let p = format!(
            "{path}?fieldManager={who}{}",
            if force { "&force=true" } else { "" }
        );
        self.send(who, 0, Method::Patch, &p, Some(APPLY), Some(body))
    }

    fn delete(&mut self, who: &str, base: u64, path: &str, body: Option<Value>) -> Outcome {
        self.send(who, base, Method::Delete, path, None, body)
    }

    /// A setup ConfigMap, created as `kubectl create` would (manager `kubectl-create`).
    fn setup_cm(&mut self, name: &str, data: Value) -> Outcome {
        let body = json!({"metadata": {"name": name}, "data": data});
        let p = format!("{CM}?fieldManager=kubectl-create");
        let o = self.send(
            "setup",
            0,
            Method::Post,
            &p,
            Some("application/json"),
            Some(body),
        );
        assert_eq!(o.response.code, 201, "{}", o.response.body);
        o
    }
}

fn cm_ref(name: &str) -> ObjectRef {
    ObjectRef {
        resource: Resource::ConfigMap,
        namespace: "default".into(),
        name: name.into(),
    }
}

fn rv(o: &Outcome) -> String {
    o.response.body["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn body(o: &Outcome) -> String {
    o.response.body.to_string()
}

// ---------------------------------------------------------------------------------------------
// Error statuses (k8s.io/apimachinery `pkg/api/errors/errors.go`, k8s.io/apiserver
// `pkg/registry/generic/registry/store.go`, `pkg/registry/rest`)

#[test]
fn s1_2_update_with_stale_rv_is_409_conflict() {
    let mut w = World::new();
    w.store.advance_to(5).unwrap();
    w.setup_cm("my-config", json!({"key": "initial"}));
    let ok = w.put(
        "alice",
        5,
        &format!("{CM}/my-config"),
        json!({"metadata": {"name": "my-config", "resourceVersion": "5"}, "data": {"key": "a"}}),
    );
    assert_eq!(ok.response.code, 200);
    assert_eq!(rv(&ok), "6");
    let stale = w.put(
        "bob",
        5,
        &format!("{CM}/my-config"),
        json!({"metadata": {"name": "my-config", "resourceVersion": "5"}, "data": {"key": "b"}}),
    );
    assert_eq!(stale.response.code, 409);
    assert_eq!(
        body(&stale),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"my-config\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"my-config","kind":"configmaps"},"code":409}"#
    );
    assert!(is_conflict(&stale.response));
    assert_eq!(status_reason(&stale.response.body), Some("Conflict"));
    assert_eq!(stale.revision, None);
    assert_eq!(w.store.revision(), 6);
}

#[test]
fn s1_2_grouped_resource_conflict_names_the_group() {
    let mut w = World::new();
    let c = w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    assert_eq!(c.response.code, 201);
    let stale = w.put(
        "bob",
        0,
        &format!("{DEPLOY}/web"),
        json!({"metadata": {"name": "web", "resourceVersion": "99"}, "spec": {"replicas": 2}}),
    );
    assert_eq!(
        body(&stale),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}"#
    );
}

#[test]
fn s1_3_create_of_an_existing_name_is_409_already_exists_not_a_conflict() {
    let mut w = World::new();
    w.setup_cm("my-config", json!({"key": "v"}));
    let again = w.post(
        "alice",
        CM,
        json!({"metadata": {"name": "my-config"}, "data": {"key": "x"}}),
    );
    assert_eq!(
        body(&again),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"my-config\" already exists","reason":"AlreadyExists","details":{"name":"my-config","kind":"configmaps"},"code":409}"#
    );
    assert!(!is_conflict(&again.response));
    assert_eq!(w.store.revision(), 1);
}

#[test]
fn s1_3_invalid_body_gets_422_even_when_the_name_is_taken() {
    let mut w = World::new();
    w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    let bad = w.post(
        "alice",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": -1}}),
    );
    assert_eq!(
        body(&bad),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422}"#
    );
}

#[test]
fn s1_4_missing_object_is_404_for_get_update_patch_delete() {
    let mut w = World::new();
    let expected = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404}"#;
    let path = format!("{CM}/x");
    assert_eq!(body(&w.get(&path)), expected);
    // A stale RV on a missing object is 404, not 409.
    let put = w.put(
        "a",
        0,
        &path,
        json!({"metadata": {"name": "x", "resourceVersion": "3"}}),
    );
    assert_eq!(body(&put), expected);
    assert_eq!(
        body(&w.patch("a", 0, &path, MERGE, json!({"data": {"k": "v"}}))),
        expected
    );
    assert_eq!(body(&w.delete("a", 0, &path, None)), expected);
    assert_eq!(w.store.revision(), 0);
    assert!(w.store.events().is_empty());
}

#[test]
fn s1_4_apply_to_a_missing_object_creates_it_201() {
    let mut w = World::new();
    let o = w.apply("alice", &format!("{CM}/new"), json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}, "data": {"key": "v"}}), false);
    assert_eq!(o.response.code, 201);
    assert_eq!(o.revision, Some(1));
    assert_eq!(
        o.response.body["metadata"]["managedFields"],
        json!([{"manager": "alice", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:key": {}}}}])
    );
}

#[test]
fn s1_5_body_name_differs_from_url_is_400() {
    let mut w = World::new();
    w.setup_cm("a", json!({"k": "v"}));
    let o = w.put(
        "x",
        0,
        &format!("{CM}/a"),
        json!({"metadata": {"name": "b"}, "data": {"k": "w"}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the name of the object (b) does not match the name on the URL (a)","reason":"BadRequest","code":400}"#
    );
    let o = w.put(
        "x",
        0,
        &format!("{CM}/a"),
        json!({"metadata": {"name": "a", "namespace": "other"}}),
    );
    assert_eq!(
        o.response.body["message"],
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    // PATCH: checkName runs on the patched object.
    let o = w.patch(
        "x",
        0,
        &format!("{CM}/a"),
        MERGE,
        json!({"metadata": {"name": "b"}}),
    );
    assert_eq!(o.response.code, 400);
    assert_eq!(
        o.response.body["message"],
        "the name of the object (b) does not match the name on the URL (a)"
    );
    let o = w.patch(
        "x",
        0,
        &format!("{CM}/a"),
        MERGE,
        json!({"metadata": {"namespace": "ns2"}}),
    );
    assert_eq!(
        o.response.body["message"],
        "the namespace of the object (ns2) does not match the namespace on the request (default)"
    );
    assert_eq!(w.store.revision(), 1);
}

#[test]
fn s1_6_put_with_unparseable_rv_is_raw_500() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let o = w.put(
        "x",
        0,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c", "resourceVersion": "abc"}, "data": {"k": "w"}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseUint: parsing \"abc\": invalid syntax","code":500}"#
    );
    assert_eq!(status_reason(&o.response.body), None);
    // A merge patch that sets the RV to "abc" behaves the same.
    let o = w.patch(
        "x",
        0,
        &format!("{CM}/c"),
        MERGE,
        json!({"metadata": {"resourceVersion": "abc"}}),
    );
    assert_eq!(o.response.code, 500);
    assert_eq!(
        o.response.body["message"],
        "strconv.ParseUint: parsing \"abc\": invalid syntax"
    );
}

#[test]
fn s1_6_put_with_rv_zero_is_unconditional() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    w.put(
        "a",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c", "resourceVersion": "1"}, "data": {"k": "a"}}),
    );
    for rv0 in ["0", ""] {
        let o = w.put("b", 0, &format!("{CM}/c"), json!({"metadata": {"name": "c", "resourceVersion": rv0}, "data": {"k": format!("b{rv0}")}}));
        assert_eq!(o.response.code, 200, "{}", o.response.body);
    }
    assert_eq!(w.store.revision(), 4);
}

#[test]
fn s1_6_create_with_a_resource_version() {
    let mut w = World::new();
    let o = w.post(
        "a",
        CM,
        json!({"metadata": {"name": "c", "resourceVersion": "5"}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion should not be set on objects to be created","code":500}"#
    );
    let o = w.post(
        "a",
        CM,
        json!({"metadata": {"name": "c", "resourceVersion": "abc"}}),
    );
    assert_eq!(o.response.code, 201);
    assert_eq!(rv(&o), "1");
    let o = w.post(
        "a",
        CM,
        json!({"metadata": {"name": "d", "resourceVersion": "0"}}),
    );
    assert_eq!(o.response.code, 201);
}

#[test]
fn s1_7a_delete_preconditions_name_the_kind() {
    let mut w = World::new();
    let c = w.setup_cm("my-config", json!({"k": "v"}));
    let uid = c.response.body["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    w.put(
        "a",
        1,
        &format!("{CM}/my-config"),
        json!({"metadata": {"name": "my-config"}, "data": {"k": "2"}}),
    );
    let o = w.delete("b", 1, &format!("{CM}/my-config"), Some(json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"resourceVersion": "1"}})));
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on ConfigMap \"my-config\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (2). The object might have been modified","reason":"Conflict","details":{"name":"my-config","kind":"ConfigMap"},"code":409}"#
    );
    let o = w.delete(
        "b",
        1,
        &format!("{CM}/my-config"),
        Some(json!({"preconditions": {"uid": "nope", "resourceVersion": "1"}})),
    );
    assert_eq!(
        o.response.body["message"],
        format!("Operation cannot be fulfilled on ConfigMap \"my-config\": the UID in the precondition (nope) does not match the UID in record ({uid}). The object might have been deleted and then recreated")
    );
    // Plain string comparison: "abc" is a 409, not a parse error.
    let o = w.delete(
        "b",
        1,
        &format!("{CM}/my-config"),
        Some(json!({"preconditions": {"resourceVersion": "abc"}})),
    );
    assert_eq!(o.response.code, 409);
    let o = w.delete(
        "b",
        2,
        &format!("{CM}/my-config"),
        Some(json!({"preconditions": {"uid": uid, "resourceVersion": "2"}})),
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(o.revision, Some(3));
}

#[test]
fn s1_7a_grouped_kind_in_delete_precondition() {
    let mut w = World::new();
    w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    let o = w.delete(
        "b",
        0,
        &format!("{DEPLOY}/web"),
        Some(json!({"preconditions": {"resourceVersion": "9"}})),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on Deployment.apps \"web\": the ResourceVersion in the precondition (9) does not match the ResourceVersion in record (1). The object might have been modified","reason":"Conflict","details":{"name":"web","group":"apps","kind":"Deployment"},"code":409}"#
    );
}

#[test]
fn s1_7b_put_with_the_uid_of_a_recreated_object_is_409() {
    let mut w = World::new();
    let first = w.setup_cm("x", json!({"k": "v"}));
    let old_uid = first.response.body["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    w.delete("setup", 1, &format!("{CM}/x"), None);
    let second = w.setup_cm("x", json!({"k": "v"}));
    let new_uid = second.response.body["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    let o = w.put("a", 1, &format!("{CM}/x"), json!({"metadata": {"name": "x", "uid": old_uid, "resourceVersion": "3"}, "data": {"k": "w"}}));
    assert_eq!(o.response.code, 409);
    assert_eq!(
        o.response.body["message"],
        format!("Operation cannot be fulfilled on configmaps \"x\": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/x, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {old_uid}, UID in object meta: {new_uid}")
    );
}

#[test]
fn s1_8_custom_resource_update_without_rv_is_422() {
    let mut w = World::new();
    let c = w.post(
        "setup",
        WIDGETS,
        json!({"metadata": {"name": "x"}, "spec": {"size": 1}}),
    );
    assert_eq!(c.response.code, 201);
    let o = w.put(
        "a",
        0,
        &format!("{WIDGETS}/x"),
        json!({"metadata": {"name": "x"}, "spec": {"size": 2}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.com \"x\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update","reason":"Invalid","details":{"name":"x","group":"example.com","kind":"widgets","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be specified for an update","field":"metadata.resourceVersion"}]},"code":422}"#
    );
    // The RV check comes first: a stale RV gives 409, a current one succeeds.
    let o = w.put(
        "a",
        0,
        &format!("{WIDGETS}/x"),
        json!({"metadata": {"name": "x", "resourceVersion": "1"}, "spec": {"size": 2}}),
    );
    assert_eq!(o.response.code, 200);
}

#[test]
fn s1_8_delete_success_status() {
    let mut w = World::new();
    let c = w.setup_cm("my-config", json!({"k": "v"}));
    let uid = c.response.body["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    let o = w.delete("a", 1, &format!("{CM}/my-config"), None);
    assert_eq!(
        body(&o),
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Success","details":{{"name":"my-config","kind":"configmaps","uid":"{uid}"}}}}"#
        )
    );
    assert_eq!(o.response.code, 200);
    assert!(w.store.get(&cm_ref("my-config")).is_none());
    let c = w.post("setup", DEPLOY, json!({"metadata": {"name": "web"}}));
    let uid = c.response.body["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_string();
    let o = w.delete("a", 1, &format!("{DEPLOY}/web"), None);
    assert_eq!(
        o.response.body["details"],
        json!({"name": "web", "group": "apps", "kind": "deployments", "uid": uid})
    );
}

// ---------------------------------------------------------------------------------------------
// resourceVersion (k8s.io/apiserver `pkg/storage/etcd3/store.go`, `pkg/registry/generic/registry/store.go`)

#[test]
fn s2_2_one_global_counter_interleaves_objects() {
    let mut w = World::new();
    assert_eq!(rv(&w.setup_cm("a", json!({"k": "1"}))), "1");
    assert_eq!(rv(&w.setup_cm("b", json!({"k": "1"}))), "2");
    let o = w.patch(
        "x",
        0,
        &format!("{CM}/a"),
        MERGE,
        json!({"data": {"k": "2"}}),
    );
    assert_eq!(rv(&o), "3");
    assert_eq!(w.delete("x", 0, &format!("{CM}/b"), None).revision, Some(4));
    assert_eq!(rv(&w.setup_cm("b", json!({"k": "1"}))), "5");
    w.store.advance_to(100).unwrap();
    assert_eq!(
        w.store.advance_to(5).unwrap_err(),
        "resourceVersion 5 must be larger than the current revision 5"
    );
    assert_eq!(rv(&w.setup_cm("c", json!({}))), "100");
    assert_eq!(w.store.revision(), 100);
}

#[test]
fn s2_5_noop_update_keeps_the_version_and_emits_no_event() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let before = w.store.get(&cm_ref("c")).cloned();
    let o = w.put(
        "a",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c", "resourceVersion": "1"}, "data": {"k": "v"}}),
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(o.revision, None);
    assert_eq!(rv(&o), "1");
    assert_eq!(w.store.get(&cm_ref("c")).cloned(), before);
    assert_eq!(w.store.events().len(), 1);
    // A no-op with a stale RV is still refused first.
    w.put(
        "a",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c"}, "data": {"k": "w"}}),
    );
    let o = w.put(
        "b",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c", "resourceVersion": "1"}, "data": {"k": "w"}}),
    );
    assert_eq!(o.response.code, 409);
    // Merge patch and apply no-ops too.
    let o = w.patch(
        "b",
        2,
        &format!("{CM}/c"),
        MERGE,
        json!({"data": {"k": "w"}}),
    );
    assert_eq!((o.response.code, o.revision), (200, None));
}

#[test]
fn s2_6_empty_rv_on_configmap_and_deployment_is_last_write_wins() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    w.put(
        "a",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c", "resourceVersion": "1"}, "data": {"k": "a"}}),
    );
    let o = w.put(
        "b",
        1,
        &format!("{CM}/c"),
        json!({"metadata": {"name": "c"}, "data": {"k": "b"}}),
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(o.response.body["data"]["k"], "b");
    w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    let o = w.put(
        "b",
        0,
        &format!("{DEPLOY}/web"),
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 3}}),
    );
    assert_eq!(o.response.code, 200);
}

#[test]
fn s2_7_generation_per_strategy() {
    let mut w = World::new();
    let c = w.setup_cm("c", json!({"k": "v"}));
    assert!(c.response.body["metadata"].get("generation").is_none());
    let o = w.patch(
        "a",
        1,
        &format!("{CM}/c"),
        MERGE,
        json!({"data": {"k": "w"}}),
    );
    assert!(o.response.body["metadata"].get("generation").is_none());

    let d = w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    assert_eq!(d.response.body["metadata"]["generation"], 1);
    let p = format!("{DEPLOY}/web");
    let o = w.patch("a", 0, &p, MERGE, json!({"spec": {"replicas": 2}}));
    assert_eq!(o.response.body["metadata"]["generation"], 2);
    let o = w.patch(
        "a",
        0,
        &p,
        MERGE,
        json!({"metadata": {"labels": {"x": "y"}}}),
    );
    assert_eq!(o.response.body["metadata"]["generation"], 2);
    let o = w.patch(
        "a",
        0,
        &p,
        MERGE,
        json!({"metadata": {"annotations": {"x": "y"}}}),
    );
    assert_eq!(o.response.body["metadata"]["generation"], 3);
    // A body generation is ignored (BeforeUpdate copies the old one).
    let o = w.patch("a", 0, &p, MERGE, json!({"metadata": {"generation": 40}}));
    assert_eq!(o.response.body["metadata"]["generation"], 3);
    assert_eq!(o.revision, None);

    let x = w.post(
        "setup",
        WIDGETS,
        json!({"metadata": {"name": "x"}, "spec": {"size": 1}}),
    );
    assert_eq!(x.response.body["metadata"]["generation"], 1);
    let p = format!("{WIDGETS}/x");
    let o = w.patch(
        "a",
        0,
        &p,
        MERGE,
        json!({"metadata": {"labels": {"a": "b"}}}),
    );
    assert_eq!(o.response.body["metadata"]["generation"], 1);
    let o = w.patch("a", 0, &p, MERGE, json!({"spec": {"size": 2}}));
    assert_eq!(o.response.body["metadata"]["generation"], 2);
    let o = w.patch("a", 0, &p, MERGE, json!({"status": {"ok": true}}));
    assert_eq!(o.response.body["metadata"]["generation"], 3);
}

#[test]
fn s2_7_creation_timestamp_uid_and_field_order() {
    let mut w = World::new();
    w.now_ms = 61_500;
    let o = w.setup_cm("my-config", json!({"z": "1", "key": "initial"}));
    let uid = Rng::new(7).uuid();
    assert_eq!(
        body(&o),
        format!(
            r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"my-config","namespace":"default","uid":"{uid}","resourceVersion":"1","creationTimestamp":"2026-01-01T00:01:01Z","managedFields":[{{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:01:01Z","fieldsType":"FieldsV1","fieldsV1":{{"f:data":{{".":{{}},"f:key":{{}},"f:z":{{}}}}}}}}]}},"data":{{"key":"initial","z":"1"}}}}"#
        )
    );
    // Immutable: a PUT cannot move creationTimestamp, and a changed uid is a precondition.
    w.now_ms = 120_000;
    let o = w.put("a", 1, &format!("{CM}/my-config"), json!({"metadata": {"name": "my-config", "creationTimestamp": "2020-01-01T00:00:00Z"}, "data": {"key": "x"}}));
    assert_eq!(
        o.response.body["metadata"]["creationTimestamp"],
        "2026-01-01T00:01:01Z"
    );
    assert_eq!(o.response.body["metadata"]["uid"], uid.as_str());
    let o = w.patch(
        "a",
        0,
        &format!("{CM}/my-config"),
        MERGE,
        json!({"metadata": {"uid": "other"}}),
    );
    assert_eq!(o.response.code, 422);
    assert_eq!(
        o.response.body["message"],
        "ConfigMap \"my-config\" is invalid: metadata.uid: Invalid value: \"other\": field is immutable"
    );
    // A custom resource prints with its keys sorted, like an unstructured object.
    let x = w.post(
        "setup",
        WIDGETS,
        json!({"spec": {"b": 1, "a": 2}, "metadata": {"name": "x"}}),
    );
    let keys: Vec<&String> = x.response.body.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"]);
}

#[test]
fn validation_name_and_configmap_types() {
    let mut w = World::new();
    let o = w.post("a", CM, json!({"metadata": {"name": "Bad_Name"}}));
    assert_eq!(
        o.response.body["message"],
        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    );
    let o = w.post("a", CM, json!({"metadata": {}}));
    assert_eq!(
        o.response.body["message"],
        "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required"
    );
    let o = w.post(
        "a",
        CM,
        json!({"metadata": {"name": "n"}, "data": {"count": 1}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string","reason":"BadRequest","code":400}"#
    );
    let o = w.post("a", CM, json!({"metadata": {"generateName": "gen-"}}));
    assert_eq!(o.response.code, 201);
    assert!(o.response.body["metadata"]["name"]
        .as_str()
        .unwrap()
        .starts_with("gen-"));
    assert_eq!(
        o.response.body["metadata"]["name"].as_str().unwrap().len(),
        9
    );
}

// ---------------------------------------------------------------------------------------------
// PATCH (k8s.io/apiserver `pkg/endpoints/handlers/patch.go`)

#[test]
fn s3_merge_patch_rv_is_a_precondition_and_without_one_never_conflicts() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let p = format!("{CM}/c");
    w.patch("a", 1, &p, MERGE, json!({"data": {"a": "1"}}));
    let stale = w.patch(
        "b",
        1,
        &p,
        MERGE,
        json!({"metadata": {"resourceVersion": "1"}, "data": {"b": "1"}}),
    );
    assert_eq!(stale.response.code, 409);
    assert_eq!(stale.response.body["reason"], "Conflict");
    let fresh = w.patch(
        "b",
        2,
        &p,
        MERGE,
        json!({"metadata": {"resourceVersion": "2"}, "data": {"b": "1"}}),
    );
    assert_eq!(fresh.response.code, 200);
    let blind = w.patch("b", 0, &p, MERGE, json!({"data": {"k": null}}));
    assert_eq!(blind.response.code, 200);
    assert_eq!(blind.response.body["data"], json!({"a": "1", "b": "1"}));
    // JSON patch replace of the RV behaves the same.
    let o = w.patch("b", 0, &p, JSON_PATCH, json!([{"op": "replace", "path": "/metadata/resourceVersion", "value": "1"}, {"op": "add", "path": "/data/z", "value": "1"}]));
    assert_eq!(o.response.code, 409);
}

#[test]
fn s3_failing_json_patch_test_is_generic_422() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let o = w.patch("a", 1, &format!("{CM}/c"), JSON_PATCH, json!([{"op": "test", "path": "/data/k", "value": "other"}, {"op": "replace", "path": "/data/k", "value": "x"}]));
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}"#
    );
    let o = w.patch(
        "a",
        1,
        &format!("{CM}/c"),
        JSON_PATCH,
        json!([{"op": "remove", "path": "/data/missing"}]),
    );
    assert_eq!(o.response.code, 422);
    let o = w.patch("a", 1, &format!("{CM}/c"), JSON_PATCH, json!([{"op": "test", "path": "/data/k", "value": "v"}, {"op": "replace", "path": "/data/k", "value": "x"}]));
    assert_eq!(o.response.code, 200);
    assert_eq!(o.response.body["data"]["k"], "x");
}

#[test]
fn s3_patch_options_validation() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let o = w.send(
        "a",
        0,
        Method::Patch,
        &format!("{CM}/c?fieldManager=a&force=true"),
        Some(MERGE),
        Some(json!({"data": {}})),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"PatchOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: may not be specified for non-apply patch","field":"force"}]},"code":422}"#
    );
    let o = w.send(
        "a",
        0,
        Method::Patch,
        &format!("{CM}/c"),
        Some(APPLY),
        Some(json!({"data": {}})),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"PatchOptions","causes":[{"reason":"FieldValueRequired","message":"Required value: is required for apply patch","field":"fieldManager"}]},"code":422}"#
    );
}

#[test]
fn s3_strategic_patch_on_a_custom_resource_is_415() {
    let mut w = World::new();
    w.post("setup", WIDGETS, json!({"metadata": {"name": "x"}}));
    let o = w.patch(
        "a",
        0,
        &format!("{WIDGETS}/x"),
        STRATEGIC,
        json!({"spec": {"a": 1}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}"#
    );
}

// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn s3_strategic_patch_merges_containers_by_name() {
    let mut w = World::new();
    w.post("setup", DEPLOY, json!({"metadata": {"name": "web"}, "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "app", "image": "a:1"}, {"name": "log", "image": "l:1"}]}}}}));
    let o = w.patch(
        "a",
        0,
        &format!("{DEPLOY}/web"),
        STRATEGIC,
        json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "a:2"}]}}}}),
    );
    assert_eq!(o.response.code, 200);
    // Each container as the create's defaulting left it (SetDefaults_Container).
    let defaulted = |name: &str, image: &str| {
        json!({"name": name, "image": image, "resources": {},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"})
    };
    assert_eq!(
        o.response.body["spec"]["template"]["spec"]["containers"],
        json!([defaulted("app", "a:2"), defaulted("log", "l:1")])
    );
    // The same body as a merge patch replaces the list whole.
    let o = w.patch(
        "a",
        0,
        &format!("{DEPLOY}/web"),
        MERGE,
        json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "a:3"}]}}}}),
    );
    assert_eq!(
        o.response.body["spec"]["template"]["spec"]["containers"],
        json!([defaulted("app", "a:3")])
    );
}

#[test]
fn s3_strategic_patch_merges_finalizers_and_owner_references_from_the_schema() {
    let mut w = World::new();
    w.post(
        "setup",
        CM,
        json!({"metadata": {"name": "c", "finalizers": ["a", "b"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "x", "uid": "1"}]}}),
    );
    let o = w.patch(
        "a",
        0,
        &format!("{CM}/c"),
        STRATEGIC,
        json!({"metadata": {"finalizers": ["d"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Y", "name": "y", "uid": "2"}]}}),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    // Go's merge puts the patch's new items first (no `$setElementOrder`).
    assert_eq!(
        o.response.body["metadata"]["finalizers"],
        json!(["d", "a", "b"])
    );
    let uids: Vec<&Value> = (0..2)
        .map(|i| &o.response.body["metadata"]["ownerReferences"][i]["uid"])
        .collect();
    assert_eq!(uids, [&json!("2"), &json!("1")]);
    let o = w.patch(
        "a",
        0,
        &format!("{CM}/c"),
        STRATEGIC,
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a", "d"]}}),
    );
    assert_eq!(o.response.body["metadata"]["finalizers"], json!(["b"]));
    let o = w.patch(
        "a",
        0,
        &format!("{CM}/c"),
        STRATEGIC,
        json!({"metadata": {"$setElementOrder/finalizers": "b"}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"expected a []interface {}, but received a string","code":500}"#
    );
    let o = w.patch(
        "a",
        0,
        &format!("{CM}/c"),
        STRATEGIC,
        json!({"metadata": {"$deleteFromPrimitiveList": ["b"]}}),
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid patch format of primitive list","reason":"BadRequest","code":400}"#
    );
}

// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn s3_strategic_patch_never_stores_a_directive() {
    let mut w = World::new();
    w.post(
        "setup",
        DEPLOY,
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1, "template": {"spec": {
        "containers": [{"name": "app", "image": "a:1", "ports": [{"containerPort": 80}]}],
        "tolerations": [{"key": "k", "operator": "Exists"}]}}}}),
    );
    let o = w.patch(
        "a",
        0,
        &format!("{DEPLOY}/web"),
        STRATEGIC,
        json!({"spec": {"template": {"spec": {
            "containers": [{"name": "app", "ports": [{"containerPort": 81}]},
                           {"name": "side", "image": "s", "env": [{"name": "E", "$patch": "delete"}]}],
            "tolerations": [{"key": "t", "$patch": "delete"}]}}}}),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    let spec = &o.response.body["spec"]["template"]["spec"];
    assert_eq!(
        spec["containers"][0]["ports"],
        json!([{"containerPort": 81, "protocol": "TCP"}, {"containerPort": 80, "protocol": "TCP"}])
    );
    assert!(
        !o.response.body.to_string().contains("$patch"),
        "{}",
        o.response.body
    );
    assert_eq!(spec["tolerations"], json!([{"key": "t"}]));
}

// ---------------------------------------------------------------------------------------------
// Server-side apply (k8s.io/apimachinery `pkg/util/managedfields`, sigs.k8s.io/structured-merge-diff)

fn cm_cfg(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data})
}

#[test]
fn s3_1_apply_conflict_with_an_update_manager() {
    let mut w = World::new();
    w.setup_cm("c", json!({"key": "initial"}));
    let o = w.apply(
        "alice",
        &format!("{CM}/c"),
        cm_cfg(json!({"key": "mine"})),
        false,
    );
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: .data.key","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"kubectl-create\" using v1","field":".data.key"}]},"code":409}"#
    );
    assert!(is_conflict(&o.response));
    // The same value is no conflict: co-ownership.
    let o = w.apply(
        "alice",
        &format!("{CM}/c"),
        cm_cfg(json!({"key": "initial"})),
        false,
    );
    assert_eq!((o.response.code, o.revision), (200, Some(2)));
    let mf = &o.response.body["metadata"]["managedFields"];
    assert_eq!(mf[0]["manager"], "alice");
    assert_eq!(mf[0]["operation"], "Apply");
    assert_eq!(mf[0]["fieldsV1"], json!({"f:data": {"f:key": {}}}));
    assert_eq!(mf[1]["manager"], "kubectl-create");
}

#[test]
fn s3_1_apply_conflicts_between_appliers_and_force() {
    let mut w = World::new();
    let p = format!("{CM}/c");
    w.apply("bob", &p, cm_cfg(json!({"a": "1", "b": "1"})), false);
    w.apply("carol", &p, cm_cfg(json!({"c": "1"})), false);
    let o = w.apply(
        "alice",
        &p,
        cm_cfg(json!({"a": "2", "b": "2", "c": "2"})),
        false,
    );
    assert_eq!(
        o.response.body["message"],
        "Apply failed with 3 conflicts: conflicts with \"bob\":\n- .data.a\n- .data.b\nconflicts with \"carol\":\n- .data.c"
    );
    assert_eq!(
        o.response.body["details"]["causes"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        o.response.body["details"]["causes"][2],
        json!({"reason": "FieldManagerConflict", "message": "conflict with \"carol\"", "field": ".data.c"})
    );
    // Force moves ownership; carol, left with nothing, disappears.
    let o = w.apply("alice", &p, cm_cfg(json!({"a": "2", "c": "2"})), true);
    assert_eq!(o.response.code, 200);
    let mf = o.response.body["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .clone();
    let managers: Vec<&str> = mf.iter().map(|m| m["manager"].as_str().unwrap()).collect();
    // Sorted by operation, time, then manager name.
    assert_eq!(managers, ["alice", "bob"]);
    assert_eq!(mf[0]["fieldsV1"], json!({"f:data": {"f:a": {}, "f:c": {}}}));
    assert_eq!(mf[1]["fieldsV1"], json!({"f:data": {"f:b": {}}}));
}

#[test]
fn s3_1_fields_no_longer_applied_are_removed_unless_owned_by_others() {
    let mut w = World::new();
    let p = format!("{CM}/c");
    w.apply(
        "alice",
        &p,
        cm_cfg(json!({"a": "1", "b": "1", "shared": "s"})),
        false,
    );
    w.apply("bob", &p, cm_cfg(json!({"shared": "s"})), false);
    let o = w.apply("alice", &p, cm_cfg(json!({"a": "1"})), false);
    assert_eq!(o.response.body["data"], json!({"a": "1", "shared": "s"}));
}

#[test]
fn s3_1_update_takes_ownership_and_apply_rv_is_checked() {
    let mut w = World::new();
    let p = format!("{CM}/c");
    w.apply("alice", &p, cm_cfg(json!({"key": "1"})), false);
    let o = w.patch("kubectl-edit", 1, &p, MERGE, json!({"data": {"key": "2"}}));
    assert_eq!(o.response.code, 200);
    let mf = o.response.body["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(mf.len(), 1, "alice lost her only field: {mf:?}");
    assert_eq!(mf[0]["manager"], "kubectl-edit");
    assert_eq!(mf[0]["operation"], "Update");
    let o = w.apply("alice", &p, cm_cfg(json!({"key": "3"})), false);
    assert_eq!(
        o.response.body["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.key"
    );
    let mut cfg = cm_cfg(json!({"key": "3"}));
    cfg["metadata"]["resourceVersion"] = json!("1");
    let o = w.apply("alice", &p, cfg, true);
    assert_eq!(o.response.code, 409);
    assert_eq!(
        o.response.body["details"],
        json!({"name": "c", "kind": "configmaps"})
    );
}

// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn s3_1_managed_fields_of_a_deployment_create() {
    let mut w = World::new();
    let o = w.post("kubectl-create", DEPLOY, json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}}}));
    assert_eq!(
        o.response.body["metadata"]["managedFields"][0]["fieldsV1"],
        // The create owns what defaulting filled in, as kube-apiserver's field manager sees
        // the decoded (defaulted) object (reference/goldens).
        json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {
            "f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {},
            "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
            "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {".": {}, "f:image": {},
                "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {}, "f:terminationMessagePath": {},
                "f:terminationMessagePolicy": {}}},
                "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {},
                "f:terminationGracePeriodSeconds": {}}}}})
    );
    assert_eq!(o.response.body["status"], json!({}));
}

#[test]
fn s3_1_list_map_conflicts_name_the_item() {
    let mut w = World::new();
    let p = format!("{DEPLOY}/web");
    let cfg = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"name": "app", "image": image}]}}}})
    };
    assert_eq!(w.apply("ops", &p, cfg("a:1"), false).response.code, 201);
    // Another applier may add its own container without conflict (list-map merge by name).
    let side = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"name": "log", "image": "l:1"}]}}}});
    let o = w.apply("logger", &p, side, false);
    assert_eq!(o.response.code, 200);
    assert_eq!(
        o.response.body["spec"]["template"]["spec"]["containers"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let o = w.apply("dev", &p, cfg("a:2"), false);
    assert_eq!(
        o.response.body["message"],
        "Apply failed with 1 conflict: conflict with \"ops\": .spec.template.spec.containers[name=\"app\"].image"
    );
    // An applier's own earlier Update entry is another manager too.
    let o = w.patch("ops", 0, &p, STRATEGIC, json!({"spec": {"replicas": 3}}));
    assert_eq!(o.response.code, 200);
    let mut c = cfg("a:1");
    c["spec"]["replicas"] = json!(5);
    let o = w.apply("ops", &p, c, false);
    assert_eq!(
        o.response.body["message"],
        "Apply failed with 1 conflict: conflict with \"ops\" using apps/v1: .spec.replicas"
    );
    assert_eq!(
        w.store.resource_version(&ObjectRef {
            resource: Resource::Deployment,
            namespace: "default".into(),
            name: "web".into()
        }),
        Some(3)
    );
}

#[test]
fn malformed_bodies_are_400() {
    let mut w = World::new();
    w.setup_cm("c", json!({"k": "v"}));
    let o = w.post("a", CM, json!([1]));
    assert_eq!(o.response.code, 400);
    assert!(o.response.body["message"]
        .as_str()
        .unwrap()
        .starts_with("couldn't get version/kind; json parse error: json: cannot unmarshal array"));
    let o = w.patch("a", 0, &format!("{CM}/c"), JSON_PATCH, json!({"op": "add"}));
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"json: cannot unmarshal object into Go value of type jsonpatch.Patch","reason":"BadRequest","code":400}"#
    );
    let o = w.put(
        "a",
        0,
        &format!("{CM}/c"),
        json!({"apiVersion": "v2", "metadata": {"name": "c"}}),
    );
    assert_eq!(
        o.response.body["message"],
        "the API version in the data (v2) does not match the expected API version (v1)"
    );
    let o = w.post(
        "a",
        DEPLOY,
        json!({"metadata": {"name": "d"}, "spec": {"replicas": "3"}}),
    );
    assert_eq!(
        o.response.body["message"],
        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    );
    let many: Vec<Value> = (0..10_001)
        .map(|_| json!({"op": "test", "path": "/data/k", "value": "v"}))
        .collect();
    let o = w.patch("a", 0, &format!("{CM}/c"), JSON_PATCH, Value::Array(many));
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001","reason":"RequestEntityTooLarge","code":413}"#
    );
    assert_eq!(w.store.revision(), 1);
}

// ---------------------------------------------------------------------------------------------
// Provenance, lost updates, events

#[test]
fn seed_story_conditional_update_loses_nothing_blind_update_does() {
    let mut w = World::new();
    w.store.advance_to(100).unwrap();
    w.setup_cm("my-config", json!({"key": "initial"}));
    let p = format!("{CM}/my-config");
    let alice = w.put("alice", 100, &p, json!({"metadata": {"name": "my-config", "resourceVersion": "100"}, "data": {"key": "from-alice"}}));
    assert_eq!(rv(&alice), "101");
    assert!(alice.lost_updates.is_empty());
    let bob = w.put("bob", 100, &p, json!({"metadata": {"name": "my-config", "resourceVersion": "100"}, "data": {"key": "from-bob"}}));
    assert_eq!(bob.response.code, 409);
    assert!(bob.lost_updates.is_empty());
    // Bob clears the version: last write wins, alice's change is lost.
    let bob = w.put("bob", 100, &p, json!({"metadata": {"name": "my-config", "resourceVersion": ""}, "data": {"key": "from-bob"}}));
    assert_eq!(bob.response.code, 200);
    assert_eq!(bob.lost_updates.len(), 1);
    let l = &bob.lost_updates[0];
    assert_eq!(
        (
            l.object.as_str(),
            l.path.as_str(),
            l.writer.as_str(),
            l.overwritten_writer.as_str()
        ),
        ("configmap/my-config", "data.key", "bob", "alice")
    );
    assert_eq!(
        (l.overwritten_revision, l.base_revision, l.revision),
        (101, 100, 102)
    );
    let prov = w
        .store
        .provenance_at(&cm_ref("my-config"), "data.key")
        .unwrap();
    assert_eq!(prov.writer, "bob");
    assert_eq!(prov.revision, 102);
}

#[test]
fn provenance_keeps_unchanged_leaves_and_drops_removed_ones() {
    let mut w = World::new();
    w.setup_cm("c", json!({"a": "1", "app.properties": "x"}));
    let p = format!("{CM}/c");
    let o = w.patch(
        "alice",
        1,
        &p,
        MERGE,
        json!({"data": {"a": "1", "b": "2", "app.properties": null}}),
    );
    assert_eq!(o.revision, Some(2));
    let prov = w.store.provenance(&cm_ref("c")).unwrap();
    let keys: Vec<&str> = prov.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(keys, ["data.a", "data.b"]);
    let at = |path| w.store.provenance_at(&cm_ref("c"), path).unwrap();
    assert_eq!(
        (at("data.a").writer.as_str(), at("data.a").revision),
        ("setup", 1)
    );
    assert_eq!(
        (at("data.b").writer.as_str(), at("data.b").revision),
        ("alice", 2)
    );
    assert!(w.store.provenance_at(&cm_ref("c"), "data.zz").is_none());
    // A blind merge patch that removes a field another writer set after the base loses it.
    let o = w.patch("bob", 1, &p, MERGE, json!({"data": {"b": null}}));
    assert_eq!(o.lost_updates.len(), 1);
    assert_eq!(o.lost_updates[0].path, "data.b");
    // Removing a field the writer itself set, or one set before its base, loses nothing.
    let o = w.patch("bob", 1, &p, MERGE, json!({"data": {"a": "9"}}));
    assert!(o.lost_updates.is_empty());
    w.setup_cm("q", json!({"app.properties": "x"}));
    assert!(w
        .store
        .provenance_at(&cm_ref("q"), "data[\"app.properties\"]")
        .is_some());
}

#[test]
fn a_delete_after_others_changed_the_object_is_a_lost_update() {
    let mut w = World::new();
    w.setup_cm("c", json!({"a": "1"}));
    let p = format!("{CM}/c");
    w.patch("alice", 1, &p, MERGE, json!({"data": {"a": "2"}}));
    let o = w.delete("bob", 1, &p, None);
    assert_eq!(o.lost_updates.len(), 1);
    let l = &o.lost_updates[0];
    assert_eq!(
        (
            l.path.as_str(),
            l.overwritten_writer.as_str(),
            l.overwritten_revision,
            l.revision
        ),
        ("", "alice", 2, 3)
    );
    w.setup_cm("d", json!({"a": "1"}));
    let o = w.delete("bob", 4, &format!("{CM}/d"), None);
    assert!(o.lost_updates.is_empty());
}

#[test]
fn events_record_accepted_effective_writes_only() {
    let mut w = World::new();
    w.setup_cm("c", json!({"a": "1"}));
    let p = format!("{CM}/c");
    w.patch("alice", 1, &p, MERGE, json!({"data": {"a": "2"}}));
    w.patch("alice", 2, &p, MERGE, json!({"data": {"a": "2"}})); // no-op
    w.put(
        "bob",
        1,
        &p,
        json!({"metadata": {"name": "c", "resourceVersion": "1"}}),
    ); // 409
    w.delete("bob", 2, &p, None);
    let got: Vec<(EventType, &str, u64, &str)> = w
        .store
        .events()
        .iter()
        .map(|e| (e.kind, e.object.as_str(), e.revision, e.writer.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (EventType::Added, "configmap/c", 1, "setup"),
            (EventType::Modified, "configmap/c", 2, "alice"),
            (EventType::Deleted, "configmap/c", 3, "bob"),
        ]
    );
}

#[test]
fn unknown_paths_and_methods() {
    let mut w = World::new();
    let o = w.get("/api/v1/namespaces/default/pods/x");
    assert_eq!(
        body(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#
    );
    let o = w.send(
        "a",
        0,
        Method::Post,
        &format!("{CM}/x"),
        None,
        Some(json!({})),
    );
    assert_eq!(o.response.code, 405);
    let o = w.send("a", 0, Method::Put, CM, None, Some(json!({})));
    assert_eq!(o.response.code, 405);
    w.setup_cm("c", json!({}));
    let o = w.get(CM);
    assert_eq!(o.response.body["kind"], "ConfigMapList");
    assert_eq!(o.response.body["items"][0]["metadata"]["name"], "c");
}

#[test]
fn objects_iterate_in_a_stable_order_and_store_is_a_value() {
    let mut w = World::new();
    w.post("setup", WIDGETS, json!({"metadata": {"name": "w"}}));
    w.setup_cm("b", json!({}));
    w.setup_cm("a", json!({}));
    let names: Vec<String> = w.store.objects().map(|(r, _)| r.to_string()).collect();
    assert_eq!(
        names,
        ["configmap/a", "configmap/b", "widgets.example.com/w"]
    );
    let copy = w.store.clone();
    assert_eq!(copy, w.store);
    use std::hash::{DefaultHasher, Hash, Hasher};
    let h = |s: &Store| {
        let mut h = DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    };
    assert_eq!(h(&copy), h(&w.store));
    w.patch(
        "x",
        0,
        &format!("{CM}/a"),
        MERGE,
        json!({"data": {"k": "v"}}),
    );
    assert_ne!(h(&copy), h(&w.store));
}

// ---------------------------------------------------------------------------------------------
// Property tests against a reference model

#[derive(Debug, Clone)]
enum RvSel {
    Current,
    Stale,
    Empty,
    Garbage,
}

#[derive(Debug, Clone)]
enum Op {
    Create(u8, u8),
    Put(u8, RvSel, u8),
    Merge(u8, Option<RvSel>, u8),
    Delete(u8, Option<RvSel>),
    Get(u8),
}

fn rv_sel() -> impl Strategy<Value = RvSel> {
    prop_oneof![
        Just(RvSel::Current),
        Just(RvSel::Stale),
        Just(RvSel::Empty),
        Just(RvSel::Garbage)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3, 0u8..3).prop_map(|(n, v)| Op::Create(n, v)),
        (0u8..3, rv_sel(), 0u8..3).prop_map(|(n, s, v)| Op::Put(n, s, v)),
        (0u8..3, proptest::option::of(rv_sel()), 0u8..3).prop_map(|(n, s, v)| Op::Merge(n, s, v)),
        (0u8..3, proptest::option::of(rv_sel())).prop_map(|(n, s)| Op::Delete(n, s)),
        (0u8..3).prop_map(Op::Get),
    ]
}

fn rv_text(sel: &RvSel, current: u64) -> String {
    match sel {
        RvSel::Current => current.to_string(),
        RvSel::Stale => (current.saturating_sub(1).max(1) + u64::from(current <= 1)).to_string(),
        RvSel::Empty => String::new(),
        RvSel::Garbage => "abc".into(),
    }
}

type Model = std::collections::BTreeMap<String, (u64, String)>;

/// Applies an outcome to the model. `write`: `None` = the request must not write;
/// `Some(None)` = an accepted delete; `Some(Some(v))` = an accepted write of value `v` (a no-op
/// when the model already holds `v`: the version stays and no revision is taken).
fn step(
    o: &Outcome,
    rev: &mut u64,
    model: &mut Model,
    name: &str,
    write: Option<Option<String>>,
) -> Result<(), TestCaseError> {
    match write {
        None => prop_assert_eq!(o.revision, None, "a refused request wrote"),
        Some(None) => {
            *rev += 1;
            prop_assert_eq!(o.revision, Some(*rev));
            model.remove(name);
        }
        Some(Some(v)) => {
            let noop = model.get(name).is_some_and(|(_, old)| *old == v);
            if noop {
                prop_assert_eq!(o.revision, None, "a no-op wrote");
                prop_assert_eq!(rv(o), model[name].0.to_string());
            } else {
                *rev += 1;
                prop_assert_eq!(o.revision, Some(*rev));
                prop_assert_eq!(rv(o), rev.to_string());
                model.insert(name.to_string(), (*rev, v));
            }
        }
    }
    Ok(())
}

fn expected_code(exists: bool, sel: Option<&RvSel>) -> u16 {
    match (exists, sel) {
        (false, _) => 404,
        (true, Some(RvSel::Garbage)) => 500,
        (true, Some(RvSel::Stale)) => 409,
        _ => 200,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Revisions strictly increase with every accepted write; a conditional write never
    /// overwrites a version it did not name; no-op writes keep the version; reads return the
    /// last accepted write.
    #[test]
    fn store_matches_the_reference_model(ops in proptest::collection::vec(op(), 1..30)) {
        let mut w = World::new();
        let mut model = Model::new();
        let mut rev = 0u64;
        for op in ops {
            let before = w.store.revision();
            match &op {
                Op::Create(n, v) => {
                    let name = format!("c{n}");
                    let value = format!("v{v}");
                    let o = w.post("alice", CM, json!({"metadata": {"name": name}, "data": {"k": value}}));
                    if model.contains_key(&name) {
                        prop_assert_eq!(o.response.body["reason"].as_str(), Some("AlreadyExists"));
                        step(&o, &mut rev, &mut model, &name, None)?;
                    } else {
                        prop_assert_eq!(o.response.code, 201);
                        step(&o, &mut rev, &mut model, &name, Some(Some(value)))?;
                    }
                }
                Op::Put(n, sel, v) => {
                    let name = format!("c{n}");
                    let value = format!("v{v}");
                    let cur = model.get(&name).map(|m| m.0).unwrap_or(0);
                    let o = w.put("bob", 0, &format!("{CM}/{name}"), json!({"metadata": {"name": name, "resourceVersion": rv_text(sel, cur)}, "data": {"k": value}}));
                    let code = expected_code(model.contains_key(&name), Some(sel));
                    prop_assert_eq!(o.response.code, code, "{}", o.response.body);
                    step(&o, &mut rev, &mut model, &name, (code == 200).then_some(Some(value)))?;
                }
                Op::Merge(n, sel, v) => {
                    let name = format!("c{n}");
                    let value = format!("v{v}");
                    let cur = model.get(&name).map(|m| m.0).unwrap_or(0);
                    let mut patch = json!({"data": {"k": value}});
                    if let Some(s) = sel {
                        patch["metadata"] = json!({"resourceVersion": rv_text(s, cur)});
                    }
                    let o = w.patch("carol", 0, &format!("{CM}/{name}"), MERGE, patch);
                    let code = expected_code(model.contains_key(&name), sel.as_ref());
                    prop_assert_eq!(o.response.code, code, "{}", o.response.body);
                    step(&o, &mut rev, &mut model, &name, (code == 200).then_some(Some(value)))?;
                }
                Op::Delete(n, sel) => {
                    let name = format!("c{n}");
                    let cur = model.get(&name).map(|m| m.0).unwrap_or(0);
                    let b = sel.as_ref().map(|s| json!({"preconditions": {"resourceVersion": rv_text(s, cur)}}));
                    let o = w.delete("dave", 0, &format!("{CM}/{name}"), b);
                    let code = match (model.contains_key(&name), sel) {
                        (false, _) => 404,
                        (true, None | Some(RvSel::Current)) => 200,
                        (true, Some(_)) => 409,
                    };
                    prop_assert_eq!(o.response.code, code, "{}", o.response.body);
                    step(&o, &mut rev, &mut model, &name, (code == 200).then_some(None))?;
                }
                Op::Get(n) => {
                    let name = format!("c{n}");
                    let o = w.get(&format!("{CM}/{name}"));
                    match model.get(&name) {
                        None => prop_assert_eq!(o.response.code, 404),
                        Some((r, v)) => {
                            prop_assert_eq!(o.response.code, 200);
                            prop_assert_eq!(rv(&o), r.to_string());
                            prop_assert_eq!(o.response.body["data"]["k"].as_str(), Some(v.as_str()));
                        }
                    }
                    prop_assert_eq!(o.revision, None);
                }
            }
            prop_assert!(w.store.revision() >= before);
            prop_assert_eq!(w.store.revision(), rev);
            prop_assert_eq!(w.store.events().len() as u64, rev);
        }
        let stored: Vec<(String, String, String)> = w.store.objects().map(|(r, v)| (
            r.name.clone(),
            v["metadata"]["resourceVersion"].as_str().unwrap_or("").to_string(),
            v["data"]["k"].as_str().unwrap_or("").to_string(),
        )).collect();
        let expected: Vec<(String, String, String)> = model.iter().map(|(n, (r, v))| (n.clone(), r.to_string(), v.clone())).collect();
        prop_assert_eq!(stored, expected);
    }

    /// `handle` never panics and never answers outside the HTTP codes it knows, whatever the
    /// path, method, content type or body.
    #[test]
    fn handle_never_panics(
        path in prop_oneof![
            Just(format!("{CM}/c")), Just(CM.to_string()), Just(format!("{DEPLOY}/d")),
            Just(format!("{WIDGETS}/w")), "[a-z/%?=&.]{0,40}"
        ],
        method in prop_oneof![Just(Method::Get), Just(Method::Post), Just(Method::Put), Just(Method::Patch), Just(Method::Delete)],
        ct in prop_oneof![Just(MERGE), Just(JSON_PATCH), Just(STRATEGIC), Just(APPLY), Just("text/plain")],
        body in prop_oneof![
            Just(json!(null)), Just(json!([])), Just(json!("x")), Just(json!({"metadata": 3})),
            Just(json!({"metadata": {"name": "c", "resourceVersion": "1"}, "data": {"k": 1}})),
            Just(json!([{"op": "move", "from": "/data", "path": "/data/x"}])),
            Just(json!({"metadata": {"name": "w"}, "spec": {"replicas": "x"}})),
            Just(json!({"metadata": {"name": "d"}, "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "a"}, {"image": "x"}]}}}})),
        ],
    ) {
        let mut w = World::new();
        w.setup_cm("c", json!({"k": "v"}));
        w.post("setup", DEPLOY, json!({"metadata": {"name": "d"}}));
        w.post("setup", WIDGETS, json!({"metadata": {"name": "w"}}));
        let p = format!("{path}{}fieldManager=x", if path.contains('?') { "&" } else { "?" });
        let o = w.send("x", 0, method, &p, Some(ct), Some(body));
        prop_assert!([200, 201, 400, 404, 405, 409, 415, 422, 500].contains(&o.response.code), "{}", o.response.code);
        prop_assert_eq!(o.revision.is_some(), w.store.revision() == 4);
    }
}

fn managed_by<'a>(o: &'a Outcome, who: &str) -> Option<&'a Value> {
    o.response.body["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|m| m["manager"] == who)
        .map(|m| &m["fieldsV1"])
}

#[test]
fn s3_1_each_applier_owns_its_own_finalizers() {
    let mut w = World::new();
    let p = format!("{CM}/c");
    let cfg = |fin: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": fin}});
    let o = w.apply("a", &p, cfg(json!(["x.io/a1", "x.io/a2"])), false);
    assert_eq!(o.response.code, 201);
    // B applies one more finalizer: no conflict (a set: each value its own field).
    let o = w.apply("b", &p, cfg(json!(["x.io/b"])), false);
    assert_eq!(o.response.code, 200);
    assert_eq!(
        o.response.body["metadata"]["finalizers"],
        json!(["x.io/a1", "x.io/a2", "x.io/b"])
    );
    assert_eq!(
        managed_by(&o, "b"),
        Some(&json!({"f:metadata": {"f:finalizers": {"v:\"x.io/b\"": {}}}}))
    );
    assert_eq!(
        managed_by(&o, "a"),
        Some(&json!({"f:metadata": {"f:finalizers": {"v:\"x.io/a1\"": {}, "v:\"x.io/a2\"": {}}}}))
    );
    // B no longer applies it: only B's finalizer goes, and B with it.
    let o = w.apply(
        "b",
        &p,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
        false,
    );
    assert_eq!(o.response.code, 200);
    assert_eq!(
        o.response.body["metadata"]["finalizers"],
        json!(["x.io/a1", "x.io/a2"])
    );
    assert_eq!(managed_by(&o, "b"), None);
}

/// Defaulting runs before the field manager for an update-type write (the writer owns what it
/// filled in or changed) and after it for server-side apply (nobody owns the defaults):
/// `store/defaults.rs`, checked against kube-apiserver 1.37.2 (reference/goldens).
// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn s3_1_deployment_defaults_are_owned_by_updates_not_by_appliers() {
    let mut w = World::new();
    let p = format!("{DEPLOY}/web");
    let cfg = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": image}]}}}})
    };
    let o = w.apply("alice", &p, cfg("nginx:1.27"), false);
    assert_eq!(o.response.code, 201, "{}", o.response.body);
    let spec = &o.response.body["spec"];
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["strategy"]["rollingUpdate"]["maxSurge"], "25%");
    assert_eq!(
        spec["template"]["spec"]["containers"][0]["imagePullPolicy"],
        "IfNotPresent"
    );
    let mf = o.response.body["metadata"]["managedFields"]
        .as_array()
        .unwrap();
    assert_eq!(mf.len(), 1);
    assert_eq!(
        mf[0]["fieldsV1"]["f:spec"],
        json!({"f:selector": {}, "f:template": {"f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}}})
    );
    // An update whose body leaves the pull policy out defaults it again from the new image
    // (untagged: `latest`, so Always): bob owns the changed policy, not the unchanged defaults.
    let mut body = cfg("nginx");
    body["metadata"]["resourceVersion"] = json!("1");
    let o = w.put("bob", 1, &p, body);
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    assert_eq!(
        o.response.body["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
        "Always"
    );
    assert_eq!(
        managed_by(&o, "bob"),
        Some(
            &json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": {"f:image": {}, "f:imagePullPolicy": {}}}}}}})
        )
    );
}

// Its Deployments are defaulted: the `api` feature's store (the page's does not default,
// docs/size.md).
#[cfg(feature = "api")]
#[test]
fn s3_1_ports_are_keyed_by_port_and_defaulted_protocol_and_the_selector_is_atomic() {
    let mut w = World::new();
    let o = w.post("kubectl-create", DEPLOY, json!({"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "a", "ports": [{"containerPort": 80}]}]}}}}));
    assert_eq!(o.response.code, 201, "{}", o.response.body);
    let f = managed_by(&o, "kubectl-create").unwrap();
    assert_eq!(f["f:spec"]["f:selector"], json!({}));
    // The key takes the schema's default for `protocol`; defaulting also fills the field
    // itself before the field manager, so the creator owns `f:protocol` too.
    assert_eq!(
        f["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"app\"}"]["f:ports"],
        json!({".": {}, "k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}})
    );
}
