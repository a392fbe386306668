//! `rvlab serve` at scale (`cargo xtask bench` runs it in release; issue #37): the release
//! binary started as its own process per workload, so that its peak memory is its own (the
//! kernel's `VmHWM`), driven over real HTTP/1.1 on loopback (keep-alive, hyper's client):
//! - for 1, 1,000 and 10,000 ConfigMaps in the store: the time to create them (16 clients),
//!   then GETs of one of them, back to back: p50, p99 and requests per second;
//! - contended read-modify-write of one ConfigMap by 8 and 64 clients (GET, +1, PUT; on 409
//!   start over), with requests per second, the conflict rate and p50 / p99;
//! - the server's peak RSS after each workload.
//!
//! Each figure is the median over `--runs` runs (3 by default; a fresh server each). The count
//! is checked at the end of each contended run (no update lost) and every create and GET must
//! succeed; nothing here asserts a time. Every loop is bounded in count and in time.

use anyhow::{bail, Context, Result};
use rvlab_clients::http::AsyncHttp;
use rvlab_clients::{median, Tally};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
/// The store sizes of the GET workload.
const SIZES: [usize; 3] = [1, 1_000, 10_000];
/// Clients creating the objects.
const CREATORS: usize = 16;
/// Back-to-back GETs per run.
const GETS: usize = 2_000;
/// Successful increments per contended run, shared out among its clients.
const INCREMENTS: usize = 1_024;
/// The clients of the contended workloads.
const CONTENDED: [usize; 2] = [8, 64];
/// A workload that takes longer than this fails (a bound, not a measurement).
const DEADLINE: Duration = Duration::from_secs(600);
/// A contended client gives up after this many attempts at one increment.
const MAX_ATTEMPTS: usize = 100_000;

/// A `rvlab serve` process on a free loopback port.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(binary: &PathBuf) -> Result<Server> {
        let mut child = Command::new(binary)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().context("rvlab serve printed nothing")??;
        let Some(addr) = first.strip_prefix("listening on ") else {
            bail!("rvlab serve printed {first:?}, not its address");
        };
        // Keep reading stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Ok(Server {
            child,
            url: addr.to_string(),
        })
    }

    /// The process's peak resident memory so far, in MB (`VmHWM`).
    fn peak_rss_mb(&self) -> Result<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .context("no VmHWM")?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()?;
        Ok(kb / 1024.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Latencies, sorted on demand.
#[derive(Default)]
struct Latencies(Vec<Duration>);

impl Latencies {
    fn pct(&mut self, p: f64) -> f64 {
        self.0.sort_unstable();
        let i = ((self.0.len() as f64 - 1.0) * p).round() as usize;
        self.0.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    }
}

fn configmap(name: &str) -> String {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "data": {"key": "a value of about forty bytes, as many have"}
    })
    .to_string()
}

/// Creates `n` ConfigMaps with [`CREATORS`] clients; the time taken.
async fn create(url: &str, n: usize) -> Result<Duration> {
    let start = Instant::now();
    let tasks: Vec<_> = (0..CREATORS)
        .map(|c| {
            let http = AsyncHttp::new(url);
            tokio::spawn(async move {
                for i in (c..n).step_by(CREATORS) {
                    let body = configmap(&format!("cm-{i}"));
                    let r = http
                        .request("POST", CONFIGMAPS, Some("application/json"), Some(body))
                        .await?;
                    if r.code != 201 {
                        bail!("create cm-{i} answered {}: {}", r.code, r.body);
                    }
                }
                Ok(())
            })
        })
        .collect();
    for t in tasks {
        t.await??;
    }
    Ok(start.elapsed())
}

/// One GET workload's figures: creates (s), GET p50, p99 (ms), GETs per second, peak RSS (MB).
async fn get_workload(binary: &PathBuf, n: usize) -> Result<[f64; 5]> {
    let server = Server::start(binary)?;
    let created = create(&server.url, n).await?;
    let http = AsyncHttp::new(&server.url);
    let path = format!("{CONFIGMAPS}/cm-{}", n / 2);
    let mut lat = Latencies::default();
    let start = Instant::now();
    for _ in 0..GETS {
        let t = Instant::now();
        let r = http.request("GET", &path, None, None).await?;
        lat.0.push(t.elapsed());
        if r.code != 200 {
            bail!("GET answered {}: {}", r.code, r.body);
        }
    }
    let per_second = GETS as f64 / start.elapsed().as_secs_f64();
    Ok([
        created.as_secs_f64(),
        lat.pct(0.50),
        lat.pct(0.99),
        per_second,
        server.peak_rss_mb()?,
    ])
}

/// One contended client: `n` increments with re-read / reapply / retry.
async fn incrementer(http: AsyncHttp, name: String, n: usize) -> Result<Tally> {
    let mut t = Tally::default();
    for _ in 0..n {
        t.increment(&http, &format!("{CONFIGMAPS}/counter"), &name, MAX_ATTEMPTS)
            .await?;
    }
    Ok(t)
}

