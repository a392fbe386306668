//! Every bound over real loopback sockets: huge and endless headers, too many headers, a
//! client that connects and sends nothing, a stalled body, the connection limit; none of them
//! delays another client or stops the server.

use crate::support;

use rvlab_server::{spawn, Handle, Limits, Options};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::*;

const CM: &str = "/api/v1/namespaces/default/configmaps";

fn with_limits(limits: Limits) -> Handle {
    spawn(Options {
        listen: "127.0.0.1:0".into(),
        setup: Some(lesson("stale-update")),
        limits,
        ..Options::default()
    })
    .unwrap()
}

/// One GET served whole. A connection the server still turns away (it counts a closed
/// connection's slot free asynchronously) is a `false`, not a panic, so `eventually` polls on.
fn serving(h: &Handle) -> bool {
    let Ok(mut s) = TcpStream::connect(h.addr()) else {
        return false;
    };
    let _ = write!(
        s,
        "GET {CM}/my-config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    );
    let raw = until_closed(&mut s);
    raw.starts_with(b"HTTP/1.1 200 ")
}

/// Reads until the server closes the connection (or 20 s pass); the bytes read.
fn until_closed(s: &mut TcpStream) -> Vec<u8> {
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn a_header_over_1_mib_is_431_and_the_connection_closed() {
    let h = server(Some(&lesson("stale-update")));
    let mut s = TcpStream::connect(h.addr()).unwrap();
    let _ = write!(s, "GET {CM} HTTP/1.1\r\nHost: x\r\nX-Big: ");
    let chunk = vec![b'a'; 64 * 1024];
    // An endless header: the server stops reading at its bound, answers and closes.
    for _ in 0..64 {
        if s.write_all(&chunk).is_err() {
            break;
        }
    }
    let raw = until_closed(&mut s);
    assert!(
        raw.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&raw[..raw.len().min(200)])
    );
    assert!(serving(&h));
    h.stop().unwrap();
}

#[test]
fn too_many_header_lines_is_431() {
    let h = server(Some(&lesson("stale-update")));
    let mut head = format!("GET {CM} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for i in 0..200 {
        head.push_str(&format!("X-H{i}: v\r\n"));
    }
    head.push_str("\r\n");
    let mut s = TcpStream::connect(h.addr()).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let raw = until_closed(&mut s);
    assert!(
        raw.starts_with(b"HTTP/1.1 431"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    // 100 header lines are fine.
    let mut head = format!("GET {CM} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for i in 0..100 {
        head.push_str(&format!("X-H{i}: v\r\n"));
    }
    head.push_str("\r\n");
    let mut s = TcpStream::connect(h.addr()).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    assert_eq!(read_answer(&mut s).code, 200);
    h.stop().unwrap();
}

#[test]
fn a_silent_client_is_disconnected_and_delays_no_one() {
    let h = with_limits(Limits {
        header_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    // Connects and sends nothing; another sends half a request line.
    let mut silent = TcpStream::connect(h.addr()).unwrap();
    let mut half = TcpStream::connect(h.addr()).unwrap();
    half.write_all(b"GET /api/v1/namesp").unwrap();
    // Meanwhile everyone else is served.
    for _ in 0..20 {
        assert!(serving(&h));
    }
    // Both are closed by the server (read returns, with no answer or a 408).
    let raw = until_closed(&mut silent);
    assert!(
        raw.is_empty() || raw.starts_with(b"HTTP/1.1 408"),
        "{raw:?}"
    );
    let raw = until_closed(&mut half);
    assert!(
        raw.is_empty() || raw.starts_with(b"HTTP/1.1 408"),
        "{raw:?}"
    );
    assert!(serving(&h));
    h.stop().unwrap();
}

#[test]
fn a_stalled_body_is_dropped_and_delays_no_one() {
    let h = with_limits(Limits {
        body_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    let mut s = TcpStream::connect(h.addr()).unwrap();
    write!(
        s,
        "POST {CM} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\""
    )
    .unwrap();
    for _ in 0..20 {
        assert!(serving(&h));
    }
    let raw = until_closed(&mut s);
    assert!(
        !raw.starts_with(b"HTTP/1.1 2"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    // Nothing was created.
    let list = get(h.addr(), CM).json();
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    h.stop().unwrap();
}

#[test]
fn connections_beyond_the_limit_are_closed_at_once() {
    let h = with_limits(Limits {
        max_connections: 4,
        ..Limits::default()
    });
    // Four idle keep-alive connections hold every slot.
    let held: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(h.addr()).unwrap())
        .collect();
    // Wait until the server counts them (it accepts asynchronously): a fifth is closed unread.
    assert!(eventually(Duration::from_secs(10), || {
        let mut s = TcpStream::connect(h.addr()).unwrap();
        let _ = write!(
            s,
            "GET {CM} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        until_closed(&mut s).is_empty()
    }));
    drop(held);
    // Slots free again: served.
    assert!(eventually(Duration::from_secs(10), || serving(&h)));
    h.stop().unwrap();
}

#[test]
fn bad_input_in_a_burst_never_stops_the_server() {
    let h = server(Some(&lesson("stale-update")));
    let bodies: &[&[u8]] = &[
        b"{",
        b"[]",
        b"null",
        b"\"x\"",
        b"{\"metadata\": 5}",
        b"\xff\xfe",
        b"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"BAD NAME\"}}",
    ];
    for body in bodies {
        for (method, path, ct) in [
            ("POST", CM.to_string(), "application/json"),
            ("PUT", format!("{CM}/my-config"), "application/json"),
            (
                "PATCH",
                format!("{CM}/my-config"),
                "application/merge-patch+json",
            ),
            (
                "PATCH",
                format!("{CM}/my-config"),
                "application/json-patch+json",
            ),
            (
                "PATCH",
                format!("{CM}/my-config"),
                "application/apply-patch+yaml",
            ),
            ("POST", CM.to_string(), "application/yaml"),
        ] {
            let a = request(h.addr(), method, &path, &[("Content-Type", ct)], body);
            // Every one is a client error with a Status, but an empty JSON patch (`[]`),
            // which is a valid no-op.
            if !(*body == b"[]" && ct == "application/json-patch+json") {
                assert!(
                    (400..500).contains(&a.code),
                    "{method} {ct} {body:?}: {}",
                    a.code
                );
                assert_eq!(a.json()["kind"], "Status");
            }
        }
    }
    // The name is invalid: the store's exact 422.
    let a = request(
        h.addr(),
        "POST",
        CM,
        &[("Content-Type", "application/json")],
        bodies[6],
    );
    assert_eq!(a.code, 422);
    assert!(serving(&h));
    h.stop().unwrap();
}
