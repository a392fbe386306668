//! `store::table`: the apiserver's `meta.k8s.io/v1` Tables (k8s.io/apiserver `pkg/endpoints/handlers/response.go`).

use rvlab_core::rng::Rng;
use rvlab_core::store::table::{column_definitions, table, watch_table, IncludeObject};
use rvlab_core::store::{Actor, Env, Method, Request, Resource, Store};
use serde_json::{json, Value};

fn send(
    store: &mut Store,
    rng: &mut Rng,
    now_ms: u64,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Value {
    let req = Request {
        method,
        path: path.into(),
        content_type: Some("application/json".into()),
        body,
    };
    let actor = Actor {
        name: "t".into(),
        base_revision: 0,
    };
    let mut env = Env { now_ms, rng };
    store.handle(&req, &actor, &mut env).response.body
}

fn names(cols: &Value) -> Vec<(String, String, i64)> {
    cols.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["type"].as_str().unwrap().to_string(),
                c["priority"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_configmap_list_is_the_apiservers_table() {
    let mut store = Store::new();
    let mut rng = Rng::new(1);
    let cm = "/api/v1/namespaces/default/configmaps";
    send(
        &mut store,
        &mut rng,
        0,
        Method::Post,
        cm,
        Some(json!({"metadata":{"name":"my-config"},"data":{"a":"1"},"binaryData":{"b":"AA=="}})),
    );
    send(
        &mut store,
        &mut rng,
        1000,
        Method::Post,
        cm,
        Some(json!({"metadata":{"name":"empty"}})),
    );
    let list = send(&mut store, &mut rng, 0, Method::Get, cm, None);
    // 5 min 2 s after the first create.
    let t = table(
        &list,
        &Resource::ConfigMap,
        302_000,
        IncludeObject::Metadata,
    );
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(t["metadata"], json!({"resourceVersion":"2"}));
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "kind",
            "apiVersion",
            "metadata",
            "columnDefinitions",
            "rows"
        ]
    );
    assert_eq!(
        t["columnDefinitions"][0],
        json!({"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names","priority":0})
    );
    assert_eq!(
        names(&t["columnDefinitions"]),
        [
            ("Name".into(), "string".into(), 0),
            ("Data".into(), "string".into(), 0),
            ("Age".into(), "string".into(), 0)
        ]
    );
    assert!(t["columnDefinitions"][1]["description"]
        .as_str()
        .unwrap()
        .starts_with("Data contains the configuration data."));
    assert!(t["columnDefinitions"][2]["description"]
        .as_str()
        .unwrap()
        .starts_with("CreationTimestamp is a timestamp"));
    // Store order (namespace, name); Data counts data + binaryData, as an integer.
    assert_eq!(t["rows"][0]["cells"], json!(["empty", 0, "5m1s"]));
    assert_eq!(t["rows"][1]["cells"], json!(["my-config", 2, "5m2s"]));
    let obj = &t["rows"][1]["object"];
    assert_eq!(obj["kind"], "PartialObjectMetadata");
    assert_eq!(obj["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(obj["metadata"], list["items"][1]["metadata"]);
    assert_eq!(obj.as_object().unwrap().len(), 3);

    // includeObject=None: a null object; Object: the object itself, with kind and apiVersion.
    let t = table(&list, &Resource::ConfigMap, 0, IncludeObject::None);
    assert_eq!(t["rows"][0]["object"], Value::Null);
    assert_eq!(t["rows"][0]["cells"][2], "0s");
    let t = table(&list, &Resource::ConfigMap, 0, IncludeObject::Object);
    let o = &t["rows"][1]["object"];
    assert_eq!(o["kind"], "ConfigMap");
    assert_eq!(o["apiVersion"], "v1");
    assert_eq!(o["data"], json!({"a":"1"}));
    assert_eq!(IncludeObject::parse("Object"), Some(IncludeObject::Object));
    assert_eq!(IncludeObject::parse("none"), None);

    // One object: one row, the object's resourceVersion.
    let one = send(
        &mut store,
        &mut rng,
        0,
        Method::Get,
        &format!("{cm}/my-config"),
        None,
    );
    let t = table(
        &one,
        &Resource::ConfigMap,
        3 * 3_600_000 + 300_000,
        IncludeObject::Metadata,
    );
    assert_eq!(t["metadata"], json!({"resourceVersion":"1"}));
    assert_eq!(t["rows"].as_array().unwrap().len(), 1);
    assert_eq!(t["rows"][0]["cells"], json!(["my-config", 2, "3h5m"]));
    // A watch event's table: headers on the first only.
    let w = watch_table(
        &one,
        &Resource::ConfigMap,
        0,
        IncludeObject::Metadata,
        false,
    );
    assert_eq!(w["columnDefinitions"], Value::Null);
    assert_eq!(
        w["rows"],
        table(&one, &Resource::ConfigMap, 0, IncludeObject::Metadata)["rows"]
    );
    let w = watch_table(&one, &Resource::ConfigMap, 0, IncludeObject::Metadata, true);
    assert_eq!(
        w["columnDefinitions"],
        column_definitions(&Resource::ConfigMap)
    );
}

#[test]
fn a_deployment_prints_ready_up_to_date_available_age_and_the_wide_columns() {
    let mut store = Store::new();
    let mut rng = Rng::new(1);
    let d = send(
        &mut store,
        &mut rng,
        0,
        Method::Post,
        "/apis/apps/v1/namespaces/default/deployments",
        Some(json!({"metadata":{"name":"web"},"spec":{"replicas":3,
            "selector":{"matchLabels":{"app":"web"}},
            "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
                {"name":"nginx","image":"nginx:1.27"},{"name":"side","image":"busybox"}]}}}})),
    );
    let t = table(
        &d,
        &Resource::Deployment,
        2 * 86_400_000,
        IncludeObject::Metadata,
    );
    assert_eq!(
        names(&t["columnDefinitions"]),
        [
            ("Name".into(), "string".into(), 0),
            ("Ready".into(), "string".into(), 0),
            ("Up-to-date".into(), "string".into(), 0),
            ("Available".into(), "string".into(), 0),
            ("Age".into(), "string".into(), 0),
            ("Containers".into(), "string".into(), 1),
            ("Images".into(), "string".into(), 1),
            ("Selector".into(), "string".into(), 1),
        ]
    );
    assert_eq!(
        t["columnDefinitions"][1]["description"],
        "Number of the pod with ready state"
    );
    assert_eq!(
        t["rows"][0]["cells"],
        json!([
            "web",
            "0/3",
            0,
            0,
            "2d",
            "nginx,side",
            "nginx:1.27,busybox",
            "app=web"
        ])
    );
    let mut d2 = d.clone();
    d2["status"] = json!({"readyReplicas":2,"updatedReplicas":3,"availableReplicas":1});
    let t = table(&d2, &Resource::Deployment, 0, IncludeObject::Metadata);
    assert_eq!(
        t["rows"][0]["cells"],
        json!([
            "web",
            "2/3",
            3,
            1,
            "0s",
            "nginx,side",
            "nginx:1.27,busybox",
            "app=web"
        ])
    );
}

