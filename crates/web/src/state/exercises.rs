//! The exercises view's state: the course (`rvlab_core::exercises::EXERCISES`), the exercise
//! being worked on, the hints shown so far, the last verdict, and the solved ids (kept in
//! localStorage by `hooks::use_exercise_progress`, in the versioned form of
//! [`progress_to_json`]). Pure: grading is the core's `grade` / `grade_token`.

use super::AppState;
use rvlab_core::exercises::course::Course;
use rvlab_core::exercises::{builtin, grade, grade_token, Exercise, Goal, Verdict, EXERCISES};
use rvlab_core::lang::ast::Scenario;
use rvlab_core::lang::parse;
use rvlab_core::share::{ShareState, Source};
use serde_json::Value;
use std::rc::Rc;

/// The localStorage key of the built-in course's progress.
pub const PROGRESS_KEY: &str = "rvlab.exercises";
/// The localStorage key of a teacher's course's progress: this, then the course's id.
pub const COURSE_PROGRESS_KEY: &str = "rvlab.course.";
/// The version of the stored progress.
pub const PROGRESS_VERSION: u64 = 1;

/// The exercise being worked on.
#[derive(Debug, Clone, PartialEq)]
pub struct ExerciseSession {
    /// The exercise's id (`exercise "ID"`).
    pub id: Rc<str>,
    /// Where it comes from (whose progress it counts in).
    pub origin: Origin,
    pub exercise: Rc<Exercise>,
    /// How many hints are shown (one more per click).
    pub hints_shown: usize,
    /// The verdict of the last check.
    pub verdict: Option<Rc<Verdict>>,
    /// The editor just refused an edit of a locked line (the panel says why).
    pub refused_edit: bool,
    /// The hand-in "Copy my work" prepared: its text form and its link's fragment (or why
    /// the work cannot be a link), `rvlab_core::exercises::submission`.
    pub hand_in: Option<Rc<(String, Result<String, String>)>>,
}

/// Where an open exercise comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The built-in course.
    Builtin,
    /// The page's own course (a teacher's course pack).
    Course,
    /// A link (a teacher's exercise, `rvlab exercise link`): graded, counted nowhere.
    Link,
}

/// The exercises view.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExercisesState {
    /// The view is showing (instead of the lessons).
    pub open: bool,
    pub current: Option<ExerciseSession>,
    /// Solved ids of the built-in course, in course order.
    pub solved: Vec<String>,
    /// The page's own course, when it is a course pack (`rvlab course build`).
    pub course: Option<Rc<Course>>,
    /// Solved ids of the page's own course, in its order.
    pub course_solved: Vec<String>,
    /// The stored progress was read (saving waits for it, so nothing is overwritten).
    pub restored: bool,
}

impl ExercisesState {
    /// Whether the built-in exercise is marked solved.
    pub fn is_solved(&self, id: &str) -> bool {
        self.solved.iter().any(|s| s == id)
    }

    /// Whether the built-in course is listed (always, unless the page's own course hides it).
    pub fn shows_builtin(&self) -> bool {
        self.course.as_ref().is_none_or(|c| c.builtin)
    }

    /// Solved and listed exercises, for the tab.
    pub fn progress(&self) -> (usize, usize) {
        let own = self
            .course
            .as_ref()
            .map_or((0, 0), |c| (self.course_solved.len(), c.entries.len()));
        if self.shows_builtin() {
            (own.0 + self.solved.len(), own.1 + EXERCISES.len())
        } else {
            own
        }
    }

    /// Whether `action` changes nothing (see `AppState::ignores`): the view already open or
    /// closed, no hint left to show, a refused edit already said.
    pub fn ignores(&self, action: &ExerciseAction) -> bool {
        match action {
            ExerciseAction::Open(open) => *open == self.open && *open == self.current.is_some(),
            ExerciseAction::Hint => self
                .current
                .as_ref()
                .is_none_or(|s| s.hints_shown >= s.exercise.hints.len()),
            ExerciseAction::RefusedEdit => self.current.as_ref().is_none_or(|s| s.refused_edit),
            _ => false,
        }
    }
}

