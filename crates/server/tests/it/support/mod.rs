//! A plain HTTP/1.1 client over a std `TcpStream` (what the bounds tests need: exact bytes,
//! partial requests, stalls), and server start-up helpers.

#![allow(dead_code)]

pub mod live;

use rvlab_server::{spawn, Handle, Options};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A server with the given setup scenario text.
pub fn server(setup: Option<&str>) -> Handle {
    spawn(Options {
        listen: "127.0.0.1:0".into(),
        setup: setup.map(str::to_string),
        ..Options::default()
    })
    .expect("the server starts")
}

pub fn lesson(id: &str) -> String {
    rvlab_core::lessons::lesson(id)
        .expect("a lesson")
        .source
        .to_string()
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub code: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Reads one response from a stream that the server closes after it (`Connection: close`).
pub fn read_answer(s: &mut TcpStream) -> Answer {
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the answer");
    parse(&raw)
}

pub fn parse(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or("");
    let code = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Answer {
        code,
        headers,
        body,
    }
}

/// Decodes a chunked body (as far as it goes).
pub fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&rest[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < eol + 2 + size {
            break;
        }
        out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[(eol + 4 + size).min(rest.len())..];
    }
    out
}

/// Sends one request and reads the answer.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // The head and the body go in two writes: without this, the body waits for the head's
    // delayed ACK (Nagle's algorithm), up to 40 ms a request.
    let _ = s.set_nodelay(true);
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before the whole body is sent.
    let _ = s.write_all(body);
    read_answer(&mut s)
}

pub fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, &[("User-Agent", "curl/8.5.0")], b"")
}

/// Polls `f` until it is true or `timeout` passes.
pub fn eventually(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    f()
}
