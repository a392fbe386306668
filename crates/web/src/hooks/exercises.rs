//! The exercises' progress in localStorage (key [`PROGRESS_KEY`], versioned JSON): read once
//! at start (anything unreadable counts as no progress), written whenever it changes.

use crate::state::exercises::{progress_to_json, ExerciseAction, PROGRESS_KEY};
use crate::state::{Action, AppState};
use yew::prelude::*;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Restores the solved exercises, then saves them after each change.
#[hook]
pub fn use_exercise_progress(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect_with((), move |_| {
        let stored = storage().and_then(|s| s.get_item(PROGRESS_KEY).ok().flatten());
        dispatcher.dispatch(Action::Exercise(ExerciseAction::Restore(stored)));
    });
    let restored = app.exercises.restored;
    use_effect_with(
        (app.exercises.solved.clone(), restored),
        move |(solved, restored)| {
            if *restored {
                if let Some(s) = storage() {
                    let _ = s.set_item(PROGRESS_KEY, &progress_to_json(solved));
                }
            }
        },
    );
}
