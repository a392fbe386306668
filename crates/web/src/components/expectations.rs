//! The expectations, checked on the run's final world.

use super::{el, markup};
use rvlab_core::run::ExpectationResult;
use yew::prelude::*;

/// The expectations of the shown run (`None`: no run yet).
pub fn expectations(results: Option<&[ExpectationResult]>) -> Html {
    let Some(results) = results else {
        return markup(
            r#"<section class="panel expectations" data-testid="expectations"></section>"#,
        );
    };
    let items: Html = results
        .iter()
        .map(|e| {
            let (class, word) = if e.holds {
                ("holds", "✓ holds")
            } else {
                ("fails", "✖ fails")
            };
            html! {
                <li class={class}>
                    {el("span", "verdict", word)}{" "}{el("code", "", format!("expect {}", e.text))}
                    {el("div", "muted", e.detail.clone())}
                </li>
            }
        })
        .collect();
    html! {
        <section class="panel expectations" data-testid="expectations" aria-label="Expectations">
            {markup(r#"<h2>Expectations <span class="muted">(at the end of this run)</span></h2>"#)}
            if results.is_empty() { {el("p", "muted", "This scenario has no expect lines.")} }
            <ul>{items}</ul>
        </section>
    }
}
