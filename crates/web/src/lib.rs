//! The rvlab playground (Yew). Renders views computed by `rvlab-core`; holds no domain logic.

use yew::prelude::*;

/// The page skeleton: the playground's regions.
#[function_component(App)]
pub fn app() -> Html {
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

/// Installs a panic hook that reports to the console, then renders [`App`] into the body.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("rvlab panicked: {info}").into());
    }));
    yew::Renderer::<App>::new().render();
}
