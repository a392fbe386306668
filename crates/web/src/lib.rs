//! The rvlab playground (Yew). Renders views computed by `rvlab-core`; holds no domain logic.
//!
//! Module map:
//! - [`state`]: `AppState`, the `Action` enum and the pure `apply` (unit-tested natively);
//! - [`hooks`]: effects only: the debounced re-run, autoplay, the keyboard;
//! - [`components`]: one component per region (editor + diagnostics, timeline, controls,
//!   inspector, narration, expectations, lesson picker);
//! - [`labels`]: short timeline labels cut from the core's preformatted views;
//! - [`App`] and [`start`]: the page and its entry point (panic hook + render).

pub mod components;
pub mod hooks;
pub mod labels;
pub mod state;
pub mod worker;

use components::controls::Controls;
use components::editor::{Diagnostics, Editor};
use components::exercises::{Exercises, ViewTabs};
use components::explorer::Explorer;
use components::inspector::Inspector;
use components::panels::{Expectations, LessonPicker, Narration};
use components::timeline::{history_line, ShownRef, Timeline};
use state::AppState;
use std::rc::Rc;
use yew::prelude::*;

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let app = use_reducer(AppState::default);
    hooks::use_debounced_reparse(&app);
    hooks::use_autoplay(&app);
    hooks::use_keyboard(&app);
    hooks::explore::use_explore_worker(&app);
    hooks::exercises::use_exercise_progress(&app);
    hooks::exercises::use_locked_lines(&app);
    use_effect_with((), |_| mark_interactive());
    let textarea = use_node_ref();
    let source = AttrValue::from(app.source.clone());
    let world = Rc::new(match &app.shown {
        Some(shown) => shown.world_view(app.cursor),
        None => rvlab_core::view::WorldView {
            clock: String::new(),
            objects: Vec::new(),
            events: Vec::new(),
            clients: Vec::new(),
            lost_updates: Vec::new(),
            finished: true,
        },
    });
    html! {
        <main class="app" data-testid="app">
            <header class="topbar">
                <h1>{"rvlab"}<span class="tagline">{" resourceVersion, 409 Conflict and retries, step by step"}</span></h1>
                <ViewTabs app={app.clone()} />
                if !app.exercises.open { <LessonPicker app={app.clone()} /> }
            </header>
            <section class="panel editor" aria-label="Scenario editor">
                <h2>{"Scenario"}</h2>
                <Editor dispatch={app.dispatcher()} source={source.clone()}
                    diagnostics={app.diagnostics.clone()} textarea={textarea.clone()} />
                <Diagnostics {source} diagnostics={app.diagnostics.clone()}
                    run_error={app.run_error.clone().map(AttrValue::from)} dirty={app.dirty} {textarea} />
            </section>
            <div class="play">
                if app.exercises.open { <Exercises app={app.clone()} /> }
                <Controls app={app.clone()} world={world.clone()} />
                <Narration app={app.clone()} />
                <Timeline dispatch={app.dispatcher()} shown={app.shown.clone().map(ShownRef)}
                    cursor={app.cursor} history={history_line(&world)} />
                <Explorer app={app.clone()} />
            </div>
            <Inspector app={app.clone()} world={world} />
            <Expectations app={app.clone()} />
        </main>
    }
}

/// Sets the `rvlab-interactive` performance mark (read by `cargo xtask bench` for the cold
/// load time): called once the first render, timeline included, is in the DOM.
fn mark_interactive() {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("rvlab-interactive");
    }
}

/// Installs the panic hook ([`report_panic`]), then renders [`App`] into the body.
pub fn start() {
    // In the explorer's Web Worker (which loads this same wasm) there is no page to render.
    if web_sys::window().is_none() {
        return;
    }
    std::panic::set_hook(Box::new(|info| report_panic(&info.to_string())));
    yew::Renderer::<App>::new().render();
}

/// Reports an internal error: to the console, and as a visible panel (`data-testid="error-panel"`)
/// so that the page never just goes dead. The message is set as text, never as HTML.
pub fn report_panic(message: &str) {
    let text = format!(
        "rvlab hit an internal error and stopped: {message}\nReload the page to start again."
    );
    web_sys::console::error_1(&text.as_str().into());
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    if let Ok(panel) = document.create_element("div") {
        panel.set_class_name("error-panel");
        let _ = panel.set_attribute("role", "alert");
        let _ = panel.set_attribute("data-testid", "error-panel");
        panel.set_text_content(Some(&text));
        let _ = body.append_child(&panel);
    }
}
