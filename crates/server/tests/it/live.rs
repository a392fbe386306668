//! The live view (issue #15) over real loopback sockets: `GET /rvlab/v1/live` streams the
//! hello, the kept steps and each new step as it is served; its bounds; the page at `/`.

use crate::support;

use serde_json::Value;
use std::time::Duration;
use support::live::Events;
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps/my-config";

fn kubectl_get(h: &rvlab_server::Handle) -> Answer {
    request(
        h.addr(),
        "GET",
        CM,
        &[
            (
                "User-Agent",
                "kubectl.1.32/v1.32.5 (linux/amd64) kubernetes/9894294",
            ),
            ("Kubectl-Command", "kubectl get"),
            ("Kubectl-Session", "s-1"),
        ],
        b"",
    )
}

fn put(h: &rvlab_server::Handle, ua: &str, obj: &Value) -> Answer {
    request(
        h.addr(),
        "PUT",
        CM,
        &[("User-Agent", ua), ("Content-Type", "application/json")],
        obj.to_string().as_bytes(),
    )
}

#[test]
fn the_stream_sends_the_history_then_each_step_as_it_is_served() {
    let h = server(Some(&lesson("stale-update")));
    let read = kubectl_get(&h).json();
    let (mut ev, head) = Events::open(&h);
    assert_eq!(head.code, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    let (kind, hello) = ev.next();
    assert_eq!(kind, "hello");
    assert_eq!(hello["objects"][0]["name"], "configmap/my-config");
    assert_eq!(hello["dropped"], 0);
    // The step served before the viewer came.
    let (kind, first) = ev.next();
    assert_eq!(kind, "step");
    assert_eq!(first["index"], 0);
    assert_eq!(first["command"], "kubectl get");
    assert_eq!(first["step"]["statement"], "kubectl get");
    assert_eq!(first["lanes"][0]["name"], "kubectl");
    assert_eq!(
        first["step"]["narration"],
        format!(
            "kubectl read configmap/my-config at resourceVersion {}",
            read["metadata"]["resourceVersion"].as_str().unwrap()
        )
    );

    // python writes: the step arrives on the open stream, and kubectl's read is now stale.
    let mut mine = read.clone();
    mine["data"]["key"] = "from-python".into();
    assert_eq!(put(&h, "OpenAPI-Generator/37.0.2/python", &mine).code, 200);
    let (_, second) = ev.next();
    assert_eq!(second["index"], 1);
    assert_eq!(second["step"]["client"], "python");
    assert_eq!(second["step"]["mark"], "ok");
    assert_eq!(second["lanes"][0]["reads"][0]["stale"], true);

    // kubectl's stale write: the real 409, narrated with who moved the object.
    let mut theirs = read.clone();
    theirs["data"]["key"] = "from-kubectl".into();
    let a = put(&h, "kubectl.1.32/v1.32.5", &theirs);
    assert_eq!(a.code, 409);
    let (_, third) = ev.next();
    assert_eq!(third["step"]["mark"], "conflict");
    assert_eq!(third["step"]["status_line"], "409 Conflict");
    let narration = third["step"]["narration"].as_str().unwrap();
    assert!(
        narration.contains("but python's update moved configmap/my-config to"),
        "{narration}"
    );
    assert_eq!(
        third["step"]["response_body"]
            .as_str()
            .map(|b| serde_json::from_str::<Value>(b).unwrap()),
        Some(a.json()),
        "the row carries the server's exact Status body"
    );

    // Save as scenario: the history as a scenario text that parses and replays the 409.
    let text = get(h.addr(), "/rvlab/v1/scenario").text();
    let parsed = rvlab_core::lang::parse(&text);
    assert!(!parsed.has_errors(), "{text}");
    let sc = parsed.scenario.unwrap();
    let names: Vec<&str> = sc.clients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["kubectl", "python"], "{text}");
    let mut run = rvlab_core::run::Run::new(&sc, 0, None).unwrap();
    run.run_to_end();
    let codes: Vec<Option<u16>> = run
        .steps
        .iter()
        .filter_map(|s| s.response.as_ref().map(|r| Some(r.code)))
        .collect();
    assert_eq!(codes, [Some(200), Some(200), Some(409)], "{text}");

    // A second viewer gets the same history.
    let (mut ev2, _) = Events::open(&h);
    assert_eq!(ev2.next().0, "hello");
    for i in 0..3 {
        assert_eq!(ev2.next().1["index"], i);
    }
}

