//! The rvlab playground (Yew). Renders views computed by `rvlab-core`; holds no domain logic.
//!
//! Module map:
//! - [`App`]: the page (editor, timeline, controls, inspector);
//! - [`start`]: the entry point used by the `rvlab-web` binary (panic hook + render).

use yew::prelude::*;

/// The page skeleton: the playground's regions.
#[function_component(App)]
pub fn app() -> Html {
    use_effect_with((), |_| mark_interactive());
    html! {
        <main class="app" data-testid="app">
            <header class="topbar"><h1>{ "rvlab" }</h1></header>
            <section data-testid="editor" aria-label="Scenario editor">{ "editor" }</section>
            <section data-testid="timeline" aria-label="Timeline">{ "timeline" }</section>
            <section data-testid="controls" aria-label="Controls">{ "controls" }</section>
            <section data-testid="inspector" aria-label="Inspector">{ "inspector" }</section>
        </main>
    }
}

/// Sets the `rvlab-interactive` performance mark (read by `cargo xtask bench` for the cold
/// load time): called once the first render is in the DOM.
fn mark_interactive() {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("rvlab-interactive");
    }
}

/// Installs the panic hook ([`report_panic`]), then renders [`App`] into the body.
pub fn start() {
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
