//! The Live view (the page's kubectl build, feature `live`; issue #15): what a real client
//! sends to `rvlab serve`, a row per request as it happens, in a lane per client program,
//! with the server's narration, the HTTP exchange and the object after the step. Everything
//! shown is what the server sent (`state::live`); the cells reuse the timeline's and the
//! inspector's markup.
//!
//! Its styles are `www/live.css`, in the view itself (a `<style>` element): index.html, which
//! has no Live view, does not download them.

use super::inspector::{http_exchange, object};
use super::timeline::step_cell;
use super::{button, el, el_id, on_click, Dispatch};
use crate::state::live::{LiveAction, LiveLane, LiveRow, LiveState};
use crate::state::{Action, AppState};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The Live view's styles (light and dark), from `www/live.css`.
const STYLE: &str = concat!(
    "<style>",
    include_str!("../../../../www/live.css"),
    "</style>"
);

fn live(action: LiveAction) -> Action {
    Action::Live(action)
}

/// The status line: the connection, how many steps, and what is not shown.
fn status(state: &LiveState) -> String {
    let mut text = state
        .connection
        .map_or("not connected", |c| c.label())
        .to_string();
    let n = state.rows.len();
    text.push_str(&format!(" · {n} step{}", if n == 1 { "" } else { "s" }));
    if state.server_dropped > 0 {
        let d = state.server_dropped;
        text.push_str(&format!(
            " · {d} earlier step{} dropped by the server",
            if d == 1 { " was" } else { "s were" }
        ));
    }
    if state.not_shown > 0 {
        text.push_str(&format!(" · {} older steps not shown", state.not_shown));
    }
    text
}

/// A lane's header: its name and letter, and what it last read of each object, with a
/// stale badge (`live-stale`) when the server has moved past it.
fn lane_header(name: &str, letter: &str, reads: Option<&LiveLane>) -> Html {
    let reads: Html = reads
        .map(|l| &l.reads[..])
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let text = format!("{} rv {}: {}", r.object, r.revision, r.label);
            if r.stale {
                el_id("span", "badge stale", "live-stale", format!("⚠ {text}"))
            } else {
                el_id("span", "badge fresh", "live-read", format!("✓ {text}"))
            }
        })
        .collect();
    html! {
        <th scope="col" class="lane" data-testid="live-lane">
            {name.to_string()}{el("span", "muted", format!(" ({letter})"))}
            <div class="reads">{reads}</div>
        </th>
    }
}

/// A step's row: its cell in the client's lane (the timeline's), the kubectl command, an
/// "injected" badge for the interferer's writes.
fn row(dispatch: &Dispatch, r: &LiveRow, lanes: usize, shown: bool) -> Html {
    let step = &r.step;
    let lost = !step.lost_updates.is_empty();
    let class = format!(
        "row mark-{}{}{}",
        step.mark_label,
        if lost { " lost" } else { "" },
        if shown { " current" } else { "" }
    );
    let cell = html! {
        <>
            {step_cell(step)}
            if let Some(c) = &r.command { {el("code", "cmd", c.clone())} }
            if let Some(why) = &r.interference {
                <span class="badge injected" title={why.clone()}>{"⚡ injected"}</span>
            }
        </>
    };
    let lanes: Html = (0..lanes.max(step.client_index as usize + 1))
        .map(|c| {
            if c == step.client_index as usize {
                html! { <td class="lane mine">{cell.clone()}</td> }
            } else {
                html! { <td class="lane"></td> }
            }
        })
        .collect();
    let server = match (&r.gone, step.revision) {
        (Some(_), _) => "deleted".to_string(),
        (None, Some(rev)) => format!("rv {rev}"),
        (None, None) => String::new(),
    };
    let label = format!(
        "Step {} by {}: {}",
        step.number, step.client, step.narration
    );
    html! {
        <tr key={r.index} {class} data-testid="live-row" data-index={r.index.to_string()}
            tabindex={if shown { "0" } else { "-1" }} aria-current={shown.then_some("true")}
            title={label} onclick={on_click(dispatch, live(LiveAction::Pick(r.index)))}
            onkeydown={on_row_key(dispatch)}>
            <th scope="row" class="num">{step.number}</th>
            {el("td", "clock", step.clock.clone())}
            {lanes}
            {el("td", "lane server", server)}
        </tr>
    }
}

/// A key on a row: Enter or Space show its step; ↑/↓ show the step above or below and move
/// the focus to it.
fn on_row_key(dispatch: &Dispatch) -> Callback<KeyboardEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |e: KeyboardEvent| {
        let key = e.key();
        let Some(row) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("tr").ok().flatten())
        else {
            return;
        };
        let to = match key.as_str() {
            "Enter" | " " => Some(row),
            "ArrowUp" => row.previous_element_sibling(),
            "ArrowDown" => row.next_element_sibling(),
            _ => return,
        };
        e.prevent_default();
        e.stop_propagation();
        let Some(to) = to.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else {
            return;
        };
        let _ = to.focus();
        if let Some(index) = to.get_attribute("data-index").and_then(|i| i.parse().ok()) {
            dispatch.dispatch(live(LiveAction::Pick(index)));
        }
    })
}

