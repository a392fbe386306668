//! Start-up of everything a journey needs, once per test binary: a fresh `dist/`, the static
//! server, chromedriver and one headless Chromium session shared (behind a mutex) by the
//! journeys of the binary.
//!
//! The server is [`rvlab_static`], with the cache headers a host should use (hashed files
//! immutable, `index.html` revalidated). One browser profile serves all the journeys of a
//! binary, so [`crate::page::journey`] empties the browser's HTTP cache before each journey:
//! every journey's first load is cold, and loads within a journey use the cache as a
//! returning visitor's browser would.

use crate::webdriver::Session;
use anyhow::{bail, Context, Result};
use rvlab_static::Server;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// Debian's Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Debian's chromedriver (same version as [`CHROMIUM`]).
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The workspace root.
pub fn project_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

/// The newest modification time under `path` (a file or a directory tree).
fn newest(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .flatten()
        .filter_map(|e| newest(&e.path()))
        .max()
}

/// The sources `dist/` is built from.
const SOURCES: &[&str] = &[
    "crates/web/src",
    "crates/web/Cargo.toml",
    "crates/core/src",
    "crates/core/Cargo.toml",
    "www",
    "index.html",
    "kubectl.html",
    "Trunk.toml",
    "Cargo.lock",
    // The release hook runs `cargo xtask short-names` on the build.
    "xtask/src",
];

/// Runs the `rvlab` command line (`cargo run -p rvlab-cli`, built if needed) with `args` in the
/// workspace root, as a teacher types it; fails unless it exits with 0. Returns its stdout.
pub fn rvlab(args: &[&str]) -> Result<String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "-q", "-p", "rvlab-cli", "--bin", "rvlab", "--"])
        .args(args)
        .current_dir(project_root())
        .output()
        .context("cannot run `cargo run -p rvlab-cli`")?;
    if !out.status.success() {
        bail!(
            "`rvlab {}` failed ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A new empty folder under `target/e2e-work/` for a journey's files (`tag` names it).
pub fn work_dir(tag: &str) -> Result<PathBuf> {
    let dir = project_root()
        .join("target/e2e-work")
        .join(format!("{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// Builds `dist/` with `cargo xtask dist` when it is missing or older than its sources.
pub fn ensure_dist() -> Result<PathBuf> {
    let root = project_root();
    let dist = root.join("dist");
    let built = newest(&dist.join("index.html"));
    let sources = SOURCES.iter().filter_map(|s| newest(&root.join(s))).max();
    let stale = match (built, sources) {
        (Some(b), Some(s)) => b < s,
        _ => true,
    };
    if stale {
        eprintln!("e2e: dist/ is missing or stale, running `cargo xtask dist`");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["xtask", "dist"])
            .current_dir(&root)
            .status()
            .context("cannot run `cargo xtask dist`")?;
        if !status.success() {
            bail!("`cargo xtask dist` failed ({status})");
        }
    }
    Ok(dist)
}

fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// A running chromedriver. It runs in its own process group under a small shell that kills the
/// whole group (driver and browsers) when this process's end of its stdin closes, which happens
/// however this process exits.
pub struct Driver {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    _guard: Child,
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it is ready.
    pub fn start(log: &Path) -> Result<Driver> {
        if !Path::new(CHROMEDRIVER).exists() || !Path::new(CHROMIUM).exists() {
            bail!("{CHROMEDRIVER} or {CHROMIUM} is missing: run `cargo xtask install`");
        }
        let port = free_port()?;
        let script = r#"exec 3<&0
"$1" --port="$2" --log-path="$3" </dev/null >/dev/null 2>&1 &
read -r _ <&3
kill -TERM -$$"#;
        let child = Command::new("setsid")
            .args(["sh", "-c", script, "sh", CHROMEDRIVER, &port.to_string()])
            .arg(log)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .context("cannot start chromedriver (via setsid sh)")?;
        let url = format!("http://127.0.0.1:{port}");
        let start = Instant::now();
        loop {
            if let Ok(r) = crate::http::request(
                "GET",
                &format!("{url}/status"),
                None,
                Duration::from_secs(2),
            ) {
                if r.status == 200 {
                    break;
                }
            }
            if start.elapsed() > Duration::from_secs(20) {
                bail!(
                    "chromedriver did not become ready on port {port} (log: {})",
                    log.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Driver { url, _guard: child })
    }

    /// Stops the driver and its browsers now (otherwise that happens at process exit).
    pub fn stop(&mut self) {
        if let Some(mut stdin) = self._guard.stdin.take() {
            let _ = stdin.write_all(b"\n");
        }
        let _ = self._guard.wait();
    }
}

/// Chromium's flags: headless, and quiet on a closed network.
pub fn chromium_args(profile: &Path, width: u32, height: u32) -> Vec<String> {
    let mut args: Vec<String> = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--window-size={width},{height}"));
    args.push(format!("--user-data-dir={}", profile.display()));
    args
}

/// A fresh profile directory under `target/e2e-profile/`, removing those of dead processes.
pub fn fresh_profile(tag: &str) -> Result<PathBuf> {
    let base = project_root().join("target/e2e-profile");
    if let Ok(entries) = std::fs::read_dir(&base) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.rsplit('-').next().unwrap_or("");
            if !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let dir = base.join(format!("{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Everything a journey drives: the page's URL, the server and a browser session.
pub struct Browser {
    /// The served `dist/`, e.g. `http://127.0.0.1:PORT` (no trailing slash).
    pub url: String,
    /// The static server of `dist/` (its request log, the roots it serves).
    pub server: Server,
    /// The release build the server serves by default (the project's `dist/`).
    pub dist: PathBuf,
    /// The WebDriver session.
    pub session: Session,
    /// The driver process (kept alive with the browser).
    pub driver: Driver,
}

impl Browser {
    /// Builds/serves `dist/` and starts a driver and a fresh headless Chromium.
    pub fn start(tag: &str) -> Result<Browser> {
        let dist = ensure_dist()?;
        let server = rvlab_static::serve(vec![dist.clone()])?;
        let url = server.url();
        let target = project_root().join("target");
        std::fs::create_dir_all(&target)?;
        let driver = Driver::start(&target.join(format!("chromedriver-{tag}.log")))?;
        let profile = fresh_profile(tag)?;
        let session = Session::new(&driver.url, CHROMIUM, &chromium_args(&profile, 1280, 900))?;
        Ok(Browser {
            url,
            server,
            dist,
            session,
            driver,
        })
    }

    /// Puts the browser and the server back to a journey's starting point: the server serves
    /// `dist/` alone with an empty log, and the browser's HTTP cache is empty.
    pub fn reset(&self) -> Result<()> {
        self.server.set_roots(vec![self.dist.clone()]);
        self.session.clear_http_cache()?;
        self.server.clear_log();
        Ok(())
    }
}

static SHARED: OnceLock<Result<Mutex<Browser>, String>> = OnceLock::new();

/// The browser shared by the journeys of this test binary (started on first use). Journeys
/// take turns: the guard serialises them, and each journey starts by reloading the page.
pub fn shared_browser() -> MutexGuard<'static, Browser> {
    let shared = SHARED.get_or_init(|| {
        Browser::start("journeys")
            .map(Mutex::new)
            .map_err(|e| format!("{e:#}"))
    });
    match shared {
        Ok(m) => m.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
        Err(e) => panic!("the browser could not start: {e}"),
    }
}
