//! The scenario editor: a textarea over a highlighted `<pre>` layer, line numbers, and the
//! diagnostics list (a click puts the caret on the problem).

use super::el;
use crate::state::{Action, AppState};
use rvlab_core::lang::{highlight, Diagnostic, Severity};
use std::rc::Rc;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// What the editor shows: narrow, so that stepping through a run never re-renders it (it is
/// rendered by a [`super::RunPart`]).
#[derive(Clone, PartialEq)]
pub struct EditorProps {
    pub source: AttrValue,
    pub diagnostics: Rc<Vec<Diagnostic>>,
    /// The textarea (shared so the diagnostics can move its caret).
    pub textarea: NodeRef,
}

/// Props of [`diagnostics`].
#[derive(Properties, PartialEq)]
pub struct DiagnosticsProps {
    pub source: AttrValue,
    pub diagnostics: Rc<Vec<Diagnostic>>,
    pub run_error: Option<AttrValue>,
    /// A re-run is pending (the text changed since the last parse).
    pub dirty: bool,
    pub textarea: NodeRef,
    /// The link that opens the text in the page's kubectl build, when it needs the kubectl
    /// model this build leaves out (`link::kubectl_link`).
    pub kubectl_page: Option<AttrValue>,
}

/// The most serious diagnostic of each line, by line (a sorted `Vec`, not a map type: each
/// map type costs its own code in the wasm, docs/size.md).
fn line_marks(diagnostics: &[Diagnostic]) -> Vec<(u32, Severity)> {
    let mut marks: Vec<(u32, Severity)> = Vec::new();
    for d in diagnostics {
        let line = d.span.line.max(1);
        match marks.binary_search_by_key(&line, |m| m.0) {
            Ok(i) => {
                if d.severity < marks[i].1 {
                    marks[i].1 = d.severity;
                }
            }
            Err(i) => marks.insert(i, (line, d.severity)),
        }
    }
    marks
}

/// The mark of line `n`, if any.
fn mark_of(marks: &[(u32, Severity)], n: u32) -> Option<Severity> {
    marks
        .binary_search_by_key(&n, |m| m.0)
        .ok()
        .map(|i| marks[i].1)
}

/// The source cut into highlighted pieces (text is always rendered as text).
fn highlighted(src: &str) -> Html {
    let mut out = Vec::new();
    let mut at = 0usize;
    for (span, class) in highlight(src) {
        let (start, end) = (span.start as usize, span.end as usize);
        if start < at {
            continue;
        }
        if let (Some(gap), Some(piece)) = (src.get(at..start), src.get(start..end)) {
            if !gap.is_empty() {
                out.push(html! { {gap.to_string()} });
            }
            out.push(html! { <span class={format!("tok-{}", class.as_str())}>{piece.to_string()}</span> });
            at = end;
        }
    }
    if let Some(rest) = src.get(at..) {
        out.push(html! { {rest.to_string()} });
    }
    out.into_iter().collect()
}

/// The editor.
pub fn editor(props: &EditorProps, dispatch: &UseReducerDispatcher<AppState>) -> Html {
    let oninput: Callback<InputEvent> = super::on_value(dispatch, |v| Some(Action::EditSource(v)));
    let src: &str = &props.source;
    let lines = src.split('\n').count().max(1);
    let marks = line_marks(&props.diagnostics);
    let gutter: Html = (1..=lines as u32)
        .map(|n| {
            let class = match mark_of(&marks, n) {
                Some(Severity::Error) => "ln ln-error",
                Some(Severity::Warning) => "ln ln-warning",
                None => "ln",
            };
            html! { <div class={class}>{n}</div> }
        })
        .collect();
    let bands: Html = marks
        .iter()
        .map(|(line, sev)| {
            let style = format!("top: calc({} * var(--lh) + var(--pad))", line - 1);
            html! { <div class={format!("band band-{}", sev.as_str())} style={style}></div> }
        })
        .collect();
    html! {
        <div class="code">
            <div class="gutter" aria-hidden="true">{gutter}</div>
            <div class="stack">
                {bands}
                <pre class="hl" aria-hidden="true">{highlighted(src)}{"\n"}</pre>
                <textarea
                    ref={props.textarea.clone()}
                    data-testid="editor"
                    aria-label="Scenario text"
                    spellcheck="false"
                    autocomplete="off"
                    autocapitalize="off"
                    wrap="off"
                    rows={(lines + 1).to_string()}
                    value={props.source.clone()}
                    {oninput}
                />
            </div>
        </div>
    }
}