/// What happens in the exercises view.
#[derive(Debug, Clone, PartialEq)]
pub enum ExerciseAction {
    /// Show the exercises (loading the first unsolved one when none is open), or the lessons.
    Open(bool),
    /// Start a built-in exercise.
    Load(&'static str),
    /// Start the page's own course's exercise with this id.
    LoadCourse(Rc<str>),
    /// Start the exercise this text is (a teacher's, from a link: `exercise "ID"` and its
    /// header lines); a text that is not a valid exercise is shown as a scenario, with a
    /// notice.
    LoadText(String),
    /// Start the open exercise over (its text, no hints shown, no verdict).
    Restart,
    /// Prepare the hand-in ("Copy my work"): the work as text and as a link.
    HandIn,
    /// Show one more hint.
    Hint,
    /// Grade: *break it* grades the shown run's schedule, *fix it* the editor's text.
    Check,
    /// Load the run the verdict's link names into the timeline.
    OpenVerdictRun,
    /// The progress read from storage: the built-in course's and the page's own course's
    /// (raw texts; unreadable text counts as none).
    Restore(Option<String>, Option<String>),
    /// The editor refused an edit of a locked line.
    RefusedEdit,
}

/// Reads stored progress: `{"version":1,"solved":[ids]}`, keeping the ids of `course`
/// (in its order). Anything else (another version, broken JSON, unknown ids) is ignored
/// rather than trusted.
pub fn progress_from_json<'a>(text: &str, course: impl Iterator<Item = &'a str>) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    if v.get("version").and_then(Value::as_u64) != Some(PROGRESS_VERSION) {
        return Vec::new();
    }
    let listed: Vec<&str> = v
        .get("solved")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    course
        .filter(|id| listed.contains(id))
        .map(str::to_string)
        .collect()
}

/// The stored form of the progress.
pub fn progress_to_json(solved: &[String]) -> String {
    rvlab_core::json::object(vec![
        ("version", PROGRESS_VERSION.into()),
        (
            "solved",
            Value::Array(solved.iter().map(|s| s.as_str().into()).collect()),
        ),
    ])
    .to_string()
}

/// The text without its exercise header lines (`exercise`, `instructions`, `hint`, `goal`,
/// `editable`): the panel shows them, and hints stay hidden until asked for. Grading ignores
/// these lines, so the stripped text grades like the full one.
pub fn without_exercise_lines(text: &str, scenario: &Scenario) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for line in &scenario.exercise {
        let start = (line.span.start as usize).min(text.len());
        if start < at {
            continue;
        }
        let mut end = (line.span.end as usize).clamp(start, text.len());
        if text[end..].starts_with('\n') {
            end += 1;
        }
        if let Some(piece) = text.get(at..start) {
            out.push_str(piece);
            at = end;
        }
    }
    out.push_str(text.get(at..).unwrap_or(""));
    // Blank lines left at the top by the removed header.
    out.trim_start_matches('\n').to_string()
}

/// A client of the exercise with its lock state and lines, for the panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientLock {
    pub name: String,
    pub editable: bool,
    /// The first line of the client in the editor's text (1-based), when found.
    pub line: Option<u32>,
}

impl ExerciseSession {
    /// The exercise's clients, locked or editable, with their lines in `source`.
    pub fn clients(&self, source: &str) -> Vec<ClientLock> {
        let lines = parse(source).scenario;
        self.exercise
            .scenario
            .clients
            .iter()
            .map(|c| ClientLock {
                name: c.name.clone(),
                editable: self.exercise.editable.contains(&c.name),
                line: lines
                    .as_ref()
                    .and_then(|s| s.clients.iter().find(|x| x.name == c.name))
                    .map(|x| x.span.line),
            })
            .collect()
    }
}

