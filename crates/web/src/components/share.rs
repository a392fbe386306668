//! Sharing and accessibility: the share bar (copy link, copy embed code, reset to lesson, the
//! table view and help toggles), the notice for a broken link or unreadable saved work, the
//! keyboard help overlay, the table form of the timeline and the live region that announces
//! the narration.

use super::el;
use super::{button, markup, on_click, AppHandle};
use crate::hooks::{copy_text, page_url};
use crate::link::{embed_code, fragment, Flags};
use crate::state::{Action, AppState, Shown};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};
use yew::prelude::*;

/// What the share bar last prepared for copying.
#[derive(Clone, PartialEq)]
struct Prepared {
    what: &'static str,
    text: String,
    copied: Option<bool>,
}

/// The share bar's own state (from [`use_share_output`]): what it last prepared for copying,
/// and the field that shows it.
pub struct ShareOutput {
    prepared: PreparedSlot,
    output: NodeRef,
}

/// What the share bar last prepared, and the page's re-render: a cell and yew's force update
/// rather than `use_state` (no state reducer type for it in the wasm: docs/size.md).
#[derive(Clone)]
struct PreparedSlot {
    cell: Rc<std::cell::RefCell<Option<Prepared>>>,
    update: UseForceUpdateHandle,
}

impl PreparedSlot {
    fn set(&self, value: Option<Prepared>) {
        *self.cell.borrow_mut() = value;
        self.update.force_update();
    }
}

/// The share bar's state; selects the prepared text once it is shown, so that Ctrl+C copies
/// it when the clipboard API did not.
#[hook]
pub fn use_share_output() -> ShareOutput {
    let prepared = PreparedSlot {
        cell: use_mut_ref(|| None::<Prepared>),
        update: use_force_update(),
    };
    let output = crate::hooks::use_node();
    {
        let output = output.clone();
        crate::hooks::use_effect(prepared.cell.borrow().clone(), move |p| {
            if p.is_some() {
                if let Some(input) = output.cast::<HtmlInputElement>() {
                    input.select();
                }
            }
            crate::hooks::nothing()
        });
    }
    ShareOutput { prepared, output }
}

/// Copy link, copy embed code, reset to lesson, the table view, the help overlay. A plain
/// function rather than a component (its state is [`use_share_output`], kept by the page):
/// it re-renders with the app state anyway (docs/size.md).
pub fn share_bar(app: &AppHandle, flags: Flags, out: &ShareOutput) -> Html {
    let (prepared, output) = (&out.prepared, &out.output);
    let prepare = |what: &'static str, embed: bool| {
        let (app, prepared) = (app.clone(), prepared.clone());
        Callback::from(move |_: MouseEvent| {
            let flags = Flags {
                embed,
                editor: false,
            };
            let text = match fragment(&app, flags) {
                Ok(f) if embed => {
                    let title = app
                        .shown
                        .as_ref()
                        .and_then(|s| s.run.scenario.title.clone())
                        .unwrap_or_else(|| "rvlab".into());
                    embed_code(&page_url(), &f, &format!("rvlab: {title}"))
                }
                Ok(f) => format!("{}#{f}", page_url()),
                Err(reason) => {
                    prepared.set(Some(Prepared {
                        what,
                        text: format!("Cannot share: {reason}"),
                        copied: Some(false),
                    }));
                    return;
                }
            };
            prepared.set(Some(Prepared {
                what,
                text: text.clone(),
                copied: None,
            }));
            let (prepared, text2) = (prepared.clone(), text);
            copy_text(&text2.clone(), move |ok| {
                prepared.set(Some(Prepared {
                    what,
                    text: text2,
                    copied: Some(ok),
                }))
            });
        })
    };
    // The bar re-renders with every state change, so the value read here is the one shown.
    let dispatch = app.dispatcher();
    let toggle_table = on_click(&dispatch, Action::SetTableView(!app.table_view));
    let reset = on_click(&dispatch, Action::ResetToLesson);
    let help = on_click(&dispatch, Action::ShowHelp(true));
    let status = prepared.cell.borrow().as_ref().map(|p| {
        let message = match p.copied {
            None => format!("{} ready: copying…", p.what),
            Some(true) => format!("✓ {} copied to the clipboard.", p.what),
            Some(false) if p.text.starts_with("Cannot share") => String::new(),
            Some(false) => format!("{} selected below: press Ctrl+C (⌘C) to copy it.", p.what),
        };
        html! {
            <div class="share-out">
                <span class="muted" role="status">{message}</span>
                <input ref={output.clone()} type="text" readonly=true data-testid="share-output"
                    aria-label={p.what} value={p.text.clone()}
                    onfocus={Callback::from(|e: FocusEvent| {
                        if let Some(i) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) { i.select(); }
                    })} />
            </div>
        }
    });
    let base = rvlab_core::lessons::LESSONS
        .iter()
        .position(|l| l.id == app.base_lesson)
        .map(super::panels::lesson_title)
        .unwrap_or_default();
    html! {
        <section class="sharebar" aria-label="Share and view">
            <div class="buttons">
                {button("copy-link", "", None, false, prepare("Link", false), "Copy link")}
                if !flags.embed {
                    {button("copy-embed", "", None, false, prepare("Embed code", true), "Copy embed code")}
                }
                <button type="button" data-testid="table-view" aria-pressed={app.table_view.to_string()}
                    onclick={toggle_table}>{if app.table_view { "☰ Table view: on" } else { "☰ Table view" }}</button>
                if !flags.embed {
                    {button("reset-to-lesson", "", Some(format!("Discard your edits and go back to “{base}”").into()),
                        false, reset, "↺ Reset to lesson")}
                }
                <button type="button" data-testid="help" onclick={help} aria-label="Keyboard shortcuts"
                    aria-keyshortcuts="?" title="Keyboard shortcuts (?)">{"?"}</button>
            </div>
            {status}
        </section>
    }
}

