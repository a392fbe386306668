//! `rvlab-browser-bench` (run by `cargo xtask bench`): timings measured in headless Chromium,
//! printed as medians over N runs.
//!
//! - cold load to interactive: navigation start → the page's `rvlab-interactive` performance
//!   mark (set once the app has rendered), each load with a cold HTTP cache (`no-store`).

use anyhow::{bail, Context, Result};
use rvlab_e2e::harness::Browser;
use serde_json::Value;
use std::time::{Duration, Instant};

fn main() {
    if let Err(e) = real_main() {
        eprintln!("rvlab-browser-bench: error: {e:#}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = match args.as_slice() {
        [] => 15,
        [flag, n] if flag == "--runs" => n.parse().context("--runs takes a number")?,
        _ => bail!("usage: rvlab-browser-bench [--runs N]"),
    };
    let mut browser = Browser::start("bench")?;
    let result = cold_loads(&browser, runs.max(1));
    let _ = browser.session.quit();
    browser.driver.stop();
    let loads = result?;
    println!(
        "\nbrowser (headless Chromium, loopback server, median of {} runs):",
        loads.len()
    );
    println!(
        "  cold load to interactive   median {:>7.1} ms   (min {:.1}, max {:.1}; budget 1000 ms)",
        median(&loads),
        loads.iter().cloned().fold(f64::INFINITY, f64::min),
        loads.iter().cloned().fold(0.0, f64::max)
    );
    Ok(())
}

/// Milliseconds from navigation start to the `rvlab-interactive` mark, per cold load.
fn cold_loads(browser: &Browser, runs: usize) -> Result<Vec<f64>> {
    let s = &browser.session;
    let mut out = Vec::new();
    for _ in 0..runs {
        s.goto("about:blank")?;
        s.goto(&browser.url)?;
        let start = Instant::now();
        loop {
            let v = s.execute(
                "const m = performance.getEntriesByName('rvlab-interactive'); \
                 return m.length ? m[0].startTime : null;",
                vec![],
            )?;
            if let Value::Number(n) = v {
                out.push(n.as_f64().unwrap_or(f64::NAN));
                break;
            }
            if start.elapsed() > Duration::from_secs(10) {
                bail!("the page never set its `rvlab-interactive` mark");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    Ok(out)
}

/// The median of a non-empty list.
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
