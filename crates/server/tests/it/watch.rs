//! Watches over real loopback sockets: one compact JSON event per line, chunked, flushed per
//! event; resourceVersion semantics; 410 as an ERROR event; bookmarks; timeouts; the bound.

use crate::support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";

/// Opens a watch and returns a reader positioned at the first chunk.
fn open_watch(addr: std::net::SocketAddr, query: &str) -> (u16, BufReader<TcpStream>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {CM}?watch=true{query} HTTP/1.1\r\nHost: x\r\nUser-Agent: OpenAPI-Generator/37.0.2/python\r\nAccept: application/json\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    let code = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        if l == "\r\n" {
            break;
        }
        if l.to_ascii_lowercase().starts_with("transfer-encoding") {
            assert!(l.contains("chunked"), "{l}");
        }
    }
    (code, r)
}

/// The next event: one chunk holds exactly one line (flushed per event). `None` at the end.
fn next_event(r: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut size = String::new();
    r.read_line(&mut size).ok()?;
    let n = usize::from_str_radix(size.trim(), 16).ok()?;
    if n == 0 {
        return None;
    }
    let mut buf = vec![0; n + 2];
    r.read_exact(&mut buf).ok()?;
    let line = std::str::from_utf8(&buf[..n]).unwrap();
    assert!(line.ends_with('\n'), "{line:?}");
    assert_eq!(
        line.matches('\n').count(),
        1,
        "one event per line: {line:?}"
    );
    Some(serde_json::from_str(line.trim_end()).unwrap())
}

fn put_data(addr: std::net::SocketAddr, name: &str, value: &str) {
    let a = request(
        addr,
        "PATCH",
        &format!("{CM}/{name}?fieldManager=w"),
        &[("Content-Type", "application/merge-patch+json")],
        json!({"data": {"key": value}}).to_string().as_bytes(),
    );
    assert_eq!(a.code, 200, "{}", a.text());
}

#[test]
fn a_watch_streams_the_state_then_every_change() {
    let h = server(Some(&lesson("stale-update")));
    let (code, mut r) = open_watch(h.addr(), "");
    assert_eq!(code, 200);
    let first = next_event(&mut r).unwrap();
    assert_eq!(first["type"], "ADDED");
    assert_eq!(first["object"]["kind"], "ConfigMap");
    assert_eq!(first["object"]["apiVersion"], "v1");
    assert_eq!(first["object"]["metadata"]["resourceVersion"], "100");
    put_data(h.addr(), "my-config", "x");
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "MODIFIED");
    assert_eq!(ev["object"]["data"]["key"], "x");
    assert_eq!(ev["object"]["metadata"]["resourceVersion"], "101");
    let a = request(h.addr(), "DELETE", &format!("{CM}/my-config"), &[], b"");
    assert_eq!(a.code, 200);
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "DELETED");
    assert_eq!(ev["object"]["metadata"]["resourceVersion"], "102");
    h.stop().unwrap();
}

#[test]
fn a_watch_from_a_resource_version_sends_only_later_changes() {
    let h = server(Some(&lesson("stale-update")));
    put_data(h.addr(), "my-config", "a"); // 101
    let (_, mut r) = open_watch(h.addr(), "&resourceVersion=100");
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "MODIFIED");
    assert_eq!(ev["object"]["metadata"]["resourceVersion"], "101");
    h.stop().unwrap();
}

#[test]
fn too_old_is_an_error_event_on_a_200_stream() {
    let h = server(Some(&lesson("stale-update")));
    let (code, mut r) = open_watch(h.addr(), "&resourceVersion=5");
    assert_eq!(code, 200);
    let ev = next_event(&mut r).unwrap();
    assert_eq!(
        ev.to_string(),
        r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (100)","reason":"Expired","code":410}}"#
    );
    assert!(next_event(&mut r).is_none(), "the stream ends");
    h.stop().unwrap();
}

#[test]
fn timeout_seconds_ends_the_stream_with_a_bookmark_when_allowed() {
    let h = server(Some(&lesson("stale-update")));
    let (_, mut r) = open_watch(
        h.addr(),
        "&resourceVersion=100&timeoutSeconds=1&allowWatchBookmarks=true",
    );
    let ev = next_event(&mut r).unwrap();
    assert_eq!(
        ev.to_string(),
        r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"100"}}}"#
    );
    assert!(next_event(&mut r).is_none());
    h.stop().unwrap();
}

