//! The lexer: text → tokens, with Python-style `Indent` / `Dedent` / `Newline` tokens
//! (scenario-language.md §2).
//!
//! Newlines and indentation are ignored while a bracket is open, so object and array literals
//! may span lines. A line that starts at the indentation of the line that opened the bracket, or
//! less, and does not start with a closing bracket, ends the bracket: it is reported as unclosed
//! (pointing at the opener) and lexing goes on as if it had been closed, so one missing `}` does
//! not swallow the rest of the file.
//!
//! The lexer never fails: every problem is a [`Diagnostic`] and lexing goes on.

use super::ast::Span;
use super::diagnostic::Diagnostic;
use crate::limits::{MAX_DURATION_NANOS, MAX_NESTING_DEPTH, MAX_NUMBER_CHARS, MAX_STRING_BYTES};
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
        self.push(Tok::Word(text), span);
    }

    fn number(&mut self) {
        let m = self.mark();
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let digit_after = match self.peek_at(1) {
                Some('+' | '-') => self.peek_at(2).is_some_and(|c| c.is_ascii_digit()),
                Some(c) => c.is_ascii_digit(),
                None => false,
            };
            if digit_after {
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
            }
        }
        let text = &self.src[m.pos..self.pos];
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == 'µ')
        {
            let um = self.mark();
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == 'µ')
            {
                self.bump();
            }
            let unit = &self.src[um.pos..self.pos];
            let span = self.span_from(m);
            let per: Option<u64> = match unit {
                "ns" => Some(1),
                "us" | "µs" => Some(1_000),
                "ms" => Some(1_000_000),
                "s" => Some(1_000_000_000),
                "m" => Some(60_000_000_000),
                "h" => Some(3_600_000_000_000),
                _ => None,
            };
            let Some(per) = per else {
                let unit_span = self.span_from(um);
                self.error(
                    Diagnostic::error(unit_span, format!("unknown duration unit `{unit}`"))
                        .with_hint(
                        "durations are written like `10ms` or `1.5s`; units: ns, us, ms, s, m, h",
                    ),
                );
                self.push(Tok::Duration(0), span);
                return;
            };
            let nanos = duration_nanos(text, per).filter(|&n| n <= MAX_DURATION_NANOS);
            match nanos {
                Some(n) => self.push(Tok::Duration(n), span),
                None => {
                    self.error(Diagnostic::error(
                        span,
                        "duration is too long (the limit is 24h)".to_string(),
                    ));
                    self.push(Tok::Duration(0), span);
                }
            }
            return;
        }
        let span = self.span_from(m);
        if text.chars().count() > MAX_NUMBER_CHARS {
            self.error(Diagnostic::error(
                span,
                format!("number is too long (the limit is {MAX_NUMBER_CHARS} characters)"),
            ));
            self.push(Tok::Num(Value::from(0)), span);
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Number(_)) => self.push(Tok::Num(v), span),
            _ => {
                let mut d = Diagnostic::error(span, format!("invalid number `{text}`"));
                if text.len() > 1 && text.starts_with('0') && !text.starts_with("0.") {
                    d = d.with_hint("numbers are JSON numbers: no leading zeros");
                } else {
                    d = d.with_hint("the number is out of range");
                }
                self.error(d);
                self.push(Tok::Num(Value::from(0)), span);
            }
        }
    }

    fn string(&mut self) {
        let m = self.mark();
        if self.rest().starts_with("\"\"\"") {
            self.triple_string(m);
            return;
        }
        self.bump(); // opening quote
        let mut out = String::new();
        let mut too_long = false;
        loop {
            let Some(c) = self.peek() else {
                self.unterminated(m);
                break;
            };
            if c == '\n' {
                self.unterminated(m);
                break;
            }
            self.bump();
            match c {
                '"' => break,
                '\\' => {
                    let em = Mark {
                        pos: self.pos - 1,
                        line: self.line,
                        col: self.col.saturating_sub(1),
                    };
                    match self.peek() {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('/') => out.push('/'),
                        Some('b') => out.push('\u{8}'),
                        Some('f') => out.push('\u{c}'),
                        Some('n') => out.push('\n'),
                        Some('r') => out.push('\r'),
                        Some('t') => out.push('\t'),
                        Some('u') => {
                            self.bump();
                            match self.unicode_escape() {
                                Some(ch) => out.push(ch),
                                None => {
                                    let span = self.span_from(em);
                                    self.error(
                                        Diagnostic::error(span, "invalid unicode escape")
                                            .with_hint("write \\uXXXX with four hex digits (a surrogate pair for characters beyond U+FFFF)"),
                                    );
                                    out.push('\u{fffd}');
                                }
                            }
                            continue;
                        }
                        _ => {
                            if self.peek().is_some_and(|c| c != '\n') {
                                self.bump();
                            }
                            let span = self.span_from(em);
                            let shown = self.src[em.pos..self.pos].to_string();
                            self.error(
                                Diagnostic::error(span, format!("invalid escape `{shown}`"))
                                    .with_hint(r#"valid escapes: \" \\ \/ \b \f \n \r \t \uXXXX"#),
                            );
                            continue;
                        }
                    }
                    self.bump();
                }
                c => out.push(c),
            }
            if out.len() > MAX_STRING_BYTES && !too_long {
                too_long = true;
                let span = self.span_from(m);
                self.error(Diagnostic::error(
                    span,
                    format!("string is too long (the limit is {MAX_STRING_BYTES} bytes)"),
                ));
            }
        }
        let span = self.span_from(m);
        self.push(Tok::Str(out), span);
    }

    /// `'text'`: reported (strings use double quotes) and lexed as a string, so the rest of the
    /// line still parses.
    fn single_quoted(&mut self) {
        let m = self.mark();
        self.bump();
        while self.peek().is_some_and(|c| c != '\'' && c != '\n') {
            self.bump();
        }
        let closed = self.peek() == Some('\'');
        if closed {
            self.bump();
        }
        let span = self.span_from(m);
        let inner = self.src[m.pos + 1..self.pos - usize::from(closed)].to_string();
        self.error(
            Diagnostic::error(span, "strings use double quotes")
                .with_expected("`\"`")
                .with_hint(format!("write \"{inner}\"")),
        );
        self.push(Tok::Str(inner), span);
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair.
    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.rest().starts_with("\\u") {
                self.bump();
                self.bump();
                let lo = self.hex4()?;
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return char::from_u32(c);
                }
            }
            return None;
        }
        char::from_u32(hi)
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.peek()?.to_digit(16)?;
            self.bump();
            v = v * 16 + d;
        }
        Some(v)
    }

    fn unterminated(&mut self, m: Mark) {
        let span = self.span_from(m);
        self.error(
            Diagnostic::error(span, "unterminated string")
                .with_expected("`\"`")
                .with_hint(
                    "close the string with `\"` on the same line; for text over several lines use \"\"\"…\"\"\"",
                ),
        );
    }

    fn triple_string(&mut self, m: Mark) {
        for _ in 0..3 {
            self.bump();
        }
        let body_start = self.pos;
        let closed = loop {
            if self.rest().starts_with("\"\"\"") {
                break true;
            }
            if self.bump().is_none() {
                break false;
            }
        };
        let raw = &self.src[body_start..self.pos];
        if closed {
            for _ in 0..3 {
                self.bump();
            }
        } else {
            let span = Span {
                end: (m.pos + 3) as u32,
                ..self.span_from(m)
            };
            self.error(
                Diagnostic::error(span, "unterminated triple-quoted string")
                    .with_expected("`\"\"\"`")
                    .with_hint("close it with \"\"\" at the end of the text"),
            );
        }
        let text = dedent(raw);
        let span = self.span_from(m);
        if text.len() > MAX_STRING_BYTES {
            self.error(Diagnostic::error(
                span,
                format!("string is too long (the limit is {MAX_STRING_BYTES} bytes)"),
            ));
        }
        self.push(Tok::Str(text), span);
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
    if super::keywords::is_reserved(word) && !matches!(word, "true" | "false" | "null") {
        return true;
    }
    let rest = line[word_len..].trim_start_matches([' ', '\t']);
    (rest.starts_with('=') && !rest.starts_with("=="))
        || rest.starts_with('.')
        || rest.starts_with('[')
}

