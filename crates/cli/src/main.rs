//! `rvlab`: check, run and explore scenarios natively.
//!
//! Exit codes: 0 every expectation holds (or the command succeeded), 1 an expectation failed or
//! the file has errors, 2 usage error. Each subcommand lives in its own module and answers
//! `--help`.
//!
//! Module map (one module per subcommand): `check`, `run`, `explore`, `lessons`, `exercises`,
//! `exercise` (`exercise link`), `course` (`course build`), `grade`, `serve`, `test`; `args`:
//! the shared option parser; `input`: reading a scenario from a file, `-` or `lesson:ID`.

mod args;
mod check;
mod course;
mod exercise;
mod exercises;
mod explore;
mod grade;
mod input;
mod lessons;
mod run;
mod serve;
mod test;

use std::process::ExitCode;

/// Exit code: all good.
pub const EXIT_OK: u8 = 0;
/// Exit code: an expectation failed, or the file has errors.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: the command line is wrong.
pub const EXIT_USAGE: u8 = 2;

const HELP: &str = "rvlab: a playground for Kubernetes optimistic concurrency

Usage: rvlab <COMMAND> [ARGS]

Commands:
  check FILE     report the scenario's diagnostics (FILE:LINE:COL: error: ...)
  run FILE       run the scenario once, narrated step by step (or --json)
  explore FILE   run every order of the clients' requests and check the expectations in each
  lessons        list the built-in lessons, or export them (--export DIR)
  exercises      list the built-in exercises, or export them with solutions (--export DIR)
  exercise link FILE
                 print the share link that opens your exercise FILE in the page
  course build DIR --out OUT
                 check a folder of your exercises and build it into a course pack (the
                 release page with your course in it)
  grade EX SUB.. grade submissions against an exercise (PASS / FAIL per submission,
                 hand-ins as text or links, --report class.csv / class.json)
  serve [FILE]   serve the Kubernetes API on the model store, for kubectl and client libraries
  test [FILE] -- COMMAND
                 run COMMAND against a fresh server and report its 409s, retries and
                 lost updates (a test runner for CI)
  help           show this help

FILE is a path, `-` for standard input, or `lesson:ID` for a built-in lesson.
Run `rvlab COMMAND --help` for a command's options.

Exit codes: 0 all expectations hold, 1 an expectation failed or the file has errors,
2 usage error.";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let code = match argv.first().map(String::as_str) {
        None | Some("help" | "--help" | "-h") => {
            println!("{HELP}");
            if argv.is_empty() {
                EXIT_USAGE
            } else {
                EXIT_OK
            }
        }
        Some("--version" | "-V") => {
            println!("rvlab {}", env!("CARGO_PKG_VERSION"));
            EXIT_OK
        }
        Some("check") => check::main(&argv[1..]),
        Some("run") => run::main(&argv[1..]),
        Some("lessons") => lessons::main(&argv[1..]),
        Some("exercise") => exercise::main(&argv[1..]),
        Some("course") => course::main(&argv[1..]),
        Some("exercises") => exercises::main(&argv[1..]),
        Some("grade") => grade::main(&argv[1..]),
        Some("explore") => explore::main(&argv[1..]),
        Some("serve") => serve::main(&argv[1..]),
        Some("test") => test::main(&argv[1..]),
        Some("bench-explore") => explore::bench_main(&argv[1..]),
        Some(other) => {
            eprintln!("error: unknown command `{other}`\n\n{HELP}");
            EXIT_USAGE
        }
    };
    ExitCode::from(code)
}
