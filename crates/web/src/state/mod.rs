//! The page's state: one value, changed only by [`AppState::apply`] (pure, no browser calls),
//! so that every [`Action`] is unit-tested natively. Effects (timers) live in `hooks`.
//!
//! Sub-states with their own actions: [`explore`] (the explorer panel and its worker job) and
//! [`exercises`] (the exercises view). [`catalogue`]: the built-in course's titles, built once. In the kubectl build, `live`: the live view's rows.

pub mod catalogue;
pub mod exercises;
pub mod explore;
#[cfg(feature = "live")]
pub mod live;

use catalogue::Catalogue;

use exercises::{ExerciseAction, ExercisesState};
use explore::{ExploreAction, ExploreState};

use rvlab_core::lang::{parse, Diagnostic};
use rvlab_core::lessons::{lesson, LESSONS};
use rvlab_core::run::{ExpectationResult, Run};
use rvlab_core::schedule::format_token;
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
    /// The schedule the run was built from (`None`: the scenario's own `schedule` line): the
    /// learner's picks, and the steps before them. The rest of the run follows the default
    /// scheduler, so `Run::new(scenario, seed, schedule)` rebuilds exactly the run shown (share
    /// links and stored work carry this token).
    pub schedule: Option<String>,
    /// The lesson "reset to lesson" goes back to (the last one loaded; kept through edits).
    pub base_lesson: &'static str,
    /// A notice for the reader (a broken link or unreadable saved work), until dismissed.
    pub notice: Option<String>,
    /// Whether the timeline is shown as a plain table (the `table` view).
    pub table_view: bool,
    /// Whether the keyboard help overlay is open.
    pub help_open: bool,
    /// The explorer panel.
    pub explore: ExploreState,
    /// The exercises view.
    pub exercises: ExercisesState,
    /// The lessons' titles and the exercises' labels (built once, shared by every state).
    pub catalogue: Rc<Catalogue>,
    /// The Live view of `rvlab serve` (the kubectl build only).
    #[cfg(feature = "live")]
    pub live: live::LiveState,
}

/// A whole state to restore, from a share link or from saved work (see `crate::link`).
#[derive(Debug, Clone, PartialEq)]
pub struct Restore {
    /// The scenario text.
    pub source: String,
    /// The lesson the text is, when it is a built-in lesson unchanged.
    pub lesson: Option<&'static str>,
    /// The lesson "reset to lesson" goes back to.
    pub base_lesson: &'static str,
    /// The schedule token (see [`AppState::schedule`]).
    pub schedule: Option<String>,
    /// The step shown.
    pub position: usize,
    pub seed: u64,
    /// The table view.
    pub table_view: bool,
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
    /// Restore a whole state (a share link, saved work); a schedule that does not fit the
    /// scenario is dropped with a notice.
    Restore(Restore),
    /// Show a notice (`Some`) or dismiss it (`None`).
    Notice(Option<String>),
    /// Back to the last lesson loaded, unchanged, with seed 0 (drops edits and picks).
    ResetToLesson,
    /// The timeline as a plain table, or as lanes.
    SetTableView(bool),
    /// Open or close the keyboard help overlay.
    ShowHelp(bool),
    /// The explorer panel.
    Explore(ExploreAction),
    /// Play the shown scenario along this schedule token (an explorer counterexample or
    /// outcome example) and show the end of the run.
    LoadSchedule(String),
    /// The exercises view.
    Exercise(ExerciseAction),
    /// The Live view (the kubectl build only).
    #[cfg(feature = "live")]
    Live(live::LiveAction),
}

