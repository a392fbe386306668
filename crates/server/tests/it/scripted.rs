//! `--interfere scenario FILE` (issue #15) over real loopback sockets: a scenario's scripted
//! clients are the other writers, one scripted request (with the local steps before it) before
//! each real store request, sent through the server's store and watch cache.

use crate::support;

use rvlab_instruments::interfere::{InterferenceSettings, ScenarioFile};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";
const BOB: &str = "bob/1.0";

/// alice reads configmap/x, edits her copy and updates it: three steps, two requests.
const ALICE: &str = r#"object configmap/x at resourceVersion 100:
    data.x = "initial"

client alice:
    obj = get configmap/x
    obj.data.a = "from-alice"
    update obj
"#;

fn scripted(text: &str, setup: Option<&str>) -> anyhow::Result<rvlab_server::Handle> {
    rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup: setup.map(str::to_string),
        interfere: Some(InterferenceSettings::scenario(ScenarioFile {
            name: "alice.rvl".into(),
            text: text.into(),
        })),
        ..Default::default()
    })
}

fn bob(h: &rvlab_server::Handle, method: &str, path: &str, body: Option<&Value>) -> Answer {
    let text = body.map(Value::to_string).unwrap_or_default();
    let mut headers = vec![("User-Agent", BOB)];
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    request(h.addr(), method, path, &headers, text.as_bytes())
}

fn trace(h: &rvlab_server::Handle) -> Vec<Value> {
    get(h.addr(), "/rvlab/v1/trace").json()["steps"]
        .as_array()
        .cloned()
        .unwrap()
}

/// Opens a watch and returns a reader positioned at the first chunk.
fn open_watch(addr: std::net::SocketAddr, query: &str) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {CM}?watch=true{query} HTTP/1.1\r\nHost: x\r\nUser-Agent: watcher/1\r\nAccept: application/json\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    assert!(status.contains(" 200 "), "{status}");
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        if l == "\r\n" {
            break;
        }
    }
    r
}

/// The next event (one chunk, one line).
fn next_event(r: &mut BufReader<TcpStream>) -> Value {
    let mut size = String::new();
    r.read_line(&mut size).unwrap();
    let n = usize::from_str_radix(size.trim(), 16).unwrap();
    let mut buf = vec![0; n + 2];
    r.read_exact(&mut buf).unwrap();
    serde_json::from_str(std::str::from_utf8(&buf[..n]).unwrap().trim_end()).unwrap()
}

