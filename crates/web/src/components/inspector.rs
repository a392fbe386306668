//! The inspector: the server's objects as YAML (resourceVersion highlighted), each client's
//! variables with a stale badge (and its files, in the kubectl build), the step's HTTP exchange
//! and the kubectl command.

use super::el;
use rvlab_core::view::{ClientView, ObjectView, StepView, WorldView};
use yew::prelude::*;

/// The inspector: the world shown, and the HTTP exchange of the step shown (`None` before
/// the first).
pub fn inspector(world: &WorldView, step: Option<&StepView>) -> Html {
    let objects: Html = world.objects.iter().map(object).collect();
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
                            <summary>{el("code", "", v.name.clone())}
                                if let Some(rv) = &v.resource_version { {el("span", "muted", format!(" rv {rv}"))} }
                                {" "}{badge}</summary>
                            {el("pre", "", v.text.clone())}
                        </details>
                    }
                })
                .collect();
            html! {
                <div class="client" data-testid={format!("client-{}", c.name)}>
                    <h4>{c.name.clone()}{el("span", "muted", format!(" ({}) {}", c.letter, c.status_label))}</h4>
                    if let Some(a) = &c.attempt { {el("div", "muted", a.clone())} }
                    if let Some(n) = &c.next_statement { {el("div", "muted", format!("next: {n}"))} }
                    if c.vars.is_empty() { {el("div", "muted", "no variables yet")} }
                    {vars}
                    {files(c)}
                </div>
            }
        })
        .collect();
    let http = http_exchange(step);
    html! {
        <section class="panel inspector" data-testid="inspector" aria-label="Inspector">
            <div class="inspect-grid">
                <div data-testid="inspector-object" class="box">
                    {el("h3", "", "Server")}
                    if world.objects.is_empty() { {el("p", "muted", "no objects")} }
                    {objects}
                </div>
                <div class="box" data-testid="inspector-clients">
                    {el("h3", "", "Clients")}
                    {clients}
                </div>
                <div data-testid="inspector-http" class="box http">
                    {el("h3", "", "HTTP exchange")}
                    {http}
                </div>
            </div>
        </section>
    }
}

/// `kubectl: COMMAND`, `storage: STEP`: a labelled line under the exchange, if there is one.
fn labelled(label: &'static str, testid: &'static str, text: &Option<String>) -> Html {
    match text {
        Some(t) => html! {
            <div class="kubectl">{el("span", "muted", label)}{super::el_id("code", "", testid, t.clone())}</div>
        },
        None => Html::default(),
    }
}

/// A client's files (kubectl's `-f F` reads them, `> F` writes them), each folded under its
/// name; nothing in a build without kubectl, where a client has no files.
#[cfg(feature = "kubectl")]
fn files(c: &ClientView) -> Html {
    c.files
        .iter()
        .map(|f| {
            html! {
                <details class="file" data-testid={format!("file-{}", f.name)}>
                    <summary>{el("code", "", f.name.clone())}</summary>
                    {el("pre", "", f.text.clone())}
                </details>
            }
        })
        .collect()
}

#[cfg(not(feature = "kubectl"))]
fn files(_: &ClientView) -> Html {
    Html::default()
}

/// A server object as YAML, its `resourceVersion` line highlighted (`span.rv`); the inspector's
/// and the Live view's.
pub fn object(o: &ObjectView) -> Html {
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
            <h4>{o.name.clone()}{el("span", "rv-chip", format!("rv {}", o.resource_version))}</h4>
            <pre class="yaml">{lines}</pre>
        </div>
    }
}

/// The HTTP exchange of a step (`None`: no step yet): request line, content type and body,
/// status line and response body, and the kubectl command; the inspector's and the Live view's.
pub fn http_exchange(step: Option<&StepView>) -> Html {
    match step {
        Some(step) if step.sends_request => html! {
            <>
                <div class="http-req">
                    {el("code", "line", step.request_line.clone().unwrap_or_default())}
                    if let Some(ct) = &step.content_type { {el("div", "muted", format!("Content-Type: {ct}"))} }
                    if let Some(body) = &step.request_body { {el("pre", "", body.clone())} }
                </div>
                <div class={format!("http-resp mark-{}", step.mark_label)}>
                    {el("code", "line", format!("HTTP/1.1 {}", step.status_line.clone().unwrap_or_default()))}
                    // A named, focusable region, so that the keyboard can scroll a long body.
                    if let Some(body) = &step.response_body {
                        <pre data-testid="response-body" tabindex="0" role="region" aria-label="Response body">{body.clone()}</pre>
                    }
                </div>
                {labelled("storage: ", "storage-step", &step.storage)}
                {labelled("kubectl: ", "kubectl", &step.kubectl)}
            </>
        },
        Some(step) => el(
            "p",
            "muted",
            format!("Step {} sends no request: {}", step.number, step.statement),
        ),
        None => el("p", "muted", "No step taken yet."),
    }
}
