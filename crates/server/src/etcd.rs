//! `rvlab serve --etcd URL[,URL…]` (issue #17, docs/serve.md "On etcd"): the objects live in
//! a real etcd cluster, the way the apiserver keeps them, and every request is served by the
//! core's store rebuilt from an etcd read (`rvlab_core::store::etcd`): the apiserver's rules
//! stay the core's, this module only moves the bytes.
//!
//! The client is etcd's v3 JSON gateway (`/v3/kv/range`, `/v3/kv/txn`) through hyper's HTTP
//! client: the `etcd-client` crate (gRPC, tonic) needs `protoc` to build, which these machines
//! do not have, and the gateway is the same API (etcd's own grpc-gateway over the same server).
//! Keys and values are base64 in the JSON, 64-bit integers decimal strings.
//!
//! A request is the apiserver's GuaranteedUpdate ([`serve`]): read, serve on the read
//! (`Store::from_etcd` + `Store::handle`), and for a write one transaction comparing the key's
//! `mod_revision` with the read one (0: absent) that puts or deletes it; a failed compare reads
//! again and serves again, with no limit but the request's deadline, so a 409 reaches a
//! client only from the store's own resourceVersion check on a fresh read. An endpoint that
//! fails (refused, no leader, a timeout) is retried on the next, until the same deadline; then
//! the answer is the apiserver's 504.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use rvlab_core::store::etcd::{registry_key, stamp, Written, REGISTRY};
use rvlab_core::store::{Actor, Env, ObjectRef, Outcome, Request, Response, Store};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The apiserver's bound on one request (`requestTimeoutUpperBound`, 34 s): GuaranteedUpdate
/// loops until it, and so do retries on a failing etcd.
pub(crate) const REQUEST_DEADLINE: Duration = Duration::from_secs(34);
/// How long one gateway call may take before the next endpoint is tried.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// The pause after a failed call before the next one (an election takes about a second).
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// One key as a read returned it.
#[derive(Debug, Clone)]
pub(crate) struct Kv {
    pub key: String,
    pub value: Value,
    pub mod_revision: u64,
}

/// Why a call did not get an answer from etcd.
#[derive(Debug)]
pub(crate) struct Unavailable(pub String);

/// Whether a failed call may be sent again elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    /// A read: always.
    Always,
    /// A write: only when it never left (the connection was refused). A write sent and not
    /// answered may have committed; sent again, its compare would fail on its own change and
    /// the client would get a 409 for a write that landed (the fault tests saw exactly that).
    /// So the client gets an error instead and reads again, as from the apiserver.
    IfNotSent,
}

/// A failed call: what happened, and whether the request certainly did not reach etcd.
struct Failed {
    error: Unavailable,
    not_sent: bool,
}

/// What a write transaction did.
pub(crate) enum Txn {
    /// Committed at this revision.
    Committed(u64),
    /// The compare failed: someone wrote the key since the read.
    Moved,
}

/// The cluster's gateway endpoints and one HTTP client.
pub(crate) struct Etcd {
    endpoints: Vec<String>,
    client: Client<HttpConnector, Full<Bytes>>,
    /// The endpoint to try first (the last one that answered).
    current: AtomicUsize,
}

