//! Step, back, run to end, reset, the scrub slider, autoplay and its speed, the seed, and one
//! "next" button per unfinished client (the learner is the scheduler).

use super::el;
use super::{markup, on_click, on_value, Dispatch};
use crate::state::{Action, SPEEDS_MS};
use rvlab_core::view::{ClientStatus, WorldView};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Where the run stands and how it plays: what the controls show besides the clients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playback {
    /// The step shown (`0..=len`).
    pub cursor: usize,
    /// The run's number of steps.
    pub len: usize,
    pub playing: bool,
    /// Autoplay speed, milliseconds per step.
    pub speed_ms: u32,
    pub seed: u64,
}

fn button(
    dispatch: &Dispatch,
    testid: &'static str,
    label: &'static str,
    key: &'static str,
    action: Action,
    disabled: bool,
) -> Html {
    let onclick = on_click(dispatch, action);
    html! {
        <button type="button" data-testid={testid} {onclick} {disabled}
            aria-keyshortcuts={key} title={format!("{label} ({key})")}>{label}</button>
    }
}

/// The controls: the playback and, from the world shown, one "next" button per client that
/// can go next.
pub fn controls(dispatch: &Dispatch, play: Playback, world: &WorldView) -> Html {
    let (cursor, len) = (play.cursor, play.len);
    let on_scrub: Callback<InputEvent> = on_value(dispatch, |v| v.parse().ok().map(Action::Jump));
    let on_seed = {
        let (dispatch, seed) = (dispatch.clone(), play.seed);
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            match input.value().trim().parse::<u64>() {
                Ok(seed) => dispatch.dispatch(Action::SetSeed(seed)),
                Err(_) => input.set_value(&seed.to_string()),
            }
        })
    };
    let on_speed: Callback<Event> = on_value(dispatch, |v| v.parse().ok().map(Action::SetSpeed));
    let nexts: Html = world
        .clients
        .iter()
        .filter(|c| {
            matches!(
                c.status,
                ClientStatus::Ready | ClientStatus::Sleeping { .. }
            )
        })
        .map(|c| {
            let onclick = on_click(dispatch, Action::Next(c.index));
            let what = c.next_statement.clone().unwrap_or_default();
            let sleeping = matches!(c.status, ClientStatus::Sleeping { .. });
            let key = (c.index + 1).to_string();
            html! {
                <button type="button" class={if sleeping { "next sleeping" } else { "next" }}
                    data-testid={format!("next-{}", c.name)} {onclick}
                    aria-keyshortcuts={key.clone()}
                    title={format!("{} goes next ({key}): {what} — {}", c.name, c.status_label)}>
                    {el("span", "who", format!("{} ▸", c.name))}
                    {el("span", "what", what)}
                    if sleeping { {el("span", "muted", format!(" ({})", c.status_label))} }
                </button>
            }
        })
        .collect();
    html! {
        <section class="panel controls" data-testid="controls" aria-label="Controls">
            <div class="buttons">
                {button(dispatch, "reset", "Reset", "Home", Action::Reset, false)}
                {button(dispatch, "step-back", "◀ Back", "ArrowLeft", Action::StepBack, cursor == 0)}
                {button(dispatch, "step-forward", "Step ▶", "ArrowRight", Action::StepForward, cursor >= len)}
                {button(dispatch, "run-to-end", "Run to end ▶▶", "End", Action::RunToEnd, cursor >= len)}
                <button type="button" data-testid="autoplay" aria-pressed={play.playing.to_string()}
                    aria-keyshortcuts="Space" disabled={!play.playing && cursor >= len}
                    onclick={on_click(dispatch, Action::TogglePlaying)}>
                    {if play.playing { "Pause" } else { "Play" }}
                </button>
                <label class="inline">{"speed "}
                    <select data-testid="speed" onchange={on_speed} aria-label="Autoplay speed">
                        { for SPEEDS_MS.iter().map(|&ms| html! {
                            <option value={ms.to_string()} selected={ms == play.speed_ms}>{speed_label(ms)}</option>
                        }) }
                    </select>
                </label>
            </div>
            <div class="scrub">
                <input type="range" data-testid="scrub" aria-label="Step" min="0" max={len.to_string()}
                    value={cursor.to_string()} oninput={on_scrub} />
                {super::el_id("span", "pos", "position", format!("step {cursor} of {len}"))}
                <label class="inline">{"seed "}
                    <input type="number" data-testid="seed" min="0" value={play.seed.to_string()}
                        onchange={on_seed} aria-label="Seed" class="seed" />
                </label>
            </div>
            <div class="nexts" role="group" aria-label="Who goes next">
                {el("span", "muted", "next: ")}
                if world.finished { {el("span", "muted", "every client has finished")} }
                {nexts}
            </div>
            {markup(concat!(
                r#"<details class="keys"><summary>Keyboard</summary><p>→ step · ← back · space play/pause · "#,
                "End run to end · Home reset · 1–9 that client goes next · ? all shortcuts</p></details>"
            ))}
        </section>
    }
}

fn speed_label(ms: u32) -> String {
    format!("{} s/step", rvlab_core::decimal::fixed(u64::from(ms), 3, 2))
}
