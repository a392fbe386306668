//! `rvlab run FILE [--schedule TOKEN] [--seed N] [--json]`.

use crate::{input, usage_error, EXIT_FAILED, EXIT_OK};
use rvlab_core::engine::RunError;
use rvlab_core::run::Run;

const LONG_ABOUT: &str = "\
Runs the scenario once and prints every step with its client, statement, status and a \
narration, then each client's outcome and each expectation (holds / FAILS). A kubectl \
command's terminal follows the step that finished it: `$ kubectl …`, then its output as printed.";

const AFTER_HELP: &str = "\
FILE may be `-` (standard input) or `lesson:ID`.
Exit codes: 0 every expectation holds, 1 an expectation failed or the file has errors, \
2 usage error (including a malformed --schedule).";

/// `rvlab run`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Run the scenario once, narrated step by step (or --json)",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct RunArgs {
    /// The scenario: a path, `-` for standard input, or lesson:ID
    #[arg(value_name = "FILE")]
    pub file: String,
    /// The steps to take, as client letters with counts (a3b2a = a a a b b a)
    ///
    /// Default: the scenario's `schedule`; the default scheduler finishes the run.
    #[arg(long, value_name = "TOKEN", allow_hyphen_values = true)]
    pub schedule: Option<String>,
    /// The seed of jitter, uids and tie-breaks (default 0)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Print the JSON trace instead (see docs/json-trace.md)
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn main(args: RunArgs) -> u8 {
    let file = &args.file;
    let seed = match args.seed.as_deref().map(str::parse::<u64>) {
        None => 0,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            return usage_error(
                &["run"],
                "--seed takes a whole number from 0 to 18446744073709551615",
            );
        }
    };
    let scenario = match input::scenario(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let token = args.schedule.as_deref();
    let run = match Run::new(&scenario, seed, token) {
        Ok(r) => r,
        Err(e) => {
            // A bad --schedule is a usage error; a bad `schedule` line is the file's.
            let from_cli =
                token.is_some() && matches!(e, RunError::Token(_) | RunError::Schedule { .. });
            if from_cli {
                return usage_error(&["run"], e);
            }
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    };
    if args.json {
        let trace = rvlab_core::trace::trace(&run);
        println!(
            "{}",
            serde_json::to_string_pretty(&trace).unwrap_or_else(|_| trace.to_string())
        );
    } else {
        print!("{}", rvlab_core::view::run_text(&run));
    }
    if run.all_hold() && run.stopped.is_none() {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}
