//! One file per region of the page; each renders part of [`crate::state::AppState`] or a core
//! view. The regions are plain functions of the state (each component type costs ~1.5 kB of
//! wasm, docs/size.md), except [`RunPart`], the one component, which skips the costly parts
//! (a run's rows or table, the highlighted text) when their inputs did not change.

pub mod controls;
pub mod editor;
pub mod exercises;
pub mod explorer;
pub mod inspector;
pub mod panels;
pub mod share;
pub mod timeline;

use crate::hooks;
use crate::state::{Action, AppState};
use yew::{
    function_component, html, AttrValue, Callback, Html, MouseEvent, Properties,
    UseReducerDispatcher, UseReducerHandle,
};

/// The state handle every component reads and dispatches to.
pub type AppHandle = UseReducerHandle<AppState>;

/// A click handler that dispatches `action`. Every "click does X" button goes through this one
/// non-generic function, so they share one closure body and vtable (docs/size.md).
#[inline(never)]
pub fn on_click(dispatch: &UseReducerDispatcher<AppState>, action: Action) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |_| dispatch.dispatch(action.clone()))
}

/// A change or input handler that dispatches what `action` makes of the value of the event's
/// target (a field, a select, the textarea), if anything: the page's value handlers share one
/// closure body per event type (docs/size.md).
pub fn on_value<E: AsRef<web_sys::Event> + 'static>(
    dispatch: &UseReducerDispatcher<AppState>,
    action: fn(String) -> Option<Action>,
) -> Callback<E> {
    let dispatch = dispatch.clone();
    Callback::from(move |e: E| {
        let value = e
            .as_ref()
            .target()
            .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
            .and_then(|v| v.as_string());
        if let Some(a) = value.and_then(action) {
            dispatch.dispatch(a);
        }
    })
}

/// `<tag class="class">text</tag>` (no class attribute when `class` is empty): the shape most of
/// the page's text takes. One shared function rather than an inline element at each place: each
/// `html!` element is ~250 B of wasm (docs/size.md).
pub fn el(tag: &'static str, class: &'static str, text: impl Into<AttrValue>) -> Html {
    text_element(tag, class, "", text.into())
}

/// [`el`] with a `data-testid`.
pub fn el_id(
    tag: &'static str,
    class: &'static str,
    testid: &'static str,
    text: impl Into<AttrValue>,
) -> Html {
    text_element(tag, class, testid, text.into())
}

#[inline(never)]
fn text_element(
    tag: &'static str,
    class: &'static str,
    testid: &'static str,
    text: AttrValue,
) -> Html {
    let class = (!class.is_empty()).then_some(class);
    let testid = (!testid.is_empty()).then_some(testid);
    html! { <@{tag} {class} data-testid={testid}>{text}</@> }
}

/// `<button type="button" data-testid=… class=… title=… disabled=…>label</button>` (no class or
/// title attribute when empty or `None`): the page's plain buttons, built by one function
/// rather than inline at each place (docs/size.md).
pub fn button(
    testid: &'static str,
    class: &'static str,
    title: Option<AttrValue>,
    disabled: bool,
    onclick: Callback<MouseEvent>,
    label: impl Into<AttrValue>,
) -> Html {
    plain_button(testid, class, title, disabled, onclick, label.into())
}

#[inline(never)]
fn plain_button(
    testid: &'static str,
    class: &'static str,
    title: Option<AttrValue>,
    disabled: bool,
    onclick: Callback<MouseEvent>,
    label: AttrValue,
) -> Html {
    let class = (!class.is_empty()).then_some(class);
    html! { <button type="button" {class} data-testid={testid} {disabled} {title} {onclick}>{label}</button> }
}

/// Fixed markup (no listeners, no values) parsed from an HTML string: the text compresses to a
/// few bytes, where each `html!` element is code (docs/size.md). Only for constants written in
/// this crate, never for text from a scenario, a link or the reader.
pub fn markup(html: &'static str) -> Html {
    Html::from_html_unchecked(AttrValue::Static(html))
}

/// Which costly part of the page a [`RunPart`] renders.
#[derive(Clone, Copy, PartialEq)]
pub enum Part {
    /// The editor ([`editor::editor`]): its text, highlighted, and line marks.
    Editor,
    /// The lanes' rows ([`timeline::rows`]).
    Rows,
    /// The table view ([`share::timeline_table`]).
    Table,
}

/// Props of [`RunPart`]: the run (by identity) and the position, or the editor's text.
#[derive(Properties, PartialEq)]
pub struct RunPartProps {
    pub part: Part,
    #[prop_or_default]
    pub shown: Option<timeline::ShownRef>,
    /// The step shown (the table marks it; the lanes' rows get 0: an effect marks theirs).
    #[prop_or_default]
    pub cursor: usize,
    /// The editor's text and diagnostics ([`Part::Editor`] only).
    #[prop_or_default]
    pub editor: Option<editor::EditorProps>,
    pub dispatch: UseReducerDispatcher<AppState>,
}

/// The parts of the page that are costly to build (a long run's rows or table, the
/// highlighted text), re-rendered only when their props change: not on every keystroke for the
/// run's parts, not on every step for the editor. One component serves all three: each
/// component type costs ~1.5 kB of wasm (docs/size.md).
#[function_component(RunPart)]
pub fn run_part(props: &RunPartProps) -> Html {
    let rows = props.part == Part::Rows;
    hooks::use_effect(props.shown.clone(), move |_| {
        if rows {
            timeline::remark_current();
        }
        hooks::nothing()
    });
    match props.part {
        Part::Editor => props
            .editor
            .as_ref()
            .map_or_else(Html::default, |e| editor::editor(e, &props.dispatch)),
        Part::Rows => timeline::rows(props),
        Part::Table => share::timeline_table(props),
    }
}
