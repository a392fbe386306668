//! `rvlab exercise link FILE [--base URL]`: a teacher's own exercise, as a link that opens it
//! in the page.

use crate::{input, usage_error, EXIT_FAILED, EXIT_OK};
use rvlab_core::exercises;
use rvlab_core::lang::render_all;
use rvlab_core::share::{ShareState, Source, MAX_LINK_BYTES, MAX_TEXT_BYTES};

const LONG_ABOUT: &str = "\
Prints the share link (BASE#v1&z=...) that opens the exercise FILE in the page, where it is \
checked against its goal like a built-in exercise. FILE is an exercise file (a scenario with \
`exercise \"ID\"` and `goal` lines; see docs/exercises.md), or `-` for standard input; the \
link carries its text exactly. Without --base only the fragment (#v1&z=...) is printed: put \
your page's address in front of it.";

const AFTER_HELP: &str = "\
Exit codes: 0 the link is printed, 1 FILE is not a valid exercise (its diagnostics are \
printed as `rvlab check` prints them) or the link would be too long for a URL (use `rvlab \
course build`), 2 usage error.";

/// What `rvlab exercise --help` ends with (its one command's options are `exercise link`'s).
const GROUP_AFTER_HELP: &str = "\
Run `rvlab exercise link FILE [--base URL]`; `rvlab exercise link --help` explains its options.

Exit codes: 0 the link is printed, 1 FILE is not a valid exercise or the link would be too long \
for a URL, 2 usage error.";

/// `rvlab exercise`'s command line: its one subcommand.
#[derive(clap::Args)]
#[command(
    about = "A teacher's own exercise: `exercise link FILE` prints its share link",
    long_about = LONG_ABOUT,
    after_long_help = GROUP_AFTER_HELP,
    // Without its subcommand: an error (`error: ...`), as a missing argument is.
    arg_required_else_help = false
)]
pub struct ExerciseArgs {
    #[command(subcommand)]
    pub command: ExerciseCommand,
}

/// `rvlab exercise`'s subcommands.
#[derive(clap::Subcommand)]
pub enum ExerciseCommand {
    Link(LinkArgs),
}

/// `rvlab exercise link`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Print the share link that opens your exercise FILE in the page",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct LinkArgs {
    /// The exercise file, or `-` for standard input
    #[arg(value_name = "FILE")]
    pub file: String,
    /// The page's address, e.g. https://school.example/rvlab/
    #[arg(long, value_name = "URL", allow_hyphen_values = true)]
    pub base: Option<String>,
}

/// Runs the subcommand.
pub fn main(args: ExerciseArgs) -> u8 {
    let ExerciseCommand::Link(args) = args.command;
    let file = &args.file;
    let base = args.base.as_deref().unwrap_or("");
    if base.contains('#') {
        return usage_error(
            &["exercise", "link"],
            format!("--base {base}: the page's address has no `#` part"),
        );
    }
    let text = match input::load(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    };
    let shown = input::display_name(file);
    if text.len() > MAX_TEXT_BYTES {
        eprintln!(
            "error: {shown}: it is {} bytes; an exercise has at most {MAX_TEXT_BYTES} (the editor's limit)",
            text.len()
        );
        return EXIT_FAILED;
    }
    if let Err(diags) = exercises::parse(&text) {
        eprintln!("{}", render_all(&diags, shown, &text));
        eprintln!("{shown}: not a valid exercise");
        return EXIT_FAILED;
    }
    let fragment = ShareState {
        source: Source::Text(text),
        token: String::new(),
        position: 0,
        seed: 0,
        view: String::new(),
    }
    .encode();
    if fragment.len() > MAX_LINK_BYTES {
        eprintln!(
            "error: {shown}: the link would be {} bytes, too long for a URL (links up to {MAX_LINK_BYTES} bytes open); put the exercise in a course pack instead (`rvlab course build DIR --out OUT`, docs/exercises.md)",
            fragment.len()
        );
        return EXIT_FAILED;
    }
    println!("{base}#{fragment}");
    EXIT_OK
}
