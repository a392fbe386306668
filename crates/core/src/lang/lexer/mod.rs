//! The lexer: text → tokens, with Python-style `Indent` / `Dedent` / `Newline` tokens
//! (docs/scenario-language.md, "Lexical rules").
//!
//! Newlines and indentation are ignored while a bracket is open, so object and array literals
//! may span lines. A line that starts at the indentation of the line that opened the bracket, or
//! less, and does not start with a closing bracket, ends the bracket: it is reported as unclosed
//! (pointing at the opener) and lexing goes on as if it had been closed, so one missing `}` does
//! not swallow the rest of the file.
//!
//! The lexer never fails: every problem is a [`Diagnostic`] and lexing goes on.
//!
//! Literals (strings, numbers, durations) are lexed in [`literals`].

mod literals;

pub(crate) use literals::{backoff_number, BackoffNumberError};

use super::ast::Span;
use super::diagnostic::Diagnostic;
use crate::limits::MAX_NESTING_DEPTH;
use serde_json::Value;

/// Punctuation and operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Punct {
    Colon,
    Assign,
    EqEq,
    NotEq,
    Dot,
    Comma,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Plus,
    Minus,
}

impl Punct {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Punct::Colon => ":",
            Punct::Assign => "=",
            Punct::EqEq => "==",
            Punct::NotEq => "!=",
            Punct::Dot => ".",
            Punct::Comma => ",",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::Plus => "+",
            Punct::Minus => "-",
        }
    }
}

/// A token's kind and value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// An identifier or a keyword (the parser decides by context).
    Word(String),
    /// `RESOURCE/NAME`, unvalidated.
    Ref {
        resource: String,
        resource_span: Span,
        name: String,
        name_span: Span,
    },
    /// The namespace after `REF in`.
    Name(String),
    /// A string literal, escapes decoded.
    Str(String),
    /// A JSON number.
    Num(Value),
    /// A duration in nanoseconds.
    Duration(u64),
    Punct(Punct),
    /// The rest of a `kubectl …` line, raw (a shell command line, `#` comment excluded): the
    /// token after the word `kubectl` at the start of a statement.
    Raw(String),
    /// The end of a logical line.
    Newline,
    Indent,
    Dedent,
    Eof,
}

impl Tok {
    /// How the token is named in diagnostics.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Ref { resource, name, .. } => format!("`{resource}/{name}`"),
            Tok::Name(n) => format!("`{n}`"),
            Tok::Str(_) => "string".into(),
            Tok::Num(_) => "number".into(),
            Tok::Duration(_) => "duration".into(),
            Tok::Raw(_) => "kubectl command line".into(),
            Tok::Punct(p) => format!("`{}`", p.as_str()),
            Tok::Newline => "end of line".into(),
            Tok::Indent => "indentation".into(),
            Tok::Dedent => "end of block".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// The lexer's output.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lexed {
    pub tokens: Vec<Token>,
    pub diagnostics: Vec<Diagnostic>,
    /// The spans of `#` comments (for highlighting).
    pub comments: Vec<Span>,
}

/// Lexes `src`. Never panics; the token list always ends with [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Lexed {
    Lexer::new(src).run()
}

/// An open bracket.
struct Open {
    ch: char,
    span: Span,
    /// The indentation of the line the bracket was opened on.
    line_indent: u32,
}

#[derive(Clone, Copy)]
struct Mark {
    pos: usize,
    line: u32,
    col: u32,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
    out: Lexed,
    indents: Vec<u32>,
    brackets: Vec<Open>,
    line_indent: u32,
    line_has_tokens: bool,
    at_line_start: bool,
    expect_namespace: bool,
}

/// Characters that may appear in an object name or namespace as the lexer scans it (validation
/// comes later, so `My_Config` is one token with a precise diagnostic).
pub(crate) fn is_name_char(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            ':' | ',' | '=' | '#' | '(' | ')' | '[' | ']' | '{' | '}' | '"'
        )
}

fn closer_of(open: char) -> char {
    match open {
        '{' => '}',
        '[' => ']',
        _ => ')',
    }
}

