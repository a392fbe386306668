//! `cargo xtask bench`: the page's download (raw, gzip -9 and as shipped: the precompressed
//! `.gz` files of `dist/`) against the budget (counting the shipped figure), the
//! explorer's throughput, the API server's (`rvlab-clients`' bench binary: requests/s, conflict
//! rate and latency through real HTTP on loopback), then the browser figures (cold load, step
//! timings) from `rvlab-e2e`'s bench binary.

use crate::util::{cmd, run};
use anyhow::{bail, Context, Result};
use flate2::{write::GzEncoder, Compression};
use std::io::{Read, Write};
use std::path::Path;

/// The download budget for wasm + JS + CSS, gzip'd as shipped (product.md): 300 kB, aim 150 kB.
pub const BUDGET: u64 = 300_000;
/// The size we aim for.
const AIM: u64 = 150_000;

/// Builds `dist/`, prints the download sizes, then runs the browser bench.
pub fn bench(args: &[String]) -> Result<()> {
    let runs = parse_runs(args)?;
    crate::dist()?;
    let sizes = download_sizes(Path::new("dist"))?;
    print_sizes(&sizes);
    // The budget counts what is shipped (docs/size.md): the .gz files where dist/ has them.
    let shipped = shipped_total(&sizes);
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
    if shipped > BUDGET {
        bail!(
            "the page's download as shipped ({}) is over the budget ({})",
            kb(shipped),
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

/// One kind of download (wasm, js, css): raw, gzip'd (level 9) and shipped bytes.
#[derive(Debug, PartialEq)]
pub struct Size {
    /// `wasm`, `js` or `css`.
    pub kind: &'static str,
    /// Bytes of the files.
    pub raw: u64,
    /// Bytes after gzip level 9 (what a host compressing on the fly at its best level sends).
    pub gzip: u64,
    /// Bytes as shipped: each file's precompressed `FILE.gz` (zopfli, `cargo xtask dist`)
    /// where `dist/` has one, else its gzip level 9. The budget and the baselines count this.
    pub shipped: u64,
    /// How many of the files had a `.gz`, of how many.
    pub precompressed: (usize, usize),
}

/// Sums the files of the build `dir/index.html` loads (not the earlier builds' files kept next
/// to it), by kind.
pub fn download_sizes(dir: &Path) -> Result<Vec<Size>> {
    download_sizes_of(dir, "index.html")
}

/// [`download_sizes`] of the build `dir/HTML` loads (`kubectl.html`: the page's kubectl build).
/// A `FILE.gz` that does not decompress to `FILE` is an error (a stale copy would be shipped).
pub fn download_sizes_of(dir: &Path, html: &str) -> Result<Vec<Size>> {
    let mut sizes: Vec<Size> = ["wasm", "js", "css"]
        .into_iter()
        .map(|kind| Size {
            kind,
            raw: 0,
            gzip: 0,
            shipped: 0,
            precompressed: (0, 0),
        })
        .collect();
    for name in crate::assets::page_build(dir, html)? {
        let path = dir.join(&name);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if let Some(size) = sizes.iter_mut().find(|s| s.kind == ext) {
            let bytes = std::fs::read(&path)?;
            let gzip = gzip_len(&bytes)?;
            size.raw += bytes.len() as u64;
            size.gzip += gzip;
            size.precompressed.1 += 1;
            let gz_file = crate::assets::gz_name(&name);
            match std::fs::read(dir.join(&gz_file)) {
                Ok(gz) => {
                    if gunzip(&gz).ok().as_deref() != Some(bytes.as_slice()) {
                        bail!(
                            "{gz_file} in {} is not {name} compressed (a stale copy?):                              rebuild with `cargo xtask dist`",
                            dir.display()
                        );
                    }
                    size.shipped += gz.len() as u64;
                    size.precompressed.0 += 1;
                }
                Err(_) => size.shipped += gzip,
            }
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

/// The bytes a gzip file decompresses to.
fn gunzip(gz: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz).read_to_end(&mut out)?;
    Ok(out)
}

pub fn kb(bytes: u64) -> String {
    format!("{:.1} kB", bytes as f64 / 1000.0)
}

/// The shipped total of `sizes`: what the budget and the baselines count.
pub fn shipped_total(sizes: &[Size]) -> u64 {
    sizes.iter().map(|s| s.shipped).sum()
}

pub fn print_sizes(sizes: &[Size]) {
    println!(
        "\ndownload (dist/, 1 kB = 1000 bytes; gzip -9: flate2 level 9; shipped: the file's \
         precompressed .gz where dist/ has one, else its gzip -9):"
    );
    println!(
        "  {:<6} {:>12} {:>12} {:>12} {:>8}",
        "kind", "raw", "gzip -9", "shipped", ".gz"
    );
    for s in sizes {
        println!(
            "  {:<6} {:>12} {:>12} {:>12} {:>8}",
            s.kind,
            kb(s.raw),
            kb(s.gzip),
            kb(s.shipped),
            format!("{}/{}", s.precompressed.0, s.precompressed.1)
        );
    }
    let raw: u64 = sizes.iter().map(|s| s.raw).sum();
    let gz: u64 = sizes.iter().map(|s| s.gzip).sum();
    let shipped = shipped_total(sizes);
    println!(
        "  {:<6} {:>12} {:>12} {:>12}",
        "total",
        kb(raw),
        kb(gz),
        kb(shipped)
    );
    println!("  in bytes: gzip -9 {gz}, shipped {shipped}");
    println!(
        "  budget {} (aim {}), counting the shipped figure: {:.0}% of the budget, {:.0}% of \
         the aim",
        kb(BUDGET),
        kb(AIM),
        100.0 * shipped as f64 / BUDGET as f64,
        100.0 * shipped as f64 / AIM as f64
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
    fn shipped_counts_the_gz_files_and_refuses_a_stale_one() {
        let dir = std::env::temp_dir().join(format!("rvlab-xtask-sizes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (wasm, js, css) = (
            "rvlab-web-0123456789abcdef_bg.wasm",
            "rvlab-web-0123456789abcdef.js",
            "style-0123456789abcdef.css",
        );
        let index = format!(
            "<link href=./{css}><link href=./{js}><link href=./{wasm}>\
             <meta content=./explore-worker-0123456789abcdef.js>"
        );
        std::fs::write(dir.join("index.html"), index).unwrap();
        let body = |c: u8| (0..5000u32).map(|i| c + (i % 7) as u8).collect::<Vec<u8>>();
        for (name, c) in [(wasm, b'a'), (js, b'k'), (css, b'r')] {
            std::fs::write(dir.join(name), body(c)).unwrap();
        }
        std::fs::write(dir.join("explore-worker-0123456789abcdef.js"), body(b'w')).unwrap();
        // The wasm has a .gz, the rest not.
        let gz = crate::assets::zopfli_gzip(&body(b'a')).unwrap();
        std::fs::write(dir.join(format!("{wasm}.gz")), &gz).unwrap();
        let sizes = download_sizes(&dir).unwrap();
        let w = &sizes[0];
        assert_eq!((w.kind, w.raw), ("wasm", 5000));
        assert_eq!(w.gzip, gzip_len(&body(b'a')).unwrap());
        assert_eq!((w.shipped, w.precompressed), (gz.len() as u64, (1, 1)));
        let j = &sizes[1];
        assert_eq!((j.kind, j.precompressed), ("js", (0, 2)));
        assert_eq!(j.shipped, j.gzip, "no .gz: its gzip -9");
        assert_eq!(
            shipped_total(&sizes),
            gz.len() as u64 + sizes[1].gzip + sizes[2].gzip
        );
        // A .gz of other bytes is refused, not counted.
        let other = crate::assets::zopfli_gzip(b"other").unwrap();
        std::fs::write(dir.join(format!("{wasm}.gz")), other).unwrap();
        let err = download_sizes(&dir).unwrap_err().to_string();
        assert!(
            err.contains("is not rvlab-web-0123456789abcdef_bg.wasm compressed"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn runs_argument() {
        assert_eq!(parse_runs(&[]).unwrap(), 15);
        assert_eq!(parse_runs(&["--runs".into(), "3".into()]).unwrap(), 3);
        assert!(parse_runs(&["--runs".into(), "0".into()]).is_err());
        assert!(parse_runs(&["--fast".into()]).is_err());
    }
}