#[test]
fn secrets_namespaces_and_custom_resources_have_their_printers_columns() {
    let created = json!({"name":"s","namespace":"default","creationTimestamp":"2026-01-01T00:00:00Z","resourceVersion":"9"});
    let secret = Resource::Secret;
    let s = json!({"apiVersion":"v1","kind":"Secret","metadata":created,"type":"Opaque","data":{"a":"YQ==","b":"Yg=="}});
    let t = table(&s, &secret, 65_000, IncludeObject::Metadata);
    assert_eq!(
        names(&t["columnDefinitions"]),
        [
            ("Name".into(), "string".into(), 0),
            ("Type".into(), "string".into(), 0),
            ("Data".into(), "string".into(), 0),
            ("Age".into(), "string".into(), 0)
        ]
    );
    assert_eq!(t["rows"][0]["cells"], json!(["s", "Opaque", 2, "65s"]));

    let ns = Resource::Namespace;
    let n = json!({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","creationTimestamp":"2026-01-01T00:00:00Z"},"status":{"phase":"Active"}});
    let t = table(&n, &ns, 8 * 86_400_000, IncludeObject::Metadata);
    assert_eq!(
        names(&t["columnDefinitions"])[1],
        ("Status".into(), "string".into(), 0)
    );
    assert_eq!(
        t["columnDefinitions"][1]["description"],
        "The status of the namespace"
    );
    assert_eq!(t["rows"][0]["cells"], json!(["team-a", "Active", "8d"]));

    let widgets = Resource::Custom {
        plural: "widgets".into(),
        group: "example.com".into(),
    };
    let w = json!({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"size":3}});
    let t = table(
        &json!({"apiVersion":"example.com/v1","items":[w],"kind":"WidgetList","metadata":{"resourceVersion":"12","continue":"tok"}}),
        &widgets,
        90_000,
        IncludeObject::Metadata,
    );
    assert_eq!(
        names(&t["columnDefinitions"]),
        [
            ("Name".into(), "string".into(), 0),
            ("Age".into(), "date".into(), 0)
        ]
    );
    assert_eq!(
        t["metadata"],
        json!({"resourceVersion":"12","continue":"tok"})
    );
    assert_eq!(t["rows"][0]["cells"], json!(["w1", "90s"]));
    // No creation timestamp: <unknown>.
    let t = table(
        &json!({"metadata":{"name":"x"}}),
        &widgets,
        0,
        IncludeObject::Metadata,
    );
    assert_eq!(t["rows"][0]["cells"], json!(["x", "<unknown>"]));
    assert_eq!(t["metadata"], json!({}));
}
