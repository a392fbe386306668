//! The live view's stream (issue #15, docs/serve.md "The live view"): `GET /rvlab/v1/live`,
//! server-sent events of the core's `live::Live` history, and `GET /rvlab/v1/scenario`, that
//! history as a scenario text ("Save as scenario").
//!
//! - Every connection gets `event: hello` then `event: step` for every kept step (taken under
//!   the state's lock together with the subscription, so no step is missed or sent twice),
//!   then each new step as the store serves it: the handler broadcasts the event under the
//!   lock, right after the request ([`publish`]).
//! - A page reconnects by itself (EventSource); it starts over on the hello it gets then.
//! - At most `Limits::max_live_viewers` streams; one more is the apiserver's 429. A viewer
//!   that falls more than [`BUFFER`] events behind is disconnected (it reconnects and gets the
//!   history again); a viewer that leaves costs nothing (its receiver is dropped with it).
//! - A comment line every [`KEEPALIVE`] keeps proxies from closing an idle stream.

use crate::reply::{reply, HttpResponse};
use crate::Shared;
use bytes::Bytes;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// Events a viewer may fall behind before it is disconnected.
pub const BUFFER: usize = 1024;
/// A keep-alive comment this often on an idle stream.
pub const KEEPALIVE: Duration = Duration::from_secs(15);

/// The channel every step is published on.
pub(crate) fn channel() -> broadcast::Sender<Arc<str>> {
    broadcast::channel(BUFFER).0
}

/// Publishes a step's event to the viewers (call under the state's lock, so events go out in
/// the store's order). Never blocks.
pub(crate) fn publish(shared: &Shared, event: String) {
    let _ = shared.live_tx.send(Arc::from(event));
}

fn frame(kind: &str, data: &str) -> Bytes {
    // A JSON text has no raw newline, so one `data:` line carries it.
    Bytes::from(format!("event: {kind}\ndata: {data}\n\n"))
}

/// Releases a viewer slot when the stream ends.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.live_viewers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `GET /rvlab/v1/live`.
pub(crate) fn stream(shared: &Arc<Shared>) -> HttpResponse {
    if shared.live_viewers.fetch_add(1, Ordering::SeqCst) >= shared.limits.max_live_viewers {
        shared.live_viewers.fetch_sub(1, Ordering::SeqCst);
        return crate::watch::too_many();
    }
    let slot = Slot(shared.clone());
    let (first, mut rx) = {
        let st = shared.lock();
        let mut first = vec![frame("hello", &st.live.hello())];
        first.extend(st.live.events().map(|e| frame("step", e)));
        (first, shared.live_tx.subscribe())
    };
    let (tx, out) = mpsc::channel::<Bytes>(16);
    let mut stop = shared.shutdown.clone();
    tokio::spawn(async move {
        let _slot = slot;
        for f in first {
            if tx.send(f).await.is_err() {
                return;
            }
        }
        loop {
            let next = tokio::select! {
                r = rx.recv() => r,
                () = tokio::time::sleep(KEEPALIVE) => {
                    if tx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                        return;
                    }
                    continue;
                }
                _ = async { let _ = stop.wait_for(|s| *s).await; } => return,
                () = tx.closed() => return,
            };
            match next {
                Ok(event) => {
                    if tx.send(frame("step", &event)).await.is_err() {
                        return;
                    }
                }
                // Fell behind, or the server is going away: end the stream (a page
                // reconnects and gets the history again).
                Err(_) => return,
            }
        }
    });
    let mut r = hyper::Response::new(http_body_util::BodyExt::boxed(crate::watch::Stream(out)));
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    r
}

/// `GET /rvlab/v1/scenario`: the kept history as a scenario text ("Save as scenario").
pub(crate) fn scenario(shared: &Shared) -> HttpResponse {
    let text = shared.lock().live.scenario();
    reply(200, "text/plain; charset=utf-8", text.into_bytes())
}
