//! `rvlab-browser-bench` (run by `cargo xtask bench`): timings measured in headless Chromium,
//! printed as medians over N runs.
//!
//! - cold load to interactive: navigation start → the page's `rvlab-interactive` performance
//!   mark (set once the app has rendered, timeline included), each load with a cold HTTP cache
//!   (emptied before each load; the server sends a host's cache headers);
//! - step, back and jump on a 1,000-step run, measured in the browser through the real UI: a
//!   script clicks `step-forward` / `step-back` or moves the `scrub` slider and times from the
//!   event until the DOM shows the new position in the controls and the timeline, plus the
//!   style and layout it causes (a forced layout read), paint excluded (Yew renders in a
//!   microtask after the event, and yields to the event loop only after 16 ms of work);
//! - the explorer in its Web Worker, for the lessons `counter` (3 clients × retry on conflict)
//!   and `stale-update` (the seed story): the time the worker spends exploring (its own
//!   `performance.now()`, reported in the results' `data-ms`), and the click-to-results time
//!   in the page (worker start and wasm instantiation included);
//! - grading a fix-it exercise on the main thread (Check with the reference solution of
//!   `counter`, the course's biggest exploration): click to verdict;
//! - the explorer's budget: the 6-client counter in the worker, which stops at the page's
//!   200,000 states (issue #16 aims at under 5 s).

