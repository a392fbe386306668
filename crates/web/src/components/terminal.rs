//! The terminals (the page's kubectl build only): each kubectl client's commands so far, as a
//! shell shows them, from the core's [`view::terminals`].

use super::el;
use rvlab_core::run::Run;
use rvlab_core::view;
use yew::prelude::*;

/// A terminal per client that has kubectl statements ([`view::has_kubectl`]), after the first
/// `cursor` steps of `run`: `$ COMMAND`, then what it printed, byte for byte (standard error in
/// `span.stderr`), with muted notes (`span.note`, never part of the output) for a command still
/// running, a non-zero exit status, and a terminal with no command yet. `current` is the client
/// of the step shown; its terminal is marked `aria-current`. Nothing when no client runs kubectl.
pub fn terminals(run: &Run, cursor: usize, current: Option<u32>) -> Html {
    let clients = &run.scenario.clients;
    let figures: Vec<Html> = view::terminals(run, cursor)
        .into_iter()
        .filter(|t| {
            clients
                .get(t.client_index as usize)
                .is_some_and(view::has_kubectl)
        })
        .map(|t| {
            let text: Html = t
                .entries
                .iter()
                .map(|e| {
                    html! {
                        <>
                            {el("span", "prompt", format!("$ {}\n", e.command))}
                            { for e.chunks.iter().map(|c| if c.stderr {
                                el("span", "stderr", c.text.clone())
                            } else {
                                Html::from(c.text.as_str())
                            }) }
                            {match e.exit {
                                None => el("span", "note", "running…"),
                                Some(0) => Html::default(),
                                Some(n) => el("span", "note", format!("exit {n}")),
                            }}
                        </>
                    }
                })
                .collect();
            let is_current = current == Some(t.client_index);
            html! {
                <figure class={if is_current { "terminal current" } else { "terminal" }}
                    data-testid={format!("terminal-{}", t.client)}
                    aria-current={is_current.then_some("true")}>
                    {el("figcaption", "", format!("{}'s terminal", t.client))}
                    <pre data-testid="terminal-text">
                        {text}
                        if t.entries.is_empty() { {el("span", "note", "no commands yet")} }
                    </pre>
                </figure>
            }
        })
        .collect();
    if figures.is_empty() {
        return Html::default();
    }
    html! {
        <section class="panel terminals" data-testid="terminals" aria-label="Terminals">
            {for figures}
        </section>
    }
}
