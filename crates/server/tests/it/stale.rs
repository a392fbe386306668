//! `--stale-reads K` (issue #15) over real loopback sockets: GET and LIST answered from the
//! store's state K writes ago (its content, its resourceVersions), writes by the current store
//! (the real 409), at most `max_stale` stale answers per client and target (then fresh), the
//! trace's `stale_read`, the lost update of an unconditional write over a stale read, and a
//! watch that lags K writes behind and catches up when writes pause.

use crate::support;

use rvlab_instruments::stale::StaleReadSettings;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";
const SETUP: &str = "object configmap/x at resourceVersion 100:\n    data.x = \"initial\"\n";
const BOB: &str = "bob/1.0";
const CONFLICT: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","kind":"configmaps"},"code":409}"#;

fn stale_server(k: u32, max: u32, catch_up: Duration) -> rvlab_server::Handle {
    rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup: Some(SETUP.into()),
        stale: Some(StaleReadSettings {
            writes_behind: k,
            max_stale: max,
        }),
        limits: rvlab_server::Limits {
            stale_catch_up: catch_up,
            ..rvlab_server::Limits::default()
        },
        ..Default::default()
    })
    .expect("the server starts")
}

fn as_agent(
    h: &rvlab_server::Handle,
    agent: &str,
    method: &str,
    path: &str,
    body: &Value,
) -> Answer {
    let text = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let ct = if method == "PATCH" {
        "application/merge-patch+json"
    } else {
        "application/json"
    };
    request(
        h.addr(),
        method,
        path,
        &[("User-Agent", agent), ("Content-Type", ct)],
        text.as_bytes(),
    )
}

fn alice_sets(h: &rvlab_server::Handle, value: &str) {
    let a = as_agent(
        h,
        "alice/1.0",
        "PATCH",
        &format!("{CM}/x"),
        &json!({"data": {"x": value}}),
    );
    assert_eq!(a.code, 200, "{}", a.text());
}