/// One contended workload's figures: requests per second, conflict rate (%), p50, p99 (ms),
/// peak RSS (MB).
async fn contended_workload(binary: &PathBuf, clients: usize) -> Result<[f64; 5]> {
    let server = Server::start(binary)?;
    let http = AsyncHttp::new(&server.url);
    let body = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "counter"}, "data": {"count": "0"}
    });
    let r = http
        .request(
            "POST",
            CONFIGMAPS,
            Some("application/json"),
            Some(body.to_string()),
        )
        .await?;
    if r.code != 201 {
        bail!("creating the counter answered {}", r.code);
    }
    let per_client = INCREMENTS / clients;
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            tokio::spawn(incrementer(
                AsyncHttp::new(&server.url),
                format!("client-{i}"),
                per_client,
            ))
        })
        .collect();
    let (mut lat, mut puts, mut conflicts) = (Latencies::default(), 0, 0);
    for t in tasks {
        let t = t.await??;
        lat.0.extend(t.latencies);
        puts += t.puts;
        conflicts += t.conflicts;
    }
    let wall = start.elapsed();
    let obj = http
        .request("GET", &format!("{CONFIGMAPS}/counter"), None, None)
        .await?
        .json()?;
    let want = (per_client * clients).to_string();
    if obj["data"]["count"].as_str() != Some(want.as_str()) {
        bail!(
            "{clients} clients: data.count is {}, want {want}: an update was lost",
            obj["data"]["count"]
        );
    }
    Ok([
        lat.0.len() as f64 / wall.as_secs_f64(),
        100.0 * conflicts as f64 / puts.max(1) as f64,
        lat.pct(0.50),
        lat.pct(0.99),
        server.peak_rss_mb()?,
    ])
}

fn parse_args() -> Result<(usize, PathBuf)> {
    let mut runs = 3;
    let mut binary = PathBuf::from("target/release/rvlab");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                runs = args.next().context("--runs takes a number")?.parse()?;
                if runs == 0 {
                    bail!("--runs must be at least 1");
                }
            }
            "--rvlab" => binary = args.next().context("--rvlab takes a path")?.into(),
            _ => bail!("usage: rvlab-scale-bench [--runs N] [--rvlab PATH]"),
        }
    }
    if !binary.is_file() {
        bail!(
            "no rvlab binary at {}: build it with `cargo build --release -p rvlab-cli`, or pass --rvlab PATH",
            binary.display()
        );
    }
    Ok((runs, binary))
}

/// The median of column `i` of each run's figures.
fn col<const N: usize>(runs: &[[f64; N]], i: usize) -> f64 {
    median(runs.iter().map(|r| r[i]).collect())
}

fn main() -> Result<()> {
    let (runs, binary) = parse_args()?;
    // The load generator: two worker threads (the machine has 2 cores, shared with the server).
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let bounded = |f: std::pin::Pin<Box<dyn std::future::Future<Output = Result<[f64; 5]>>>>| {
        rt.block_on(async {
            tokio::time::timeout(DEADLINE, f)
                .await
                .map_err(|_| anyhow::anyhow!("a workload took longer than {DEADLINE:?}"))?
        })
    };
    let mut gets: Vec<Vec<[f64; 5]>> = vec![Vec::new(); SIZES.len()];
    let mut contended: Vec<Vec<[f64; 5]>> = vec![Vec::new(); CONTENDED.len()];
    for _ in 0..runs {
        for (i, &n) in SIZES.iter().enumerate() {
            gets[i].push(bounded(Box::pin(get_workload(&binary, n)))?);
        }
        for (i, &c) in CONTENDED.iter().enumerate() {
            contended[i].push(bounded(Box::pin(contended_workload(&binary, c)))?);
        }
    }
    println!(
        "\nrvlab serve at scale ({}, its own process, HTTP/1.1 keep-alive on 127.0.0.1; median of {runs} runs):",
        binary.display()
    );
    println!(
        "  {:<10} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "objects", "creates s", "GET p50 ms", "GET p99 ms", "GETs/s", "peak RSS MB"
    );
    for (i, n) in SIZES.iter().enumerate() {
        let g = &gets[i];
        println!(
            "  {:<10} {:>10.2} {:>10.3} {:>10.3} {:>10.0} {:>12.1}",
            n,
            col(g, 0),
            col(g, 1),
            col(g, 2),
            col(g, 3),
            col(g, 4)
        );
    }
    println!(
        "  {:<10} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "clients", "req/s", "conflicts", "p50 ms", "p99 ms", "peak RSS MB"
    );
    for (i, c) in CONTENDED.iter().enumerate() {
        let r = &contended[i];
        println!(
            "  {:<10} {:>10.0} {:>9.1}% {:>10.3} {:>10.3} {:>12.1}",
            c,
            col(r, 0),
            col(r, 1),
            col(r, 2),
            col(r, 3),
            col(r, 4)
        );
    }
    Ok(())
}
