//! The server's trace in memory: every request and its response as a step in the shape of
//! `rvlab run --json`'s steps (docs/json-trace.md, "The server's trace"), recorded in the order
//! the store served them (its linearization).
//!
//! - [`Ring::snapshot`] is what `GET /rvlab/v1/trace` answers, written outside the lock a step
//!   at a time ([`Snapshot::chunks`]): `{"version": 1, "steps": [...], "dropped": N}`, the steps
//!   kept (the newest, up to a number of bytes of JSON, kept as text); `dropped` counts the
//!   oldest ones let go. [`Ring::document`] is the same as a value.
//! - [`Ring::push`] hands back each step's JSON text, the line the server appends to
//!   `--trace FILE` (its writer thread: no file I/O here).

use rvlab_core::store::{LostUpdate, Request, Response};
use rvlab_core::trace::TraceStep;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::Arc;

/// The trace format version (as the run trace's `version`).
pub const TRACE_VERSION: u32 = 1;

/// The recorded steps, bounded by the bytes of their JSON. Each step is kept as its JSON text
/// (shared, `Arc<str>`), so the bound is the memory it takes (kept as values, the same steps
/// took about ten times their text), and `GET /rvlab/v1/trace` copies pointers under the lock
/// ([`Ring::snapshot`]) and writes the document outside it.
#[derive(Debug, Clone)]
pub struct Ring {
    steps: VecDeque<Arc<str>>,
    bytes: usize,
    limit: usize,
    dropped: u64,
    next_index: u64,
}

/// A served request's step as JSON (core's `TraceStep`, the one writer of a step; `line` and
/// `narration` are null: a real client runs no scenario statement).
pub fn step_json(
    index: u64,
    client: &str,
    clock_ms: f64,
    req: &Request,
    resp: &Response,
    revision: Option<u64>,
    lost: &[LostUpdate],
) -> Value {
    TraceStep {
        index,
        client,
        line: None,
        statement: &format!("{} {}", req.method.as_str(), req.path),
        clock_ms,
        request: Some(req),
        response: Some(resp),
        mark: rvlab_core::engine::mark(resp, !lost.is_empty()),
        revision,
        narration: None,
        lost_updates: lost,
    }
    .to_json()
}

impl Ring {
    /// A trace keeping `limit` bytes of steps.
    pub fn new(limit: usize) -> Ring {
        Ring {
            steps: VecDeque::new(),
            bytes: 0,
            limit,
            dropped: 0,
            next_index: 0,
        }
    }

    /// The index the next step takes.
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Records a step; returns its JSON text (the trace file's line).
    pub fn push(&mut self, step: Value) -> String {
        self.next_index += 1;
        let text = step.to_string();
        self.bytes += text.len();
        self.steps.push_back(Arc::from(text.as_str()));
        while self.bytes > self.limit {
            match self.steps.pop_front() {
                Some(s) => {
                    self.bytes -= s.len();
                    self.dropped += 1;
                }
                None => break,
            }
        }
        text
    }

    /// The steps kept and the count dropped, cheap to take under the lock (one pointer per
    /// step): the document is written from it afterwards ([`Snapshot::chunks`]).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            steps: self.steps.iter().cloned().collect(),
            dropped: self.dropped,
        }
    }

    /// The document `GET /rvlab/v1/trace` answers, as a value (tests, `rvlab test`'s report).
    pub fn document(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| serde_json::from_str(s).unwrap_or(Value::Null))
            .collect();
        json!({
            "version": TRACE_VERSION,
            "steps": steps,
            "dropped": self.dropped,
        })
    }
}

/// The trace as [`Ring::snapshot`] took it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    steps: Vec<Arc<str>>,
    dropped: u64,
}

impl Snapshot {
    /// The document's text in pieces, in order (`{"version":1,"steps":[`, each step with the
    /// comma before it, `],"dropped":N}`): what [`Ring::document`] prints, written a step at a
    /// time.
    pub fn chunks(self) -> impl Iterator<Item = String> {
        let head = format!(r#"{{"version":{TRACE_VERSION},"steps":["#);
        let tail = format!(r#"],"dropped":{}}}"#, self.dropped);
        std::iter::once(head)
            .chain(self.steps.into_iter().enumerate().map(|(i, s)| {
                if i == 0 {
                    s.to_string()
                } else {
                    format!(",{s}")
                }
            }))
            .chain(std::iter::once(tail))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(i: u64, text: &str) -> Value {
        json!({"index": i, "client": "c", "clock_ms": 1.5, "statement": text})
    }

    #[test]
    fn the_streamed_document_is_the_document_and_the_bound_counts_text() {
        let mut ring = Ring::new(200);
        for i in 0..10 {
            let line = ring.push(step(i, "GET /api/v1/namespaces/default/configmaps/x"));
            assert_eq!(
                line,
                step(i, "GET /api/v1/namespaces/default/configmaps/x").to_string()
            );
        }
        let doc = ring.document();
        let kept = doc["steps"].as_array().unwrap();
        let bytes: usize = kept.iter().map(|s| s.to_string().len()).sum();
        assert!(bytes <= 200 && !kept.is_empty(), "{bytes} bytes kept");
        assert_eq!(doc["dropped"], 10 - kept.len() as u64);
        assert_eq!(kept.last().unwrap()["index"], 9);
        let streamed: String = ring.snapshot().chunks().collect();
        assert_eq!(streamed, doc.to_string());
        let empty: String = Ring::new(10).snapshot().chunks().collect();
        assert_eq!(empty, r#"{"version":1,"steps":[],"dropped":0}"#);
    }
}