fn bob_get(h: &rvlab_server::Handle, path: &str) -> Value {
    let a = as_agent(h, BOB, "GET", path, &Value::Null);
    assert_eq!(a.code, 200, "{}", a.text());
    a.json()
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
fn get_and_list_answer_the_older_state_a_put_with_it_gets_the_real_409_and_reads_converge() {
    let h = stale_server(1, 3, Duration::from_secs(3600));
    alice_sets(&h, "from-alice"); // revision 101
                                  // GET: the state one write ago, content and resourceVersion.
    let mut obj = bob_get(&h, &format!("{CM}/x"));
    assert_eq!(rv(&obj), "100");
    assert_eq!(obj["data"]["x"], "initial");
    // LIST: the old state's list resourceVersion and items.
    let list = bob_get(&h, CM);
    assert_eq!(rv(&list), "100");
    assert_eq!(list["items"][0]["metadata"]["resourceVersion"], "100");
    assert_eq!(list["items"][0]["data"]["x"], "initial");
    // The write is served by the current store: the apiserver's 409.
    obj["data"]["x"] = json!("from-bob");
    let a = as_agent(&h, BOB, "PUT", &format!("{CM}/x"), &obj);
    assert_eq!(a.code, 409, "{}", a.text());
    assert_eq!(a.text(), CONFLICT);
    let steps = trace(&h);
    assert_eq!(steps.len(), 4);
    assert_eq!(
        steps[1]["stale_read"],
        json!({"served_revision": 100, "current_revision": 101, "writes_behind": 1,
            "why": "bob read /api/v1/namespaces/default/configmaps/x and was answered revision 100, the state 1 write before the current revision 101: stale answer 1 of at most 3 for bob on it (then fresh)"})
    );
    assert_eq!(steps[2]["stale_read"]["served_revision"], 100);
    assert!(steps[3].get("stale_read").is_none(), "{}", steps[3]);
    assert!(steps[0].get("stale_read").is_none());
    // A correct client re-reads and retries: two more stale answers (2 and 3 of 3), then the
    // current state, and its update goes through.
    let mut codes = Vec::new();
    for _ in 0..5 {
        let mut obj = bob_get(&h, &format!("{CM}/x"));
        obj["data"]["x"] = json!("from-bob");
        let a = as_agent(&h, BOB, "PUT", &format!("{CM}/x"), &obj);
        codes.push(a.code);
        if a.code == 200 {
            let done = a.json();
            assert_eq!(rv(&done), "102");
            break;
        }
        assert_eq!(a.text(), CONFLICT);
    }
    assert_eq!(codes, [409, 409, 200]);
    let steps = trace(&h);
    let stale: Vec<&Value> = steps
        .iter()
        .filter(|s| s.get("stale_read").is_some())
        .collect();
    assert_eq!(stale.len(), 4, "three of the object, one of the list");
    // (alice's blind patch over the setup is one; bob's writes lose nothing.)
    assert!(steps
        .iter()
        .filter(|s| s["client"] == "bob")
        .all(|s| s["lost_updates"] == json!([])));
    // Another client has its own count: alice's read is one write behind too.
    let a = as_agent(&h, "alice/1.0", "GET", &format!("{CM}/x"), &Value::Null);
    assert_eq!(rv(&a.json()), "101");
    assert_eq!(a.json()["data"]["x"], "from-alice");
    h.stop().unwrap();
}

#[test]
fn an_unconditional_update_over_a_stale_read_is_a_lost_update() {
    let h = stale_server(1, 3, Duration::from_secs(3600));
    alice_sets(&h, "from-alice"); // 101
    let mut obj = bob_get(&h, &format!("{CM}/x"));
    assert_eq!(obj["data"]["x"], "initial");
    obj["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("resourceVersion");
    obj["data"]["y"] = json!("from-bob");
    let a = as_agent(&h, BOB, "PUT", &format!("{CM}/x"), &obj);
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["data"]["x"], "initial");
    let steps = trace(&h);
    assert_eq!(steps[2]["mark"], "lost-update");
    assert_eq!(
        steps[2]["lost_updates"],
        json!([{"object": "configmap/x", "path": "data.x", "writer": "bob",
            "overwritten_writer": "alice", "overwritten_revision": 101,
            "base_revision": 100, "revision": 102}])
    );
    h.stop().unwrap();
}

#[test]
fn fresh_when_nothing_changed_and_never_older_than_a_resource_version_asked_for() {
    let h = stale_server(2, 3, Duration::from_secs(3600));
    // No write yet: the only state is the current one.
    assert_eq!(rv(&bob_get(&h, &format!("{CM}/x"))), "100");
    alice_sets(&h, "one"); // 101
    alice_sets(&h, "two"); // 102
                           // Two writes behind.
    assert_eq!(rv(&bob_get(&h, &format!("{CM}/x"))), "100");
    // "Not older than 101": the oldest state within two writes that has it.
    let o = bob_get(&h, &format!("{CM}/x?resourceVersion=101"));
    assert_eq!((rv(&o), o["data"]["x"].as_str()), ("101", Some("one")));
    // A create is a write like any other.
    let a = as_agent(
        &h,
        BOB,
        "POST",
        CM,
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y"}}),
    );
    assert_eq!(a.code, 201, "{}", a.text());
    // y did not exist two writes ago: a stale GET of it is the old state's 404.
    let a = as_agent(&h, BOB, "GET", &format!("{CM}/y"), &Value::Null);
    assert_eq!(a.code, 404, "{}", a.text());
    assert_eq!(a.json()["message"], "configmaps \"y\" not found");
    let steps = trace(&h);
    let marked: Vec<u64> = steps
        .iter()
        .filter(|s| s.get("stale_read").is_some())
        .map(|s| s["index"].as_u64().unwrap())
        .collect();
    assert_eq!(marked, [3, 4, 6]);
    assert_eq!(steps[4]["stale_read"]["served_revision"], 101);
    assert_eq!(steps[6]["stale_read"]["writes_behind"], 2);
    h.stop().unwrap();
}

/// Opens a watch and returns a reader positioned at the first chunk.
fn open_watch(addr: std::net::SocketAddr) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {CM}?watch=true HTTP/1.1\r\nHost: x\r\nUser-Agent: {BOB}\r\nAccept: application/json\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        if l == "\r\n" || l.is_empty() {
            break;
        }
    }
    r
}

/// The next event's type and resourceVersion (one chunk, one line).
fn next_event(r: &mut BufReader<TcpStream>) -> (String, String) {
    let mut size = String::new();
    r.read_line(&mut size).unwrap();
    let n = usize::from_str_radix(size.trim(), 16).unwrap();
    let mut buf = vec![0; n + 2];
    r.read_exact(&mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf[..n]).unwrap();
    (
        v["type"].as_str().unwrap().to_string(),
        rv(&v["object"]).to_string(),
    )
}

#[test]
fn a_watch_lags_k_writes_behind() {
    let h = stale_server(1, 3, Duration::from_secs(3600));
    alice_sets(&h, "one"); // 101
    let mut w = open_watch(h.addr());
    // The initial state is the old state's.
    assert_eq!(next_event(&mut w), ("ADDED".into(), "100".into()));
    // Each write brings the change one write before it.
    alice_sets(&h, "two"); // 102
    assert_eq!(next_event(&mut w), ("MODIFIED".into(), "101".into()));
    alice_sets(&h, "three"); // 103
    assert_eq!(next_event(&mut w), ("MODIFIED".into(), "102".into()));
    h.stop().unwrap();
}

#[test]
fn a_lagging_watch_catches_up_when_writes_pause() {
    let h = stale_server(1, 3, Duration::from_millis(50));
    alice_sets(&h, "one"); // 101
    let mut w = open_watch(h.addr());
    assert_eq!(next_event(&mut w), ("ADDED".into(), "100".into()));
    // No more writes: the held-back change comes anyway.
    assert_eq!(next_event(&mut w), ("MODIFIED".into(), "101".into()));
    h.stop().unwrap();
}
