//! The store beyond single-object CRUD, as real clients use it (as kubectl and client-go send it):
//! lists (one namespace, every namespace, selectors, paging, resourceVersion), Secrets,
//! Namespaces (and strict namespaces), DeleteOptions. Tests are named after the facts.

use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Store};
use serde_json::{json, Value};

struct World {
    store: Store,
    rng: Rng,
}

impl World {
    fn new() -> World {
        World {
            store: Store::new(),
            rng: Rng::new(7),
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
            name: "tester".into(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms: 0,
            rng: &mut self.rng,
        };
        self.store.handle(&req, &actor, &mut env)
    }

    fn get(&mut self, path: &str) -> Outcome {
        self.send(Method::Get, path, None, None)
    }

    /// A server-side apply (`PATCH` with `application/apply-patch+yaml`).
    fn apply(&mut self, path: &str, body: Value) -> Outcome {
        self.send(
            Method::Patch,
            path,
            Some("application/apply-patch+yaml"),
            Some(body),
        )
    }

    fn post(&mut self, path: &str, body: Value) -> Outcome {
        self.send(Method::Post, path, Some("application/json"), Some(body))
    }

    /// Creates and checks the 201.
    fn create(&mut self, path: &str, body: Value) -> Outcome {
        let o = self.post(path, body);
        assert_eq!(o.response.code, 201, "{}", o.response.body);
        o
    }

    fn cm(&mut self, ns: &str, name: &str, labels: Value) {
        self.create(
            &format!("/api/v1/namespaces/{ns}/configmaps?fieldManager=setup"),
            json!({"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}),
        );
    }
}

fn names(o: &Outcome) -> Vec<String> {
    o.response.body["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| {
                    let m = &i["metadata"];
                    match m["namespace"].as_str() {
                        Some(ns) => format!("{ns}/{}", m["name"].as_str().unwrap_or("")),
                        None => m["name"].as_str().unwrap_or("").to_string(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

fn text(o: &Outcome) -> String {
    o.response.body.to_string()
}

/// The uid of the object a create answered.
fn uid(o: &Outcome) -> String {
    o.response.body["metadata"]["uid"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// Lists

#[test]
fn a_list_is_a_typed_list_at_the_store_revision_with_items_without_kind() {
    let mut w = World::new();
    let c = w.create(
        "/api/v1/namespaces/default/configmaps?fieldManager=setup",
        json!({"metadata": {"name": "a"}, "data": {"k": "v"}}),
    );
    let u = uid(&c);
    w.cm("other", "b", json!({}));
    let o = w.get("/api/v1/namespaces/default/configmaps?limit=500");
    assert_eq!(o.response.code, 200);
    assert_eq!(
        text(&o),
        format!(
            r#"{{"kind":"ConfigMapList","apiVersion":"v1","metadata":{{"resourceVersion":"2"}},"items":[{{"metadata":{{"name":"a","namespace":"default","uid":"{u}","resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{{"manager":"setup","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:data":{{".":{{}},"f:k":{{}}}}}}}}]}},"data":{{"k":"v"}}}}]}}"#
        )
    );
    assert_eq!(o.revision, None);
}

#[test]
fn every_namespace_lists_are_in_etcd_key_order() {
    let mut w = World::new();
    // `a-b/x` sorts before `a/x`: etcd compares `NAMESPACE/NAME` as bytes ('-' < '/').
    for (ns, name) in [("a", "x"), ("a-b", "x"), ("a", "b"), ("default", "z")] {
        w.cm(ns, name, json!({}));
    }
    for path in ["/api/v1/configmaps", "/api/v1/configmaps?limit=500"] {
        let o = w.get(path);
        assert_eq!(o.response.body["kind"], "ConfigMapList");
        assert_eq!(names(&o), ["a-b/x", "a/b", "a/x", "default/z"], "{path}");
    }
    let d = w.post(
        "/apis/apps/v1/namespaces/n1/deployments",
        json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}}),
    );
    assert_eq!(d.response.code, 201);
    let o = w.get("/apis/apps/v1/deployments");
    assert_eq!(o.response.body["kind"], "DeploymentList");
    assert_eq!(o.response.body["apiVersion"], "apps/v1");
    assert_eq!(names(&o), ["n1/web"]);
    // Writes to an every-namespace path are not served.
    let p = w.post("/api/v1/configmaps", json!({"metadata": {"name": "q"}}));
    assert_eq!(p.response.code, 405);
}

/// With `"continue": ""` in the list's metadata when there is no next page, as the reference
/// kube-apiserver v1.37.2 answers for a custom resource (reference/goldens/random.json).
#[test]
fn custom_resource_lists_are_unstructured_with_every_key_sorted() {
    let mut w = World::new();
    let c = w.create(
        "/apis/example.com/v1/namespaces/team-a/widgets?fieldManager=setup",
        json!({"metadata": {"name": "w1"}, "spec": {"size": 1}}),
    );
    let u = uid(&c);
    let o = w.get("/apis/example.com/v1/widgets?limit=1");
    assert_eq!(
        text(&o),
        format!(
            r#"{{"apiVersion":"example.com/v1","items":[{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"creationTimestamp":"2026-01-01T00:00:00Z","generation":1,"managedFields":[{{"apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{{"f:spec":{{".":{{}},"f:size":{{}}}}}},"manager":"setup","operation":"Update","time":"2026-01-01T00:00:00Z"}}],"name":"w1","namespace":"team-a","resourceVersion":"1","uid":"{u}"}},"spec":{{"size":1}}}}],"kind":"WidgetList","metadata":{{"continue":"","resourceVersion":"1"}}}}"#
        )
    );
}

#[test]
fn label_selectors_filter_lists_with_the_full_syntax() {
    let mut w = World::new();
    w.cm("default", "web", json!({"app": "web", "tier": "front"}));
    w.cm("default", "db", json!({"app": "db", "tier": "back"}));
    w.cm("default", "plain", json!({}));
    for (sel, want) in [
        ("app%3Dweb", vec!["default/web"]),
        ("app%3D%3Dweb", vec!["default/web"]),
        ("app!%3Dweb", vec!["default/db", "default/plain"]),
        ("app+in+(web,db)", vec!["default/db", "default/web"]),
        ("app%20notin%20(web)", vec!["default/db", "default/plain"]),
        ("tier", vec!["default/db", "default/web"]),
        ("!tier", vec!["default/plain"]),
        ("app%3Dweb,tier%3Dback", vec![]),
        ("", vec!["default/db", "default/plain", "default/web"]),
    ] {
        let o = w.get(&format!(
            "/api/v1/namespaces/default/configmaps?labelSelector={sel}"
        ));
        assert_eq!(o.response.code, 200, "{sel}: {}", o.response.body);
        assert_eq!(names(&o), want, "{sel}");
    }
}

#[test]
fn an_invalid_label_selector_is_400_with_the_parsers_text() {
    let mut w = World::new();
    for (sel, msg) in [
        ("app%3Dweb%3Dx", "found '=', expected: ',' or 'end of string'"),
        ("app+in+web", "unable to parse requirement: found 'web' expected: '('"),
        (
            "-a",
            "unable to parse requirement: <nil>: Invalid value: \\\"-a\\\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
    ] {
        let o = w.get(&format!("/api/v1/namespaces/default/configmaps?labelSelector={sel}"));
        assert_eq!(
            text(&o),
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{msg}","reason":"BadRequest","code":400}}"#
            ),
            "{sel}"
        );
    }
}

#[test]
fn field_selectors_select_by_name_and_namespace_and_unknown_fields_are_400_per_kind() {
    let mut w = World::new();
    w.cm("default", "a", json!({}));
    w.cm("default", "b", json!({}));
    w.cm("x", "a", json!({}));
    for (path, want) in [
        (
            "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da",
            vec!["default/a"],
        ),
        (
            "/api/v1/configmaps?fieldSelector=metadata.name%3Da",
            vec!["default/a", "x/a"],
        ),
        (
            "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dx",
            vec!["x/a"],
        ),
        (
            "/api/v1/configmaps?fieldSelector=metadata.namespace!%3Dx,metadata.name%3D%3Db",
            vec!["default/b"],
        ),
        (
            "/api/v1/namespaces?fieldSelector=metadata.name%3Dx",
            vec!["x"],
        ),
        (
            "/api/v1/namespaces?fieldSelector=status.phase%3DActive,metadata.name%3Dkube-public",
            vec!["kube-public"],
        ),
    ] {
        let o = w.get(path);
        assert_eq!(o.response.code, 200, "{path}: {}", o.response.body);
        assert_eq!(names(&o), want, "{path}");
    }
    for (path, msg) in [
        (
            "/api/v1/configmaps?fieldSelector=data.k%3Dv",
            r#"\"data.k\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""#,
        ),
        (
            "/apis/apps/v1/deployments?fieldSelector=spec.replicas%3D1",
            r#"\"spec.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""#,
        ),
        (
            "/api/v1/secrets?fieldSelector=data%3Dx",
            "field label not supported: data",
        ),
        (
            "/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx",
            "field label not supported: metadata.namespace",
        ),
        (
            "/apis/example.com/v1/widgets?fieldSelector=spec.size%3D1",
            "field label not supported: spec.size",
        ),
        (
            "/api/v1/configmaps?fieldSelector=metadata.name",
            "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
        ),
    ] {
        let o = w.get(path);
        assert_eq!(
            text(&o),
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{msg}","reason":"BadRequest","code":400}}"#
            ),
            "{path}"
        );
    }
    // `type` is a Secret's selectable field.
    w.create(
        "/api/v1/namespaces/default/secrets",
        json!({"metadata": {"name": "s"}, "type": "kubernetes.io/basic-auth", "stringData": {"username": "u"}}),
    );
    w.create(
        "/api/v1/namespaces/default/secrets",
        json!({"metadata": {"name": "t"}}),
    );
    let o = w.get("/api/v1/secrets?fieldSelector=type%3DOpaque");
    assert_eq!(names(&o), ["default/t"]);
}

#[test]
fn limit_pages_with_a_continue_token_and_remaining_item_count() {
    let mut w = World::new();
    for n in ["a", "b", "c"] {
        w.cm("default", n, json!({"app": "x"}));
    }
    let base = "/api/v1/namespaces/default/configmaps";
    let p1 = w.get(&format!("{base}?limit=2"));
    assert_eq!(names(&p1), ["default/a", "default/b"]);
    // base64url of {"v":"meta.k8s.io/v1","rv":3,"start":"/b\u0000"}, no padding: the start
    // key with its leading `/`, as the reference kube-apiserver v1.37.2 writes it
    // (reference/goldens/random.json; this test said "b\u0000" before the goldens).
    let token = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Mywic3RhcnQiOiIvYlx1MDAwMCJ9";
    assert_eq!(
        p1.response.body["metadata"].to_string(),
        format!(r#"{{"resourceVersion":"3","continue":"{token}","remainingItemCount":1}}"#)
    );
    let p2 = w.get(&format!("{base}?limit=2&continue={token}"));
    assert_eq!(names(&p2), ["default/c"]);
    assert_eq!(
        p2.response.body["metadata"].to_string(),
        r#"{"resourceVersion":"3"}"#
    );
    // With a selector: no remainingItemCount.
    let s = w.get(&format!("{base}?limit=1&labelSelector=app%3Dx"));
    assert_eq!(names(&s), ["default/a"]);
    assert!(s.response.body["metadata"]["continue"].is_string());
    assert!(s.response.body["metadata"]
        .get("remainingItemCount")
        .is_none());
    // A limit that takes everything: no token. `limit=0` does not page.
    for q in ["limit=3", "limit=0", "limit=-1"] {
        let o = w.get(&format!("{base}?{q}"));
        assert_eq!(names(&o).len(), 3, "{q}");
        assert_eq!(
            o.response.body["metadata"].to_string(),
            r#"{"resourceVersion":"3"}"#,
            "{q}"
        );
    }
    // The store keeps no history: after a write the token's snapshot is gone (410), and the
    // Status carries a token that continues at the current state.
    w.cm("default", "d", json!({}));
    let gone = w.get(&format!("{base}?limit=2&continue={token}"));
    // {"v":"meta.k8s.io/v1","rv":-1,"start":"/b\u0000"}
    let again = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiL2JcdTAwMDAifQ";
    assert_eq!(
        text(&gone),
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{"continue":"{again}"}},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410}}"#
        )
    );
    let rest = w.get(&format!("{base}?limit=2&continue={again}"));
    assert_eq!(names(&rest), ["default/c", "default/d"]);
}

#[test]
fn bad_list_options_get_the_apiservers_statuses() {
    let mut w = World::new();
    w.cm("default", "a", json!({}));
    let base = "/api/v1/namespaces/default/configmaps";
    let bad = |msg: &str| {
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{msg}","reason":"BadRequest","code":400}}"#
        )
    };
    for (q, want) in [
        ("limit=x", bad(r#"strconv.ParseInt: parsing \"x\": invalid syntax"#)),
        ("timeoutSeconds=1.5", bad(r#"strconv.ParseInt: parsing \"1.5\": invalid syntax"#)),
        ("continue=abc!", bad("invalid continue token: continue key is not valid: illegal base64 data at input byte 3")),
        (
            "continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0&resourceVersion=1",
            bad("specifying resource version is not allowed when using continue"),
        ),
        (
            "resourceVersion=abc",
            bad(r#"invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax"#),
        ),
        (
            "resourceVersion=9",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 9, current: 1","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#.to_string(),
        ),
        (
            "resourceVersionMatch=NotOlderThan",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"}]},"code":422}"#.to_string(),
        ),
        (
            "resourceVersion=1&resourceVersionMatch=Newest",
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"","field":"resourceVersionMatch"}]},"code":422}"#.to_string(),
        ),
    ] {
        let o = w.get(&format!("{base}?{q}"));
        assert_eq!(text(&o), want, "{q}");
    }
    // Accepted resourceVersions: unset, 0, the current one, an older one that is not Exact.
    w.cm("default", "b", json!({}));
    for q in [
        "resourceVersion=",
        "resourceVersion=0",
        "resourceVersion=2&resourceVersionMatch=Exact",
        "resourceVersion=1",
        "resourceVersion=1&resourceVersionMatch=NotOlderThan",
        "timeoutSeconds=30&watch=false",
    ] {
        let o = w.get(&format!("{base}?{q}"));
        assert_eq!(o.response.code, 200, "{q}: {}", o.response.body);
        assert_eq!(names(&o).len(), 2, "{q}");
    }
    // An older revision, exactly (or with `limit`, the legacy rule), is gone.
    for q in [
        "resourceVersion=1&resourceVersionMatch=Exact",
        "resourceVersion=1&limit=10",
    ] {
        let o = w.get(&format!("{base}?{q}"));
        assert_eq!(
            text(&o),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided list is too old.","reason":"Expired","code":410}"#,
            "{q}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Secrets

#[test]
fn a_secret_merges_string_data_into_base64_data_and_defaults_its_type() {
    let mut w = World::new();
    let c = w.create(
        "/api/v1/namespaces/default/secrets?fieldManager=kubectl-create",
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"},
               "data": {"b": "YQ==", "user": "b2xk"}, "stringData": {"user": "admin", "pass": "p@ss"}}),
    );
    let u = uid(&c);
    let want = format!(
        r#"{{"kind":"Secret","apiVersion":"v1","metadata":{{"name":"creds","namespace":"default","uid":"{u}","resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:data":{{".":{{}},"f:b":{{}},"f:pass":{{}},"f:user":{{}}}},"f:type":{{}}}}}}]}},"data":{{"b":"YQ==","pass":"cEBzcw==","user":"YWRtaW4="}},"type":"Opaque"}}"#
    );
    assert_eq!(text(&c), want);
    assert_eq!(
        text(&w.get("/api/v1/namespaces/default/secrets/creds")),
        want
    );
    let l = w.get("/api/v1/namespaces/default/secrets");
    assert_eq!(l.response.body["kind"], "SecretList");
    assert_eq!(l.response.body["items"][0]["data"]["user"], "YWRtaW4=");
    assert!(l.response.body["items"][0].get("kind").is_none());
    // A merge patch with stringData updates data; stringData is never stored.
    let p = w.send(
        Method::Patch,
        "/api/v1/namespaces/default/secrets/creds",
        Some("application/merge-patch+json"),
        Some(json!({"stringData": {"pass": "new"}})),
    );
    assert_eq!(p.response.code, 200, "{}", p.response.body);
    assert_eq!(p.response.body["data"]["pass"], "bmV3");
    assert!(p.response.body.get("stringData").is_none());
}

#[test]
fn secret_data_must_be_base64_with_gos_decode_error() {
    let mut w = World::new();
    for (value, at) in [("admin", 4), ("My-pass-123", 2), ("YQ=", 3)] {
        let o = w.post(
            "/api/v1/namespaces/default/secrets",
            json!({"metadata": {"name": "s"}, "data": {"k": value}}),
        );
        assert_eq!(
            text(&o),
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte {at}","reason":"BadRequest","code":400}}"#
            ),
            "{value}"
        );
    }
    let o = w.post(
        "/api/v1/namespaces/default/secrets",
        json!({"metadata": {"name": "s"}, "stringData": {"k": 1}}),
    );
    assert_eq!(
        o.response.body["message"],
        "Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string"
    );
    assert_eq!(w.store.revision(), 0);
}

#[test]
fn a_secrets_type_is_immutable() {
    let mut w = World::new();
    w.create(
        "/api/v1/namespaces/default/secrets",
        json!({"metadata": {"name": "s"}, "type": "example.com/token"}),
    );
    let o = w.send(
        Method::Put,
        "/api/v1/namespaces/default/secrets/s",
        Some("application/json"),
        Some(json!({"metadata": {"name": "s"}, "data": {"k": "dg=="}})),
    );
    assert_eq!(
        text(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Secret \"s\" is invalid: type: Invalid value: \"Opaque\": field is immutable","reason":"Invalid","details":{"name":"s","kind":"Secret","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Opaque\": field is immutable","field":"type"}]},"code":422}"#
    );
}

