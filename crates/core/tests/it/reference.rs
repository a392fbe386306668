//! The reference's answers replayed against the store (docs/reference.md, "Goldens"): each
//! golden of `reference/goldens/` holds request sequences and what the real kube-apiserver
//! answered to them (captured by `cargo xtask reference capture`, version-stamped). Each
//! sequence runs on a fresh store, in the same namespace, created first as the capture created
//! it; `{rv:N}` and `{uid:N}` take the store's own answers. Both sides' answers are normalised
//! the same way (resourceVersions and uids by order of first appearance, times masked) and
//! compared: status code and whole body. A difference must be listed, with its reason, in
//! `reference/known-differences.json`; a listed one that no longer differs fails too.

use rvlab_core::rng::Rng;
use rvlab_core::store::{Actor, Env, Method, Request, Store, EPOCH_UNIX_SECONDS};
use rvlab_core::watch::{self, WatchCache};
use rvlab_testkit::reference::{check, content_type, substitute, Sequence, MANAGER};
use serde_json::{json, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../reference");

fn method(m: &str) -> Method {
    match m {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        other => panic!("unknown method {other} in a golden"),
    }
}

/// The store's answers to one sequence.
/// Each request is served at the second the reference served it (its `Date`, kept by the
/// capture as `at`), so timestamps, and the managedFields order that sorts by them, compare.
fn replay(
    namespace: &str,
    created_at: Option<u64>,
    requests: &[Value],
    times: &[Option<u64>],
) -> Vec<(u16, Value)> {
    let mut store = Store::new();
    let mut rng = Rng::new(7);
    // Every request goes through a watch cache, as `rvlab serve`'s do; a watch is answered
    // with the events it would stream (the capture keeps the reference's as a list).
    let mut cache = WatchCache::default();
    let epoch = u64::try_from(EPOCH_UNIX_SECONDS).unwrap_or(0);
    let ms = |at: Option<u64>| at.map(|s| s.saturating_sub(epoch) * 1000);
    let mut send = |store: &mut Store,
                    now_ms: u64,
                    agent: &str,
                    m: Method,
                    path: &str,
                    ct: &str,
                    body: Option<Value>| {
        let req = Request {
            method: m,
            path: path.to_string(),
            content_type: body.as_ref().map(|_| ct.to_string()),
            body,
        };
        let actor = Actor {
            name: agent.to_string(),
            base_revision: 0,
        };
        let mut env = Env {
            now_ms,
            rng: &mut rng,
        };
        if req.method == Method::Get && watch::is_watch(path) {
            let events = watch::parse_watch(path)
                .and_then(|w| cache.events_since(store, &w.filter, w.resource_version.as_deref()));
            return match events {
                Ok(entries) => (
                    200,
                    Value::Array(entries.iter().map(watch::entry_json).collect()),
                ),
                // Too old: an ERROR event on an HTTP 200 stream.
                Err(r) if r.code == 410 => (200, json!([watch::error_json(&r)])),
                Err(r) => (r.code, r.body),
            };
        }
        let out = cache.handle(store, &req, &actor, &mut env);
        (out.response.code, out.response.body)
    };
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
    let mut now_ms = ms(created_at).unwrap_or(0);
    let (code, body) = send(
        &mut store,
        now_ms,
        MANAGER,
        Method::Post,
        "/api/v1/namespaces",
        "application/json",
        Some(ns),
    );
    assert_eq!(code, 201, "creating the namespace {namespace}: {body}");
    let mut answers = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        // A golden captured without times: one second after the last.
        now_ms = ms(times.get(i).copied().flatten()).unwrap_or(now_ms + 1000);
        let path = substitute(&r["path"], namespace, &answers);
        let body = r.get("body").map(|b| substitute(b, namespace, &answers));
        let ct = content_type(r.get("type").and_then(Value::as_str));
        // The writer's name: the default field manager, as the capture's User-Agent makes it.
        let agent = r.get("agent").and_then(Value::as_str).unwrap_or(MANAGER);
        let answer = send(
            &mut store,
            now_ms,
            agent,
            method(r["method"].as_str().unwrap_or_default()),
            path.as_str().unwrap_or_default(),
            ct,
            body,
        );
        answers.push(answer);
    }
    answers
}

#[test]
fn the_store_answers_as_the_reference_kube_apiserver_did() {
    let report = check(std::path::Path::new(DIR), |s: &Sequence| {
        replay(s.namespace, s.created_at, s.requests, &s.times)
    });
    print!("{}", report.summary("reference"));
    report.assert_clean();
}
