//! The parser: tokens → [`Scenario`] plus the `Drafts` the checks need, reporting every
//! syntax diagnostic at once.
//!
//! Recursive descent over the lexer's tokens. A statement that does not parse is reported and
//! skipped to the end of its line, so the statements after it are still parsed and checked; an
//! error inside a block header still parses the block. [`super::parse()`] runs the semantic
//! checks on whatever parsed.
//!
//! This file holds the parser's state, token access and error recovery; one file per area of
//! the grammar: [`top`] (the file and its top-level lines), [`objects`] (references and setup
//! objects), [`expr`] (expressions and paths), [`client`] (client blocks and their statements),
//! [`retry`] (`retry on conflict` and its policies), [`expect`] (expectations), [`kubectl`]
//! (`kubectl …` statements and `file` statements and setup files).

mod client;
mod expect;
mod expr;
mod kubectl;
mod objects;
mod retry;
mod top;

use super::ast::*;
use super::diagnostic::Diagnostic;
use super::drafts::Drafts;
use super::lexer::{Lexed, Punct, Tok, Token};

/// Parses the lexer's tokens: the scenario (possibly partial), the drafts for the checks, and the
/// lexer's and the parser's diagnostics (unsorted).
pub(crate) fn parse_tokens(src: &str, lexed: Lexed) -> (Scenario, Drafts, Vec<Diagnostic>) {
    let mut p = Parser::new(src, lexed.tokens);
    p.lex_errors = lexed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span.start)
        .collect();
    p.diags = lexed.diagnostics;
    p.file();
    (p.scenario, p.drafts, p.diags)
}

/// A parse failure that has already been reported.
struct Fail;
type PResult<T> = Result<T, Fail>;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    diags: Vec<Diagnostic>,
    lex_errors: Vec<u32>,
    stmt_start: u32,
    last_end: u32,
    scenario: Scenario,
    drafts: Drafts,
    title_span: Option<Span>,
    about_span: Option<Span>,
    revision: u64,
    body_clean: bool,
}

