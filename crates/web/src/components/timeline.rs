//! The timeline: a lane per client and one for the server, a row per step.
//!
//! Stepping must stay well under a frame on a 1,000-step run, so the rows ([`rows`], a [`RunPart`]) render
//! only when the run changes; the current step is marked by an effect that moves the `current`
//! class and `aria-current` from one row to the next (rows after it are dimmed by CSS).
//!
//! From the keyboard the rows are one tab stop (a roving `tabindex`: the current row has `0`,
//! the others `-1`): ↑/↓ move the focus from row to row, Enter or Space jumps the run to the
//! focused row's step ([`on_row_key`]).

use super::el;
use super::{Dispatch, Part, RunPart};
use crate::labels::{mark_badge, short_request};
use crate::state::{Action, Shown};
use rvlab_core::view::WorldView;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

/// A shared run, compared by pointer (the same run renders the same rows).
#[derive(Clone)]
pub struct ShownRef(pub Rc<Shown>);

impl PartialEq for ShownRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Step `index`'s row, keyed by its index. A plain function, not a component: the rows render
/// together, only when [`rows`] does (a new run), so a component per row saved no work
/// (docs/size.md).
fn row(shown: &Shown, index: usize, dispatch: &Dispatch) -> Html {
    let Some(step) = shown.steps.get(index) else {
        return html! {};
    };
    let clients = shown.run.scenario.clients.len() as u32;
    let badge = mark_badge(step.mark);
    let lost = !step.lost_updates.is_empty();
    let class = format!(
        "row mark-{}{}",
        step.mark_label,
        if lost { " lost" } else { "" }
    );
    let cell = {
        let main = match short_request(step) {
            Some(req) => {
                let sent = step
                    .sent_resource_version
                    .as_ref()
                    .map(|v| format!(" rv {v}"))
                    .unwrap_or_default();
                el("span", "req", format!("{req}{sent}"))
            }
            None => el("span", "local", step.statement.clone()),
        };
        let status = step.status_line.as_ref().map(|s| {
            let new = step.revision.map(|r| format!(" → {r}")).unwrap_or_default();
            el("span", "status", format!("{s}{new}"))
        });
        let badge = badge.map(|(icon, word)| el("span", "badge", format!("{icon} {word}")));
        let lost_badge = (lost && step.mark_label != "lost-update")
            .then(|| el("span", "badge lost", "☠ lost update"));
        html! { <>{main}{status}{badge}{lost_badge}</> }
    };
    let lanes: Html = (0..clients)
        .map(|c| {
            if c == step.client_index {
                html! { <td class="lane mine">{cell.clone()}</td> }
            } else {
                html! { <td class="lane"></td> }
            }
        })
        .collect();
    let server = step.revision.map(|r| format!("rv {r}")).unwrap_or_default();
    let onclick = super::on_click(dispatch, Action::Jump(index + 1));
    let onkeydown = on_row_key(dispatch, index + 1);
    let label = format!(
        "Step {} by {}: {}",
        step.number, step.client, step.narration
    );
    html! {
        <tr key={index} class={class} data-testid="timeline-row" data-step={step.number.to_string()} tabindex="-1" {onclick} {onkeydown} title={label}>
            <th scope="row" class="num">{step.number}</th>
            {el("td", "clock", step.clock.clone())}
            {lanes}
            {el("td", "lane server", server)}
        </tr>
    }
}

/// The setup row and one row per step; renders only when the run changes (a [`RunPart`]).
pub fn rows(shown: &Shown, dispatch: &Dispatch) -> Html {
    let to_start = super::on_click(dispatch, Action::Jump(0));
    let rows: Html = (0..shown.steps.len())
        .map(|i| row(shown, i, dispatch))
        .collect();
    let onkeydown = on_row_key(dispatch, 0);
    html! {
        <tbody>
            <tr class="row start" data-step="0" tabindex="-1" onclick={to_start} {onkeydown}>
                <th scope="row" class="num">{"0"}</th>
                <td class="clock"></td>
                <td class="lane" colspan={shown.run.scenario.clients.len().to_string()}>{"setup"}</td>
                {el("td", "lane server", setup_versions(shown))}
            </tr>
            {rows}
        </tbody>
    }
}

