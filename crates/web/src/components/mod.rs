//! One component per file; each renders part of [`crate::state::AppState`] or a core view.

pub mod controls;
pub mod editor;
pub mod exercises;
pub mod explorer;
pub mod inspector;
pub mod panels;
pub mod share;
pub mod timeline;

use crate::state::AppState;
use yew::UseReducerHandle;

/// The state handle every component reads and dispatches to.
pub type AppHandle = UseReducerHandle<AppState>;
