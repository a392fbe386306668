//! The keyboard help: a modal dialog with the table of shortcuts.

use super::{markup, on_click, Dispatch};
use crate::state::Action;
use web_sys::HtmlElement;
use yew::prelude::*;

/// The help overlay's text and its table of keyboard shortcuts (fixed markup, see [`markup`]).
const HELP: &str = concat!(
    r#"<h2 id="help-title">Keyboard shortcuts</h2>"#,
    r#"<p class="muted">Shortcuts work anywhere on the page except while typing in the editor or a field.</p>"#,
    r#"<table class="keys-table"><caption class="sr-only">Keyboard shortcuts</caption>"#,
    r#"<thead><tr><th scope="col">Key</th><th scope="col">Action</th></tr></thead><tbody>"#,
    r#"<tr><th scope="row"><kbd>→</kbd></th><td>step forward</td></tr>"#,
    r#"<tr><th scope="row"><kbd>←</kbd></th><td>step back</td></tr>"#,
    r#"<tr><th scope="row"><kbd>Home</kbd></th><td>reset to the start of the run</td></tr>"#,
    r#"<tr><th scope="row"><kbd>End</kbd></th><td>run to the end</td></tr>"#,
    r#"<tr><th scope="row"><kbd>Space</kbd></th><td>play or pause</td></tr>"#,
    r#"<tr><th scope="row"><kbd>1–9</kbd></th><td>that client goes next (1 = the first client)</td></tr>"#,
    r#"<tr><th scope="row"><kbd>?</kbd></th><td>open this help</td></tr>"#,
    r#"<tr><th scope="row"><kbd>Esc</kbd></th><td>close this help</td></tr>"#,
    r#"<tr><th scope="row"><kbd>Tab / Shift+Tab</kbd></th><td>move between controls; Enter or Space presses a button</td></tr>"#,
    "</tbody></table>",
);

/// The keyboard help: a modal dialog. A plain function rather than a component (less wasm:
/// docs/size.md); its focus handling is [`crate::hooks::use_help_focus`], which gives it
/// `close_ref`: the close button takes the focus when the dialog opens (and keeps it while
/// open), and the focus goes back to where it was when it closes.
pub fn help_overlay(dispatch: &Dispatch, close_ref: &NodeRef) -> Html {
    let close = on_click(dispatch, Action::ShowHelp(false));
    let on_backdrop = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: MouseEvent| {
            let on_self = match (e.target(), e.current_target()) {
                (Some(t), Some(c)) => t == c,
                _ => false,
            };
            if on_self {
                dispatch.dispatch(Action::ShowHelp(false));
            }
        })
    };
    let trap = {
        let close_ref = close_ref.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" {
                e.prevent_default();
                if let Some(button) = close_ref.cast::<HtmlElement>() {
                    let _ = button.focus();
                }
            }
        })
    };
    html! {
        <div class="backdrop" onclick={on_backdrop}>
            <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title"
                data-testid="help-overlay" onkeydown={trap}>
                {markup(HELP)}
                <button type="button" ref={close_ref.clone()} data-testid="help-close" onclick={close}>{"Close (Esc)"}</button>
            </div>
        </div>
    }
}
