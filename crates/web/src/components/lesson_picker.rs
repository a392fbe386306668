//! The lessons picker and the scenario's title and about text.

use super::{el_id, on_value, Dispatch};
use crate::state::catalogue::Catalogue;
use crate::state::Action;
use rvlab_core::lang::ast::Scenario;
use rvlab_core::lessons::{lesson, LESSONS};
use yew::prelude::*;

/// The kubectl lessons a build without the model lists but cannot run (none in the kubectl
/// build, which lists them with the rest).
fn elsewhere() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    rvlab_core::lessons::KUBECTL
        .iter()
        .filter(|_| !rvlab_core::kubectl::IN_BUILD)
}

/// The lessons picker (`lesson`: the lesson the text is, if any) and the scenario's title and
/// about text. The titles come from the state's [`Catalogue`], built once per page.
pub fn lesson_picker(
    dispatch: &Dispatch,
    lesson_id: Option<&'static str>,
    scenario: Option<&Scenario>,
    catalogue: &Catalogue,
) -> Html {
    let onchange: Callback<Event> = on_value(dispatch, |v| {
        let l = lesson(&v).map(|l| Action::LoadLesson(l.id));
        // A kubectl lesson of a build without the model: the kubectl build opens it.
        if l.is_none() && elsewhere().any(|(id, _)| *id == v) {
            crate::hooks::go_to(&crate::link::kubectl_lesson(&crate::hooks::page_url(), &v));
        }
        l
    });
    let current = lesson_id.unwrap_or("");
    let title = scenario.and_then(|s| s.title.clone());
    let about = scenario.and_then(|s| s.about.clone());
    html! {
        <div class="lesson">
            <label class="inline">{"Lesson "}
                <select data-testid="lesson-picker" {onchange} aria-label="Lesson">
                    if lesson_id.is_none() { <option value="" selected=true>{"(your own scenario)"}</option> }
                    { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                        <option value={l.id} selected={l.id == current}>{format!("{}. {}", i + 1, catalogue.lesson_title(i))}</option>
                    }) }
                    if !rvlab_core::kubectl::IN_BUILD {
                        <optgroup label="With kubectl (loads the kubectl build)">
                            { for elsewhere().enumerate().map(|(i, (id, title))| html! {
                                <option value={*id}>{format!("{}. {title}", LESSONS.len() + i + 1)}</option>
                            }) }
                        </optgroup>
                    }
                </select>
            </label>
            if let Some(t) = title { {el_id("h2", "title", "scenario-title", t)} }
            if let Some(a) = about { {el_id("p", "about", "about", a)} }
        </div>
    }
}
