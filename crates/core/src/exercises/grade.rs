//! Grading a submission against an exercise's goal. Goals are checked over runs (requests,
//! responses, outcomes, the final store), never over the text; the text is only compared to
//! make sure the locked parts (locked clients, setup objects, expectations) were left alone.

use super::{Exercise, Goal};

use crate::explore::{explore, Bounds};
use crate::lang::ast::{
    ExpectKind, Expr, ExprKind, Scenario, SetupBody, SetupObject, Span, Stmt, StmtKind,
};
use crate::lang::{self, Diagnostic};
use crate::run::Run;
use crate::share::{ShareState, Source};

/// The seed every grading run uses (a share link without `seed=` opens with it too).
const SEED: u64 = 0;

/// The exploration limits of fix-it grading: the built-in exercises are explored completely
/// far inside them; a submission whose exploration reaches one fails as incomplete, never
/// passes.
pub const GRADING_BOUNDS: Bounds = Bounds {
    max_schedules: u64::MAX,
    max_states: 50_000,
    max_depth: 200,
};

/// What grading says about one submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The goal is reached (and no locked part was changed).
    pub pass: bool,
    /// Why, in sentences: which expectation failed in which schedule, at which step.
    pub reasons: Vec<String>,
    /// A share-link fragment (`#v1&z=…&t=TOKEN`) that opens the deciding run.
    pub link: Option<String>,
}

impl Verdict {
    fn fail(reasons: Vec<String>) -> Self {
        Verdict {
            pass: false,
            reasons,
            link: None,
        }
    }
}

/// A share-link fragment for `text` played along `token`, showing step `position`.
pub(crate) fn link(text: &str, token: &str, position: u32) -> String {
    let state = ShareState {
        source: Source::Text(text.to_string()),
        token: token.to_string(),
        position,
        seed: SEED,
        view: String::new(),
    };
    format!("#{}", state.encode())
}

