//! `cargo xtask bench`: the page's download (raw, gzip -9 and as shipped: the precompressed
//! `.gz` files of `dist/`) against the budget (counting the shipped figure), the
//! explorer's throughput, the explorer against its peer, the stateright model checker
//! (`bench/explore-peer`, issue #16), the API server's (`rvlab-clients`' bench binary: requests/s, conflict
//! rate and latency through real HTTP on loopback), then the browser figures (cold load, step
//! timings) from `rvlab-e2e`'s bench binary.

use crate::util::{cmd, run, run_capture};
use anyhow::{bail, Context, Result};
use flate2::{write::GzEncoder, Compression};
use std::io::{Read, Write};
use std::path::Path;

/// The download budget for wasm + JS + CSS, gzip'd as shipped (docs/size.md): 300 kB, aim 150 kB.
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
    explorer_vs_stateright()?;
    server_throughput(runs)?;
    server_at_scale(runs)?;
    etcd_throughput(runs)?;
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
    clients_bench("rvlab-server-bench", runs)
}

/// The release `rvlab serve` as its own process at 1, 1,000 and 10,000 objects and under
/// contention, with its peak memory (issue #37).
fn server_at_scale(runs: u32) -> Result<()> {
    run(cmd(
        "cargo",
        &["build", "--quiet", "--release", "-p", "rvlab-cli"],
    ))?;
    clients_bench("rvlab-scale-bench", runs)
}

/// `rvlab serve --etcd` next to raw etcd transactions from the same client (issue #17).
fn etcd_throughput(runs: u32) -> Result<()> {
    clients_bench("rvlab-etcd-bench", runs)
}

/// One of rvlab-clients' benchmark binaries, in release.
fn clients_bench(bin: &str, runs: u32) -> Result<()> {
    run(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "--release",
            "-p",
            "rvlab-clients",
            "--bin",
            bin,
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

/// The scenarios of the stateright comparison (`rvlab_core::explore::bench::counters()`).
const PEER_SCENARIOS: [&str; 4] = ["counter-3", "counter-4", "counter-5", "counter-6"];
/// Runs per side for the medians of the stateright comparison.
const PEER_RUNS: u32 = 5;
/// Enough distinct states for every counter of [`PEER_SCENARIOS`] to finish (the 6-client one
/// has 1,178,374: docs/explorer.md), where the page stops at 200,000.
const PEER_MAX_STATES: u64 = 4_000_000;

/// Our explorer against stateright (issue #16) on the counters of 3 to 6 clients: the native
/// `explore_bench` example (release profile, with symmetry reduction, default bounds but
/// [`PEER_MAX_STATES`], with its peak resident memory) and `rvlab-explore-peer` (stateright,
/// depth first, one thread, on a minimal model of the same protocol: bench/explore-peer), with
/// symmetry reduction like ours and without, medians of [`PEER_RUNS`] runs each, and the ratios.
fn explorer_vs_stateright() -> Result<()> {
    let only = PEER_SCENARIOS.join(",");
    let runs = PEER_RUNS.to_string();
    let ours = run_capture(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "--release",
            "-p",
            "rvlab-web",
            "--example",
            "explore_bench",
            // The CLI's explorer: with symmetry reduction (the page leaves it out).
            "--features",
            "rvlab-core/symmetry",
            "--",
            "--only",
            &only,
            "--runs",
            &runs,
            "--max-states",
            &PEER_MAX_STATES.to_string(),
            "--memory",
        ],
    ))?;
    let peer = run_capture(cmd(
        "cargo",
        &[
            "run",
            "--quiet",
            "--release",
            "-p",
            "rvlab-explore-peer",
            "--",
            "--runs",
            &runs,
        ],
    ))?;
    let ours = ours.lines().map(parse_ours).collect::<Result<Vec<_>>>()?;
    let peer = peer.lines().map(parse_peer).collect::<Result<Vec<_>>>()?;
    print!("{}", peer_table(&ours, &peer)?);
    Ok(())
}

