//! `rvlab exercises [--export DIR]`: the built-in course, for teachers.

use crate::EXIT_OK;
use rvlab_core::exercises::course::COURSE_FILE;
use rvlab_core::exercises::EXERCISES;

const LONG_ABOUT: &str = "\
Lists the built-in exercises in course order: id, kind (break: find a schedule that breaks \
an expectation; fix: edit the unlocked clients so every schedule holds) and title. \
Grade submissions with `rvlab grade ID SUBMISSION...`.";

/// `rvlab exercises`' command line.
#[derive(clap::Args)]
#[command(
    about = "List the built-in exercises, or export them with solutions (--export DIR)",
    long_about = LONG_ABOUT
)]
pub struct ExercisesArgs {
    /// Write every exercise, its reference solution and the course order to DIR
    ///
    /// DIR/ID.rvl (the starting text), DIR/ID.solution.rvl (the reference solution) and
    /// DIR/course (the course order), so that `rvlab course build DIR --out OUT` builds it. DIR
    /// is created if needed.
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    pub export: Option<String>,
}

/// Runs the subcommand.
pub fn main(args: ExercisesArgs) -> u8 {
    if let Some(dir) = args.export.as_deref() {
        let course = course_file();
        return crate::input::export(
            dir,
            EXERCISES
                .iter()
                .flat_map(|ex| {
                    [
                        (format!("{}.rvl", ex.id), ex.source),
                        (format!("{}.solution.rvl", ex.id), ex.solution()),
                    ]
                })
                .chain([(COURSE_FILE.to_string(), course.as_str())]),
        );
    }
    let width = EXERCISES.iter().map(|e| e.id.len()).max().unwrap_or(0);
    for b in EXERCISES {
        match b.parse() {
            Ok(ex) => println!("{:width$}  {:5}  {}", b.id, ex.goal.kind(), ex.title),
            Err(_) => println!("{:width$}  {:5}  (does not parse)", b.id, "?"),
        }
    }
    EXIT_OK
}

/// The `course` file of the exported course: the built-in order, and `builtin hide`, since
/// the pack's course is the built-in one.
fn course_file() -> String {
    let mut out = format!(
        "# The built-in course of rvlab {}, written by `rvlab exercises --export`.\n\
         # Edit, add or remove exercises, then: rvlab course build DIR --out site\n\
         title \"rvlab's course\"\n\
         id \"rvlab-exercises\"\n\
         builtin hide\n",
        env!("CARGO_PKG_VERSION")
    );
    for ex in EXERCISES {
        out.push_str(&format!("{}.rvl\n", ex.id));
    }
    out
}
