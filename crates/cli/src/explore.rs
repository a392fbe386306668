//! `rvlab explore FILE [--max-schedules N] [--max-states N] [--seed N] [--json] [--stats]`
//! and the hidden `rvlab bench-explore [--runs N]`.

use crate::args::Args;
use crate::{input, EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_core::explore::{bench, Bounds, ScenarioExplorer};
use std::time::Instant;

const HELP: &str =
    "Usage: rvlab explore FILE [--max-schedules N] [--max-states N] [--seed N] [--json] [--stats]

Runs every order of the clients' requests (statements that send no request never create a
choice; time is ignored, as on a real network) and checks the expectations in each. Prints how
many schedules violate each expectation with the shortest counterexample, and the distinct
outcomes with a count and an example. Every schedule printed is a full token:
`rvlab run FILE --schedule TOKEN` replays it.

Options:
  --max-schedules N  stop after N schedules (default: no limit)
  --max-states N     stop after N distinct states (default 200000)
  --seed N           the seed of jitter and uids (default 0)
  --json             print the report as JSON (see docs/json-trace.md, \"Explorer report\")
  --stats            also print the time taken and schedules/s, states/s (to standard error)

FILE may be `-` (standard input) or `lesson:ID`.
Exit codes: 0 no schedule violates an expectation (and the search was complete), 1 some
schedule violates one, the search was incomplete, or the file has errors, 2 usage error.";

const BENCH_HELP: &str = "Usage: rvlab bench-explore [--runs N] [--json] [--baseline]

Explores the benchmark scenarios (seed story, 3 and 4 counter clients with retry) N times each
(default 5) and prints schedules, states, and the median schedules/s and states/s (parsing
excluded). With --json: one object per scenario. With --baseline: merge only history (no
merging of finished clients or of time), to see what those save.";

fn number(args: &Args, name: &str) -> Result<Option<u64>, String> {
    match args.value(name) {
        None => Ok(None),
        Some(v) => v
            .replace('_', "")
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("{name} takes a whole number, not `{v}`")),
    }
}

/// Runs `rvlab explore`.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(
        argv,
        &["--max-schedules", "--max-states", "--seed"],
        &["--json", "--stats"],
    ) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    if args.flag("--help") {
        println!("{HELP}");
        return EXIT_OK;
    }
    let [file] = args.positional.as_slice() else {
        eprintln!("error: explore takes exactly one FILE\n\n{HELP}");
        return EXIT_USAGE;
    };
    let mut bounds = Bounds::default();
    let parsed_numbers = (|| -> Result<u64, String> {
        if let Some(n) = number(&args, "--max-schedules")? {
            bounds.max_schedules = n;
        }
        if let Some(n) = number(&args, "--max-states")? {
            bounds.max_states = n;
        }
        Ok(number(&args, "--seed")?.unwrap_or(0))
    })();
    let seed = match parsed_numbers {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let scenario = match input::scenario(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let start = Instant::now();
    let explorer = match ScenarioExplorer::new(&scenario, seed, bounds) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    };
    let report = explorer.finish();
    let secs = start.elapsed().as_secs_f64();
    if args.flag("--json") {
        let v = report.to_json();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string())
        );
    } else {
        print!("{}", report.text());
    }
    if args.flag("--stats") {
        eprintln!(
            "{} schedules, {} states in {:.3} s: {:.0} schedules/s, {:.0} states/s",
            report.schedules,
            report.states,
            secs,
            report.schedules.to_f64() / secs.max(1e-9),
            report.states as f64 / secs.max(1e-9)
        );
    }
    if report.any_violation() || !report.complete {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Runs the hidden `rvlab bench-explore`.
pub fn bench_main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &["--runs"], &["--json", "--baseline"]) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{BENCH_HELP}");
            return EXIT_USAGE;
        }
    };
    if args.flag("--help") {
        println!("{BENCH_HELP}");
        return EXIT_OK;
    }
    let runs = match number(&args, "--runs") {
        Ok(n) => n.unwrap_or(5).max(1),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let mut rows = Vec::new();
    for (name, text) in bench::scenarios() {
        let scenario = match bench::parse_scenario(&text) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return EXIT_FAILED;
            }
        };
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let start = Instant::now();
            let result = if args.flag("--baseline") {
                bench::bench_explore_baseline(&scenario)
            } else {
                bench::bench_explore(&scenario)
            };
            match result {
                Ok(r) => last = Some(r),
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    return EXIT_FAILED;
                }
            }
            times.push(start.elapsed().as_secs_f64().max(1e-9));
        }
        let Some(r) = last else {
            return EXIT_FAILED;
        };
        let secs = median(times);
        rows.push(serde_json::json!({
            "name": name,
            "schedules": r.schedules.to_json(),
            "states": r.states,
            "complete": r.complete,
            "median_seconds": secs,
            "schedules_per_second": r.schedules.to_f64() / secs,
            "states_per_second": r.states as f64 / secs,
        }));
        if !args.flag("--json") {
            println!(
                "{name}: {} schedules, {} states, median {:.4} s over {runs} runs: {:.0} schedules/s, {:.0} states/s",
                r.schedules,
                r.states,
                secs,
                r.schedules.to_f64() / secs,
                r.states as f64 / secs
            );
        }
    }
    if args.flag("--json") {
        println!("{}", serde_json::Value::Array(rows));
    }
    EXIT_OK
}