/// True when the text is a bare schedule token (`ba3b2`) rather than a scenario.
fn is_token(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Grades a submission: the edited scenario text, or (for *break it*) a bare schedule token.
/// Fix-it submissions are explored within [`GRADING_BOUNDS`].
pub fn grade(ex: &Exercise, submission: &str) -> Verdict {
    grade_with_bounds(ex, submission, GRADING_BOUNDS)
}

/// [`grade`] with other exploration bounds (a submission whose exploration reaches one fails
/// as incomplete).
pub fn grade_with_bounds(ex: &Exercise, submission: &str, bounds: Bounds) -> Verdict {
    let trimmed = submission.trim();
    if trimmed.is_empty() {
        return Verdict::fail(vec!["the submission is empty".into()]);
    }
    if is_token(trimmed) {
        return match ex.goal {
            Goal::Break { .. } => grade_token(ex, trimmed),
            Goal::Fix => Verdict::fail(vec![format!(
                "`{trimmed}` looks like a schedule, but `{}` is a fix-it exercise: submit the edited scenario",
                ex.id
            )]),
        };
    }
    let parsed = lang::parse(submission);
    let Some(scenario) = parsed.scenario else {
        let errors: Vec<&Diagnostic> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
        let mut reasons: Vec<String> = errors
            .iter()
            .take(5)
            .map(|d| {
                format!(
                    "the submission does not parse: line {}:{}: {}",
                    d.span.line, d.span.col, d.message
                )
            })
            .collect();
        if errors.len() > 5 {
            reasons.push(format!("… and {} more errors", errors.len() - 5));
        }
        return Verdict::fail(reasons);
    };
    let locked = locked_changes(ex, &scenario);
    if !locked.is_empty() {
        return Verdict::fail(locked);
    }
    match &ex.goal {
        Goal::Break { expectation } => {
            let Some((token, _)) = scenario.schedule.clone() else {
                return Verdict::fail(vec![
                    "the submission has no `schedule` line: write the schedule that breaks the expectation, e.g. `schedule \"abab\"`".into(),
                ]);
            };
            grade_break(&scenario, submission, expectation, &token)
        }
        Goal::Fix => grade_fix(&scenario, submission, bounds),
    }
}

/// Grades a *break it* submission given as a schedule token, on the exercise's own scenario.
pub fn grade_token(ex: &Exercise, token: &str) -> Verdict {
    match &ex.goal {
        Goal::Break { expectation } => grade_break(&ex.scenario, &ex.text, expectation, token),
        Goal::Fix => Verdict::fail(vec![format!(
            "`{}` is a fix-it exercise: a schedule alone cannot fix it",
            ex.id
        )]),
    }
}

fn same_text(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

fn grade_break(scenario: &Scenario, text: &str, expectation: &str, token: &str) -> Verdict {
    let Some(index) = scenario
        .expectations
        .iter()
        .position(|e| same_text(&e.text, expectation))
    else {
        return Verdict::fail(vec![format!(
            "the scenario has no `expect {expectation}` line to break"
        )]);
    };
    let run = match Run::new(scenario, SEED, Some(token)) {
        Ok(run) => run,
        Err(e) => {
            return Verdict::fail(vec![format!(
                "the schedule `{token}` cannot be played: {e}"
            )])
        }
    };
    let played = run.token();
    let result = &run.expectations()[index];
    let decisive = run.decisive_step(&scenario.expectations[index]);
    let position = decisive.map_or(run.len() as u32, |i| i as u32 + 1);
    let link = Some(link(text, &played, position));
    let step_sentence = |i: usize| {
        let s = &run.steps[i];
        let name = scenario
            .clients
            .get(s.client as usize)
            .map_or("?", |c| c.name.as_str());
        format!("step {} ({name}, line {}): {}", i + 1, s.line, s.narration)
    };
    if result.holds {
        let mut reasons = vec![format!(
            "`{expectation}` still holds in the run of schedule {played}: {}",
            result.detail
        )];
        if let Some(stop) = &run.stopped {
            reasons.push(stop.clone());
        }
        Verdict {
            pass: false,
            reasons,
            link,
        }
    } else {
        let mut reasons = vec![format!(
            "`{expectation}` fails in the run of schedule {played}: {}",
            result.detail
        )];
        if let Some(i) = decisive {
            reasons.push(format!("it broke at {}", step_sentence(i)));
        }
        Verdict {
            pass: true,
            reasons,
            link,
        }
    }
}

fn grade_fix(scenario: &Scenario, text: &str, bounds: Bounds) -> Verdict {
    let exploration = match explore(scenario, SEED, bounds) {
        Ok(x) => x,
        Err(e) => return Verdict::fail(vec![format!("the scenario cannot run: {e}")]),
    };
    let mut reasons = Vec::new();
    let mut link_to = None;
    for stats in &exploration.expectations {
        if stats.violations == 0 {
            continue;
        }
        let mut reason = format!(
            "`{}` fails in {} of {} schedules",
            stats.text, stats.violations, exploration.schedules
        );
        if let Some(token) = &stats.counterexample {
            reason.push_str(&format!(", e.g. schedule {token}"));
            if let Ok(run) = Run::new(scenario, SEED, Some(token)) {
                if let Some(r) = run.expectations().iter().find(|r| r.text == stats.text) {
                    reason.push_str(&format!(": {}", r.detail));
                }
                if link_to.is_none() {
                    let position = scenario
                        .expectations
                        .iter()
                        .find(|e| e.text == stats.text)
                        .and_then(|e| run.decisive_step(e))
                        .map_or(run.len() as u32, |i| i as u32 + 1);
                    link_to = Some(link(text, &run.token(), position));
                }
            }
        }
        reasons.push(reason);
    }
    if !exploration.complete {
        reasons.push(format!(
            "the exploration is incomplete: it stopped at its limit ({}) after {} schedules, so the fix cannot be confirmed; keep the scenario small (fewer requests and retries)",
            exploration.stopped_by.unwrap_or("a bound"),
            exploration.schedules
        ));
    }
    if reasons.is_empty() {
        return Verdict {
            pass: true,
            reasons: vec![format!(
                "every expectation holds in all {} schedules",
                exploration.schedules
            )],
            link: None,
        };
    }
    Verdict {
        pass: false,
        reasons,
        link: link_to,
    }
}

// ----- locked parts --------------------------------------------------------------------------

/// What the submission changed that it may not: one sentence per change.
fn locked_changes(ex: &Exercise, sub: &Scenario) -> Vec<String> {
    let orig = &ex.scenario;
    let mut out = Vec::new();
    for c in &orig.clients {
        match sub.clients.iter().find(|s| s.name == c.name) {
            None => out.push(format!("the submission removes client `{}`", c.name)),
            Some(s) => {
                if !ex.editable.contains(&c.name) && norm_body(&s.body) != norm_body(&c.body) {
                    out.push(format!(
                        "client `{}` is locked, but the submission changes it (line {}); only {} may be edited",
                        c.name,
                        s.span.line,
                        editable_list(ex)
                    ));
                }
            }
        }
    }
    for s in &sub.clients {
        if !orig.clients.iter().any(|c| c.name == s.name) {
            out.push(format!(
                "the submission adds client `{}`; only {} may be edited",
                s.name,
                editable_list(ex)
            ));
        }
    }
    if out.is_empty() {
        let names = |sc: &Scenario| {
            sc.clients
                .iter()
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()
        };
        if names(orig) != names(sub) {
            out.push(format!(
                "the submission reorders the clients; keep them in their order ({}), which gives their schedule letters",
                names(orig).join(", ")
            ));
        }
    }
    let objects = |sc: &Scenario| sc.objects.iter().map(norm_object).collect::<Vec<_>>();
    if objects(orig) != objects(sub) {
        out.push(
            "the submission changes the setup objects (`object` lines); they are locked".into(),
        );
    }
    let expectations = |sc: &Scenario| {
        sc.expectations
            .iter()
            .map(|e| norm_expect(&e.kind))
            .collect::<Vec<_>>()
    };
    if expectations(orig) != expectations(sub) {
        out.push(
            "the submission changes the expectations (`expect` lines); they are locked".into(),
        );
    }
    out
}

fn editable_list(ex: &Exercise) -> String {
    match ex.editable.as_slice() {
        [] => "the schedule".into(),
        names => names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn norm_body(body: &[Stmt]) -> Vec<Stmt> {
    body.iter().map(norm_stmt).collect()
}

fn norm_stmt(s: &Stmt) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Assign { var, path, value } => StmtKind::Assign {
            var: var.clone(),
            path: path.clone(),
            value: norm_expr(value),
        },
        StmtKind::Create { var, target, body } => StmtKind::Create {
            var: var.clone(),
            target: target.clone(),
            body: body.as_ref().map(norm_expr),
        },
        StmtKind::Patch {
            var,
            target,
            status,
            patch_type,
            body,
        } => StmtKind::Patch {
            var: var.clone(),
            target: target.clone(),
            status: *status,
            patch_type: *patch_type,
            body: norm_expr(body),
        },
        StmtKind::Apply {
            var,
            target,
            status,
            body,
            manager,
            force,
        } => StmtKind::Apply {
            var: var.clone(),
            target: target.clone(),
            status: *status,
            body: norm_expr(body),
            manager: manager.clone(),
            force: *force,
        },
        StmtKind::Delete {
            target,
            resource_version,
            uid,
        } => StmtKind::Delete {
            target: target.clone(),
            resource_version: resource_version.as_ref().map(norm_expr),
            uid: uid.as_ref().map(norm_expr),
        },
        StmtKind::Retry { policy, body } => StmtKind::Retry {
            policy: policy.clone(),
            body: norm_body(body),
        },
        other => other.clone(),
    };
    Stmt {
        kind,
        span: Span::default(),
        text: String::new(),
    }
}

fn norm_expr(e: &Expr) -> Expr {
    let kind = match &e.kind {
        ExprKind::Object(fields) => ExprKind::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), norm_expr(v)))
                .collect(),
        ),
        ExprKind::Array(items) => ExprKind::Array(items.iter().map(norm_expr).collect()),
        ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
            op: *op,
            lhs: Box::new(norm_expr(lhs)),
            rhs: Box::new(norm_expr(rhs)),
        },
        other => other.clone(),
    };
    Expr {
        kind,
        span: Span::default(),
    }
}

fn norm_object(o: &SetupObject) -> SetupObject {
    SetupObject {
        target: o.target.clone(),
        at_revision: o.at_revision,
        body: match &o.body {
            SetupBody::Fields(fields) => SetupBody::Fields(
                fields
                    .iter()
                    .map(|(p, e)| (p.clone(), norm_expr(e)))
                    .collect(),
            ),
            SetupBody::Literal(e) => SetupBody::Literal(norm_expr(e)),
        },
        span: Span::default(),
    }
}

fn norm_expect(k: &ExpectKind) -> ExpectKind {
    match k {
        ExpectKind::Field {
            target,
            path,
            equal,
            value,
        } => ExpectKind::Field {
            target: target.clone(),
            path: path.clone(),
            equal: *equal,
            value: norm_expr(value),
        },
        ExpectKind::Contains {
            target,
            path,
            value,
        } => ExpectKind::Contains {
            target: target.clone(),
            path: path.clone(),
            value: norm_expr(value),
        },
        other => other.clone(),
    }
}
