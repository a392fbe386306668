//! `GET <collection>?watch=true`: a chunked stream of one compact JSON event per line, flushed
//! per event (k8s.io/apiserver `pkg/endpoints/handlers/watch.go`), fed by the core's [`WatchCache`].
//!
//! - The first events are `WatchCache::events_since` at the request's `resourceVersion` (unset
//!   or `0`: the state as ADDED; `N`: the changes after N); then the stream waits for writes
//!   and sends what each brought. A `410 Expired` (too old, or a watcher that fell behind the
//!   cache's window) is one ERROR event on the 200 stream, then the end; another error (an
//!   unparseable `resourceVersion`: 500) is the HTTP answer.
//! - `timeoutSeconds` ends the stream after that many seconds; without it the stream lasts
//!   1800 s (the apiserver's `--min-request-timeout`; it picks a random time in [1800 s,
//!   3600 s), this server the lower end, to stay reproducible), or until the client leaves or
//!   the server stops.
//! - `allowWatchBookmarks=true`: a BOOKMARK of the watched kind every
//!   `Limits::bookmark_interval` (the apiserver's is about a minute) and before a timeout end.
//! - The request (selectors, `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`) is
//!   parsed by the core's `watch::parse_watch`, with LIST's 400s for bad selectors.
//! - Each watcher has its own task and channel: a slow reader only ever waits for itself; the
//!   state's lock is never held while sending.
//! - At most `Limits::max_watchers` at once; one more is the apiserver's 429.
//! - `--stale-reads K` (`rvlab_instruments::stale::KeptStates`): the stream lags K writes
//!   behind: the initial state is the old state's and each wake-up delivers the changes up to
//!   the old state's revision; once no write has come for `Limits::stale_catch_up`, the rest
//!   (up to the current revision).

use crate::reply::{reply, HttpResponse};
use crate::Shared;
use bytes::Bytes;
use hyper::body::Frame;
use rvlab_core::store::table::watch_table;
use rvlab_core::watch::{bookmark_json, entry_json, error_json, parse_watch, WatchEntry};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// A watch lasts this long without `timeoutSeconds` (see the module docs).
pub const DEFAULT_WATCH_SECONDS: u64 = 1800;

/// A streaming body: frames from a task (a watcher's, a live viewer's: `live`).
pub(crate) struct Stream(pub(crate) mpsc::Receiver<Bytes>);

impl hyper::body::Body for Stream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
    }
}

/// Whether the query asks for a watch: `watch` present and not `0`, `f`, `false`, `n`, `no`
/// in any case (Go's `runtime.Convert_Slice_string_To_bool`, the first value).
pub fn is_watch(pairs: &[(String, String)]) -> bool {
    pairs
        .iter()
        .find(|(k, _)| k == "watch")
        .is_some_and(|(_, v)| {
            !matches!(
                v.to_ascii_lowercase().as_str(),
                "0" | "f" | "false" | "n" | "no"
            )
        })
}

/// The apiserver's max-in-flight refusal (AS `filters/maxinflight.go`, `tooManyRequests`):
/// Go's `http.Error`, plain text, `Retry-After: 1`.
pub(crate) fn too_many() -> HttpResponse {
    let mut r = reply(
        429,
        "text/plain; charset=utf-8",
        b"Too many requests, please try again later.\n".to_vec(),
    );
    r.headers_mut()
        .insert("Retry-After", hyper::header::HeaderValue::from_static("1"));
    r.headers_mut().insert(
        "X-Content-Type-Options",
        hyper::header::HeaderValue::from_static("nosniff"),
    );
    r
}

