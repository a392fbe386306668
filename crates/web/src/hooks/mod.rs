//! Effects, and only effects: timers that dispatch actions, the keyboard, the URL fragment
//! (share links), local storage (saved work), the embed height report; the explorer's
//! Web Worker ([`explore`]) and the exercises' stored progress ([`exercises`]); in the kubectl build, `live` (the live view's event stream).

pub mod exercises;
pub mod explore;

use crate::link::{self, Flags};
use crate::state::{Action, AppState};
use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use std::any::Any;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What an effect leaves to undo (a timer, a listener), boxed: see [`use_effect`].
pub type Cleanup = Box<dyn FnOnce()>;

/// An effect's dependencies of any type, compared as that type: one type for yew's effect
/// machinery, which is monomorphised per (deps, effect, cleanup) type (docs/size.md).
pub struct Deps(Box<dyn AnyEq>);

trait AnyEq {
    fn as_any(&self) -> &dyn Any;
    fn same(&self, other: &dyn Any) -> bool;
}

impl<T: PartialEq + 'static> AnyEq for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}

impl PartialEq for Deps {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_any())
    }
}

/// `use_effect_with` with the dependencies, the effect and its cleanup boxed, so that the page
/// links one copy of yew's effect code rather than one per effect (docs/size.md). A plain
/// function returning yew's hook (no `#[hook]` wrapper type per call site).
pub fn use_effect<T: PartialEq + 'static>(
    deps: T,
    f: impl FnOnce(&T) -> Cleanup + 'static,
) -> impl Hook<Output = ()> {
    let f: Box<dyn FnOnce(&Deps) -> Cleanup> =
        Box::new(move |d: &Deps| match d.0.as_any().downcast_ref::<T>() {
            Some(deps) => f(deps),
            None => nothing(),
        });
    use_effect_with(Deps(Box::new(deps)), f)
}

/// No cleanup.
pub fn nothing() -> Cleanup {
    Box::new(|| ())
}

/// A timer with a boxed callback: one copy of gloo's timer glue for the page's timeouts.
fn timeout(ms: u32, f: Box<dyn FnOnce()>) -> Timeout {
    Timeout::new(ms, f)
}

/// A node reference kept across renders: yew's `use_node_ref` is a `use_state`, a state
/// reducer type of its own in the wasm, where a cell is enough (docs/size.md).
#[hook]
pub fn use_node() -> NodeRef {
    let node = use_mut_ref(NodeRef::default);
    let node = node.borrow().clone();
    node
}

/// How long the editor waits after the last keystroke before it re-parses and re-runs.
pub const DEBOUNCE_MS: u32 = 300;

/// Dispatches [`Action::Reparse`] once the text has been still for [`DEBOUNCE_MS`].
#[hook]
pub fn use_debounced_reparse(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect((app.source.clone(), app.dirty), move |(_, dirty)| {
        let timer = dirty.then(|| {
            timeout(
                DEBOUNCE_MS,
                Box::new(move || dispatcher.dispatch(Action::Reparse)),
            )
        });
        Box::new(move || drop(timer))
    });
}

/// While autoplay is on, dispatches [`Action::StepForward`] every `speed_ms`.
#[hook]
pub fn use_autoplay(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    use_effect((app.playing, app.speed_ms), move |&(playing, ms)| {
        let timer =
            playing.then(|| Interval::new(ms, move || dispatcher.dispatch(Action::StepForward)));
        Box::new(move || drop(timer))
    });
}