/// The end of a prefix range: the prefix with its last byte incremented (etcd's `GetPrefixRangeEnd`).
fn prefix_end(prefix: &str) -> Vec<u8> {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

fn num(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

fn header_revision(resp: &Value) -> u64 {
    num(resp.get("header").and_then(|h| h.get("revision")))
}

fn kvs(resp: &Value) -> Result<Vec<Kv>, Unavailable> {
    let mut out = Vec::new();
    for kv in resp
        .get("kvs")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let bytes = |k: &str| {
            B64.decode(kv.get(k).and_then(Value::as_str).unwrap_or(""))
                .map_err(|e| Unavailable(format!("etcd sent a {k} that is not base64: {e}")))
        };
        let key = String::from_utf8_lossy(&bytes("key")?).into_owned();
        let value = serde_json::from_slice(&bytes("value")?)
            .map_err(|e| Unavailable(format!("{key}: the value is not JSON: {e}")))?;
        out.push(Kv {
            key,
            value,
            mod_revision: num(kv.get("mod_revision")),
        });
    }
    Ok(out)
}

impl Etcd {
    /// A client of the cluster at `urls` (`http://127.0.0.1:2379,…`: etcd's client URLs).
    pub fn new(urls: &str) -> anyhow::Result<Etcd> {
        let endpoints: Vec<String> = urls
            .split(',')
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty())
            .collect();
        if endpoints.is_empty() {
            anyhow::bail!("--etcd: give etcd's client URLs, e.g. http://127.0.0.1:2379");
        }
        for u in &endpoints {
            let ok = u
                .strip_prefix("http://")
                .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'));
            if !ok {
                anyhow::bail!(
                    "--etcd {u}: not an http://HOST:PORT client URL (TLS to etcd is not supported)"
                );
            }
        }
        let client = Client::builder(hyper_util::rt::TokioExecutor::new()).build_http();
        Ok(Etcd {
            endpoints,
            client,
            current: AtomicUsize::new(0),
        })
    }

    /// One gateway call on one endpoint.
    async fn call_at(&self, endpoint: &str, path: &str, body: &Value) -> Result<Value, Failed> {
        let failed = |e: String, not_sent: bool| Failed {
            error: Unavailable(format!("{endpoint}: {e}")),
            not_sent,
        };
        let req = hyper::Request::post(format!("{endpoint}{path}"))
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(|e| failed(e.to_string(), true))?;
        let call = async {
            let resp = self
                .client
                .request(req)
                .await
                .map_err(|e| failed(e.to_string(), e.is_connect()))?;
            let status = resp.status();
            let bytes = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| failed(e.to_string(), false))?
                .to_bytes();
            let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
                failed(format!("an answer that is not JSON ({status}): {e}"), false)
            })?;
            if !status.is_success() || v.get("error").is_some() {
                let msg = v
                    .get("message")
                    .or_else(|| v.get("error"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                return Err(failed(format!("{status} {msg}"), false));
            }
            Ok(v)
        };
        match tokio::time::timeout(CALL_TIMEOUT, call).await {
            Ok(r) => r,
            Err(_) => Err(failed(format!("no answer within {CALL_TIMEOUT:?}"), false)),
        }
    }

    /// A call, on the endpoints in turn until one answers or `deadline` passes (a write only
    /// while it was not sent: [`Resend`]).
    async fn call(
        &self,
        path: &str,
        body: &Value,
        resend: Resend,
        deadline: Instant,
    ) -> Result<Value, Unavailable> {
        let n = self.endpoints.len();
        let mut i = self.current.load(Ordering::Relaxed) % n;
        loop {
            let last = match self.call_at(&self.endpoints[i], path, body).await {
                Ok(v) => {
                    self.current.store(i, Ordering::Relaxed);
                    return Ok(v);
                }
                Err(f) if resend == Resend::IfNotSent && !f.not_sent => {
                    // Next time, start with another member.
                    self.current.store((i + 1) % n, Ordering::Relaxed);
                    return Err(f.error);
                }
                Err(f) => f.error,
            };
            i = (i + 1) % n;
            if Instant::now() + RETRY_PAUSE >= deadline {
                return Err(last);
            }
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }

    /// Reads one key, or every key under a prefix: the header revision and the keys.
    pub async fn range(
        &self,
        key: &str,
        prefix: bool,
        deadline: Instant,
    ) -> Result<(u64, Vec<Kv>), Unavailable> {
        let mut body = json!({ "key": B64.encode(key) });
        if prefix {
            body["range_end"] = B64.encode(prefix_end(key)).into();
        }
        let resp = self
            .call("/v3/kv/range", &body, Resend::Always, deadline)
            .await?;
        Ok((header_revision(&resp), kvs(&resp)?))
    }

    /// The apiserver's optimistic write: put (or delete) `key` if its `mod_revision` is still
    /// `expected` (0: the key does not exist).
    pub async fn write(
        &self,
        key: &str,
        expected: u64,
        value: Option<&Value>,
        deadline: Instant,
    ) -> Result<Txn, Unavailable> {
        let k = B64.encode(key);
        let op = match value {
            Some(v) => json!({ "request_put": { "key": k, "value": B64.encode(v.to_string()) } }),
            None => json!({ "request_delete_range": { "key": k } }),
        };
        let body = json!({
            "compare": [{
                "key": k,
                "target": "MOD",
                "result": "EQUAL",
                "mod_revision": expected.to_string(),
            }],
            "success": [op],
        });
        let resp = self
            .call("/v3/kv/txn", &body, Resend::IfNotSent, deadline)
            .await?;
        if resp.get("succeeded").and_then(Value::as_bool) == Some(true) {
            Ok(Txn::Committed(header_revision(&resp)))
        } else {
            Ok(Txn::Moved)
        }
    }

    /// A store holding what a request needs, read at one revision: the object alone when it
    /// exists (what an object's request reads), else the whole registry (a list, a create,
    /// and a request on a missing object, which needs to know the namespaces that exist).
    pub async fn read_for(
        &self,
        object: Option<&ObjectRef>,
        deadline: Instant,
    ) -> Result<Store, Unavailable> {
        if let Some(r) = object {
            let (rev, kvs) = self.range(&registry_key(r), false, deadline).await?;
            if !kvs.is_empty() {
                return self::store(rev, kvs);
            }
        }
        let (rev, kvs) = self.range(REGISTRY, true, deadline).await?;
        self::store(rev, kvs)
    }

    /// Puts the setup's objects into etcd, each only if its key is absent (a second replica,
    /// or a server started again on the same etcd, finds them there). The count put.
    pub async fn load_setup(&self, setup: &Store) -> anyhow::Result<usize> {
        let deadline = Instant::now() + REQUEST_DEADLINE;
        let mut put = 0;
        for (r, object) in setup.objects() {
            let value = rvlab_core::store::etcd::stored_value(object);
            match self
                .write(&registry_key(r), 0, Some(&value), deadline)
                .await
                .map_err(|e| anyhow::anyhow!("--etcd: cannot write the setup: {}", e.0))?
            {
                Txn::Committed(_) => put += 1,
                Txn::Moved => {}
            }
        }
        Ok(put)
    }

    /// Checks the cluster answers (at start, so a wrong URL is an error, not a hung server).
    pub async fn probe(&self) -> anyhow::Result<u64> {
        let deadline = Instant::now() + CALL_TIMEOUT;
        let (rev, _) = self
            .range(REGISTRY, false, deadline)
            .await
            .map_err(|e| anyhow::anyhow!("--etcd: etcd does not answer: {}", e.0))?;
        Ok(rev)
    }
}

