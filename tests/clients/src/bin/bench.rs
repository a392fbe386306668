//! The server benchmark (`cargo xtask bench` runs it in release): requests per second through
//! real HTTP/1.1 on loopback (keep-alive, hyper's client) against an in-process `rvlab serve`
//! loaded with `lesson:stale-update`, for
//! - GET of one ConfigMap, one client, back to back;
//! - PUT, one client (uncontended: each PUT carries the resourceVersion the last one returned);
//! - N concurrent clients (2, 8, 32) each incrementing `data.count` of the same object with
//!   re-read / reapply / retry (GET, +1, PUT; on 409 start over), with the conflict rate
//!   (409s among PUTs) and the per-request latency p50 / p99.
//!
//! Each figure is the median over `--runs` runs (a fresh server each). The count is checked at
//! the end of each contended run (no update lost); nothing here asserts a time. Every loop is
//! bounded in count and time (a run gives up after [`RUN_DEADLINE`]).

use anyhow::{bail, Context, Result};
use rvlab_clients::http::AsyncHttp;
use rvlab_clients::{median, Tally};
use std::time::{Duration, Instant};

const OBJECT: &str = "/api/v1/namespaces/default/configmaps/my-config";
/// Back-to-back GETs per run.
const GETS: usize = 4000;
/// Uncontended PUTs per run.
const PUTS: usize = 2000;
/// Successful increments per contended run, shared out among its clients.
const INCREMENTS: usize = 512;
/// The clients of the contended workloads.
const CONTENDED: [usize; 3] = [2, 8, 32];
/// A run that takes longer than this fails (a bound, not a measurement).
const RUN_DEADLINE: Duration = Duration::from_secs(120);
/// A contended client gives up after this many attempts at one increment.
const MAX_ATTEMPTS: usize = 10_000;

/// One workload's figures in one run.
#[derive(Clone, Debug)]
struct Figures {
    requests: usize,
    per_second: f64,
    conflict_rate: Option<f64>,
    p50_ms: f64,
    p99_ms: f64,
}

/// A request, timed into `t`.
async fn timed(
    t: &mut Tally,
    http: &AsyncHttp,
    method: &str,
    path: &str,
    body: Option<String>,
) -> Result<rvlab_clients::http::Reply> {
    let ct = body.as_ref().map(|_| "application/json");
    let start = Instant::now();
    let reply = http.request(method, path, ct, body).await?;
    t.latencies.push(start.elapsed());
    Ok(reply)
}

fn figures(tallies: Vec<Tally>, wall: Duration, with_conflicts: bool) -> Figures {
    let mut lat: Vec<Duration> = tallies.iter().flat_map(|t| t.latencies.clone()).collect();
    lat.sort_unstable();
    let puts: usize = tallies.iter().map(|t| t.puts).sum();
    let conflicts: usize = tallies.iter().map(|t| t.conflicts).sum();
    let pct = |p: f64| {
        let i = ((lat.len() as f64 - 1.0) * p).round() as usize;
        lat.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    };
    Figures {
        requests: lat.len(),
        per_second: lat.len() as f64 / wall.as_secs_f64(),
        conflict_rate: with_conflicts.then(|| conflicts as f64 / puts.max(1) as f64),
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    }
}

fn start_server() -> Result<rvlab_server::Handle> {
    rvlab_server::spawn(rvlab_server::Options {
        listen: "127.0.0.1:0".into(),
        setup: Some(rvlab_clients::lab::lesson("stale-update")?.to_owned()),
        ..rvlab_server::Options::default()
    })
}

async fn gets(url: &str) -> Result<Figures> {
    let http = AsyncHttp::new(url);
    let mut t = Tally::default();
    let start = Instant::now();
    for _ in 0..GETS {
        let r = timed(&mut t, &http, "GET", OBJECT, None).await?;
        if r.code != 200 {
            bail!("GET answered {}: {}", r.code, r.body);
        }
    }
    Ok(figures(vec![t], start.elapsed(), false))
}

async fn puts(url: &str) -> Result<Figures> {
    let http = AsyncHttp::new(url);
    let mut t = Tally::default();
    let mut obj: serde_json::Value =
        serde_json::from_str(&http.request("GET", OBJECT, None, None).await?.body)?;
    let path = format!("{OBJECT}?fieldManager=bench");
    let start = Instant::now();
    for i in 0..PUTS {
        obj["data"]["key"] = format!("put-{i}").into();
        let r = timed(&mut t, &http, "PUT", &path, Some(obj.to_string())).await?;
        t.puts += 1;
        if r.code != 200 {
            bail!("an uncontended PUT answered {}: {}", r.code, r.body);
        }
        obj = r.json()?;
    }
    Ok(figures(vec![t], start.elapsed(), true))
}

