//! One HTTP request: route (the page, the wire documents, the server's own `/rvlab/v1/*`,
//! watches, else the store), read and decode the body within its bounds, name the client,
//! then, under the state's lock, the instruments' pipeline (`rvlab_instruments::pipeline`:
//! interference, the store, stale reads, the books, the trace, the live step) and the I/O it
//! returns (`Shared::publish`); answer JSON, or the Table asked for, with the warnings.

use crate::body::{self, Use};
use crate::client::{self, UrlTarget};
use crate::reply::{json_reply, table_wanted, HttpResponse, TableWanted};
use crate::Shared;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, USER_AGENT};
use rvlab_core::store::{Method, Outcome, Request, Response};
use rvlab_instruments::pipeline::Asked;
use serde_json::Value;
use std::sync::Arc;

fn header(req: &hyper::Request<Incoming>, name: hyper::header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Why a body could not be had.
enum BodyError {
    TooLarge,
    /// The client went away or stalled past the body timeout: no answer, close.
    Gone,
}

async fn read_body(req: hyper::Request<Incoming>, shared: &Shared) -> Result<Bytes, BodyError> {
    let limit = shared.limits.max_body_bytes;
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let collect = Limited::new(req.into_body(), limit).collect();
    match tokio::time::timeout(shared.limits.body_read_timeout, collect).await {
        Err(_) => Err(BodyError::Gone),
        Ok(Ok(c)) => Ok(c.to_bytes()),
        Ok(Err(e)) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                Err(BodyError::TooLarge)
            } else {
                Err(BodyError::Gone)
            }
        }
    }
}

/// The path the store is given: a write that names no `fieldManager` is managed by the
/// User-Agent's prefix, as the apiserver does (`managerOrUserAgent`); an apply must name one
/// (422 from the store), so it is left alone.
fn store_path(
    path_q: &str,
    method: Method,
    content_type: Option<&str>,
    pairs: &[(String, String)],
    user_agent: Option<&str>,
) -> String {
    let writes = matches!(method, Method::Post | Method::Put | Method::Patch);
    let apply = body::media_type(content_type) == "application/apply-patch+yaml";
    if !writes || apply || client::query_value(pairs, "fieldManager").is_some_and(|m| !m.is_empty())
    {
        return path_q.to_string();
    }
    let manager = client::manager_from_user_agent(user_agent);
    if manager.is_empty() {
        return path_q.to_string();
    }
    let enc: String = form_urlencoded::byte_serialize(manager.as_bytes()).collect();
    let sep = if path_q.contains('?') { '&' } else { '?' };
    format!("{path_q}{sep}fieldManager={enc}")
}

/// What a request's head says, read before its body.
struct Head {
    /// The path and query as sent.
    path_q: String,
    path: String,
    query: String,
    user_agent: Option<String>,
    content_type: Option<String>,
    accept: Option<String>,
    /// kubectl names its command and invocation (the live view shows and groups them).
    kubectl_command: Option<String>,
    kubectl_session: Option<String>,
}

impl Head {
    fn of(req: &hyper::Request<Incoming>) -> Head {
        let path_q = req
            .uri()
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| "/".into());
        let (path, query) = match path_q.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (path_q.clone(), String::new()),
        };
        let named = |name: &'static str| {
            header(req, hyper::header::HeaderName::from_static(name)).map(str::to_string)
        };
        Head {
            user_agent: header(req, USER_AGENT).map(str::to_string),
            content_type: header(req, CONTENT_TYPE).map(str::to_string),
            accept: header(req, hyper::header::ACCEPT).map(str::to_string),
            kubectl_command: named("kubectl-command"),
            kubectl_session: named("kubectl-session"),
            path_q,
            path,
            query,
        }
    }
}

/// Serves one request. Never fails: every problem is an HTTP answer, or a closed connection
/// for a client that stopped sending.
pub(crate) async fn handle(
    req: hyper::Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<HttpResponse, std::io::Error> {
    let head = Head::of(&req);
    let pairs = client::query_pairs(&head.query);
    let method = match route(&req, &shared, &head, &pairs) {
        Routed::Store(method) => method,
        Routed::Answered(answered) => return Ok(answered),
    };
    let bytes = match body_of(req, &shared, method).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => {
            let status = body::too_large(shared.limits.max_body_bytes);
            return Ok(record_refusal(&shared, &head, method, &pairs, status));
        }
        Err(BodyError::Gone) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive",
            ))
        }
    };
    let table = if method == Method::Get {
        table_wanted(head.accept.as_deref(), &head.path, &pairs)
    } else {
        None
    };
    let asked = match asked_of(&head, method, pairs, &bytes, table.is_some()) {
        Ok(asked) => asked,
        Err((pairs, status)) => return Ok(record_refusal(&shared, &head, method, &pairs, status)),
    };
    let outcome = match shared.etcd.as_ref() {
        Some(etcd) => on_etcd(etcd, &shared, asked).await,
        None => on_model(&shared, asked),
    };
    Ok(answer(outcome, table.as_ref()))
}

