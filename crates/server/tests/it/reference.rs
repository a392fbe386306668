//! The reference's goldens replayed against `rvlab serve` over HTTP (docs/reference.md,
//! "Goldens"): the same sequences, normalising and reviewed list as the store's replay
//! (`rvlab-core`'s `tests/it/reference.rs`, both through `rvlab_testkit::reference`), sent
//! to one server on loopback as the capture sent them to the reference: each sequence in its
//! own namespace, created first, each request with the capture's User-Agent (`AGENT/1`, the
//! default field manager) and at the second the reference answered it (the server's test
//! clock), a watch read until its `timeoutSeconds` ends the stream. So what `rvlab serve` adds
//! to the store (routing, content types, the watch stream, the field manager from the
//! User-Agent, strict namespaces) is checked against the real apiserver too.

use crate::support::*;
use rvlab_core::store::EPOCH_UNIX_SECONDS;
use rvlab_server::{spawn, Options};
use rvlab_testkit::reference::{check, content_type, substitute, Sequence, MANAGER};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../reference");

/// The server's answer as the capture keeps it: a watch's stream as the list of its events.
fn answer(path: &str, a: &Answer) -> (u16, Value) {
    let watch = rvlab_core::watch::is_watch(path) && a.code == 200;
    let body = if watch {
        Value::Array(
            a.text()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
                .collect(),
        )
    } else {
        serde_json::from_slice(&a.body).unwrap_or_else(|_| json!({"text": a.text()}))
    };
    (a.code, body)
}

#[test]
fn rvlab_serve_answers_as_the_reference_kube_apiserver_did() {
    let clock = Arc::new(AtomicU64::new(0));
    let h = spawn(Options {
        listen: "127.0.0.1:0".into(),
        no_page: true,
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .expect("the server starts");
    let addr = h.addr();
    let epoch = u64::try_from(EPOCH_UNIX_SECONDS).unwrap_or(0);
    let at = |s: Option<u64>, last: u64| s.map_or(last + 1000, |s| s.saturating_sub(epoch) * 1000);
    let report = check(std::path::Path::new(DIR), |s: &Sequence| {
        let mut now = at(s.created_at, 0);
        clock.store(now, Ordering::SeqCst);
        let ua = format!("{MANAGER}/1");
        let ns =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": s.namespace}});
        let a = request(
            addr,
            "POST",
            "/api/v1/namespaces",
            &[
                ("User-Agent", &ua),
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            ns.to_string().as_bytes(),
        );
        assert_eq!(
            a.code,
            201,
            "creating the namespace {}: {}",
            s.namespace,
            a.text()
        );
        let mut answers: Vec<(u16, Value)> = Vec::new();
        for (i, r) in s.requests.iter().enumerate() {
            now = at(s.times.get(i).copied().flatten(), now);
            clock.store(now, Ordering::SeqCst);
            let path = substitute(&r["path"], s.namespace, &answers);
            let path = path.as_str().unwrap_or_default().to_string();
            let body = r
                .get("body")
                .map(|b| substitute(b, s.namespace, &answers).to_string());
            let agent = format!(
                "{}/1",
                r.get("agent").and_then(Value::as_str).unwrap_or(MANAGER)
            );
            let mut headers = vec![
                ("User-Agent", agent.as_str()),
                ("Accept", "application/json"),
            ];
            if body.is_some() {
                headers.push((
                    "Content-Type",
                    content_type(r.get("type").and_then(Value::as_str)),
                ));
            }
            let a = request(
                addr,
                r["method"].as_str().unwrap_or_default(),
                &path,
                &headers,
                body.as_deref().unwrap_or_default().as_bytes(),
            );
            answers.push(answer(&path, &a));
        }
        answers
    });
    print!("{}", report.summary("rvlab serve"));
    h.stop().unwrap();
    report.assert_clean();
}