/// One line of `explore_bench`: `NAME SCHEDULES STATES MEDIAN_MS [incomplete=BOUND]
/// [peak_kib=K base_kib=B]`.
#[derive(Debug, PartialEq)]
pub struct Ours {
    pub name: String,
    pub schedules: u128,
    pub states: u64,
    pub ms: f64,
    /// The bound that stopped an incomplete exploration.
    pub incomplete: Option<String>,
    /// Peak resident set of one exploration, and the resident set just before it (KiB).
    pub memory: Option<(u64, u64)>,
}

pub fn parse_ours(line: &str) -> Result<Ours> {
    let bad = || anyhow::anyhow!("unexpected explore_bench line: {line:?}");
    let f: Vec<&str> = line.split_whitespace().collect();
    let [name, schedules, states, ms, rest @ ..] = f.as_slice() else {
        bail!(bad());
    };
    let mut ours = Ours {
        name: name.to_string(),
        schedules: schedules.parse().map_err(|_| bad())?,
        states: states.parse().map_err(|_| bad())?,
        ms: ms.parse().map_err(|_| bad())?,
        incomplete: None,
        memory: None,
    };
    let (mut peak, mut base) = (None, None);
    for field in rest {
        match field.split_once('=') {
            Some(("incomplete", bound)) => ours.incomplete = Some(bound.to_string()),
            Some(("peak_kib", k)) => peak = Some(k.parse::<u64>().map_err(|_| bad())?),
            Some(("base_kib", k)) => base = Some(k.parse::<u64>().map_err(|_| bad())?),
            Some(("memory-error", e)) => bail!("explore_bench could not measure memory: {e}"),
            _ => bail!(bad()),
        }
    }
    ours.memory = match (peak, base) {
        (Some(p), Some(b)) => Some((p, b)),
        (None, None) => None,
        _ => bail!(bad()),
    };
    Ok(ours)
}

/// One line of `rvlab-explore-peer`: `NAME schedules SCHEDULES symmetry states STATES ms
/// MEDIAN_MS full states STATES ms MEDIAN_MS`.
#[derive(Debug, PartialEq)]
pub struct Peer {
    pub name: String,
    pub schedules: u128,
    /// stateright with symmetry reduction: the same work as ours.
    pub symmetry: PeerCheck,
    /// stateright without reduction.
    pub full: PeerCheck,
}

/// One of stateright's checks: its unique states and the median wall time.
#[derive(Debug, PartialEq)]
pub struct PeerCheck {
    pub states: u64,
    pub ms: f64,
}

pub fn parse_peer(line: &str) -> Result<Peer> {
    let bad = || anyhow::anyhow!("unexpected rvlab-explore-peer line: {line:?}");
    match line.split_whitespace().collect::<Vec<_>>().as_slice() {
        [name, "schedules", schedules, "symmetry", "states", sym_states, "ms", sym_ms, "full", "states", full_states, "ms", full_ms] =>
        {
            let check = |states: &str, ms: &str| -> Result<PeerCheck> {
                Ok(PeerCheck {
                    states: states.parse().map_err(|_| bad())?,
                    ms: ms.parse().map_err(|_| bad())?,
                })
            };
            Ok(Peer {
                name: name.to_string(),
                schedules: schedules.parse().map_err(|_| bad())?,
                symmetry: check(sym_states, sym_ms)?,
                full: check(full_states, full_ms)?,
            })
        }
        _ => Err(bad()),
    }
}

