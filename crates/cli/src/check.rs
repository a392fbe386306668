//! `rvlab check FILE`.

use crate::args::Args;
use crate::{input, EXIT_FAILED, EXIT_OK, EXIT_USAGE};

const HELP: &str = "Usage: rvlab check FILE

Parses the scenario and prints every diagnostic as FILE:LINE:COL: error: MESSAGE, with the
line, a caret and a hint. FILE may be `-` (standard input) or `lesson:ID`.

Exit codes: 0 no errors (warnings may be printed), 1 the file has errors or cannot be read,
2 usage error.";

/// Runs the subcommand.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &[], &[]) {
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
        eprintln!("error: check takes exactly one FILE\n\n{HELP}");
        return EXIT_USAGE;
    };
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