#[test]
fn viewers_are_bounded_and_one_that_leaves_frees_its_slot() {
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        limits: rvlab_server::Limits {
            max_live_viewers: 1,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let (mut first, head) = Events::open(&h);
    assert_eq!(head.code, 200);
    assert_eq!(first.next().0, "hello");
    let refused = get(h.addr(), "/rvlab/v1/live");
    assert_eq!(refused.code, 429);
    assert_eq!(
        refused.text(),
        "Too many requests, please try again later.\n"
    );
    drop(first);
    // The slot is freed once the server notices the viewer left: a step makes it write to
    // every viewer, and the write to a closed connection fails.
    assert!(eventually(Duration::from_secs(20), || {
        let _ = get(h.addr(), "/api/v1/namespaces/default/configmaps");
        let (mut again, head) = Events::open(&h);
        head.code == 200 && again.next().0 == "hello"
    }));
}

fn page_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rvlab-live-page-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("kubectl.html"),
        "<!doctype html><html><head><title>rvlab</title></head><body></body></html>",
    )
    .unwrap();
    std::fs::write(d.join("rvlab-0123456789abcdef.js"), "console.log(1)").unwrap();
    std::fs::write(d.join("rvlab-0123456789abcdef.js.gz"), b"\x1f\x8bfake").unwrap();
    d
}

#[test]
fn the_page_is_served_at_the_root_with_the_live_meta() {
    let dir = page_dir();
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        page: Some(dir.clone()),
        ..Default::default()
    })
    .unwrap();
    let root = get(h.addr(), "/");
    assert_eq!(root.code, 200);
    assert_eq!(
        root.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(root.header("cache-control"), Some("no-cache"));
    assert_eq!(
        root.text(),
        "<!doctype html><html><head><title>rvlab</title><meta name=\"rvlab-live\" content=\"/rvlab/v1/live\"></head><body></body></html>"
    );
    let js = request(
        h.addr(),
        "GET",
        "/rvlab-0123456789abcdef.js",
        &[("Accept-Encoding", "gzip, br")],
        b"",
    );
    assert_eq!(js.code, 200);
    assert_eq!(js.header("content-encoding"), Some("gzip"));
    assert_eq!(js.body, b"\x1f\x8bfake");
    assert!(js.header("cache-control").unwrap().contains("immutable"));
    let plain = get(h.addr(), "/rvlab-0123456789abcdef.js");
    assert_eq!(plain.text(), "console.log(1)");
    // The API is still the API, and a path outside both is the store's 404 Status.
    assert_eq!(get(h.addr(), "/version").json()["minor"], "32");
    assert_eq!(get(h.addr(), "/../etc/passwd").code, 404);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_page_the_root_says_how_to_build_one() {
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        no_page: true,
        ..Default::default()
    })
    .unwrap();
    let root = get(h.addr(), "/");
    assert_eq!(root.code, 200);
    assert_eq!(root.text(), rvlab_server::page::NO_PAGE);
    assert_eq!(root.text().lines().count(), 1);
}

#[test]
fn a_page_dir_without_the_page_is_an_error() {
    let d = std::env::temp_dir().join(format!("rvlab-live-empty-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let err = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        page: Some(d.clone()),
        ..Default::default()
    })
    .err()
    .expect("refused");
    assert!(
        err.to_string().contains("there is no kubectl.html in it"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
