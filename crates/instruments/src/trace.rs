//! The server's trace in memory: every request and its response as a step in the shape of
//! `rvlab run --json`'s steps (docs/json-trace.md, "The server's trace"), recorded in the order
//! the store served them (its linearization).
//!
//! - [`Ring::document`] is what `GET /rvlab/v1/trace` answers: `{"version": 1, "steps": [...],
//!   "dropped": N}`, the steps kept (the newest, up to a number of bytes of JSON); `dropped`
//!   counts the oldest ones let go.
//! - [`Ring::push`] hands back each step's JSON text, the line the server appends to
//!   `--trace FILE` (its writer thread: no file I/O here).

use rvlab_core::store::{LostUpdate, Request, Response};
use rvlab_core::trace::TraceStep;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// The trace format version (as the run trace's `version`).
pub const TRACE_VERSION: u32 = 1;

/// The recorded steps, bounded by the bytes of their JSON.
#[derive(Debug, Clone)]
pub struct Ring {
    steps: VecDeque<(Value, usize)>,
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
        let size = text.len();
        self.steps.push_back((step, size));
        self.bytes += size;
        while self.bytes > self.limit {
            match self.steps.pop_front() {
                Some((_, s)) => {
                    self.bytes -= s;
                    self.dropped += 1;
                }
                None => break,
            }
        }
        text
    }

    /// The document `GET /rvlab/v1/trace` answers.
    pub fn document(&self) -> Value {
        json!({
            "version": TRACE_VERSION,
            "steps": self.steps.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>(),
            "dropped": self.dropped,
        })
    }
}