/// One client of the contended workload: `n` increments with re-read / reapply / retry.
async fn incrementer(http: AsyncHttp, name: String, n: usize) -> Result<Tally> {
    let mut t = Tally::default();
    for _ in 0..n {
        t.increment(&http, OBJECT, &name, MAX_ATTEMPTS).await?;
    }
    Ok(t)
}

async fn contended(url: &str, clients: usize) -> Result<Figures> {
    let per_client = INCREMENTS / clients;
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            tokio::spawn(incrementer(
                AsyncHttp::new(url),
                format!("client-{i}"),
                per_client,
            ))
        })
        .collect();
    let mut tallies = Vec::new();
    for task in tasks {
        tallies.push(task.await??);
    }
    let wall = start.elapsed();
    let http = AsyncHttp::new(url);
    let obj = http.request("GET", OBJECT, None, None).await?.json()?;
    let want = (per_client * clients).to_string();
    if obj["data"]["count"].as_str() != Some(want.as_str()) {
        bail!(
            "{clients} clients: data.count is {}, want {want}: an update was lost",
            obj["data"]["count"]
        );
    }
    Ok(figures(tallies, wall, true))
}

/// One run: a fresh server per workload; the figures in [`workloads`] order.
fn one_run(rt: &tokio::runtime::Runtime) -> Result<Vec<Figures>> {
    let mut out = Vec::new();
    let deadline = Instant::now() + RUN_DEADLINE;
    for w in workloads() {
        let server = start_server()?;
        let url = server.url();
        let fig = rt.block_on(async {
            tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), async {
                match w.clients {
                    0 => gets(&url).await,
                    1 => puts(&url).await,
                    n => contended(&url, n).await,
                }
            })
            .await
            .map_err(|_| anyhow::anyhow!("the run took longer than {RUN_DEADLINE:?}"))?
        })?;
        server.stop()?;
        out.push(fig);
    }
    Ok(out)
}

struct Workload {
    name: &'static str,
    /// 0: GET, 1: uncontended PUT, N: N contended clients.
    clients: usize,
}

fn workloads() -> Vec<Workload> {
    let mut w = vec![
        Workload {
            name: "GET",
            clients: 0,
        },
        Workload {
            name: "PUT, uncontended",
            clients: 1,
        },
    ];
    w.extend(CONTENDED.iter().map(|&n| Workload {
        name: "re-read/reapply/retry",
        clients: n,
    }));
    w
}

fn parse_runs() -> Result<usize> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(5),
        [flag, n] if flag == "--runs" => {
            let n: usize = n.parse().context("--runs takes a number")?;
            if n == 0 {
                bail!("--runs must be at least 1");
            }
            Ok(n)
        }
        _ => bail!("usage: rvlab-server-bench [--runs N]"),
    }
}

fn main() -> Result<()> {
    let runs = parse_runs()?;
    // The load generator: two worker threads (the machine has 2 cores; the server has its own
    // two-thread runtime, so both share them).
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut all: Vec<Vec<Figures>> = Vec::new();
    for _ in 0..runs {
        all.push(one_run(&rt)?);
    }
    println!(
        "\nserver (rvlab serve in-process, lesson:stale-update, HTTP/1.1 keep-alive on 127.0.0.1; \
         median of {runs} runs):"
    );
    println!(
        "  {:<22} {:>7} {:>9} {:>10} {:>10} {:>8} {:>8}",
        "workload", "clients", "requests", "req/s", "conflicts", "p50 ms", "p99 ms"
    );
    for (i, w) in workloads().iter().enumerate() {
        let col = |f: fn(&Figures) -> f64| median(all.iter().map(|r| f(&r[i])).collect());
        let conflicts = if all[0][i].conflict_rate.is_some() {
            format!(
                "{:.1}%",
                100.0 * col(|f| f.conflict_rate.unwrap_or(f64::NAN))
            )
        } else {
            "-".into()
        };
        println!(
            "  {:<22} {:>7} {:>9.0} {:>10.0} {:>10} {:>8.3} {:>8.3}",
            w.name,
            w.clients.max(1),
            col(|f| f.requests as f64),
            col(|f| f.per_second),
            conflicts,
            col(|f| f.p50_ms),
            col(|f| f.p99_ms),
        );
    }
    Ok(())
}