// ---------------------------------------------------------------------------------------------
// Namespaces

#[test]
fn the_builtin_namespaces_and_those_objects_live_in_exist() {
    let mut w = World::new();
    let d = w.get("/api/v1/namespaces/default");
    assert_eq!(d.response.code, 200);
    let u = uid(&d);
    assert_eq!(
        text(&d),
        format!(
            r#"{{"kind":"Namespace","apiVersion":"v1","metadata":{{"name":"default","uid":"{u}","creationTimestamp":"2026-01-01T00:00:00Z","labels":{{"kubernetes.io/metadata.name":"default"}}}},"spec":{{"finalizers":["kubernetes"]}},"status":{{"phase":"Active"}}}}"#
        )
    );
    // Deterministic: the same uid every time.
    assert_eq!(uid(&w.get("/api/v1/namespaces/default")), u);
    let missing = w.get("/api/v1/namespaces/team-a");
    assert_eq!(
        text(&missing),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"team-a\" not found","reason":"NotFound","details":{"name":"team-a","kind":"namespaces"},"code":404}"#
    );
    w.cm("team-a", "c", json!({}));
    assert_eq!(w.get("/api/v1/namespaces/team-a").response.code, 200);
    let l = w.get("/api/v1/namespaces");
    assert_eq!(l.response.body["kind"], "NamespaceList");
    assert_eq!(
        names(&l),
        [
            "default",
            "kube-node-lease",
            "kube-public",
            "kube-system",
            "team-a"
        ]
    );
    // Reading namespaces writes nothing.
    assert_eq!(w.store.revision(), 1);
}

