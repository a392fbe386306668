//! The JSON trace of a run (docs/json-trace.md): what `rvlab run --json` prints and what the
//! page exports. Field names and meanings are stable.

use crate::engine::{ClientOutcome, KubectlStep, Mark};
use crate::run::Run;
use crate::store::{LostUpdate, Request, Response};
use serde_json::{json, Value};

/// The version of the trace format (`"version"` field).
pub const TRACE_VERSION: u32 = 1;

/// One step of a trace, as `rvlab run --json` and `rvlab serve`'s trace write it: the one writer
/// of a step's JSON (docs/json-trace.md, "Steps" and "The server's trace"). A real client's
/// request runs no scenario statement: its `line` and `narration` are null.
pub struct TraceStep<'a> {
    pub index: u64,
    pub client: &'a str,
    pub line: Option<u32>,
    pub statement: &'a str,
    pub clock_ms: f64,
    pub request: Option<&'a Request>,
    pub response: Option<&'a Response>,
    pub mark: Mark,
    pub revision: Option<u64>,
    pub narration: Option<&'a str>,
    pub lost_updates: &'a [LostUpdate],
}

impl TraceStep<'_> {
    /// The step's JSON object, its members in the documented order.
    pub fn to_json(&self) -> Value {
        json!({
            "index": self.index,
            "client": self.client,
            "line": self.line,
            "statement": self.statement,
            "clock_ms": self.clock_ms,
            "request": self.request.map(|r| json!({
                "method": r.method.as_str(),
                "path": r.path,
                "content_type": r.content_type,
                "body": r.body,
            })),
            "response": self.response.map(|r| json!({
                "code": r.code,
                "body": r.body,
            })),
            "mark": self.mark.as_str(),
            "revision": self.revision,
            "narration": self.narration,
            "lost_updates": self.lost_updates.iter().map(lost_update_json).collect::<Vec<_>>(),
        })
    }
}

/// One lost update as a trace step lists it (`lost_updates`); `rvlab serve`'s trace uses it
/// too, so both traces have one shape.
pub fn lost_update_json(l: &LostUpdate) -> Value {
    json!({
        "object": l.object,
        "path": l.path,
        "writer": l.writer,
        "overwritten_writer": l.overwritten_writer,
        "overwritten_revision": l.overwritten_revision,
        "base_revision": l.base_revision,
        "revision": l.revision,
    })
}

/// A kubectl step's `kubectl` member: the command, the request's index in it, and on the step
/// that finished the command what it printed (`stdout`, `stderr`, `output`: both in the order
/// written) and its `exit` status.
fn kubectl_json(k: &KubectlStep) -> Value {
    let mut v = json!({
        "command": k.command,
        "request_index": k.request_index,
    });
    if let (Some(t), Value::Object(m)) = (&k.terminal, &mut v) {
        let output: String = t.chunks.iter().map(|c| c.text.as_str()).collect();
        m.insert("stdout".into(), t.stdout().into());
        m.insert("stderr".into(), t.stderr().into());
        m.insert("output".into(), output.into());
        m.insert("exit".into(), t.exit.into());
    }
    v
}

/// The run as a JSON trace.
pub fn trace(run: &Run) -> Value {
    let scenario = &run.scenario;
    let world = run.last();
    let name_of = |c: u32| {
        scenario
            .clients
            .get(c as usize)
            .map_or_else(String::new, |x| x.name.clone())
    };
    let steps: Vec<Value> = run
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let client = name_of(s.client);
            let mut step = TraceStep {
                index: i as u64,
                client: &client,
                line: Some(s.line),
                statement: &s.statement,
                clock_ms: s.clock_nanos as f64 / 1e6,
                request: s.request.as_ref(),
                response: s.response.as_ref(),
                mark: s.mark,
                revision: s.revision,
                narration: Some(&s.narration),
                lost_updates: &s.lost_updates,
            }
            .to_json();
            if let (Some(k), Value::Object(m)) = (&s.kubectl, &mut step) {
                m.insert("kubectl".into(), kubectl_json(k));
            }
            step
        })
        .collect();
    let clients: Vec<Value> = scenario
        .clients
        .iter()
        .zip(&world.clients)
        .map(|(spec, c)| {
            let (outcome, error) = match &c.outcome {
                Some(ClientOutcome::Succeeded) => ("succeeded", Value::Null),
                Some(ClientOutcome::Failed(f)) => (
                    "failed",
                    match &f.status {
                        Some(s) => s.0.clone(),
                        None => json!({"reason": f.reason, "message": f.message}),
                    },
                ),
                None => ("unfinished", Value::Null),
            };
            json!({
                "name": spec.name,
                "outcome": outcome,
                "error": error,
                "attempts": c.attempts,
            })
        })
        .collect();
    let objects: Vec<Value> = world.store.objects().map(|(_, o)| o.clone()).collect();
    let expectations: Vec<Value> = run
        .expectations()
        .into_iter()
        .map(|e| json!({"text": e.text, "line": e.line, "holds": e.holds, "detail": e.detail}))
        .collect();
    json!({
        "version": TRACE_VERSION,
        "title": scenario.title,
        "schedule": run.token(),
        "seed": run.seed,
        "steps": steps,
        "clients": clients,
        "objects": objects,
        "expectations": expectations,
        "stopped": run.stopped,
    })
}

/// 64-bit FNV-1a.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A stable hex fingerprint of the run's JSON trace (for native-vs-wasm determinism checks).
pub fn fingerprint(run: &Run) -> String {
    format!("{:016x}", fnv1a64(trace(run).to_string().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_published_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