#[test]
fn watchers_are_bounded_with_the_apiservers_429() {
    let h = rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        limits: rvlab_server::Limits {
            max_watchers: 3,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let open: Vec<_> = (0..3).map(|_| open_watch(h.addr(), "")).collect();
    assert!(open.iter().all(|(c, _)| *c == 200));
    let a = request(h.addr(), "GET", &format!("{CM}?watch=1"), &[], b"");
    assert_eq!(a.code, 429);
    assert_eq!(a.header("retry-after"), Some("1"));
    assert_eq!(a.text(), "Too many requests, please try again later.\n");
    // Other requests are served meanwhile.
    assert_eq!(get(h.addr(), CM).code, 200);
    // A closed watch frees its slot.
    drop(open);
    assert!(eventually(Duration::from_secs(10), || {
        let (c, _) = open_watch(h.addr(), "");
        c == 200
    }));
    h.stop().unwrap();
}

#[test]
fn kubectl_get_w_gets_one_row_tables_with_the_columns_first() {
    let h = server(Some(&lesson("stale-update")));
    let mut s = TcpStream::connect(h.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {CM}?resourceVersion=100&watch=true HTTP/1.1\r\nHost: x\r\nAccept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    loop {
        let mut l = String::new();
        r.read_line(&mut l).unwrap();
        if l == "\r\n" {
            break;
        }
    }
    put_data(h.addr(), "my-config", "t");
    put_data(h.addr(), "my-config", "u");
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "MODIFIED", "{ev}");
    assert_eq!(ev["object"]["kind"], "Table");
    assert!(ev["object"]["columnDefinitions"].is_array());
    assert_eq!(ev["object"]["rows"].as_array().unwrap().len(), 1);
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "MODIFIED");
    assert_eq!(ev["object"]["kind"], "Table");
    assert!(ev["object"]["columnDefinitions"].is_null());
    h.stop().unwrap();
}

#[test]
fn selectors_filter_the_stream_and_a_bad_one_is_400() {
    let h = server(Some(&lesson("stale-update")));
    // No object has the label: the stream ends at its timeout with no event.
    let (code, mut r) = open_watch(h.addr(), "&labelSelector=app%3Dnope&timeoutSeconds=1");
    assert_eq!(code, 200);
    assert!(next_event(&mut r).is_none());
    // kubectl get -w NAME: the named object only.
    let (_, mut r) = open_watch(h.addr(), "&fieldSelector=metadata.name%3Dmy-config");
    assert_eq!(
        next_event(&mut r).unwrap()["object"]["metadata"]["name"],
        "my-config"
    );
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}?watch=true&labelSelector=a%20in"),
        &[],
        b"",
    );
    assert_eq!(a.code, 400, "{}", a.text());
    assert_eq!(a.json()["kind"], "Status");
    h.stop().unwrap();
}

#[test]
fn watch_on_an_objects_path_is_a_get_and_a_held_delete_is_modified() {
    // The apiserver's GET of an object ignores `watch` (the reference v1.37.2 answered the
    // object: reference/goldens/watch.json); a DELETE that finalizers hold is a MODIFIED, and
    // the update that removes the last finalizer the DELETED.
    let h = server(Some(&lesson("stale-update")));
    let a = request(
        h.addr(),
        "GET",
        &format!("{CM}/my-config?watch=true"),
        &[],
        b"",
    );
    assert_eq!(a.code, 200, "{}", a.text());
    assert_eq!(a.json()["metadata"]["name"], "my-config");
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/my-config"),
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"metadata":{"finalizers":["example.com/hold"]}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    let (_, mut r) = open_watch(h.addr(), "&resourceVersion=101");
    let a = request(h.addr(), "DELETE", &format!("{CM}/my-config"), &[], b"");
    assert_eq!(a.code, 200, "{}", a.text());
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "MODIFIED", "{ev}");
    assert!(ev["object"]["metadata"]["deletionTimestamp"].is_string());
    let a = request(
        h.addr(),
        "PATCH",
        &format!("{CM}/my-config"),
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(a.code, 200, "{}", a.text());
    let ev = next_event(&mut r).unwrap();
    assert_eq!(ev["type"], "DELETED", "{ev}");
    assert_eq!(
        ev["object"]["metadata"]["finalizers"],
        json!(["example.com/hold"])
    );
    h.stop().unwrap();
}