#[test]
fn creating_a_namespace_labels_it_and_validates_its_name_as_a_dns_label() {
    let mut w = World::new();
    let c = w.create(
        "/api/v1/namespaces?fieldManager=kubectl-create",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b", "namespace": "ignored"}}),
    );
    let u = uid(&c);
    assert_eq!(
        text(&c),
        format!(
            r#"{{"kind":"Namespace","apiVersion":"v1","metadata":{{"name":"team-b","uid":"{u}","resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00Z","labels":{{"kubernetes.io/metadata.name":"team-b"}},"managedFields":[{{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:metadata":{{"f:labels":{{".":{{}},"f:kubernetes.io/metadata.name":{{}}}}}}}}}}]}},"spec":{{"finalizers":["kubernetes"]}},"status":{{"phase":"Active"}}}}"#
        )
    );
    assert_eq!(text(&w.get("/api/v1/namespaces/team-b")), text(&c));
    for name in ["default", "team-b"] {
        let o = w.post("/api/v1/namespaces", json!({"metadata": {"name": name}}));
        assert_eq!(
            text(&o),
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"namespaces \"{name}\" already exists","reason":"AlreadyExists","details":{{"name":"{name}","kind":"namespaces"}},"code":409}}"#
            )
        );
    }
    for (name, msg) in [
        ("Team_B", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
        ("a.b", "must not contain dots"),
    ] {
        let o = w.post("/api/v1/namespaces", json!({"metadata": {"name": name}}));
        assert_eq!(
            text(&o),
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"Namespace \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\": {msg}","reason":"Invalid","details":{{"name":"{name}","kind":"Namespace","causes":[{{"reason":"FieldValueInvalid","message":"Invalid value: \"{name}\": {msg}","field":"metadata.name"}}]}},"code":422}}"#
            ),
            "{name}"
        );
    }
    assert_eq!(w.store.revision(), 1);
}

