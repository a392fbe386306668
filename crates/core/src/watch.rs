//! The watch cache: what `GET …?watch=true` streams, kept next to the [`Store`] by the server
//! (pure, deterministic, bounded).
//!
//! The server sends every request through [`WatchCache::handle`], which runs [`Store::handle`]
//! and records the change the request made, with the object as a watcher sees it; a watch asks
//! [`WatchCache::events_since`] for what it has not yet seen and writes each entry as one line
//! ([`entry_json`], [`error_json`], [`bookmark_json`]; k8s.io/apiserver `pkg/endpoints/handlers/watch.go`). The server
//! never needs to know paths or objects.
//!
//! The rules are the apiserver's watch cache (AS `pkg/storage/cacher/watch_cache.go`
//! `getAllEventsSinceLocked`, `cache_watcher.go` `convertToWatchEvent`;
//! k8s.io/apiserver `pkg/storage/cacher/watch_cache.go`):
//! - `resourceVersion` unset or `"0"`: the current state first, one synthetic ADDED per object
//!   (each at its own resourceVersion, in the list's etcd key order), then later changes. The
//!   apiserver serves both from the cache (an unset RV is parsed as 0; going to etcd instead is
//!   behind the `WatchFromStorageWithoutResourceVersion` gate, off by default).
//! - `"N"`: only changes after N, no synthetic events.
//! - N older than the window: `410 Expired`, `too old resource version: N (M)`, where M is one
//!   less than the oldest revision the cache can deliver: the revision the cache started at
//!   while nothing has been evicted (the apiserver's `listResourceVersion`), else the revision
//!   of the oldest event kept minus one. The apiserver sends it as an ERROR event on an HTTP 200
//!   stream (`newErrWatcher`), then closes; [`error_json`] builds that line.
//! - N in the future: no error; the apiserver's watcher waits and delivers the changes after N
//!   when they come (`getAllEventsSinceLocked` returns an empty interval; only `sendInitialEvents`
//!   watches wait, up to 3 s). Here that is an empty answer: poll again with the same N.
//! - N unparseable: the raw `storage.InvalidError`, HTTP 500 with no reason, message
//!   `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
//!   (k8s.io/apimachinery `NewResourceExpired`), answered as the HTTP status, not as an event.
//! - Selectors: an object that stops matching is a DELETED (its previous content with the new
//!   resourceVersion), one that starts matching is an ADDED; a DELETED carries the object's last
//!   state with the deletion's resourceVersion (as etcd3 decodes the deleted key).
//!
//! **Bounds.** The apiserver keeps one cyclic buffer per resource, sized dynamically between
//! 100 (`defaultLowerBoundCapacity`) and 102,400 events (`defaultUpperBoundCapacity`), growing
//! while all of it is younger than 75 s (`eventFreshDuration`). Here each resource has a fixed
//! `capacity` (no clock in the decision, so runs are reproducible); [`DEFAULT_CAPACITY`] is 1024
//! events per resource (about 1 KiB each for small objects), and at most [`DEFAULT_MAX_BYTES`]
//! of them (each event's object and previous object, as JSON text): without a byte bound, 1,024
//! writes of a 1 MiB object kept 2 GiB. The oldest events are evicted first (a watcher that
//! needs one gets 410 Expired, as from a compacted etcd); the newest is always kept.
//!
//! **Continuing a watch.** After a call, the next call's resourceVersion is the store's revision
//! at the time of the call ([`Store::revision`]), not the last entry's: revisions of other
//! objects and resources are skipped that way, and no DELETED of an object never seen is sent.
//!
//! Every write must go through [`WatchCache::handle`]; a write made on the store directly is not
//! seen by watchers. Namespaces that exist without a write (the four built-in ones and those
//! implied by an object, `store::namespace`) are in the initial state but never in the history:
//! no write made them.
//!
//! [`parse_watch`] reads a watch request's path (selectors with LIST's parsers and 400 texts,
//! `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`).

use crate::store::list::{field_value, parse_int};
use crate::store::meta::{meta_str, parse_rv, set_meta};
use crate::store::selector::{FieldSelector, Selector};
use crate::store::status::{bad_request, raw_internal, status_body};
use crate::store::{Actor, Env, EventType, Method, Outcome, Request, Resource, Response, Store};
use crate::vecmap::VecMap;
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// Events kept per resource by [`WatchCache::new`]'s callers that have no reason to choose.
pub const DEFAULT_CAPACITY: usize = 1024;
/// Bytes of events (their objects' JSON text) kept per resource at most.
pub const DEFAULT_MAX_BYTES: usize = 16 << 20;

