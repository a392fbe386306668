//! The `--etcd` benchmark (`cargo xtask bench` runs it in release): a one-member etcd
//! (Debian's etcd-server) on loopback, an in-process `rvlab serve --etcd` on it, and the same
//! HTTP client (hyper's, keep-alive) driving
//! - GET of one ConfigMap through the server, against a raw etcd range of its key through
//!   etcd's v3 JSON gateway (what the server itself sends);
//! - contended read-modify-write, 8 clients incrementing one counter: through the server
//!   GET, +1, PUT (on 409 start over), against raw etcd range, +1, and a transaction comparing
//!   the read `mod_revision` (on a failed compare start over): the apiserver's own
//!   compare-and-swap, without the apiserver.
//!
//! Each figure is the median over `--runs` runs; the ratio is raw etcd over the server (the
//! server's overhead). The counts are checked at the end (no increment lost); nothing here
//! asserts a time. The etcd member comes from `rvlab_testkit::etcd`.

use anyhow::{bail, Context, Result};
use rvlab_clients::http::AsyncHttp;
use rvlab_clients::median;
use rvlab_testkit::etcd as cluster;
use serde_json::{json, Value};
use std::time::Instant;

const OBJECT: &str = "/api/v1/namespaces/default/configmaps/counter";
const KEY_B64: &str = "L3JlZ2lzdHJ5L2NvbmZpZ21hcHMvZGVmYXVsdC9jb3VudGVy"; // the counter's registry key
const SETUP: &str = "object configmap/counter:\n    data.count = \"0\"\n";
const GETS: usize = 1000;
const CLIENTS: usize = 8;
const INCREMENTS: usize = 256;

fn b64(s: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn unb64(s: &str) -> Result<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| anyhow::anyhow!("not base64: {e}"))
}

async fn gets_through(url: &str) -> Result<f64> {
    let http = AsyncHttp::new(url);
    let start = Instant::now();
    for _ in 0..GETS {
        let r = http.request("GET", OBJECT, None, None).await?;
        if r.code != 200 {
            bail!("GET answered {}: {}", r.code, r.body);
        }
    }
    Ok(GETS as f64 / start.elapsed().as_secs_f64())
}

async fn gets_raw(url: &str) -> Result<f64> {
    let http = AsyncHttp::new(url);
    let body = json!({ "key": KEY_B64 }).to_string();
    let start = Instant::now();
    for _ in 0..GETS {
        let r = http
            .request(
                "POST",
                "/v3/kv/range",
                Some("application/json"),
                Some(body.clone()),
            )
            .await?;
        if r.code != 200 || !r.body.contains("\"kvs\"") {
            bail!("range answered {}: {}", r.code, r.body);
        }
    }
    Ok(GETS as f64 / start.elapsed().as_secs_f64())
}

async fn increment_through(url: String, n: usize) -> Result<()> {
    let http = AsyncHttp::new(&url);
    for _ in 0..n {
        loop {
            let mut obj = http.request("GET", OBJECT, None, None).await?.json()?;
            let count: u64 = obj["data"]["count"].as_str().unwrap_or("").parse()?;
            obj["data"]["count"] = (count + 1).to_string().into();
            let r = http
                .request(
                    "PUT",
                    OBJECT,
                    Some("application/json"),
                    Some(obj.to_string()),
                )
                .await?;
            match r.code {
                200 => break,
                409 => continue,
                c => bail!("PUT answered {c}: {}", r.body),
            }
        }
    }
    Ok(())
}

async fn increment_raw(url: String, n: usize) -> Result<()> {
    let http = AsyncHttp::new(&url);
    let range = json!({ "key": KEY_B64 }).to_string();
    for _ in 0..n {
        loop {
            let r = http
                .request(
                    "POST",
                    "/v3/kv/range",
                    Some("application/json"),
                    Some(range.clone()),
                )
                .await?
                .json()?;
            let kv = &r["kvs"][0];
            let mut obj: Value =
                serde_json::from_slice(&unb64(kv["value"].as_str().unwrap_or(""))?)?;
            let count: u64 = obj["data"]["count"].as_str().unwrap_or("").parse()?;
            obj["data"]["count"] = (count + 1).to_string().into();
            let txn = json!({
                "compare": [{"key": KEY_B64, "target": "MOD", "result": "EQUAL", "mod_revision": kv["mod_revision"]}],
                "success": [{"request_put": {"key": KEY_B64, "value": b64(&obj.to_string())}}],
            });
            let t = http
                .request(
                    "POST",
                    "/v3/kv/txn",
                    Some("application/json"),
                    Some(txn.to_string()),
                )
                .await?
                .json()?;
            if t["succeeded"] == true {
                break;
            }
        }
    }
    Ok(())
}

async fn contended(url: &str, raw: bool) -> Result<f64> {
    let per = INCREMENTS / CLIENTS;
    let start = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let url = url.to_string();
            if raw {
                tokio::spawn(increment_raw(url, per))
            } else {
                tokio::spawn(increment_through(url, per))
            }
        })
        .collect();
    for t in tasks {
        t.await??;
    }
    Ok((per * CLIENTS) as f64 / start.elapsed().as_secs_f64())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = match args.as_slice() {
        [] => 5,
        [flag, n] if flag == "--runs" => n.parse().context("--runs takes a number")?,
        _ => bail!("usage: rvlab-etcd-bench [--runs N]"),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut rows: Vec<[f64; 4]> = Vec::new();
    for _ in 0..runs.max(1) {
        let etcd = cluster::Cluster::start(1);
        let raw_url = format!("http://127.0.0.1:{}", etcd.members[0].client);
        let server = rvlab_server::spawn(rvlab_server::Options {
            listen: "127.0.0.1:0".into(),
            setup: Some(SETUP.into()),
            etcd: Some(etcd.urls()),
            no_page: true,
            ..rvlab_server::Options::default()
        })?;
        let url = server.url();
        let row = rt.block_on(async {
            let a = gets_through(&url).await?;
            let b = gets_raw(&raw_url).await?;
            let c = contended(&url, false).await?;
            let d = contended(&raw_url, true).await?;
            let obj = AsyncHttp::new(&url)
                .request("GET", OBJECT, None, None)
                .await?
                .json()?;
            let want = (2 * INCREMENTS).to_string();
            if obj["data"]["count"].as_str() != Some(want.as_str()) {
                bail!(
                    "data.count is {}, want {want}: an increment was lost",
                    obj["data"]["count"]
                );
            }
            Ok::<_, anyhow::Error>([a, b, c, d])
        })?;
        server.stop()?;
        rows.push(row);
    }
    let col = |i: usize| median(rows.iter().map(|r| r[i]).collect());
    println!(
        "\nrvlab serve --etcd (one etcd 3.4 member on 127.0.0.1, hyper's client, keep-alive; median of {runs} runs):"
    );
    println!(
        "  {:<34} {:>14} {:>12} {:>8}",
        "workload", "through serve", "raw etcd", "ratio"
    );
    println!(
        "  {:<34} {:>10.0} /s {:>8.0} /s {:>7.1}×",
        "GET one object (range), 1 client",
        col(0),
        col(1),
        col(1) / col(0)
    );
    println!(
        "  {:<34} {:>10.0} /s {:>8.0} /s {:>7.1}×",
        format!("increments, {CLIENTS} clients contending"),
        col(2),
        col(3),
        col(3) / col(2)
    );
    Ok(())
}