/// Where [`route`] sends a request.
enum Routed {
    /// Answered without the store.
    Answered(HttpResponse),
    /// A store request with this method.
    Store(Method),
}

/// Everything that is not a store request: the page, the wire documents, a method the
/// apiserver does not allow, the server's own `/rvlab/v1/trace`, `/rvlab/v1/live` and
/// `/rvlab/v1/scenario`, and watches.
fn route(
    req: &hyper::Request<Incoming>,
    shared: &Arc<Shared>,
    head: &Head,
    pairs: &[(String, String)],
) -> Routed {
    let path = head.path.as_str();
    if matches!(*req.method(), hyper::Method::GET | hyper::Method::HEAD) {
        if let Some(r) = crate::page::answer(
            shared.page.as_deref(),
            path,
            header(req, hyper::header::IF_NONE_MATCH),
            header(req, hyper::header::ACCEPT_ENCODING),
        ) {
            return Routed::Answered(r);
        }
    }
    if let Some(r) = wire_reply(shared, req, path, &head.query) {
        return Routed::Answered(r);
    }
    let method = match *req.method() {
        hyper::Method::GET => Method::Get,
        hyper::Method::POST => Method::Post,
        hyper::Method::PUT => Method::Put,
        hyper::Method::PATCH => Method::Patch,
        hyper::Method::DELETE => Method::Delete,
        _ => {
            return Routed::Answered(json_reply(
                405,
                &body::status(
                    405,
                    "MethodNotAllowed",
                    "the server does not allow this method on the requested resource",
                ),
            ))
        }
    };
    if method == Method::Get && path == "/rvlab/v1/trace" {
        // Pointers copied under the lock; the document is written outside it, a step at a
        // time (it was built whole under the lock: seconds and a gigabyte for 50,000 steps).
        let snapshot = shared.lock().trace.snapshot();
        return Routed::Answered(crate::reply::chunks_reply(
            200,
            "application/json",
            snapshot.chunks(),
        ));
    }
    if method == Method::Get && path == "/rvlab/v1/live" {
        return Routed::Answered(crate::live::stream(shared));
    }
    if method == Method::Get && path == "/rvlab/v1/scenario" {
        return Routed::Answered(crate::live::scenario(shared));
    }
    if method == Method::Get
        && crate::watch::is_watch(pairs)
        && rvlab_core::watch::is_watch(&head.path_q)
    {
        let program = client::program(head.user_agent.as_deref());
        let table = table_wanted(header(req, hyper::header::ACCEPT), path, pairs);
        return Routed::Answered(crate::watch::start(shared, &head.path_q, program, table));
    }
    Routed::Store(method)
}

/// A store request's body, as its method reads one (a GET has none).
async fn body_of(
    req: hyper::Request<Incoming>,
    shared: &Shared,
    method: Method,
) -> Result<Bytes, BodyError> {
    if method == Method::Get {
        Ok(Bytes::new())
    } else {
        read_body(req, shared).await
    }
}

/// The store request and what the pipeline needs besides (`Err`: the body could not be
/// decoded, the Status to answer, with the pairs given back).
#[allow(clippy::type_complexity)]
fn asked_of(
    head: &Head,
    method: Method,
    pairs: Vec<(String, String)>,
    bytes: &Bytes,
    table: bool,
) -> Result<Asked, (Vec<(String, String)>, Value)> {
    let how = match method {
        Method::Post | Method::Put => Use::Object,
        Method::Patch => Use::Patch,
        Method::Delete => Use::Options,
        Method::Get => Use::None,
    };
    let target = client::target(&head.path);
    let kind = match &target {
        UrlTarget::Object((g, p, _, _)) | UrlTarget::Collection(g, p, _) => client::kind_of(g, p),
        UrlTarget::Other => None,
    };
    let content_type = head.content_type.as_deref();
    let (body_value, store_ct) = match body::decode(how, content_type, bytes, kind.as_deref()) {
        Ok(d) => d,
        Err(status) => return Err((pairs, status)),
    };
    let user_agent = head.user_agent.as_deref();
    let request = Request {
        method,
        path: store_path(
            &head.path_q,
            method,
            store_ct.as_deref(),
            &pairs,
            user_agent,
        ),
        content_type: store_ct,
        body: body_value,
    };
    let name = client::name(client::query_value(&pairs, "fieldManager"), user_agent);
    Ok(Asked {
        request,
        target,
        path_q: head.path_q.clone(),
        name,
        program: client::program(user_agent),
        sent_type: Some(body::media_type(content_type)).filter(|m| !m.is_empty()),
        kubectl_command: head.kubectl_command.clone(),
        kubectl_session: head.kubectl_session.clone(),
        table,
        pairs,
    })
}

