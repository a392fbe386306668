//! `rvlab`: check, run and explore scenarios natively.
//!
//! Exit codes: 0 every expectation holds (or the command succeeded), 1 an expectation failed or
//! the file has errors, 2 usage error. The command line is clap's (derive): [`Cli`] names the
//! subcommands, each module its own options (a `clap::Args` struct) and help, and a `main`
//! that takes them parsed; a module's own usage errors go through [`usage_error`], so they read
//! like clap's.
//!
//! Module map (one module per subcommand): `check`, `run`, `explore` (and the hidden
//! `bench-explore`), `lessons`, `exercises`, `exercise` (`exercise link`), `course` (`course
//! build`), `grade`, `serve` (and `--interfere scenario FILE`, the one option with two values,
//! for `serve` and `test`), `test`; `input`: reading a scenario from a file, `-` or
//! `lesson:ID`.

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

use clap::{CommandFactory, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;

/// Exit code: all good.
pub const EXIT_OK: u8 = 0;
/// Exit code: an expectation failed, or the file has errors.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: the command line is wrong.
pub const EXIT_USAGE: u8 = 2;

/// What every command's help ends with.
const AFTER_HELP: &str = "\
FILE is a path, `-` for standard input, or `lesson:ID` for a built-in lesson.
Run `rvlab COMMAND --help` for a command's options.

Exit codes: 0 all expectations hold, 1 an expectation failed or the file has errors,
2 usage error.";

/// `rvlab --version`: with the Kubernetes release the model follows (the store's
/// `KUBERNETES_RELEASE`; a test keeps them one).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (models the Kubernetes v1.37.2 apiserver and kubectl v1.37.2)"
);

/// rvlab: a playground for Kubernetes optimistic concurrency
#[derive(Parser)]
#[command(
    name = "rvlab",
    version = VERSION,
    arg_required_else_help = true,
    // An option given twice: the last one counts (as `--seed 1 --seed 2` always did).
    args_override_self = true,
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(check::CheckArgs),
    Run(run::RunArgs),
    Explore(explore::ExploreArgs),
    Lessons(lessons::LessonsArgs),
    Exercises(exercises::ExercisesArgs),
    Exercise(exercise::ExerciseArgs),
    Course(course::CourseArgs),
    Grade(grade::GradeArgs),
    Serve(serve::ServeArgs),
    Test(test::TestArgs),
    #[command(hide = true)]
    BenchExplore(explore::BenchArgs),
}

fn main() -> ExitCode {
    ExitCode::from(dispatch(std::env::args_os().collect()))
}

/// Parses `argv` (the program's name first) and runs the command it names; the exit code.
fn dispatch(mut argv: Vec<OsString>) -> u8 {
    // `serve` and `test`: `--interfere scenario FILE`'s FILE is taken out before clap reads the
    // rest ([`serve::take_interfere_scenario`]); `test` also needs to know whether `--` was given
    // (clap's `last` argument is empty either way).
    let mut scenario_file = None;
    let mut separator = false;
    let sub = argv.get(1).and_then(|a| a.to_str()).map(str::to_string);
    if let Some(sub @ ("serve" | "test")) = sub.as_deref() {
        match serve::take_interfere_scenario(&argv[2..]) {
            Ok((rest, file)) => {
                separator = rest.iter().any(|a| a == "--");
                argv.truncate(2);
                argv.extend(rest);
                scenario_file = file;
            }
            Err(e) => return usage_error(&[sub], e),
        }
    }
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            // Help and the version go to standard output (exit 0), errors to standard error.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE);
        }
    };
    match cli.command {
        Command::Check(a) => check::main(a),
        Command::Run(a) => run::main(a),
        Command::Explore(a) => explore::main(a),
        Command::Lessons(a) => lessons::main(a),
        Command::Exercises(a) => exercises::main(a),
        Command::Exercise(a) => exercise::main(a),
        Command::Course(a) => course::main(a),
        Command::Grade(a) => grade::main(a),
        Command::Serve(mut a) => {
            a.interference.scenario_file = scenario_file;
            serve::main(a)
        }
        Command::Test(mut a) => {
            a.interference.scenario_file = scenario_file;
            a.separator = separator;
            test::main(a)
        }
        Command::BenchExplore(a) => explore::bench_main(a),
    }
}

/// Prints a usage error of the subcommand at `path` (such as `["serve"]` or `["course",
/// "build"]`) as clap prints its own: `error: MESSAGE`, the command's usage line and where its
/// help is. Returns [`EXIT_USAGE`].
pub fn usage_error(path: &[&str], message: impl std::fmt::Display) -> u8 {
    fn error_at(cmd: &mut clap::Command, path: &[&str], message: String) -> clap::Error {
        if let Some((name, rest)) = path.split_first() {
            if let Some(sub) = cmd.find_subcommand_mut(name) {
                return error_at(sub, rest, message);
            }
        }
        cmd.error(clap::error::ErrorKind::ValueValidation, message)
    }
    let mut root = Cli::command();
    // Built, so that a subcommand's usage names it in full (`rvlab course build`).
    root.build();
    let _ = error_at(&mut root, path, message.to_string()).print();
    EXIT_USAGE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_version_names_the_release_the_store_models() {
        let release = rvlab_core::store::KUBERNETES_RELEASE;
        assert!(
            VERSION.contains(&format!("Kubernetes {release} "))
                && VERSION.contains(&format!("kubectl {release})")),
            "{VERSION}"
        );
    }
}
