//! `rvlab grade EXERCISE SUBMISSION...`: one verdict per submission, for teachers.

use crate::args::Args;
use crate::input;
use crate::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_core::exercises::{self, Exercise};
use rvlab_core::lang::render_all;

const HELP: &str = "Usage: rvlab grade EXERCISE SUBMISSION... [--verbose]

Grades each submission against the exercise's goal and prints one line per submission:
  PASS FILE
  FAIL FILE: REASON

EXERCISE is a built-in exercise id (see `rvlab exercises`) or an exercise file.
A SUBMISSION is a file (`-` for standard input) holding the edited scenario, or, for a
break-it exercise, just the schedule token (e.g. `ba3b2`).

Break it: the submission's schedule is run; it passes when the goal's expectation fails.
Fix it: every schedule of the submission is explored; it passes when the exploration is
complete and no schedule violates an expectation. Either way, a submission that changes a
locked client, the setup objects or the expectations fails.

Options:
  --verbose   print every reason and a share link (#v1&z=...&t=TOKEN) that opens the run

Exit codes: 0 every submission passes, 1 one fails (or the exercise has errors), 2 usage error.";

/// Runs the subcommand.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &[], &["--verbose"]) {
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
    let verbose = args.flag("--verbose");
    let Some((exercise, submissions)) = args.positional.split_first() else {
        eprintln!("error: grade needs an EXERCISE and at least one SUBMISSION\n\n{HELP}");
        return EXIT_USAGE;
    };
    if submissions.is_empty() {
        eprintln!("error: grade needs at least one SUBMISSION\n\n{HELP}");
        return EXIT_USAGE;
    }
    if args.positional.iter().filter(|s| *s == "-").count() > 1 {
        eprintln!("error: standard input (`-`) can be given once\n\n{HELP}");
        return EXIT_USAGE;
    }
    let ex = match load_exercise(exercise) {
        Ok(ex) => ex,
        Err((code, message)) => {
            eprintln!("{message}");
            return code;
        }
    };
    let mut all_pass = true;
    for file in submissions {
        let verdict = match input::load(file) {
            Ok(text) => exercises::grade(&ex, &text),
            Err(e) => {
                all_pass = false;
                println!("FAIL {file}: {e}");
                continue;
            }
        };
        all_pass &= verdict.pass;
        let status = if verdict.pass { "PASS" } else { "FAIL" };
        if verbose {
            println!("{status} {file}");
            for r in &verdict.reasons {
                println!("  {r}");
            }
            if let Some(link) = &verdict.link {
                println!("  open: {link}");
            }
        } else if verdict.pass {
            println!("PASS {file}");
        } else {
            println!("FAIL {file}: {}", verdict.reasons.join("; "));
        }
    }
    if all_pass {
        EXIT_OK
    } else {
        EXIT_FAILED
    }
}

/// The exercise named by `name`: a file if one exists there, else a built-in id.
fn load_exercise(name: &str) -> Result<Exercise, (u8, String)> {
    let from_file = std::path::Path::new(name).is_file() || name == "-";
    let text = if from_file {
        input::load(name).map_err(|e| (EXIT_FAILED, format!("error: {e}")))?
    } else if let Some(b) = exercises::builtin(name) {
        b.source.to_string()
    } else {
        let ids: Vec<&str> = exercises::EXERCISES.iter().map(|e| e.id).collect();
        return Err((
            EXIT_USAGE,
            format!(
                "error: `{name}` is neither a file nor a built-in exercise; the exercises are: {}",
                ids.join(", ")
            ),
        ));
    };
    exercises::parse(&text).map_err(|diags| {
        (
            EXIT_FAILED,
            format!(
                "error: {name} is not a valid exercise\n{}",
                render_all(&diags, name, &text)
            ),
        )
    })
}