/// Keyboard controls on the page (not while typing in a field): → step, ← back, space play or
/// pause, 1–9 the n-th client goes next, End run to the end, Home reset, `?` the help overlay
/// (Esc closes it; while it is open no other shortcut fires).
#[hook]
pub fn use_keyboard(app: &UseReducerHandle<AppState>) {
    let dispatcher = app.dispatcher();
    let help_open = use_mut_ref(|| false);
    *help_open.borrow_mut() = app.help_open;
    use_effect((), move |_| {
        let listener = web_sys::window().map(|window| {
            EventListener::new(&window, "keydown", move |event| {
                let Some(key) = event.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if key.ctrl_key() || key.meta_key() || key.alt_key() || typing(key) {
                    return;
                }
                if *help_open.borrow() {
                    if key.key() == "Escape" || key.key() == "?" {
                        key.prevent_default();
                        dispatcher.dispatch(Action::ShowHelp(false));
                    }
                    return;
                }
                if let Some(action) = key_action(&key.key()) {
                    key.prevent_default();
                    dispatcher.dispatch(action);
                }
            })
        });
        Box::new(move || drop(listener))
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
        "?" => Action::ShowHelp(true),
        digit if digit.len() == 1 => {
            let n = digit.chars().next()?.to_digit(10)?;
            Action::Next(n.checked_sub(1)?)
        }
        _ => return None,
    })
}

/// How long the page waits after the last change before it rewrites the URL fragment and the
/// saved work (no history entries, no storage write per autoplay step).
pub const SAVE_DEBOUNCE_MS: u32 = 250;

/// The URL's fragment and query now (empty strings when there is no window).
pub fn location_parts() -> (String, String) {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return (String::new(), String::new());
    };
    (
        location.hash().unwrap_or_default(),
        location.search().unwrap_or_default(),
    )
}

fn storage() -> Result<web_sys::Storage, String> {
    let window = web_sys::window().ok_or("there is no window")?;
    match window.local_storage() {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err("this browser has no local storage".into()),
        Err(e) => Err(format!("local storage is not available ({})", js_text(&e))),
    }
}

fn js_text(value: &wasm_bindgen::JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// What local storage holds under [`link::STORAGE_KEY`] (or why it cannot be read).
pub fn read_saved() -> Result<Option<String>, String> {
    storage()?
        .get_item(link::STORAGE_KEY)
        .map_err(|e| format!("reading it failed ({})", js_text(&e)))
}

/// The page's first state and flags, from the URL and (outside embed mode) local storage.
pub fn initial() -> (AppState, Flags) {
    let (hash, query) = location_parts();
    let flags = Flags::parse(&hash, &query);
    let saved = if flags.embed { Ok(None) } else { read_saved() };
    (link::initial_state_with(page_course(), &hash, saved), flags)
}

/// The page's own course, when it is a course pack: the `rvlab-course` element's text, read
/// ([`link::read_course`], which parses every exercise) once per page: start-up asks twice
/// (the kubectl hand-over, then the first state).
pub fn page_course() -> Option<Result<std::rc::Rc<rvlab_core::exercises::course::Course>, String>> {
    type Read = Option<Result<std::rc::Rc<rvlab_core::exercises::course::Course>, String>>;
    thread_local! {
        static COURSE: std::cell::OnceCell<Read> = const { std::cell::OnceCell::new() };
    }
    COURSE.with(|c| {
        c.get_or_init(|| {
            let element = web_sys::window()?
                .document()?
                .get_element_by_id(rvlab_core::exercises::course::ELEMENT_ID)?;
            link::read_course(element.text_content())
        })
        .clone()
    })
}

/// Opens the page's kubectl build in place of this page when the link, or without one the
/// saved work, needs the kubectl model this build leaves out ([`link::wants_kubectl`]), with
/// the same fragment; `location.replace`, so Back goes where it went before. Returns whether
/// it did (the page then renders nothing, and so never saves over the work it cannot run).
pub fn open_kubectl_build_if_needed() -> bool {
    let (hash, query) = location_parts();
    let flags = Flags::parse(&hash, &query);
    let saved = if flags.embed {
        None
    } else {
        read_saved().ok().flatten()
    };
    let course = page_course().and_then(Result::ok);
    if !link::wants_kubectl(&hash, saved.as_deref(), course.as_deref()) {
        return false;
    }
    let url = link::kubectl_page(&page_url(), &hash);
    web_sys::window().is_some_and(|w| w.location().replace(&url).is_ok())
}

/// Opens `url` (the kubectl build's address) as a new page.
pub fn go_to(url: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().assign(url);
    }
}