/// Namespace writes as the reference answers them are in `reference/goldens/namespaces.json`;
/// here what only the model has: a namespace that exists without a write (built in, or holding
/// objects) is written as it is read, and a refused write leaves the store as it was.
#[test]
fn a_namespace_that_exists_without_a_write_is_written_as_it_is_read() {
    let mut w = World::new();
    w.cm("team-x", "c", json!({}));
    let read = w.get("/api/v1/namespaces/team-x");
    assert_eq!(read.response.code, 200);
    let before = w.store.clone();
    // A stale resourceVersion (it has none), a bad patch, a 404: nothing stored, no revision.
    let stale = w.send(
        Method::Put,
        "/api/v1/namespaces/team-x",
        None,
        Some(json!({"metadata": {"name": "team-x", "resourceVersion": "1"}})),
    );
    assert_eq!(stale.response.code, 409, "{}", text(&stale));
    let bad = w.send(
        Method::Patch,
        "/api/v1/namespaces/default",
        Some("application/json-patch+json"),
        Some(json!([{"op": "test", "path": "/metadata/name", "value": "other"}])),
    );
    assert_eq!(bad.response.code, 422, "{}", text(&bad));
    assert!(
        w.store == before,
        "refused writes leave the store unchanged"
    );
    // A label: the namespace is now stored, with its uid and creation time as read.
    let o = w.send(
        Method::Patch,
        "/api/v1/namespaces/team-x",
        Some("application/merge-patch+json"),
        Some(json!({"metadata": {"labels": {"team": "x"}}})),
    );
    assert_eq!(o.response.code, 200, "{}", text(&o));
    let b = &o.response.body;
    assert_eq!(b["metadata"]["uid"], read.response.body["metadata"]["uid"]);
    assert_eq!(b["metadata"]["resourceVersion"], "2");
    assert_eq!(
        b["metadata"]["labels"],
        json!({"kubernetes.io/metadata.name": "team-x", "team": "x"})
    );
    assert_eq!(b["spec"], json!({"finalizers": ["kubernetes"]}));
    assert_eq!(text(&w.get("/api/v1/namespaces/team-x")), text(&o));
    // `default` cannot be deleted; team-x is Terminating, and takes no new content.
    assert_eq!(
        w.send(Method::Delete, "/api/v1/namespaces/default", None, None)
            .response
            .code,
        403
    );
    let d = w.send(Method::Delete, "/api/v1/namespaces/team-x", None, None);
    assert_eq!(d.response.body["status"]["phase"], "Terminating");
    let o = w.post(
        "/api/v1/namespaces/team-x/configmaps",
        json!({"metadata": {"name": "d"}}),
    );
    assert_eq!(o.response.code, 403, "{}", text(&o));
    assert_eq!(w.store.revision(), 3);
}