/// One recorded change.
#[derive(Debug, Clone, PartialEq)]
struct CachedEvent {
    kind: EventType,
    /// The object after the change (for DELETED: the last state, with the deletion's RV).
    object: Value,
    /// The object before the change (`None` for a create).
    prev: Option<Value>,
    revision: u64,
    /// The JSON text length of `object` and `prev` (the byte bound's measure).
    bytes: usize,
}

/// One resource's history.
#[derive(Debug, Clone, PartialEq, Default)]
struct History {
    events: VecDeque<CachedEvent>,
    /// The sum of the events' `bytes`.
    bytes: usize,
    /// An event has been evicted (the apiserver's `removedEventSinceRelist`).
    evicted: bool,
}

/// The watch cache: a bounded history of changes per resource. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchCache {
    capacity: usize,
    max_bytes: usize,
    /// The store's revision when the cache first saw it (`listResourceVersion`).
    base: Option<u64>,
    histories: VecMap<Resource, History>,
}

/// What a watcher wants: one resource, optionally one namespace and one name, label and field
/// selectors (matched as LIST matches them: `store::selector`, the kind's selectable fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchFilter {
    pub resource: Resource,
    /// `None`: every namespace (`GET /api/v1/configmaps?watch=true`, and Namespaces).
    pub namespace: Option<String>,
    /// One object by name. `kubectl get -w NAME` sends `fieldSelector=metadata.name=NAME`,
    /// which [`WatchFilter::fields`] holds ([`parse_watch`] leaves this `None`).
    pub name: Option<String>,
    /// `labelSelector`.
    pub labels: Selector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
}

impl WatchFilter {
    /// Every object of `resource` in every namespace.
    pub fn new(resource: Resource) -> WatchFilter {
        WatchFilter {
            resource,
            namespace: None,
            name: None,
            labels: Selector::default(),
            fields: FieldSelector::default(),
        }
    }

    fn matches(&self, obj: &Value) -> bool {
        if let Some(ns) = &self.namespace {
            if meta_str(obj, "namespace") != ns {
                return false;
            }
        }
        if let Some(name) = &self.name {
            if meta_str(obj, "name") != name {
                return false;
            }
        }
        self.labels.matches_object(obj)
            && self.fields.matches(|f| field_value(&self.resource, obj, f))
    }
}

/// A watch request, parsed: what to send and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRequest {
    pub filter: WatchFilter,
    /// `resourceVersion`, as given (for [`WatchCache::events_since`]).
    pub resource_version: Option<String>,
    /// `allowWatchBookmarks`: the client takes BOOKMARK events ([`bookmark_json`]).
    pub allow_bookmarks: bool,
    /// `timeoutSeconds`: the server ends the stream after it (without it, the apiserver picks a time
    /// in [1800 s, 3600 s): k8s.io/apiserver `pkg/endpoints/request/timeout.go`, `GetTimeoutForWatch`).
    pub timeout_seconds: Option<i64>,
}

/// Go's `runtime.Convert_Slice_string_To_bool` for a query flag: absent is false; `0`, `f`,
/// `false`, `n`, `no` (any case) are false; any other value (even empty) is true.
fn query_flag(path: &str, key: &str) -> bool {
    let query = path.split_once('?').map_or("", |(_, q)| q);
    let mut value = None;
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if k == key && value.is_none() {
            value = Some(v.to_ascii_lowercase());
        }
    }
    value.is_some_and(|v| !matches!(v.as_str(), "0" | "f" | "false" | "n" | "no"))
}

/// Whether a GET of `path` is a watch: `watch` true in its query ([`query_flag`]) on a
/// collection's path. On an object's path the apiserver's GET handler ignores `watch` and
/// answers the object (the reference v1.37.2 did: `reference/corpus/watch.json`).
pub fn is_watch(path: &str) -> bool {
    query_flag(path, "watch") && crate::store::path::parse(path).map_or(true, |t| t.name.is_none())
}

/// Parses a watch request's path (`…/configmaps?watch=true&resourceVersion=…`): the resource,
/// namespace and selectors as LIST reads them ([`crate::store::list_filter`]: 404 for a path the
/// store does not serve, 405 for an object's path, 400/422 for bad selectors, unselectable
/// fields, a bad `timeoutSeconds` or bad list options), `resourceVersion`,
/// `allowWatchBookmarks` and `timeoutSeconds`.
pub fn parse_watch(path: &str) -> Result<WatchRequest, Response> {
    let lf = crate::store::list_filter(path)?;
    let t = crate::store::path::parse(path)?;
    let timeout_seconds = match &t.query.timeout_seconds {
        Some(s) => Some(parse_int(s).map_err(|e| bad_request(&e))?),
        None => None,
    };
    Ok(WatchRequest {
        filter: WatchFilter {
            resource: lf.resource,
            namespace: Some(lf.namespace).filter(|ns| !ns.is_empty()),
            name: None,
            labels: lf.labels,
            fields: lf.fields,
        },
        resource_version: t.query.resource_version.clone(),
        allow_bookmarks: query_flag(path, "allowWatchBookmarks"),
        timeout_seconds,
    })
}

