//! The scenario language (its reference: docs/scenario-language.md): text → [`ast::Scenario`] plus every diagnostic at once.
//!
//! - [`parse()`]: the entry point, returning a [`Parsed`] (the scenario when there is no error,
//!   and all [`Diagnostic`]s in text order);
//! - [`highlight`]: token classes for the editor, on any text;
//! - [`Diagnostic::render`]: `FILE:LINE:COL: error: MESSAGE`, the line, carets and a hint;
//! - the limits the parser enforces are in [`crate::limits`].
//!
//! Inside, one stage after the other, each called only from [`parse()`] here: `lexer` (tokens
//! with Python-style indentation), `parse` (recursive descent with line-level recovery; it
//! hands the checks a `Drafts` besides the AST), `check` (semantic checks: names,
//! revisions, use before assignment, schedule tokens); `keywords` (the reserved words and
//! near-miss suggestions). Beside them: [`ast`] (the tree), `diagnostic` ([`Diagnostic`] and
//! its rendering), `drafts` (what the parser hands the checks).

pub mod ast;
mod check;
pub mod diagnostic;
mod drafts;
mod highlight;
pub mod keywords;
mod lexer;
mod parse;

use crate::limits::{MAX_DIAGNOSTICS, MAX_SOURCE_BYTES};
use ast::{Scenario, Span};
pub use diagnostic::{render_all, Diagnostic, Severity};
pub use highlight::{highlight, TokenClass};

/// The result of [`parse()`]: the scenario when the text has no errors, and every diagnostic
/// (errors and warnings) in text order.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// `Some` exactly when no diagnostic is an error.
    pub scenario: Option<Scenario>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// True when some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses a scenario: lexes, parses and checks it. Never panics, on any text.
pub fn parse(src: &str) -> Parsed {
    if src.len() > MAX_SOURCE_BYTES {
        let d = Diagnostic::error(
            Span {
                start: 0,
                end: 0,
                line: 1,
                col: 1,
            },
            format!(
                "the scenario is too large ({} bytes; the limit is {MAX_SOURCE_BYTES} bytes)",
                src.len()
            ),
        )
        .with_hint("split it into smaller scenarios");
        return Parsed {
            scenario: None,
            diagnostics: vec![d],
        };
    }
    let (scenario, drafts, mut diags) = parse::parse_tokens(src, lexer::lex(src));
    check::check(src, &scenario, &drafts, &mut diags);
    crate::sort::sort_by_key(&mut diags, |d| (d.span.start, d.span.end));
    diags.dedup();
    if diags.len() > MAX_DIAGNOSTICS {
        let last = diags[MAX_DIAGNOSTICS - 1].span;
        diags.truncate(MAX_DIAGNOSTICS);
        diags.push(Diagnostic::error(
            last,
            format!("too many problems; only the first {MAX_DIAGNOSTICS} are shown"),
        ));
    }
    let ok = !diags.iter().any(Diagnostic::is_error);
    Parsed {
        scenario: ok.then_some(scenario),
        diagnostics: diags,
    }
}

/// Whether these diagnostics say the text needs the kubectl model this build leaves out (the
/// page then opens it in its kubectl build; always `false` in a build with the model).
pub fn needs_kubectl_model(diagnostics: &[Diagnostic]) -> bool {
    !crate::kubectl::IN_BUILD
        && diagnostics
            .iter()
            .any(|d| d.message == crate::kubectl::NOT_IN_BUILD)
}