#[test]
fn strict_namespaces_refuse_creates_in_a_missing_namespace_with_404() {
    let mut w = World::new();
    // Off by default: the store creates anywhere (every lesson relies on it).
    assert!(!w.store.strict_namespaces());
    w.cm("anywhere", "c", json!({}));
    w.store.set_strict_namespaces(true);
    let want = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"team-c\" not found","reason":"NotFound","details":{"name":"team-c","kind":"namespaces"},"code":404}"#;
    let o = w.post(
        "/api/v1/namespaces/team-c/configmaps",
        json!({"metadata": {"name": "Bad_Name"}}),
    );
    assert_eq!(text(&o), want, "admission comes before validation");
    let o = w.apply(
        "/api/v1/namespaces/team-c/configmaps/c?fieldManager=kubectl",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
    );
    assert_eq!(text(&o), want, "an apply that creates");
    // Existing: built in, holding an object, created.
    w.cm("default", "c", json!({}));
    w.cm("anywhere", "d", json!({}));
    w.create(
        "/api/v1/namespaces",
        json!({"metadata": {"name": "team-c"}}),
    );
    w.cm("team-c", "c", json!({}));
    assert_eq!(w.store.revision(), 5);
}

// ---------------------------------------------------------------------------------------------
// DeleteOptions, dryRun, GET with a resourceVersion