use anyhow::{bail, Context, Result};
use rvlab_e2e::harness::Browser;
use rvlab_e2e::webdriver::Session;
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
    let result = cold_loads(&browser, runs.max(1), "").and_then(|loads| {
        let kubectl = cold_loads(
            &browser,
            runs.max(1),
            "/kubectl.html#v1&lesson=kubectl-stale-apply",
        )?;
        let steps = step_timings(&browser, runs.max(1))?;
        let explorer = ["counter", "stale-update"]
            .into_iter()
            .map(|l| {
                Ok((
                    l,
                    explore_timings(&browser, Explored::Lesson(l), runs.max(1))?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let check = check_timings(&browser, runs.max(1))?;
        let budget = budget_timings(&browser, runs.clamp(1, 3))?;
        Ok((loads, kubectl, steps, explorer, check, budget))
    });
    let _ = browser.session.quit();
    browser.driver.stop();
    let (loads, kubectl, steps, explorer, check, budget) = result?;
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
    println!(
        "  cold load of the kubectl build (kubectl.html, a kubectl lesson)   median {:>7.1} ms   (min {:.1}, max {:.1})",
        median(&kubectl),
        kubectl.iter().cloned().fold(f64::INFINITY, f64::min),
        kubectl.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  on a {}-step run (in the browser, through the UI, incl. re-render; budget 16 ms):",
        steps.len
    );
    for (name, times) in [
        ("step", &steps.forward),
        ("back", &steps.back),
        ("jump", &steps.jump),
    ] {
        println!(
            "    {name:<5} median {:>7.2} ms   (max {:.2}, {} samples)",
            median(times),
            times.iter().cloned().fold(0.0, f64::max),
            times.len()
        );
    }
    println!(
        "  explorer in its Web Worker (complete exploration, median of {} runs):",
        loads.len()
    );
    for (lesson, t) in &explorer {
        println!(
            "    {lesson:<13} {:>6} schedules  in the worker median {:>7.1} ms   click to results median {:>7.1} ms",
            t.schedules,
            median(&t.worker),
            median(&t.wall)
        );
    }
    println!(
        "  exercise Check, fix it (`counter`, reference solution, main thread): median {:>7.1} ms   (max {:.1})",
        median(&check),
        check.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  explorer's budget of 200,000 states in its Web Worker (6-client counter, stopped by the budget; median of {}): \
         {:>7.1} ms in the worker (max {:.1}; aim under 5000 ms), {} schedules covered",
        budget.worker.len(),
        median(&budget.worker),
        budget.worker.iter().cloned().fold(0.0, f64::max),
        budget.schedules
    );
    Ok(())
}

/// `clients` clients each incrementing one counter in `retry on conflict`: the text of
/// `rvlab_core::explore::bench::counter` (written out here: this crate stays free of the core,
/// so that the browser suite builds in seconds).
fn counter_scenario(clients: &[&str]) -> String {
    let mut s = format!(
        "title \"{} clients increment one counter with retry on conflict\"\n\n\
         object configmap/counter at resourceVersion 10:\n    data.count = \"0\"\n",
        clients.len()
    );
    for c in clients {
        s.push_str(&format!(
            "\nclient {c}:\n    retry on conflict:\n        c = get configmap/counter\n        \
             c.data.count = c.data.count + 1\n        update c\n"
        ));
    }
    s.push_str(&format!(
        "\nexpect all clients succeed\nexpect configmap/counter data.count == \"{}\"\nexpect no lost updates\n",
        clients.len()
    ));
    s
}

/// The 6-client counter of `cargo xtask bench`: far more than 200,000 distinct states, so the
/// page's explorer stops at its budget.
fn budget_timings(browser: &Browser, runs: usize) -> Result<ExploreTimes> {
    let text = counter_scenario(&["alice", "bob", "carol", "dave", "erin", "frank"]);
    explore_timings(browser, Explored::Budget(text), runs)
}

/// The reference solution of the `counter` exercise.
const COUNTER_SOLUTION: &str =
    include_str!("../../../../crates/core/exercises/11-counter.solution.rvl");

/// Opens the `counter` exercise, puts its reference solution in the editor and times Check
/// (click to the verdict in the DOM) `runs` times.
fn check_timings(browser: &Browser, runs: usize) -> Result<Vec<f64>> {
    let s = &browser.session;
    s.goto(&browser.url)?;
    let script = "
        const done = arguments[arguments.length - 1];
        const [text, n] = arguments;
        const q = id => document.querySelector(`[data-testid=${id}]`);
        const macrotask = () => new Promise(r => setTimeout(r, 0));
        const until = async (f, what) => {
            const t = performance.now();
            while (performance.now() - t < 30000) { const v = f(); if (v) return v; await macrotask(); }
            throw new Error(`timed out waiting for ${what}`);
        };
        (async () => {
            (await until(() => q('exercises-tab'), 'the tab')).click();
            (await until(() => document.querySelector('[data-testid=exercise-item][data-id=counter]'), 'the item')).click();
            await until(() => q('exercise') && q('exercise').dataset.id === 'counter', 'the exercise');
            const times = [];
            for (let i = 0; i < n; i++) {
                // Start over (no verdict), then the solution.
                q('exercise-restart').click();
                await until(() => !q('exercise-verdict'), 'a fresh start');
                const t = q('editor'); t.value = text; t.dispatchEvent(new Event('input', { bubbles: true }));
                await macrotask();
                const t0 = performance.now();
                q('exercise-check').click();
                const v = await until(() => q('exercise-verdict'), 'the verdict');
                times.push(performance.now() - t0);
                if (v.dataset.pass !== 'true') throw new Error('the solution did not pass: ' + v.textContent);
            }
            return times;
        })().then(done, e => done(String(e)));";
    let v = s.execute_async(script, vec![COUNTER_SOLUTION.into(), runs.into()])?;
    match v {
        Value::Array(xs) => Ok(xs.iter().filter_map(Value::as_f64).collect()),
        other => bail!("exercise check bench: {other}"),
    }
}

/// Explorer timings of one lesson.
struct ExploreTimes {
    /// As the page shows it (exact at any size).
    schedules: String,
    /// Milliseconds the worker spent exploring.
    worker: Vec<f64>,
    /// Milliseconds from the click to the results in the page.
    wall: Vec<f64>,
}

/// What the explorer bench explores.
enum Explored<'a> {
    /// A lesson, picked in the lesson picker: its exploration must complete.
    Lesson(&'a str),
    /// A text put in the editor whose exploration must stop at the page's budget.
    Budget(String),
}

/// Loads a lesson or a text and explores it `runs` times through the panel.
fn explore_timings(browser: &Browser, what: Explored, runs: usize) -> Result<ExploreTimes> {
    let s = &browser.session;
    s.goto(&browser.url)?;
    let script = "
        const done = arguments[arguments.length - 1];
        const [lesson, text, n] = arguments;
        const q = id => document.querySelector(`[data-testid=${id}]`);
        const macrotask = () => new Promise(r => setTimeout(r, 0));
        const until = async (f, what) => {
            const t = performance.now();
            while (performance.now() - t < 120000) { const v = f(); if (v) return v; await macrotask(); }
            throw new Error(`timed out waiting for ${what}`);
        };
        (async () => {
            await until(() => q('lesson-picker') && q('editor'), 'the page');
            if (lesson) {
                const p = q('lesson-picker'); p.value = lesson; p.dispatchEvent(new Event('change', { bubbles: true }));
                await until(() => q('editor').value.length > 0 && !q('explore-button').disabled, 'the lesson');
            } else {
                const e = q('editor'); e.value = text; e.dispatchEvent(new Event('input', { bubbles: true }));
                await until(() => !q('explore-button').disabled, 'the explore button');
            }
            const out = { worker: [], wall: [], schedules: '0' };
            let job = Number(q('explore-results') ? q('explore-results').dataset.job : 0);
            for (let i = 0; i < n; i++) {
                const t0 = performance.now();
                q('explore-button').click();
                job += 1;
                const r = await until(() => {
                    const r = q('explore-results');
                    return r && Number(r.dataset.job) === job ? r : null;
                }, `results of job ${job}`);
                out.wall.push(performance.now() - t0);
                out.worker.push(Number(r.dataset.ms));
                out.schedules = r.dataset.schedules;
                if (r.dataset.complete !== (lesson ? 'true' : 'false')) {
                    throw new Error(lesson ? 'the exploration was not complete' : 'the exploration did not stop at the budget');
                }
            }
            return out;
        })().then(done, e => done(String(e)));";
    let (lesson, text) = match &what {
        Explored::Lesson(l) => (Value::from(*l), Value::Null),
        Explored::Budget(t) => (Value::Null, Value::from(t.as_str())),
    };
    let v = s.execute_async(script, vec![lesson, text, runs.into()])?;
    let list = |k: &str| -> Vec<f64> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|xs| xs.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let t = ExploreTimes {
        schedules: v
            .get("schedules")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
        worker: list("worker"),
        wall: list("wall"),
    };
    if t.worker.is_empty() {
        match what {
            Explored::Lesson(l) => bail!("explorer bench on `{l}`: {v}"),
            Explored::Budget(_) => bail!("explorer budget bench: {v}"),
        }
    }
    Ok(t)
}

/// A scenario with exactly `clients * per_client` steps: each client reads once, then only
/// edits its local copy (no conflicts, so no client stops early).
fn long_scenario(clients: usize, per_client: usize) -> String {
    let mut s = String::from("title \"bench: a long run\"\n\nobject configmap/c at resourceVersion 1:\n    data.k = \"0\"\n");
    for c in 0..clients {
        s.push_str(&format!("\nclient c{c}:\n    v = get configmap/c\n"));
        for i in 1..per_client {
            s.push_str(&format!("    v.data.k = \"{i}\"\n"));
        }
    }
    s
}

struct StepTimes {
    len: u64,
    forward: Vec<f64>,
    back: Vec<f64>,
    jump: Vec<f64>,
}

/// Loads a 1,000-step scenario into the editor and times steps, back-steps and jumps.
fn step_timings(browser: &Browser, runs: usize) -> Result<StepTimes> {
    let s = &browser.session;
    s.goto(&browser.url)?;
    let text = long_scenario(10, 100);
    // Wait for the app to mount its editor (the wasm may still be loading).
    poll(
        s,
        "return document.querySelector('[data-testid=editor]') ? true : null;",
        20,
        "the page never showed its editor",
    )?;
    // Set the text as one input event (typing 30 kB key by key would take minutes).
    s.execute(
        "const t = document.querySelector('[data-testid=editor]'); t.value = arguments[0]; \
         t.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![Value::String(text)],
    )?;
    let len = poll(
        s,
        "const m = /of (\\d+)/.exec(document.querySelector('[data-testid=position]').textContent); \
         return m && Number(m[1]) >= 1000 ? Number(m[1]) : null;",
        20,
        "the long scenario never ran",
    )?
    .as_u64()
    .unwrap_or(0);
    let samples = (runs * 10).max(20);
    let script = "
        const done = arguments[arguments.length - 1];
        const [what, n, len] = arguments;
        const q = id => document.querySelector(`[data-testid=${id}]`);
        const pos = () => Number(/step (\\d+)/.exec(q('position').textContent)[1]);
        const current = () => document.querySelector('[data-testid=timeline] tr.current');
        const shows = want => pos() === want && current() !== null && Number(current().dataset.step) === want;
        const macrotask = () => new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
        const settle = async want => {
            for (let k = 0; k < 100; k++) { if (shows(want)) return true; await Promise.resolve(); }
            const t = performance.now();
            while (performance.now() - t < 5000) { if (shows(want)) return true; await macrotask(); }
            return false;
        };
        const jumpTo = k => { const s = q('scrub'); s.value = String(k); s.dispatchEvent(new Event('input', { bubbles: true })); };
        (async () => {
            const first = what === 'back' ? len : Math.floor(len / 2) - Math.floor(n / 2);
            jumpTo(first);
            if (!(await settle(first))) return `the first jump to ${first} never rendered`;
            const times = [];
            for (let i = 0; i < n; i++) {
                const before = pos();
                let want;
                const t0 = performance.now();
                if (what === 'step') { q('step-forward').click(); want = before + 1; }
                else if (what === 'back') { q('step-back').click(); want = before - 1; }
                else { want = (before + 7919 * (i + 1)) % (len + 1); jumpTo(want); }
                if (!(await settle(want))) return `${what}: at ${pos()}, wanted ${want}`;
                // Include style and layout: read a layout property before stopping the clock.
                void document.body.offsetHeight;
                times.push(performance.now() - t0);
            }
            return times;
        })().then(done, e => done(String(e)));";
    let measure = |what: &str| -> Result<Vec<f64>> {
        let v = s.execute_async(script, vec![what.into(), samples.into(), len.into()])?;
        match v {
            Value::Array(xs) => Ok(xs.iter().filter_map(Value::as_f64).collect()),
            other => bail!("{what}: {other}"),
        }
    };
    Ok(StepTimes {
        len,
        forward: measure("step")?,
        back: measure("back")?,
        jump: measure("jump")?,
    })
}

/// Milliseconds from navigation start to the `rvlab-interactive` mark, per cold load of the
/// page's URL + `path` (empty: `index.html`).
fn cold_loads(browser: &Browser, runs: usize, path: &str) -> Result<Vec<f64>> {
    let s = &browser.session;
    let mut out = Vec::new();
    for _ in 0..runs {
        s.goto("about:blank")?;
        s.clear_http_cache()?;
        browser.server.clear_log();
        s.goto(&format!("{}{path}", browser.url))?;
        let mark = poll(
            s,
            "const m = performance.getEntriesByName('rvlab-interactive'); \
             return m.length ? m[0].startTime : null;",
            10,
            "the page never set its `rvlab-interactive` mark",
        )?;
        let log = browser.server.requests();
        if !log
            .iter()
            .any(|(_, p, s)| p.ends_with(".wasm") && *s == 200)
        {
            bail!("a load meant to be cold did not download the wasm: {log:?}");
        }
        out.push(mark.as_f64().unwrap_or(f64::NAN));
    }
    Ok(out)
}

/// Runs `script` every 10 ms until it returns something other than null, and returns that;
/// fails with `what` after `secs` seconds.
fn poll(s: &Session, script: &str, secs: u64, what: &str) -> Result<Value> {
    let start = Instant::now();
    loop {
        let v = s.execute(script, vec![])?;
        if !v.is_null() {
            return Ok(v);
        }
        if start.elapsed() > Duration::from_secs(secs) {
            bail!("{what}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
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
