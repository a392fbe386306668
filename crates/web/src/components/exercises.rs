//! The exercises view: the course list with progress (✓), and the open exercise: instructions, the goal, which clients are locked, Check with the verdict
//! and its reasons (a click loads the deciding run), hints one at a time.

use super::el;
use super::{button, markup, Dispatch};
use crate::state::catalogue::{kind_label, Catalogue};
use crate::state::exercises::{ExerciseAction, ExercisesState, Origin};
use crate::state::Action;
use rvlab_core::exercises::{Goal, EXERCISES};
use yew::prelude::*;

fn on(dispatch: &Dispatch, action: ExerciseAction) -> Callback<MouseEvent> {
    super::on_click(dispatch, Action::Exercise(action))
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

/// The course list and the open exercise (`source`: the editor's text, for the clients'
/// lines; `catalogue`: the list's labels).
pub fn exercises(
    dispatch: &Dispatch,
    state: &ExercisesState,
    source: &str,
    catalogue: &Catalogue,
) -> Html {
    let current = state.current.as_ref();
    let here =
        |origin: Origin, id: &str| current.is_some_and(|c| c.origin == origin && *c.id == *id);
    // One item for both lists.
    let item = |id: &str, label: String, solved: bool, here: bool, action: ExerciseAction| {
        html! {
            <li>
                <button type="button" class={item_class(here, solved)}
                    data-testid="exercise-item" data-id={id.to_string()} data-solved={solved.to_string()}
                    aria-current={here.then_some("true")} onclick={on(dispatch, action)}>
                    <span class="tick" aria-label={if solved { "solved" } else { "not solved yet" }}>{if solved { "✓" } else { "○" }}</span>
                    {" "}{label}
                </button>
            </li>
        }
    };
    // A kubectl exercise in a build without the model: a link to the kubectl build, next to
    // this page as every file of the page is.
    let kubectl_item = |n: usize, id: &str, title: &str| {
        html! {
            <li><a class="link exercise-item" href={format!("{}#exercise={id}", crate::link::KUBECTL_PAGE)}
                data-testid="exercise-kubectl" data-id={id.to_string()}>
                {format!("{n}. {title} (with kubectl) ↗")}
            </a></li>
        }
    };
    let own = state.course.as_ref().map(|c| {
        let items: Html = c
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| match &e.exercise {
                Ok(_) => {
                    let solved = state.course_solved.contains(&e.id);
                    let action = ExerciseAction::LoadCourse(e.id.as_str().into());
                    item(&e.id, format!("{}. {}", i + 1, e.title), solved, here(Origin::Course, &e.id), action)
                }
                Err(_) if e.kubectl => kubectl_item(i + 1, &e.id, &e.title),
                Err(why) => html! {
                    <li class="muted exercise-broken" data-testid="exercise-broken" data-file={e.file.clone()}>
                        {format!("{}. {}: this exercise has errors and cannot be opened ({why})", i + 1, e.file)}
                    </li>
                },
            })
            .collect();
        html! {
            <nav class="course" aria-label={c.title.clone()} data-testid="own-course">
                {el("h2", "", format!("{}: {} of {} solved", c.title, state.course_solved.len(), c.entries.len()))}
                <ol data-testid="own-course-list">{items}</ol>
            </nav>
        }
    });
    let builtin = state.shows_builtin().then(|| {
        let items: Html = EXERCISES
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let label = catalogue.exercise_label(i).to_string();
                item(b.id, label, state.is_solved(b.id), here(Origin::Builtin, b.id), ExerciseAction::Load(b.id))
            })
            .chain(
                rvlab_core::exercises::KUBECTL
                    .iter()
                    .filter(|_| !rvlab_core::kubectl::IN_BUILD)
                    .enumerate()
                    .map(|(i, (id, title))| kubectl_item(EXERCISES.len() + i + 1, id, title)),
            )
            .collect();
        let heading = if state.course.is_some() { "rvlab's course" } else { "Course" };
        html! {
            <nav class="course" aria-label="Course">
                {el("h2", "", format!("{heading}: {} of {} solved", state.solved.len(), EXERCISES.len()))}
                <ol data-testid="exercise-list">{items}</ol>
            </nav>
        }
    });
    let body = match current {
        None => el("p", "muted", "Pick an exercise."),
        Some(s) => {
            let ex = &s.exercise;
            let solved_here = match s.origin {
                Origin::Builtin => state.is_solved(&s.id),
                Origin::Course => state.course_solved.iter().any(|x| *x == *s.id),
                Origin::Link => false,
            };
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
                .clients(source)
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
                            {button("exercise-open-run", "", None, false, on(dispatch, ExerciseAction::OpenVerdictRun),
                                "Show this run in the timeline")}
                        }
                    </div>
                }
            });
            html! {
                <div class="exercise" data-testid="exercise" data-id={s.id.to_string()}>
                    <h3>{ex.title.clone()}{" "}{el("span", "kind", kind_label(&ex.goal))}
                        if solved_here { {" "}{el("span", "badge fresh", "✓ solved")} }</h3>
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
                        {button("exercise-check", "primary", None, false, on(dispatch, ExerciseAction::Check), "Check")}
                        {button("exercise-hint", "", None, !more_hints, on(dispatch, ExerciseAction::Hint),
                            format!("Hint ({} of {})", s.hints_shown, ex.hints.len()))}
                        {button("exercise-restart", "", None, false, on(dispatch, ExerciseAction::Restart), "Start over")}
                        {button("exercise-hand-in", "", None, false, on(dispatch, ExerciseAction::HandIn), "Copy my work")}
                    </div>
                    if let Some(h) = &s.hand_in {
                        <div class="hand-in" data-testid="hand-in">
                            {el("p", "muted", "Your work, for your teacher (rvlab grade reads it):")}
                            <textarea readonly=true rows="4" aria-label="My work as text" data-testid="hand-in-text" value={h.0.clone()} />
                            {match &h.1 {
                                Ok(f) => html! { <p><a href={format!("#{f}")} target="_blank" rel="noopener" data-testid="hand-in-link">{"Link to my work"}</a></p> },
                                Err(e) => el("p", "muted", e.clone()),
                            }}
                        </div>
                    }
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
            <div class="courses">{for own}{for builtin}</div>
            {body}
        </section>
    }
}