/// The server's watch cache on etcd, as the apiserver's cacher: one etcd watch on the whole
/// registry from `from` on, each event applied to the state's store (a mirror of etcd, which
/// watches' initial states are served from) and recorded in its `WatchCache`, then the
/// watchers woken. A broken stream is watched again from the next revision on the next
/// endpoint; after a compaction past it, the mirror is read again whole and the cache starts
/// over (a watcher behind it gets its 410). Ends when the server stops.
pub(crate) async fn follow(shared: std::sync::Arc<crate::Shared>, mut from: u64) {
    let Some(etcd) = shared.etcd.as_ref() else {
        return;
    };
    let mut shutdown = shared.shutdown.clone();
    let mut endpoint = etcd.current.load(Ordering::Relaxed);
    loop {
        let url = &etcd.endpoints[endpoint % etcd.endpoints.len()];
        let followed = tokio::select! {
            r = follow_on(&shared, url, from) => r,
            _ = shutdown.wait_for(|stop| *stop) => return,
        };
        match followed {
            Ok(Followed::Compacted) => match etcd.read_for(None, far()).await {
                Ok(store) => {
                    from = store.revision() + 1;
                    let mut st = shared.lock();
                    st.store = store;
                    st.cache = rvlab_core::watch::WatchCache::default();
                    shared.revision_tx.send_replace(from - 1);
                    continue;
                }
                Err(e) => eprintln!("rvlab serve: etcd: {}", e.0),
            },
            Ok(Followed::Ended(next)) => from = next,
            Err((next, e)) => {
                from = next;
                eprintln!("rvlab serve: etcd watch: {}", e.0);
            }
        }
        endpoint += 1;
        tokio::time::sleep(RETRY_PAUSE).await;
    }
}

/// A deadline far enough away for the watch's own reads.
fn far() -> Instant {
    Instant::now() + REQUEST_DEADLINE
}

enum Followed {
    /// The stream ended; go on from this revision.
    Ended(u64),
    /// etcd compacted past the revision asked for.
    Compacted,
}

