//! `rvlab exercise link FILE [--base URL]`: a teacher's own exercise, as a link that opens it
//! in the page.

use crate::args::Args;
use crate::{input, EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_core::exercises;
use rvlab_core::lang::render_all;
use rvlab_core::share::{ShareState, Source, MAX_LINK_BYTES, MAX_TEXT_BYTES};

const HELP: &str = "Usage: rvlab exercise link FILE [--base URL]

Prints the share link (BASE#v1&z=...) that opens the exercise FILE in the page, where it is
checked against its goal like a built-in exercise. FILE is an exercise file (a scenario with
`exercise \"ID\"` and `goal` lines; see docs/exercises.md), or `-` for standard input; the
link carries its text exactly. Without --base only the fragment (#v1&z=...) is printed: put
your page's address in front of it.

Options:
  --base URL   the page's address, e.g. https://school.example/rvlab/

Exit codes: 0 the link is printed, 1 FILE is not a valid exercise (its diagnostics are
printed as `rvlab check` prints them) or the link would be too long for a URL (use `rvlab course build`), 2 usage
error.";

/// Runs the subcommand.
pub fn main(argv: &[String]) -> u8 {
    let args = match Args::parse(argv, &["--base"], &[]) {
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
    let file = match args.positional.as_slice() {
        [what, file] if what == "link" => file,
        [what, ..] if what != "link" => {
            eprintln!("error: unknown exercise command `{what}` (there is `link`)\n\n{HELP}");
            return EXIT_USAGE;
        }
        _ => {
            eprintln!("error: exercise link takes exactly one FILE\n\n{HELP}");
            return EXIT_USAGE;
        }
    };
    let base = args.value("--base").unwrap_or("");
    if base.contains('#') {
        eprintln!("error: --base {base}: the page's address has no `#` part\n\n{HELP}");
        return EXIT_USAGE;
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
