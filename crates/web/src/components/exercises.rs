//! The exercises view: the tabs (Lessons / Exercises), the course list with progress (✓), and
//! the open exercise: instructions, the goal, which clients are locked, Check with the verdict
//! and its reasons (a click loads the deciding run), hints one at a time.

use super::el;
use super::{button, markup, AppHandle};
use crate::state::exercises::ExerciseAction;
use crate::state::Action;
use rvlab_core::exercises::{Goal, EXERCISES};
use yew::prelude::*;

fn on(app: &AppHandle, action: ExerciseAction) -> Callback<MouseEvent> {
    super::on_click(&app.dispatcher(), Action::Exercise(action))
}

/// The course item's classes (static strings: no `classes!` set to build).
fn item_class(here: bool, solved: bool) -> &'static str {
    match (here, solved) {
        (true, true) => "link exercise-item current solved",
        (true, false) => "link exercise-item current",
        (false, true) => "link exercise-item solved",
        (false, false) => "link exercise-item",
    }
}

thread_local! {
    /// The course list's labels ("1. Title (break it)"), built once: each needs a parse of
    /// its exercise, which a render should not repeat 13 times.
    static EXERCISE_LABELS: Vec<String> = EXERCISES
        .iter()
        .enumerate()
        .map(|(i, b)| {
            b.parse()
                .map(|e| format!("{}. {} ({})", i + 1, e.title, kind_label(&e.goal)))
                .unwrap_or_else(|_| b.id.to_string())
        })
        .collect();
}

fn kind_label(goal: &Goal) -> &'static str {
    match goal {
        Goal::Break { .. } => "break it",
        Goal::Fix => "fix it",
    }
}

/// Lessons / Exercises, as two tabs.
pub fn view_tabs(app: &AppHandle) -> Html {
    let open = app.exercises.open;
    html! {
        <div class="tabs" role="tablist" aria-label="View">
            <button type="button" role="tab" data-testid="lessons-tab" aria-selected={(!open).to_string()}
                class={(!open).then_some("selected")} onclick={on(app, ExerciseAction::Open(false))}>{"Lessons"}</button>
            <button type="button" role="tab" data-testid="exercises-tab" aria-selected={open.to_string()}
                class={open.then_some("selected")} onclick={on(app, ExerciseAction::Open(true))}>
                {format!("Exercises ({}/{} ✓)", app.exercises.solved.len(), EXERCISES.len())}
            </button>
        </div>
    }
}

/// The course list and the open exercise.
pub fn exercises(app: &AppHandle) -> Html {
    let current = app.exercises.current.as_ref();
    let items: Html = EXERCISES
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let solved = app.is_solved(b.id);
            let here = current.map(|c| c.id) == Some(b.id);
            let title = EXERCISE_LABELS.with(|t| t.get(i).cloned().unwrap_or_default());
            html! {
                <li>
                    <button type="button" class={item_class(here, solved)}
                        data-testid="exercise-item" data-id={b.id} data-solved={solved.to_string()}
                        aria-current={here.then_some("true")} onclick={on(app, ExerciseAction::Load(b.id))}>
                        <span class="tick" aria-label={if solved { "solved" } else { "not solved yet" }}>{if solved { "✓" } else { "○" }}</span>
                        {" "}{title}
                    </button>
                </li>
            }
        })
        .collect();
    let body = match current {
        None => el("p", "muted", "Pick an exercise."),
        Some(s) => {
            let ex = &s.exercise;
            let goal = match &ex.goal {
                Goal::Break { expectation } => html! {
                    <p class="goal">{el("strong", "", "Goal (break it): ")}{"make "}{el("code", "", format!("expect {expectation}"))}
                        {" fail. You are the scheduler: pick who goes next with the “next” buttons, then Check."}</p>
                },
                Goal::Fix => markup(concat!(
                    r#"<p class="goal"><strong>Goal (fix it): </strong>edit the editable clients so "#,
                    "that every expectation holds in every schedule, then Check (it explores all of them).</p>"
                )),
            };
            let locks: Html = s
                .clients(&app.source)
                .into_iter()
                .map(|c| {
                    let line = c.line.map(|l| format!(", line {l}")).unwrap_or_default();
                    // One element with the variable parts, rather than two copies of it.
                    let (class, badge, word, note) = if c.editable {
                        ("lock editable", "badge fresh", "editable", format!(" editable{line}"))
                    } else {
                        ("lock locked", "badge locked", "locked", format!(" locked{line} (changes are refused)"))
                    };
                    html! { <li class={class} data-testid="exercise-client">{el("span", badge, word)}{" "}{el("strong", "", c.name)}{note}</li> }
                })
                .collect();
            let more_hints = s.hints_shown < ex.hints.len();
            let verdict = s.verdict.as_ref().map(|v| {
                html! {
                    <div class={if v.pass { "exercise-verdict pass" } else { "exercise-verdict fail" }}
                        data-testid="exercise-verdict" data-pass={v.pass.to_string()} role="status">
                        {el("strong", "", if v.pass { "✓ Passed" } else { "✖ Not yet" })}
                        <ul>{ for v.reasons.iter().map(|r| el("li", "", r.clone())) }</ul>
                        if v.link.is_some() {
                            {button("exercise-open-run", "", None, false, on(app, ExerciseAction::OpenVerdictRun),
                                "Show this run in the timeline")}
                        }
                    </div>
                }
            });
            html! {
                <div class="exercise" data-testid="exercise" data-id={s.id}>
                    <h3>{ex.title.clone()}{" "}{el("span", "kind", kind_label(&ex.goal))}
                        if app.is_solved(s.id) { {" "}{el("span", "badge fresh", "✓ solved")} }</h3>
                    <div data-testid="exercise-instructions" class="instructions">
                        { for ex.instructions.iter().map(|p| el("p", "", p.clone())) }
                    </div>
                    {goal}
                    <ul class="locks" aria-label="Clients">{locks}</ul>
                    if s.refused_edit {
                        {markup(concat!(
                            r#"<p class="bad" data-testid="exercise-locked-note" role="status">That line belongs "#,
                            "to a locked client: only the editable clients can be changed.</p>"
                        ))}
                    }
                    <div class="buttons">
                        {button("exercise-check", "primary", None, false, on(app, ExerciseAction::Check), "Check")}
                        {button("exercise-hint", "", None, !more_hints, on(app, ExerciseAction::Hint),
                            format!("Hint ({} of {})", s.hints_shown, ex.hints.len()))}
                        {button("exercise-restart", "", None, false, on(app, ExerciseAction::Load(s.id)), "Start over")}
                    </div>
                    { for ex.hints.iter().take(s.hints_shown).enumerate().map(|(i, h)| html! {
                        <p class="hint" data-testid="exercise-hint-text">{el("strong", "", format!("Hint {}: ", i + 1))}{h.clone()}</p>
                    }) }
                    { for verdict }
                </div>
            }
        }
    };
    html! {
        <section class="panel exercises" data-testid="exercises" aria-label="Exercises">
            <nav class="course" aria-label="Course">
                {el("h2", "", format!("Course: {} of {} solved", app.exercises.solved.len(), EXERCISES.len()))}
                <ol data-testid="exercise-list">{items}</ol>
            </nav>
            {body}
        </section>
    }
}
