//! A teacher's course (issue #20): a folder of exercise files built into a course pack by
//! `rvlab course build DIR --out OUT`, which the page's Exercises view shows in place of, or
//! beside, the built-in course.
//!
//! **The folder.** Exercise files `NAME.rvl` (docs/exercises.md), each with an optional
//! reference solution `NAME.solution.rvl`, and an optional `course` file ([`read_course_file`]):
//!
//! ```text
//! # Week 3: optimistic concurrency
//! title "Week 3: optimistic concurrency"
//! id "week-3"
//! builtin beside
//! 01-first-conflict.rvl
//! 02-retry.rvl
//! ```
//!
//! Without a `course` file (or without its lines) the title and id come from the folder's
//! name and the exercises are every `*.rvl` that is not a solution, by file name.
//!
//! **The pack** is the release page with the course in each page, as JSON in a
//! `<script type="application/json" id="rvlab-course">` element ([`to_json`], read back by
//! [`Course::from_json`]). Only the starting texts go in: solutions are used by [`check`]
//! when the pack is built and never copied.

use super::{grade, parse, Exercise, Goal};
use crate::lang::Diagnostic;
use crate::share::MAX_TEXT_BYTES;
use serde_json::Value;

/// The file in the folder that gives the title, the id and the order.
pub const COURSE_FILE: &str = "course";
/// The id of the page element that holds the course.
pub const ELEMENT_ID: &str = "rvlab-course";
/// The version of the course's JSON form (its `rvlab-course` field).
pub const FORMAT: u64 = 1;
/// At most this many exercises in a course.
pub const MAX_EXERCISES: usize = 200;

/// What a `course` file says; `None` where it says nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CourseFile {
    pub title: Option<String>,
    pub id: Option<String>,
    /// `builtin beside` (`Some(true)`) or `builtin hide` (`Some(false)`).
    pub builtin: Option<bool>,
    /// The exercise files, in course order.
    pub files: Vec<String>,
}