/// The details of the step shown: the narration, the HTTP exchange (the inspector's), the
/// object after it as YAML with its resourceVersion.
fn details(state: &LiveState) -> Html {
    let Some(r) = state.shown() else {
        let objects: Html = state.objects.iter().map(object).collect();
        return html! {
            <div class="live-details">
                {el_id("p", "muted", "live-step-narration", "No request yet: run kubectl (or any client) with the kubeconfig rvlab serve wrote, and each request shows here as it happens.")}
                <div class="box" data-testid="live-object">{el("h3", "", "Server")}{objects}</div>
            </div>
        };
    };
    let step = &r.step;
    let object_box = match (&r.object, &r.gone) {
        (Some(o), _) => object(o),
        (None, Some(g)) => el("p", "muted", format!("{g} is gone.")),
        (None, None) => el("p", "muted", "This request names no single object."),
    };
    html! {
        <div class="live-details">
            <div class="narration" data-testid="live-step-narration">
                <p>{el("strong", "", format!("Step {} · {}: ", step.number, step.client))}{step.narration.clone()}</p>
                { for step.lost_updates.iter().map(|l| el("p", "bad", format!("☠ {l}"))) }
                if let Some(why) = &r.interference { {el("p", "muted", format!("Injected by the interferer: {why}"))} }
            </div>
            <div class="box http" data-testid="live-exchange">{el("h3", "", "HTTP exchange")}{http_exchange(Some(step))}</div>
            <div class="box" data-testid="live-object">{el("h3", "", "Object after the step")}{object_box}</div>
        </div>
    }
}

/// The Live view: the status, "Save as scenario", a lane per client program and a row per
/// request (the newest last), and the details of the row picked (else the newest).
pub fn live_view(dispatch: &Dispatch, state: &LiveState) -> Html {
    let lanes = state.lanes();
    let shown = state.shown();
    let shown_index = shown.map(|r| r.index);
    let header: Html = lanes
        .iter()
        .map(|l| {
            let reads = shown.and_then(|r| r.lanes.iter().find(|x| x.name == l.name));
            lane_header(&l.name, &l.letter, reads)
        })
        .collect();
    let rows: Html = state
        .rows
        .iter()
        .map(|r| row(dispatch, r, lanes.len(), Some(r.index) == shown_index))
        .collect();
    let save = button(
        "live-save",
        "",
        Some(
            "Open the requests so far in the editor, as a scenario to step, explore and share"
                .into(),
        ),
        state.saving || state.rows.is_empty(),
        on_click(dispatch, live(LiveAction::Save)),
        if state.saving {
            "Saving…"
        } else {
            "Save as scenario"
        },
    );
    let follow = state.picked.is_some().then(|| {
        button(
            "live-follow",
            "",
            None,
            false,
            on_click(dispatch, live(LiveAction::Follow)),
            "Follow the newest",
        )
    });
    html! {
        <section class="panel timeline live" data-testid="live-view" aria-label="Live">
            {super::markup(STYLE)}
            <div class="live-bar">
                {el("h2", "", "Live: requests to rvlab serve")}
                {el_id("p", "live-status", "live-status", status(state))}
                {save}{follow}
            </div>
            <div class="scroll">
                <table>
                    <colgroup>
                        <col class="num" /><col class="clock" />
                        { for lanes.iter().map(|_| html! { <col class="lane" /> }) }
                        <col class="server" />
                    </colgroup>
                    <thead><tr>
                        <th scope="col" class="num">{"#"}</th><th scope="col" class="clock">{"t"}</th>
                        {header}
                        <th scope="col" class="lane server">{"server"}</th>
                    </tr></thead>
                    <tbody data-testid="live-rows">{rows}</tbody>
                </table>
            </div>
            {details(state)}
        </section>
    }
}

/// The view tabs over `app`: the Live tab too when the page has a live endpoint.
pub fn tabs(dispatch: &Dispatch, app: &AppState) -> Html {
    let (open, progress) = (app.exercises.open, app.exercises.progress());
    if app.live.endpoint.is_some() {
        super::tabs::view_tabs_with_live(dispatch, open, progress, app.live.open)
    } else {
        super::tabs::view_tabs(dispatch, open, progress)
    }
}

/// The page while the Live view shows: the top bar (title, tabs, notices), the view, the live
/// region announcing the step shown, the help overlay (`help`).
pub fn live_page(dispatch: &Dispatch, app: &AppState, main: NodeRef, help: Html) -> Html {
    let live = &app.live;
    let step = live.shown().map(|r| &r.step);
    html! {
        <main class="app" data-testid="app" ref={main}>
            <header class="topbar">
                {super::markup(r#"<h1>rvlab<span class="tagline"> resourceVersion, 409 Conflict and retries, step by step</span></h1>"#)}
                {tabs(dispatch, app)}
                <div class="notices">{super::notice::notice(dispatch, app.notice.as_deref())}</div>
            </header>
            {live_view(dispatch, live)}
            {super::narration::live_narration(step)}
            {help}
        </main>
    }
}
