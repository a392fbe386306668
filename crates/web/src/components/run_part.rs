//! [`RunPart`], the page's one memoised component: the parts that are costly to build (the
//! highlighted editor, a long run's rows, the table view), re-rendered only when their own
//! data changes.

use super::editor::{self, EditorProps};
use super::table::timeline_table;
use super::timeline::{self, CurrentRow, ShownRef};
use super::Dispatch;
use crate::hooks;
use yew::{function_component, Html, Properties};

/// Which costly part a [`RunPart`] renders, with exactly the data it needs.
#[derive(Clone, PartialEq)]
pub enum Part {
    /// The editor ([`editor::editor`]): its text, highlighted, and line marks.
    Editor(EditorProps),
    /// The lanes' rows ([`timeline::rows`]) of a run; the current row is marked by an effect
    /// ([`CurrentRow`]), so that a step does not re-render them.
    Rows(ShownRef, CurrentRow),
    /// The table view ([`timeline_table`]): the run, if any, and the step shown.
    Table(Option<ShownRef>, usize),
}

/// Props of [`RunPart`].
#[derive(Properties, PartialEq)]
pub struct RunPartProps {
    pub part: Part,
    pub dispatch: Dispatch,
}

/// The parts of the page that are costly to build, re-rendered only when their props change:
/// not on every keystroke for the run's parts, not on every step for the editor or the rows.
/// One component serves all three: each component type costs ~1.5 kB of wasm (docs/size.md).
#[function_component(RunPart)]
pub fn run_part(props: &RunPartProps) -> Html {
    let rows = match &props.part {
        Part::Rows(shown, current) => Some((shown.clone(), current.clone())),
        _ => None,
    };
    // New rows carry no mark: the page's effect ran before this child rendered them.
    hooks::use_effect(rows, |rows| {
        if let Some((_, current)) = rows {
            current.mark();
        }
        hooks::nothing()
    });
    match &props.part {
        Part::Editor(e) => editor::editor(e, &props.dispatch),
        Part::Rows(ShownRef(shown), _) => timeline::rows(shown, &props.dispatch),
        Part::Table(shown, cursor) => {
            timeline_table(shown.as_ref().map(|s| &*s.0), *cursor, &props.dispatch)
        }
    }
}