#[test]
fn delete_options_are_decoded_and_validated_before_the_object_is_looked_up() {
    let mut w = World::new();
    w.cm("default", "c", json!({}));
    let path = "/api/v1/namespaces/default/configmaps/c";
    let invalid = |msg: &str, cause: &str, field: &str| {
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"DeleteOptions.meta.k8s.io \"\" is invalid: {field}: {msg}","reason":"Invalid","details":{{"group":"meta.k8s.io","kind":"DeleteOptions","causes":[{{"reason":"{cause}","message":"{msg}","field":"{field}"}}]}},"code":422}}"#
        )
    };
    let bad = |msg: &str| {
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{msg}","reason":"BadRequest","code":400}}"#
        )
    };
    for (p, body, want) in [
        (
            path,
            Some(json!({"propagationPolicy": "Sideways"})),
            invalid(
                r#"Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""#,
                "FieldValueNotSupported",
                "propagationPolicy",
            ),
        ),
        (
            path,
            Some(json!({"propagationPolicy": "Orphan", "orphanDependents": true})),
            invalid(
                r#"Invalid value: \"Orphan\": orphanDependents and deletionPropagation cannot be both set"#,
                "FieldValueInvalid",
                "propagationPolicy",
            ),
        ),
        (
            path,
            Some(json!({"dryRun": ["Some"]})),
            invalid(
                r#"Unsupported value: [\"Some\"]: supported values: \"All\""#,
                "FieldValueNotSupported",
                "dryRun",
            ),
        ),
        (
            "/api/v1/namespaces/default/configmaps/c?propagationPolicy=Later",
            None,
            invalid(
                r#"Unsupported value: \"Later\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""#,
                "FieldValueNotSupported",
                "propagationPolicy",
            ),
        ),
        (
            path,
            Some(json!({"gracePeriodSeconds": "soon"})),
            bad("json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
        ),
        (
            path,
            Some(json!({"preconditions": {"resourceVersion": 1}})),
            bad("json: cannot unmarshal number into Go struct field Preconditions.preconditions.resourceVersion of type string"),
        ),
        (
            "/api/v1/namespaces/default/configmaps/c?gracePeriodSeconds=x",
            None,
            bad(r#"strconv.ParseInt: parsing \"x\": invalid syntax"#),
        ),
        // Options come first: a missing object with bad options is still a 422.
        (
            "/api/v1/namespaces/default/configmaps/missing",
            Some(json!({"propagationPolicy": "Sideways"})),
            invalid(
                r#"Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""#,
                "FieldValueNotSupported",
                "propagationPolicy",
            ),
        ),
    ] {
        let o = w.send(Method::Delete, p, Some("application/json"), body.clone());
        assert_eq!(text(&o), want, "{p} {body:?}");
    }
    assert_eq!(w.store.revision(), 1);
    // What kubectl and the Python client send is accepted.
    let o = w.send(
        Method::Delete,
        path,
        Some("application/json"),
        Some(json!({"propagationPolicy": "Background", "gracePeriodSeconds": 0})),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    assert_eq!(o.response.body["status"], "Success");
    assert_eq!(w.store.revision(), 2);
}

#[test]
fn a_dry_run_of_every_kind_of_write_leaves_the_store_as_it_was() {
    // A dry run is the write made and undone (not a copy of the store): whatever it writes
    // (a created name, a Namespace, an object a finalizer holds), nothing stays.
    let mut w = World::new();
    let cm = "/api/v1/namespaces/default/configmaps";
    w.create(
        cm,
        json!({"metadata": {"name": "held", "finalizers": ["example.com/f"]}}),
    );
    w.create("/api/v1/namespaces", json!({"metadata": {"name": "team"}}));
    w.create(
        "/apis/example.com/v1/namespaces/default/widgets",
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}}),
    );
    let before = w.store.clone();
    let cases: Vec<(Method, String, Option<&str>, Value, u16)> = vec![
        (
            Method::Post,
            format!("{cm}?dryRun=All"),
            Some("application/json"),
            json!({"metadata": {"generateName": "gen-"}}),
            201,
        ),
        (
            Method::Patch,
            format!("{cm}/new?dryRun=All&fieldManager=a"),
            Some("application/apply-patch+yaml"),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}}),
            201,
        ),
        (
            Method::Patch,
            format!("{cm}/held?dryRun=All&fieldManager=a"),
            Some("application/apply-patch+yaml"),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held"}, "data": {"a": "b"}}),
            200,
        ),
        (
            Method::Delete,
            format!("{cm}/held?dryRun=All"),
            None,
            Value::Null,
            200,
        ),
        (
            Method::Patch,
            format!("{cm}/held?dryRun=All"),
            Some("application/merge-patch+json"),
            json!({"metadata": {"finalizers": null}}),
            200,
        ),
        (
            Method::Post,
            "/api/v1/namespaces?dryRun=All".into(),
            Some("application/json"),
            json!({"metadata": {"name": "other"}}),
            201,
        ),
        (
            Method::Delete,
            "/api/v1/namespaces/team?dryRun=All".into(),
            None,
            Value::Null,
            200,
        ),
        (
            Method::Patch,
            "/api/v1/namespaces/default?dryRun=All".into(),
            Some("application/merge-patch+json"),
            json!({"metadata": {"labels": {"x": "y"}}}),
            200,
        ),
        (
            Method::Patch,
            "/apis/example.com/v1/namespaces/default/widgets/w?dryRun=All".into(),
            Some("application/merge-patch+json"),
            json!({"spec": {"a": 2}}),
            200,
        ),
        (
            Method::Delete,
            "/apis/example.com/v1/namespaces/default/widgets/w?dryRun=All".into(),
            None,
            Value::Null,
            200,
        ),
    ];
    for (method, path, ct, body, code) in cases {
        let body = (!body.is_null()).then_some(body);
        let o = w.send(method, &path, ct, body);
        assert_eq!(o.response.code, code, "{path}: {}", o.response.body);
        assert_eq!(o.revision, None, "{path}");
        assert!(w.store == before, "{path} changed the store");
    }
}

