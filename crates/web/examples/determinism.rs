//! Prints the core's determinism report, natively and in wasm32 (under Node).
//!
//! `cargo xtask test` runs this twice, `cargo run -p rvlab-web --example determinism` and the
//! same example built for `wasm32-unknown-unknown`, bound with `wasm-bindgen --target nodejs`
//! and run by `node`, and requires the two outputs to be byte-for-byte equal.

fn main() {
    let report = report();
    #[cfg(target_arch = "wasm32")]
    web_sys::console::log_1(&report.trim_end().into());
    #[cfg(not(target_arch = "wasm32"))]
    println!("{}", report.trim_end());
}

/// Seeds every lesson is run with.
const SEEDS: [u64; 4] = [0, 1, 42, 0xDEAD_BEEF];

/// The text both platforms must agree on: the core's own determinism fingerprints (every
/// built-in lesson run on its default schedule, `rvlab_core::lessons::fingerprints`) for several
/// seeds, the share links of the lessons' texts, plus the seeded generator's raw output (jitter
/// and uids come from it).
pub fn report() -> String {
    use rvlab_core::{lessons::fingerprints, lessons::LESSONS, rng::Rng};
    let mut out = String::new();
    for seed in SEEDS {
        let prints = fingerprints(seed);
        let line: Vec<String> = prints.iter().map(|(id, f)| format!("{id}={f}")).collect();
        out.push_str(&format!(
            "seed {seed}: {} of {} lessons: {}\n",
            prints.len(),
            LESSONS.len(),
            line.join(" ")
        ));
    }
    // The explorer's reports (counts, counterexample tokens, outcome classes), bounded so the
    // largest lesson stays quick under Node: an incomplete report must agree just as well.
    let bounds = rvlab_core::explore::Bounds {
        max_states: 5_000,
        ..Default::default()
    };
    let digest = |id: &str, scenario: &rvlab_core::lang::ast::Scenario| {
        let text = match rvlab_core::explore::explore(scenario, 0, bounds) {
            Ok(report) => report.to_json().to_string(),
            Err(err) => err.to_string(),
        };
        let print = rvlab_core::trace::fnv1a64(text.as_bytes());
        format!("{id}={print:016x}")
    };
    let mut reports = Vec::new();
    for lesson in LESSONS {
        if let Some(scenario) = lesson.parse().scenario {
            reports.push(digest(lesson.id, &scenario));
        }
    }
    // The 4-client counter too: with the `symmetry` feature its clients are merged up to
    // swapping them (class mapping and renamed tokens included).
    let counter = rvlab_core::explore::bench::counter(&["alice", "bob", "carol", "dave"]);
    if let Ok(scenario) = rvlab_core::explore::bench::parse_scenario(&counter) {
        reports.push(digest("counter-4", &scenario));
    }
    out.push_str(&format!("explore: {}\n", reports.join(" ")));
    // Share links of every lesson's text, and of all of them at once (past the 32 KiB window).
    let link = |text: String| {
        let state = rvlab_core::share::ShareState {
            source: rvlab_core::share::Source::Text(text),
            token: String::new(),
            position: 0,
            seed: 0,
            view: String::new(),
        };
        format!(
            "{:016x}",
            rvlab_core::trace::fnv1a64(state.encode().as_bytes())
        )
    };
    let mut links: Vec<String> = LESSONS.iter().map(|l| link(l.source.into())).collect();
    links.push(link(
        LESSONS
            .iter()
            .map(|l| l.source)
            .collect::<String>()
            .repeat(3),
    ));
    out.push_str(&format!("share: {}\n", links.join(" ")));
    for seed in [0u64, 42, u64::MAX] {
        let mut rng = Rng::new(seed);
        let words: Vec<String> = (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect();
        let floats: Vec<String> = (0..2).map(|_| format!("{:.17}", rng.next_f64())).collect();
        let below: Vec<String> = (1..=6).map(|n| rng.below(n).to_string()).collect();
        out.push_str(&format!(
            "rng {seed}: {} {} {} {}\n",
            words.join(","),
            floats.join(","),
            below.join(","),
            rng.uuid()
        ));
    }
    out
}