fn join(a: Span, b_end: u32) -> Span {
    Span {
        end: b_end.max(a.start),
        ..a
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, mut toks: Vec<Token>) -> Self {
        if toks.is_empty() {
            toks.push(Token {
                tok: Tok::Eof,
                span: Span::default(),
            });
        }
        Parser {
            src,
            toks,
            i: 0,
            diags: Vec::new(),
            lex_errors: Vec::new(),
            stmt_start: 0,
            last_end: 0,
            scenario: Scenario::default(),
            drafts: Drafts {
                clients_complete: true,
                ..Drafts::default()
            },
            title_span: None,
            about_span: None,
            revision: 0,
            body_clean: true,
        }
    }

    // ----- token access -------------------------------------------------------------------

    fn tok_at(&self, n: usize) -> &Token {
        let last = self.toks.len() - 1;
        &self.toks[(self.i + n).min(last)]
    }

    fn peek(&self) -> &Tok {
        &self.tok_at(0).tok
    }

    fn peek_n(&self, n: usize) -> &Tok {
        &self.tok_at(n).tok
    }

    fn span(&self) -> Span {
        self.tok_at(0).span
    }

    fn bump(&mut self) -> Token {
        let t = self.tok_at(0).clone();
        self.advance();
        t
    }

    /// Moves past the current token: `bump` without the copy of it (callers that drop the
    /// token would each clone and drop it; docs/size.md).
    fn advance(&mut self) {
        let t = self.tok_at(0);
        if !matches!(t.tok, Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof) {
            self.last_end = t.span.end;
        }
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
    }

    fn at_punct(&self, p: Punct) -> bool {
        *self.peek() == Tok::Punct(p)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let at = self.at_punct(p);
        if at {
            self.advance();
        }
        at
    }

    fn at_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let at = self.at_word(w);
        if at {
            self.advance();
        }
        at
    }

    fn at_eol(&self) -> bool {
        matches!(self.peek(), Tok::Newline | Tok::Eof)
    }

    // ----- diagnostics --------------------------------------------------------------------

    /// Reports a parse error, unless the lexer already reported an error in this statement
    /// (one error per broken line is enough).
    fn report(&mut self, d: Diagnostic) {
        let lo = self.stmt_start;
        let hi = d.span.end.max(d.span.start);
        if d.is_error() && self.lex_errors.iter().any(|&p| p >= lo && p <= hi) {
            return;
        }
        self.body_clean &= !d.is_error();
        self.diags.push(d);
    }

    fn fail(&mut self, d: Diagnostic) -> Fail {
        self.report(d);
        Fail
    }

    /// "unexpected X", expected `expected`.
    fn unexpected(&mut self, expected: &str) -> Fail {
        let t = self.tok_at(0).clone();
        let d =
            Diagnostic::error(t.span, unexpected_msg(&t.tok)).with_expected(expected.to_string());
        self.fail(d)
    }

    fn expect_punct(&mut self, p: Punct) -> PResult<Span> {
        if self.at_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{}`", p.as_str())))
        }
    }

    fn expect_word(&mut self, w: &str) -> PResult<Span> {
        if self.at_word(w) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{w}`")))
        }
    }

    fn expect_eol(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => Err(self.unexpected("end of line")),
        }
    }

    /// Skips the rest of a broken line.
    fn skip_line(&mut self) {
        while !matches!(
            self.peek(),
            Tok::Newline | Tok::Eof | Tok::Indent | Tok::Dedent
        ) {
            self.advance();
        }
        if matches!(self.peek(), Tok::Newline) {
            self.advance();
        }
    }

    /// Skips an indented block (at its `Indent`), nested blocks included.
    fn skip_block(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Indent => depth += 1,
                Tok::Dedent => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.advance();
                        return;
                    }
                }
                _ => {}
            }
            self.advance();
        }
    }

    fn text(&self, span: Span) -> String {
        self.src
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
            .trim()
            .to_string()
    }

    /// The end of a block header: `:` then the end of the line. A missing `:` before an
    /// indented block is reported and the block is parsed anyway.
    fn block_colon(&mut self) -> PResult<()> {
        if self.eat_punct(Punct::Colon) {
            return self.expect_eol();
        }
        if matches!(self.peek(), Tok::Newline) && matches!(self.peek_n(1), Tok::Indent) {
            let span = self.span();
            self.report(
                Diagnostic::error(span, "missing `:` at the end of the block header")
                    .with_expected("`:`")
                    .with_hint("a line that opens an indented block ends with `:`"),
            );
            self.advance();
            return Ok(());
        }
        Err(self.unexpected("`:`"))
    }

    /// Parses the items of an indented block (the `Indent` is the current token) until its
    /// `Dedent`. Lines indented deeper than the block are reported and parsed as its items.
    fn block<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<Option<T>>) -> Vec<T> {
        let mut out = Vec::new();
        if matches!(self.peek(), Tok::Indent) {
            self.advance();
        }
        let mut extra = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Dedent => {
                    self.advance();
                    if extra == 0 {
                        break;
                    }
                    extra -= 1;
                }
                Tok::Newline => {
                    self.advance();
                }
                Tok::Indent => {
                    let span = self.span();
                    self.stmt_start = span.start;
                    self.report(
                        Diagnostic::error(span, "unexpected indentation")
                            .with_hint("the lines of a block are all indented by the same amount"),
                    );
                    self.advance();
                    extra += 1;
                }
                _ => {
                    self.stmt_start = self.span().start;
                    match item(self) {
                        Ok(Some(x)) => out.push(x),
                        Ok(None) => {}
                        Err(Fail) => {
                            self.body_clean = false;
                            self.skip_line();
                            // A broken block header: parse its block as part of this one,
                            // without a second error for the indentation.
                            if matches!(self.peek(), Tok::Indent) {
                                self.advance();
                                extra += 1;
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// `unexpected TOKEN`: one formatting site for the parser's many (docs/size.md).
fn unexpected_msg(tok: &Tok) -> String {
    format!("unexpected {}", tok.describe())
}