/// The parts of the text a learner may not edit: each locked client, from its `client` line
/// through its last indented line, as `(start, end)` offsets in UTF-16 code units (the
/// textarea's units). Empty while the text does not parse. Grading stays the authority; this
/// only keeps the editor from changing locked lines by accident.
pub fn locked_ranges(session: &ExerciseSession, source: &str) -> Vec<(u32, u32)> {
    let Some(scenario) = parse(source).scenario else {
        return Vec::new();
    };
    let headers: Vec<u32> = scenario
        .clients
        .iter()
        .filter(|c| !session.exercise.editable.contains(&c.name))
        .map(|c| c.span.line)
        .collect();
    let mut out = Vec::new();
    let mut open: Option<(u32, u32)> = None;
    let mut at = 0u32;
    for (i, line) in source.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        let end = at + content.encode_utf16().count() as u32;
        if headers.contains(&(i as u32 + 1)) {
            out.extend(open.take());
            open = Some((at, end));
        } else if let Some(r) = open.as_mut() {
            if content.starts_with([' ', '\t']) && !content.trim().is_empty() {
                r.1 = end;
            } else if !content.trim().is_empty() {
                out.extend(open.take());
            }
        }
        at += line.encode_utf16().count() as u32;
    }
    out.extend(open);
    out
}

/// Whether an edit of the textarea (`beforeinput` with its `inputType`, the selection
/// `start..end` in UTF-16 units) would change a locked range.
pub fn edit_blocked(ranges: &[(u32, u32)], start: u32, end: u32, input_type: &str) -> bool {
    let (s, e) = match (start == end, input_type) {
        (true, t) if t.starts_with("deleteContentBackward") => (start.saturating_sub(1), end),
        (true, t) if t.starts_with("deleteContentForward") => (start, end + 1),
        (true, t) if t.starts_with("delete") => (start.saturating_sub(1), end + 1),
        _ => (start, end),
    };
    ranges.iter().any(|&(a, b)| {
        if s == e {
            // Typing inside a locked line, or at its end (a new line after it is fine).
            (a <= s && s < b) || (s == b && input_type != "insertLineBreak")
        } else {
            s < b && e > a
        }
    })
}

impl AppState {
    /// Whether the exercise is marked solved.
    pub fn is_solved(&self, id: &str) -> bool {
        self.exercises.is_solved(id)
    }

    /// Opens `exercise` in the editor without its header lines, from the start.
    fn start_exercise(&mut self, exercise: Exercise, origin: Origin) {
        let text = without_exercise_lines(&exercise.text, &exercise.scenario);
        // Grade against the text as the editor shows it, so that the lines the verdicts name
        // are the editor's lines.
        let exercise = match parse(&text).scenario {
            Some(scenario) => Exercise {
                text: text.clone(),
                scenario,
                ..exercise
            },
            None => exercise,
        };
        self.exercises.open = true;
        self.exercises.current = Some(ExerciseSession {
            id: exercise.id.as_str().into(),
            origin,
            exercise: Rc::new(exercise),
            hints_shown: 0,
            verdict: None,
            refused_edit: false,
            hand_in: None,
        });
        self.load_text(text, None, 0);
        self.lesson = None;
    }