/// One event for a watcher.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEntry {
    pub kind: EventType,
    /// The object as the watcher sees it (with `apiVersion` and `kind`).
    pub object: Value,
    /// The event's resourceVersion (the object's `metadata.resourceVersion`).
    pub resource_version: u64,
}

fn type_str(kind: EventType) -> &'static str {
    match kind {
        EventType::Added => "ADDED",
        EventType::Modified => "MODIFIED",
        EventType::Deleted => "DELETED",
    }
}

/// `{"type":"ADDED","object":{…}}`: one line of the stream (add the `\n`).
pub fn entry_json(entry: &WatchEntry) -> Value {
    event_json(type_str(entry.kind), entry.object.clone())
}

/// `{"type":TYPE,"object":OBJECT}` for any object (a Table row, say, for `kubectl get -w`).
pub fn event_json(type_: &str, object: Value) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), type_.into());
    m.insert("object".into(), object);
    Value::Object(m)
}

/// `{"type":"ERROR","object":{Status…}}` for an error answered on the stream (the 410 of
/// [`WatchCache::events_since`]).
pub fn error_json(resp: &Response) -> Value {
    event_json("ERROR", resp.body.clone())
}

/// `{"type":"BOOKMARK","object":{"kind":K,"apiVersion":V,"metadata":{"resourceVersion":RV}}}`,
/// only for a client that sent `allowWatchBookmarks=true`: the watched kind, never `Status`, and only
/// `metadata.resourceVersion` (k8s.io/apiserver `pkg/storage/cacher/cacher.go`, its bookmark event).
pub fn bookmark_json(resource: &Resource, resource_version: u64) -> Value {
    let mut meta = Map::new();
    meta.insert(
        "resourceVersion".into(),
        resource_version.to_string().into(),
    );
    let mut o = Map::new();
    o.insert("kind".into(), resource.kind().into());
    o.insert("apiVersion".into(), resource.api_version().into());
    o.insert("metadata".into(), Value::Object(meta));
    event_json("BOOKMARK", Value::Object(o))
}

/// `NewResourceExpired`: 410 `Expired`.
fn expired(msg: &str) -> Response {
    Response {
        code: 410,
        body: status_body("Failure", 410, "Expired", msg, None),
    }
}

impl Default for WatchCache {
    fn default() -> Self {
        WatchCache::new(DEFAULT_CAPACITY)
    }
}

impl WatchCache {
    /// An empty cache keeping at most `capacity` events per resource (at least 1).
    pub fn new(capacity: usize) -> WatchCache {
        WatchCache {
            capacity: capacity.max(1),
            max_bytes: DEFAULT_MAX_BYTES,
            base: None,
            histories: VecMap::new(),
        }
    }

