//! The Live view's effects (the kubectl build, feature `live`): the live endpoint from the
//! page's `<meta name="rvlab-live">` (which `rvlab serve` inserts), the `EventSource` on it
//! (the browser reconnects by itself), and "Save as scenario"'s fetch.

use super::{js_text, nothing, use_effect};
use crate::state::live::{Connection, LiveAction, LiveState};
use crate::state::{Action, AppState};
use gloo_events::EventListener;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::EventSource;
use yew::prelude::*;

/// The live endpoint the page was served with (`content` of `<meta name="rvlab-live">`).
pub fn endpoint() -> Option<String> {
    web_sys::window()?
        .document()?
        .query_selector("meta[name=rvlab-live]")
        .ok()??
        .get_attribute("content")
        .filter(|c| !c.is_empty())
}

thread_local! {
    /// Whether the page has a Live view (set once, by [`initial`]).
    static SERVED_LIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the page has a Live view: the playground's view tabs then offer it.
pub fn served_live() -> bool {
    SERVED_LIVE.with(|s| s.get())
}

/// The first state with its Live view: open when the page was served with a live endpoint
/// (never in an embed).
pub fn initial(mut state: AppState, flags: crate::link::Flags) -> (AppState, crate::link::Flags) {
    state.live = LiveState::new(endpoint().filter(|_| !flags.embed));
    SERVED_LIVE.with(|s| s.set(state.live.endpoint.is_some()));
    (state, flags)
}

/// While the page has a live endpoint: an `EventSource` on it, each `hello` and `step`
/// event's data dispatched as [`LiveAction::Event`], the connection's state as
/// [`LiveAction::Connection`]; and "Save as scenario" ([`LiveState::saving`]) fetches the
/// history as a scenario text.
#[hook]
pub fn use_live(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    {
        let dispatcher = dispatcher.clone();
        use_effect(app.live.endpoint.clone(), move |endpoint| {
            let source = endpoint.as_deref().and_then(|e| EventSource::new(e).ok());
            let listeners = source.as_ref().map(|s| {
                let on_data = |d: UseReducerDispatcher<AppState>| {
                    move |event: &web_sys::Event| {
                        let data = event
                            .dyn_ref::<web_sys::MessageEvent>()
                            .and_then(|m| m.data().as_string());
                        if let Some(data) = data {
                            d.dispatch(Action::Live(LiveAction::Event(data)));
                        }
                    }
                };
                let on_error = {
                    let (d, s) = (dispatcher.clone(), s.clone());
                    move |_: &web_sys::Event| {
                        let c = if s.ready_state() == EventSource::CLOSED {
                            Connection::Closed
                        } else {
                            Connection::Reconnecting
                        };
                        d.dispatch(Action::Live(LiveAction::Connection(c)));
                    }
                };
                [
                    EventListener::new(s, "hello", on_data(dispatcher.clone())),
                    EventListener::new(s, "step", on_data(dispatcher.clone())),
                    EventListener::new(s, "error", on_error),
                ]
            });
            Box::new(move || {
                drop(listeners);
                if let Some(s) = source {
                    s.close();
                }
            })
        });
    }
    let url = app.live.scenario_url();
    use_effect(app.live.saving, move |&saving| {
        if let (true, Some(url)) = (saving, url) {
            fetch_text(&url, move |r| {
                dispatcher.dispatch(Action::Live(LiveAction::Saved(r)));
            });
        }
        nothing()
    });
}

type Done = Rc<RefCell<Option<Box<dyn FnOnce(Result<String, String>)>>>>;

fn finish(done: &Done, result: Result<String, String>) {
    if let Some(f) = done.borrow_mut().take() {
        f(result);
    }
}

/// `then(ok, error)` on `promise`; an error ends `done` with its message. The closures have
/// the page's one closure signature (docs/size.md).
fn settle(promise: &js_sys::Promise, done: Done, ok: fn(JsValue, Done)) {
    type Settle = Closure<dyn FnMut(JsValue)>;
    let failed = done.clone();
    let on_ok = Settle::new(move |v| ok(v, done.clone()));
    let on_err = Settle::new(move |e: JsValue| finish(&failed, Err(js_text(&e))));
    let _ = promise.then2(&on_ok, &on_err);
    // One pair per promise, released by the page's end (as `copy_text`'s).
    on_ok.forget();
    on_err.forget();
}

/// GETs `url` and calls `done` with its text, or why not.
pub fn fetch_text(url: &str, done: impl FnOnce(Result<String, String>) + 'static) {
    let done: Done = Rc::new(RefCell::new(Some(Box::new(done))));
    let Some(window) = web_sys::window() else {
        return finish(&done, Err("there is no window".into()));
    };
    settle(&window.fetch_with_str(url), done, |response, done| {
        let Ok(response) = response.dyn_into::<web_sys::Response>() else {
            return finish(&done, Err("no response".into()));
        };
        if !response.ok() {
            let why = format!("HTTP {} {}", response.status(), response.status_text());
            return finish(&done, Err(why));
        }
        match response.text() {
            Ok(text) => settle(&text, done, |text, done| {
                finish(&done, text.as_string().ok_or_else(|| "not a text".into()));
            }),
            Err(e) => finish(&done, Err(js_text(&e))),
        }
    });
}
