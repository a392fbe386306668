//! Explorer throughput, natively and in wasm32 (under Node, whose V8 is Chromium's): the
//! benchmark scenarios of `rvlab_core::explore::bench` (the seed story, three and four clients
//! incrementing one counter inside `retry on conflict`), each explored several times under
//! default bounds. Prints one line per scenario: `NAME schedules states median_ms`, followed,
//! for an exploration that stopped at a bound, by `incomplete=BOUND` (the default scenarios are
//! complete, so by default the lines have exactly those four fields).
//!
//! `cargo xtask bench` runs it both ways, in the same build profile as the page (release), and
//! prints the two side by side with their ratio; it also runs it natively on the counters of
//! the stateright comparison (`--only counter-3,… --runs 5 --memory`).
//!
//! Options (natively; the wasm build under Node takes none and runs the defaults):
//! - `--only NAME[,NAME…]`: these scenarios, by name, from `scenarios()` and `counters()`
//!   (`seed-story`, `counter-3` … `counter-6`), in the order given;
//! - `--runs N`: explore each N times for the median (default 7);
//! - `--max-states N`: at most N distinct states instead of the default 200,000 (the 6-client
//!   counter needs about 1.2 million to finish);
//! - `--memory`: also measure the peak resident memory of one exploration of each scenario, in
//!   a child process of this binary that does nothing else (Linux: `VmHWM`, the peak resident
//!   set, from `/proc/self/status`), and append `peak_kib=K base_kib=B` to its line: K is the
//!   child's peak, B its resident set just before exploring (the binary, the parsed scenario),
//!   so K − B is what the exploration took at most.

use rvlab_core::explore::bench::{bench_explore_within, counters, parse_scenario, scenarios};
use rvlab_core::explore::Bounds;
// Links the page crate, and with it the page's global allocator (talc in wasm), so that the
// wasm figures are the worker's.
extern crate rvlab_web as _;

/// What to run.
#[derive(Debug, PartialEq)]
struct Options {
    /// Scenario names (`None`: `scenarios()`).
    only: Option<Vec<String>>,
    runs: usize,
    /// `--max-states N` (default: the explorer's default bound).
    max_states: u64,
    memory: bool,
    /// `--memory-child NAME`: explore NAME once and print its memory line (the child of
    /// `--memory`).
    memory_child: Option<String>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        only: None,
        runs: 7,
        max_states: Bounds::default().max_states,
        memory: false,
        memory_child: None,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} takes a value"));
        match flag.as_str() {
            "--only" => {
                let names: Vec<String> = value()?.split(',').map(str::to_string).collect();
                for n in &names {
                    if find(n).is_none() {
                        return Err(format!("--only: no scenario named {n}"));
                    }
                }
                o.only = Some(names);
            }
            "--runs" => {
                o.runs = value()?.parse().map_err(|_| "--runs takes a number")?;
                if o.runs == 0 {
                    return Err("--runs must be at least 1".into());
                }
            }
            "--max-states" => {
                o.max_states = value()?
                    .parse()
                    .map_err(|_| "--max-states takes a number")?;
            }
            "--memory" => o.memory = true,
            "--memory-child" => o.memory_child = Some(value()?.clone()),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(o)
}

/// The scenario named `name`, from `scenarios()` and then `counters()`.
fn find(name: &str) -> Option<String> {
    scenarios()
        .into_iter()
        .chain(counters())
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text)
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    let args: Vec<String> = std::env::args().skip(1).collect();
    #[cfg(target_arch = "wasm32")]
    let args: Vec<String> = Vec::new();
    let options = match parse_options(&args) {
        Ok(o) => o,
        Err(e) => {
            fail(&format!(
                "{e}\nusage: explore_bench [--only NAME[,NAME...]] [--runs N] [--max-states N] [--memory]"
            ));
            return;
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(name) = &options.memory_child {
        memory::child(name, options.max_states);
        return;
    }
    let selected: Vec<(String, String)> = match &options.only {
        None => scenarios()
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect(),
        Some(names) => names
            .iter()
            .filter_map(|n| find(n).map(|t| (n.clone(), t)))
            .collect(),
    };
    let mut out = String::new();
    for (name, text) in selected {
        let scenario = match parse_scenario(&text) {
            Ok(s) => s,
            Err(e) => {
                out.push_str(&format!("{name} error {e}\n"));
                continue;
            }
        };
        let mut times = Vec::new();
        let mut counts = (rvlab_core::count::Count::zero(), 0);
        let mut stopped_by = None;
        for _ in 0..options.runs {
            let start = now_ms();
            let report = match bench_explore_within(&scenario, options.max_states) {
                Ok(r) => r,
                Err(e) => {
                    out.push_str(&format!("{name} error {e}\n"));
                    break;
                }
            };
            times.push(now_ms() - start);
            counts = (report.schedules, report.states);
            stopped_by = (!report.complete).then(|| report.stopped_by.unwrap_or("unknown"));
        }
        if times.is_empty() {
            continue;
        }
        #[allow(
            clippy::disallowed_methods,
            reason = "a benchmark harness, not the page: std's sort costs the page nothing"
        )]
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        out.push_str(&format!("{name} {} {} {median:.3}", counts.0, counts.1));
        if let Some(bound) = stopped_by {
            out.push_str(&format!(" incomplete={bound}"));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if options.memory {
            match memory::measure(&name, options.max_states) {
                Ok(m) => out.push_str(&format!(" {m}")),
                Err(e) => out.push_str(&format!(" memory-error={}", e.replace(' ', "_"))),
            }
        }
        out.push('\n');
    }
    #[cfg(target_arch = "wasm32")]
    web_sys::console::log_1(&out.trim_end().into());
    #[cfg(not(target_arch = "wasm32"))]
    println!("{}", out.trim_end());
}

