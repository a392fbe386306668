//! The page's state: one value, changed only by [`AppState::apply`] (pure, no browser calls),
//! so that every [`Action`] is unit-tested natively. Effects (timers) live in `hooks`.
//!
//! Sub-states with their own actions: [`explore`] (the explorer panel and its worker job) and
//! [`exercises`] (the exercises view).

pub mod exercises;
pub mod explore;

use exercises::{ExerciseAction, ExercisesState};
use explore::{ExploreAction, ExploreState};

use rvlab_core::lang::{parse, Diagnostic};
use rvlab_core::lessons::{lesson, LESSONS};
use rvlab_core::run::{ExpectationResult, Run};
use rvlab_core::view::{steps_view, world_view, StepView, WorldView};
use std::rc::Rc;
use yew::Reducible;

/// Autoplay speeds offered (milliseconds per step), slowest first.
pub const SPEEDS_MS: [u32; 4] = [1500, 800, 400, 150];

/// The last valid run and everything derived from it once (not per render).
#[derive(Debug)]
pub struct Shown {
    /// The run, played to the end (the scenario's schedule, the learner's picks, then the
    /// default scheduler).
    pub run: Run,
    /// Every step's view, for the timeline.
    pub steps: Vec<StepView>,
    /// The expectations on the run's final world.
    pub expectations: Vec<ExpectationResult>,
}

impl Shown {
    fn new(run: Run) -> Shown {
        Shown {
            steps: steps_view(&run),
            expectations: run.expectations(),
            run,
        }
    }

    /// The world after the first `cursor` steps, as the inspector shows it.
    pub fn world_view(&self, cursor: usize) -> WorldView {
        world_view(&self.run.scenario, &self.run.world_at(cursor))
    }
}

/// Everything the page shows.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The editor's text (may be broken).
    pub source: String,
    /// Whether `source` changed since it was last parsed (a re-run is pending).
    pub dirty: bool,
    /// The diagnostics of the last parse (errors and warnings), plus a run error, if any.
    pub diagnostics: Rc<Vec<Diagnostic>>,
    /// Why the last valid scenario could not run (a bad schedule, a failing setup).
    pub run_error: Option<String>,
    /// The last valid run; kept while the text is broken.
    pub shown: Option<Rc<Shown>>,
    /// The seed of the run's generator (jitter, uids, tie-breaks).
    pub seed: u64,
    /// How many steps of the run are shown as taken (`0..=run.len()`).
    pub cursor: usize,
    /// The lesson the text came from, if it was loaded from one.
    pub lesson: Option<&'static str>,
    /// Whether autoplay is on.
    pub playing: bool,
    /// Autoplay speed, milliseconds per step.
    pub speed_ms: u32,
    /// The explorer panel.
    pub explore: ExploreState,
    /// The exercises view.
    pub exercises: ExercisesState,
}

/// Everything that can happen to the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The editor's text changed (parsing waits for [`Action::Reparse`]).
    EditSource(String),
    /// Parse the text and, when it is valid, run it (debounced after edits).
    Reparse,
    /// Load a built-in lesson by id.
    LoadLesson(&'static str),
    /// One step forward along the run.
    StepForward,
    /// One step back.
    StepBack,
    /// Show the whole run.
    RunToEnd,
    /// Replay the scenario's own schedule from the start.
    Reset,
    /// Show the first `n` steps.
    Jump(usize),
    /// The learner picks who goes next: this client takes the next step, the rest of the run
    /// follows the default scheduler.
    Next(u32),
    /// Run again with another seed.
    SetSeed(u64),
    /// Autoplay on or off.
    SetPlaying(bool),
    /// Autoplay on when off, off when on.
    TogglePlaying,
    /// Autoplay speed (milliseconds per step).
    SetSpeed(u32),
    /// The explorer panel.
    Explore(ExploreAction),
    /// Play the shown scenario along this schedule token (an explorer counterexample or
    /// outcome example) and show the end of the run.
    LoadSchedule(String),
    /// The exercises view.
    Exercise(ExerciseAction),
}

impl Default for AppState {
    fn default() -> Self {
        let first = LESSONS.first().map(|l| l.id).unwrap_or("stale-update");
        AppState::new(String::new()).apply(Action::LoadLesson(first))
    }
}

impl AppState {
    /// A state for `source`, parsed and run with seed 0.
    pub fn new(source: String) -> AppState {
        AppState {
            source,
            dirty: true,
            diagnostics: Rc::new(Vec::new()),
            run_error: None,
            shown: None,
            seed: 0,
            cursor: 0,
            lesson: None,
            playing: false,
            speed_ms: SPEEDS_MS[1],
            explore: ExploreState::default(),
            exercises: ExercisesState::default(),
        }
        .apply(Action::Reparse)
    }

    /// The number of steps in the shown run.
    pub fn len(&self) -> usize {
        self.shown.as_ref().map_or(0, |s| s.run.len())
    }

