//! One HTTP request: route (the server's own `/rvlab/v1/trace`, the wire documents, else the
//! store), read and decode the body within its bounds, name the client, serve it under the
//! state's lock, record the step, answer JSON.

use crate::body::{self, Use};
use crate::client::{self, UrlTarget};
use crate::reply::{guarded, json_reply, table_wanted, HttpResponse, TableWanted};
use crate::{now_ms, Shared};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, USER_AGENT};
use rvlab_core::store::{Actor, Env, Method, Outcome, Request, Response};
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

/// Serves one request. Never fails: every problem is an HTTP answer, or a closed connection
/// for a client that stopped sending.
pub(crate) async fn handle(
    req: hyper::Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<HttpResponse, std::io::Error> {
    let path_q = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".into());
    let (path, query) = match path_q.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (path_q.clone(), String::new()),
    };
    let user_agent = header(&req, USER_AGENT).map(str::to_string);
    let content_type = header(&req, CONTENT_TYPE).map(str::to_string);
    let accept = header(&req, hyper::header::ACCEPT).map(str::to_string);
    // kubectl names its command and invocation (the live view shows and groups them).
    let kubectl_command = header(
        &req,
        hyper::header::HeaderName::from_static("kubectl-command"),
    )
    .map(str::to_string);
    let kubectl_session = header(
        &req,
        hyper::header::HeaderName::from_static("kubectl-session"),
    )
    .map(str::to_string);
    if matches!(*req.method(), hyper::Method::GET | hyper::Method::HEAD) {
        if let Some(r) = crate::page::answer(
            shared.page.as_deref(),
            &path,
            header(&req, hyper::header::IF_NONE_MATCH),
            header(&req, hyper::header::ACCEPT_ENCODING),
        ) {
            return Ok(r);
        }
    }
    if let Some(r) = wire_reply(&shared, &req, &path, &query) {
        return Ok(r);
    }
    let method = match *req.method() {
        hyper::Method::GET => Method::Get,
        hyper::Method::POST => Method::Post,
        hyper::Method::PUT => Method::Put,
        hyper::Method::PATCH => Method::Patch,
        hyper::Method::DELETE => Method::Delete,
        _ => {
            return Ok(json_reply(
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
        let doc = shared.lock().trace.document();
        return Ok(json_reply(200, &doc));
    }
    if method == Method::Get && path == "/rvlab/v1/live" {
        return Ok(crate::live::stream(&shared));
    }
    if method == Method::Get && path == "/rvlab/v1/scenario" {
        return Ok(crate::live::scenario(&shared));
    }
    let pairs = client::query_pairs(&query);
    if method == Method::Get && crate::watch::is_watch(&pairs) {
        let program = client::program(user_agent.as_deref());
        let table = table_wanted(header(&req, hyper::header::ACCEPT), &path, &pairs);
        return Ok(crate::watch::start(&shared, &path_q, program, table));
    }
    let how = match method {
        Method::Post | Method::Put => Use::Object,
        Method::Patch => Use::Patch,
        Method::Delete => Use::Options,
        Method::Get => Use::None,
    };
    let bytes = if how == Use::None {
        Bytes::new()
    } else {
        match read_body(req, &shared).await {
            Ok(b) => b,
            Err(BodyError::TooLarge) => {
                let status = body::too_large(shared.limits.max_body_bytes);
                return Ok(record_refusal(
                    &shared,
                    method,
                    &path_q,
                    content_type.as_deref(),
                    &user_agent,
                    &pairs,
                    status,
                ));
            }
            Err(BodyError::Gone) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the request body did not arrive",
                ))
            }
        }
    };
    let kind = match client::target(&path) {
        UrlTarget::Object((g, p, _, _)) | UrlTarget::Collection(g, p, _) => client::kind_of(&g, &p),
        UrlTarget::Other => None,
    };
    let (body_value, store_ct) =
        match body::decode(how, content_type.as_deref(), &bytes, kind.as_deref()) {
            Ok(d) => d,
            Err(status) => {
                return Ok(record_refusal(
                    &shared,
                    method,
                    &path_q,
                    content_type.as_deref(),
                    &user_agent,
                    &pairs,
                    status,
                ));
            }
        };
    let request = Request {
        method,
        path: store_path(
            &path_q,
            method,
            store_ct.as_deref(),
            &pairs,
            user_agent.as_deref(),
        ),
        content_type: store_ct,
        body: body_value,
    };
    let target = client::target(&path);
    let table = if method == Method::Get {
        table_wanted(accept.as_deref(), &path, &pairs)
    } else {
        None
    };
    let program = client::program(user_agent.as_deref());
    let name = client::name(
        client::query_value(&pairs, "fieldManager"),
        user_agent.as_deref(),
    );
    let asked = Asked {
        pairs: &pairs,
        name: &name,
        program: &program,
        path_q: &path_q,
        content_type: content_type.as_deref(),
        kubectl_command,
        kubectl_session,
        table: table.is_some(),
    };
    if let Some(etcd) = shared.etcd.as_ref() {
        let outcome = on_etcd(etcd, &shared, &request, &target, asked).await;
        return Ok(answer(outcome, table.as_ref()));
    }
    let outcome = {
        let mut guard = shared.lock();
        let st = &mut *guard;
        let actor = actor_of(st, &target, &program, &name, &request);
        let now = now_ms();
        // `dryRun` is the store's (it answers as written, on a copy): nothing is stored,
        // watched or observed.
        let dry_run = client::query_value(&pairs, "dryRun").is_some();
        if !dry_run {
            interfere(st, &shared, &target, &path, &name, &program, &request, now);
        }
        let before = st.live.before(&st.store, &request);
        let mut outcome = commit(st, &shared, &request, &actor, now);
        // `--stale-reads K`: a read may be answered from an older state instead (`stale`).
        let stale_read = crate::stale::instead(
            st,
            &target,
            &path,
            &pairs,
            &program,
            &request,
            &actor,
            now,
            &mut outcome,
        );
        served_books(st, &target, &program, dry_run, &outcome);
        let traced = traced_request(&request, &path_q, content_type.as_deref());
        let mut step = step_of(st, &shared, &name, &traced, &outcome);
        if let (Some(s), Value::Object(m)) = (stale_read.clone(), &mut step) {
            m.insert("stale_read".into(), s);
        }
        st.trace.push(step);
        if !dry_run {
            let rec = asked.recorded(traced, &outcome, &shared, stale_read);
            live_step(&mut st.live, &shared, before, &st.store, rec, &outcome);
        }
        outcome
    };
    Ok(answer(outcome, table.as_ref()))
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

/// The request as the trace shows it: the path as sent, and a body's media type as sent (a
/// protobuf or YAML object body is traced decoded, under its own type: `kubectl create
/// configmap` sends protobuf), the store's when none was given.
fn traced_request(request: &Request, path_q: &str, content_type: Option<&str>) -> Request {
    let sent_type = Some(body::media_type(content_type)).filter(|m| !m.is_empty());
    Request {
        path: path_q.to_string(),
        content_type: request
            .content_type
            .clone()
            .and(sent_type)
            .or(request.content_type.clone()),
        ..request.clone()
    }
}

/// A served request's trace step.
fn step_of(
    st: &mut crate::State,
    shared: &Shared,
    name: &str,
    traced: &Request,
    outcome: &Outcome,
) -> Value {
    let index = st.trace.next_index();
    let clock = shared.started.elapsed().as_secs_f64() * 1000.0;
    crate::trace::step_json(
        index,
        name,
        clock,
        traced,
        &outcome.response,
        outcome.revision,
        &outcome.lost_updates,
    )
}

/// What a request asked besides the store request itself, for its books: the trace, the
/// observed revisions, the live view's step.
struct Asked<'a> {
    pairs: &'a [(String, String)],
    name: &'a str,
    program: &'a str,
    path_q: &'a str,
    content_type: Option<&'a str>,
    kubectl_command: Option<String>,
    kubectl_session: Option<String>,
    table: bool,
}