fn fail(message: &str) {
    #[cfg(target_arch = "wasm32")]
    web_sys::console::error_1(&message.into());
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("{message}");
        std::process::exit(2);
    }
}

/// Peak resident memory of one exploration, in a child process (natively, Linux).
#[cfg(not(target_arch = "wasm32"))]
mod memory {
    use super::{bench_explore_within, find, parse_scenario};
    use std::process::Command;

    /// Runs this binary as `--memory-child NAME` and returns its `peak_kib=K base_kib=B`.
    pub fn measure(name: &str, max_states: u64) -> Result<String, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let out = Command::new(exe)
            .args([
                "--memory-child",
                name,
                "--max-states",
                &max_states.to_string(),
            ])
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        match text.lines().next() {
            Some(line) if out.status.success() && line.starts_with("peak_kib=") => {
                Ok(line.trim().to_string())
            }
            _ => Err(format!(
                "child failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    }

    /// The child: parse NAME, read the resident set, explore it once, read the peak.
    pub fn child(name: &str, max_states: u64) {
        let report = find(name)
            .ok_or(format!("no scenario named {name}"))
            .and_then(|text| parse_scenario(&text))
            .and_then(|scenario| {
                let base = status_kib("VmRSS")?;
                bench_explore_within(&scenario, max_states)?;
                Ok((status_kib("VmHWM")?, base))
            });
        match report {
            Ok((peak, base)) => println!("peak_kib={peak} base_kib={base}"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }

    /// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`).
    fn status_kib(field: &str) -> Result<u64, String> {
        let status = std::fs::read_to_string("/proc/self/status")
            .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().strip_suffix("kB")?.trim().parse().ok())
            .ok_or(format!("no {field} in /proc/self/status"))
    }
}

/// Milliseconds from a monotonic clock (the bench's own; the core never reads a clock).
#[cfg(not(target_arch = "wasm32"))]
fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// Milliseconds from the host's `performance.now()` (Node has it as a global).
#[cfg(target_arch = "wasm32")]
fn now_ms() -> f64 {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"performance".into())
        .and_then(|p| {
            let now = js_sys::Reflect::get(&p, &"now".into())?;
            js_sys::Function::from(now).call0(&p)
        })
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let d = parse_options(&[]).unwrap();
        assert_eq!((d.only, d.runs, d.memory), (None, 7, false));
        let o = parse_options(&args("--only counter-6,seed-story --runs 3 --memory")).unwrap();
        assert_eq!(
            o.only,
            Some(vec!["counter-6".to_string(), "seed-story".to_string()])
        );
        assert_eq!((o.runs, o.memory), (3, true));
        assert!(parse_options(&args("--only counter-9")).is_err());
        assert!(parse_options(&args("--runs 0")).is_err());
        assert!(parse_options(&args("--runs")).is_err());
        assert!(parse_options(&args("--fast")).is_err());
        assert_eq!(d.max_states, 200_000);
        assert_eq!(
            parse_options(&args("--max-states 5")).unwrap().max_states,
            5
        );
        assert!(parse_options(&args("--max-states many")).is_err());
    }

    #[test]
    fn every_counter_is_found_by_name() {
        for name in [
            "seed-story",
            "counter-3",
            "counter-4",
            "counter-5",
            "counter-6",
        ] {
            assert!(find(name).is_some(), "{name}");
        }
    }
}