    /// Whether there is no step to show.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text has errors (the shown run is then the last valid one).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The step the cursor stands on (the last one taken), if any.
    pub fn current_step(&self) -> Option<&StepView> {
        let shown = self.shown.as_ref()?;
        self.cursor.checked_sub(1).and_then(|i| shown.steps.get(i))
    }

    /// The state after `action`. Pure: no browser calls, no clock.
    pub fn apply(mut self, action: Action) -> AppState {
        match action {
            Action::EditSource(text) => {
                if text != self.source {
                    self.source = text;
                    self.dirty = true;
                    self.lesson = None;
                }
            }
            Action::Reparse => self.rerun(None),
            Action::LoadLesson(id) => {
                if let Some(l) = lesson(id) {
                    self.exercises.open = false;
                    self.exercises.current = None;
                    self.load_text(l.source.to_string(), None, 0);
                    self.lesson = Some(l.id);
                }
            }
            Action::StepForward => {
                self.cursor = (self.cursor + 1).min(self.len());
                self.stop_at_end();
            }
            Action::StepBack => {
                self.cursor = self.cursor.saturating_sub(1);
                self.playing = false;
            }
            Action::RunToEnd => {
                self.cursor = self.len();
                self.playing = false;
            }
            Action::Reset => {
                self.playing = false;
                self.cursor = 0;
                if let Some(shown) = &self.shown {
                    let scenario = shown.run.scenario.clone();
                    self.run_scenario(&scenario, None);
                }
            }
            Action::Jump(n) => {
                self.cursor = n.min(self.len());
                self.playing = false;
            }
            Action::Next(client) => self.pick(client),
            Action::SetSeed(seed) => {
                if seed != self.seed {
                    self.seed = seed;
                    if let Some(shown) = &self.shown {
                        let scenario = shown.run.scenario.clone();
                        self.run_scenario(&scenario, None);
                    }
                }
            }
            Action::SetPlaying(on) => {
                self.playing = on && self.cursor < self.len();
            }
            Action::TogglePlaying => {
                let on = !self.playing;
                return self.apply(Action::SetPlaying(on));
            }
            Action::SetSpeed(ms) => self.speed_ms = ms.clamp(50, 5000),
            Action::Explore(a) => self.apply_explore(a),
            Action::LoadSchedule(token) => {
                if let Some(shown) = &self.shown {
                    let scenario = shown.run.scenario.clone();
                    self.playing = false;
                    self.run_scenario(&scenario, Some(&token));
                    self.cursor = self.len();
                }
            }
            Action::Exercise(a) => self.apply_exercise(a),
        }
        self
    }

    /// Replaces the text, runs it along `token` (if any) and shows step `position`.
    fn load_text(&mut self, text: String, token: Option<&str>, position: usize) {
        self.source = text;
        self.lesson = None;
        self.playing = false;
        self.cursor = 0;
        self.shown = None;
        self.rerun(token);
        self.cursor = position.min(self.len());
    }

    fn stop_at_end(&mut self) {
        if self.cursor >= self.len() {
            self.playing = false;
        }
    }

    /// Parses the text; when valid, runs it (keeping the cursor where it was, within bounds).
    fn rerun(&mut self, token: Option<&str>) {
        let parsed = parse(&self.source);
        self.dirty = false;
        self.diagnostics = Rc::new(parsed.diagnostics);
        if let Some(scenario) = parsed.scenario {
            self.run_scenario(&scenario, token);
        }
    }

    fn run_scenario(&mut self, scenario: &rvlab_core::lang::ast::Scenario, token: Option<&str>) {
        match Run::new(scenario, self.seed, token) {
            Ok(run) => {
                self.run_error = None;
                self.shown = Some(Rc::new(Shown::new(run)));
                self.cursor = self.cursor.min(self.len());
                self.stop_at_end();
            }
            Err(e) => self.run_error = Some(e.to_string()),
        }
    }

    /// The learner's pick at the cursor: keep the steps taken, let `client` go next, then let
    /// the default scheduler finish the run.
    fn pick(&mut self, client: u32) {
        let Some(shown) = &self.shown else {
            return;
        };
        let mut run = shown.run.clone();
        run.truncate(self.cursor);
        if run.step(Some(client)).is_err() {
            return;
        }
        run.run_to_end();
        self.shown = Some(Rc::new(Shown::new(run)));
        self.cursor = (self.cursor + 1).min(self.len());
        self.playing = false;
    }
}

