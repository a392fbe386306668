//! Small panels: the lesson picker (title and about), the narration of the current step, and
//! the expectations checked at the end of the run.

use super::el;
use super::{markup, AppHandle};
use crate::state::Action;
use rvlab_core::lessons::{lesson, LESSONS};
use yew::prelude::*;

thread_local! {
    /// The built-in lessons' titles, parsed once: a title needs a parse of its lesson, and
    /// parsing all of them on every render made each step of a long run ~0.5 ms slower.
    static LESSON_TITLES: Vec<String> = LESSONS.iter().map(|l| l.title()).collect();
}

/// The title of built-in lesson `i` (empty when there is none).
pub fn lesson_title(i: usize) -> String {
    LESSON_TITLES.with(|t| t.get(i).cloned().unwrap_or_default())
}

/// The lessons picker and the scenario's title and about text. A plain function, not a
/// component: it re-renders with the app state anyway, and the titles of the handful of
/// lessons are cheap to format (docs/size.md).
pub fn lesson_picker(app: &AppHandle) -> Html {
    let onchange: Callback<Event> = super::on_value(&app.dispatcher(), |v| {
        lesson(&v).map(|l| Action::LoadLesson(l.id))
    });
    let current = app.lesson.unwrap_or("");
    let scenario = app.shown.as_ref().map(|s| &s.run.scenario);
    let title = scenario.and_then(|s| s.title.clone());
    let about = scenario.and_then(|s| s.about.clone());
    html! {
        <div class="lesson">
            <label class="inline">{"Lesson "}
                <select data-testid="lesson-picker" {onchange} aria-label="Lesson">
                    if app.lesson.is_none() { <option value="" selected=true>{"(your own scenario)"}</option> }
                    { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                        <option value={l.id} selected={l.id == current}>{format!("{}. {}", i + 1, lesson_title(i))}</option>
                    }) }
                </select>
            </label>
            if let Some(t) = title { {super::el_id("h2", "title", "scenario-title", t)} }
            if let Some(a) = about { {super::el_id("p", "about", "about", a)} }
        </div>
    }
}

/// The narration of the current step.
pub fn narration(app: &AppHandle) -> Html {
    let body = match app.current_step() {
        Some(step) => html! {
            <>
                <p>{el("strong", "", format!("Step {} · {}: ", step.number, step.client))}{step.narration.clone()}</p>
                { for step.lost_updates.iter().map(|l| el("p", "bad", format!("☠ {l}"))) }
                if let Some(f) = &step.finished { {el("p", "muted", f.clone())} }
            </>
        },
        None => el(
            "p",
            "",
            "Nothing has happened yet. Step forward (→), or pick who goes next.",
        ),
    };
    let stopped = app
        .shown
        .as_ref()
        .filter(|s| app.cursor == s.run.len())
        .and_then(|s| s.run.stopped.clone());
    html! {
        <section class="panel narration" data-testid="narration" aria-label="Narration">
            {body}
            if let Some(s) = stopped { {el("p", "bad", s)} }
        </section>
    }
}

/// The expectations, checked on the run's final world.
pub fn expectations(app: &AppHandle) -> Html {
    let Some(shown) = &app.shown else {
        return markup(
            r#"<section class="panel expectations" data-testid="expectations"></section>"#,
        );
    };
    let items: Html = shown
        .expectations
        .iter()
        .map(|e| {
            let (class, word) = if e.holds {
                ("holds", "✓ holds")
            } else {
                ("fails", "✖ fails")
            };
            html! {
                <li class={class}>
                    {el("span", "verdict", word)}{" "}{el("code", "", format!("expect {}", e.text))}
                    {el("div", "muted", e.detail.clone())}
                </li>
            }
        })
        .collect();
    html! {
        <section class="panel expectations" data-testid="expectations" aria-label="Expectations">
            {markup(r#"<h2>Expectations <span class="muted">(at the end of this run)</span></h2>"#)}
            if shown.expectations.is_empty() { {el("p", "muted", "This scenario has no expect lines.")} }
            <ul>{items}</ul>
        </section>
    }
}