/// `text` (digits, maybe a fraction or exponent) times `per` nanoseconds, rounded.
fn duration_nanos(text: &str, per: u64) -> Option<u64> {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u64>().ok()?.checked_mul(per);
    }
    let v = decimal_f64(text)?;
    let n = v * per as f64;
    if !n.is_finite() || n < 0.0 || n > MAX_DURATION_NANOS as f64 {
        return None;
    }
    Some(n.round() as u64)
}

/// The `f64` nearest to `text` (`digits [. digits] [(e|E) [+-] digits]`, as the lexer scans a
/// number), without `f64::from_str`: its correctly-rounded parser carries a ~10 kB table of
/// powers of five that would be most of its cost in the wasm download (docs/size.md).
///
/// Whenever the significant digits fit in 2^53 and the power of ten is at most 10^22 in
/// magnitude (every duration anyone writes), this is exactly `text.parse::<f64>()`: both operands
/// are exact in `f64` and one IEEE multiplication or division rounds correctly, the same fast
/// path the standard library takes. Longer mantissas or larger exponents fall back to a
/// multiplication by `10^e` that can differ from the correctly rounded value by an ulp or so,
/// which moves a duration by at most a nanosecond.
fn decimal_f64(text: &str) -> Option<f64> {
    let (mantissa_text, exp_text) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (int_part, frac_part) = match mantissa_text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa_text, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut exp10: i64 = 0;
    // Zeros after the last nonzero digit seen so far: folded in only when a nonzero digit
    // follows, so trailing zeros never make a mantissa "long".
    let mut pending_zeros: i64 = 0;
    let mut exact = true;
    for (b, in_fraction) in int_part
        .bytes()
        .map(|b| (b, false))
        .chain(frac_part.bytes().map(|b| (b, true)))
    {
        if !b.is_ascii_digit() {
            return None;
        }
        if in_fraction {
            exp10 -= 1;
        }
        let d = u64::from(b - b'0');
        if d == 0 {
            pending_zeros += 1;
            continue;
        }
        let scaled = (0..pending_zeros)
            .try_fold(mantissa, |m, _| m.checked_mul(10))
            .and_then(|m| m.checked_mul(10))
            .and_then(|m| m.checked_add(d));
        match scaled {
            Some(m) if exact => {
                mantissa = m;
                pending_zeros = 0;
            }
            // Out of precision: drop this digit and the rest, keeping their magnitude.
            _ => {
                exact = false;
                exp10 += pending_zeros + 1;
                pending_zeros = 0;
            }
        }
    }
    exp10 += pending_zeros;
    if let Some(exp_text) = exp_text {
        let (negative, digits) = match exp_text.as_bytes().first() {
            Some(b'-') => (true, &exp_text[1..]),
            Some(b'+') => (false, &exp_text[1..]),
            _ => (false, exp_text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Saturate: anything past 10^±100000 is 0 or infinity either way.
        let e = digits
            .bytes()
            .fold(0i64, |e, b| (e * 10 + i64::from(b - b'0')).min(100_000));
        exp10 += if negative { -e } else { e };
    }
    if mantissa == 0 {
        return Some(0.0);
    }
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    const MAX_EXACT: u64 = 1 << 53;
    if exact && mantissa <= MAX_EXACT {
        if (0..=22).contains(&exp10) {
            return Some(mantissa as f64 * POW10[exp10 as usize]);
        }
        if (-22..0).contains(&exp10) {
            return Some(mantissa as f64 / POW10[(-exp10) as usize]);
        }
        // "Disguised" fast path: move surplus powers of ten into the (still exact) mantissa.
        if (23..=22 + 15).contains(&exp10) {
            let shifted = mantissa.checked_mul(10u64.pow((exp10 - 22) as u32));
            if let Some(m) = shifted.filter(|&m| m <= MAX_EXACT) {
                return Some(m as f64 * POW10[22]);
            }
        }
    }
    let e = exp10.clamp(-400, 400) as i32;
    let v = mantissa as f64;
    Some(if e >= 0 {
        v * 10f64.powi(e)
    } else if e >= -300 {
        v / 10f64.powi(-e)
    } else {
        v / 1e300 / 10f64.powi(-e - 300)
    })
}

/// The text of a triple-quoted string: the first line break after the opening quotes and a
/// whitespace-only last line are dropped, and the common indentation of the lines is removed.
fn dedent(raw: &str) -> String {
    let raw = raw
        .strip_prefix("\r\n")
        .or_else(|| raw.strip_prefix('\n'))
        .unwrap_or(raw);
    let mut lines: Vec<&str> = raw.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    if lines.len() > 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                l.get(indent..).unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).tokens.into_iter().map(|t| t.tok).collect()
    }

    /// Up to 15 significant digits and a power of ten within ±22 (the exact region).
    #[test]
    fn decimal_f64_matches_std_on_short_numbers() {
        for text in [
            "0",
            "1",
            "1.5",
            "0.1",
            "0.15",
            "2.675",
            "1e3",
            "1E-3",
            "1.5e+2",
            "0.000001",
            "10.0",
            "1.50000000000000000000000",
            "000123.4500",
            "9007199254740992",
            "1e22",
            "1e23",
            "123e30",
            "4.35",
            "0.3e-5",
            "1.",
            ".5",
            "99999.99999",
        ] {
            assert_eq!(decimal_f64(text), text.parse::<f64>().ok(), "{text}");
        }
        for bad in ["", ".", "e5", "1e", "1e+", "1x", "-1"] {
            assert_eq!(decimal_f64(bad), None, "{bad}");
        }
        proptest::proptest!(proptest::prelude::ProptestConfig::with_cases(256), |(
            int in "[0-9]{0,8}",
            frac in "[0-9]{0,7}",
            exp in proptest::option::of(-15i32..=22),
        )| {
            let mut text = format!("{int}.{frac}");
            if int.is_empty() && frac.is_empty() {
                text = "0".to_string();
            }
            if let Some(e) = exp {
                text.push_str(&format!("e{e}"));
            }
            proptest::prop_assert_eq!(decimal_f64(&text), text.parse::<f64>().ok(), "{}", text);
        });
    }

    #[test]
    fn decimal_f64_stays_close_on_long_numbers() {
        for text in [
            "3.14159265358979323846264338327950288",
            "123456789012345678901234567890",
            "1e-400",
            "1e400",
            "0.0000000000000000000000000001",
            "12345678901234567e-30",
        ] {
            let (ours, std) = (decimal_f64(text).unwrap(), text.parse::<f64>().unwrap());
            assert!(
                ours == std || ((ours - std) / std).abs() < 1e-15,
                "{text}: {ours} vs {std}"
            );
        }
    }

    #[test]
    fn fractional_durations() {
        assert_eq!(duration_nanos("1.5", 1_000_000_000), Some(1_500_000_000));
        assert_eq!(duration_nanos("0.1", 1_000), Some(100));
        assert_eq!(duration_nanos("2.5e-1", 1_000_000), Some(250_000));
        assert_eq!(duration_nanos("1e30", 1), None);
    }

    #[test]
    fn blocks_give_indent_and_dedent() {
        let toks = kinds("client a:\n    x = 1\ny");
        assert!(toks.contains(&Tok::Indent));
        assert!(toks.contains(&Tok::Dedent));
        assert_eq!(toks.last(), Some(&Tok::Eof));
    }

    #[test]
    fn durations_are_nanoseconds() {
        assert_eq!(kinds("10ms")[0], Tok::Duration(10_000_000));
        assert_eq!(kinds("1.5s")[0], Tok::Duration(1_500_000_000));
        assert_eq!(kinds("2us")[0], Tok::Duration(2_000));
        assert_eq!(kinds("1m")[0], Tok::Duration(60_000_000_000));
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
    fn triple_quoted_strings_are_dedented() {
        let toks = kinds("about \"\"\"\n    one\n      two\n    \"\"\"\n");
        assert_eq!(toks[1], Tok::Str("one\n  two".into()));
    }

    #[test]
    fn an_unclosed_bracket_ends_at_the_next_statement() {
        let l = lex("client a:\n    x = {\n    \"k\": 1,\n    }\n    y = [1\n    update x\n");
        assert_eq!(l.diagnostics.len(), 1, "{:?}", l.diagnostics);
        assert_eq!(l.diagnostics[0].message, "unclosed `[`");
        assert_eq!(l.diagnostics[0].span.line, 5);
    }

    #[test]
    fn brackets_span_lines() {
        let toks = kinds("x = {\n  \"a\": 1,\n}\n");
        assert!(!toks.contains(&Tok::Indent));
        assert_eq!(toks.iter().filter(|t| **t == Tok::Newline).count(), 1);
    }
}
