//! The rvlab playground (Yew). Renders views computed by `rvlab-core`; holds no domain logic.
//!
//! Module map:
//! - [`state`]: `AppState`, the `Action` enum and the pure `apply` (unit-tested natively);
//! - [`hooks`]: effects only: the debounced re-run, autoplay, the keyboard, the URL fragment,
//!   saved work in local storage, the embed height report;
//! - [`link`]: share links, embed flags and saved work as pure functions (and the priority on
//!   load: link, then saved work, then the first lesson);
//! - [`components`]: one file per region (editor + diagnostics, timeline, table view,
//!   controls, inspector, narration, expectations, lesson picker, tabs, exercises, explorer,
//!   share bar, notice, help), as plain functions of the data each shows plus the reducer's
//!   dispatcher, and one memoised component for the costly parts ([`components::RunPart`]);
//! - [`labels`]: short timeline labels cut from the core's preformatted views;
//! - [`App`] and [`start`]: the page and its entry point (panic hook + render); `worker`: the explorer's Web Worker entry points.

pub mod components;
pub mod hooks;
pub mod labels;
pub mod link;
pub mod state;
pub mod worker;

use components::controls::{controls, Playback};
use components::editor::{diagnostics, DiagnosticsProps, EditorProps};
use components::el;
use components::exercises::exercises;
use components::expectations::expectations;
use components::explorer::explorer;
use components::help::help_overlay;
use components::inspector::inspector;
use components::lesson_picker::lesson_picker;
use components::narration::{live_narration, narration};
use components::notice::notice;
use components::share::{share_bar, use_share_output, Sharing};
use components::tabs::view_tabs;
use components::timeline::{history_line, timeline, use_current_row, ShownRef};
use components::{Part, RunPart};
use yew::prelude::*;

