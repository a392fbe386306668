//! `rvlab run FILE [--schedule TOKEN] [--seed N] [--json]`.

use crate::args::Args;
use crate::{input, EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_core::engine::RunError;
use rvlab_core::run::Run;

const HELP: &str = "Usage: rvlab run FILE [--schedule TOKEN] [--seed N] [--json]

Runs the scenario once and prints every step with its client, statement, status and a
narration, then each client's outcome and each expectation (holds / FAILS). A kubectl
command's terminal follows the step that finished it: `$ kubectl …`, then its output as printed.

Options:
  --schedule TOKEN  the steps to take, as client letters with counts (a3b2a = a a a b b a);
                    default: the scenario's `schedule`; the default scheduler finishes the run
  --seed N          the seed of jitter, uids and tie-breaks (default 0)
  --json            print the JSON trace instead (see docs/json-trace.md)

FILE may be `-` (standard input) or `lesson:ID`.
Exit codes: 0 every expectation holds, 1 an expectation failed or the file has errors,
2 usage error (including a malformed --schedule).";

/// Runs the subcommand.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &["--schedule", "--seed"], &["--json"]) {
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
        eprintln!("error: run takes exactly one FILE\n\n{HELP}");
        return EXIT_USAGE;
    };
    let seed = match args.value("--seed").map(str::parse::<u64>) {
        None => 0,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("error: --seed takes a whole number from 0 to 18446744073709551615");
            return EXIT_USAGE;
        }
    };
    let scenario = match input::scenario(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let token = args.value("--schedule");
    let run = match Run::new(&scenario, seed, token) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            // A bad --schedule is a usage error; a bad `schedule` line is the file's.
            let from_cli =
                token.is_some() && matches!(e, RunError::Token(_) | RunError::Schedule { .. });
            return if from_cli { EXIT_USAGE } else { EXIT_FAILED };
        }
    };
    if args.flag("--json") {
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
