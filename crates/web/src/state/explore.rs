//! The explorer panel's state: a job handed to the Web Worker (`hooks::use_explore_worker`),
//! its progress, and the report it sends back (parsed from the core's report JSON into what
//! the panel shows). Pure: no browser calls.

use super::AppState;
use rvlab_core::count::Count;
use serde_json::Value;
use std::rc::Rc;

/// The most distinct worlds one exploration may visit (the budget the panel shows).
pub const EXPLORE_MAX_STATES: u32 = 200_000;
/// Transitions per slice between two progress messages of the worker.
pub const EXPLORE_SLICE: u32 = 2_000;

/// One expectation over every explored schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectationLine {
    /// The text after `expect`.
    pub text: String,
    /// How many schedules violate it.
    pub violations: Count,
    /// The shortest violating schedule (a full token).
    pub counterexample: Option<String>,
}

/// One outcome class.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeLine {
    pub count: Count,
    /// The shortest schedule that ends this way (a full token).
    pub example: String,
    pub summary: String,
}

/// What an exploration found (from the core's report JSON, docs/json-trace.md).
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreResult {
    pub schedules: Count,
    pub states: u64,
    pub complete: bool,
    /// The bound that stopped the search, if one did.
    pub stopped_by: Option<String>,
    pub max_states: u64,
    pub expectations: Vec<ExpectationLine>,
    pub outcomes: Vec<OutcomeLine>,
    /// Milliseconds the worker spent exploring.
    pub ms: f64,
}

impl ExploreResult {
    /// Reads the report JSON the worker sends; `None` when it is not one.
    pub fn from_json(text: &str, ms: f64) -> Option<ExploreResult> {
        let v: Value = serde_json::from_str(text).ok()?;
        let u = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
        let n = |v: &Value, k: &str| v.get(k).and_then(Count::from_json);
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ExploreResult {
            schedules: n(&v, "schedules")?,
            states: u(&v, "states")?,
            complete: v.get("complete")?.as_bool()?,
            stopped_by: s(&v, "stopped_by"),
            max_states: v
                .get("bounds")
                .and_then(|b| u(b, "max_states"))
                .unwrap_or(0),
            expectations: v
                .get("expectations")?
                .as_array()?
                .iter()
                .map(|e| {
                    Some(ExpectationLine {
                        text: s(e, "text")?,
                        violations: n(e, "violations")?,
                        counterexample: s(e, "counterexample"),
                    })
                })
                .collect::<Option<_>>()?,
            outcomes: v
                .get("outcomes")?
                .as_array()?
                .iter()
                .map(|o| {
                    Some(OutcomeLine {
                        count: n(o, "count")?,
                        example: s(o, "example")?,
                        summary: s(o, "summary")?,
                    })
                })
                .collect::<Option<_>>()?,
            ms,
        })
    }
}

/// Where the explorer stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ExploreStatus {
    /// Nothing running, no result.
    #[default]
    Idle,
    /// The worker is exploring.
    Running { states: u64, schedules: Count },
    /// The worker finished.
    Done(Rc<ExploreResult>),
    /// The worker refused the job (errors in the text, a failing setup) or crashed.
    Failed(String),
}

/// The explorer panel: the current (or last) job and its status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExploreState {
    /// Increases with each job; messages of older jobs are ignored.
    pub job: u32,
    /// The text explored.
    pub source: String,
    /// The seed explored with.
    pub seed: u64,
    pub status: ExploreStatus,
}

/// A job for the worker: (job number, text, seed).
pub type ExploreJob = (u32, String, u64);

impl ExploreState {
    /// Whether `action` changes nothing (see `AppState::ignores`): a message of an older job
    /// or of a job no longer running, a Cancel with nothing running, the same progress again.
    pub fn ignores(&self, action: &ExploreAction) -> bool {
        let running = match &self.status {
            ExploreStatus::Running { states, schedules } => Some((*states, schedules)),
            _ => None,
        };
        match action {
            ExploreAction::Start => false,
            ExploreAction::Cancel => running.is_none(),
            ExploreAction::Progress {
                job,
                states,
                schedules,
            } => *job != self.job || running.is_none_or(|now| now == (*states, schedules)),
            ExploreAction::Done { job, .. } | ExploreAction::Failed { job, .. } => {
                *job != self.job || running.is_none()
            }
        }
    }