impl Asked<'_> {
    /// The live view's record of the request served as `traced` with `outcome`.
    fn recorded(
        self,
        traced: Request,
        outcome: &Outcome,
        shared: &Shared,
        interference: Option<Value>,
    ) -> rvlab_instruments::live::LiveRequest {
        rvlab_instruments::live::LiveRequest {
            program: self.program.to_string(),
            name: self.name.to_string(),
            command: self.kubectl_command,
            session: self.kubectl_session,
            table: self.table,
            request: traced,
            response: outcome.response.clone(),
            revision: outcome.revision,
            clock_nanos: elapsed_nanos(shared),
            interference,
        }
    }
}

/// `--etcd`: one request served on etcd (`crate::etcd::serve`, no lock held across its
/// calls), then recorded as on the model: the client's observed revisions, the trace, the
/// live view's step (on the store it was served on and the store after it, as etcd holds it).
async fn on_etcd(
    etcd: &crate::etcd::Etcd,
    shared: &Shared,
    request: &Request,
    target: &UrlTarget,
    asked: Asked<'_>,
) -> Outcome {
    let actor = actor_of(&shared.lock(), target, asked.program, asked.name, request);
    let object = match target {
        UrlTarget::Object(key) => client::object_of(key),
        _ => None,
    };
    let served = crate::etcd::serve(etcd, shared, request, &actor, object.as_ref()).await;
    let outcome = served.outcome;
    let mut guard = shared.lock();
    let st = &mut *guard;
    let dry_run = client::query_value(asked.pairs, "dryRun").is_some();
    served_books(st, target, asked.program, dry_run, &outcome);
    let traced = traced_request(request, asked.path_q, asked.content_type);
    let step = step_of(st, shared, asked.name, &traced, &outcome);
    st.trace.push(step);
    if let (false, Some((before, after))) = (dry_run, &served.stores) {
        let before = st.live.before(before, request);
        let rec = asked.recorded(traced, &outcome, shared, None);
        live_step(&mut st.live, shared, before, after, rec, &outcome);
    }
    outcome
}

