//! One component per file; each renders part of [`crate::state::AppState`] or a core view.

pub mod controls;
pub mod editor;
pub mod exercises;
pub mod explorer;
pub mod inspector;
pub mod panels;
pub mod share;
pub mod timeline;

use crate::state::{Action, AppState};
use yew::{Callback, MouseEvent, UseReducerDispatcher, UseReducerHandle};

/// The state handle every component reads and dispatches to.
pub type AppHandle = UseReducerHandle<AppState>;

/// A click handler that dispatches `action`. Every "click does X" button goes through this one
/// non-generic function, so they share one closure body and vtable (docs/size.md).
#[inline(never)]
pub fn on_click(dispatch: &UseReducerDispatcher<AppState>, action: Action) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |_| dispatch.dispatch(action.clone()))
}
