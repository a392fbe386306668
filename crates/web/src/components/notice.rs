//! The notice for a broken link or unreadable saved work, with a dismiss button.

use super::{el, markup, on_click, Dispatch};
use crate::state::Action;
use yew::prelude::*;

/// The notice (a broken link, unreadable saved work), with a dismiss button.
pub fn notice(dispatch: &Dispatch, text: Option<&str>) -> Html {
    let Some(text) = text else {
        return html! {};
    };
    let dismiss = on_click(dispatch, Action::Notice(None));
    html! {
        <div class="notice" role="alert" data-testid="share-notice">
            {markup(r#"<span class="notice-icon" aria-hidden="true">⚠</span>"#)}
            <p>{el("strong", "", "Notice: ")}{text.to_string()}</p>
            <button type="button" onclick={dismiss} aria-label="Dismiss the notice">{"✕"}</button>
        </div>
    }
}
