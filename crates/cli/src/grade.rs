//! `rvlab grade EXERCISE SUBMISSION...`: one verdict per submission, for teachers.

use crate::input;
use crate::{usage_error, EXIT_FAILED, EXIT_OK, EXIT_USAGE};
use rvlab_core::exercises::submission::{cut, Submission, Work, TEXT_HEADER};
use rvlab_core::exercises::{self, Exercise, Goal, Verdict};
use rvlab_core::lang::render_all;
use rvlab_core::share::MAX_LINK_BYTES;

const LONG_ABOUT: &str = "\
Grades each submission against the exercise's goal and prints one line per submission:
  PASS NAME
  FAIL NAME: REASON

EXERCISE is a built-in exercise id (see `rvlab exercises`) or an exercise file.
A SUBMISSION is a file (`-` for standard input) holding one of:
  - a student's hand-in: the text form (starting with `rvlab submission 1`, then \
`exercise: ID` and `schedule: TOKEN` or `scenario:` and the text) or a link \
(`…#v1&z=…&ex=ID`, a share link of the work naming the exercise);
  - the edited scenario;
  - for a break-it exercise, just the schedule token (e.g. `ba3b2`).
A SUBMISSION that is itself a link (it contains `#v1`) or a hand-in's text (it starts with \
`rvlab submission 1`) is read as it is, not as a file; it is named `link N` or `hand-in N` \
(N: its place among the submissions). A hand-in for another exercise fails, naming it.

Break it: the hand-in's schedule (or the scenario's `schedule` line) is run; it passes when \
the goal's expectation fails. Fix it: every schedule of the edited scenario is explored; it \
passes when the exploration is complete and no schedule violates an expectation. Either way, \
a submission that changes a locked client, the setup objects or the expectations fails. \
A long submission is never echoed whole: a reason's long words are cut (with `…`).";

const AFTER_HELP: &str = "\
Exit codes: 0 every submission passes, 1 one fails (or the exercise has errors, or the \
report cannot be written), 2 usage error.";

/// `rvlab grade`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Grade submissions against an exercise (PASS / FAIL per submission, hand-ins as \
             text or links, --report class.csv / class.json)",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
pub struct GradeArgs {
    /// A built-in exercise id (see `rvlab exercises`) or an exercise file
    #[arg(value_name = "EXERCISE")]
    pub exercise: String,
    /// A file (`-` for standard input), a link or a hand-in's text
    #[arg(value_name = "SUBMISSION", required = true)]
    pub submissions: Vec<String>,
    /// Print every reason and a share link (#v1&z=...&t=TOKEN) that opens the run
    #[arg(long)]
    pub verbose: bool,
    /// Also write one row per submission to FILE: `.csv` or `.json`
    ///
    /// `.csv`: the header name,result,reason,link; `.json`: an array of objects with the keys
    /// name, result, reason, link. result is PASS or FAIL, reason the first one.
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub report: Option<String>,
}

/// The longest word of a reason printed (or written to a report), in characters: a long
/// schedule or value out of a submission is cut there, with `…`.
const MAX_WORD_CHARS: usize = 80;
/// The longest reason printed (or written to a report), in characters.
const MAX_REASON_CHARS: usize = 400;

/// `reason` with every overlong word cut (a long submission is never echoed whole).
fn shorten(reason: &str) -> String {
    let words: Vec<String> = reason.split(' ').map(|w| cut(w, MAX_WORD_CHARS)).collect();
    cut(&words.join(" "), MAX_REASON_CHARS)
}

/// The report formats, by file extension.
#[derive(Clone, Copy)]
enum Format {
    Csv,
    Json,
}

/// One graded submission.
struct Row {
    name: String,
    pass: bool,
    reasons: Vec<String>,
    link: Option<String>,
}

impl Row {
    fn fail(name: String, reason: String) -> Row {
        Row {
            name,
            pass: false,
            reasons: vec![reason],
            link: None,
        }
    }

    fn from_verdict(name: String, v: Verdict) -> Row {
        Row {
            name,
            pass: v.pass,
            reasons: v.reasons.iter().map(|r| shorten(r)).collect(),
            // A link longer than a link may be would not open: leave it out.
            link: v.link.filter(|l| l.len() <= MAX_LINK_BYTES + 1),
        }
    }

    fn result(&self) -> &'static str {
        if self.pass {
            "PASS"
        } else {
            "FAIL"
        }
    }
}