/// One watch stream on one endpoint, applying its events; `Err` carries the revision to go on
/// from.
async fn follow_on(
    shared: &crate::Shared,
    endpoint: &str,
    mut from: u64,
) -> Result<Followed, (u64, Unavailable)> {
    let etcd = shared.etcd.as_ref().expect("follow runs on etcd");
    let body = json!({ "create_request": {
        "key": B64.encode(REGISTRY),
        "range_end": B64.encode(prefix_end(REGISTRY)),
        "start_revision": from.to_string(),
    }});
    let req = hyper::Request::post(format!("{endpoint}/v3/watch"))
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| (from, Unavailable(e.to_string())))?;
    let resp = etcd
        .client
        .request(req)
        .await
        .map_err(|e| (from, Unavailable(format!("{endpoint}: {e}"))))?;
    let mut body = resp.into_body();
    let mut pending: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| (from, Unavailable(format!("{endpoint}: {e}"))))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        pending.extend_from_slice(&data);
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let Some(result) = msg.get("result") else {
                let e = msg.get("error").map(Value::to_string).unwrap_or_default();
                return Err((from, Unavailable(format!("{endpoint}: {e}"))));
            };
            if num(result.get("compact_revision")) > 0 {
                return Ok(Followed::Compacted);
            }
            if result.get("canceled").and_then(Value::as_bool) == Some(true) {
                return Ok(Followed::Ended(from));
            }
            let events = result.get("events").and_then(Value::as_array);
            if let Some(last) = apply_events(shared, events.map(Vec::as_slice).unwrap_or(&[]))
                .map_err(|e| (from, e))?
            {
                from = last + 1;
            }
        }
    }
    Ok(Followed::Ended(from))
}

/// Applies one watch response's events to the mirror and the cache, waking the watchers;
/// the last event's revision.
fn apply_events(shared: &crate::Shared, events: &[Value]) -> Result<Option<u64>, Unavailable> {
    if events.is_empty() {
        return Ok(None);
    }
    let mut guard = shared.lock();
    let st = &mut *guard;
    let since = st.store.revision();
    let mut last = since;
    for ev in events {
        let kv = ev.get("kv").unwrap_or(&Value::Null);
        let key_b64 = kv.get("key").and_then(Value::as_str).unwrap_or("");
        let key = B64
            .decode(key_b64)
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .map_err(|e| Unavailable(format!("etcd sent a key that is not base64: {e}")))?;
        let revision = num(kv.get("mod_revision"));
        last = last.max(revision);
        let deleted = ev.get("type").and_then(Value::as_str) == Some("DELETE");
        let change = if deleted {
            st.store
                .delete_etcd(&key)
                .map(|(r, prev)| (r, Some(prev), None))
        } else {
            let raw = B64
                .decode(kv.get("value").and_then(Value::as_str).unwrap_or(""))
                .unwrap_or_default();
            let value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
            match st.store.put_etcd(&key, value, revision) {
                Ok((r, prev)) => {
                    let now = st.store.get(&r).cloned();
                    Some((r, prev, now))
                }
                Err(e) => {
                    // A key this server does not serve (another program's): skipped.
                    eprintln!("rvlab serve: etcd watch: {e}");
                    None
                }
            }
        };
        if let Some((r, prev, now)) = change {
            if let rvlab_core::store::Resource::Custom { plural, group } = &r.resource {
                st.customs.insert((plural.clone(), group.clone()));
            }
            st.cache
                .record_change(since, r.resource, prev, now, revision);
        }
    }
    st.store.at_revision(last);
    shared.revision_tx.send_replace(last);
    Ok(Some(last))
}

fn store(rev: u64, kvs: Vec<Kv>) -> Result<Store, Unavailable> {
    let mut store = Store::from_etcd(
        rev,
        kvs.into_iter().map(|k| (k.key, k.value, k.mod_revision)),
    )
    .map_err(Unavailable)?;
    store.set_strict_namespaces(true);
    Ok(store)
}

/// What a write does to etcd: the key, the mod_revision the read saw, the value (`None`:
/// delete).
pub(crate) struct Plan {
    pub written: Written,
    pub expected: u64,
}

