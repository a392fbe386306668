//! The view tabs: Lessons / Exercises (with the course's progress).

use super::{on_click, Dispatch};
use crate::state::exercises::ExerciseAction;
use crate::state::Action;
use yew::prelude::*;

/// Lessons / Exercises, as two tabs (`open`: the exercises are showing; `progress`: how many
/// of the listed exercises are solved, and how many are listed).
pub fn view_tabs(dispatch: &Dispatch, open: bool, progress: (usize, usize)) -> Html {
    // The kubectl build's page served by `rvlab serve` has a Live tab too (a fact of the page,
    // set once at start: the playground's call of this function stays as index.html builds it).
    #[cfg(feature = "live")]
    if crate::hooks::live::served_live() {
        return view_tabs_with_live(dispatch, open, progress, false);
    }
    let on = |action| on_click(dispatch, Action::Exercise(action));
    html! {
        <div class="tabs" role="tablist" aria-label="View">
            <button type="button" role="tab" data-testid="lessons-tab" aria-selected={(!open).to_string()}
                class={(!open).then_some("selected")} onclick={on(ExerciseAction::Open(false))}>{"Lessons"}</button>
            <button type="button" role="tab" data-testid="exercises-tab" aria-selected={open.to_string()}
                class={open.then_some("selected")} onclick={on(ExerciseAction::Open(true))}>
                {format!("Exercises ({}/{} ✓)", progress.0, progress.1)}
            </button>
        </div>
    }
}

/// Lessons / Exercises / Live, as three tabs (`live_open`: the Live view is showing).
#[cfg(feature = "live")]
pub fn view_tabs_with_live(
    dispatch: &Dispatch,
    open: bool,
    progress: (usize, usize),
    live_open: bool,
) -> Html {
    let on = |action| on_click(dispatch, Action::Exercise(action));
    let lessons = !open && !live_open;
    let exercises = open && !live_open;
    html! {
        <div class="tabs" role="tablist" aria-label="View">
            <button type="button" role="tab" data-testid="lessons-tab" aria-selected={lessons.to_string()}
                class={lessons.then_some("selected")} onclick={on(ExerciseAction::Open(false))}>{"Lessons"}</button>
            <button type="button" role="tab" data-testid="exercises-tab" aria-selected={exercises.to_string()}
                class={exercises.then_some("selected")} onclick={on(ExerciseAction::Open(true))}>
                {format!("Exercises ({}/{} ✓)", progress.0, progress.1)}
            </button>
            <button type="button" role="tab" data-testid="tab-live" aria-selected={live_open.to_string()}
                class={live_open.then_some("selected")} onclick={on_click(dispatch, Action::Live(crate::state::live::LiveAction::Open(true)))}>{"Live"}</button>
        </div>
    }
}
