//! `rvlab serve`: an HTTP server on loopback that speaks enough of the Kubernetes REST API for
//! the real kubectl 1.32, the Python client and kube-rs, answered by `rvlab-core`'s store (one
//! serialised, linearizable state). This crate is transport only: the apiserver's rules are
//! the core's (`rvlab_core::store`), the order a request is served in (interference, stale
//! reads, the books, the trace, the live view) is the instruments' request pipeline
//! (`rvlab_instruments::pipeline`), the wire formats of discovery, OpenAPI and protobuf are in
//! [`wire`]. docs/serve.md.
//!
//! - [`serve`] runs a server until a future completes; [`bind`] + [`Server::run`] do the same
//!   in two steps (the address is known before serving: `--listen 127.0.0.1:0`);
//! - [`spawn`] starts one on its own runtime thread and returns a [`Handle`] (tests).
//!
//! Module map:
//! - `http`: the accept loop, the connection limit, per-connection bounds, graceful shutdown;
//!   [`limits`]: every bound, once;
//! - `handler`: one request as HTTP: route, read and decode the body, name the client, call
//!   the instruments' pipeline (`rvlab_instruments::pipeline::Lab`, the state under the lock)
//!   and do the I/O it returns; `reply`: answers as HTTP (JSON, Tables);
//! - `body`: media types and decoding (JSON, YAML, protobuf), the HTTP layer's Status bodies;
//! - `client`: what a URL addresses and its query's pairs (names and observed revisions are
//!   the instruments');
//! - `watch`: watch streams; `live`: the live view's event stream and Save as scenario;
//!   [`page`]: the page at `/`; `trace`: `--trace FILE`'s writer thread;
//! - `etcd`: `--etcd`, etcd's v3 JSON gateway and the apiserver's GuaranteedUpdate;
//! - `kubeconfig`: the kubeconfig written for clients; [`wire`]: discovery, OpenAPI, protobuf.

mod body;
mod client;
mod etcd;
mod handler;
mod http;
mod kubeconfig;
pub mod limits;
mod live;
pub mod page;
mod reply;
mod trace;
mod watch;
pub mod wire;

pub use limits::Limits;

use rvlab_core::rng::Rng;
use rvlab_core::store::{Store, EPOCH_UNIX_SECONDS};
use rvlab_instruments::pipeline::{Clock, Io, Lab};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What a server is started with. Build it with `Options { listen: …, ..Options::default() }`
/// so new fields do not break callers.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to listen on, `HOST:PORT` (`127.0.0.1:0` picks a free port).
    pub listen: String,
    /// A scenario's text: its `object` setup is loaded into the store (its clients are not
    /// run). `None`: the store starts empty, or with the interference scenario's setup
    /// (`--interfere scenario FILE`; both given: see [`bind`]).
    pub setup: Option<String>,
    /// Write a kubeconfig for this server here.
    pub kubeconfig: Option<PathBuf>,
    /// Write the trace here, as JSON Lines (one step per line, as requests are answered).
    pub trace: Option<PathBuf>,
    /// The bounds (docs/serve.md); the default is the documented figures.
    pub limits: Limits,
    /// An interferer (`--interfere POLICY`, issue #15; `rvlab_instruments::interfere`): `None`, none.
    pub interfere: Option<rvlab_instruments::interfere::InterferenceSettings>,
    /// The page to serve at `/` (`--page DIR`); `None`: `dist/` if there is one ([`page::find`]).
    pub page: Option<PathBuf>,
    /// Serve no page at all (`rvlab test`: nobody watches).
    pub no_page: bool,
    /// Stale reads (`--stale-reads K`, issue #15; `rvlab_instruments::stale`): `None`, off.
    pub stale: Option<rvlab_instruments::stale::StaleReadSettings>,
    /// `--etcd URL[,URL…]` (issue #17): keep the objects in this etcd cluster (its client URLs)
    /// instead of the in-memory model; `None`, the model.
    pub etcd: Option<String>,
    /// A clock for tests (no command-line flag): when set, each request is stamped with its
    /// value, milliseconds since the store's epoch, instead of the wall clock (the replay of
    /// the reference's goldens serves each request at the second the reference did).
    pub clock: Option<Arc<std::sync::atomic::AtomicU64>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            listen: DEFAULT_LISTEN.into(),
            setup: None,
            kubeconfig: None,
            trace: None,
            limits: Limits::default(),
            interfere: None,
            page: None,
            no_page: false,
            stale: None,
            etcd: None,
            clock: None,
        }
    }
}

/// Writes a kubeconfig for a server at `addr` to `path` (plain http, an empty user, namespace
/// `default`; a wildcard address is written as loopback).
pub fn write_kubeconfig(path: &std::path::Path, addr: SocketAddr) -> anyhow::Result<()> {
    kubeconfig::write(path, addr)
}