    /// The job the worker should be running, if one is running.
    pub fn running_job(&self) -> Option<ExploreJob> {
        matches!(self.status, ExploreStatus::Running { .. })
            .then(|| (self.job, self.source.clone(), self.seed))
    }
}

/// What happens to the explorer panel.
#[derive(Debug, Clone, PartialEq)]
pub enum ExploreAction {
    /// Explore the editor's current text (the worker is started by the hook).
    Start,
    /// Stop the running job (the hook terminates the worker); back to idle.
    Cancel,
    /// The worker's progress on `job`.
    Progress {
        job: u32,
        states: u64,
        schedules: Count,
    },
    /// The worker's report on `job` (JSON) and how long it explored.
    Done { job: u32, report: String, ms: f64 },
    /// The worker failed on `job`.
    Failed { job: u32, message: String },
}

impl AppState {
    /// Whether the shown explorer result no longer matches the text or the seed.
    pub fn explore_stale(&self) -> bool {
        self.explore.source != self.source || self.explore.seed != self.seed
    }

    pub(super) fn apply_explore(&mut self, action: ExploreAction) {
        let e = &mut self.explore;
        match action {
            ExploreAction::Start => {
                e.job = e.job.wrapping_add(1);
                e.source = self.source.clone();
                e.seed = self.seed;
                e.status = ExploreStatus::Running {
                    states: 0,
                    schedules: Count::zero(),
                };
            }
            ExploreAction::Cancel => {
                if matches!(e.status, ExploreStatus::Running { .. }) {
                    e.status = ExploreStatus::Idle;
                }
            }
            ExploreAction::Progress {
                job,
                states,
                schedules,
            } => {
                if job == e.job && matches!(e.status, ExploreStatus::Running { .. }) {
                    e.status = ExploreStatus::Running { states, schedules };
                }
            }
            ExploreAction::Done { job, report, ms } => {
                if job == e.job && matches!(e.status, ExploreStatus::Running { .. }) {
                    e.status = match ExploreResult::from_json(&report, ms) {
                        Some(r) => ExploreStatus::Done(Rc::new(r)),
                        None => ExploreStatus::Failed(
                            "the explorer sent a report this page cannot read".into(),
                        ),
                    };
                }
            }
            ExploreAction::Failed { job, message } => {
                if job == e.job && matches!(e.status, ExploreStatus::Running { .. }) {
                    e.status = ExploreStatus::Failed(message);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Action;
    use crate::worker::WorkerExplorer;

    /// What the worker would send: the real explorer, run in slices natively.
    fn worker_report(text: &str) -> String {
        let mut w = WorkerExplorer::create(text, "0", EXPLORE_MAX_STATES).expect("explorable");
        let mut slices = 0;
        loop {
            slices += 1;
            let p: Value = serde_json::from_str(&w.run(3)).expect("progress JSON");
            if p["done"] == Value::Bool(true) {
                break;
            }
        }
        assert!(slices > 1, "a budget of 3 takes several slices");
        w.report().expect("a report once done")
    }

    fn explored_seed_story() -> AppState {
        let s = AppState::default().apply(Action::Explore(ExploreAction::Start));
        assert_eq!(s.explore.running_job().map(|j| j.0), Some(1));
        let report = worker_report(&s.source);
        s.apply(Action::Explore(ExploreAction::Done {
            job: 1,
            report,
            ms: 3.0,
        }))
    }

    #[test]
    fn a_job_runs_reports_and_ignores_stale_messages() {
        let s = AppState::default().apply(Action::Explore(ExploreAction::Start));
        let s = s.apply(Action::Explore(ExploreAction::Progress {
            job: 1,
            states: 5,
            schedules: Count::from(2),
        }));
        assert_eq!(
            s.explore.status,
            ExploreStatus::Running {
                states: 5,
                schedules: Count::from(2)
            }
        );
        // A message of an older job changes nothing.
        let s = s.apply(Action::Explore(ExploreAction::Failed {
            job: 0,
            message: "old".into(),
        }));
        assert!(s.explore.running_job().is_some());
        let s = s.apply(Action::Explore(ExploreAction::Cancel));
        assert_eq!(s.explore.status, ExploreStatus::Idle);
        assert!(s.explore.running_job().is_none());
        // A report arriving after the cancel is dropped.
        let s = s.apply(Action::Explore(ExploreAction::Done {
            job: 1,
            report: "{}".into(),
            ms: 1.0,
        }));
        assert_eq!(s.explore.status, ExploreStatus::Idle);
    }

    #[test]
    fn the_seed_story_report_counts_violations_and_outcomes() {
        let s = explored_seed_story();
        let ExploreStatus::Done(r) = &s.explore.status else {
            panic!("not done: {:?}", s.explore.status);
        };
        assert!(r.complete);
        assert!(r.schedules > 1);
        assert_eq!(r.max_states, u64::from(EXPLORE_MAX_STATES));
        // The seed story expects bob to fail: some schedules (alice all first) let him succeed.
        let bob = r
            .expectations
            .iter()
            .find(|e| e.text.contains("bob fails"))
            .expect("expect bob fails");
        assert!(
            bob.violations > 0 && bob.violations < r.schedules,
            "{bob:?}"
        );
        assert!(bob.counterexample.is_some());
        let mut total = Count::zero();
        for o in &r.outcomes {
            total.add(&o.count);
        }
        assert_eq!(
            total, r.schedules,
            "outcome classes partition the schedules"
        );
        assert!(!s.explore_stale());
    }

    #[test]
    fn a_counterexample_loads_into_the_timeline_at_the_step_that_breaks_it() {
        let s = explored_seed_story();
        let ExploreStatus::Done(r) = s.explore.status.clone() else {
            panic!("not done");
        };
        let e = r
            .expectations
            .iter()
            .find(|e| e.violations > 0)
            .expect("a violated expectation");
        let token = e.counterexample.clone().expect("counterexample");
        let before = s.shown.as_ref().map(|x| x.run.token());
        let s = s.apply(Action::LoadSchedule(token.clone()));
        let shown = s.shown.as_ref().expect("a run");
        assert_eq!(shown.run.token(), token);
        assert_ne!(Some(token), before);
        let result = shown
            .expectations
            .iter()
            .find(|x| x.text == e.text)
            .expect("same expectation");
        assert!(!result.holds, "the counterexample violates it: {result:?}");
        // The cursor shows the step that decided it (the core's `Run::first_break_position`
        // is tested on a run that breaks before its end).
        let expectation = shown
            .run
            .scenario
            .expectations
            .iter()
            .find(|x| x.text == e.text)
            .expect("in the scenario");
        assert_eq!(shown.run.decisive_step(expectation), Some(s.cursor - 1));
    }

    /// A count past a u64 (three clients with 16 reads each: 48!/(16!)³ orders) arrives from the
    /// worker exact: as a decimal string in the progress and in the report.
    #[test]
    fn counts_past_a_u64_reach_the_panel_exact() {
        let mut text =
            String::from("object configmap/x at resourceVersion 10:\n    data.a = \"0\"\n");
        for name in ["alice", "bob", "carol"] {
            text.push_str(&format!("\nclient {name}:\n"));
            text.push_str(&"    c = get configmap/x\n".repeat(16));
        }
        let mut w = WorkerExplorer::create(&text, "0", EXPLORE_MAX_STATES).expect("explorable");
        let last = loop {
            let p: Value = serde_json::from_str(&w.run(500)).expect("progress JSON");
            let schedules = Count::parse(p["schedules"].as_str().expect("a decimal string"));
            if p["done"] == Value::Bool(true) {
                break schedules.expect("digits");
            }
        };
        let r = ExploreResult::from_json(&w.report().expect("done"), 1.0).expect("a report");
        assert_eq!(r.schedules.to_string(), "1355345464406015082330");
        assert_eq!(last, r.schedules);
        assert_eq!(r.outcomes.len(), 1);
        assert_eq!(r.outcomes[0].count, r.schedules);
    }

    #[test]
    fn editing_marks_the_results_stale() {
        let s = explored_seed_story();
        let text = format!("{}\n# edited\n", s.source);
        let s = s.apply(Action::EditSource(text));
        assert!(s.explore_stale());
        assert!(matches!(s.explore.status, ExploreStatus::Done(_)));
        let s = explored_seed_story().apply(Action::SetSeed(3));
        assert!(s.explore_stale());
    }

    #[test]
    fn a_text_with_errors_is_refused_by_the_worker_side() {
        let err = WorkerExplorer::create("client a:\n    x = get\n", "0", 10).err();
        assert!(err.is_some_and(|e| e.contains("errors")));
        assert!(WorkerExplorer::create("", "x", 10).is_err());
        assert!(ExploreResult::from_json("not json", 0.0).is_none());
        assert!(ExploreResult::from_json("{\"schedules\":1}", 0.0).is_none());
    }
}
