//! The inspector: the server's objects as YAML (resourceVersion highlighted), each client's
//! variables with a stale badge, the step's HTTP exchange and the kubectl command.

use super::AppHandle;
use rvlab_core::view::WorldView;
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`inspector`].
#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub app: AppHandle,
    pub world: Rc<WorldView>,
}

/// The inspector.
pub fn inspector(props: &InspectorProps) -> Html {
    let world = &props.world;
    let objects: Html = world
        .objects
        .iter()
        .map(|o| {
            let lines: Html = o
                .lines
                .iter()
                .map(|l| {
                    if l.resource_version {
                        html! { <span class="rv" title="resourceVersion">{l.text.clone()}{"\n"}</span> }
                    } else {
                        html! { <>{l.text.clone()}{"\n"}</> }
                    }
                })
                .collect();
            html! {
                <div class="object">
                    <h4>{o.name.clone()}<span class="rv-chip">{format!("rv {}", o.resource_version)}</span></h4>
                    <pre class="yaml">{lines}</pre>
                </div>
            }
        })
        .collect();
    let clients: Html = world
        .clients
        .iter()
        .map(|c| {
            let vars: Html = c
                .vars
                .iter()
                .map(|v| {
                    let badge = v.stale_label.as_ref().map(|label| {
                        let class = if v.stale { "badge stale" } else { "badge fresh" };
                        let icon = if v.stale { "⚠ " } else { "✓ " };
                        html! { <span class={class} data-testid="stale-badge">{format!("{icon}{label}")}</span> }
                    });
                    html! {
                        <details class="var" open={v.stale}>
                            <summary><code>{v.name.clone()}</code>
                                if let Some(rv) = &v.resource_version { <span class="muted">{format!(" rv {rv}")}</span> }
                                {" "}{badge}</summary>
                            <pre>{v.text.clone()}</pre>
                        </details>
                    }
                })
                .collect();
            html! {
                <div class="client" data-testid={format!("client-{}", c.name)}>
                    <h4>{c.name.clone()}<span class="muted">{format!(" ({}) {}", c.letter, c.status_label)}</span></h4>
                    if let Some(a) = &c.attempt { <div class="muted">{a.clone()}</div> }
                    if let Some(n) = &c.next_statement { <div class="muted">{format!("next: {n}")}</div> }
                    if c.vars.is_empty() { <div class="muted">{"no variables yet"}</div> }
                    {vars}
                </div>
            }
        })
        .collect();
    let http = match props.app.current_step() {
        Some(step) if step.sends_request => html! {
            <>
                <div class="http-req">
                    <code class="line">{step.request_line.clone().unwrap_or_default()}</code>
                    if let Some(ct) = &step.content_type { <div class="muted">{format!("Content-Type: {ct}")}</div> }
                    if let Some(body) = &step.request_body { <pre>{body.clone()}</pre> }
                </div>
                <div class={classes!("http-resp", format!("mark-{}", step.mark_label))}>
                    <code class="line">{format!("HTTP/1.1 {}", step.status_line.clone().unwrap_or_default())}</code>
                    if let Some(body) = &step.response_body { <pre data-testid="response-body">{body.clone()}</pre> }
                </div>
                if let Some(k) = &step.kubectl {
                    <div class="kubectl"><span class="muted">{"kubectl: "}</span><code data-testid="kubectl">{k.clone()}</code></div>
                }
            </>
        },
        Some(step) => {
            html! { <p class="muted">{format!("Step {} sends no request: {}", step.number, step.statement)}</p> }
        }
        None => html! { <p class="muted">{"No step taken yet."}</p> },
    };
    html! {
        <section class="panel inspector" data-testid="inspector" aria-label="Inspector">
            <div class="inspect-grid">
                <div data-testid="inspector-object" class="box">
                    <h3>{"Server"}</h3>
                    if world.objects.is_empty() { <p class="muted">{"no objects"}</p> }
                    {objects}
                </div>
                <div class="box" data-testid="inspector-clients">
                    <h3>{"Clients"}</h3>
                    {clients}
                </div>
                <div data-testid="inspector-http" class="box http">
                    <h3>{"HTTP exchange"}</h3>
                    {http}
                </div>
            </div>
        </section>
    }
}