#[test]
fn dry_run_all_answers_as_if_written_and_changes_nothing() {
    let mut w = World::new();
    w.cm("default", "c", json!({}));
    let before = w.store.clone();
    let cm = "/api/v1/namespaces/default/configmaps";
    let c = w.post(
        &format!("{cm}?dryRun=All&fieldManager=kubectl-create"),
        json!({"metadata": {"name": "d"}, "data": {"k": "v"}}),
    );
    assert_eq!(c.response.code, 201, "{}", c.response.body);
    assert_eq!(c.revision, None);
    assert!(c.response.body["metadata"].get("resourceVersion").is_none());
    assert!(c.response.body["metadata"]["uid"].is_string());
    assert_eq!(c.response.body["data"]["k"], "v");
    let u = w.send(
        Method::Put,
        &format!("{cm}/c?dryRun=All"),
        Some("application/json"),
        Some(json!({"metadata": {"name": "c"}, "data": {"k": "new"}})),
    );
    assert_eq!(u.response.code, 200);
    assert_eq!(u.response.body["data"]["k"], "new");
    assert_eq!(u.response.body["metadata"]["resourceVersion"], "1");
    let p = w.send(
        Method::Patch,
        &format!("{cm}/c?dryRun=All"),
        Some("application/merge-patch+json"),
        Some(json!({"data": {"k": "p"}})),
    );
    assert_eq!(p.response.body["data"]["k"], "p");
    let d = w.send(
        Method::Delete,
        &format!("{cm}/c"),
        Some("application/json"),
        Some(json!({"dryRun": ["All"]})),
    );
    assert_eq!(d.response.body["status"], "Success");
    // Errors are the real write's errors.
    let dup = w.post(
        &format!("{cm}?dryRun=All"),
        json!({"metadata": {"name": "c"}}),
    );
    assert_eq!(dup.response.code, 409);
    assert_eq!(w.store, before);
    // Only `All` is allowed, before the body is read.
    let o = w.post(&format!("{cm}?dryRun=Yes"), json!("not an object"));
    assert_eq!(
        text(&o),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"Yes\"]: supported values: \"All\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: [\"Yes\"]: supported values: \"All\"","field":"dryRun"}]},"code":422}"#
    );
    let o = w.send(
        Method::Patch,
        &format!("{cm}/c?dryRun=x&force=true"),
        Some("application/merge-patch+json"),
        Some(json!({})),
    );
    assert_eq!(
        o.response.body["message"],
        r#"PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, dryRun: Unsupported value: ["x"]: supported values: "All"]"#
    );
    assert_eq!(w.store, before);
}