/// Serves a store request on the model: the pipeline under the lock, then its I/O.
fn on_model(shared: &Shared, asked: Asked) -> Outcome {
    let mut lab = shared.lock();
    let served = lab.serve(asked, shared.clock());
    shared.publish(&lab, served.io);
    served.outcome
}

/// The HTTP answer of a served request: its body (or the Table asked for) and its warnings.
fn answer(outcome: Outcome, table: Option<&TableWanted>) -> HttpResponse {
    let body = match table {
        Some(t) if outcome.response.code == 200 => t.of(&outcome.response.body),
        _ => outcome.response.body,
    };
    let mut r = json_reply(outcome.response.code, &body);
    for w in &outcome.warnings {
        // `299 - "text"`, the text quoted as Go's strconv.Quote (JSON's escaping for text).
        let v = format!("299 - {}", Value::String(w.clone()));
        if let Ok(v) = HeaderValue::from_str(&v) {
            r.headers_mut().append(hyper::header::WARNING, v);
        }
    }
    r
}

/// `--etcd`: one request served on etcd (`crate::etcd::serve`, no lock held across its
/// calls), then recorded as on the model (`Lab::record_served`): the client's observed
/// revisions, the trace, the live view's step (on the store it was served on and the store
/// after it, as etcd holds it).
async fn on_etcd(etcd: &crate::etcd::Etcd, shared: &Shared, asked: Asked) -> Outcome {
    let actor = shared.lock().actor(&asked);
    let object = match &asked.target {
        UrlTarget::Object(key) => client::object_of(key),
        _ => None,
    };
    let served = crate::etcd::serve(etcd, shared, &asked.request, &actor, object.as_ref()).await;
    let stores = served
        .stores
        .as_ref()
        .map(|(before, after)| (before, after));
    let mut lab = shared.lock();
    let recorded = lab.record_served(asked, served.outcome, stores, shared.clock());
    shared.publish(&lab, recorded.io);
    recorded.outcome
}

/// Discovery, `/version` and OpenAPI: `wire`'s answers (not traced: they are not store
/// requests).
fn wire_reply(
    shared: &Shared,
    req: &hyper::Request<Incoming>,
    path: &str,
    query: &str,
) -> Option<HttpResponse> {
    let segments = path.trim_matches('/').split('/').count();
    let owned = path.starts_with("/openapi/")
        || path == "/version"
        || ((path.starts_with("/api/") || path == "/api" || path.starts_with("/apis"))
            && segments <= 3);
    if !owned {
        return None;
    }
    let accept = header(req, hyper::header::ACCEPT);
    let host = header(req, hyper::header::HOST);
    let served = crate::served(&shared.lock());
    let reply = if path.starts_with("/openapi/") {
        if *req.method() != hyper::Method::GET {
            Some(crate::wire::Reply::method_not_allowed())
        } else {
            crate::wire::openapi::answer(path, Some(query).filter(|q| !q.is_empty()), &served)
        }
    } else {
        crate::wire::discovery::answer_at(req.method().as_str(), path, accept, &served, host)
    }?;
    let mut r = crate::reply::reply(reply.code, &reply.content_type, reply.body);
    for (n, v) in &reply.headers {
        if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(n.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            r.headers_mut().append(n, v);
        }
    }
    Some(r)
}

/// Answers a request the HTTP layer refused (413, 415, 400), recording it in the trace.
fn record_refusal(
    shared: &Shared,
    head: &Head,
    method: Method,
    pairs: &[(String, String)],
    status: Value,
) -> HttpResponse {
    let code = status
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .unwrap_or(400);
    let name = client::name(
        client::query_value(pairs, "fieldManager"),
        head.user_agent.as_deref(),
    );
    let req = Request {
        method,
        path: head.path_q.clone(),
        content_type: head.content_type.clone(),
        body: None,
    };
    let resp = Response { code, body: status };
    {
        let mut lab = shared.lock();
        let io = lab.refused(&name, &req, &resp, shared.clock());
        shared.publish(&lab, io);
    }
    json_reply(code, &resp.body)
}
