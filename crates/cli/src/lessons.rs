//! `rvlab lessons [--export DIR]`.

use crate::EXIT_OK;
use rvlab_core::lessons::LESSONS;

/// `rvlab lessons`' command line.
#[derive(clap::Args)]
#[command(
    about = "List the built-in lessons, or export them (--export DIR)",
    long_about = "Lists the built-in lessons (id and title). Run one with `rvlab run lesson:ID`."
)]
pub struct LessonsArgs {
    /// Write every lesson to DIR/ID.rvl (DIR is created if needed)
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    pub export: Option<String>,
}

/// Runs the subcommand.
pub fn main(args: LessonsArgs) -> u8 {
    if let Some(dir) = args.export.as_deref() {
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
