//! Explorer throughput, natively and in wasm32 (under Node, whose V8 is Chromium's): the
//! benchmark scenarios of `rvlab_core::explore::bench` (the seed story, three and four clients
//! incrementing one counter inside `retry on conflict`), each explored completely several
//! times. Prints one line per scenario: `NAME schedules states median_ms`.
//!
//! `cargo xtask bench` runs it both ways, in the same build profile as the page (release), and
//! prints the two side by side with their ratio.

use rvlab_core::explore::bench::{bench_explore, parse_scenario, scenarios};
// Links the page crate, and with it the page's global allocator (talc in wasm), so that the
// wasm figures are the worker's.
extern crate rvlab_web as _;

fn main() {
    let runs: usize = 7;
    let mut out = String::new();
    for (name, text) in scenarios() {
        let scenario = match parse_scenario(&text) {
            Ok(s) => s,
            Err(e) => {
                out.push_str(&format!("{name} error {e}\n"));
                continue;
            }
        };
        let mut times = Vec::new();
        let mut counts = (0, 0);
        for _ in 0..runs {
            let start = now_ms();
            let report = match bench_explore(&scenario) {
                Ok(r) => r,
                Err(e) => {
                    out.push_str(&format!("{name} error {e}\n"));
                    break;
                }
            };
            times.push(now_ms() - start);
            counts = (report.schedules, report.states);
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
        out.push_str(&format!("{name} {} {} {median:.3}\n", counts.0, counts.1));
    }
    #[cfg(target_arch = "wasm32")]
    web_sys::console::log_1(&out.trim_end().into());
    #[cfg(not(target_arch = "wasm32"))]
    println!("{}", out.trim_end());
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
