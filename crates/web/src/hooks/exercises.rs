//! The exercises' effects: the progress in localStorage (key [`PROGRESS_KEY`], versioned
//! JSON: read once at start, anything unreadable counts as no progress, written whenever it
//! changes), and the editor's locked lines (edits of a locked client are refused as typed).

use crate::state::exercises::{
    edit_blocked, locked_ranges, progress_to_json, ExerciseAction, COURSE_PROGRESS_KEY,
    PROGRESS_KEY,
};
use crate::state::{Action, AppState};
use gloo_events::{EventListener, EventListenerOptions, EventListenerPhase};
use wasm_bindgen::JsValue;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// While an exercise is open, refuses edits of its locked clients in the editor (`editor`,
/// its textarea): a `beforeinput` listener on it, whose selection says where the edit lands.
#[hook]
pub fn use_locked_lines(app: &UseReducerHandle<AppState>, editor: &NodeRef) {
    let dispatcher = app.dispatcher();
    let ranges = app
        .exercises
        .current
        .as_ref()
        .map(|s| locked_ranges(s, &app.source))
        .unwrap_or_default();
    let editor = editor.clone();
    super::use_effect(ranges, move |ranges| {
        let ranges = ranges.clone();
        let listener = (!ranges.is_empty())
            .then(|| editor.cast::<HtmlTextAreaElement>())
            .flatten()
            .map(|area| {
                let options = EventListenerOptions {
                    phase: EventListenerPhase::Capture,
                    passive: false,
                };
                let target = area.clone();
                EventListener::new_with_options(&target, "beforeinput", options, move |event| {
                    let start = area.selection_start().ok().flatten().unwrap_or(0);
                    let end = area.selection_end().ok().flatten().unwrap_or(start);
                    let kind = js_sys::Reflect::get(event, &JsValue::from_str("inputType"))
                        .ok()
                        .and_then(|v| v.as_string())
                        .unwrap_or_default();
                    if edit_blocked(&ranges, start, end, &kind) {
                        event.prevent_default();
                        dispatcher.dispatch(Action::Exercise(ExerciseAction::RefusedEdit));
                    }
                })
            });
        Box::new(move || drop(listener))
    });
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Restores the solved exercises (the built-in course's, and the page's own course's under its
/// id), then saves them after each change.
#[hook]
pub fn use_exercise_progress(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    let own_key = app
        .exercises
        .course
        .as_ref()
        .map(|c| format!("{COURSE_PROGRESS_KEY}{}", c.id));
    let key = own_key.clone();
    super::use_effect((), move |_| {
        let read = |k: &str| storage().and_then(|s| s.get_item(k).ok().flatten());
        let own = key.as_deref().and_then(read);
        dispatcher.dispatch(Action::Exercise(ExerciseAction::Restore(
            read(PROGRESS_KEY),
            own,
        )));
        super::nothing()
    });
    let e = &app.exercises;
    super::use_effect(
        (e.solved.clone(), e.course_solved.clone(), e.restored),
        move |(solved, own, restored)| {
            if let (true, Some(s)) = (*restored, storage()) {
                let _ = s.set_item(PROGRESS_KEY, &progress_to_json(solved));
                if let Some(k) = &own_key {
                    let _ = s.set_item(k, &progress_to_json(own));
                }
            }
            super::nothing()
        },
    );
}
