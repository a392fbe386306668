//! Connections: the accept loop, the per-connection bounds (hyper's HTTP/1.1 builder: header
//! size and count, the header read timeout), the connection limit, graceful shutdown.

use crate::handler;
use crate::Shared;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long shutdown waits for requests in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Counts a connection while it lives.
struct Slot(Arc<AtomicUsize>, Arc<tokio::sync::Notify>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
        self.1.notify_waiters();
    }
}

pub(crate) async fn run(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    shutdown_tx: tokio::sync::watch::Sender<bool>,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let open = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(tokio::sync::Notify::new());
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut shutdown => break,
        };
        let stream = match accepted {
            Ok((s, _)) => s,
            Err(_) => {
                // Out of file descriptors or a connection reset before accept: back off
                // briefly instead of spinning on the error.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        if open.load(Ordering::SeqCst) >= shared.limits.max_connections {
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        open.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(open.clone(), closed.clone());
        let shared = shared.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut stop = shared.shutdown.clone();
            let svc_shared = shared.clone();
            let svc = service_fn(move |req| handler::handle(req, svc_shared.clone()));
            let limits = &shared.limits;
            let mut b = http1::Builder::new();
            b.timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .max_headers(limits.max_headers)
                .max_header_size(limits.max_header_bytes)
                .max_buf_size(limits.max_header_bytes.max(8192) + 8192);
            let conn = b.serve_connection(TokioIo::new(stream), svc);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn.as_mut()).await;
                }
            }
        });
    }
    drop(listener);
    let _ = shutdown_tx.send(true);
    let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
    while open.load(Ordering::SeqCst) > 0 {
        let notified = closed.notified();
        if open.load(Ordering::SeqCst) == 0 {
            break;
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            break;
        }
    }
    Ok(())
}