    pub(super) fn apply_exercise(&mut self, action: ExerciseAction) {
        match action {
            ExerciseAction::Open(open) => {
                self.exercises.open = open;
                if open && self.exercises.current.is_none() {
                    // The page's own course first: its first unsolved exercise.
                    let own = self.exercises.course.as_ref().and_then(|c| {
                        let ok = || c.entries.iter().filter(|e| e.exercise.is_ok());
                        ok().find(|e| !self.exercises.course_solved.contains(&e.id))
                            .or(ok().next())
                            .map(|e| e.id.as_str().into())
                    });
                    if let Some(id) = own {
                        self.apply_exercise(ExerciseAction::LoadCourse(id));
                    } else if let Some(e) = EXERCISES
                        .iter()
                        .find(|e| !self.is_solved(e.id))
                        .or(EXERCISES.first())
                    {
                        self.apply_exercise(ExerciseAction::Load(e.id));
                    }
                } else if !open && self.exercises.current.take().is_some() {
                    // Back to the lessons: the first one (the exercise's text is not a lesson).
                    if let Some(l) = rvlab_core::lessons::LESSONS.first() {
                        self.load_text(l.source.to_string(), None, 0);
                        self.lesson = Some(l.id);
                    }
                }
            }
            ExerciseAction::Load(id) => {
                let Some(b) = builtin(id) else { return };
                let Ok(exercise) = b.parse() else { return };
                self.start_exercise(exercise, Origin::Builtin);
            }
            ExerciseAction::LoadCourse(id) => {
                let found = self
                    .exercises
                    .course
                    .as_ref()
                    .and_then(|c| c.find(&id))
                    .cloned();
                if let Some(exercise) = found {
                    self.start_exercise(exercise, Origin::Course);
                }
            }
            ExerciseAction::LoadText(text) => match rvlab_core::exercises::parse(&text) {
                Ok(exercise) => self.start_exercise(exercise, Origin::Link),
                Err(diags) => {
                    // Shown as the scenario it also is, with the exercise's first problem.
                    self.load_text(text, None, 0);
                    self.lesson = None;
                    let first = diags.first().map_or(String::new(), |d| {
                        format!(" (line {}: {})", d.span.line, d.message)
                    });
                    self.notice = Some(format!(
                        "This link's exercise has errors{first}: it is shown as a plain scenario."
                    ));
                }
            },
            ExerciseAction::Restart => {
                if let Some(s) = self.exercises.current.as_mut() {
                    s.hints_shown = 0;
                    s.verdict = None;
                    s.refused_edit = false;
                    s.hand_in = None;
                    let text = s.exercise.text.clone();
                    self.load_text(text, None, 0);
                }
            }
            ExerciseAction::HandIn => {
                use rvlab_core::exercises::submission::{Submission, Work};
                let Some(s) = self.exercises.current.as_ref() else {
                    return;
                };
                let work = match (&s.exercise.goal, &self.shown) {
                    (Goal::Break { .. }, Some(shown)) => Work::Token(shown.run.token()),
                    _ => Work::Text {
                        text: self.source.clone(),
                        token: String::new(),
                    },
                };
                let sub = Submission {
                    exercise: s.id.to_string(),
                    work,
                };
                let hand_in = (sub.to_text(), sub.to_fragment(&self.source));
                if let Some(s) = self.exercises.current.as_mut() {
                    s.hand_in = Some(Rc::new(hand_in));
                }
            }
            ExerciseAction::Hint => {
                if let Some(s) = &mut self.exercises.current {
                    s.hints_shown = (s.hints_shown + 1).min(s.exercise.hints.len());
                }
            }
            ExerciseAction::Check => {
                let Some(session) = &self.exercises.current else {
                    return;
                };
                let verdict = match &session.exercise.goal {
                    Goal::Break { .. } => match &self.shown {
                        Some(shown) => grade_token(&session.exercise, &shown.run.token()),
                        None => return,
                    },
                    Goal::Fix => grade(&session.exercise, &self.source),
                };
                // Counted in its course's progress; a teacher's exercise from a link is graded
                // the same way, but counted nowhere.
                if verdict.pass {
                    let (id, origin) = (session.id.to_string(), session.origin);
                    let e = &mut self.exercises;
                    match (origin, &e.course) {
                        (Origin::Builtin, _) if !e.solved.contains(&id) => {
                            e.solved.push(id);
                            order_solved(&mut e.solved);
                        }
                        (Origin::Course, Some(c)) if !e.course_solved.contains(&id) => {
                            e.course_solved.push(id);
                            rvlab_core::sort::sort_by_key(&mut e.course_solved, |s| {
                                c.entries.iter().position(|x| x.id == *s)
                            });
                        }
                        _ => {}
                    }
                }
                if let Some(s) = &mut self.exercises.current {
                    s.verdict = Some(Rc::new(verdict));
                    s.refused_edit = false;
                }
            }
            ExerciseAction::OpenVerdictRun => {
                let Some(link) = self
                    .exercises
                    .current
                    .as_ref()
                    .and_then(|s| s.verdict.as_ref())
                    .and_then(|v| v.link.clone())
                else {
                    return;
                };
                let Ok(state) = ShareState::decode(&link) else {
                    return;
                };
                let Source::Text(text) = state.source else {
                    return;
                };
                let text = match parse(&text).scenario {
                    Some(s) => without_exercise_lines(&text, &s),
                    None => text,
                };
                self.seed = state.seed;
                self.load_text(text, Some(&state.token), state.position as usize);
            }
            ExerciseAction::RefusedEdit => {
                if let Some(s) = &mut self.exercises.current {
                    s.refused_edit = true;
                }
            }
            ExerciseAction::Restore(stored, own) => {
                let e = &mut self.exercises;
                e.solved = stored.as_deref().map_or_else(Vec::new, |t| {
                    progress_from_json(t, EXERCISES.iter().map(|b| b.id))
                });
                e.course_solved = match (own.as_deref(), &e.course) {
                    (Some(t), Some(c)) => {
                        progress_from_json(t, c.entries.iter().map(|x| x.id.as_str()))
                    }
                    _ => Vec::new(),
                };
                e.restored = true;
            }
        }
    }
}

