//! The narration of the current step, and the visually hidden live region that announces it.

use super::el;
use rvlab_core::view::StepView;
use yew::prelude::*;

/// The narration of the current step (`None` before the first), and why the run stopped when
/// it stopped at the step shown (`stopped`).
pub fn narration(step: Option<&StepView>, stopped: Option<&str>) -> Html {
    let body = match step {
        Some(step) => html! {
            <>
                <p>{el("strong", "", format!("Step {} · {}: ", step.number, step.client))}{step.narration.clone()}</p>
                { for step.lost_updates.iter().map(|l| el("p", "bad", format!("☠ {l}"))) }
                if let Some(f) = &step.finished { {el("p", "muted", f.clone())} }
            </>
        },
        None => el(
            "p",
            "",
            "Nothing has happened yet. Step forward (→), or pick who goes next.",
        ),
    };
    html! {
        <section class="panel narration" data-testid="narration" aria-label="Narration">
            {body}
            if let Some(s) = stopped { {el("p", "bad", s.to_string())} }
        </section>
    }
}

/// A visually hidden live region that announces the current step's narration.
pub fn live_narration(step: Option<&StepView>) -> Html {
    let text = match step {
        Some(step) => format!("Step {}, {}: {}", step.number, step.client, step.narration),
        None => "Step 0: nothing has happened yet.".into(),
    };
    html! {
        <div class="sr-only" aria-live="polite" aria-atomic="true" data-testid="live-narration">{text}</div>
    }
}
