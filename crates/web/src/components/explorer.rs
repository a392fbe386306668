//! The explorer panel: "Explore all schedules" (run in a Web Worker, see
//! `hooks::explore`), a progress bar against the state budget, Cancel, and the results: per
//! expectation "k of n schedules violate …" with its counterexample, the outcome classes with
//! their counts; a click loads a counterexample or an example into the timeline.

use super::el;
use super::{button, markup, on_click, Dispatch};
use crate::state::explore::{
    ExploreAction, ExploreResult, ExploreState, ExploreStatus, EXPLORE_MAX_STATES,
};
use crate::state::Action;
use yew::prelude::*;

/// `1234567` → `1,234,567` (any integer: a `u64` or an exact [`rvlab_core::count::Count`]).
pub fn thousands(n: &dyn std::fmt::Display) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural(n: &dyn std::fmt::Display, one: &str, many: &str) -> String {
    let digits = thousands(n);
    let word = if digits == "1" { one } else { many };
    format!("{digits} {word}")
}

fn token_label(token: &str) -> String {
    if token.is_empty() {
        "the empty schedule".into()
    } else {
        token.to_string()
    }
}

/// The explorer panel: its job and result (`ex`), whether the text or the seed changed since
/// (`stale`), and whether the text has errors (nothing to explore).
pub fn explorer(d: &Dispatch, ex: &ExploreState, stale: bool, has_errors: bool) -> Html {
    let running = matches!(ex.status, ExploreStatus::Running { .. });
    let stale = !matches!(ex.status, ExploreStatus::Idle) && stale;
    let dispatch = |action: Action| on_click(d, action);
    let progress = match &ex.status {
        ExploreStatus::Running { states, schedules } => Some((*states, schedules.clone(), false)),
        ExploreStatus::Done(r) => Some((r.states, r.schedules.clone(), true)),
        _ => None,
    };
    html! {
        <section class="panel explorer" data-testid="explorer" aria-label="Explorer">
            {markup(r#"<h2>Explorer <span class="muted">(every order of the clients' requests)</span></h2>"#)}
            <div class="buttons">
                {button("explore-button", "", None, running || has_errors,
                    dispatch(Action::Explore(ExploreAction::Start)), "Explore all schedules")}
                if running {
                    {button("explore-cancel", "", None, false, dispatch(Action::Explore(ExploreAction::Cancel)), "Cancel")}
                }
                {super::el_id("span", "muted", "explore-budget", format!("budget: {} states", thousands(&EXPLORE_MAX_STATES)))}
            </div>
            if let Some((states, schedules, done)) = progress {
                <div class="explore-progress" data-testid="explore-progress" role="status"
                    data-states={states.to_string()} data-done={done.to_string()}>
                    if !done {
                        <progress max={EXPLORE_MAX_STATES.to_string()} value={states.min(u64::from(EXPLORE_MAX_STATES)).to_string()}
                            aria-label="States explored, of the budget"></progress>
                    }
                    {el("span", "", format!("{} · {} {}", plural(&states, "state", "states"), plural(&schedules, "schedule", "schedules"),
                        if done { "(done)" } else { "so far…" }))}
                </div>
            }
            if let ExploreStatus::Failed(message) = &ex.status {
                <p class="bad" data-testid="explore-error" role="alert">{message.clone()}</p>
            }
            if let ExploreStatus::Done(result) = &ex.status {
                { results(d, result, stale, ex.job) }
            }
        </section>
    }
}

fn results(d: &Dispatch, r: &ExploreResult, stale: bool, job: u32) -> Html {
    let load = |token: &str| on_click(d, Action::LoadSchedule(token.to_string()));
    let n = plural(&r.schedules, "schedule", "schedules");
    let head = if r.complete {
        format!(
            "Complete: explored {n} ({} distinct states) in {} ms.",
            thousands(&r.states),
            rvlab_core::decimal::fixed((r.ms * 1000.0 + 0.5) as u64, 3, 0)
        )
    } else {
        let why = match r.stopped_by.as_deref() {
            Some("max_states") => format!("the budget of {} states", thousands(&r.max_states)),
            Some("max_depth") => "the depth limit".into(),
            Some(other) => other.to_string(),
            None => "a limit".into(),
        };
        format!("Incomplete: stopped by {why}; the counts cover only the {n} explored.")
    };
    let expectations: Html = r
        .expectations
        .iter()
        .map(|e| {
            let violated = e.violations > 0;
            html! {
                <li class={if violated { "fails" } else { "holds" }} data-testid="explore-violation">
                    if violated {
                        {el("span", "verdict", "✖ ")}
                        {format!("{} of {} violate ", thousands(&e.violations), n)}
                        {el("code", "", format!("expect {}", e.text))}
                        if let Some(c) = &e.counterexample {
                            {" "}
                            {button("load-counterexample", "link", Some("Play this schedule in the timeline".into()), stale, load(c),
                                format!("show counterexample {}", token_label(c)))}
                        }
                    } else {
                        {el("span", "verdict", "✓ ")}{el("code", "", format!("expect {}", e.text))}
                        {format!(" holds in all {n}")}
                    }
                </li>
            }
        })
        .collect();
    let outcomes: Html = r
        .outcomes
        .iter()
        .map(|o| {
            html! {
                <li data-testid="explore-outcome">
                    {el("strong", "", plural(&o.count, "schedule", "schedules"))}{": "}{o.summary.clone()}{" "}
                    {button("load-outcome", "link", Some("Play this schedule in the timeline".into()), stale, load(&o.example),
                        format!("e.g. {}", token_label(&o.example)))}
                </li>
            }
        })
        .collect();
    html! {
        <div class="explore-results" data-testid="explore-results" data-ms={rvlab_core::decimal::fixed((r.ms * 1000.0 + 0.5) as u64, 3, 3)} data-job={job.to_string()}
            data-schedules={r.schedules.to_string()} data-complete={r.complete.to_string()}>
            if stale {
                {markup(concat!(
                    r#"<p class="stale-note" data-testid="explore-stale" role="status">⚠ Stale: the text or "#,
                    "the seed changed since this exploration. Explore again to update.</p>"
                ))}
            }
            <p class={if r.complete { "" } else { "bad" }}>{head}</p>
            if r.expectations.is_empty() { {el("p", "muted", "This scenario has no expect lines.")} }
            <ul class="explore-expectations">{expectations}</ul>
            {el("h3", "", format!("Outcomes ({})", r.outcomes.len()))}
            <ul class="explore-outcomes">{outcomes}</ul>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(&0), "0");
        assert_eq!(thousands(&999), "999");
        assert_eq!(thousands(&1000), "1,000");
        assert_eq!(thousands(&200_000), "200,000");
        assert_eq!(thousands(&1_234_567), "1,234,567");
        let wide = rvlab_core::count::Count::parse("1355345464406015082330").unwrap();
        assert_eq!(thousands(&wide), "1,355,345,464,406,015,082,330");
    }
}
