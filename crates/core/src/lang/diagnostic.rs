//! Diagnostics: what the parser says about a text, with a rustc-like rendering.

use super::ast::Span;
use std::fmt::Write as _;

/// How serious a diagnostic is. Only errors stop a scenario from being returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The text is not a valid scenario.
    Error,
    /// The scenario is valid but probably not what was meant.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as rendered.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One message about the text, pointing at a [`Span`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    /// What is wrong, e.g. ``unknown statement `updat` ``.
    pub message: String,
    /// What the parser expected at that place, e.g. `` `:` ``.
    pub expected: Option<String>,
    /// How to fix it, e.g. ``did you mean `update`?``.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            expected: None,
            hint: None,
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// Adds what was expected.
    pub fn with_expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic like rustc does:
    ///
    /// ```text
    /// seed.rvl:7:12: error: `obj` is used before it is assigned in client `alice`
    ///   |
    /// 7 |     update obj
    ///   |            ^^^
    ///   = hint: assign it first, e.g. `obj = get configmap/NAME`
    /// ```
    ///
    /// Columns are 1-based and count characters. Never panics, whatever the span.
    pub fn render(&self, file: &str, src: &str) -> String {
        let line_no = self.span.line.max(1);
        let col = self.span.col.max(1) as usize;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{file}:{line_no}:{col}: {}: {}",
            self.severity.as_str(),
            self.message
        );
        let line = src
            .split('\n')
            .nth(line_no as usize - 1)
            .unwrap_or("")
            .trim_end_matches('\r');
        let shown: String = line
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let line_chars = shown.chars().count();
        // The span's length in characters, cut at the end of its first line.
        let start = self.span.start as usize;
        let end = (self.span.end as usize).max(start);
        let span_chars = src
            .get(start..end.min(src.len()))
            .map(|s| s.split('\n').next().unwrap_or("").chars().count())
            .unwrap_or(0);
        let caret_col = col.min(line_chars + 1);
        let available = (line_chars + 1).saturating_sub(caret_col - 1).max(1);
        let carets = span_chars.clamp(1, available);
        let gutter = line_no.to_string().len();
        let pad = " ".repeat(gutter);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{line_no} | {shown}");
        let _ = write!(
            out,
            "{pad} | {}{}",
            " ".repeat(caret_col - 1),
            "^".repeat(carets)
        );
        if let Some(expected) = &self.expected {
            let _ = write!(out, " expected {expected}");
        }
        out.push('\n');
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "{pad} = hint: {hint}");
        }
        out
    }
}

/// Renders every diagnostic of a file, separated by blank lines.
pub fn render_all(diagnostics: &[Diagnostic], file: &str, src: &str) -> String {
    diagnostics
        .iter()
        .map(|d| d.render(file, src))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The hint for a near miss: did you mean `word`?
pub(crate) fn did_you_mean(word: &str) -> String {
    format!("did you mean `{word}`?")
}