/// Sorts solved exercise ids into the list's order (unknown ids first), stably, with the
/// core's one shared sort (no other copy of a sort in the wasm: docs/size.md).
fn order_solved(solved: &mut [String]) {
    rvlab_core::sort::sort_by_key(solved, |s| EXERCISES.iter().position(|e| e.id == s));
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "the shared sort is checked against std's `sort_by_key`"
)]
mod tests {
    use super::*;
    use crate::state::Action;

    #[test]
    fn solved_ids_sort_like_sort_by_key() {
        let ids: Vec<String> = EXERCISES.iter().map(|e| e.id.to_string()).collect();
        let mut pool = ids.clone();
        pool.extend(["zz-unknown".to_string(), "aa-unknown".to_string()]);
        // Every rotation and reversal of the pool plus some duplicates.
        for r in 0..pool.len() {
            for rev in [false, true] {
                let mut v = pool.clone();
                v.rotate_left(r);
                if rev {
                    v.reverse();
                }
                v.push(pool[r].clone());
                let mut want = v.clone();
                want.sort_by_key(|s| EXERCISES.iter().position(|e| e.id == s));
                order_solved(&mut v);
                assert_eq!(v, want);
            }
        }
        assert!(ids.len() >= 2);
    }

    fn ex(s: AppState, a: ExerciseAction) -> AppState {
        s.apply(Action::Exercise(a))
    }

    fn verdict(s: &AppState) -> Rc<Verdict> {
        s.exercises
            .current
            .as_ref()
            .and_then(|c| c.verdict.clone())
            .expect("a verdict")
    }

    #[test]
    fn opening_loads_the_first_unsolved_exercise_without_its_header_lines() {
        let s = ex(AppState::default(), ExerciseAction::Restore(None, None));
        let s = ex(s, ExerciseAction::Open(true));
        assert!(s.exercises.open);
        let cur = s.exercises.current.as_ref().expect("an exercise");
        assert_eq!(&*cur.id, "first-conflict");
        assert!(!s.source.contains("hint \""), "{}", s.source);
        assert!(!s.source.contains("exercise \""));
        assert!(s.source.contains("client bob"));
        assert!(!s.has_errors());
        assert_eq!(s.lesson, None);
        // Back to the lessons.
        let s = ex(s, ExerciseAction::Open(false));
        assert!(!s.exercises.open && s.exercises.current.is_none());
        assert_eq!(s.lesson, Some("stale-update"));
    }