/// Equal when the same text, position and settings show the same run (runs and diagnostics
/// compare by identity: a new run is a new `Rc`).
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        let same_run = match (&self.shown, &other.shown) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_run
            && Rc::ptr_eq(&self.diagnostics, &other.diagnostics)
            && self.source == other.source
            && self.dirty == other.dirty
            && self.run_error == other.run_error
            && self.seed == other.seed
            && self.cursor == other.cursor
            && self.lesson == other.lesson
            && self.playing == other.playing
            && self.speed_ms == other.speed_ms
            && self.explore == other.explore
            && self.exercises == other.exercises
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_story() -> AppState {
        AppState::default()
    }

    #[test]
    fn starts_on_the_first_lesson_at_step_zero() {
        let s = seed_story();
        assert_eq!(s.lesson, Some("stale-update"));
        assert_eq!(s.cursor, 0);
        assert_eq!(s.len(), 6);
        assert!(!s.has_errors());
        assert!(s.current_step().is_none());
    }

    #[test]
    fn forward_back_and_jumps_stay_in_bounds() {
        let mut s = seed_story();
        for _ in 0..10 {
            s = s.apply(Action::StepForward);
        }
        assert_eq!(s.cursor, 6);
        let last = s.current_step().map(|v| v.status_code);
        assert_eq!(last, Some(Some(409)));
        s = s.apply(Action::StepBack).apply(Action::StepBack);
        assert_eq!(s.cursor, 4);
        assert_eq!(
            s.current_step().map(|v| v.client.clone()),
            Some("alice".into())
        );
        s = s.apply(Action::Jump(99));
        assert_eq!(s.cursor, 6);
        s = s.apply(Action::Jump(0)).apply(Action::StepBack);
        assert_eq!(s.cursor, 0);
        s = s.apply(Action::RunToEnd);
        assert_eq!(s.cursor, s.len());
    }

    #[test]
    fn a_broken_text_keeps_the_last_run_and_a_fix_replaces_it() {
        let s = seed_story().apply(Action::Jump(3));
        let before = s.shown.clone().map(|x| x.run.token());
        let broken = s.source.replace("update obj", "updat obj");
        let s = s.apply(Action::EditSource(broken)).apply(Action::Reparse);
        assert!(s.has_errors());
        assert!(s.lesson.is_none());
        assert_eq!(s.shown.as_ref().map(|x| x.run.token()), before);
        assert_eq!(s.cursor, 3, "the cursor stays while the text is broken");
        let fixed = s.source.replace(
            "obj.data.key = \"from-bob\"",
            "obj.data.key = \"from-bob\"\n    obj.data.other = \"x\"",
        );
        let fixed = fixed.replace("updat obj", "update obj");
        let s = s.apply(Action::EditSource(fixed)).apply(Action::Reparse);
        assert!(!s.has_errors());
        assert_eq!(s.len(), 7, "bob has one more local step");
    }

    #[test]
    fn editing_marks_dirty_until_the_reparse() {
        let s = seed_story();
        let text = format!("{}\n# a comment\n", s.source);
        let s = s.apply(Action::EditSource(text));
        assert!(s.dirty);
        let s = s.apply(Action::Reparse);
        assert!(!s.dirty);
    }

    #[test]
    fn the_learner_picks_an_order_that_avoids_the_conflict() {
        // alice reads, writes and finishes before bob reads: nobody conflicts.
        let mut s = seed_story();
        for client in [0, 0, 0, 1, 1, 1] {
            s = s.apply(Action::Next(client));
        }
        assert_eq!(s.cursor, 6);
        let shown = s.shown.as_ref().unwrap();
        assert_eq!(shown.run.token(), "a3b3");
        assert!(shown.steps.iter().all(|v| v.status_code != Some(409)));
        let failing: Vec<_> = shown.expectations.iter().filter(|e| !e.holds).collect();
        assert!(
            failing.iter().any(|e| e.text.contains("bob fails")),
            "bob no longer fails: {failing:?}"
        );
    }

    #[test]
    fn picking_a_finished_client_changes_nothing() {
        let s = seed_story().apply(Action::RunToEnd);
        let token = s.shown.as_ref().unwrap().run.token();
        let s = s.apply(Action::Next(0));
        assert_eq!(s.shown.as_ref().unwrap().run.token(), token);
    }

    #[test]
    fn reset_replays_the_scenario_schedule_from_the_start() {
        let s = seed_story().apply(Action::Next(1)).apply(Action::Reset);
        assert_eq!(s.cursor, 0);
        assert_eq!(s.shown.as_ref().unwrap().run.token(), "aba2b2");
    }

    #[test]
    fn autoplay_stops_at_the_end() {
        let mut s = seed_story().apply(Action::SetPlaying(true));
        assert!(s.playing);
        while s.cursor < s.len() {
            s = s.apply(Action::StepForward);
        }
        assert!(!s.playing);
        assert!(!s.clone().apply(Action::SetPlaying(true)).playing);
        let s = s.apply(Action::Jump(0)).apply(Action::TogglePlaying);
        assert!(s.playing);
        assert!(!s.apply(Action::TogglePlaying).playing);
        assert_eq!(seed_story().apply(Action::SetSpeed(1)).speed_ms, 50);
    }

    #[test]
    fn lessons_load_and_seeds_rerun() {
        for l in LESSONS {
            let s = seed_story().apply(Action::LoadLesson(l.id));
            assert_eq!(s.lesson, Some(l.id));
            assert!(!s.has_errors(), "{}", l.id);
            assert!(!s.is_empty(), "{}", l.id);
        }
        let s = seed_story()
            .apply(Action::Jump(2))
            .apply(Action::SetSeed(7));
        assert_eq!(s.seed, 7);
        assert_eq!(s.shown.as_ref().map(|x| x.run.seed), Some(7));
        assert_eq!(s.cursor, 2);
    }
}
