//! Token classes for the editor's syntax highlighting.

use super::ast::Span;
use super::keywords::{is_reserved, CONTEXTUAL, EXERCISE_HEADERS};
use super::lexer::{lex, Punct, Tok};

/// What a piece of text is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenClass {
    Keyword,
    String,
    Number,
    Comment,
    Identifier,
    /// An object reference `configmap/my-config`, or the namespace after `in`.
    Reference,
    Duration,
    Punctuation,
}

impl TokenClass {
    /// A short CSS-friendly name (`keyword`, `string`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenClass::Keyword => "keyword",
            TokenClass::String => "string",
            TokenClass::Number => "number",
            TokenClass::Comment => "comment",
            TokenClass::Identifier => "identifier",
            TokenClass::Reference => "reference",
            TokenClass::Duration => "duration",
            TokenClass::Punctuation => "punctuation",
        }
    }
}

/// The classified pieces of `src`, in text order, without overlaps. Works on any text, broken
/// or not (it only lexes), and never panics. Text between pieces (spaces, unknown characters)
/// has no class.
pub fn highlight(src: &str) -> Vec<(Span, TokenClass)> {
    let lexed = lex(src);
    let mut out: Vec<(Span, TokenClass)> = Vec::with_capacity(lexed.tokens.len());
    let mut after_dot = false;
    // The previous token was `goal` at the start of a line (so `break` / `fix` is a keyword).
    let mut after_goal = false;
    // The two previous tokens (for the `status` suffix).
    let (mut prev, mut prev2): (Option<&Tok>, Option<&Tok>) = (None, None);
    for t in &lexed.tokens {
        // `status` after a reference (`deployment/web status`, `… in team-a status`) or after
        // `update VAR`: the status subresource.
        let suffix = matches!(&t.tok, Tok::Word(w) if w == "status")
            && (matches!(prev, Some(Tok::Ref { .. } | Tok::Name(_)))
                || (matches!(prev, Some(Tok::Word(_)))
                    && matches!(prev2, Some(Tok::Word(u)) if u == "update" || u == "replace")));
        (prev2, prev) = (prev, Some(&t.tok));
        let header = matches!(&t.tok, Tok::Word(w)
            if t.span.col == 1 && EXERCISE_HEADERS.contains(&w.as_str()));
        let goal_kind = after_goal && matches!(&t.tok, Tok::Word(w) if w == "break" || w == "fix");
        after_goal = header && matches!(&t.tok, Tok::Word(w) if w == "goal");
        let class = match &t.tok {
            Tok::Word(w) => {
                if header
                    || goal_kind
                    || suffix
                    || (!after_dot && (is_reserved(w) || CONTEXTUAL.contains(&w.as_str())))
                {
                    Some(TokenClass::Keyword)
                } else {
                    Some(TokenClass::Identifier)
                }
            }
            Tok::Ref { .. } | Tok::Name(_) => Some(TokenClass::Reference),
            Tok::Str(_) => Some(TokenClass::String),
            Tok::Num(_) => Some(TokenClass::Number),
            Tok::Duration(_) => Some(TokenClass::Duration),
            Tok::Punct(_) => Some(TokenClass::Punctuation),
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof => None,
        };
        after_dot = t.tok == Tok::Punct(Punct::Dot);
        if let Some(c) = class {
            if t.span.end > t.span.start {
                out.push((t.span, c));
            }
        }
    }
    out.extend(
        lexed
            .comments
            .iter()
            .filter(|s| s.end > s.start)
            .map(|s| (*s, TokenClass::Comment)),
    );
    crate::sort::sort_by_key(&mut out, |(s, _)| s.start);
    out
}