/// Releases a watcher slot when the stream ends.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.watchers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Starts a watch, or answers why not. `None`: not a watchable path (the store answers).
pub(crate) fn start(
    shared: &Arc<Shared>,
    path_q: &str,
    program: String,
    table: Option<crate::reply::TableWanted>,
) -> HttpResponse {
    let wr = match parse_watch(path_q) {
        Ok(w) => w,
        Err(resp) => return crate::reply::json_reply(resp.code, &resp.body),
    };
    let res = wr.filter.resource.clone();
    let filter = wr.filter;
    let rv = wr.resource_version;
    let timeout = wr
        .timeout_seconds
        .and_then(|t| u64::try_from(t).ok())
        .filter(|t| *t > 0)
        .unwrap_or(DEFAULT_WATCH_SECONDS);
    let bookmarks = wr.allow_bookmarks;
    if shared.watchers.fetch_add(1, Ordering::SeqCst) >= shared.limits.max_watchers {
        shared.watchers.fetch_sub(1, Ordering::SeqCst);
        return too_many();
    }
    let slot = Slot(shared.clone());
    // The first answer, under the lock (from the lagging state under `--stale-reads`).
    let (first, seen, behind) = {
        let st = shared.lock();
        let current = st.store.revision();
        match st.watch_state() {
            None => (
                st.cache.events_since(&st.store, &filter, rv.as_deref()),
                current,
                false,
            ),
            Some((old, until)) => {
                let asked = rv.as_deref().and_then(|r| r.parse::<u64>().ok());
                let first = st.cache.events_until(&old, &filter, rv.as_deref(), until);
                (first, until.max(asked.unwrap_or(0)), until < current)
            }
        }
    };
    let first = match first {
        Ok(entries) => Ok(entries),
        Err(resp) if resp.code == 410 => Err(error_json(&resp)),
        Err(resp) => return crate::reply::json_reply(resp.code, &resp.body),
    };
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let shared = shared.clone();
    tokio::spawn(async move {
        let _slot = slot;
        let mut w = Watcher {
            tx,
            table,
            first: true,
        };
        let mut seen = seen;
        match first {
            Err(line) => {
                let _ = w.send_line(line).await;
                return;
            }
            Ok(entries) => {
                for e in &entries {
                    shared.lock().observed.record_item(
                        &program,
                        res.group(),
                        res.plural(),
                        None,
                        &e.object,
                    );
                }
                if !w.send_entries(&entries).await {
                    return;
                }
            }
        }
        let mut changes = shared.revision_rx.clone();
        let mut stop = shared.shutdown.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
        let mut next_bookmark = tokio::time::Instant::now() + shared.limits.bookmark_interval;
        let catch_up_after = shared.limits.stale_catch_up;
        let mut catch_up = behind.then(|| tokio::time::Instant::now() + catch_up_after);
        loop {
            let mut fresh = false;
            tokio::select! {
                r = changes.changed() => {
                    if r.is_err() { return; }
                }
                () = tokio::time::sleep_until(catch_up.unwrap_or(deadline)), if catch_up.is_some() => {
                    fresh = true;
                }
                () = tokio::time::sleep_until(deadline) => {
                    if bookmarks {
                        let _ = w.send_line(bookmark_json(&res, seen)).await;
                    }
                    return;
                }
                () = tokio::time::sleep_until(next_bookmark), if bookmarks => {
                    next_bookmark = tokio::time::Instant::now() + shared.limits.bookmark_interval;
                    if !w.send_line(bookmark_json(&res, seen)).await { return; }
                    continue;
                }
                _ = async { let _ = stop.wait_for(|s| *s).await; } => return,
                () = w.tx.closed() => return,
            }
            let (next, now_seen, behind) = {
                let mut st = shared.lock();
                let current = st.store.revision();
                let until = match st.watch_revision() {
                    Some(lagging) if !fresh => lagging.min(current),
                    _ => current,
                };
                let next =
                    st.cache
                        .events_until(&st.store, &filter, Some(&seen.to_string()), until);
                if let Ok(entries) = &next {
                    for e in entries {
                        st.observed.record_item(
                            &program,
                            res.group(),
                            res.plural(),
                            None,
                            &e.object,
                        );
                    }
                }
                (next, until.max(seen), until < current)
            };
            seen = now_seen;
            catch_up = behind.then(|| tokio::time::Instant::now() + catch_up_after);
            match next {
                Ok(entries) => {
                    if !w.send_entries(&entries).await {
                        return;
                    }
                }
                Err(resp) => {
                    let _ = w.send_line(error_json(&resp)).await;
                    return;
                }
            }
        }
    });
    let mut r = hyper::Response::new(http_body_util::BodyExt::boxed(Stream(rx)));
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

struct Watcher {
    tx: mpsc::Sender<Bytes>,
    /// Table events for `kubectl get -w`: one-row Tables, the column definitions in the first.
    table: Option<crate::reply::TableWanted>,
    first: bool,
}

impl Watcher {
    async fn send_line(&mut self, v: serde_json::Value) -> bool {
        let mut text = v.to_string();
        text.push('\n');
        self.tx.send(Bytes::from(text)).await.is_ok()
    }

    async fn send_entries(&mut self, entries: &[WatchEntry]) -> bool {
        for e in entries {
            let line = match &self.table {
                None => entry_json(e),
                Some(t) => {
                    let row = watch_table(
                        &e.object,
                        &t.resource,
                        crate::now_ms(),
                        t.include,
                        self.first,
                    );
                    self.first = false;
                    let mut ev = entry_json(e);
                    ev["object"] = row;
                    ev
                }
            };
            if !self.send_line(line).await {
                return false;
            }
        }
        true
    }
}