/// The page's allocator (and its worker's, which loads the same wasm): talc instead of the
/// standard dlmalloc, for size and speed (docs/size.md).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The page: the state, the effects (hooks), and each region given the part of the state it
/// shows and the reducer's dispatcher.
#[function_component(App)]
pub fn app() -> Html {
    let flags = use_mut_ref(|| None::<link::Flags>);
    let app = {
        let flags = flags.clone();
        use_reducer(move || {
            let (state, f) = with_live(hooks::initial());
            *flags.borrow_mut() = Some(f);
            state
        })
    };
    let flags: link::Flags = flags.borrow().unwrap_or_default();
    let dispatch = app.dispatcher();
    let main_ref = crate::hooks::use_node();
    let textarea = crate::hooks::use_node();
    hooks::use_debounced_reparse(&app);
    hooks::use_autoplay(&app);
    hooks::use_keyboard(&app);
    hooks::use_url_and_saved_work(&app, flags);
    hooks::use_height_report(&main_ref, flags);
    hooks::explore::use_explore_worker(&app);
    hooks::exercises::use_exercise_progress(&app);
    hooks::exercises::use_locked_lines(&app, &textarea);
    #[cfg(feature = "live")]
    {
        hooks::live::use_live(&app);
    }
    hooks::use_effect((), |_| {
        mark_interactive();
        hooks::nothing()
    });
    let source = AttrValue::from(app.source.clone());
    let world = match &app.shown {
        Some(shown) => shown.world_view(app.cursor),
        None => rvlab_core::view::WorldView {
            clock: String::new(),
            objects: Vec::new(),
            events: Vec::new(),
            clients: Vec::new(),
            lost_updates: Vec::new(),
            finished: true,
        },
    };
    let current_row = use_current_row(app.cursor, app.shown.as_ref(), app.table_view);
    let shown_ref = app.shown.clone().map(ShownRef);
    let step = app.current_step();
    let timeline = if app.table_view {
        html! { <RunPart part={Part::Table(shown_ref, app.cursor)} dispatch={dispatch.clone()} /> }
    } else {
        timeline(&dispatch, shown_ref, history_line(&world), &current_row)
    };
    let close_help = hooks::use_help_focus(app.help_open);
    let share_output = use_share_output();
    // Always one child of `<main>`, an empty list while closed: yew matches unkeyed children
    // from the end, so a child that comes and goes last (an `Option`) made it re-create every
    // other child of `<main>` on opening, the help button too, and the focus had nowhere to go
    // back to on closing.
    let help = if app.help_open {
        help_overlay(&dispatch, &close_help)
    } else {
        Html::default()
    };
    #[cfg(feature = "live")]
    if app.live.open {
        return components::live::live_page(&dispatch, &app, main_ref, help);
    }
    // The panels are plain functions rather than components (their few hooks live here): they
    // re-render with the app state anyway, and each component costs ~1.5 kB of wasm
    // (docs/size.md). Only the costly parts are a component (`RunPart`), to skip them.
    let editor = html! {
            <section class="panel editor" aria-label="Scenario editor">
                {el("h2", "", "Scenario")}
                <RunPart part={Part::Editor(EditorProps {
                    source: source.clone(),
                    diagnostics: app.diagnostics.clone(),
                    textarea: textarea.clone(),
                })} dispatch={dispatch.clone()} />
                {diagnostics(&DiagnosticsProps {
                    source,
                    diagnostics: app.diagnostics.clone(),
                    run_error: app.run_error.clone().map(AttrValue::from),
                    dirty: app.dirty,
                    textarea,
                    kubectl_page: link::kubectl_link(&app, hooks::page_url).map(AttrValue::from),
                })}
            </section>
    };
    let scenario = app.shown.as_ref().map(|s| &s.run.scenario);
    let notice = notice(&dispatch, app.notice.as_deref());
    // One tree for the page and its embed form (the flags never change while the page lives):
    // less view code than two trees (docs/size.md); the DOM of each is as before.
    let embed = flags.embed;
    let (top, bottom) = if embed {
        let title = scenario.and_then(|s| s.title.clone());
        let full = link::fragment(&app, link::Flags::default())
            .map(|f| format!("{}#{f}", hooks::page_url()))
            .unwrap_or_else(|_| hooks::page_url());
        let top = html! {
            <>
                {notice}
                if let Some(t) = title { {components::el_id("h1", "embed-title", "scenario-title", t)} }
            </>
        };
        let bottom = html! {
            <>
                if flags.editor { {editor} }
                <p class="embed-foot muted">
                    <a href={full} target="_blank" rel="noopener" data-testid="open-full">{"Open in rvlab ↗"}</a>
                </p>
            </>
        };
        (top, bottom)
    } else {
        let catalogue = &app.catalogue;
        let sharing = Sharing {
            link: link::share_state(&app),
            title: scenario.and_then(|s| s.title.clone()),
            table_view: app.table_view,
            base_title: rvlab_core::lessons::LESSONS
                .iter()
                .position(|l| l.id == app.base_lesson)
                .map(|i| catalogue.lesson_title(i).to_string())
                .unwrap_or_default(),
        };
        let top = html! {
            <>
                <header class="topbar">
                    {components::markup(r#"<h1>rvlab<span class="tagline"> resourceVersion, 409 Conflict and retries, step by step</span></h1>"#)}
                    {view_tabs(&dispatch, app.exercises.open, app.exercises.progress())}
                    if !app.exercises.open { {lesson_picker(&dispatch, app.lesson, scenario, catalogue)} }
                    {share_bar(&dispatch, sharing, flags, &share_output)}
                    <div class="notices">{notice}</div>
                </header>
                {editor}
            </>
        };
        (
            top,
            html! { <>{inspector(&world, step)}{expectations(app.shown.as_ref().map(|s| &s.expectations[..]))}</> },
        )
    };
    html! {
        <main class={if embed { "app embed" } else { "app" }} data-testid="app" ref={main_ref}>
            {top}
            <div class="play">
                if app.exercises.open && !embed { {exercises(&dispatch, &app.exercises, &app.source, &app.catalogue)} }
                {controls(&dispatch, Playback {
                    cursor: app.cursor,
                    len: app.len(),
                    playing: app.playing,
                    speed_ms: app.speed_ms,
                    seed: app.seed,
                }, &world)}
                {narration(step, app.stopped_here())}
                {{
                    #[cfg(feature = "kubectl")]
                    {
                        match &app.shown {
                            Some(s) => components::terminal::terminals(&s.run, app.cursor, step.map(|s| s.client_index)),
                            None => Html::default(),
                        }
                    }
                    #[cfg(not(feature = "kubectl"))]
                    {
                        Html::default()
                    }
                }}
                {timeline}
                if !embed { {explorer(&dispatch, &app.explore, app.explore_stale(), app.has_errors())} }
            </div>
            {bottom}
            {live_narration(step)}
            {help}
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
    // A kubectl scenario opens in the page's kubectl build (`kubectl.html`, docs/size.md).
    if hooks::open_kubectl_build_if_needed() {
        return;
    }
    yew::Renderer::<App>::new().render();
}

/// Reports an internal error: to the console, and as a visible panel (`data-testid="error-panel"`)
/// so that the page never just goes dead: the message, the details (version, message, the
/// page's link, which reproduces the state) in a read-only field, and a "Copy details" button.
/// Everything is set as text, never as HTML.
pub fn report_panic(message: &str) {
    let text = format!(
        "rvlab hit an internal error and stopped: {message}\nReload the page to start again."
    );
    web_sys::console::error_1(&text.as_str().into());
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(document) = window.document() else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let details = link::error_details(message, &href);
    let build = || -> Result<(), wasm_bindgen::JsValue> {
        let panel = document.create_element("div")?;
        panel.set_class_name("error-panel");
        panel.set_attribute("role", "alert")?;
        panel.set_attribute("data-testid", "error-panel")?;
        let p = document.create_element("p")?;
        p.set_text_content(Some(&text));
        panel.append_child(&p)?;
        let area = document.create_element("textarea")?;
        area.set_attribute("readonly", "")?;
        area.set_attribute("aria-label", "Error details")?;
        area.set_attribute("rows", "4")?;
        area.set_text_content(Some(&details));
        panel.append_child(&area)?;
        let button = document.create_element("button")?;
        button.set_attribute("type", "button")?;
        button.set_text_content(Some("Copy details"));
        let area_ref = area.clone();
        let on_click = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Ok(a) =
                wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlTextAreaElement>(area_ref.clone())
            {
                a.select();
            }
            hooks::copy_text(&details, |_| {});
        });
        button.add_event_listener_with_callback(
            "click",
            wasm_bindgen::JsCast::unchecked_ref(on_click.as_ref()),
        )?;
        on_click.forget();
        panel.append_child(&button)?;
        body.append_child(&panel)?;
        Ok(())
    };
    let _ = build();
}

/// The first state with its Live view (`hooks::live::initial`), in the kubectl build.
#[cfg(feature = "live")]
fn with_live((state, flags): (state::AppState, link::Flags)) -> (state::AppState, link::Flags) {
    hooks::live::initial(state, flags)
}

/// The first state as it is: index.html's build has no Live view.
#[cfg(not(feature = "live"))]
#[inline(always)]
fn with_live(first: (state::AppState, link::Flags)) -> (state::AppState, link::Flags) {
    first
}