    #[test]
    fn break_it_the_learner_schedules_the_conflict_and_passes() {
        let mut s = ex(AppState::default(), ExerciseAction::Load("first-conflict"));
        // As loaded (schedule a3b3) bob succeeds: not yet.
        s = ex(s, ExerciseAction::Check);
        assert!(!verdict(&s).pass);
        assert!(verdict(&s).reasons[0].contains("still holds"));
        // bob reads, alice reads / edits / updates, bob edits and updates: 409.
        for client in [1, 0, 0, 0, 1, 1] {
            s = s.apply(Action::Next(client));
        }
        s = ex(s, ExerciseAction::Check);
        let v = verdict(&s);
        assert!(v.pass, "{v:?}");
        // The step's line is the editor's line (the header lines are not in the editor).
        let line = s
            .source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "update obj")
            .map(|(i, _)| i + 1)
            .last()
            .expect("bob's update");
        assert!(
            v.reasons
                .iter()
                .any(|r| r.contains(&format!("(bob, line {line})"))),
            "{v:?}"
        );
        assert!(s.is_solved("first-conflict"));
        assert_eq!(s.exercises.solved, vec!["first-conflict".to_string()]);
        // The verdict's run loads into the timeline, at the deciding step.
        s = ex(s, ExerciseAction::OpenVerdictRun);
        let shown = s.shown.as_ref().expect("run");
        assert_eq!(shown.run.token(), "ba3b2");
        assert!(s.cursor > 0 && s.cursor <= s.len());
        assert!(!s.source.contains("hint \""));
    }

    #[test]
    fn fix_it_the_reference_solution_passes_and_a_wrong_fix_fails_with_the_reason() {
        let s = ex(AppState::default(), ExerciseAction::Load("retry-reread"));
        let start = s.source.clone();
        let s = ex(s, ExerciseAction::Check);
        assert!(!verdict(&s).pass, "the starting text fails");
        // A wrong fix: bob retries without re-reading.
        let wrong = start.replace(
            "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    update c\n",
            "    c = get configmap/counter\n    c.data.count = c.data.count + 10\n    retry on conflict:\n        update c\n",
        );
        assert_ne!(wrong, start);
        let s = ex(
            s.apply(Action::EditSource(wrong)).apply(Action::Reparse),
            ExerciseAction::Check,
        );
        let v = verdict(&s);
        assert!(!v.pass);
        assert!(v.reasons.iter().any(|r| r.contains("schedules")), "{v:?}");
        // The reference solution (with its header lines) passes.
        let solution = builtin("retry-reread").expect("built-in").solution();
        let s = ex(
            s.apply(Action::EditSource(solution.into())),
            ExerciseAction::Check,
        );
        assert!(verdict(&s).pass, "{:?}", verdict(&s));
        assert!(s.is_solved("retry-reread"));
    }

    #[test]
    fn every_fix_solution_passes_without_its_header_lines() {
        for b in EXERCISES {
            let e = b.parse().expect("parses");
            let Some(sc) = parse(b.solution()).scenario else {
                panic!("{}", b.id)
            };
            let stripped = without_exercise_lines(b.solution(), &sc);
            assert!(!stripped.contains("goal "), "{}", b.id);
            if e.goal == Goal::Fix {
                let v = grade(&e, &stripped);
                assert!(v.pass, "{}: {v:?}", b.id);
            }
        }
    }

    #[test]
    fn a_change_to_a_locked_client_is_refused() {
        let s = ex(AppState::default(), ExerciseAction::Load("retry-reread"));
        let cur = s.exercises.current.clone().expect("exercise");
        let locks = cur.clients(&s.source);
        assert_eq!(locks.len(), 2);
        assert!(!locks[0].editable && locks[1].editable);
        assert!(locks[0].line.is_some());
        let changed = s.source.replace("+ 1\n", "+ 2\n");
        let s = ex(s.apply(Action::EditSource(changed)), ExerciseAction::Check);
        let v = verdict(&s);
        assert!(!v.pass);
        assert!(v.reasons[0].contains("locked"), "{v:?}");
    }

    #[test]
    fn locked_lines_are_read_only_and_editable_ones_are_not() {
        let s = ex(AppState::default(), ExerciseAction::Load("retry-reread"));
        let cur = s.exercises.current.clone().expect("exercise");
        let ranges = locked_ranges(&cur, &s.source);
        assert_eq!(ranges.len(), 1, "alice only: {ranges:?}");
        let (a, b) = ranges[0];
        let text: String = s
            .source
            .encode_utf16()
            .skip(a as usize)
            .take((b - a) as usize)
            .map(|u| char::from_u32(u32::from(u)).unwrap_or('?'))
            .collect();
        assert!(
            text.starts_with("client alice:") && text.ends_with("update c"),
            "{text:?}"
        );
        assert!(!text.contains("bob"));
        let inside = a + 20;
        assert!(edit_blocked(&ranges, inside, inside, "insertText"));
        assert!(edit_blocked(&ranges, b, b, "insertText"));
        assert!(!edit_blocked(&ranges, b, b, "insertLineBreak"));
        assert!(edit_blocked(&ranges, a + 1, a + 1, "deleteContentBackward"));
        assert!(!edit_blocked(&ranges, a, a, "deleteContentBackward"));
        assert!(edit_blocked(&ranges, 0, b + 5, "deleteByCut"));
        let bob = s.source.find("client bob").expect("bob") as u32 + 15;
        assert!(!edit_blocked(&ranges, bob, bob, "insertText"));
        // Break-it exercises lock every client.
        let s = ex(AppState::default(), ExerciseAction::Load("first-conflict"));
        let cur = s.exercises.current.clone().expect("exercise");
        assert_eq!(locked_ranges(&cur, &s.source).len(), 2);
        assert!(locked_ranges(&cur, "client a:\n  x = get\n").is_empty());
    }

    #[test]
    fn hints_come_one_at_a_time() {
        let mut s = ex(AppState::default(), ExerciseAction::Load("retry-reread"));
        let n = s
            .exercises
            .current
            .as_ref()
            .map(|c| c.exercise.hints.len())
            .unwrap_or(0);
        assert!(n >= 2);
        for i in 1..=n + 2 {
            s = ex(s, ExerciseAction::Hint);
            assert_eq!(
                s.exercises.current.as_ref().map(|c| c.hints_shown),
                Some(i.min(n))
            );
        }
    }

    fn ids() -> impl Iterator<Item = &'static str> {
        EXERCISES.iter().map(|b| b.id)
    }

    #[test]
    fn progress_is_versioned_and_corrupt_storage_is_ignored() {
        let json = progress_to_json(&["first-conflict".into(), "counter".into()]);
        assert_eq!(
            json,
            r#"{"version":1,"solved":["first-conflict","counter"]}"#
        );
        assert_eq!(
            progress_from_json(&json, ids()),
            vec!["first-conflict", "counter"]
        );
        assert!(progress_from_json("{", ids()).is_empty());
        assert!(progress_from_json("[1,2]", ids()).is_empty());
        assert!(progress_from_json("{\"version\":2,\"solved\":[\"counter\"]}", ids()).is_empty());
        assert_eq!(
            progress_from_json("{\"version\":1,\"solved\":[\"nope\",\"counter\",3]}", ids()),
            vec!["counter"]
        );
        let s = ex(
            AppState::default(),
            ExerciseAction::Restore(Some(json), None),
        );
        assert!(s.exercises.restored);
        assert!(s.is_solved("counter"));
        let s = ex(s, ExerciseAction::Open(true));
        assert_eq!(
            s.exercises.current.as_ref().map(|c| &*c.id),
            Some("retry-reread"),
            "the first unsolved one"
        );
        let s = ex(
            AppState::default(),
            ExerciseAction::Restore(Some("garbage".into()), None),
        );
        assert!(s.exercises.restored && s.exercises.solved.is_empty());
    }
}