/// Puts the textarea's caret (selection) on a byte range of its text and focuses it.
fn select(textarea: &NodeRef, src: &str, start: usize, end: usize) {
    let Some(area) = textarea.cast::<HtmlTextAreaElement>() else {
        return;
    };
    let utf16 = |i: usize| src.get(..i).map_or(0, |s| s.encode_utf16().count()) as u32;
    let _ = area.focus();
    let _ = area.set_selection_range(utf16(start), utf16(end.max(start)));
}

/// The diagnostics list (a plain function: it is cheap and its text changes with each edit).
pub fn diagnostics(props: &DiagnosticsProps) -> Html {
    let items: Html = props
        .diagnostics
        .iter()
        .map(|d| {
            let onclick = {
                let (textarea, src, span) = (props.textarea.clone(), props.source.clone(), d.span);
                Callback::from(move |_| {
                    select(&textarea, &src, span.start as usize, span.end as usize)
                })
            };
            let sev = d.severity.as_str();
            html! {
                <li class={format!("diag diag-{sev}")}>
                    <button type="button" class="link" data-testid="diagnostic" {onclick}>
                        {el("span", "diag-where", format!("{}:{}", d.span.line, d.span.col))}
                        {el("span", "diag-sev", if d.is_error() { "✖ error" } else { "⚠ warning" })}
                        {el("span", "diag-msg", d.message.clone())}
                    </button>
                    if let Some(expected) = &d.expected {
                        {el("div", "diag-hint", format!("expected {expected}"))}
                    }
                    if let Some(hint) = &d.hint {
                        {el("div", "diag-hint", format!("hint: {hint}"))}
                    }
                </li>
            }
        })
        .collect();
    let has_errors = props.diagnostics.iter().any(Diagnostic::is_error);
    let status = if has_errors {
        el(
            "p",
            "note bad",
            "The text has errors: the timeline still shows the last valid run.",
        )
    } else if props.dirty {
        el("p", "note", "Checking…")
    } else if props.diagnostics.is_empty() && props.run_error.is_none() {
        el("p", "note ok", "✓ No problems.")
    } else {
        html! {}
    };
    html! {
        <div class="diagnostics" data-testid="diagnostics" aria-live="polite">
            {status}
            if let Some(err) = &props.run_error {
                {super::el_id("p", "note bad", "run-error", format!("✖ The scenario cannot run: {err}"))}
            }
            if let Some(href) = &props.kubectl_page {
                <p class="note"><a href={href.clone()} data-testid="open-kubectl">{"Open this scenario in the playground with kubectl ↗"}</a></p>
            }
            <ul>{items}</ul>
        </div>
    }
}

#[cfg(test)]
#[allow(
    clippy::disallowed_types,
    reason = "the sorted Vec is checked against the `BTreeMap` it replaced"
)]
mod tests {
    use super::*;
    use rvlab_core::lang::parse;
    use std::collections::BTreeMap;

    /// What the `BTreeMap` version computed: the most serious diagnostic of each line.
    fn with_a_map(diagnostics: &[Diagnostic]) -> Vec<(u32, Severity)> {
        let mut marks = BTreeMap::new();
        for d in diagnostics {
            let e = marks.entry(d.span.line.max(1)).or_insert(d.severity);
            if d.severity < *e {
                *e = d.severity;
            }
        }
        marks.into_iter().collect()
    }

    #[test]
    fn line_marks_keep_the_most_serious_diagnostic_of_each_line() {
        let text =
            "client a:\n    x = get configmap/x\n    updat x\n    y = 1 +\nexpect nonsense ==\n";
        let diagnostics = parse(text).diagnostics;
        assert!(diagnostics.len() >= 2, "{diagnostics:?}");
        let mut shuffled = diagnostics.clone();
        shuffled.reverse();
        for ds in [diagnostics, shuffled] {
            let marks = line_marks(&ds);
            assert_eq!(marks, with_a_map(&ds));
            for (line, sev) in &marks {
                assert_eq!(mark_of(&marks, *line), Some(*sev));
            }
            assert_eq!(mark_of(&marks, 999), None);
        }
    }
}