/// A key on a row: ↑/↓ move the focus (and the tab stop) to the row above or below, Enter or
/// Space jump the run to the focused row's step. The page's own shortcuts do not see these
/// keys (Space would start autoplay).
fn on_row_key(dispatch: &Dispatch, step: usize) -> Callback<KeyboardEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |e: KeyboardEvent| {
        let key = e.key();
        if !matches!(key.as_str(), "ArrowUp" | "ArrowDown" | "Enter" | " ") {
            return;
        }
        // yew delegates events from its root, so `current_target` is not the row: the row is
        // the target (it holds the focus) or the nearest row around it.
        let Some(row) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("tr").ok().flatten())
        else {
            return;
        };
        e.prevent_default();
        e.stop_propagation();
        if key == "ArrowUp" || key == "ArrowDown" {
            let next = if key == "ArrowUp" {
                row.previous_element_sibling()
            } else {
                row.next_element_sibling()
            };
            if let Some(next) = next.and_then(|n| n.dyn_into::<HtmlElement>().ok()) {
                if let Some(body) = row.parent_element() {
                    move_tab_stop(&body, &next);
                }
                let _ = next.focus();
            }
        } else {
            dispatch.dispatch(Action::Jump(step));
        }
    })
}

/// Makes `row` the one row under `scope` with `tabindex="0"` (the others get `-1`).
fn move_tab_stop(scope: &web_sys::Element, row: &web_sys::Element) {
    if let Ok(old) = scope.query_selector_all("tr[tabindex=\"0\"]") {
        for i in 0..old.length() {
            if let Some(el) = old
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.set_attribute("tabindex", "-1");
            }
        }
    }
    let _ = row.set_attribute("tabindex", "0");
}

/// Moves the `current` mark and the rows' one tab stop to the row of step `cursor` and
/// scrolls it into the box's view.
fn mark_current(boxed: &HtmlElement, cursor: usize) {
    if let Ok(old) = boxed.query_selector_all("tr.current") {
        for i in 0..old.length() {
            if let Some(el) = old
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.class_list().remove_1("current");
                let _ = el.remove_attribute("aria-current");
            }
        }
    }
    let row = boxed
        .query_selector(&format!("tr[data-step=\"{cursor}\"]"))
        .ok()
        .flatten()
        .and_then(|r| r.dyn_into::<HtmlElement>().ok());
    let Some(row) = row else {
        return;
    };
    let _ = row.class_list().add_1("current");
    let _ = row.set_attribute("aria-current", "step");
    move_tab_stop(boxed, &row);
    let head = 28;
    let (top, bottom) = (row.offset_top(), row.offset_top() + row.offset_height());
    let (view_top, view_h) = (boxed.scroll_top(), boxed.client_height());
    if top < view_top + head {
        boxed.set_scroll_top((top - head).max(0));
    } else if bottom > view_top + view_h {
        boxed.set_scroll_top(bottom - view_h);
    }
}

/// The timeline's scroll box and the step whose row is marked current: shared by the page's
/// effect ([`use_current_row`], after each step) and the rows' [`RunPart`], which marks again
/// after it renders a new run (a child component renders after the page's effect has run).
/// Compared by identity: the same box and cell for the page's life.
#[derive(Clone)]
pub struct CurrentRow {
    /// The scroll box around the rows.
    pub scroller: NodeRef,
    /// The step shown, as of the page's last render.
    cursor: Rc<RefCell<usize>>,
}

impl PartialEq for CurrentRow {
    fn eq(&self, other: &Self) -> bool {
        self.scroller == other.scroller && Rc::ptr_eq(&self.cursor, &other.cursor)
    }
}

impl CurrentRow {
    /// Marks the row of the step shown (see [`mark_current`]), when the rows are in the page.
    pub fn mark(&self) {
        if let Some(boxed) = self.scroller.cast::<HtmlElement>() {
            mark_current(&boxed, *self.cursor.borrow());
        }
    }
}

/// Marks the current row (see [`mark_current`]) after each render that moves the cursor,
/// changes the run or shows the lanes again; returns what [`timeline`] and the rows need to
/// mark it again.
#[hook]
pub fn use_current_row(cursor: usize, shown: Option<&Rc<Shown>>, table_view: bool) -> CurrentRow {
    let current = CurrentRow {
        scroller: crate::hooks::use_node(),
        cursor: use_mut_ref(|| 0),
    };
    *current.cursor.borrow_mut() = cursor;
    {
        let current = current.clone();
        let run_id = shown.map(|s| Rc::as_ptr(s) as usize);
        crate::hooks::use_effect((cursor, run_id, table_view), move |_| {
            current.mark();
            crate::hooks::nothing()
        });
    }
    current
}