impl Plan {
    /// The write `after` made on `before` at the model's revision `revision`.
    pub fn of(before: &Store, after: &Store, revision: u64) -> Option<Plan> {
        let written = after.written(before, revision)?;
        let expected = before.resource_version(&written.object).unwrap_or(0);
        Some(Plan { written, expected })
    }
}

/// A request served on etcd: the answer, and (when etcd answered) the store it was served on
/// and the store after it, its write at etcd's revision (the live view's step).
pub(crate) struct EtcdOutcome {
    pub outcome: Outcome,
    pub stores: Option<(Store, Store)>,
}

/// Serves one request on etcd: the GuaranteedUpdate loop (module docs). The lock is taken
/// for the store call only (the generator is the server's), never across an etcd call.
pub(crate) async fn serve(
    etcd: &Etcd,
    shared: &crate::Shared,
    request: &Request,
    actor: &Actor,
    object: Option<&ObjectRef>,
) -> EtcdOutcome {
    let deadline = Instant::now() + REQUEST_DEADLINE;
    let failed = |e: &Unavailable| EtcdOutcome {
        outcome: unavailable(e),
        stores: None,
    };
    loop {
        let before = match etcd.read_for(object, deadline).await {
            Ok(s) => s,
            Err(e) => return failed(&e),
        };
        let mut store = before.clone();
        let mut outcome = {
            let mut st = shared.lock();
            let now = crate::now_ms();
            rvlab_instruments::pipeline::guarded(|| {
                let mut env = Env {
                    now_ms: now,
                    rng: &mut st.rng,
                };
                store.handle(request, actor, &mut env)
            })
        };
        let plan = outcome
            .revision
            .and_then(|model_revision| Plan::of(&before, &store, model_revision));
        let Some(plan) = plan else {
            return EtcdOutcome {
                outcome,
                stores: Some((before, store)),
            };
        };
        let written = &plan.written;
        match etcd
            .write(
                &written.key,
                plan.expected,
                written.value.as_ref(),
                deadline,
            )
            .await
        {
            Ok(Txn::Committed(revision)) => {
                stamp(&mut outcome.response.body, revision);
                outcome.revision = Some(revision);
                // The store after the write as etcd holds it: the object at its new
                // mod_revision, the store at the transaction's revision.
                if let Some(value) = &written.value {
                    if let Err(e) = store.put_etcd(&written.key, value.clone(), revision) {
                        eprintln!("rvlab serve: etcd: {e}");
                    }
                }
                store.at_revision(revision);
                return EtcdOutcome {
                    outcome,
                    stores: Some((before, store)),
                };
            }
            // Someone wrote the key since the read: read again and serve again.
            Ok(Txn::Moved) => continue,
            Err(e) => return failed(&e),
        }
    }
}

/// The answer when etcd did not answer before the deadline (the reason goes to the log).
fn unavailable(e: &Unavailable) -> Outcome {
    eprintln!("rvlab serve: etcd: {}", e.0);
    Outcome {
        response: Response {
            code: 504,
            body: timeout_status(),
        },
        revision: None,
        lost_updates: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The apiserver's answer when the request's deadline passes with etcd not answering
/// (`finishRequest`'s timeout, a 504 that clients retry).
pub(crate) fn timeout_status() -> Value {
    let mut s = crate::body::status(
        504,
        "Timeout",
        "Timeout: request did not complete within requested timeout - context deadline exceeded",
    );
    if let Value::Object(m) = &mut s {
        m.insert("details".into(), json!({}));
        // `code` stays last, as in the apiserver's Status.
        let code = m.remove("code").unwrap_or(Value::from(504));
        m.insert("code".into(), code);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_ends_at_its_last_byte_plus_one() {
        assert_eq!(prefix_end("/registry/"), b"/registry0".to_vec());
        assert_eq!(prefix_end("a\u{7f}"), b"a\x80".to_vec());
    }

    #[test]
    fn endpoints_must_be_plain_http_client_urls() {
        assert!(Etcd::new("http://127.0.0.1:2379, http://127.0.0.1:2381/").is_ok());
        for bad in [
            "",
            " , ",
            "https://127.0.0.1:2379",
            "127.0.0.1:2379",
            "http://h:1/v3",
        ] {
            let e = Etcd::new(bad).err().expect(bad).to_string();
            assert!(e.starts_with("--etcd"), "{bad}: {e}");
        }
    }
}