/// The page's address without its fragment.
pub fn page_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Keeps the URL fragment equal to the state's share link (`history.replaceState`: no history
/// entries) and, outside embed mode (an embed must not overwrite the reader's own work), saves
/// the work (text, lesson, schedule, position, seed, view) to local storage: both debounced, on
/// one timer (one effect rather than two: docs/size.md). A storage that throws (full, disabled)
/// is reported once as a notice. Restores the state when the fragment is changed by hand or by
/// a link within the page (`hashchange`).
#[hook]
pub fn use_url_and_saved_work(app: &UseReducerHandle<AppState>, flags: Flags) {
    let key = (
        app.source.clone(),
        app.schedule.clone(),
        app.cursor,
        app.seed,
        app.table_view,
        app.base_lesson,
    );
    let state = (**app).clone();
    let dispatcher = app.dispatcher();
    let reported = use_mut_ref(|| false);
    let course = app.exercises.course.clone();
    {
        let dispatcher = dispatcher.clone();
        use_effect(key, move |_| {
            let timer = timeout(
                SAVE_DEBOUNCE_MS,
                Box::new(move || {
                    sync_fragment(&state, flags);
                    if !flags.embed {
                        save_work(&state, &reported, &dispatcher);
                    }
                }),
            );
            Box::new(move || drop(timer))
        });
    }
    use_effect((), move |_| {
        let listener = web_sys::window().map(|window| {
            EventListener::new(&window, "hashchange", move |_| {
                let (hash, _) = location_parts();
                if link::wants_kubectl(&hash, None, course.as_deref()) {
                    go_to(&link::kubectl_page(&page_url(), &hash));
                    return;
                }
                if let Some(a) = link::exercise_action(&hash, course.as_deref()) {
                    dispatcher.dispatch(Action::Notice(None));
                    dispatcher.dispatch(a);
                    return;
                }
                match link::restore_from_fragment(&hash) {
                    Some(Ok(r)) => {
                        dispatcher.dispatch(Action::Notice(None));
                        dispatcher.dispatch(link::restore_action(r));
                    }
                    Some(Err(text)) => {
                        dispatcher.dispatch(Action::ResetToLesson);
                        dispatcher.dispatch(Action::Notice(Some(text)));
                    }
                    None => {}
                }
            })
        });
        Box::new(move || drop(listener))
    });
}