#[test]
fn a_scripted_update_between_a_real_get_and_put_makes_the_put_a_real_409() {
    let h = scripted(ALICE, None).expect("the server starts");
    // A watcher from 100 on (a watch is not a store request: nothing is injected for it).
    let mut w = open_watch(h.addr(), "&resourceVersion=100");
    // bob's GET: first alice's get (step 1), then bob reads revision 100.
    let a = bob(&h, "GET", &format!("{CM}/x"), None);
    assert_eq!(a.code, 200, "{}", a.text());
    let mut obj = a.json();
    assert_eq!(obj["metadata"]["resourceVersion"], "100");
    obj["data"]["x"] = json!("from-bob");
    // bob's PUT with the resourceVersion he read: first alice's edit (local) and her update
    // (101), so bob's write is stale and the store answers the apiserver's 409.
    let a = bob(&h, "PUT", &format!("{CM}/x"), Some(&obj));
    assert_eq!(a.code, 409, "{}", a.text());
    assert_eq!(
        a.text(),
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","kind":"configmaps"},"code":409}"#
    );
    // The watcher saw alice's update.
    let ev = next_event(&mut w);
    assert_eq!(ev["type"], "MODIFIED");
    assert_eq!(ev["object"]["metadata"]["resourceVersion"], "101");
    assert_eq!(ev["object"]["data"]["a"], "from-alice");

    let steps = trace(&h);
    let shape: Vec<(&str, &str, u64)> = steps
        .iter()
        .map(|s| {
            (
                s["client"].as_str().unwrap(),
                s["request"]["method"].as_str().unwrap(),
                s["response"]["code"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("alice", "GET", 200),
            ("bob", "GET", 200),
            ("alice", "PUT", 200),
            ("bob", "PUT", 409)
        ]
    );
    let put = &steps[2];
    assert_eq!(
        put["request"]["path"],
        "/api/v1/namespaces/default/configmaps/x?fieldManager=alice"
    );
    assert_eq!(put["revision"], 101);
    assert_eq!(put["line"], 7);
    assert_eq!(put["statement"], "update obj");
    assert!(put["narration"].as_str().unwrap().contains("alice"));
    let i = &put["interference"];
    assert_eq!(i["policy"], "scenario");
    assert_eq!(i["scenario"], "alice.rvl");
    assert_eq!(i["client"], "bob");
    assert_eq!(i["scripted_client"], "alice");
    assert_eq!(
        (i["step"].as_u64(), i["number"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(i["object"], "configmap/x");
    assert_eq!(i["local"][0]["statement"], "obj.data.a = \"from-alice\"");
    assert_eq!(
        i["why"],
        "scripted client alice's step 3 (line 7, `update obj`) before bob's request (PUT /api/v1/namespaces/default/configmaps/x); on the way, sending nothing: alice's step 2 (line 6, `obj.data.a = \"from-alice\"`)"
    );
    assert_eq!(
        steps[0]["interference"]["statement"],
        "obj = get configmap/x"
    );
    assert!(steps[1].get("interference").is_none());

    // alice has finished: bob's re-read and retry face nothing, and his retry keeps her field.
    let a = bob(&h, "GET", &format!("{CM}/x"), None);
    let mut obj = a.json();
    assert_eq!(obj["metadata"]["resourceVersion"], "101");
    let managers: Vec<&str> = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&"alice"), "{managers:?}");
    obj["data"]["x"] = json!("from-bob");
    let a = bob(&h, "PUT", &format!("{CM}/x"), Some(&obj));
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["data"]["a"], "from-alice");
    let steps = trace(&h);
    assert_eq!(steps.len(), 6);
    assert!(steps.iter().all(|s| s["lost_updates"] == json!([])));
    h.stop().unwrap();
}

#[test]
fn dry_runs_take_no_scripted_step_and_max_injections_bounds_them_in_all() {
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        interfere: Some(InterferenceSettings {
            max_injections: 1,
            ..InterferenceSettings::scenario(ScenarioFile {
                name: "alice.rvl".into(),
                text: ALICE.into(),
            })
        }),
        ..Default::default()
    })
    .unwrap();
    let obj = bob(&h, "GET", &format!("{CM}/x"), None).json();
    let a = bob(&h, "PUT", &format!("{CM}/x?dryRun=All"), Some(&obj));
    assert_eq!(a.code, 200, "{}", a.text());
    let a = bob(&h, "PUT", &format!("{CM}/x"), Some(&obj));
    // One scripted request (alice's get) in all: bob's write is not stale.
    assert_eq!(a.code, 200, "{}", a.text());
    let clients: Vec<String> = trace(&h)
        .iter()
        .map(|s| s["client"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(clients, ["alice", "bob", "bob", "bob"]);
    h.stop().unwrap();
}

#[test]
fn two_setups_that_both_create_objects_are_an_error_and_an_empty_or_same_one_is_fine() {
    let other = "object configmap/y:\n    data.y = \"1\"\n";
    let e = scripted(ALICE, Some(other)).err().expect("an error");
    assert_eq!(
        e.to_string(),
        "two setups: the setup scenario and the interference scenario alice.rvl both create objects; give them once (without a setup FILE the interference scenario's objects are loaded; or give the same file for both)"
    );
    // The same text, or a setup without objects: the interference scenario's objects.
    for setup in [ALICE, "client c:\n    sleep 1s\n"] {
        let h = scripted(ALICE, Some(setup)).expect("the server starts");
        let a = get(h.addr(), &format!("{CM}/x"));
        assert_eq!(a.code, 200, "{}", a.text());
        assert_eq!(a.json()["metadata"]["resourceVersion"], "100");
        h.stop().unwrap();
    }
    let e = scripted("client a:\n    nonsense here\n", None)
        .err()
        .expect("an error");
    assert!(
        e.to_string()
            .starts_with("alice.rvl: the scenario has errors:"),
        "{e}"
    );
}

#[test]
fn a_real_write_over_a_scripted_change_it_never_read_is_a_lost_update_naming_the_scripted_client() {
    let text = r#"object configmap/x at resourceVersion 100:
    data.x = "initial"

client alice:
    obj = get configmap/x
    patch configmap/x merge {"data": {"x": "from-alice"}}
"#;
    let h = scripted(text, None).expect("the server starts");
    let mut obj = bob(&h, "GET", &format!("{CM}/x"), None).json();
    // An unconditional update (no resourceVersion) of the stale copy: alice's patch lands first.
    obj["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("resourceVersion");
    obj["data"]["x"] = json!("from-bob");
    let a = bob(&h, "PUT", &format!("{CM}/x"), Some(&obj));
    assert_eq!(a.code, 200, "{}", a.text());
    let steps = trace(&h);
    assert_eq!(steps[2]["client"], "alice");
    assert_eq!(steps[2]["request"]["method"], "PATCH");
    assert_eq!(steps[2]["revision"], 101);
    assert_eq!(steps[3]["mark"], "lost-update");
    assert_eq!(
        steps[3]["lost_updates"],
        json!([{"object": "configmap/x", "path": "data.x", "writer": "bob",
            "overwritten_writer": "alice", "overwritten_revision": 101,
            "base_revision": 100, "revision": 102}])
    );
    h.stop().unwrap();
}
