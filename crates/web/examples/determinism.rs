//! Prints the core's determinism report, natively and in wasm32 (under Node).
//!
//! `cargo xtask test` runs this twice, `cargo run -p rvlab-web --example determinism` and the
//! same example built for `wasm32-unknown-unknown`, bound with `wasm-bindgen --target nodejs`
//! and run by `node`, and requires the two outputs to be byte-for-byte equal.

fn main() {
    let report = report();
    #[cfg(target_arch = "wasm32")]
    web_sys::console::log_1(&report.as_str().into());
    #[cfg(not(target_arch = "wasm32"))]
    println!("{report}");
}

/// The text both platforms must agree on.
///
/// FIXME(engine): switch to `rvlab_core::determinism_report()` (trace fingerprints of every
/// lesson over several seeds) once the engine provides it; until then this covers the seeded
/// generator, which is what every run's jitter and uids come from.
fn report() -> String {
    use rvlab_core::rng::Rng;
    let mut out = String::new();
    for seed in [0u64, 1, 42, 0xDEAD_BEEF, u64::MAX] {
        let mut rng = Rng::new(seed);
        let words: Vec<String> = (0..8).map(|_| format!("{:016x}", rng.next_u64())).collect();
        let floats: Vec<String> = (0..4).map(|_| format!("{:.17}", rng.next_f64())).collect();
        let below: Vec<String> = (1..=8).map(|n| rng.below(n).to_string()).collect();
        out.push_str(&format!(
            "seed {seed}: u64 {} f64 {} below {} uuid {}\n",
            words.join(","),
            floats.join(","),
            below.join(","),
            rng.uuid()
        ));
    }
    out
}
