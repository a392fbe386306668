//! The page's small HTML helpers: click and value handlers, text elements, plain buttons and
//! fixed markup. Shared non-generic functions rather than inline code at each place: each
//! `html!` element and each closure type is code in the wasm (docs/size.md).

use super::Dispatch;
use crate::state::Action;
use yew::{html, AttrValue, Callback, Html, MouseEvent};

/// A click handler that dispatches `action`. Every "click does X" button goes through this one
/// non-generic function, so they share one closure body and vtable (docs/size.md).
#[inline(never)]
pub fn on_click(dispatch: &Dispatch, action: Action) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |_| dispatch.dispatch(action.clone()))
}

/// A change or input handler that dispatches what `action` makes of the value of the event's
/// target (a field, a select, the textarea), if anything: the page's value handlers share one
/// closure body per event type (docs/size.md).
pub fn on_value<E: AsRef<web_sys::Event> + 'static>(
    dispatch: &Dispatch,
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