/// Runs the subcommand.
pub fn main(args: GradeArgs) -> u8 {
    let verbose = args.verbose;
    let (exercise, submissions) = (&args.exercise, &args.submissions);
    if std::iter::once(exercise)
        .chain(submissions)
        .filter(|s| *s == "-")
        .count()
        > 1
    {
        return usage_error(&["grade"], "standard input (`-`) can be given once");
    }
    let report = match args.report.as_deref() {
        None => None,
        Some(path) => match report_format(path) {
            Some(f) => Some((path, f)),
            None => {
                return usage_error(
                    &["grade"],
                    format!("--report {path}: the report is written as CSV (a FILE ending in .csv) or JSON (.json)"),
                );
            }
        },
    };
    let ex = match load_exercise(exercise) {
        Ok(ex) => ex,
        Err((code, message)) => {
            eprintln!("{message}");
            return code;
        }
    };
    let mut rows = Vec::new();
    for (i, arg) in submissions.iter().enumerate() {
        let row = grade_one(&ex, arg, i + 1);
        print_row(&row, verbose);
        rows.push(row);
    }
    let mut code = if rows.iter().all(|r| r.pass) {
        EXIT_OK
    } else {
        EXIT_FAILED
    };
    if let Some((path, format)) = report {
        let text = match format {
            Format::Csv => to_csv(&rows),
            Format::Json => to_json(&rows),
        };
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write the report {path}: {e}");
            code = EXIT_FAILED;
        }
    }
    code
}

fn report_format(path: &str) -> Option<Format> {
    let ext = std::path::Path::new(path).extension()?.to_str()?;
    match ext.to_ascii_lowercase().as_str() {
        "csv" => Some(Format::Csv),
        "json" => Some(Format::Json),
        _ => None,
    }
}

/// Whether a SUBMISSION argument is a hand-in itself rather than a file's path.
fn inline_kind(arg: &str) -> Option<&'static str> {
    if arg.starts_with(TEXT_HEADER) {
        Some("hand-in")
    } else if arg.contains("#v1") {
        Some("link")
    } else {
        None
    }
}

/// Reads and grades the `index`-th SUBMISSION argument.
fn grade_one(ex: &Exercise, arg: &str, index: usize) -> Row {
    let (name, content) = match inline_kind(arg) {
        Some(kind) => (format!("{kind} {index}"), arg.to_string()),
        None => match input::load(arg) {
            Ok(text) => (arg.to_string(), text),
            Err(e) => return Row::fail(arg.to_string(), e),
        },
    };
    let hand_in = match Submission::read(&content) {
        Ok(Some(h)) => h,
        Ok(None) => return Row::from_verdict(name, exercises::grade(ex, &content)),
        Err(e) => return Row::fail(name, format!("the hand-in cannot be read: {e}")),
    };
    if hand_in.exercise != ex.id {
        return Row::fail(
            name,
            format!(
                "this hand-in is for exercise `{}`, not `{}`",
                hand_in.exercise, ex.id
            ),
        );
    }
    let verdict = match (&ex.goal, &hand_in.work) {
        // Break it: the order the student chose is what counts (as on the page).
        (_, Work::Token(token)) => exercises::grade_token(ex, token),
        (Goal::Break { .. }, Work::Text { token, .. }) if !token.is_empty() => {
            exercises::grade_token(ex, token)
        }
        // Fix it (or a break-it scenario with its `schedule` line): the text.
        (_, Work::Text { text, .. }) => exercises::grade(ex, text),
    };
    Row::from_verdict(name, verdict)
}

fn print_row(row: &Row, verbose: bool) {
    let name = &row.name;
    if verbose {
        println!("{} {name}", row.result());
        for r in &row.reasons {
            println!("  {r}");
        }
        if let Some(link) = &row.link {
            println!("  open: {link}");
        }
    } else if row.pass {
        println!("PASS {name}");
    } else {
        println!("FAIL {name}: {}", row.reasons.join("; "));
    }
}

/// One CSV cell. A cell a spreadsheet would run as a formula (it starts with `=`, `+`, `-`,
/// `@`, a tab or a carriage return: a student can name a file `=HYPERLINK(…).rvl`) gets a
/// leading `'`, as OWASP's CSV injection advice says, so the sheet shows it as text.
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from("name,result,reason,link\n");
    for r in rows {
        let fields = [
            csv_field(&r.name),
            r.result().to_string(),
            csv_field(r.reasons.first().map_or("", String::as_str)),
            csv_field(r.link.as_deref().unwrap_or("")),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn to_json(rows: &[Row]) -> String {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "result": r.result(),
                "reason": r.reasons.first().map_or("", String::as_str),
                "link": r.link.as_deref().unwrap_or(""),
            })
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into());
    out.push('\n');
    out
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

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn csv_cells_are_quoted_and_never_formulas() {
        assert_eq!(csv_field("plain.rvl"), "plain.rvl");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        for c in ["+1", "-1", "@SUM(A1)", "\tx"] {
            assert_eq!(csv_field(c), format!("'{c}"));
        }
        assert_eq!(csv_field("\rx"), "\"'\rx\"");
    }
}