#[test]
fn get_with_a_resource_version_is_served_not_older_than_it() {
    let mut w = World::new();
    w.cm("default", "c", json!({}));
    let path = "/api/v1/namespaces/default/configmaps/c";
    for q in [
        "",
        "?resourceVersion=",
        "?resourceVersion=0",
        "?resourceVersion=1",
    ] {
        assert_eq!(w.get(&format!("{path}{q}")).response.code, 200, "{q}");
    }
    assert_eq!(
        text(&w.get(&format!("{path}?resourceVersion=2"))),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 2, current: 1","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#
    );
    assert_eq!(
        text(&w.get("/api/v1/namespaces/default/configmaps/missing?resourceVersion=abc")),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","code":500}"#
    );
}

/// `skipNonAppliedManager.Apply` (k8s.io/apimachinery `pkg/util/managedfields/internal/
/// skipnonapplied.go`): the first apply to an untracked object (a ConfigMap created empty: no
/// entry; then labelled by a JSON patch: still none) first records the object as an update
/// from nothing by `before-first-apply`. The reference v1.37.2 answered these entries to the
/// same requests (a live `cargo xtask reference diff`, seed 3, sequence 858).
#[test]
fn the_first_apply_to_an_untracked_object_names_the_rest_before_first_apply() {
    let mut w = World::new();
    let cm = "/api/v1/namespaces/default/configmaps";
    let o = w.create(cm, json!({"metadata": {"name": "a"}, "data": {}}));
    assert!(o.response.body["metadata"]["managedFields"].is_null());
    let o = w.send(
        Method::Patch,
        &format!("{cm}/a"),
        Some("application/json-patch+json"),
        Some(json!([{"op": "add", "path": "/metadata/labels", "value": {"app": "x"}}])),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    assert!(o.response.body["metadata"]["managedFields"].is_null());
    let o = w.apply(
        &format!("{cm}/a?fieldManager=bob"),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "green"}}),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    let entries: Vec<(Value, Value, Value)> = o.response.body["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["manager"].clone(),
                e["operation"].clone(),
                e["fieldsV1"].clone(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            (json!("bob"), json!("Apply"), json!({"f:data": {"f:k": {}}})),
            (
                json!("before-first-apply"),
                json!("Update"),
                json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
            ),
        ]
    );
}

/// A Secret's applied `stringData` is owned as `f:stringData` (the field manager sees the
/// applied configuration before the conversion merges it into `data`); a create's is owned as
/// `f:data`. So an apply of `stringData.password` does not conflict with the creator's
/// `data.password`. The reference v1.37.2 answered the same (reference/goldens/random.json).
#[test]
fn an_applied_string_data_is_owned_as_string_data() {
    let mut w = World::new();
    let secrets = "/api/v1/namespaces/default/secrets";
    let o = w.create(
        secrets,
        json!({"metadata": {"name": "s"}, "stringData": {"password": "green"}}),
    );
    assert_eq!(
        o.response.body["metadata"]["managedFields"][0]["fieldsV1"]["f:data"],
        json!({".": {}, "f:password": {}})
    );
    let o = w.apply(
        &format!("{secrets}/s?fieldManager=bob"),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"password": "on"}}),
    );
    assert_eq!(o.response.code, 200, "{}", o.response.body);
    let b = &o.response.body;
    assert_eq!(b["data"], json!({"password": "b24="}));
    assert!(b.get("stringData").is_none());
    let bob = b["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "bob")
        .unwrap();
    assert_eq!(bob["fieldsV1"], json!({"f:stringData": {"f:password": {}}}));
}
