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
    for (i, t) in lexed.tokens.iter().enumerate() {
        let next = lexed.tokens.get(i + 1).map(|n| &n.tok);
        if let Tok::Raw(text) = &t.tok {
            // Without the model the line is an error anyway, and its pieces' reader (the
            // command line's shell words) would be linked for the highlighting alone.
            if crate::kubectl::IN_BUILD {
                kubectl_line(text, t.span, &mut out);
            }
            (prev2, prev) = (prev, Some(&t.tok));
            continue;
        }
        // `kubectl LINE`, and `file "NAME"` at the start of a statement.
        let statement = matches!(&t.tok, Tok::Word(w)
            if (w == "kubectl" && matches!(next, Some(Tok::Raw(_))))
                || (w == "file" && matches!(next, Some(Tok::Str(_)))
                    && !matches!(prev, Some(Tok::Word(_) | Tok::Punct(_) | Tok::Ref { .. } | Tok::Str(_) | Tok::Num(_)))));
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
                    || statement
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
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof | Tok::Raw(_) => None,
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

/// The pieces of a kubectl command line (the text after `kubectl`, at `span`): the command
/// and flags as keywords, quoted words and file names as strings, kinds and names as
/// references, flag values as identifiers, `>` as punctuation.
fn kubectl_line(text: &str, span: Span, out: &mut Vec<(Span, TokenClass)>) {
    let (words, problem) = crate::kubectl::cmdline::split(text);
    let at = |a: usize, b: usize| {
        let before = text.get(..a).map_or(0, |t| t.chars().count()) as u32;
        Span {
            start: span.start + a as u32,
            end: span.start + b as u32,
            line: span.line,
            col: span.col + before,
        }
    };
    let mut verb_seen = false;
    let mut after_redirect = false;
    let mut flag_value = false;
    for w in &words {
        let class = if w.redirect {
            TokenClass::Punctuation
        } else if after_redirect || (w.quoted && !w.text.starts_with('-')) {
            TokenClass::String
        } else if w.text.starts_with('-') && w.text.len() > 1 {
            TokenClass::Keyword
        } else if flag_value {
            TokenClass::Identifier
        } else if !verb_seen {
            verb_seen = true;
            TokenClass::Keyword
        } else {
            TokenClass::Reference
        };
        after_redirect = w.redirect;
        // A separate value follows `-o`, `-n`, `--type`… (a flag word without `=` or value).
        flag_value = !w.redirect
            && (w.text.len() == 2 && w.text.starts_with('-')
                || w.text.starts_with("--")
                    && !w.text.contains('=')
                    && !matches!(
                        w.text.as_str(),
                        "--server-side" | "--force-conflicts" | "--overwrite" | "--"
                    ));
        if w.end > w.start {
            out.push((at(w.start, w.end), class));
        }
    }
    if let Some(p) = problem {
        let quote = text
            .get(p.start..)
            .is_some_and(|r| r.starts_with(['\'', '"']));
        let from = words.last().map_or(0, |w| w.end).max(p.start);
        if quote && from < text.len() {
            out.push((at(from, text.len()), TokenClass::String));
        }
    }
}
