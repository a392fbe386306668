//! `rvlab check FILE`.

use crate::{input, EXIT_FAILED, EXIT_OK};

const LONG_ABOUT: &str = "\
Parses the scenario and prints every diagnostic as FILE:LINE:COL: error: MESSAGE, with the \
line, a caret and a hint. FILE may be `-` (standard input) or `lesson:ID`.";

const AFTER_HELP: &str = "\
Exit codes: 0 no errors (warnings may be printed), 1 the file has errors or cannot be read, \
2 usage error.";

/// `rvlab check`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Report the scenario's diagnostics (FILE:LINE:COL: error: ...)",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct CheckArgs {
    /// The scenario: a path, `-` for standard input, or lesson:ID
    #[arg(value_name = "FILE")]
    pub file: String,
}

/// Runs the subcommand.
pub fn main(args: CheckArgs) -> u8 {
    let file = &args.file;
    let parsed = match input::parse_file(file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let shown = input::display_name(file);
    if parsed.has_errors() {
        let n = parsed.diagnostics.iter().filter(|d| d.is_error()).count();
        eprintln!("{shown}: {n} error(s)");
        EXIT_FAILED
    } else {
        println!("{shown}: ok");
        EXIT_OK
    }
}
