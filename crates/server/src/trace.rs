//! The trace: every request and its response as a step in the shape of `rvlab run --json`'s
//! steps (docs/json-trace.md, "The server's trace"). Steps are recorded under the state's lock,
//! so their order is the order the store served them in (its linearization).
//!
//! - `GET /rvlab/v1/trace` answers `{"version": 1, "steps": [...], "dropped": N}`: the steps
//!   kept in memory (the newest, up to [`crate::limits::TRACE_MEMORY_BYTES`] of JSON);
//!   `dropped` counts the oldest ones let go.
//! - `--trace FILE` is JSON Lines: one step per line, written and flushed as each request is
//!   answered by a writer thread (no file I/O under the lock); every line is a whole JSON value.

use rvlab_core::store::{LostUpdate, Request, Response};
use rvlab_core::trace::TraceStep;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;

/// The trace format version (as the run trace's `version`).
pub const TRACE_VERSION: u32 = 1;

/// The recorded steps.
pub struct Trace {
    steps: VecDeque<(Value, usize)>,
    bytes: usize,
    limit: usize,
    dropped: u64,
    next_index: u64,
    file: Option<mpsc::Sender<String>>,
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

impl Trace {
    /// A trace keeping `limit` bytes of steps in memory, and writing every step to `file`.
    pub fn new(limit: usize, file: Option<&Path>) -> anyhow::Result<Trace> {
        let file = match file {
            None => None,
            Some(p) => {
                let f = std::fs::File::create(p).map_err(|e| {
                    anyhow::anyhow!("cannot write the trace file {}: {e}", p.display())
                })?;
                let (tx, rx) = mpsc::channel::<String>();
                std::thread::Builder::new()
                    .name("rvlab-trace".into())
                    .spawn(move || {
                        let mut w = std::io::BufWriter::new(f);
                        while let Ok(line) = rx.recv() {
                            let ok = w.write_all(line.as_bytes()).is_ok()
                                && w.write_all(b"\n").is_ok()
                                && w.flush().is_ok();
                            if !ok {
                                break;
                            }
                        }
                    })?;
                Some(tx)
            }
        };
        Ok(Trace {
            steps: VecDeque::new(),
            bytes: 0,
            limit,
            dropped: 0,
            next_index: 0,
            file,
        })
    }

    /// The index the next step takes.
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Records a step.
    pub fn push(&mut self, step: Value) {
        self.next_index += 1;
        let text = step.to_string();
        let size = text.len();
        if let Some(tx) = &self.file {
            let _ = tx.send(text);
        }
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
