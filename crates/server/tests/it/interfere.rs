//! `--interfere POLICY` (issue #15) over real loopback sockets: the interferer's writes are
//! real store writes (resourceVersion, content, managedFields, the trace), made at the moments
//! the policies name, bounded per object.

use crate::support;

use rvlab_instruments::interfere::{InterferenceSettings, Policy, INTERFERER};
use serde_json::{json, Value};
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";
const SETUP: &str = "object configmap/x at resourceVersion 100:\n    data.x = \"initial\"\n";
const BOB: &str = "bob/1.0";
const ANNOTATION: &str = "rvlab.dev/interference";

fn interfering(policy: Policy, max: u32) -> rvlab_server::Handle {
    rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup: Some(SETUP.into()),
        interfere: Some(InterferenceSettings {
            max_injections: max,
            ..InterferenceSettings::new(policy)
        }),
        ..Default::default()
    })
    .expect("the server starts")
}

fn bob_get(h: &rvlab_server::Handle) -> Value {
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}/x"),
        &[("User-Agent", BOB)],
        b"",
    );
    assert_eq!(a.code, 200, "{}", a.text());
    a.json()
}

fn bob_put(h: &rvlab_server::Handle, obj: &Value) -> support::Answer {
    request(
        h.addr(),
        "PUT",
        &format!("{CM}/x"),
        &[("User-Agent", BOB), ("Content-Type", "application/json")],
        obj.to_string().as_bytes(),
    )
}

fn trace(h: &rvlab_server::Handle) -> Vec<Value> {
    get(h.addr(), "/rvlab/v1/trace").json()["steps"]
        .as_array()
        .cloned()
        .unwrap()
}

fn rv(obj: &Value) -> &str {
    obj["metadata"]["resourceVersion"].as_str().unwrap()
}

