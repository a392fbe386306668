//! Effects, and only effects: timers that dispatch actions, and the keyboard; the explorer's
//! Web Worker ([`explore`]) and the exercises' stored progress ([`exercises`]).

pub mod exercises;
pub mod explore;

use crate::state::{Action, AppState};
use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How long the editor waits after the last keystroke before it re-parses and re-runs.
pub const DEBOUNCE_MS: u32 = 300;

/// Dispatches [`Action::Reparse`] once the text has been still for [`DEBOUNCE_MS`].
#[hook]
pub fn use_debounced_reparse(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect_with((app.source.clone(), app.dirty), move |(_, dirty)| {
        let timer =
            dirty.then(|| Timeout::new(DEBOUNCE_MS, move || dispatcher.dispatch(Action::Reparse)));
        move || drop(timer)
    });
}

/// While autoplay is on, dispatches [`Action::StepForward`] every `speed_ms`.
#[hook]
pub fn use_autoplay(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect_with((app.playing, app.speed_ms), move |&(playing, ms)| {
        let timer =
            playing.then(|| Interval::new(ms, move || dispatcher.dispatch(Action::StepForward)));
        move || drop(timer)
    });
}

/// Keyboard controls on the page (not while typing in a field): → step, ← back, space play or
/// pause, 1–9 the n-th client goes next, End run to the end, Home reset.
#[hook]
pub fn use_keyboard(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|window| {
            EventListener::new(&window, "keydown", move |event| {
                let Some(key) = event.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if key.ctrl_key() || key.meta_key() || key.alt_key() || typing(key) {
                    return;
                }
                if let Some(action) = key_action(&key.key()) {
                    key.prevent_default();
                    dispatcher.dispatch(action);
                }
            })
        });
        move || drop(listener)
    });
}

fn typing(event: &web_sys::KeyboardEvent) -> bool {
    let Some(target) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return false;
    };
    matches!(target.tag_name().as_str(), "TEXTAREA" | "INPUT" | "SELECT")
}

/// The action bound to a key, if any.
pub fn key_action(key: &str) -> Option<Action> {
    Some(match key {
        "ArrowRight" => Action::StepForward,
        "ArrowLeft" => Action::StepBack,
        " " => Action::TogglePlaying,
        "End" => Action::RunToEnd,
        "Home" => Action::Reset,
        digit if digit.len() == 1 => {
            let n = digit.chars().next()?.to_digit(10)?;
            Action::Next(n.checked_sub(1)?)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(key_action("ArrowRight"), Some(Action::StepForward));
        assert_eq!(key_action("1"), Some(Action::Next(0)));
        assert_eq!(key_action("9"), Some(Action::Next(8)));
        assert_eq!(key_action("0"), None);
        assert_eq!(key_action("x"), None);
    }
}