fn opener_of(close: char) -> char {
    match close {
        '}' => '{',
        ']' => '[',
        _ => '(',
    }
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
            out: Lexed::default(),
            indents: vec![0],
            brackets: Vec::new(),
            line_indent: 0,
            line_has_tokens: false,
            at_line_start: true,
            expect_namespace: false,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src.get(self.pos..).and_then(|s| s.chars().nth(n))
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            line: self.line,
            col: self.col,
        }
    }

    fn span_from(&self, m: Mark) -> Span {
        Span {
            start: m.pos as u32,
            end: self.pos as u32,
            line: m.line,
            col: m.col,
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    fn push(&mut self, tok: Tok, span: Span) {
        let after_ref = matches!(tok, Tok::Word(ref w) if w == "in")
            && matches!(
                self.out.tokens.last(),
                Some(Token {
                    tok: Tok::Ref { .. },
                    ..
                })
            );
        self.expect_namespace = after_ref;
        self.out.tokens.push(Token { tok, span });
        self.line_has_tokens = true;
    }

    fn push_layout(&mut self, tok: Tok, span: Span) {
        self.out.tokens.push(Token { tok, span });
    }

    fn end_logical_line(&mut self, span: Span) {
        if self.line_has_tokens {
            self.push_layout(Tok::Newline, span);
            self.line_has_tokens = false;
        }
        self.expect_namespace = false;
    }

    /// Reports a bracket left open; `why` says where it was found to end.
    fn report_unclosed(&mut self, open: &Open, why: &str) {
        let close = closer_of(open.ch);
        self.error(
            Diagnostic::error(open.span, format!("unclosed `{}`", open.ch))
                .with_expected(format!("`{close}`"))
                .with_hint(format!("close it with `{close}`{why}")),
        );
    }

    fn run(mut self) -> Lexed {
        loop {
            if self.at_line_start {
                self.at_line_start = false;
                self.start_line();
            }
            // Whitespace inside a line.
            while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
                self.bump();
            }
            let Some(c) = self.peek() else { break };
            if self.expect_namespace && c != '\n' && c != '#' {
                self.expect_namespace = false;
                if is_name_char(c) {
                    let m = self.mark();
                    while self.peek().is_some_and(is_name_char) {
                        self.bump();
                    }
                    let span = self.span_from(m);
                    let text = self.src[m.pos..self.pos].to_string();
                    self.push(Tok::Name(text), span);
                    continue;
                }
            }
            let m = self.mark();
            match c {
                '\n' => {
                    self.bump();
                    if self.brackets.is_empty() {
                        let span = self.span_from(m);
                        self.end_logical_line(span);
                    }
                    self.at_line_start = true;
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                    let span = self.span_from(m);
                    self.out.comments.push(span);
                }
                '"' => self.string(),
                '\'' => self.single_quoted(),
                '0'..='9' => self.number(),
                'A'..='Z' | 'a'..='z' | '_' => self.word(),
                '{' | '[' | '(' => {
                    self.bump();
                    let span = self.span_from(m);
                    if self.brackets.len() == MAX_NESTING_DEPTH {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!(
                                    "brackets are nested too deeply (the limit is {MAX_NESTING_DEPTH})"
                                ),
                            )
                            .with_hint("flatten the literal or build it in steps"),
                        );
                    }
                    self.brackets.push(Open {
                        ch: c,
                        span,
                        line_indent: self.line_indent,
                    });
                    let p = match c {
                        '{' => Punct::LBrace,
                        '[' => Punct::LBracket,
                        _ => Punct::LParen,
                    };
                    self.push(Tok::Punct(p), span);
                }
                '}' | ']' | ')' => {
                    self.bump();
                    let span = self.span_from(m);
                    self.close_bracket(c, span);
                }
                _ => {
                    self.bump();
                    let p = match c {
                        ':' => Some(Punct::Colon),
                        ',' => Some(Punct::Comma),
                        '.' => Some(Punct::Dot),
                        '+' => Some(Punct::Plus),
                        '-' => Some(Punct::Minus),
                        '=' if self.peek() == Some('=') => {
                            self.bump();
                            Some(Punct::EqEq)
                        }
                        '=' => Some(Punct::Assign),
                        '!' if self.peek() == Some('=') => {
                            self.bump();
                            Some(Punct::NotEq)
                        }
                        _ => None,
                    };
                    let span = self.span_from(m);
                    match p {
                        Some(p) => self.push(Tok::Punct(p), span),
                        None => {
                            let mut d = Diagnostic::error(
                                span,
                                format!("unexpected character `{}`", c.escape_debug()),
                            );
                            if c == '/' {
                                d = d.with_hint(
                                    "an object reference is RESOURCE/NAME with no spaces, e.g. `configmap/my-config`",
                                );
                            }
                            self.error(d);
                        }
                    }
                }
            }
        }
        // End of file.
        let m = self.mark();
        let end = self.span_from(m);
        let open: Vec<Open> = std::mem::take(&mut self.brackets);
        for o in open.iter().rev() {
            self.report_unclosed(o, " before the end of the file");
        }
        self.end_logical_line(end);
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push_layout(Tok::Dedent, end);
        }
        self.push_layout(Tok::Eof, end);
        self.out
    }

    /// At the start of a physical line: measure the indentation and emit layout tokens.
    fn start_line(&mut self) {
        let m = self.mark();
        let mut width: u32 = 0;
        let mut tab: Option<Span> = None;
        loop {
            match self.peek() {
                Some(' ') => width += 1,
                Some('\t') => {
                    if tab.is_none() {
                        let t = self.mark();
                        self.bump();
                        tab = Some(self.span_from(t));
                        width += 4;
                        continue;
                    }
                    width += 4;
                }
                _ => break,
            }
            self.bump();
        }
        // Blank and comment-only lines do not count.
        if matches!(self.peek(), None | Some('\n' | '\r' | '#')) {
            return;
        }
        if let Some(span) = tab {
            self.error(
                Diagnostic::error(span, "tabs are not allowed for indentation; use spaces")
                    .with_hint("indent with spaces only (4 per level is the convention)"),
            );
        }
        if let Some(first) = self.brackets.first() {
            if width > first.line_indent || !looks_like_statement(self.rest()) {
                return; // a continuation line of a multi-line literal
            }
            let open: Vec<Open> = std::mem::take(&mut self.brackets);
            let why = format!("; line {} starts a new statement", self.line);
            for o in open.iter().rev() {
                self.report_unclosed(o, &why);
            }
            let here = self.mark();
            let span = self.span_from(here);
            self.end_logical_line(span);
        }
        let span = self.span_from(m);
        let top = self.indents.last().copied().unwrap_or(0);
        if width > top {
            self.indents.push(width);
            if self.indents.len() == MAX_NESTING_DEPTH + 2 {
                self.error(Diagnostic::error(
                    span,
                    format!("blocks are nested too deeply (the limit is {MAX_NESTING_DEPTH})"),
                ));
            }
            self.push_layout(Tok::Indent, span);
        } else if width < top {
            let mut popped = 0usize;
            let mut last_popped = top;
            while self.indents.len() > 1 && self.indents.last().is_some_and(|&l| l > width) {
                last_popped = self.indents.pop().unwrap_or(0);
                popped += 1;
            }
            let outer = self.indents.last().copied().unwrap_or(0);
            if outer < width {
                self.error(
                    Diagnostic::error(
                        span,
                        "this line's indentation does not match any enclosing block",
                    )
                    .with_hint(format!(
                        "indent it by {last_popped} spaces to stay in the block, or by {outer} to leave it"
                    )),
                );
                // Recover: the line continues the block it was dedented from.
                self.indents.push(width);
                popped = popped.saturating_sub(1);
            }
            for _ in 0..popped {
                self.push_layout(Tok::Dedent, span);
            }
        }
        self.line_indent = width;
    }

    fn close_bracket(&mut self, c: char, span: Span) {
        let open = opener_of(c);
        let p = match c {
            '}' => Punct::RBrace,
            ']' => Punct::RBracket,
            _ => Punct::RParen,
        };
        if self.brackets.last().is_some_and(|o| o.ch == open) {
            self.brackets.pop();
            self.push(Tok::Punct(p), span);
        } else if self.brackets.iter().any(|o| o.ch == open) {
            while let Some(o) = self.brackets.pop() {
                if o.ch == open {
                    break;
                }
                self.report_unclosed(&o, &format!(" before this `{c}`"));
            }
            self.push(Tok::Punct(p), span);
        } else if let Some(o) = self.brackets.pop() {
            // `[1, 2)`: one error, and the bracket counts as closed.
            let close = closer_of(o.ch);
            self.error(
                Diagnostic::error(span, format!("mismatched `{c}`"))
                    .with_expected(format!("`{close}`"))
                    .with_hint(format!(
                        "the `{}` opened at {}:{} is closed by `{close}`",
                        o.ch, o.span.line, o.span.col
                    )),
            );
            let p = match close {
                '}' => Punct::RBrace,
                ']' => Punct::RBracket,
                _ => Punct::RParen,
            };
            self.push(Tok::Punct(p), span);
        } else {
            self.error(
                Diagnostic::error(span, format!("unmatched `{c}`"))
                    .with_hint(format!("there is no `{open}` open here; remove it")),
            );
        }
    }

    fn word(&mut self) {
        let m = self.mark();
        let rest = self.rest();
        let run = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(rest.len());
        if rest[run..].starts_with('/') {
            // An object reference RESOURCE/NAME.
            for _ in 0..run {
                self.bump();
            }
            let resource_span = self.span_from(m);
            let resource = rest[..run].to_string();
            self.bump(); // '/'
            let nm = self.mark();
            while self.peek().is_some_and(is_name_char) {
                self.bump();
            }
            let name_span = self.span_from(nm);
            let name = self.src[nm.pos..self.pos].to_string();
            let span = self.span_from(m);
            self.push(
                Tok::Ref {
                    resource,
                    resource_span,
                    name,
                    name_span,
                },
                span,
            );
            return;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        let span = self.span_from(m);
        let text = self.src[m.pos..self.pos].to_string();
        let first = !self.line_has_tokens && self.brackets.is_empty();
        let kubectl = first && text == "kubectl";
        self.push(Tok::Word(text), span);
        if kubectl {
            self.kubectl_line();
        }
    }

    /// After `kubectl` at the start of a statement: the rest of the line is one [`Tok::Raw`]
    /// (up to a `#` comment, as the shell reads it), unless `kubectl` is a variable being
    /// assigned (`kubectl = …`, `kubectl.x = …`, `kubectl[0] = …`).
    fn kubectl_line(&mut self) {
        let rest = self.rest();
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let after = line.trim_start_matches([' ', '\t']);
        if (after.starts_with('=') && !after.starts_with("=="))
            || after.starts_with('.')
            || after.starts_with('[')
            || !(after.is_empty() || line.starts_with([' ', '\t']))
        {
            return;
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
        let m = self.mark();
        let end = crate::kubectl::cmdline::comment_start(after);
        let text = after[..end].trim_end_matches([' ', '\t', '\r']);
        for _ in text.chars() {
            self.bump();
        }
        let span = self.span_from(m);
        self.push(Tok::Raw(text.to_string()), span);
    }
}

/// True when a line (from its first non-blank character) starts like a statement: a keyword
/// (other than a literal), or a variable being assigned (`x =`, `x.a =`, `x[0] =`). Used to end
/// a bracket left open on an earlier line; values and `key: value` lines inside a literal never
/// look like this.
fn looks_like_statement(line: &str) -> bool {
    let word_len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let word = &line[..word_len];
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    if (super::keywords::is_reserved(word) || word == "kubectl")
        && !matches!(word, "true" | "false" | "null")
    {
        return true;
    }
    let rest = line[word_len..].trim_start_matches([' ', '\t']);
    (rest.starts_with('=') && !rest.starts_with("=="))
        || rest.starts_with('.')
        || rest.starts_with('[')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).tokens.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn blocks_give_indent_and_dedent() {
        let toks = kinds("client a:\n    x = 1\ny");
        assert!(toks.contains(&Tok::Indent));
        assert!(toks.contains(&Tok::Dedent));
        assert_eq!(toks.last(), Some(&Tok::Eof));
    }

    #[test]
    fn references_and_namespaces() {
        let toks = kinds("get configmap/my-config in team-a");
        assert!(
            matches!(&toks[1], Tok::Ref { resource, name, .. } if resource == "configmap" && name == "my-config")
        );
        assert_eq!(toks[3], Tok::Name("team-a".into()));
    }

    #[test]
    fn an_unclosed_bracket_ends_at_the_next_statement() {
        let l = lex("client a:\n    x = {\n    \"k\": 1,\n    }\n    y = [1\n    update x\n");
        assert_eq!(l.diagnostics.len(), 1, "{:?}", l.diagnostics);
        assert_eq!(l.diagnostics[0].message, "unclosed `[`");
        assert_eq!(l.diagnostics[0].span.line, 5);
    }

    #[test]
    fn a_kubectl_line_is_one_raw_token() {
        let toks = kinds("kubectl get cm x -o jsonpath='{.a}' # note\nkubectl = 1\nkubectl\n");
        assert_eq!(toks[0], Tok::Word("kubectl".into()));
        assert_eq!(toks[1], Tok::Raw("get cm x -o jsonpath='{.a}'".into()));
        assert_eq!(toks[2], Tok::Newline);
        assert_eq!(toks[4], Tok::Punct(Punct::Assign));
        assert_eq!(toks[8], Tok::Raw(String::new()));
        let l = lex("kubectl get cm '#x' # c");
        assert_eq!(l.comments.len(), 1);
        assert_eq!(l.tokens[1].tok, Tok::Raw("get cm '#x'".into()));
        assert_eq!(
            (
                l.tokens[1].span.start,
                l.tokens[1].span.end,
                l.tokens[1].span.col
            ),
            (8, 19, 9)
        );
        // Not at the start of a statement: a word.
        assert_eq!(kinds("x = kubectl get")[2], Tok::Word("kubectl".into()));
    }

    #[test]
    fn brackets_span_lines() {
        let toks = kinds("x = {\n  \"a\": 1,\n}\n");
        assert!(!toks.contains(&Tok::Indent));
        assert_eq!(toks.iter().filter(|t| **t == Tok::Newline).count(), 1);
    }
}