#[test]
fn read_write_makes_a_read_stale_and_a_reread_keeps_the_interferers_change() {
    let h = interfering(Policy::ReadWrite, 3);
    let mut obj = bob_get(&h);
    assert_eq!(rv(&obj), "100");
    obj["data"]["x"] = json!("from-bob");
    // Between bob's read and his write the interferer writes: his write is stale.
    let a = bob_put(&h, &obj);
    assert_eq!(a.code, 409, "{}", a.text());
    assert_eq!(
        a.text(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","kind":"configmaps"},"code":409}"#
    );
    // A retry that reuses the stale body fails again (no new injection: it is already stale).
    let a = bob_put(&h, &obj);
    assert_eq!(a.code, 409, "{}", a.text());
    let now = get(h.addr(), &format!("{CM}/x")).json();
    assert_eq!(rv(&now), "101");
    assert_eq!(now["metadata"]["annotations"][ANNOTATION], "1");
    assert_eq!(now["data"]["x"], "initial");
    let managers: Vec<&str> = now["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&INTERFERER), "{managers:?}");
    let steps = trace(&h);
    let inj = &steps[1];
    assert_eq!(inj["client"], INTERFERER);
    assert_eq!(inj["request"]["method"], "PATCH");
    assert_eq!(
        inj["request"]["path"],
        "/api/v1/namespaces/default/configmaps/x?fieldManager=rvlab-interferer"
    );
    assert_eq!(inj["response"]["code"], 200);
    assert_eq!(inj["revision"], 101);
    assert_eq!(inj["interference"]["policy"], "read-write");
    assert_eq!(inj["interference"]["client"], "bob");
    assert_eq!(inj["interference"]["object"], "configmap/x");
    assert!(inj["interference"]["why"]
        .as_str()
        .unwrap()
        .starts_with("bob read configmap/x at 100 and is about to write it (PUT)"));
    assert_eq!(steps[2]["client"], "bob");
    assert_eq!(steps[2]["response"]["code"], 409);
    assert!(steps[2].get("interference").is_none());
    // A correct client re-reads and retries: the interferer strikes again (2 and 3 of 3),
    // then lets it through, and the retry keeps the interferer's change.
    let mut codes = Vec::new();
    for _ in 0..5 {
        let mut obj = bob_get(&h);
        obj["data"]["x"] = json!("from-bob");
        let a = bob_put(&h, &obj);
        codes.push(a.code);
        if a.code == 200 {
            let done = a.json();
            assert_eq!(done["data"]["x"], "from-bob");
            assert_eq!(done["metadata"]["annotations"][ANNOTATION], "3");
            break;
        }
    }
    assert_eq!(codes, [409, 409, 200]);
    let steps = trace(&h);
    let injections: Vec<&Value> = steps.iter().filter(|s| s["client"] == INTERFERER).collect();
    assert_eq!(injections.len(), 3);
    assert_eq!(injections[2]["interference"]["on_object"], 3);
    assert!(steps.iter().all(|s| s["lost_updates"] == json!([])));
    // After the bound no more: a read-modify-write just works.
    let mut obj = bob_get(&h);
    obj["data"]["x"] = json!("again");
    assert_eq!(bob_put(&h, &obj).code, 200);
    assert_eq!(
        trace(&h)
            .iter()
            .filter(|s| s["client"] == INTERFERER)
            .count(),
        3
    );
    h.stop().unwrap();
}

#[test]
fn read_write_leaves_reads_creates_and_dry_runs_alone() {
    let h = interfering(Policy::ReadWrite, 3);
    bob_get(&h);
    bob_get(&h);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y"}});
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("User-Agent", BOB)],
        cm.to_string().as_bytes(),
    );
    assert_eq!(a.code, 201);
    let obj = bob_get(&h);
    let a = request(
        h.addr(),
        "PUT",
        &format!("{CM}/x?dryRun=All"),
        &[("User-Agent", BOB), ("Content-Type", "application/json")],
        obj.to_string().as_bytes(),
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert!(trace(&h).iter().all(|s| s["client"] != INTERFERER));
    h.stop().unwrap();
}

#[test]
fn same_field_makes_a_merge_patch_without_resource_version_a_lost_update() {
    let h = interfering(Policy::SameField, 3);
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/x"),
        &[
            ("User-Agent", BOB),
            ("Content-Type", "application/merge-patch+json"),
        ],
        br#"{"data":{"x":"from-bob"}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["data"]["x"], "from-bob");
    let steps = trace(&h);
    assert_eq!(steps.len(), 2);
    let inj = &steps[0];
    assert_eq!(inj["client"], INTERFERER);
    assert_eq!(
        inj["request"]["body"],
        json!({"data": {"x": "rvlab-interferer-1"}, "metadata": {"resourceVersion": "100"}})
    );
    assert_eq!(inj["revision"], 101);
    assert_eq!(inj["interference"]["fields"], json!(["data.x"]));
    let bob = &steps[1];
    assert_eq!(bob["client"], "bob");
    assert_eq!(bob["mark"], "lost-update");
    assert_eq!(
        bob["lost_updates"],
        json!([{"object": "configmap/x", "path": "data.x", "writer": "bob",
            "overwritten_writer": INTERFERER, "overwritten_revision": 101,
            "base_revision": 0, "revision": 102}])
    );
    // A patch that carries the resourceVersion is a precondition: no injection, and it
    // conflicts only if something did change.
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/x"),
        &[
            ("User-Agent", BOB),
            ("Content-Type", "application/merge-patch+json"),
        ],
        br#"{"metadata":{"resourceVersion":"102"},"data":{"x":"again"}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(trace(&h).len(), 3);
    h.stop().unwrap();
}

/// A finalizer-like list set by a JSON merge patch without resourceVersion (the patch replaces
/// the list whole): the interferer first adds its own entry, the patch drops it, and the trace
/// names the lost update.
#[test]
fn same_field_makes_a_merge_patch_of_a_finalizer_list_lose_the_interferers_entry() {
    let h = interfering(Policy::SameField, 3);
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/x"),
        &[
            ("User-Agent", BOB),
            ("Content-Type", "application/merge-patch+json"),
        ],
        br#"{"metadata":{"finalizers":["example.com/bob"]}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(
        a.json()["metadata"]["finalizers"],
        json!(["example.com/bob"])
    );
    let steps = trace(&h);
    assert_eq!(steps.len(), 2, "{steps:#?}");
    assert_eq!(
        steps[0]["request"]["body"],
        json!({"metadata": {"finalizers": ["rvlab-interferer/1"], "resourceVersion": "100"}})
    );
    assert_eq!(
        steps[0]["interference"]["fields"],
        json!(["metadata.finalizers"])
    );
    let lost = steps[1]["lost_updates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(lost.len(), 1, "{steps:#?}");
    assert_eq!(lost[0]["path"], "metadata.finalizers");
    assert_eq!(lost[0]["writer"], "bob");
    assert_eq!(lost[0]["overwritten_writer"], INTERFERER);
    // A strategic merge patch merges finalizers (patchStrategy merge): nothing to lose, no
    // injection for the list.
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/x"),
        &[
            ("User-Agent", BOB),
            ("Content-Type", "application/strategic-merge-patch+json"),
        ],
        br#"{"metadata":{"finalizers":["example.com/carol"]}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(trace(&h).len(), 3);
    h.stop().unwrap();
}