/// `rvlab serve`'s default address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8001";

/// What discovery and OpenAPI describe: the built-in resources and the custom ones.
pub(crate) fn served(lab: &Lab) -> Vec<wire::Served> {
    let mut v = wire::builtins();
    for (plural, group) in &lab.customs {
        let res = rvlab_core::store::Resource::Custom {
            plural: plural.clone(),
            group: group.clone(),
        };
        v.push(wire::Served::custom(plural, group, &res.kind()));
    }
    v
}

/// What every connection shares.
pub(crate) struct Shared {
    /// The one serialised state (the instruments' pipeline): every request takes the lock
    /// once, for the whole store operation, so requests are linearizable in lock order.
    state: Mutex<Lab>,
    /// `--trace FILE`'s writer (`trace`).
    pub trace_file: Option<trace::TraceFile>,
    pub limits: Limits,
    pub started: Instant,
    /// Open watches (bounded by `Limits::max_watchers`).
    pub watchers: std::sync::atomic::AtomicUsize,
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The store's revision after each write: watchers wait on it.
    pub revision_tx: tokio::sync::watch::Sender<u64>,
    pub revision_rx: tokio::sync::watch::Receiver<u64>,
    /// Each live step's event, for the live viewers (`live`).
    pub live_tx: tokio::sync::broadcast::Sender<Arc<str>>,
    /// Open live streams (bounded by `Limits::max_live_viewers`).
    pub live_viewers: std::sync::atomic::AtomicUsize,
    /// The page served at `/` (`page`).
    pub page: Option<PathBuf>,
    /// `--etcd`: the cluster the objects live in (`etcd`); `None`, the model's store.
    pub(crate) etcd: Option<etcd::Etcd>,
    /// [`Options::clock`].
    clock: Option<Arc<std::sync::atomic::AtomicU64>>,
}

/// The environment variable that makes `rvlab serve` panic in the store call of a request
/// whose path contains its value (a fault for tests: the panic must become a 500 `InternalError`
/// and the server must go on serving, in the release binary too; docs/serve.md). Read into
/// the pipeline's `Lab::panic_on`.
pub use rvlab_instruments::pipeline::PANIC_ON_VAR;

impl Shared {
    /// The state, even after a panic under the lock (the store is a value; a panic in
    /// `Store::handle` is caught before it could leave the lock poisoned: the pipeline's
    /// `guarded`).
    pub fn lock(&self) -> MutexGuard<'_, Lab> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A request's time: the wall clock and the time since the server started.
    pub fn clock(&self) -> Clock {
        Clock {
            now_ms: match &self.clock {
                Some(c) => c.load(std::sync::atomic::Ordering::SeqCst),
                None => now_ms(),
            },
            elapsed: self.started.elapsed(),
        }
    }

    /// Does the I/O a served request asks for (call under the lock, with the state `lab`, so
    /// the trace file's lines and the live events go out in the store's order): the trace
    /// lines to `--trace FILE`, the live events to the viewers, the store's revision to the
    /// watchers if it moved.
    pub fn publish(&self, lab: &Lab, io: Io) {
        if let Some(file) = &self.trace_file {
            for line in io.trace_lines {
                file.append(line);
            }
        }
        for event in io.live_events {
            live::publish(self, event);
        }
        if io.revision_moved {
            self.revision_tx.send_replace(lab.store.revision());
        }
    }
}

/// Wall-clock milliseconds since the store's epoch (`EPOCH_UNIX_SECONDS`), so timestamps and
/// kubectl's AGE are real.
pub(crate) fn now_ms() -> u64 {
    let unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let epoch_ms = (EPOCH_UNIX_SECONDS as u128) * 1000;
    u64::try_from(unix_ms.saturating_sub(epoch_ms)).unwrap_or(u64::MAX)
}

/// The store and generator a scenario's setup builds (its `object` lines, created as
/// `rvlab run` creates them, stamped now).
fn initial_state(setup: Option<&str>) -> anyhow::Result<(Store, Rng)> {
    let (mut store, rng) = setup_state(setup)?;
    // NamespaceLifecycle: a create in a namespace that does not exist is its 404, as on a real
    // cluster (the scenario's own namespaces exist).
    store.set_strict_namespaces(true);
    Ok((store, rng))
}