/// The notice (a broken link, unreadable saved work), with a dismiss button.
pub fn notice(app: &AppHandle) -> Html {
    let Some(text) = app.notice.clone() else {
        return html! {};
    };
    let dismiss = on_click(&app.dispatcher(), Action::Notice(None));
    html! {
        <div class="notice" role="alert" data-testid="share-notice">
            {markup(r#"<span class="notice-icon" aria-hidden="true">⚠</span>"#)}
            <p>{el("strong", "", "Notice: ")}{text}</p>
            <button type="button" onclick={dismiss} aria-label="Dismiss the notice">{"✕"}</button>
        </div>
    }
}

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
pub fn help_overlay(dispatch: &UseReducerDispatcher<AppState>, close_ref: &NodeRef) -> Html {
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

/// The timeline as a plain table: one row per step (step, client, request, status, narration),
/// each with a button to show that step. Rendered by a [`super::RunPart`], so only
/// when the run or the position changes.
pub fn timeline_table(props: &super::RunPartProps) -> Html {
    let Some(shown) = &props.shown else {
        return markup(concat!(
            r#"<section class="panel timeline" aria-label="Timeline">"#,
            r#"<p class="note">No run yet: fix the scenario text to see one.</p></section>"#
        ));
    };
    let shown: &Rc<Shown> = &shown.0;
    let rows: Html = shown
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let go = on_click(&props.dispatch, Action::Jump(i + 1));
            let current = props.cursor == i + 1;
            let status = match (&step.status_line, crate::labels::mark_badge(step.mark)) {
                (Some(s), Some((icon, word))) => format!("{s} ({icon} {word})"),
                (Some(s), None) => s.clone(),
                (None, _) => "—".into(),
            };
            let mut narration = step.narration.clone();
            for l in &step.lost_updates {
                narration.push_str(&format!(" ☠ {l}"));
            }
            html! {
                <tr class={format!("{}mark-{}", if current { "current " } else { "" }, step.mark_label)}
                    aria-current={current.then_some("step")}>
                    <th scope="row">
                        <button type="button" class="link" onclick={go}
                            aria-label={format!("Show step {}", step.number)}>{step.number}</button>
                    </th>
                    {el("td", "", step.client.clone())}
                    <td><code title={step.request_line.clone().unwrap_or_default()}>
                        {crate::labels::short_request(step).unwrap_or_else(|| step.statement.clone())}</code></td>
                    {el("td", "status", status)}
                    {el("td", "", narration)}
                </tr>
            }
        })
        .collect();
    html! {
        <section class="panel timeline" aria-label="Timeline (table)">
            {el("h2", "", "Timeline")}
            <div class="scroll">
                <table class="steps-table" data-testid="timeline-table">
                    <caption>{format!("Every step of the run, {} in all; step {} is shown.", shown.steps.len(), props.cursor)}</caption>
                    <thead><tr>
                        <th scope="col">{"Step"}</th><th scope="col">{"Client"}</th>
                        <th scope="col">{"Request"}</th><th scope="col">{"Status"}</th>
                        <th scope="col">{"Narration"}</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

/// A visually hidden live region that announces the current step's narration.
pub fn live_narration(app: &AppHandle) -> Html {
    let text = match app.current_step() {
        Some(step) => format!("Step {}, {}: {}", step.number, step.client, step.narration),
        None => "Step 0: nothing has happened yet.".into(),
    };
    html! {
        <div class="sr-only" aria-live="polite" aria-atomic="true" data-testid="live-narration">{text}</div>
    }
}
