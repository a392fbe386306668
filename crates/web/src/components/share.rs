//! The share bar: copy link, copy embed code, reset to lesson, the table view and help
//! toggles.

use super::{button, on_click, Dispatch};
use crate::hooks::{copy_text, page_url};
use crate::link::{embed_code, fragment_of, Flags};
use crate::state::Action;
use rvlab_core::share::ShareState;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// What the share bar copies and shows.
pub struct Sharing {
    /// The share link's content (`link::share_state`), encoded only when a button is pressed.
    pub link: ShareState,
    /// The scenario's title, for the embed code's iframe.
    pub title: Option<String>,
    /// Whether the timeline is shown as a table.
    pub table_view: bool,
    /// The title of the lesson "reset to lesson" goes back to.
    pub base_title: String,
}

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
pub fn share_bar(dispatch: &Dispatch, sharing: Sharing, flags: Flags, out: &ShareOutput) -> Html {
    let (prepared, output) = (&out.prepared, &out.output);
    let Sharing {
        link,
        title,
        table_view,
        base_title: base,
    } = sharing;
    let shared = Rc::new((link, title));
    let prepare = |what: &'static str, embed: bool| {
        let (shared, prepared) = (shared.clone(), prepared.clone());
        Callback::from(move |_: MouseEvent| {
            let flags = Flags {
                embed,
                editor: false,
            };
            let (link, title) = &*shared;
            let text = match fragment_of(link, flags) {
                Ok(f) if embed => {
                    let title = title.as_deref().unwrap_or("rvlab");
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
    let toggle_table = on_click(dispatch, Action::SetTableView(!table_view));
    let reset = on_click(dispatch, Action::ResetToLesson);
    let help = on_click(dispatch, Action::ShowHelp(true));
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
    html! {
        <section class="sharebar" aria-label="Share and view">
            <div class="buttons">
                {button("copy-link", "", None, false, prepare("Link", false), "Copy link")}
                if !flags.embed {
                    {button("copy-embed", "", None, false, prepare("Embed code", true), "Copy embed code")}
                }
                <button type="button" data-testid="table-view" aria-pressed={table_view.to_string()}
                    onclick={toggle_table}>{if table_view { "☰ Table view: on" } else { "☰ Table view" }}</button>
                if !flags.embed {
                    {button("reset-to-lesson", "", Some(format!("Discard your edits and go back to “{base}”").into()),
                        false, reset, "↺ Reset to lesson")}
                }
                <button type="button" data-testid="help" onclick={help} aria-label="Keyboard shortcuts"
                    aria-keyshortcuts="?" title="Keyboard shortcuts (?)">{"?"}</button>
            </div>
            // An empty list, not `None`, while there is no status: a child that comes and goes
            // last made yew re-create the buttons before it (lib.rs, the help overlay), and a
            // Copy button lost the keyboard focus when the status appeared.
            {status.unwrap_or_default()}
        </section>
    }
}