fn setup_state(setup: Option<&str>) -> anyhow::Result<(Store, Rng)> {
    let Some(text) = setup else {
        return Ok((Store::new(), Rng::new(0)));
    };
    let parsed = rvlab_core::lang::parse(text);
    if parsed.has_errors() {
        let lines: Vec<String> = parsed
            .diagnostics
            .iter()
            .map(|d| d.render("<setup>", text))
            .collect();
        anyhow::bail!("the scenario has errors:\n{}", lines.join("\n"));
    }
    let Some(scenario) = parsed.scenario else {
        anyhow::bail!("the scenario has errors");
    };
    let world = rvlab_core::engine::World::new_at(&scenario, 0, now_ms())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((world.store, world.rng))
}

/// A bound, not yet serving, server.
pub struct Server {
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    shutdown_tx: tokio::sync::watch::Sender<bool>,
    kubeconfig: Option<PathBuf>,
}

/// The scripted world of `--interfere scenario FILE` and the store and generator its setup
/// built, which are the server's. The setup is given once: a server setup (`setup`) that sets
/// up objects too must be the same text, else it is an error.
fn scripted_state(
    settings: &rvlab_instruments::interfere::InterferenceSettings,
    setup: Option<&str>,
) -> anyhow::Result<(rvlab_instruments::scripted::Scripted, Store, Rng)> {
    let mut world = rvlab_instruments::scripted::Scripted::new(settings, now_ms())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let (Some(text), Some(file)) = (setup, settings.scenario.as_ref()) {
        let objects =
            rvlab_instruments::scripted::has_setup(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        if objects && text != file.text {
            anyhow::bail!(
                "two setups: the setup scenario and the interference scenario {} both create objects; give them once (without a setup FILE the interference scenario's objects are loaded; or give the same file for both)",
                file.name
            );
        }
    }
    let mut store = world.take_store();
    store.set_strict_namespaces(true);
    let rng = world.world().rng.clone();
    Ok((world, store, rng))
}

/// Binds the address, loads the scenario, writes the kubeconfig. Must run inside a tokio
/// runtime.
///
/// With `--interfere scenario FILE` ([`rvlab_instruments::interfere::Policy::Scenario`]) the store
/// starts with FILE's setup; a [`Options::setup`] that creates objects too must be the same
/// text (an empty one, or none, is fine), else `bind` fails with a message saying so.
pub async fn bind(options: Options) -> anyhow::Result<Server> {
    let scenario_policy = options
        .interfere
        .as_ref()
        .filter(|s| s.policy == rvlab_instruments::interfere::Policy::Scenario);
    let (scripted, store, rng) = match scenario_policy {
        Some(settings) => {
            let (w, store, rng) = scripted_state(settings, options.setup.as_deref())?;
            (Some(w), store, rng)
        }
        None => {
            let (store, rng) = initial_state(options.setup.as_deref())?;
            (None, store, rng)
        }
    };
    // On etcd, replicas share one registry: each draws its own uids (a generator seeded by the
    // clock and the process), or two replicas would give their creates the same uids.
    let rng = match options.etcd {
        None => rng,
        Some(_) => {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            Rng::new(nanos ^ (u64::from(std::process::id()) << 32))
        }
    };
    let setup_customs = rvlab_instruments::pipeline::customs_of(&store);
    let interferer = match options.interfere.clone() {
        None => None,
        Some(s) if s.policy == rvlab_instruments::interfere::Policy::Scenario => None,
        Some(settings) => Some(
            rvlab_instruments::interfere::Interferer::new(settings)
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        ),
    };
    let stale = match options.stale.clone() {
        None => None,
        Some(settings) => Some(
            rvlab_instruments::stale::KeptStates::new(settings, &store)
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        ),
    };
    let etcd = match options.etcd.as_deref() {
        None => None,
        Some(urls) => {
            if options.interfere.is_some() || options.stale.is_some() {
                anyhow::bail!(
                    "--etcd cannot be combined with --interfere or --stale-reads (they work on the model's store)"
                );
            }
            let etcd = etcd::Etcd::new(urls)?;
            etcd.probe().await?;
            etcd.load_setup(&store).await?;
            Some(etcd)
        }
    };
    // On etcd, the state's store is the watch cache's mirror of etcd (`etcd::follow`), read
    // whole now; requests are served from etcd reads.
    let store = match &etcd {
        None => store,
        Some(etcd) => etcd
            .read_for(None, Instant::now() + etcd::REQUEST_DEADLINE)
            .await
            .map_err(|e| anyhow::anyhow!("--etcd: cannot read the registry: {}", e.0))?,
    };
    let trace_file = match options.trace.as_deref() {
        None => None,
        Some(path) => Some(trace::TraceFile::create(path)?),
    };
    let listener = tokio::net::TcpListener::bind(&options.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", options.listen))?;
    let addr = listener.local_addr()?;
    if let Some(path) = &options.kubeconfig {
        kubeconfig::write(path, addr)?;
    }
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    let (revision_tx, revision_rx) = tokio::sync::watch::channel(store.revision());
    let page = if options.no_page {
        None
    } else {
        page::find(options.page.as_deref())
    };
    if let Some(dir) = &page {
        if !dir.join(page::LIVE_PAGE).is_file() {
            anyhow::bail!(
                "--page {}: there is no {} in it (build the page with `cargo xtask dist`)",
                dir.display(),
                page::LIVE_PAGE
            );
        }
    }
    // Names this server instance for the live view (a page that sees another starts over).
    let instance = format!("{}-{}", now_ms(), std::process::id());
    let mut lab = Lab::new(store, rng, &instance, options.limits.trace_memory_bytes);
    lab.customs.extend(setup_customs);
    lab.interferer = interferer;
    lab.stale = stale;
    lab.scripted = scripted;
    lab.panic_on = std::env::var(PANIC_ON_VAR).ok().filter(|v| !v.is_empty());
    if etcd.is_some() {
        lab.live.shared_with_other_servers();
    }
    let shared = Arc::new(Shared {
        state: Mutex::new(lab),
        trace_file,
        limits: options.limits,
        started: Instant::now(),
        watchers: Default::default(),
        shutdown: shutdown_rx,
        revision_tx,
        revision_rx,
        live_tx: live::channel(),
        live_viewers: Default::default(),
        page,
        etcd,
        clock: options.clock,
    });
    if shared.etcd.is_some() {
        let from = shared.lock().store.revision() + 1;
        tokio::spawn(etcd::follow(shared.clone(), from));
    }
    Ok(Server {
        listener,
        shared,
        shutdown_tx,
        kubeconfig: options.kubeconfig,
    })
}

impl Server {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// `http://HOST:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.local_addr())
    }

    /// The kubeconfig it wrote, if any.
    pub fn kubeconfig(&self) -> Option<&std::path::Path> {
        self.kubeconfig.as_deref()
    }

    /// The page directory it serves at `/`, if any.
    pub fn page(&self) -> Option<&std::path::Path> {
        self.shared.page.as_deref()
    }

    /// Serves until `shutdown` completes, then stops accepting, ends watches, lets requests in
    /// flight finish (at most 5 s) and returns.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
        http::run(self.listener, self.shared, self.shutdown_tx, shutdown).await
    }
}

