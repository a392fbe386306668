//! `rvlab explore FILE [--max-schedules N] [--max-states N] [--seed N] [--json] [--stats]`
//! and the hidden `rvlab bench-explore [--runs N]`.

use crate::{input, usage_error, EXIT_FAILED, EXIT_OK};
use rvlab_core::explore::{bench, Bounds, ScenarioExplorer};
use std::time::Instant;

const LONG_ABOUT: &str = "\
Runs every order of the clients' requests (statements that send no request never create a \
choice; time is ignored, as on a real network) and checks the expectations in each. Prints how \
many schedules violate each expectation with the shortest counterexample, and the distinct \
outcomes with a count and an example. Every schedule printed is a full token: \
`rvlab run FILE --schedule TOKEN` replays it.";

const AFTER_HELP: &str = "\
FILE may be `-` (standard input) or `lesson:ID`.
Exit codes: 0 no schedule violates an expectation (and the search was complete), 1 some \
schedule violates one, the search was incomplete, or the file has errors, 2 usage error.";

/// `rvlab explore`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Run every order of the clients' requests and check the expectations in each",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct ExploreArgs {
    /// The scenario: a path, `-` for standard input, or lesson:ID
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Stop after N schedules (default: no limit)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub max_schedules: Option<String>,
    /// Stop after N distinct states (default 200000)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub max_states: Option<String>,
    /// The seed of jitter and uids (default 0)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Print the report as JSON (see docs/json-trace.md, "Explorer report")
    #[arg(long)]
    pub json: bool,
    /// Also print the time taken and schedules/s, states/s (to standard error)
    #[arg(long)]
    pub stats: bool,
}

const BENCH_LONG_ABOUT: &str = "\
Explores the benchmark scenarios (seed story, 3 and 4 counter clients with retry) N times each \
(default 5) and prints schedules, states, and the median schedules/s and states/s (parsing \
excluded).";

/// `rvlab bench-explore`'s command line (a hidden command).
#[derive(clap::Args)]
#[command(
    about = "Explore the benchmark scenarios and print their speed",
    long_about = BENCH_LONG_ABOUT
)]
pub struct BenchArgs {
    /// Explore each scenario N times (default 5)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub runs: Option<String>,
    /// Print one object per scenario
    #[arg(long)]
    pub json: bool,
    /// Merge only history (no merging of finished clients or of time), to see what those save
    #[arg(long)]
    pub baseline: bool,
}

/// `--NAME N`'s number (`_` allowed between digits), if given.
fn number(name: &str, value: Option<&str>) -> Result<Option<u64>, String> {
    match value {
        None => Ok(None),
        Some(v) => v
            .replace('_', "")
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("{name} takes a whole number, not `{v}`")),
    }
}

/// Runs `rvlab explore`.
pub fn main(args: ExploreArgs) -> u8 {
    let file = &args.file;
    let mut bounds = Bounds::default();
    let parsed_numbers = (|| -> Result<u64, String> {
        if let Some(n) = number("--max-schedules", args.max_schedules.as_deref())? {
            bounds.max_schedules = n;
        }
        if let Some(n) = number("--max-states", args.max_states.as_deref())? {
            bounds.max_states = n;
        }
        Ok(number("--seed", args.seed.as_deref())?.unwrap_or(0))
    })();
    let seed = match parsed_numbers {
        Ok(s) => s,
        Err(e) => return usage_error(&["explore"], e),
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
    if args.json {
        let v = report.to_json();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string())
        );
    } else {
        print!("{}", report.text());
    }
    if args.stats {
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
pub fn bench_main(args: BenchArgs) -> u8 {
    let runs = match number("--runs", args.runs.as_deref()) {
        Ok(n) => n.unwrap_or(5).max(1),
        Err(e) => return usage_error(&["bench-explore"], e),
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
            let result = if args.baseline {
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
        if !args.json {
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
    if args.json {
        println!("{}", serde_json::Value::Array(rows));
    }
    EXIT_OK
}