    /// The same cache keeping at most `max_bytes` of events per resource (the newest event is
    /// kept whatever its size).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> WatchCache {
        self.max_bytes = max_bytes;
        self
    }

    /// Runs `store.handle(req, actor, env)` and records the change it made, if any.
    pub fn handle(
        &mut self,
        store: &mut Store,
        req: &Request,
        actor: &Actor,
        env: &mut Env,
    ) -> Outcome {
        let since = store.revision();
        self.base.get_or_insert(since);
        let writes = req.method != Method::Get;
        let addressed = if writes { store.addressed(req) } else { None };
        let outcome = store.handle(req, actor, env);
        let (Some(rev), Some((resource, prev))) = (outcome.revision, addressed) else {
            return outcome;
        };
        // A write that leaves its object is a change, a DELETE included (finalizers hold it:
        // the apiserver's MODIFIED); one that leaves none deleted it, an update included (the
        // one that removes the last finalizer: DELETED). Seen on the reference v1.37.2
        // (`reference/corpus/watch.json`).
        let stays = req.method == Method::Post || store.holds(req);
        let object = stays.then(|| outcome.response.body.clone());
        self.record_change(since, resource, prev, object, rev);
        outcome
    }

    /// Records a change: a served write's ([`WatchCache::handle`]) or one seen on etcd's watch
    /// (`rvlab serve --etcd`: the server's cache follows etcd, as the apiserver's does): `object`
    /// the object after it (`None`: deleted), `prev`
    /// before it, `revision` the event's; `since` is the revision the cache started from (the
    /// first call's counts).
    pub fn record_change(
        &mut self,
        since: u64,
        resource: Resource,
        prev: Option<Value>,
        object: Option<Value>,
        revision: u64,
    ) {
        self.base.get_or_insert(since);
        let (kind, object) = match object {
            Some(o) if prev.is_some() => (EventType::Modified, o),
            Some(o) => (EventType::Added, o),
            None => {
                let Some(mut last) = prev.clone() else { return };
                set_meta(&mut last, "resourceVersion", revision.to_string().into());
                (EventType::Deleted, last)
            }
        };
        let bytes = crate::json::go_encoded_len(&object)
            + prev.as_ref().map_or(0, crate::json::go_encoded_len);
        self.record(
            resource,
            CachedEvent {
                kind,
                object,
                prev,
                revision,
                bytes,
            },
        );
    }

    fn record(&mut self, resource: Resource, ev: CachedEvent) {
        let (capacity, max_bytes) = (self.capacity, self.max_bytes);
        let h = self
            .histories
            .get_or_insert_with(&resource, History::default);
        h.bytes += ev.bytes;
        h.events.push_back(ev);
        while h.events.len() > capacity || (h.bytes > max_bytes && h.events.len() > 1) {
            let Some(old) = h.events.pop_front() else {
                break;
            };
            h.bytes -= old.bytes;
            h.evicted = true;
        }
    }

    /// The events a watcher with `filter` that has seen everything up to `resource_version`
    /// must get (see the module docs for unset/`"0"`, too old, future and unparseable RVs).
    /// An `Err` with code 410 goes on the stream as [`error_json`] (HTTP 200); any other `Err`
    /// is the HTTP answer.
    pub fn events_since(
        &self,
        store: &Store,
        filter: &WatchFilter,
        resource_version: Option<&str>,
    ) -> Result<Vec<WatchEntry>, Response> {
        self.events_until(store, filter, resource_version, u64::MAX)
    }

    /// [`WatchCache::events_since`] for a watch that lags behind (`--stale-reads K`,
    /// [`crate::stale`]): only the changes at revision `until` or before. `store` is the state
    /// the initial ADDED events (unset or `"0"`) are taken from: the state at `until`.
    pub fn events_until(
        &self,
        store: &Store,
        filter: &WatchFilter,
        resource_version: Option<&str>,
        until: u64,
    ) -> Result<Vec<WatchEntry>, Response> {
        let raw = resource_version.unwrap_or("");
        let rv = parse_rv(raw).map_err(|e| {
            raw_internal(&format!(
                "resourceVersion: Invalid value: {}: {e}",
                Value::String(raw.into())
            ))
        })?;
        if rv == 0 {
            let ns = filter.namespace.as_deref().unwrap_or("");
            return Ok(store
                .watch_state(&filter.resource, ns)
                .into_iter()
                .filter(|obj| filter.matches(obj))
                .map(|obj| WatchEntry {
                    kind: EventType::Added,
                    resource_version: parse_rv(meta_str(&obj, "resourceVersion")).unwrap_or(0),
                    object: obj,
                })
                .collect());
        }
        let base = self.base.unwrap_or_else(|| store.revision());
        let history = self.histories.get(&filter.resource);
        let oldest_minus_one = match history {
            Some(h) if h.evicted => h.events.front().map_or(base, |e| e.revision - 1),
            _ => base,
        };
        if rv < oldest_minus_one {
            return Err(expired(&format!(
                "too old resource version: {rv} ({oldest_minus_one})"
            )));
        }
        let Some(h) = history else {
            return Ok(Vec::new());
        };
        Ok(h.events
            .iter()
            .filter(|e| e.revision > rv && e.revision <= until)
            .filter_map(|e| convert(filter, e))
            .collect())
    }
}

/// `convertToWatchEvent`: ADDED / MODIFIED / DELETED as the watcher's filter sees the change.
fn convert(filter: &WatchFilter, e: &CachedEvent) -> Option<WatchEntry> {
    let cur = e.kind != EventType::Deleted && filter.matches(&e.object);
    let old = e.prev.as_ref().is_some_and(|p| filter.matches(p));
    let (kind, object) = match (cur, old) {
        (true, false) => (EventType::Added, e.object.clone()),
        (true, true) => (EventType::Modified, e.object.clone()),
        (false, true) => {
            let mut last = e.prev.clone().unwrap_or(Value::Null);
            set_meta(&mut last, "resourceVersion", e.revision.to_string().into());
            (EventType::Deleted, last)
        }
        (false, false) => return None,
    };
    Some(WatchEntry {
        kind,
        object,
        resource_version: e.revision,
    })
}
