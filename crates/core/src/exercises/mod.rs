//! Exercises: scenarios with a goal that is checked automatically (docs/exercises.md).
//!
//! An exercise is a scenario file with header lines the parser reads as part of the language
//! (so `rvlab run` and the page accept an exercise file as it is):
//!
//! ```text
//! exercise "first-conflict"
//! instructions "Be the scheduler: make bob's update fail."
//! hint "Bob's update carries the resourceVersion he read."
//! goal break "bob succeeds"
//! ```
//!
//! - *break it* (`goal break "EXPECTATION"`): as the scheduler, reach a run in which the named
//!   expectation fails; the submission is a schedule token (or the scenario with its
//!   `schedule` line);
//! - *fix it* (`goal fix`, with `editable CLIENT` lines): edit the editable clients so that
//!   every schedule satisfies every expectation; checked with the scenario explorer
//!   ([`crate::explore::explore`]), whose exploration must be complete.
//!
//! [`parse`] reads an exercise, [`grade`] checks a submission and returns a [`Verdict`] whose
//! reasons name the expectation, the schedule and the step, with a share link that opens the
//! run. [`EXERCISES`] is the built-in course, with a reference solution for each. [`submission`]
//! reads a student's hand-in; [`course`] is a teacher's course (its folder, its checks, its JSON).

pub mod course;
mod grade;
pub mod submission;

pub use grade::{grade, grade_token, grade_with_bounds, Verdict, GRADING_BOUNDS};

use crate::lang::ast::{ExerciseLineKind, Scenario, Span};
use crate::lang::{self, Diagnostic};

/// What the learner has to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Goal {
    /// Reach a run in which this expectation fails.
    Break {
        /// The expectation's text after `expect`, as the `goal break` line gives it.
        expectation: String,
    },
    /// Make every schedule satisfy every expectation by editing the editable clients.
    Fix,
}

impl Goal {
    /// `break` or `fix`.
    pub fn kind(&self) -> &'static str {
        match self {
            Goal::Break { .. } => "break",
            Goal::Fix => "fix",
        }
    }
}

/// A parsed exercise.
#[derive(Debug, Clone, PartialEq)]
pub struct Exercise {
    /// From `exercise "ID"`.
    pub id: String,
    /// The scenario's `title` (the id when there is none).
    pub title: String,
    /// The `instructions` lines, in order.
    pub instructions: Vec<String>,
    /// The `hint` lines, in order (shown one at a time).
    pub hints: Vec<String>,
    /// The clients the learner may edit (`editable` lines).
    pub editable: Vec<String>,
    /// What the learner has to do (`goal` line).
    pub goal: Goal,
    /// The starting text, exactly as given.
    pub text: String,
    /// The parsed starting scenario.
    pub scenario: Scenario,
}

fn at_start() -> Span {
    Span {
        start: 0,
        end: 0,
        line: 1,
        col: 1,
    }
}

/// Parses an exercise: a scenario with an `exercise "ID"` line and a `goal`. Returns every
/// diagnostic (the parser's, and the exercise's own) when the text is not a valid exercise.
pub fn parse(text: &str) -> Result<Exercise, Vec<Diagnostic>> {
    let parsed = lang::parse(text);
    let Some(scenario) = parsed.scenario else {
        return Err(parsed.diagnostics);
    };
    let mut id = None;
    let mut goal = None;
    let mut instructions = Vec::new();
    let mut hints = Vec::new();
    let mut editable: Vec<String> = Vec::new();
    let mut goal_span = None;
    for line in &scenario.exercise {
        match &line.kind {
            ExerciseLineKind::Id(s) => id = Some(s.clone()),
            ExerciseLineKind::Instructions(s) => instructions.push(s.clone()),
            ExerciseLineKind::Hint(s) => hints.push(s.clone()),
            ExerciseLineKind::Editable(s) => {
                if !editable.contains(s) {
                    editable.push(s.clone());
                }
            }
            ExerciseLineKind::GoalBreak(s) => {
                goal = Some(Goal::Break {
                    expectation: s.clone(),
                });
                goal_span = Some(line.span);
            }
            ExerciseLineKind::GoalFix => {
                goal = Some(Goal::Fix);
                goal_span = Some(line.span);
            }
        }
    }
    let mut errors = Vec::new();
    let Some(id) = id else {
        errors.push(
            Diagnostic::error(
                scenario.exercise.first().map_or(at_start(), |l| l.span),
                "this scenario is not an exercise: it has no `exercise \"ID\"` line",
            )
            .with_hint("start the file with `exercise \"my-exercise\"` and a `goal` line"),
        );
        return Err(errors);
    };
    let id_span = scenario
        .exercise
        .iter()
        .find(|l| matches!(l.kind, ExerciseLineKind::Id(_)))
        .map_or(at_start(), |l| l.span);
    match &goal {
        None => errors.push(
            Diagnostic::error(id_span, format!("exercise `{id}` has no goal")).with_hint(
                "add `goal break \"EXPECTATION\"` (a schedule puzzle) or `goal fix` (edit the editable clients)",
            ),
        ),
        Some(Goal::Fix) if editable.is_empty() => errors.push(
            Diagnostic::error(
                goal_span.unwrap_or(id_span),
                "a `goal fix` exercise needs at least one `editable CLIENT` line",
            )
            .with_hint("name the clients the learner may change, e.g. `editable bob`"),
        ),
        _ => {}
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let title = scenario.title.clone().unwrap_or_else(|| id.clone());
    Ok(Exercise {
        id,
        title,
        instructions,
        hints,
        editable,
        goal: goal.unwrap_or(Goal::Fix),
        text: text.to_string(),
        scenario,
    })
}

/// An exercise of the built-in course, compiled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinExercise {
    /// The id (`first-conflict`).
    pub id: &'static str,
    /// The file of the starting text (`01-first-conflict.rvl`).
    pub file: &'static str,
    /// The starting text.
    pub source: &'static str,
    /// The file of the reference solution (`01-first-conflict.solution.rvl`).
    pub solution_file: &'static str,
}