/// Who sends a request: its name, and as base the newer of what its program last observed of
/// the object and the resourceVersion its body carries (lost updates for real clients).
fn actor_of(
    st: &crate::State,
    target: &UrlTarget,
    program: &str,
    name: &str,
    request: &Request,
) -> Actor {
    let observed = match target {
        UrlTarget::Object(key) => st.observed.get(program, key),
        _ => 0,
    };
    Actor {
        name: name.to_string(),
        base_revision: observed.max(client::body_revision(request.body.as_ref()).unwrap_or(0)),
    }
}

/// The books after a served request: a custom resource that answered is served from now on
/// (discovery), and unless it was a dry run the client observed its answer.
fn served_books(
    st: &mut crate::State,
    target: &UrlTarget,
    program: &str,
    dry_run: bool,
    outcome: &Outcome,
) {
    if let UrlTarget::Object((g, p, _, _)) | UrlTarget::Collection(g, p, _) = target {
        if g.contains('.') && (200..300).contains(&outcome.response.code) {
            st.customs.insert((p.clone(), g.clone()));
        }
    }
    if !dry_run {
        st.observed.record(
            program,
            target,
            outcome.response.code,
            &outcome.response.body,
            outcome.revision,
        );
    }
}

/// Runs one request through the watch cache and the store (the path of every write, the
/// interferer's too), catching a panic as a 500, and wakes the watchers after a write.
fn commit(
    st: &mut crate::State,
    shared: &Shared,
    request: &Request,
    actor: &Actor,
    now: u64,
) -> Outcome {
    let (store, rng, cache) = (&mut st.store, &mut st.rng, &mut st.cache);
    let panic_on = shared.panic_on.as_deref();
    let outcome = guarded(|| {
        if panic_on.is_some_and(|p| request.path.contains(p)) {
            panic!(
                "{}: the store call for {} panics (a test of the 500 safety net)",
                crate::PANIC_ON_VAR,
                request.path
            );
        }
        let mut env = Env { now_ms: now, rng };
        cache.handle(store, request, actor, &mut env)
    });
    if outcome.revision.is_some() {
        crate::stale::wrote(st);
        shared.revision_tx.send_replace(st.store.revision());
    }
    outcome
}