/// The side-by-side table, one row per scenario of `ours` (each must have its peer's line),
/// with a note under it for every row whose exploration stopped at a bound (its ratio is of a
/// partial exploration) or whose schedules differ from the peer's count, and one for the rows
/// whose states differ from stateright's with symmetry reduction.
pub fn peer_table(ours: &[Ours], peer: &[Peer]) -> Result<String> {
    let mut s = format!(
        "\nexplorer vs stateright (median of {PEER_RUNS} runs each, release profile; ours: \
         complete worlds with apiserver objects, symmetry reduction, default bounds; \
         stateright 0.30: minimal model, DFS, 1 thread, with symmetry reduction (sr) and \
         without (sr full)):\n"
    );
    s.push_str(&format!(
        "  {:<10} {:>16} {:>8} {:>10} {:>9} {:>8} {:>9} {:>9} {:>8} {:>10} {:>9} {:>8}\n",
        "scenario",
        "schedules",
        "states",
        "ms",
        "peak MiB",
        "B/state",
        "sr states",
        "sr ms",
        "ours/sr",
        "full st",
        "full ms",
        "/full"
    ));
    let mut notes = Vec::new();
    let mut differ = Vec::new();
    for o in ours {
        let Some(p) = peer.iter().find(|p| p.name == o.name) else {
            bail!("rvlab-explore-peer printed no line for {}", o.name);
        };
        let (peak, per_state) = match o.memory {
            Some((peak, base)) => (
                format!("{:.1}", peak as f64 / 1024.0),
                format!(
                    "{:.0}",
                    peak.saturating_sub(base) as f64 * 1024.0 / o.states.max(1) as f64
                ),
            ),
            None => ("-".into(), "-".into()),
        };
        let mark = if o.incomplete.is_some() { "*" } else { "" };
        s.push_str(&format!(
            "  {:<10} {:>16} {:>8} {:>10.1} {peak:>9} {per_state:>8} {:>9} {:>9.2} {:>7.1}x{mark} \
             {:>10} {:>9.2} {:>7.1}x{mark}\n",
            o.name,
            o.schedules,
            o.states,
            o.ms,
            p.symmetry.states,
            p.symmetry.ms,
            o.ms / p.symmetry.ms,
            p.full.states,
            p.full.ms,
            o.ms / p.full.ms
        ));
        match &o.incomplete {
            Some(bound) => notes.push(format!(
                "  * {}: INCOMPLETE, stopped by {bound} after {} states and {} of the {} \
                 schedules; its ratios compare a partial exploration with stateright's \
                 complete ones",
                o.name, o.states, o.schedules, p.schedules
            )),
            None if o.schedules != p.schedules => notes.push(format!(
                "  ! {}: {} schedules here but {} in the peer's model: not the same protocol",
                o.name, o.schedules, p.schedules
            )),
            None => {
                if o.states != p.symmetry.states {
                    differ.push(format!("{} {}/{}", o.name, o.states, p.symmetry.states));
                }
            }
        }
    }
    s.push_str(
        "  (peak MiB: the peak resident set of one exploration in a process of its own; \
         B/state: that peak less the resident set before exploring, per state; sr: stateright's \
         unique states (with symmetry: one per class of states equal up to renaming the \
         clients) and time, which includes spawning and joining its checker thread; ours/sr, \
         /full: our time over stateright's)\n",
    );
    if !differ.is_empty() {
        notes.push(format!(
            "  ~ states differ from stateright's with symmetry (ours/sr: {}): both reductions \
             keep one state per class of states equal up to renaming the clients, but our \
             worlds hold more than the minimal model (a client retrying after a conflict still \
             holds its stale read): bench/explore-peer/src/lib.rs, \"Symmetry\"",
            differ.join(", ")
        ));
    }
    for n in notes {
        s.push_str(&n);
        s.push('\n');
    }
    Ok(s)
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

    #[test]
    fn explore_bench_lines_parse() {
        assert_eq!(
            parse_ours("counter-3 1710 432 4.250").unwrap(),
            Ours {
                name: "counter-3".into(),
                schedules: 1710,
                states: 432,
                ms: 4.25,
                incomplete: None,
                memory: None
            }
        );
        let o = parse_ours(
            "counter-6 123 200000 9000.5 incomplete=max_states peak_kib=524288 base_kib=2048",
        )
        .unwrap();
        assert_eq!(o.incomplete.as_deref(), Some("max_states"));
        assert_eq!((o.states, o.memory), (200_000, Some((524_288, 2048))));
        assert!(parse_ours("counter-3 1710 432").is_err());
        assert!(parse_ours("counter-3 error no such thing").is_err());
        assert!(
            parse_ours("counter-3 1 2 3 peak_kib=5").is_err(),
            "peak without base"
        );
        assert!(parse_ours("counter-3 1 2 3 memory-error=child_failed").is_err());
        assert!(parse_ours("counter-3 1 2 3 colour=blue").is_err());
    }

    #[test]
    fn peer_lines_parse() {
        assert_eq!(
            parse_peer(
                "counter-5 schedules 88019039640 symmetry states 367 ms 0.2 \
                 full states 12508 ms 6.5"
            )
            .unwrap(),
            Peer {
                name: "counter-5".into(),
                schedules: 88_019_039_640,
                symmetry: PeerCheck {
                    states: 367,
                    ms: 0.2
                },
                full: PeerCheck {
                    states: 12508,
                    ms: 6.5
                },
            }
        );
        // The format before symmetry reduction, and malformed lines.
        assert!(parse_peer("counter-5 states 12345 schedules 88019039640 ms 40.9").is_err());
        assert!(parse_peer("counter-5 schedules 1 symmetry states 2 ms 3").is_err());
        assert!(
            parse_peer("counter-5 schedules 1 symmetry states many ms 3 full states 4 ms 5")
                .is_err()
        );
        assert!(
            parse_peer("counter-5 schedules 1 full states 2 ms 3 symmetry states 4 ms 5").is_err()
        );
    }

    #[test]
    fn peer_table_has_the_ratios_and_flags_an_incomplete_row() {
        let ours = [
            parse_ours("counter-5 88019039640 20000 2000.0 peak_kib=11264 base_kib=1024").unwrap(),
            parse_ours("counter-6 777 200000 9000.0 incomplete=max_states").unwrap(),
        ];
        let peer = [
            parse_peer(
                "counter-5 schedules 88019039640 symmetry states 20000 ms 50.0 \
                 full states 90000 ms 100.0",
            )
            .unwrap(),
            parse_peer(
                "counter-6 schedules 99999999 symmetry states 9000 ms 900.0 \
                 full states 900000 ms 1000.0",
            )
            .unwrap(),
        ];
        let t = peer_table(&ours, &peer).unwrap();
        let row5 = t.lines().find(|l| l.contains("counter-5 ")).unwrap();
        // 11 MiB peak; (11264 - 1024) KiB over 20000 states = 524 B/state; 2000/50 = 40x
        // against stateright with symmetry, 2000/100 = 20x against it without.
        assert!(row5.contains(" 11.0 ") && row5.contains(" 524 "), "{row5}");
        assert!(
            row5.contains(" 50.00 ") && row5.contains(" 40.0x "),
            "{row5}"
        );
        assert!(
            row5.contains(" 90000 ") && row5.contains(" 100.00 "),
            "{row5}"
        );
        assert!(row5.trim_end().ends_with("20.0x"), "{row5}");
        let row6 = t.lines().find(|l| l.contains("counter-6 ")).unwrap();
        assert!(row6.contains(" 10.0x* "), "{row6}");
        assert!(row6.trim_end().ends_with("9.0x*"), "{row6}");
        assert!(
            t.contains("* counter-6: INCOMPLETE, stopped by max_states after 200000 states"),
            "{t}"
        );
        assert!(!t.contains("not the same protocol"), "{t}");
        assert!(
            !t.contains("states differ"),
            "equal states, and an incomplete row's differ anyway: {t}"
        );
        // A complete row whose schedules differ from the peer's is flagged.
        let other = [parse_ours("counter-5 5 20000 2000.0").unwrap()];
        let t = peer_table(&other, &peer).unwrap();
        assert!(
            t.contains("! counter-5: 5 schedules here but 88019039640"),
            "{t}"
        );
        assert!(peer_table(&other, &peer[1..]).is_err(), "no peer line");
        // A complete row with other states than stateright's with symmetry says so, with both.
        let more = [parse_ours("counter-5 88019039640 476 15.0").unwrap()];
        let t = peer_table(&more, &peer).unwrap();
        assert!(
            t.contains(
                "~ states differ from stateright's with symmetry (ours/sr: counter-5 476/20000)"
            ),
            "{t}"
        );
    }
}