impl BuiltinExercise {
    /// The reference solution: the starting text edited (for *break it*, its `schedule` line).
    ///
    /// The texts live in their own table, so a program that never asks for a solution (the
    /// page) does not carry them.
    pub fn solution(&self) -> &'static str {
        EXERCISES
            .iter()
            .position(|b| b.id == self.id)
            .and_then(|i| SOLUTIONS.get(i))
            .copied()
            .unwrap_or("")
    }

    /// The parsed exercise (built-in exercises always parse: tested).
    pub fn parse(&self) -> Result<Exercise, Vec<Diagnostic>> {
        parse(self.source)
    }
}

macro_rules! exercises {
    ($($num:literal $id:literal),* ; kubectl: $($knum:literal $kid:literal $ktitle:literal),* $(,)?) => {
        /// The built-in course, in increasing difficulty (the kubectl ones only in a build that
        /// runs kubectl statements, [`crate::kubectl::IN_BUILD`]).
        pub const EXERCISES: &[BuiltinExercise] = if crate::kubectl::IN_BUILD {
            &[$(exercises!(@one $num $id),)* $(exercises!(@one $knum $kid),)*]
        } else {
            &[$(exercises!(@one $num $id),)*]
        };
        /// The reference solutions, in the order of [`EXERCISES`].
        const SOLUTIONS: &[&str] = if crate::kubectl::IN_BUILD {
            &[$(exercises!(@solution $num $id),)* $(exercises!(@solution $knum $kid),)*]
        } else {
            &[$(exercises!(@solution $num $id),)*]
        };
        /// The kubectl exercises' ids and titles, in every build: the page's first build,
        /// which leaves the model out, lists them and opens them in its kubectl build.
        pub const KUBECTL: &[(&str, &str)] = &[$(($kid, $ktitle),)*];
    };
    (@one $num:literal $id:literal) => {
        BuiltinExercise {
            id: $id,
            file: concat!($num, "-", $id, ".rvl"),
            source: include_str!(concat!("../../exercises/", $num, "-", $id, ".rvl")),
            solution_file: concat!($num, "-", $id, ".solution.rvl"),
        }
    };
    (@solution $num:literal $id:literal) => {
        include_str!(concat!("../../exercises/", $num, "-", $id, ".solution.rvl"))
    };
}

exercises! {
    "01" "first-conflict",
    "02" "retry-reread",
    "03" "retry-without-reread",
    "04" "unconditional-update",
    "05" "keep-the-precondition",
    "06" "merge-patch-same-field",
    "07" "json-patch-test",
    "08" "apply-force",
    "09" "create-or-apply",
    "10" "delete-precondition",
    "11" "counter",
    "12" "starve-default-retry",
    "13" "fresh-version-stale-body";
    kubectl:
    "14" "kubectl-patch-precondition" "Give kubectl patch a precondition",
    "15" "kubectl-stale-file" "Make kubectl replace refuse a stale file",
}

/// The built-in exercise with this id.
pub fn builtin(id: &str) -> Option<&'static BuiltinExercise> {
    EXERCISES.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "a test: std's sort is not in the page"
    )]
    fn the_list_matches_the_directory() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/exercises");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("exercises directory")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rvl"))
            // Without the kubectl model, its lessons and exercises are not listed.
            .filter(|n| crate::kubectl::IN_BUILD || !n.contains("-kubectl-"))
            .collect();
        files.sort();
        let mut listed: Vec<String> = EXERCISES
            .iter()
            .flat_map(|e| [e.file.to_string(), e.solution_file.to_string()])
            .collect();
        listed.sort();
        assert_eq!(files, listed);
        for e in EXERCISES {
            let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).expect("file");
            assert_eq!(read(e.file), e.source);
            assert_eq!(read(e.solution_file), e.solution());
        }
    }

    #[test]
    fn ids_match_files_and_are_unique() {
        for (i, e) in EXERCISES.iter().enumerate() {
            assert!(EXERCISES[..i].iter().all(|o| o.id != e.id));
            let parsed = e.parse().expect("built-in exercise parses");
            assert_eq!(parsed.id, e.id, "{}", e.file);
            assert_eq!(builtin(e.id).map(|b| b.file), Some(e.file));
        }
        assert!(builtin("nope").is_none());
    }

    #[test]
    fn the_kubectl_list_has_each_exercises_own_title() {
        assert_eq!(KUBECTL.len(), 2);
        for (id, title) in KUBECTL {
            let file = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/exercises"))
                .expect("exercises directory")
                .filter_map(|e| e.ok())
                .find(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .ends_with(&format!("-{id}.rvl"))
                })
                .expect("the exercise's file");
            let text = std::fs::read_to_string(file.path()).expect("exercise file");
            assert!(text.contains(&format!("title \"{title}\"\n")), "{id}");
            if crate::kubectl::IN_BUILD {
                let parsed = builtin(id).expect("listed").parse().expect("parses");
                assert_eq!(parsed.title, *title);
            } else {
                assert!(builtin(id).is_none());
            }
        }
    }
}