/// Binds and serves until `shutdown` completes.
pub async fn serve(options: Options, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    bind(options).await?.run(shutdown).await
}

/// A server running on its own runtime thread (two worker threads).
pub struct Handle {
    addr: SocketAddr,
    kubeconfig: Option<PathBuf>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
    /// Kept to read the trace after the server stopped ([`Handle::finish`]).
    shared: Arc<Shared>,
}

/// Starts a server on its own thread; returns once it listens.
pub fn spawn(options: Options) -> anyhow::Result<Handle> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("rvlab-serve")
        .enable_all()
        .build()?;
    let server = rt.block_on(bind(options))?;
    let addr = server.local_addr();
    let kubeconfig = server.kubeconfig.clone();
    let shared = server.shared.clone();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("rvlab-serve-main".into())
        .spawn(move || {
            let r = rt.block_on(server.run(async {
                let _ = rx.await;
            }));
            rt.shutdown_timeout(std::time::Duration::from_secs(1));
            r
        })?;
    Ok(Handle {
        addr,
        kubeconfig,
        stop: Some(tx),
        thread: Some(thread),
        shared,
    })
}

impl Handle {
    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The kubeconfig it wrote, if [`Options::kubeconfig`] was set.
    pub fn kubeconfig(&self) -> Option<&std::path::Path> {
        self.kubeconfig.as_deref()
    }

    /// Stops the server and waits for it.
    pub fn stop(mut self) -> anyhow::Result<()> {
        self.stop_inner()
    }

    /// Stops the server, waits for it (requests in flight are answered first), and returns the
    /// trace document `GET /rvlab/v1/trace` would have answered last:
    /// `{"version": 1, "steps": [...], "dropped": N}` (`rvlab test`'s report reads it).
    pub fn finish(mut self) -> anyhow::Result<serde_json::Value> {
        self.stop_inner()?;
        Ok(self.shared.lock().trace.document())
    }

    fn stop_inner(&mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the server thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let _ = self.stop_inner();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_under_the_lock_leaves_the_state_usable() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let server = rt
            .block_on(bind(Options {
                listen: "127.0.0.1:0".into(),
                ..Options::default()
            }))
            .unwrap();
        let shared = server.shared.clone();
        let other = shared.clone();
        let panicked = std::thread::spawn(move || {
            let _guard = other.lock();
            panic!("a bug under the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.state.is_poisoned());
        // The next request still gets the state.
        let st = shared.lock();
        assert_eq!(st.store.revision(), 0);
    }
}