/// `--interfere POLICY`: asks the core's interferer about the request about to be served and
/// commits its write first (`--interfere scenario FILE`: the scripted world's next request,
/// `crate::scripted`), through [`commit`] (so the watch cache, managedFields and lost
/// updates see it), tracing it as a step of `rvlab-interferer` with its `interference`.
#[allow(clippy::too_many_arguments)]
fn interfere(
    st: &mut crate::State,
    shared: &Shared,
    target: &UrlTarget,
    path: &str,
    client_name: &str,
    program: &str,
    request: &Request,
    now: u64,
) {
    if st.scripted.is_some() {
        // `--interfere scenario FILE`: before every store request, reads too.
        return crate::scripted::before(st, shared, client_name, request, now);
    }
    let Some(interferer) = st.interferer.as_mut() else {
        return;
    };
    let UrlTarget::Object(key) = target else {
        return;
    };
    let Some(object) = client::object_of(key) else {
        return;
    };
    let seen = rvlab_instruments::interfere::Seen {
        client: client_name,
        method: request.method,
        content_type: request.content_type.as_deref(),
        body: request.body.as_ref(),
        object: Some(&object),
        status: path.ends_with("/status"),
        current: st.store.get(&object),
        observed: st.observed.get(program, key),
    };
    let Some(injection) = interferer.before(&seen) else {
        return;
    };
    let before = st.live.before(&st.store, &injection.request);
    let outcome = commit(st, shared, &injection.request, &injection.actor, now);
    let index = st.trace.next_index();
    let clock = shared.started.elapsed().as_secs_f64() * 1000.0;
    let mut step = crate::trace::step_json(
        index,
        rvlab_instruments::interfere::INTERFERER,
        clock,
        &injection.request,
        &outcome.response,
        outcome.revision,
        &outcome.lost_updates,
    );
    if let Value::Object(m) = &mut step {
        m.insert("interference".into(), injection.to_json());
    }
    st.trace.push(step);
    let rec = rvlab_instruments::live::LiveRequest {
        program: rvlab_instruments::interfere::INTERFERER.into(),
        name: injection.actor.name.clone(),
        command: None,
        session: None,
        table: false,
        request: injection.request.clone(),
        response: outcome.response.clone(),
        revision: outcome.revision,
        clock_nanos: elapsed_nanos(shared),
        interference: Some(injection.to_json()),
    };
    live_step(&mut st.live, shared, before, &st.store, rec, &outcome);
}

/// The time since the server started, in nanoseconds (a live step's clock).
fn elapsed_nanos(shared: &Shared) -> u64 {
    u64::try_from(shared.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Records a served request in the live history (`store`: the store after it) and publishes
/// its event (under the lock, so viewers see the store's order).
fn live_step(
    live: &mut rvlab_instruments::live::Live,
    shared: &Shared,
    before: rvlab_instruments::live::Before,
    store: &rvlab_core::store::Store,
    rec: rvlab_instruments::live::LiveRequest,
    outcome: &Outcome,
) {
    let event = live.record(before, store, rec, outcome);
    crate::live::publish(shared, event);
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
    let served = shared.lock().served();
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
    method: Method,
    path_q: &str,
    content_type: Option<&str>,
    user_agent: &Option<String>,
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
        user_agent.as_deref(),
    );
    let req = Request {
        method,
        path: path_q.to_string(),
        content_type: content_type.map(str::to_string),
        body: None,
    };
    let resp = Response { code, body: status };
    {
        let mut st = shared.lock();
        let index = st.trace.next_index();
        let clock = shared.started.elapsed().as_secs_f64() * 1000.0;
        st.trace.push(crate::trace::step_json(
            index,
            &name,
            clock,
            &req,
            &resp,
            None,
            &[],
        ));
    }
    json_reply(code, &resp.body)
}
