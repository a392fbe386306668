//! The timeline: a lane per client and one for the server, a row per step. Rows are their own
//! components with pointer-equal props, so a step re-renders two rows, not the whole run.

use super::AppHandle;
use crate::labels::{mark_badge, sent_version, short_request};
use crate::state::{Action, Shown};
use rvlab_core::view::WorldView;
use std::rc::Rc;
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

/// Props of [`Timeline`].
#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub app: AppHandle,
    pub world: Rc<WorldView>,
}

#[derive(Properties, PartialEq)]
struct RowProps {
    shown: ShownRef,
    index: usize,
    current: bool,
    past: bool,
    on_jump: Callback<usize>,
}

#[function_component(Row)]
fn row(props: &RowProps) -> Html {
    let Some(step) = props.shown.0.steps.get(props.index) else {
        return html! {};
    };
    let clients = props.shown.0.run.scenario.clients.len() as u32;
    let badge = mark_badge(step.mark);
    let lost = !step.lost_updates.is_empty();
    let class = classes!(
        "row",
        format!("mark-{}", step.mark_label),
        props.current.then_some("current"),
        (!props.past).then_some("future"),
        lost.then_some("lost"),
    );
    let cell = {
        let main = match short_request(step) {
            Some(req) => {
                let sent = sent_version(step)
                    .map(|v| format!(" rv {v}"))
                    .unwrap_or_default();
                html! { <span class="req">{format!("{req}{sent}")}</span> }
            }
            None => html! { <span class="local">{step.statement.clone()}</span> },
        };
        let status = step.status_line.as_ref().map(|s| {
            let new = step.revision.map(|r| format!(" → {r}")).unwrap_or_default();
            html! { <span class="status">{format!("{s}{new}")}</span> }
        });
        let badge = badge
            .map(|(icon, word)| html! { <span class="badge">{format!("{icon} {word}")}</span> });
        let lost_badge = (lost && step.mark_label != "lost-update")
            .then(|| html! { <span class="badge lost">{"☠ lost update"}</span> });
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
    let onclick = {
        let (cb, i) = (props.on_jump.clone(), props.index);
        Callback::from(move |_| cb.emit(i + 1))
    };
    let label = format!(
        "Step {} by {}: {}",
        step.number, step.client, step.narration
    );
    html! {
        <tr class={class} data-testid="timeline-row" data-step={step.number.to_string()}
            aria-current={props.current.then_some("step")} {onclick} title={label}>
            <th scope="row" class="num">{step.number}</th>
            <td class="clock">{step.clock.clone()}</td>
            {lanes}
            <td class="lane server">{server}</td>
        </tr>
    }
}

/// The timeline.
#[function_component(Timeline)]
pub fn timeline(props: &TimelineProps) -> Html {
    let app = &props.app;
    let scroller = use_node_ref();
    let cursor = app.cursor;
    {
        // Keep the current row visible inside the timeline's own scroll box.
        let scroller = scroller.clone();
        use_effect_with(cursor, move |&cursor| {
            if let Some(boxed) = scroller.cast::<HtmlElement>() {
                let row = boxed
                    .query_selector(&format!("tr[data-step=\"{}\"]", cursor.max(1)))
                    .ok()
                    .flatten()
                    .and_then(|r| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(r).ok());
                if let Some(row) = row {
                    let (top, bottom) = (row.offset_top(), row.offset_top() + row.offset_height());
                    let (view_top, view_h) = (boxed.scroll_top(), boxed.client_height());
                    if top < view_top + 28 {
                        boxed.set_scroll_top((top - 28).max(0));
                    } else if bottom > view_top + view_h {
                        boxed.set_scroll_top(bottom - view_h);
                    }
                }
            }
        });
    }
    let Some(shown) = app.shown.clone() else {
        return html! {
            <section class="panel timeline" data-testid="timeline" aria-label="Timeline">
                <p class="note">{"No run yet: fix the scenario text to see one."}</p>
            </section>
        };
    };
    let on_jump = {
        let app = app.clone();
        Callback::from(move |n: usize| app.dispatch(Action::Jump(n)))
    };
    let header: Html = shown
        .run
        .scenario
        .clients
        .iter()
        .map(|c| html! { <th scope="col" class="lane">{c.name.clone()}</th> })
        .collect();
    let history = history_line(&props.world);
    let rows: Html = (0..shown.steps.len())
        .map(|i| {
            html! {
                <Row key={i} shown={ShownRef(shown.clone())} index={i}
                    current={i + 1 == cursor} past={i < cursor} on_jump={on_jump.clone()} />
            }
        })
        .collect();
    html! {
        <section class="panel timeline" data-testid="timeline" aria-label="Timeline">
            <h2>{"Timeline"}</h2>
            <p class="history" data-testid="server-history"><span class="muted">{"server: "}</span>{history}</p>
            <div class="scroll" ref={scroller}>
                <table>
                    <thead><tr><th scope="col" class="num">{"#"}</th><th scope="col" class="clock">{"t"}</th>{header}<th scope="col" class="lane server">{"server"}</th></tr></thead>
                    <tbody>
                        <tr class={classes!("row", "start", (cursor == 0).then_some("current"))}
                            data-step="0" onclick={let cb = on_jump.clone(); Callback::from(move |_| cb.emit(0))}>
                            <th scope="row" class="num">{"0"}</th>
                            <td class="clock"></td>
                            <td class="lane" colspan={shown.run.scenario.clients.len().to_string()}>{"setup"}</td>
                            <td class="lane server">{setup_versions(&shown)}</td>
                        </tr>
                        {rows}
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// `configmap/my-config: 100 → 101` for each object, up to the cursor.
fn history_line(world: &WorldView) -> String {
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