/// The first lesson (the page's default).
pub fn first_lesson() -> &'static str {
    LESSONS.first().map(|l| l.id).unwrap_or("stale-update")
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new(String::new()).apply(Action::LoadLesson(first_lesson()))
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
            schedule: None,
            base_lesson: first_lesson(),
            notice: None,
            table_view: false,
            help_open: false,
            explore: ExploreState::default(),
            exercises: ExercisesState::default(),
            catalogue: Rc::default(),
            #[cfg(feature = "live")]
            live: live::LiveState::default(),
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

    /// Why the run stopped, when it stopped at the step shown.
    pub fn stopped_here(&self) -> Option<&str> {
        self.shown
            .as_ref()
            .filter(|s| self.cursor == s.run.len())
            .and_then(|s| s.run.stopped.as_deref())
    }

    /// Whether `action` leaves the state as it is (stepping past either end, choosing what is
    /// already chosen, a stale worker message): then [`Reducible::reduce`] returns the same
    /// state and yew skips the render. Only cases known without running anything; `apply`
    /// stays the authority (tested: an ignored action changes nothing).
    pub fn ignores(&self, action: &Action) -> bool {
        #[cfg(feature = "live")]
        if let Some(ignored) = self.live.ignores(action) {
            return ignored;
        }
        let (cursor, len, playing) = (self.cursor, self.len(), self.playing);
        match action {
            Action::EditSource(text) => *text == self.source,
            Action::StepForward | Action::RunToEnd | Action::TogglePlaying => {
                cursor >= len && !playing
            }
            Action::StepBack => cursor == 0 && !playing,
            Action::Jump(n) => (*n).min(len) == cursor && !playing,
            Action::SetPlaying(on) => (*on && cursor < len) == playing,
            Action::SetSpeed(ms) => (*ms).clamp(50, 5000) == self.speed_ms,
            Action::SetSeed(seed) => *seed == self.seed,
            Action::Notice(notice) => *notice == self.notice,
            Action::SetTableView(on) => *on == self.table_view,
            Action::ShowHelp(open) => *open == self.help_open,
            Action::Explore(a) => self.explore.ignores(a),
            Action::Exercise(a) => self.exercises.ignores(a),
            _ => false,
        }
    }

    /// The state after `action`. Pure: no browser calls, no clock.
    pub fn apply(mut self, action: Action) -> AppState {
        #[cfg(feature = "live")]
        if let Action::Exercise(ExerciseAction::Open(_)) = &action {
            // The view tabs: Lessons and Exercises leave the Live view.
            self.live.open = false;
        }
        match action {
            Action::EditSource(text) => {
                if text != self.source {
                    self.source = text;
                    self.dirty = true;
                    self.lesson = None;
                    self.schedule = None;
                }
            }
            Action::Reparse => {
                let schedule = self.schedule.clone();
                self.rerun(schedule.as_deref());
            }
            Action::LoadLesson(id) => {
                if let Some(l) = lesson(id) {
                    self.exercises.open = false;
                    self.exercises.current = None;
                    self.load_text(l.source.to_string(), None, 0);
                    self.lesson = Some(l.id);
                    self.base_lesson = l.id;
                    self.schedule = None;
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
                self.schedule = None;
                // The run's `Rc`, not a copy of its scenario (a clone of the syntax tree).
                if let Some(shown) = self.shown.clone() {
                    self.run_scenario(&shown.run.scenario, None);
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
                    self.schedule = None;
                    if let Some(shown) = self.shown.clone() {
                        self.run_scenario(&shown.run.scenario, None);
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
            Action::Restore(r) => self.restore(r),
            Action::Notice(notice) => self.notice = notice,
            Action::ResetToLesson => {
                self.seed = 0;
                self.notice = None;
                let id = self.base_lesson;
                return self.apply(Action::LoadLesson(id));
            }
            Action::SetTableView(on) => self.table_view = on,
            Action::ShowHelp(open) => self.help_open = open,
            Action::Explore(a) => self.apply_explore(a),
            Action::LoadSchedule(token) => {
                if let Some(shown) = self.shown.clone() {
                    self.playing = false;
                    self.run_scenario(&shown.run.scenario, Some(&token));
                    self.schedule = Some(token);
                    // At the step that broke an expectation, not at the end of the run.
                    self.cursor = self
                        .shown
                        .as_ref()
                        .map_or(0, |shown| shown.run.first_break_position());
                }
            }
            Action::Exercise(a) => self.apply_exercise(a),
            #[cfg(feature = "live")]
            Action::Live(a) => self.apply_live(a),
        }
        self
    }

    fn restore(&mut self, r: Restore) {
        self.source = r.source;
        self.lesson = r.lesson;
        self.base_lesson = r.base_lesson;
        self.seed = r.seed;
        self.schedule = r.schedule;
        self.table_view = r.table_view;
        self.playing = false;
        self.shown = None;
        self.run_error = None;
        self.cursor = r.position;
        let schedule = self.schedule.clone();
        self.rerun(schedule.as_deref());
        if let (Some(err), Some(token)) = (self.run_error.clone(), self.schedule.clone()) {
            self.schedule = None;
            self.notice = Some(format!(
                "The saved schedule `{token}` does not fit this scenario ({err}); showing the scenario's own run instead."
            ));
            self.rerun(None);
        }
        self.cursor = self.cursor.min(self.len());
    }

    /// Replaces the text, runs it along `token` (if any) and shows step `position`.
    fn load_text(&mut self, text: String, token: Option<&str>, position: usize) {
        self.source = text;
        self.lesson = None;
        self.playing = false;
        self.cursor = 0;
        self.shown = None;
        self.schedule = token.map(str::to_string);
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
    /// the default scheduler finish the run. The run is rebuilt from the schedule token (the
    /// steps taken, then `client`), so that the token alone reproduces it.
    fn pick(&mut self, client: u32) {
        let Some(shown) = &self.shown else {
            return;
        };
        let Some(taken) = shown.run.steps.get(..self.cursor) else {
            return;
        };
        let mut order: Vec<u32> = taken.iter().map(|s| s.client).collect();
        order.push(client);
        let token = format_token(&order);
        let Ok(run) = Run::new(&shown.run.scenario, self.seed, Some(&token)) else {
            return;
        };
        if run.len() <= self.cursor {
            return;
        }
        self.schedule = Some(token);
        self.shown = Some(Rc::new(Shown::new(run)));
        self.cursor = (self.cursor + 1).min(self.len());
        self.playing = false;
    }
}

/// Equal only when it is the very same value: an action that changes nothing returns the same
/// state (see `reduce`), every other makes a new one; a field-by-field comparison cost ~3 kB
/// of wasm (docs/size.md).
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Reducible for AppState {
    type Action = Action;

    /// The same state (yew then skips the render) when [`AppState::ignores`] the action.
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        if self.ignores(&action) {
            return self;
        }
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

#[cfg(test)]
mod share_tests {
    use super::*;

    #[test]
    fn reset_to_lesson_drops_edits_picks_and_seed() {
        let s = AppState::default().apply(Action::LoadLesson("counter"));
        let original = s.source.clone();
        let s = s
            .apply(Action::EditSource(format!("{original}\n# edit\n")))
            .apply(Action::Reparse)
            .apply(Action::SetSeed(9))
            .apply(Action::Next(2))
            .apply(Action::Notice(Some("x".into())));
        assert_eq!(s.lesson, None);
        assert_eq!(s.base_lesson, "counter");
        let s = s.apply(Action::ResetToLesson);
        assert_eq!(s.source, original);
        assert_eq!((s.lesson, s.seed, s.cursor), (Some("counter"), 0, 0));
        assert_eq!((s.schedule.clone(), s.notice.clone()), (None, None));
    }

    #[test]
    fn picks_record_the_schedule_and_resets_clear_it() {
        let s = AppState::default()
            .apply(Action::Jump(2))
            .apply(Action::Next(1));
        // The seed story's own schedule starts `ab`; bob goes third.
        assert_eq!(s.schedule.as_deref(), Some("ab2"));
        assert_eq!(s.cursor, 3);
        let rebuilt = Run::new(&s.shown.as_ref().unwrap().run.scenario, 0, Some("ab2")).unwrap();
        assert_eq!(rebuilt.token(), s.shown.as_ref().unwrap().run.token());
        assert_eq!(s.clone().apply(Action::Reset).schedule, None);
        assert_eq!(s.clone().apply(Action::SetSeed(3)).schedule, None);
        let edited = format!("{}\n", s.source);
        assert_eq!(s.apply(Action::EditSource(edited)).schedule, None);
    }

    #[test]
    fn views_help_and_notices_toggle() {
        let s = AppState::default();
        assert!(!s.table_view && !s.help_open && s.notice.is_none());
        let s = s
            .apply(Action::SetTableView(true))
            .apply(Action::ShowHelp(true))
            .apply(Action::Notice(Some("broken".into())));
        assert!(s.table_view && s.help_open);
        assert_eq!(s.notice.as_deref(), Some("broken"));
        let s = s.apply(Action::ShowHelp(false)).apply(Action::Notice(None));
        assert!(!s.help_open && s.notice.is_none() && s.table_view);
    }
}

#[cfg(test)]
mod pick_tests {
    use super::*;
    use rvlab_core::engine::Mark;

    /// What a pick must never change in the steps already taken: who stepped, what was sent and
    /// what came back. (Sleep durations may: see the test below.)
    fn shape(v: &StepView) -> (u32, &str, Option<&str>, Option<&str>, Option<&str>, Mark) {
        (
            v.client_index,
            v.statement.as_str(),
            v.request_line.as_deref(),
            v.status_line.as_deref(),
            v.response_body.as_deref(),
            v.mark,
        )
    }

    fn every_pick(mut check: impl FnMut(&str, &[StepView], &[StepView])) {
        for l in LESSONS {
            for seed in [0, 7] {
                let base = AppState::default()
                    .apply(Action::LoadLesson(l.id))
                    .apply(Action::SetSeed(seed));
                let clients = base.shown.as_ref().unwrap().run.scenario.clients.len() as u32;
                for cursor in 0..base.len().min(14) {
                    let at = base.clone().apply(Action::Jump(cursor));
                    for c in 0..clients {
                        let picked = at.clone().apply(Action::Next(c));
                        let (a, b) = (at.shown.as_ref().unwrap(), picked.shown.as_ref().unwrap());
                        let what = format!("{} seed {seed} at {cursor} pick {c}", l.id);
                        check(&what, &a.steps[..cursor], &b.steps[..cursor]);
                    }
                }
            }
        }
    }

    /// A pick rebuilds the run from its schedule token; the requests and responses of the
    /// steps already taken stay the same, for every lesson, position and client.
    #[test]
    fn a_pick_keeps_the_requests_and_responses_already_taken() {
        let mut differ = Vec::new();
        every_pick(|what, a, b| {
            if a.iter().map(shape).ne(b.iter().map(shape)) {
                differ.push(what.to_string());
            }
        });
        assert!(differ.is_empty(), "{differ:?}");
    }

    /// A pick rebuilds the run from its token, and the core draws the scheduler's tie-break
    /// before every step whether the token or the default scheduler picks the client: so the
    /// steps already taken are exactly the same after a pick, backoff jitter and clock included.
    #[test]
    fn a_pick_changes_nothing_before_the_cursor() {
        every_pick(|what, a, b| {
            for (x, y) in a.iter().zip(b) {
                assert_eq!(x, y, "{what}");
            }
        });
    }
}

#[cfg(test)]
mod ignore_tests {
    use super::*;
    use exercises::ExerciseAction;
    use explore::ExploreAction;

    fn actions() -> Vec<Action> {
        let mut out = vec![
            Action::EditSource(AppState::default().source),
            Action::EditSource("x".into()),
            Action::StepForward,
            Action::StepBack,
            Action::RunToEnd,
            Action::Reset,
            Action::SetPlaying(true),
            Action::SetPlaying(false),
            Action::TogglePlaying,
            Action::SetSpeed(800),
            Action::SetSpeed(1),
            Action::SetSeed(0),
            Action::SetSeed(3),
            Action::Notice(None),
            Action::Notice(Some("n".into())),
            Action::SetTableView(false),
            Action::SetTableView(true),
            Action::ShowHelp(false),
            Action::ShowHelp(true),
            Action::Next(0),
            Action::Explore(ExploreAction::Cancel),
            Action::Explore(ExploreAction::Start),
            Action::Exercise(ExerciseAction::Open(false)),
            Action::Exercise(ExerciseAction::Open(true)),
            Action::Exercise(ExerciseAction::Hint),
            Action::Exercise(ExerciseAction::RefusedEdit),
        ];
        for n in [0, 1, 3, 6, 99] {
            out.push(Action::Jump(n));
        }
        for job in [0, 1, 2] {
            out.push(Action::Explore(ExploreAction::Progress {
                job,
                states: 0,
                schedules: 0.into(),
            }));
            out.push(Action::Explore(ExploreAction::Progress {
                job,
                states: 5,
                schedules: 1.into(),
            }));
            out.push(Action::Explore(ExploreAction::Failed {
                job,
                message: "m".into(),
            }));
        }
        out
    }

    fn states() -> Vec<AppState> {
        let s = AppState::default();
        let ex = s
            .clone()
            .apply(Action::Exercise(ExerciseAction::Load("retry-reread")));
        let mut hinted = ex.clone();
        for _ in 0..10 {
            hinted = hinted.apply(Action::Exercise(ExerciseAction::Hint));
        }
        vec![
            s.clone(),
            s.clone().apply(Action::Jump(3)),
            s.clone().apply(Action::RunToEnd),
            s.clone().apply(Action::SetPlaying(true)),
            s.clone()
                .apply(Action::Jump(2))
                .apply(Action::SetPlaying(true)),
            s.clone()
                .apply(Action::SetTableView(true))
                .apply(Action::ShowHelp(true))
                .apply(Action::Notice(Some("n".into()))),
            s.clone().apply(Action::Explore(ExploreAction::Start)),
            ex.clone(),
            ex.apply(Action::Exercise(ExerciseAction::RefusedEdit)),
            hinted,
        ]
    }

    /// An action the reducer skips changes nothing `apply` would change; and the cases that
    /// matter are skipped.
    #[test]
    fn an_ignored_action_changes_nothing() {
        let mut ignored = 0;
        for s in states() {
            for a in actions() {
                if s.ignores(&a) {
                    ignored += 1;
                    let after = s.clone().apply(a.clone());
                    assert_eq!(format!("{after:?}"), format!("{s:?}"), "{a:?}");
                }
            }
        }
        assert!(ignored > 60, "{ignored}");
        let end = AppState::default().apply(Action::RunToEnd);
        for a in [Action::StepForward, Action::RunToEnd, Action::TogglePlaying] {
            assert!(end.ignores(&a), "{a:?}");
        }
        let start = AppState::default();
        assert!(start.ignores(&Action::StepBack) && start.ignores(&Action::Jump(0)));
        assert!(!start.ignores(&Action::StepForward) && !start.ignores(&Action::Jump(1)));
        let stale = Action::Explore(ExploreAction::Progress {
            job: 7,
            states: 1,
            schedules: 1.into(),
        });
        assert!(start.ignores(&stale));
    }

    #[test]
    fn the_reducer_returns_the_same_state_for_an_ignored_action() {
        let s = Rc::new(AppState::default());
        let same = s.clone().reduce(Action::StepBack);
        assert!(Rc::ptr_eq(&s, &same));
        assert!(*s == *same);
        let moved = s.clone().reduce(Action::StepForward);
        assert!(!Rc::ptr_eq(&s, &moved));
        assert_eq!(moved.cursor, 1);
    }
}
