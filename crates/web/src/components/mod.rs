//! One file per region of the page. Each region is a plain function of the narrow data it
//! shows plus the reducer's [`Dispatch`]er (each component type costs ~1.5 kB of wasm,
//! docs/size.md), except [`RunPart`], the one component, which skips the costly parts (a run's
//! rows or table, the highlighted text) when their inputs did not change. [`html`] holds the
//! small helpers every region uses. The regions: `controls`, `editor`, `timeline`, `table`, `inspector`, `narration`, `expectations`, `lesson_picker`, `tabs`, `exercises`, `explorer`, `share`, `notice`, `help`, `run_part` ([`RunPart`]), and in the kubectl build `terminal` and `live`.

pub mod controls;
pub mod editor;
pub mod exercises;
pub mod expectations;
pub mod explorer;
pub mod help;
pub mod html;
pub mod inspector;
pub mod lesson_picker;
#[cfg(feature = "live")]
pub mod live;
pub mod narration;
pub mod notice;
pub mod run_part;
pub mod share;
pub mod table;
pub mod tabs;
#[cfg(feature = "kubectl")]
pub mod terminal;
pub mod timeline;

#[cfg(all(test, not(target_family = "wasm")))]
mod tests;

pub use html::{button, el, el_id, markup, on_click, on_value};
pub use run_part::{Part, RunPart};

/// What every region dispatches its actions to: the page's reducer.
pub type Dispatch = yew::UseReducerDispatcher<crate::state::AppState>;
