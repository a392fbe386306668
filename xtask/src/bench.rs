//! `cargo xtask bench`: the page's download (raw and gzip'd) against the budget, the
//! explorer's throughput, the API server's (`rvlab-clients`' bench binary: requests/s, conflict
//! rate and latency through real HTTP on loopback), then the browser figures (cold load, step
//! timings) from `rvlab-e2e`'s bench binary.

use crate::util::{cmd, run};
use anyhow::{bail, Context, Result};
use flate2::{write::GzEncoder, Compression};
use std::io::Write;
use std::path::Path;

/// The download budget for wasm + JS + CSS, gzip'd (product.md): 300 kB, aim 150 kB.
pub const BUDGET: u64 = 300_000;
/// The size we aim for.
const AIM: u64 = 150_000;

/// Builds `dist/`, prints the download sizes, then runs the browser bench.
pub fn bench(args: &[String]) -> Result<()> {
    let runs = parse_runs(args)?;
    crate::dist()?;
    let sizes = download_sizes(Path::new("dist"))?;
    print_sizes(&sizes);
    let total_gz: u64 = sizes.iter().map(|s| s.gzip).sum();
    explorer_throughput()?;
    server_throughput(runs)?;
    run(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "--release",
            "-p",
            "rvlab-e2e",
            "--bin",
            "rvlab-browser-bench",
            "--",
            "--runs",
            &runs.to_string(),
        ],
    ))?;
    // Every figure is printed first; then the budget decides the exit code.
    if total_gz > BUDGET {
        bail!(
            "the page's download ({}) is over the budget ({})",
            kb(total_gz),
            kb(BUDGET)
        );
    }
    Ok(())
}

fn parse_runs(args: &[String]) -> Result<u32> {
    match args {
        [] => Ok(15),
        [flag, n] if flag == "--runs" => {
            let n: u32 = n.parse().context("--runs takes a number")?;
            if n == 0 {
                bail!("--runs must be at least 1");
            }
            Ok(n)
        }
        _ => bail!("usage: cargo xtask bench [--runs N]"),
    }
}

/// One kind of download (wasm, js, css): raw and gzip'd (level 9) bytes.
#[derive(Debug, PartialEq)]
pub struct Size {
    /// `wasm`, `js` or `css`.
    pub kind: &'static str,
    /// Bytes as served.
    pub raw: u64,
    /// Bytes after gzip level 9.
    pub gzip: u64,
}

/// Sums the files of the build `dir/index.html` loads (not the earlier builds' files kept next
/// to it), by kind.
pub fn download_sizes(dir: &Path) -> Result<Vec<Size>> {
    download_sizes_of(dir, "index.html")
}

/// [`download_sizes`] of the build `dir/HTML` loads (`kubectl.html`: the page's kubectl build).
pub fn download_sizes_of(dir: &Path, html: &str) -> Result<Vec<Size>> {
    let mut sizes: Vec<Size> = ["wasm", "js", "css"]
        .into_iter()
        .map(|kind| Size {
            kind,
            raw: 0,
            gzip: 0,
        })
        .collect();
    for name in crate::assets::page_build(dir, html)? {
        let path = dir.join(name);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if let Some(size) = sizes.iter_mut().find(|s| s.kind == ext) {
            let bytes = std::fs::read(&path)?;
            size.raw += bytes.len() as u64;
            size.gzip += gzip_len(&bytes)?;
        }
    }
    Ok(sizes)
}

/// The gzip'd size of `bytes` (level 9).
pub fn gzip_len(bytes: &[u8]) -> Result<u64> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::new(9));
    enc.write_all(bytes)?;
    Ok(enc.finish()?.len() as u64)
}

pub fn kb(bytes: u64) -> String {
    format!("{:.1} kB", bytes as f64 / 1000.0)
}

pub fn print_sizes(sizes: &[Size]) {
    println!("\ndownload (dist/, 1 kB = 1000 bytes, gzip level 9):");
    println!("  {:<6} {:>12} {:>12}", "kind", "raw", "gzip");
    for s in sizes {
        println!("  {:<6} {:>12} {:>12}", s.kind, kb(s.raw), kb(s.gzip));
    }
    let raw: u64 = sizes.iter().map(|s| s.raw).sum();
    let gz: u64 = sizes.iter().map(|s| s.gzip).sum();
    println!("  {:<6} {:>12} {:>12}", "total", kb(raw), kb(gz));
    println!(
        "  budget {} (aim {}): {:.0}% of the budget, {:.0}% of the aim",
        kb(BUDGET),
        kb(AIM),
        100.0 * gz as f64 / BUDGET as f64,
        100.0 * gz as f64 / AIM as f64
    );
}

/// `rvlab serve` through real HTTP on loopback (tests/clients/src/bin/bench.rs): GET,
/// uncontended PUT, and 2, 8, 32 clients doing re-read/reapply/retry on one object; medians of
/// `runs` runs, printed as a table. Release profile, as a user's `rvlab serve` runs.
fn server_throughput(runs: u32) -> Result<()> {
    run(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "--release",
            "-p",
            "rvlab-clients",
            "--bin",
            "rvlab-server-bench",
            "--",
            "--runs",
            &runs.to_string(),
        ],
    ))
}

/// The explorer on the benchmark scenarios, natively and in wasm32 under Node (Chromium's V8),
/// same release profile as the page, in the same run: schedules/s and states/s, and the ratio.
fn explorer_throughput() -> Result<()> {
    let (native, wasm) = crate::example_native_and_wasm("explore_bench", true, &[])?;
    println!(
        "\nexplorer throughput (complete explorations, median of 7 runs each; release profile):"
    );
    println!(
        "  {:<12} {:>10} {:>7} {:>10} {:>10} {:>12} {:>12} {:>11} {:>11} {:>7}",
        "scenario",
        "schedules",
        "states",
        "native ms",
        "wasm ms",
        "native sch/s",
        "wasm sch/s",
        "native st/s",
        "wasm st/s",
        "wasm/n"
    );
    for (n, w) in native.lines().zip(wasm.lines()) {
        let nf: Vec<&str> = n.split_whitespace().collect();
        let wf: Vec<&str> = w.split_whitespace().collect();
        match (nf.as_slice(), wf.as_slice()) {
            ([name, sched, states, nms], [_, _, _, wms]) => {
                let states_n: f64 = states.parse().unwrap_or(0.0);
                let sched_n: f64 = sched.parse().unwrap_or(0.0);
                let nms: f64 = nms.parse().unwrap_or(f64::NAN);
                let wms: f64 = wms.parse().unwrap_or(f64::NAN);
                println!(
                    "  {name:<12} {sched:>10} {states:>7} {nms:>10.2} {wms:>10.2} {:>12.0} {:>12.0} {:>11.0} {:>11.0} {:>6.2}x",
                    sched_n / nms * 1000.0,
                    sched_n / wms * 1000.0,
                    states_n / nms * 1000.0,
                    states_n / wms * 1000.0,
                    wms / nms
                );
            }
            _ => bail!("unexpected explorer bench output:\n{n}\n{w}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_shrinks_repetitive_input() {
        let text = vec![b'a'; 10_000];
        let n = gzip_len(&text).unwrap();
        assert!(n > 0 && n < 200, "{n}");
    }

    #[test]
    fn runs_argument() {
        assert_eq!(parse_runs(&[]).unwrap(), 15);
        assert_eq!(parse_runs(&["--runs".into(), "3".into()]).unwrap(), 3);
        assert!(parse_runs(&["--runs".into(), "0".into()]).is_err());
        assert!(parse_runs(&["--fast".into()]).is_err());
    }
}
