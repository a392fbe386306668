//! The live view's event stream (`GET /rvlab/v1/live`, server-sent events) read over a
//! plain socket.

use super::{dechunk, parse, Answer};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An open event stream.
pub struct Events {
    s: TcpStream,
    raw: Vec<u8>,
    seen: usize,
}

impl Events {
    pub fn open(h: &rvlab_server::Handle) -> (Events, Answer) {
        let mut s = TcpStream::connect(h.addr()).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET /rvlab/v1/live HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut ev = Events {
            s,
            raw: Vec::new(),
            seen: 0,
        };
        while !ev.raw.windows(4).any(|w| w == b"\r\n\r\n") {
            ev.fill();
        }
        let head = parse(&ev.raw);
        (ev, head)
    }

    pub fn fill(&mut self) {
        let mut buf = [0u8; 65536];
        let n = self.s.read(&mut buf).expect("the stream stays open");
        assert!(n > 0, "the stream ended");
        self.raw.extend_from_slice(&buf[..n]);
    }

    /// The next event: (kind, data).
    pub fn next(&mut self) -> (String, Value) {
        // Keep-alive comments keep the stream busy: a missing event is a deadline, not a
        // read timeout.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            assert!(std::time::Instant::now() < deadline, "no event within 20 s");
            let split = self.raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
            let body = String::from_utf8_lossy(&dechunk(&self.raw[split + 4..])).into_owned();
            let events: Vec<&str> = body
                .split("\n\n")
                .filter(|e| !e.is_empty() && !e.starts_with(':'))
                .collect();
            // The last piece may be incomplete unless the body ends with a blank line.
            let complete = if body.ends_with("\n\n") {
                events.len()
            } else {
                events.len().saturating_sub(1)
            };
            if complete > self.seen {
                let e = events[self.seen];
                self.seen += 1;
                let kind = e
                    .lines()
                    .find_map(|l| l.strip_prefix("event: "))
                    .expect("an event line")
                    .to_string();
                let data = e
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .expect("a data line");
                return (kind, serde_json::from_str(data).expect("JSON data"));
            }
            self.fill();
        }
    }
}