/// The timeline: the run (compared by identity, so that its [`rows`] render only when it
/// changes), the server's history line and the current row from [`use_current_row`]. A plain
/// function rather than a component: it re-renders with each step anyway (docs/size.md).
pub fn timeline(
    dispatch: &Dispatch,
    shown: Option<ShownRef>,
    history: AttrValue,
    current: &CurrentRow,
) -> Html {
    let Some(shown) = shown else {
        return super::markup(concat!(
            r#"<section class="panel timeline" data-testid="timeline" aria-label="Timeline">"#,
            r#"<p class="note">No run yet: fix the scenario text to see one.</p></section>"#
        ));
    };
    let header: Html = shown
        .0
        .run
        .scenario
        .clients
        .iter()
        .map(|c| html! { <th scope="col" class="lane">{c.name.clone()}</th> })
        .collect();
    html! {
        <section class="panel timeline" data-testid="timeline" aria-label="Timeline">
            {el("h2", "", "Timeline")}
            <p class="history" data-testid="server-history">{el("span", "muted", "server: ")}{history}</p>
            <div class="scroll" ref={current.scroller.clone()}>
                <table>
                    <colgroup>
                        <col class="num" /><col class="clock" />
                        { for shown.0.run.scenario.clients.iter().map(|_| html! { <col class="lane" /> }) }
                        <col class="server" />
                    </colgroup>
                    <thead><tr><th scope="col" class="num">{"#"}</th><th scope="col" class="clock">{"t"}</th>{header}<th scope="col" class="lane server">{"server"}</th></tr></thead>
                    <RunPart part={Part::Rows(shown, current.clone())} dispatch={dispatch.clone()} />
                </table>
            </div>
        </section>
    }
}

/// `configmap/my-config: 100 → 101` for each object, up to the cursor.
pub fn history_line(world: &WorldView) -> AttrValue {
    let mut per_object: Vec<(String, Vec<String>)> = Vec::new();
    for e in &world.events {
        let label = if e.kind == "DELETED" {
            format!("deleted ({})", e.revision)
        } else {
            e.revision.to_string()
        };
        match per_object.iter_mut().find(|(o, _)| *o == e.object) {
            Some((_, v)) => v.push(label),
            None => per_object.push((e.object.clone(), vec![label])),
        }
    }
    if per_object.is_empty() {
        return "no objects".into();
    }
    per_object
        .into_iter()
        .map(|(o, v)| format!("{o}: {}", v.join(" → ")))
        .collect::<Vec<_>>()
        .join("; ")
        .into()
}

fn setup_versions(shown: &Shown) -> String {
    let world = shown.world_view(0);
    world
        .objects
        .iter()
        .map(|o| format!("rv {}", o.resource_version))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A step's cell in its client's lane, as [`row`] makes it: the short request and the
/// resourceVersion sent (else the statement), the status line and the revision written, the
/// mark's badge, a lost update. For the Live view (the kubectl build): a copy, so that
/// index.html's build keeps `row`'s code and lines exactly as they were.
#[cfg(feature = "live")]
pub fn step_cell(step: &StepView) -> Html {
    let badge = mark_badge(step.mark);
    let lost = !step.lost_updates.is_empty();
    let main = match short_request(step) {
        Some(req) => {
            let sent = step
                .sent_resource_version
                .as_ref()
                .map(|v| format!(" rv {v}"))
                .unwrap_or_default();
            el("span", "req", format!("{req}{sent}"))
        }
        None => el("span", "local", step.statement.clone()),
    };
    let status = step.status_line.as_ref().map(|s| {
        let new = step.revision.map(|r| format!(" → {r}")).unwrap_or_default();
        el("span", "status", format!("{s}{new}"))
    });
    let badge = badge.map(|(icon, word)| el("span", "badge", format!("{icon} {word}")));
    let lost_badge = (lost && step.mark_label != "lost-update")
        .then(|| el("span", "badge lost", "☠ lost update"));
    html! { <>{main}{status}{badge}{lost_badge}</> }
}

#[cfg(feature = "live")]
use rvlab_core::view::StepView;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    #[test]
    fn the_server_history_grows_with_the_cursor() {
        let s = AppState::default();
        let shown = s.shown.clone().unwrap();
        assert_eq!(
            history_line(&shown.world_view(0)).as_str(),
            "configmap/my-config: 100"
        );
        assert_eq!(
            history_line(&shown.world_view(shown.run.len())).as_str(),
            "configmap/my-config: 100 → 101"
        );
        assert_eq!(setup_versions(&shown), "rv 100");
    }
}
