//! The timeline as a plain table (the table view): one row per step, each with a button that
//! shows that step.

use super::{el, markup, on_click, Dispatch};
use crate::state::{Action, Shown};
use yew::prelude::*;

/// The timeline as a plain table: one row per step (step, client, request, status, narration),
/// each with a button to show that step. Rendered by a [`super::RunPart`], so only
/// when the run or the position changes.
pub fn timeline_table(shown: Option<&Shown>, cursor: usize, dispatch: &Dispatch) -> Html {
    let Some(shown) = shown else {
        return markup(concat!(
            r#"<section class="panel timeline" aria-label="Timeline">"#,
            r#"<p class="note">No run yet: fix the scenario text to see one.</p></section>"#
        ));
    };
    let rows: Html = shown
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let go = on_click(dispatch, Action::Jump(i + 1));
            let current = cursor == i + 1;
            let status = match (&step.status_line, crate::labels::mark_badge(step.mark)) {
                (Some(s), Some((icon, word))) => format!("{s} ({icon} {word})"),
                (Some(s), None) => s.clone(),
                (None, _) => "—".into(),
            };
            let mut narration = step.narration.clone();
            for l in &step.lost_updates {
                narration.push_str(&format!(" ☠ {l}"));
            }
            html! {
                <tr class={format!("{}mark-{}", if current { "current " } else { "" }, step.mark_label)}
                    aria-current={current.then_some("step")}>
                    <th scope="row">
                        <button type="button" class="link" onclick={go}
                            aria-label={format!("Show step {}", step.number)}>{step.number}</button>
                    </th>
                    {el("td", "", step.client.clone())}
                    <td><code title={step.request_line.clone().unwrap_or_default()}>
                        {crate::labels::short_request(step).unwrap_or_else(|| step.statement.clone())}</code></td>
                    {el("td", "status", status)}
                    {el("td", "", narration)}
                </tr>
            }
        })
        .collect();
    html! {
        <section class="panel timeline" aria-label="Timeline (table)">
            {el("h2", "", "Timeline")}
            <div class="scroll">
                <table class="steps-table" data-testid="timeline-table">
                    <caption>{format!("Every step of the run, {} in all; step {} is shown.", shown.steps.len(), cursor)}</caption>
                    <thead><tr>
                        <th scope="col">{"Step"}</th><th scope="col">{"Client"}</th>
                        <th scope="col">{"Request"}</th><th scope="col">{"Status"}</th>
                        <th scope="col">{"Narration"}</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}