/// A line of a `course` file that is wrong: its number (from 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// Reads a `course` file: `title "…"`, `id "…"`, `builtin beside|hide`, and one exercise file
/// name per line, in course order; `#` starts a comment line. Every wrong line is reported.
pub fn read_course_file(text: &str) -> Result<CourseFile, Vec<LineError>> {
    let mut out = CourseFile::default();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |message: String| LineError {
            line: i + 1,
            message,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let quoted = || {
            rest.strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .filter(|s| !s.contains('"'))
                .map(str::to_string)
        };
        match word {
            "title" | "id" => {
                let Some(value) = quoted() else {
                    errors.push(err(format!(
                        "`{word}` takes one quoted text, e.g. `{word} \"{}\"`",
                        if word == "id" { "week-3" } else { "Week 3" }
                    )));
                    continue;
                };
                let slot = if word == "title" {
                    &mut out.title
                } else {
                    &mut out.id
                };
                if slot.is_some() {
                    errors.push(err(format!("`{word}` is given twice")));
                } else if word == "id" && !valid_id(&value) {
                    errors.push(err(format!(
                        "`{}` is not a course id: lowercase letters, digits and `-`, at most 64",
                        super::submission::cut(&value, 40)
                    )));
                } else if value.trim().is_empty() {
                    errors.push(err(format!("`{word}` is empty")));
                } else {
                    *slot = Some(value);
                }
            }
            "builtin" => match rest {
                "beside" | "hide" if out.builtin.is_none() => {
                    out.builtin = Some(rest == "beside");
                }
                "beside" | "hide" => errors.push(err("`builtin` is given twice".to_string())),
                _ => errors.push(err(
                    "`builtin` is `builtin beside` (the built-in course is shown too) or `builtin hide`"
                        .to_string(),
                )),
            },
            _ if rest.is_empty() && line.ends_with(".rvl") => {
                if line.ends_with(".solution.rvl") {
                    errors.push(err(format!(
                        "`{line}` is a reference solution: list the exercise file instead (its solution is found by its name)"
                    )));
                } else if line.contains('/') || line.contains('\\') || line.starts_with('.') {
                    errors.push(err(format!(
                        "`{line}`: name a file in the course's folder (no `/`)"
                    )));
                } else if out.files.iter().any(|f| f == line) {
                    errors.push(err(format!("`{line}` is listed twice")));
                } else {
                    out.files.push(line.to_string());
                }
            }
            _ => errors.push(err(format!(
                "`{}` is not `title \"…\"`, `id \"…\"`, `builtin beside|hide` or an exercise file name (`NAME.rvl`)",
                super::submission::cut(line, 60)
            ))),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A course id (the key of its progress in the page's storage): lowercase letters, digits
/// and `-`, 1 to 64 of them.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An id made from a name (a folder's or a title): lowercase, other characters as `-`.
pub fn id_from(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
        if id.len() >= 64 {
            break;
        }
    }
    let id = id.trim_end_matches('-').to_string();
    if id.is_empty() {
        "course".to_string()
    } else {
        id
    }
}

/// The reference solution's file name for an exercise file (`a.rvl` → `a.solution.rvl`).
pub fn solution_file(file: &str) -> String {
    format!("{}.solution.rvl", file.strip_suffix(".rvl").unwrap_or(file))
}

/// What is wrong with an exercise of a course when it is built: its starting text must fail
/// its goal (and a *break it* start must hold on its own schedule, so that the page opens on
/// a run that works), and its reference solution, when there is one, must pass. Empty when
/// all is well.
pub fn check(ex: &Exercise, solution: Option<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    let start = grade(ex, &ex.text);
    if start.pass {
        problems.push(
            "its starting text already passes its goal: a learner would have nothing to do"
                .to_string(),
        );
    }
    if let Goal::Break { expectation } = &ex.goal {
        if let Ok(run) = crate::run::Run::new(&ex.scenario, 0, None) {
            let broken = run
                .expectations()
                .into_iter()
                .find(|r| r.text == *expectation)
                .filter(|r| !r.holds);
            if let Some(r) = broken {
                problems.push(format!(
                    "`{expectation}` already fails on the starting text's own schedule ({}): give a `schedule` in which it holds, so the page opens on a run that works",
                    r.detail
                ));
            }
        }
    }
    if let Some(solution) = solution {
        match parse(solution) {
            Err(diags) => problems.push(format!(
                "its reference solution is not a valid exercise: {}",
                first_problem(&diags)
            )),
            Ok(sol) if sol.id != ex.id => problems.push(format!(
                "its reference solution is exercise `{}`, not `{}`",
                sol.id, ex.id
            )),
            Ok(_) => {
                let v = grade(ex, solution);
                if !v.pass {
                    problems.push(format!(
                        "its reference solution fails: {}",
                        v.reasons.first().map_or("", String::as_str)
                    ));
                }
            }
        }
    }
    problems
}

/// `line L: MESSAGE` of the first diagnostic.
pub fn first_problem(diags: &[Diagnostic]) -> String {
    diags.first().map_or_else(
        || "it does not parse".to_string(),
        |d| format!("line {}: {}", d.span.line, d.message),
    )
}

/// The course's JSON form, safe inside an HTML `<script>` element (`<` is written `\u003c`):
/// the title, the id, whether the built-in course is shown beside it, and each exercise's
/// file name and starting text, in order, with its id, title and whether it runs kubectl
/// commands (so that a page without the kubectl model can list it and open it in its
/// kubectl build).
pub fn to_json(title: &str, id: &str, builtin: bool, exercises: &[(String, String)]) -> String {
    let list: Vec<Value> = exercises
        .iter()
        .map(|(file, text)| {
            let (id, title, kubectl) = match parse(text) {
                Ok(ex) => {
                    let kubectl = ex.scenario.clients.iter().any(crate::view::has_kubectl);
                    (ex.id, ex.title, kubectl)
                }
                Err(_) => (file.clone(), file.clone(), false),
            };
            serde_json::json!({ "file": file, "id": id, "title": title, "kubectl": kubectl, "text": text })
        })
        .collect();
    let v = serde_json::json!({
        "rvlab-course": FORMAT,
        "title": title,
        "id": id,
        "builtin": builtin,
        "exercises": list,
    });
    v.to_string().replace('<', "\\u003c")
}

/// A course as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Course {
    pub title: String,
    /// The key of its progress.
    pub id: String,
    /// The built-in course is shown beside it.
    pub builtin: bool,
    pub entries: Vec<Entry>,
}

/// One exercise of a course: the exercise, or why its text is not one (shown on that
/// exercise only; the others work).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub file: String,
    /// The exercise's id (the file's name when the text is not an exercise).
    pub id: String,
    pub title: String,
    /// It runs kubectl commands, and this build has no kubectl model: the page opens it in
    /// its kubectl build (`exercise` is then an `Err`).
    pub kubectl: bool,
    pub exercise: Result<Exercise, String>,
}

impl Course {
    /// Reads the JSON form ([`to_json`]). The course as a whole is refused (`Err`, a
    /// sentence) when it is not that form; an exercise whose text is not a valid exercise, is
    /// too large, or repeats an earlier one's id gets its own error and the others stay.
    pub fn from_json(text: &str) -> Result<Course, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("it is not JSON ({e})"))?;
        match v.get("rvlab-course").and_then(Value::as_u64) {
            Some(FORMAT) => {}
            Some(n) => {
                return Err(format!(
                    "it is a course of format {n}; this page reads format {FORMAT}"
                ))
            }
            None => return Err("it is not an rvlab course".to_string()),
        }
        let string = |key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").trim();
        let title = string("title");
        let id = string("id");
        if title.is_empty() {
            return Err("it has no title".to_string());
        }
        if !valid_id(id) {
            return Err("its id is not a course id".to_string());
        }
        let list = v
            .get("exercises")
            .and_then(Value::as_array)
            .ok_or("it lists no exercises")?;
        if list.len() > MAX_EXERCISES {
            return Err(format!(
                "it has {} exercises; a course has at most {MAX_EXERCISES}",
                list.len()
            ));
        }
        let mut entries: Vec<Entry> = Vec::new();
        for (i, e) in list.iter().enumerate() {
            let field = |key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
            let file = field("file").unwrap_or_else(|| format!("exercise {}", i + 1));
            let mut kubectl = false;
            let exercise = match e.get("text").and_then(Value::as_str) {
                None => Err("it has no text".to_string()),
                Some(t) if t.len() > MAX_TEXT_BYTES => {
                    Err(format!("its text is larger than {MAX_TEXT_BYTES} bytes"))
                }
                Some(t) => parse(t).map_err(|d| {
                    kubectl = crate::lang::needs_kubectl_model(&d);
                    first_problem(&d)
                }),
            };
            let exercise = exercise.and_then(|ex| {
                match entries
                    .iter()
                    .position(|o| o.exercise.is_ok() && o.id == ex.id)
                {
                    Some(n) => Err(format!(
                        "its id `{}` is exercise {}'s too (ids must differ)",
                        ex.id,
                        n + 1
                    )),
                    None => Ok(ex),
                }
            });
            // The listed id and title are the parsed exercise's; the JSON's own only for an
            // exercise this build cannot read (a kubectl one), and then only a valid id.
            let (id, title) = match &exercise {
                Ok(ex) => (ex.id.clone(), ex.title.clone()),
                Err(_) => match (kubectl, field("id"), field("title")) {
                    (true, Some(id), Some(title)) if super::submission::valid_id(&id) => {
                        (id, title)
                    }
                    _ => {
                        kubectl = false;
                        (file.clone(), file.clone())
                    }
                },
            };
            entries.push(Entry {
                file,
                id,
                title,
                kubectl,
                exercise,
            });
        }
        Ok(Course {
            title: title.to_string(),
            id: id.to_string(),
            builtin: v.get("builtin").and_then(Value::as_bool).unwrap_or(true),
            entries,
        })
    }

    /// The entry whose exercise has this id.
    pub fn find(&self, id: &str) -> Option<&Exercise> {
        self.entries
            .iter()
            .find_map(|e| e.exercise.as_ref().ok().filter(|ex| ex.id == id))
    }
}

#[cfg(test)]
mod tests;