/// Rewrites the URL fragment to the state's share link when it differs.
fn sync_fragment(state: &AppState, flags: Flags) {
    use crate::state::exercises::Origin;
    let fragment = match state.exercises.current.as_ref().map(|s| (s.origin, &s.id)) {
        // A teacher's exercise keeps its link in the address bar: a reload opens it again.
        Some((Origin::Link, _)) => return,
        // The page's own course's exercise: its link.
        Some((Origin::Course, id)) => format!("exercise={id}"),
        _ => match link::fragment(state, flags) {
            Ok(f) => f,
            Err(_) => return,
        },
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    if window.location().hash().unwrap_or_default() == format!("#{fragment}") {
        return;
    }
    if let Ok(history) = window.history() {
        let url = format!("{}#{fragment}", page_url());
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Writes the saved work; the first failure is reported as a notice.
fn save_work(
    state: &AppState,
    reported: &std::cell::RefCell<bool>,
    dispatcher: &UseReducerDispatcher<AppState>,
) {
    let result = storage().and_then(|s| {
        s.set_item(link::STORAGE_KEY, &link::stored_record(state))
            .map_err(|e| js_text(&e))
    });
    if let Err(reason) = result {
        if !std::mem::replace(&mut *reported.borrow_mut(), true) {
            dispatcher.dispatch(Action::Notice(Some(format!(
                "Your work cannot be saved in this browser ({reason}); it will not survive a reload."
            ))));
        }
    }
}

/// The help overlay's focus: while `open`, the returned node (its close button) takes the
/// focus when the overlay opens; when it closes, the focus goes back to where it was.
#[hook]
pub fn use_help_focus(open: bool) -> NodeRef {
    let close_ref = use_node();
    {
        let close_ref = close_ref.clone();
        use_effect(open, move |&open| {
            let before = open
                .then(|| web_sys::window().and_then(|w| w.document()))
                .flatten()
                .and_then(|d| d.active_element())
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if open {
                if let Some(button) = close_ref.cast::<web_sys::HtmlElement>() {
                    let _ = button.focus();
                }
            }
            Box::new(move || {
                if let Some(el) = before {
                    let _ = el.focus();
                }
            })
        });
    }
    close_ref
}

/// In embed mode, posts `{type: "rvlab:height", height}` to the parent page whenever the
/// element's size changes (a `ResizeObserver`), so the parent can size the iframe to fit.
#[hook]
pub fn use_height_report(node: &NodeRef, flags: Flags) {
    let node = node.clone();
    use_effect(flags.embed, move |&embed| {
        let observer = embed.then(|| {
            let element = node.cast::<web_sys::Element>()?;
            // `dyn FnMut(JsValue)`, the signature of the page's other closures: one copy of
            // wasm-bindgen's closure glue (docs/size.md).
            let callback = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
                move |entries: wasm_bindgen::JsValue| {
                    let Some(entry) = entries
                        .unchecked_into::<js_sys::Array>()
                        .get(0)
                        .dyn_into::<web_sys::ResizeObserverEntry>()
                        .ok()
                    else {
                        return;
                    };
                    post_height(entry.target().get_bounding_client_rect().height());
                },
            );
            let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
            observer.observe(&element);
            Some((observer, callback))
        });
        Box::new(move || {
            if let Some(Some((observer, _callback))) = observer {
                observer.disconnect();
            }
        })
    });
}

fn post_height(height: f64) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"rvlab:height".into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &height.ceil().into());
    let _ = parent.post_message(&message, "*");
}

/// Asks the browser to copy `text` (`navigator.clipboard.writeText`); `done` is called with
/// whether it worked. Without a clipboard API, `done(false)` at once.
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let clipboard = web_sys::window()
        .map(|w| w.navigator())
        .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()).ok())
        .filter(|c| !c.is_undefined() && !c.is_null());
    let write = clipboard.as_ref().and_then(|c| {
        js_sys::Reflect::get(c, &"writeText".into())
            .ok()?
            .dyn_into::<js_sys::Function>()
            .ok()
    });
    let promise = match (clipboard, write) {
        (Some(c), Some(f)) => f
            .call1(&c, &text.into())
            .ok()
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok()),
        _ => None,
    };
    let Some(promise) = promise else {
        done(false);
        return;
    };
    let done = std::rc::Rc::new(std::cell::RefCell::new(Some(done)));
    let (ok, failed) = (done.clone(), done);
    type Settle = wasm_bindgen::closure::Closure<dyn FnMut(wasm_bindgen::JsValue)>;
    let on_ok = Settle::new(move |_| {
        if let Some(f) = ok.borrow_mut().take() {
            f(true);
        }
    });
    let on_err = Settle::new(move |_| {
        if let Some(f) = failed.borrow_mut().take() {
            f(false);
        }
    });
    let _ = promise.then2(&on_ok, &on_err);
    // One small pair of closures per copy, released by the page's end.
    on_ok.forget();
    on_err.forget();
}

/// The Live view's effects (the kubectl build only). Declared after the code: no line of
/// index.html's build moves (its panic locations name lines).
#[cfg(feature = "live")]
pub mod live;

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
        assert_eq!(key_action("?"), Some(Action::ShowHelp(true)));
        assert_eq!(key_action("Home"), Some(Action::Reset));
        assert_eq!(key_action("End"), Some(Action::RunToEnd));
    }
}
