//! `rvlab lessons [--export DIR]`.

use crate::args::Args;
use crate::{EXIT_OK, EXIT_USAGE};
use rvlab_core::lessons::LESSONS;

const HELP: &str = "Usage: rvlab lessons [--export DIR]

Lists the built-in lessons (id and title). Run one with `rvlab run lesson:ID`.

Options:
  --export DIR   write every lesson to DIR/ID.rvl (DIR is created if needed)";

/// Runs the subcommand.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &["--export"], &[]) {
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
    if !args.positional.is_empty() {
        eprintln!("error: lessons takes no FILE\n\n{HELP}");
        return EXIT_USAGE;
    }
    if let Some(dir) = args.value("--export") {
        return crate::input::export(
            dir,
            LESSONS.iter().map(|l| (format!("{}.rvl", l.id), l.source)),
        );
    }
    let width = LESSONS.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for l in LESSONS {
        println!("{:width$}  {}", l.id, l.title());
    }
    EXIT_OK
}
