//! The parser: tokens → [`Scenario`], reporting every diagnostic at once.
//!
//! Recursive descent over the lexer's tokens. A statement that does not parse is reported and
//! skipped to the end of its line, so the statements after it are still parsed and checked; an
//! error inside a block header still parses the block. The semantic checks of [`super::check`]
//! run on whatever parsed.

use super::ast::*;
use super::check;
use super::diagnostic::Diagnostic;
use super::keywords::{self, is_reserved, CLIENT_STATEMENTS, EXERCISE_HEADERS, TOP_LEVEL};
use super::lexer::{is_name_char, lex, Punct, Tok, Token};
use super::limits::{
    MAX_DIAGNOSTICS, MAX_INDEX, MAX_NAMESPACE_CHARS, MAX_NAME_CHARS, MAX_NESTING_DEPTH,
    MAX_RETRY_STEPS, MAX_SOURCE_BYTES,
};
use crate::store::{ObjectRef, Resource};
use serde_json::Value;

/// The result of [`parse`]: the scenario when the text has no errors, and every diagnostic
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

/// Parses a scenario. Never panics, on any text.
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
    let lexed = lex(src);
    let mut p = Parser::new(src, lexed.tokens);
    p.lex_errors = lexed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span.start)
        .collect();
    p.diags = lexed.diagnostics;
    p.file();
    let Parser {
        scenario,
        mut diags,
        drafts,
        ..
    } = p;
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

/// What the checks need beyond the AST: where names were written, and which parts parsed cleanly.
#[derive(Debug, Default)]
pub(crate) struct Drafts {
    /// Per client (same order as `Scenario::clients`): the name's span, and whether its body
    /// parsed without errors (use-before-assign is only checked for clean bodies).
    pub clients: Vec<(Span, bool)>,
    /// Clients named by expectations, with the name's span.
    pub expect_clients: Vec<(String, Span)>,
    /// `true` when the client headers all parsed (the letter count is then exact).
    pub clients_complete: bool,
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

    // ----- top level ----------------------------------------------------------------------

    fn file(&mut self) {
        loop {
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Newline | Tok::Dedent => {
                    self.advance();
                }
                Tok::Indent => {
                    let span = self.span();
                    self.stmt_start = span.start;
                    self.report(
                        Diagnostic::error(span, "unexpected indentation")
                            .with_hint("top-level statements start at the beginning of the line; only the lines of a `client` or `object` block are indented"),
                    );
                    self.skip_block();
                }
                _ => {
                    self.stmt_start = self.span().start;
                    if self.top_statement().is_err() {
                        self.skip_line();
                        if matches!(self.peek(), Tok::Indent) {
                            self.skip_block();
                        }
                    }
                }
            }
        }
    }

    fn top_statement(&mut self) -> PResult<()> {
        let t = self.tok_at(0).clone();
        let Tok::Word(w) = &t.tok else {
            return Err(self.fail(
                Diagnostic::error(
                    t.span,
                    format!("expected a top-level statement, found {}", t.tok.describe()),
                )
                .with_hint(
                    "a scenario is made of `title`, `about`, `object`, `client`, `schedule` and `expect` lines",
                ),
            ));
        };
        match w.as_str() {
            "title" | "about" => {
                self.advance();
                let s = self.tok_at(0).clone();
                let Tok::Str(text) = s.tok else {
                    return Err(self.unexpected("a string"));
                };
                self.advance();
                self.expect_eol()?;
                let (slot, seen) = if w == "title" {
                    (&mut self.scenario.title, &mut self.title_span)
                } else {
                    (&mut self.scenario.about, &mut self.about_span)
                };
                if let Some(first) = *seen {
                    let d = Diagnostic::error(t.span, format!("`{w}` is given twice")).with_hint(
                        format!("the first `{w}` is at line {}; keep one", first.line),
                    );
                    self.report(d);
                } else {
                    *slot = Some(text);
                    *seen = Some(t.span);
                }
                Ok(())
            }
            "schedule" => {
                self.advance();
                let s = self.tok_at(0).clone();
                let Tok::Str(token) = s.tok else {
                    return Err(self.unexpected("a schedule string like \"abaabb\""));
                };
                self.advance();
                self.expect_eol()?;
                if let Some((_, first)) = &self.scenario.schedule {
                    let d = Diagnostic::error(t.span, "`schedule` is given twice").with_hint(
                        format!("the first `schedule` is at line {}; keep one", first.line),
                    );
                    self.report(d);
                } else {
                    self.scenario.schedule = Some((token, s.span));
                }
                Ok(())
            }
            "expect" => self.expectation(),
            "object" => self.object(),
            "client" => self.client(),
            w if EXERCISE_HEADERS.contains(&w) => {
                let w = w.to_string();
                self.exercise_line(&t, &w)
            }
            _ => {
                let mut d = Diagnostic::error(t.span, format!("unknown top-level statement `{w}`"));
                if CLIENT_STATEMENTS.contains(&w.as_str())
                    || matches!(self.peek_n(1), Tok::Punct(Punct::Assign | Punct::Dot))
                {
                    d = d.with_hint(
                        "client statements go in an indented block under `client NAME:`",
                    );
                } else if let Some(k) =
                    keywords::closest(w, TOP_LEVEL.iter().chain(EXERCISE_HEADERS).copied())
                {
                    d = d.with_hint(did_you_mean(k));
                } else {
                    d = d.with_hint(
                        "a scenario is made of `title`, `about`, `object`, `client`, `schedule` and `expect` lines",
                    );
                }
                Err(self.fail(d))
            }
        }
    }

    /// An exercise header line (docs/exercises.md), its keyword `w` at token `t`:
    /// `exercise "ID"`, `instructions "…"`, `hint "…"`, `goal break "EXPECTATION"`,
    /// `goal fix`, `editable CLIENT`. Names are checked in `check`.
    fn exercise_line(&mut self, t: &Token, w: &str) -> PResult<()> {
        self.advance();
        let v = self.tok_at(0).clone();
        let mut value_span = v.span;
        let kind = match w {
            "exercise" | "instructions" | "hint" => {
                let Tok::Str(text) = v.tok else {
                    return Err(self.unexpected(if w == "exercise" {
                        "the exercise's id as a string, e.g. \"first-conflict\""
                    } else {
                        "a string"
                    }));
                };
                self.advance();
                match w {
                    "exercise" => {
                        if let Some(problem) = exercise_id_problem(&text) {
                            self.report(Diagnostic::error(v.span, problem).with_hint(
                                "an exercise id is lowercase letters, digits and `-`, e.g. \"first-conflict\"",
                            ));
                        }
                        ExerciseLineKind::Id(text)
                    }
                    "instructions" => ExerciseLineKind::Instructions(text),
                    _ => ExerciseLineKind::Hint(text),
                }
            }
            "goal" => {
                if self.eat_word("fix") {
                    ExerciseLineKind::GoalFix
                } else if self.eat_word("break") {
                    let s = self.tok_at(0).clone();
                    let Tok::Str(text) = s.tok else {
                        return Err(self.unexpected(
                            "the text of an `expect` line as a string, e.g. \"no lost updates\"",
                        ));
                    };
                    self.advance();
                    value_span = s.span;
                    ExerciseLineKind::GoalBreak(text)
                } else {
                    let d = Diagnostic::error(
                        v.span,
                        unexpected_msg(&v.tok),
                    )
                    .with_expected("`break \"EXPECTATION\"` or `fix`")
                    .with_hint(
                        "`goal break \"no lost updates\"`: reach a run in which that expectation fails; `goal fix`: make every schedule satisfy every expectation",
                    );
                    return Err(self.fail(d));
                }
            }
            _ => {
                let Tok::Word(name) = v.tok else {
                    return Err(self.unexpected("a client name"));
                };
                self.advance();
                ExerciseLineKind::Editable(name)
            }
        };
        let span = join(t.span, self.last_end);
        self.expect_eol()?;
        let once = matches!(
            kind,
            ExerciseLineKind::Id(_) | ExerciseLineKind::GoalBreak(_) | ExerciseLineKind::GoalFix
        );
        let same = |k: &ExerciseLineKind| match kind {
            ExerciseLineKind::Id(_) => matches!(k, ExerciseLineKind::Id(_)),
            _ => matches!(
                k,
                ExerciseLineKind::GoalBreak(_) | ExerciseLineKind::GoalFix
            ),
        };
        if once {
            if let Some(first) = self.scenario.exercise.iter().find(|l| same(&l.kind)) {
                let d = Diagnostic::error(t.span, format!("`{w}` is given twice")).with_hint(
                    format!("the first `{w}` is at line {}; keep one", first.span.line),
                );
                self.report(d);
                return Ok(());
            }
        }
        self.scenario.exercise.push(ExerciseLine {
            kind,
            span,
            value_span,
        });
        Ok(())
    }

    // ----- references ---------------------------------------------------------------------

    /// `RESOURCE/NAME [in NAMESPACE]`, validated.
    fn object_ref(&mut self) -> PResult<ObjectRef> {
        let t = self.tok_at(0).clone();
        let Tok::Ref {
            resource,
            resource_span,
            name,
            name_span,
        } = t.tok
        else {
            let mut d = Diagnostic::error(
                t.span,
                format!("expected an object reference, found {}", t.tok.describe()),
            )
            .with_expected("RESOURCE/NAME");
            if let Tok::Word(w) = &t.tok {
                let next = self.tok_at(1).clone();
                let written: String = self
                    .src
                    .get(t.span.start as usize..)
                    .unwrap_or("")
                    .chars()
                    .take_while(|&c| is_name_char(c))
                    .collect();
                if let (Tok::Word(n), true) = (&next.tok, next.span.start > t.span.end) {
                    d = d.with_hint(format!(
                        "join the resource and the name with `/`: `{w}/{n}`"
                    ));
                } else {
                    d = d.with_hint(format!(
                        "an object reference names its resource, e.g. `configmap/{written}`"
                    ));
                }
            } else {
                d = d.with_hint("e.g. `configmap/my-config` or `deployment/web in team-a`");
            }
            return Err(self.fail(d));
        };
        self.advance();
        let mut ok = true;
        let res = match resolve_resource(&resource, resource_span) {
            Ok(r) => Some(r),
            Err(d) => {
                self.report(d);
                ok = false;
                None
            }
        };
        if name.is_empty() {
            self.report(
                Diagnostic::error(t.span, format!("missing object name after `{resource}/`"))
                    .with_expected("a name")
                    .with_hint(format!("e.g. `{resource}/my-config`")),
            );
            ok = false;
        } else if let Some(problem) = subdomain_problem(&name) {
            self.report(name_diagnostic(
                name_span,
                "object name",
                &name,
                &problem,
                true,
            ));
            ok = false;
        }
        let mut namespace = "default".to_string();
        if self.eat_word("in") {
            let n = self.tok_at(0).clone();
            match n.tok {
                Tok::Name(ns) => {
                    self.advance();
                    if let Some(problem) = label_problem(&ns) {
                        self.report(name_diagnostic(n.span, "namespace", &ns, &problem, false));
                        ok = false;
                    }
                    namespace = ns;
                }
                _ => return Err(self.unexpected("a namespace")),
            }
        }
        match (ok, res) {
            (true, Some(resource)) => Ok(ObjectRef {
                resource,
                namespace,
                name,
            }),
            _ => Err(Fail),
        }
    }

    // ----- expressions --------------------------------------------------------------------

    fn expr(&mut self, depth: usize) -> PResult<Expr> {
        let mut lhs = self.unary(depth)?;
        loop {
            let op = match self.peek() {
                Tok::Punct(Punct::Plus) => BinOp::Add,
                Tok::Punct(Punct::Minus) => BinOp::Sub,
                _ => break,
            };
            self.advance();
            let rhs = self.unary(depth)?;
            let span = join(lhs.span, rhs.span.end);
            lhs = Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self, depth: usize) -> PResult<Expr> {
        if self.at_punct(Punct::Minus) {
            let minus = self.bump().span;
            let t = self.tok_at(0).clone();
            if let Tok::Num(Value::Number(n)) = &t.tok {
                self.advance();
                let v = if let Some(i) = n.as_i64() {
                    Value::from(-i)
                } else {
                    n.as_f64()
                        .and_then(|f| serde_json::Number::from_f64(-f))
                        .map(Value::Number)
                        .unwrap_or(Value::Null)
                };
                return Ok(Expr {
                    kind: ExprKind::Literal(v),
                    span: join(minus, t.span.end),
                });
            }
            return Err(self.fail(
                Diagnostic::error(t.span, "`-` before a value must be followed by a number")
                    .with_expected("a number"),
            ));
        }
        self.primary(depth)
    }

    fn primary(&mut self, depth: usize) -> PResult<Expr> {
        let t = self.tok_at(0).clone();
        let lit = |v: Value| Expr {
            kind: ExprKind::Literal(v),
            span: t.span,
        };
        match &t.tok {
            Tok::Str(s) => {
                self.advance();
                Ok(lit(Value::String(s.clone())))
            }
            Tok::Num(v) => {
                self.advance();
                Ok(lit(v.clone()))
            }
            Tok::Word(w) if w == "true" || w == "false" || w == "null" => {
                self.advance();
                Ok(lit(match w.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => Value::Null,
                }))
            }
            Tok::Word(w) if is_reserved(w) => {
                let mut d = Diagnostic::error(t.span, format!("`{w}` is a keyword, not a value"));
                if CLIENT_STATEMENTS.contains(&w.as_str()) {
                    d = d.with_hint(format!(
                        "a request is a statement of its own: `x = {w} …` on its own line"
                    ));
                }
                Err(self.fail(d))
            }
            Tok::Word(w) => {
                self.advance();
                let path = self.path_suffix()?;
                Ok(Expr {
                    kind: ExprKind::Var {
                        name: w.clone(),
                        path,
                    },
                    span: join(t.span, self.last_end),
                })
            }
            Tok::Punct(Punct::LBrace | Punct::LBracket | Punct::LParen)
                if depth >= MAX_NESTING_DEPTH =>
            {
                Err(self.fail(Diagnostic::error(
                    t.span,
                    format!("brackets are nested too deeply (the limit is {MAX_NESTING_DEPTH})"),
                )))
            }
            Tok::Punct(Punct::LBrace) => {
                self.advance();
                let mut entries: Vec<(String, Expr)> = Vec::new();
                loop {
                    if self.at_punct(Punct::RBrace) {
                        break;
                    }
                    let k = self.tok_at(0).clone();
                    let key = match &k.tok {
                        Tok::Str(s) => s.clone(),
                        Tok::Word(w) => w.clone(),
                        _ => return Err(self.unexpected("a key (a string or a name)")),
                    };
                    self.advance();
                    if !self.at_punct(Punct::Colon) {
                        let mut d = Diagnostic::error(self.span(), unexpected_msg(self.peek()))
                            .with_expected("`:`");
                        if self.at_punct(Punct::Assign) {
                            d = d.with_hint("object literals use `key: value`, as in JSON");
                        }
                        return Err(self.fail(d));
                    }
                    self.advance();
                    let value = self.expr(depth + 1)?;
                    if entries.iter().any(|(e, _)| *e == key) {
                        self.report(Diagnostic::error(
                            k.span,
                            format!("duplicate key `{key}` in an object literal"),
                        ));
                    }
                    entries.push((key, value));
                    if !self.eat_punct(Punct::Comma) {
                        break;
                    }
                }
                self.expect_punct(Punct::RBrace)?;
                Ok(Expr {
                    kind: ExprKind::Object(entries),
                    span: join(t.span, self.last_end),
                })
            }
            Tok::Punct(Punct::LBracket) => {
                self.advance();
                let mut items = Vec::new();
                loop {
                    if self.at_punct(Punct::RBracket) {
                        break;
                    }
                    items.push(self.expr(depth + 1)?);
                    if !self.eat_punct(Punct::Comma) {
                        break;
                    }
                }
                self.expect_punct(Punct::RBracket)?;
                Ok(Expr {
                    kind: ExprKind::Array(items),
                    span: join(t.span, self.last_end),
                })
            }
            Tok::Punct(Punct::LParen) => {
                self.advance();
                let mut e = self.expr(depth + 1)?;
                self.expect_punct(Punct::RParen)?;
                e.span = join(t.span, self.last_end);
                Ok(e)
            }
            Tok::Duration(_) => Err(self.fail(
                Diagnostic::error(t.span, "a duration is not a value").with_hint(
                    "durations are used by `sleep` and `backoff(…)`; write a number or a string",
                ),
            )),
            Tok::Ref { .. } => Err(self.fail(
                Diagnostic::error(t.span, "an object reference is not a value")
                    .with_hint("read the object first (`obj = get REF`) and use the variable"),
            )),
            _ => Err(self.unexpected("a value")),
        }
    }

    /// `.key`, `["key"]`, `[0]`, repeated.
    fn path_suffix(&mut self) -> PResult<Path> {
        let mut path = Path::new();
        loop {
            if self.eat_punct(Punct::Dot) {
                let t = self.tok_at(0).clone();
                match t.tok {
                    Tok::Word(w) => {
                        self.advance();
                        path.push(PathSeg::Key(w));
                    }
                    _ => {
                        let d = Diagnostic::error(
                            t.span,
                            format!("expected a field name after `.`, found {}", t.tok.describe()),
                        )
                        .with_expected("a field name")
                        .with_hint("for keys that are not identifiers write [\"key\"], e.g. data[\"app.properties\"]");
                        return Err(self.fail(d));
                    }
                }
            } else if self.at_punct(Punct::LBracket) {
                self.advance();
                let t = self.tok_at(0).clone();
                match &t.tok {
                    Tok::Str(s) => path.push(PathSeg::Key(s.clone())),
                    Tok::Num(Value::Number(n)) => match n.as_u64() {
                        Some(i) if i <= u64::from(MAX_INDEX) => path.push(PathSeg::Index(i as u32)),
                        _ => {
                            return Err(self.fail(Diagnostic::error(
                                t.span,
                                format!("an index must be a whole number from 0 to {MAX_INDEX}"),
                            )))
                        }
                    },
                    _ => return Err(self.unexpected("a string key or an index")),
                }
                self.advance();
                self.expect_punct(Punct::RBracket)?;
            } else {
                return Ok(path);
            }
        }
    }

    /// A path that starts with a field name (`data.key`, `metadata.labels["app"]`).
    fn field_path(&mut self) -> PResult<Path> {
        let t = self.tok_at(0).clone();
        let Tok::Word(first) = t.tok else {
            return Err(self.unexpected("a field path like `data.key`"));
        };
        self.advance();
        let mut path = vec![PathSeg::Key(first)];
        path.extend(self.path_suffix()?);
        Ok(path)
    }

    /// Reports every variable in a value that must be a literal.
    fn literal_only(&mut self, e: &Expr, place: &str) {
        match &e.kind {
            ExprKind::Literal(_) => {}
            ExprKind::Var { name, .. } => self.report(
                Diagnostic::error(
                    e.span,
                    format!("{place} must be literal values; `{name}` is a variable"),
                )
                .with_hint("write a JSON value: a string, a number, true, false, null, {…} or […]"),
            ),
            ExprKind::Object(entries) => {
                for (_, v) in entries {
                    self.literal_only(v, place);
                }
            }
            ExprKind::Array(items) => {
                for v in items {
                    self.literal_only(v, place);
                }
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.literal_only(lhs, place);
                self.literal_only(rhs, place);
            }
        }
    }

    // ----- setup objects --------------------------------------------------------------------

    fn object(&mut self) -> PResult<()> {
        let kw = self.bump();
        let ref_span = self.span();
        let target = self.object_ref();
        if let Ok(t) = &target {
            if let Some(first) = self.scenario.objects.iter().find(|o| o.target == *t) {
                let d = Diagnostic::error(ref_span, format!("`{t}` is declared twice"))
                    .with_hint(format!("it is first declared at line {}", first.span.line));
                self.report(d);
            }
        }
        let target = target?;
        if self.eat_punct(Punct::Assign) {
            let value = self.expr(0)?;
            self.literal_only(&value, "setup objects");
            let span = join(kw.span, self.last_end);
            self.expect_eol()?;
            let at_revision = self.next_revision(None, span);
            self.scenario.objects.push(SetupObject {
                target,
                at_revision,
                body: SetupBody::Literal(value),
                span,
            });
            return Ok(());
        }
        let mut at: Option<(u64, Span)> = None;
        if self.at_word("at") {
            let at_span = self.bump().span;
            self.expect_word("resourceVersion")?;
            let n = self.tok_at(0).clone();
            let value = match &n.tok {
                Tok::Num(Value::Number(v)) => v.as_u64().filter(|&v| v > 0),
                _ => None,
            };
            let Some(v) = value else {
                return Err(self.fail(
                    Diagnostic::error(n.span, "`at resourceVersion` needs a positive whole number")
                        .with_expected("a number like 100"),
                ));
            };
            self.advance();
            at = Some((v, join(at_span, n.span.end)));
        }
        let span = join(kw.span, self.last_end);
        let mut fields = Vec::new();
        if self.at_eol() && !matches!(self.peek_n(1), Tok::Indent) {
            self.expect_eol()?; // an object with no fields
        } else {
            self.block_colon()?;
        }
        if matches!(self.peek(), Tok::Indent) {
            fields = self.block(|p| {
                let path = p.field_path()?;
                if p.at_punct(Punct::EqEq) {
                    return Err(p.fail(
                        Diagnostic::error(p.span(), "`==` compares; use `=` to set a field")
                            .with_expected("`=`"),
                    ));
                }
                p.expect_punct(Punct::Assign)?;
                let value = p.expr(0)?;
                p.literal_only(&value, "setup objects");
                p.expect_eol()?;
                Ok(Some((path, value)))
            });
        }
        let at_revision = self.next_revision(at, span);
        self.scenario.objects.push(SetupObject {
            target,
            at_revision,
            body: SetupBody::Fields(fields),
            span,
        });
        Ok(())
    }

    /// Advances the setup revision counter for one object (§3) and checks `at resourceVersion`.
    fn next_revision(&mut self, at: Option<(u64, Span)>, span: Span) -> Option<u64> {
        let _ = span;
        match at {
            None => {
                self.revision = self.revision.saturating_add(1);
                None
            }
            Some((n, at_span)) => {
                if n <= self.revision {
                    let d = Diagnostic::error(
                        at_span,
                        format!(
                            "resourceVersion {n} is not larger than the current revision {}",
                            self.revision
                        ),
                    )
                    .with_hint(format!(
                        "the objects above take revisions up to {}; use at resourceVersion {} or more",
                        self.revision,
                        self.revision.saturating_add(1)
                    ));
                    self.report(d);
                } else {
                    self.revision = n;
                }
                Some(n)
            }
        }
    }

    // ----- clients --------------------------------------------------------------------------

    fn client(&mut self) -> PResult<()> {
        let kw = self.bump();
        let t = self.tok_at(0).clone();
        let mut name_ok = true;
        let name = match &t.tok {
            Tok::Word(w)
                if matches!(
                    self.peek_n(1),
                    Tok::Punct(Punct::Colon) | Tok::Newline | Tok::Eof
                ) =>
            {
                self.advance();
                if is_reserved(w) {
                    self.report(
                        Diagnostic::error(
                            t.span,
                            format!("`{w}` is a keyword and cannot name a client"),
                        )
                        .with_hint("pick another name, e.g. `alice`"),
                    );
                    name_ok = false;
                }
                w.clone()
            }
            Tok::Punct(Punct::Colon) | Tok::Newline | Tok::Eof => {
                self.report(
                    Diagnostic::error(t.span, "missing client name")
                        .with_expected("a name like `alice`"),
                );
                name_ok = false;
                String::new()
            }
            _ => {
                // Gather the whole would-be name up to `:` for one precise diagnostic.
                let start = t.span;
                while !matches!(
                    self.peek(),
                    Tok::Punct(Punct::Colon) | Tok::Newline | Tok::Eof | Tok::Indent | Tok::Dedent
                ) {
                    self.advance();
                }
                let span = join(start, self.last_end);
                let written = self.text(span);
                let suggestion: String = written
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                let mut d =
                    Diagnostic::error(span, format!("`{written}` is not a valid client name"))
                        .with_expected("an identifier");
                d = if keywords::is_identifier(&suggestion) && !is_reserved(&suggestion) {
                    d.with_hint(format!(
                        "a client name is an identifier (letters, digits and `_`, not starting with a digit), e.g. `{suggestion}`"
                    ))
                } else {
                    d.with_hint("a client name is an identifier (letters, digits and `_`, not starting with a digit)")
                };
                self.report(d);
                name_ok = false;
                written
            }
        };
        let header_end_ok = self.block_colon();
        let span = join(kw.span, self.last_end);
        if header_end_ok.is_err() {
            self.skip_line();
        }
        self.body_clean = name_ok && header_end_ok.is_ok();
        let body = if matches!(self.peek(), Tok::Indent) {
            self.stmt_block(false)
        } else {
            if header_end_ok.is_ok() {
                self.report(
                    Diagnostic::error(span, format!("client `{name}` has no statements"))
                        .with_expected("an indented block")
                        .with_hint("indent the client's statements under `client NAME:`, e.g. `    obj = get configmap/my-config`"),
                );
            }
            Vec::new()
        };
        if !name_ok || header_end_ok.is_err() {
            self.drafts.clients_complete = false;
        }
        let clean = self.body_clean;
        self.scenario.clients.push(Client { name, body, span });
        self.drafts.clients.push((t.span, clean));
        Ok(())
    }

    fn stmt_block(&mut self, in_retry: bool) -> Vec<Stmt> {
        self.block(|p| p.client_stmt(in_retry).map(Some))
    }

    fn stmt(&self, kind: StmtKind, start: Span) -> Stmt {
        let span = join(start, self.last_end);
        Stmt {
            kind,
            span,
            text: self.text(span),
        }
    }

    fn var_name(&mut self, what: &str) -> PResult<String> {
        let t = self.tok_at(0).clone();
        match &t.tok {
            Tok::Word(w) if !is_reserved(w) => {
                self.advance();
                Ok(w.clone())
            }
            Tok::Word(w) => Err(self.fail(
                Diagnostic::error(t.span, format!("`{w}` is a keyword, not a variable"))
                    .with_expected(what.to_string()),
            )),
            Tok::Ref { .. } => Err(self.fail(
                Diagnostic::error(t.span, "expected a variable, found an object reference")
                    .with_expected(what.to_string())
                    .with_hint("`update` sends an object you hold: `obj = get REF`, edit `obj`, then `update obj`"),
            )),
            _ => Err(self.unexpected(what)),
        }
    }

    fn client_stmt(&mut self, in_retry: bool) -> PResult<Stmt> {
        let t = self.tok_at(0).clone();
        let Tok::Word(w) = &t.tok else {
            return Err(self.fail(
                Diagnostic::error(t.span, format!("expected a statement, found {}", t.tok.describe()))
                    .with_hint("a client statement starts with a keyword (`update`, `create`, `retry`, …) or a variable (`obj = get REF`)"),
            ));
        };
        match w.as_str() {
            "update" | "replace" => {
                self.advance();
                let var = self.var_name("the variable holding the object to send")?;
                self.expect_end()?;
                Ok(self.finish(StmtKind::Update { var }, t.span))
            }
            "create" | "patch" | "apply" => {
                let kind = self.request(None)?;
                Ok(self.finish(kind, t.span))
            }
            "delete" => {
                self.advance();
                let target = self.object_ref()?;
                let mut resource_version = None;
                let mut uid = None;
                while self.at_word("precondition") {
                    self.advance();
                    let which = self.tok_at(0).clone();
                    let slot = match &which.tok {
                        Tok::Word(x) if x == "resourceVersion" => &mut resource_version,
                        Tok::Word(x) if x == "uid" => &mut uid,
                        _ => return Err(self.unexpected("`resourceVersion` or `uid`")),
                    };
                    if slot.is_some() {
                        let d = Diagnostic::error(which.span, "this precondition is given twice");
                        return Err(self.fail(d));
                    }
                    self.advance();
                    let e = self.expr(0)?;
                    let slot = if matches!(&which.tok, Tok::Word(x) if x == "uid") {
                        &mut uid
                    } else {
                        &mut resource_version
                    };
                    *slot = Some(e);
                }
                self.expect_end()?;
                Ok(self.finish(
                    StmtKind::Delete {
                        target,
                        resource_version,
                        uid,
                    },
                    t.span,
                ))
            }
            "sleep" => {
                self.advance();
                let d = self.tok_at(0).clone();
                let nanos = match d.tok {
                    Tok::Duration(n) => n,
                    Tok::Num(_) => {
                        return Err(self.fail(
                            Diagnostic::error(d.span, "`sleep` needs a duration with a unit")
                                .with_expected("a duration like `10ms`")
                                .with_hint("units: ns, us, ms, s, m, h"),
                        ))
                    }
                    _ => return Err(self.unexpected("a duration like `10ms`")),
                };
                self.advance();
                self.expect_end()?;
                Ok(self.finish(StmtKind::Sleep { nanos }, t.span))
            }
            "retry" => self.retry(t.span, in_retry),
            "get" => Err(self.fail(
                Diagnostic::error(t.span, "`get` needs a variable for its result")
                    .with_hint("write `obj = get configmap/NAME`"),
            )),
            w if TOP_LEVEL.contains(&w) => Err(self.fail(
                Diagnostic::error(t.span, format!("`{w}` is a top-level statement, not a client statement"))
                    .with_hint("top-level statements start at the beginning of the line; check the indentation"),
            )),
            w if is_reserved(w) => Err(self.fail(Diagnostic::error(
                t.span,
                format!("unexpected keyword `{w}` at the start of a statement"),
            ))),
            w => {
                match self.peek_n(1) {
                    Tok::Punct(Punct::Assign | Punct::Dot | Punct::LBracket) => self.assignment(t.span),
                    Tok::Punct(Punct::EqEq) => Err(self.fail(
                        Diagnostic::error(self.tok_at(1).span, "`==` compares; use `=` to assign")
                            .with_expected("`=`"),
                    )),
                    _ => {
                        let mut d = Diagnostic::error(t.span, format!("unknown statement `{w}`"));
                        let candidates = CLIENT_STATEMENTS.iter().copied();
                        d = match keywords::closest(w, candidates) {
                            Some(k) => d.with_hint(did_you_mean(k)),
                            None => d.with_hint(
                                "client statements: VAR = get REF, VAR.PATH = VALUE, update VAR, create, patch, apply, delete, sleep, retry on conflict:",
                            ),
                        };
                        Err(self.fail(d))
                    }
                }
            }
        }
    }

    fn finish(&self, kind: StmtKind, start: Span) -> Stmt {
        self.stmt(kind, start)
    }

    /// The end of a simple statement (without consuming the line end, so that the statement's
    /// span ends at its last token).
    fn expect_end(&mut self) -> PResult<()> {
        if self.at_eol() {
            Ok(())
        } else {
            Err(self.unexpected("end of line"))
        }
    }

    fn assignment(&mut self, start: Span) -> PResult<Stmt> {
        let var = self.var_name("a variable")?;
        let path = self.path_suffix()?;
        if self.at_punct(Punct::EqEq) {
            return Err(self.fail(
                Diagnostic::error(self.span(), "`==` compares; use `=` to assign")
                    .with_expected("`=`"),
            ));
        }
        self.expect_punct(Punct::Assign)?;
        let kind = match self.peek() {
            Tok::Word(w) if path.is_empty() && w == "get" => {
                self.advance();
                let target = self.object_ref()?;
                StmtKind::Get { var, target }
            }
            Tok::Word(w)
                if path.is_empty() && matches!(w.as_str(), "create" | "patch" | "apply") =>
            {
                self.request(Some(var))?
            }
            Tok::Word(w) if matches!(w.as_str(), "get" | "create" | "patch" | "apply") => {
                let span = self.span();
                return Err(self.fail(
                    Diagnostic::error(
                        span,
                        format!("the result of `{w}` must go to a plain variable"),
                    )
                    .with_hint("write `obj = get REF`, then read fields from `obj`"),
                ));
            }
            _ => {
                let value = self.expr(0)?;
                StmtKind::Assign { var, path, value }
            }
        };
        self.expect_end()?;
        Ok(self.stmt(kind, start))
    }

    /// `create REF [BODY]`, `patch REF TYPE BODY`, `apply REF BODY as MANAGER [force]`.
    fn request(&mut self, var: Option<String>) -> PResult<StmtKind> {
        let kw = self.bump();
        let Tok::Word(w) = &kw.tok else {
            return Err(Fail);
        };
        let target = self.object_ref()?;
        match w.as_str() {
            "create" => {
                let body = if self.at_eol() {
                    None
                } else {
                    Some(self.expr(0)?)
                };
                self.expect_end()?;
                Ok(StmtKind::Create { var, target, body })
            }
            "patch" => {
                let t = self.tok_at(0).clone();
                let patch_type = match &t.tok {
                    Tok::Word(x) if x == "merge" => PatchType::Merge,
                    Tok::Word(x) if x == "json" => PatchType::Json,
                    Tok::Word(x) if x == "strategic" => PatchType::Strategic,
                    _ => {
                        return Err(self.fail(
                            Diagnostic::error(t.span, unexpected_msg(&t.tok))
                                .with_expected("the patch type `merge`, `json` or `strategic`")
                                .with_hint("e.g. `patch configmap/my-config merge {\"data\": {\"key\": \"v\"}}`"),
                        ))
                    }
                };
                self.advance();
                let body = self.expr(0)?;
                self.expect_end()?;
                Ok(StmtKind::Patch {
                    var,
                    target,
                    patch_type,
                    body,
                })
            }
            _ => {
                let body = self.expr(0)?;
                if !self.at_word("as") {
                    let span = self.span();
                    return Err(self.fail(
                        Diagnostic::error(span, unexpected_msg(self.peek()))
                            .with_expected("`as MANAGER`")
                            .with_hint("server-side apply names its field manager: `apply REF BODY as alice`"),
                    ));
                }
                self.advance();
                let m = self.tok_at(0).clone();
                let manager = match m.tok {
                    Tok::Word(x) => x,
                    Tok::Str(x) if !x.is_empty() => x,
                    _ => return Err(self.unexpected("a field manager name")),
                };
                self.advance();
                let force = self.eat_word("force");
                self.expect_end()?;
                Ok(StmtKind::Apply {
                    var,
                    target,
                    body,
                    manager,
                    force,
                })
            }
        }
    }

    fn retry(&mut self, start: Span, in_retry: bool) -> PResult<Stmt> {
        self.advance();
        self.expect_word("on")?;
        self.expect_word("conflict")?;
        let policy = if self.eat_word("with") {
            self.policy()?
        } else {
            Backoff::default_retry()
        };
        let header = join(start, self.last_end);
        let colon = self.block_colon();
        let header = if colon.is_ok() && self.last_end > header.end {
            join(start, self.last_end)
        } else {
            header
        };
        colon?;
        if in_retry {
            self.report(
                Diagnostic::error(header, "`retry` blocks cannot be nested")
                    .with_hint("one `retry on conflict:` around the read-modify-write is enough"),
            );
        }
        let body = if matches!(self.peek(), Tok::Indent) {
            self.stmt_block(true)
        } else {
            self.report(
                Diagnostic::error(header, "this `retry` block is empty")
                    .with_expected("an indented block")
                    .with_hint("indent the statements to retry under `retry on conflict:`"),
            );
            Vec::new()
        };
        Ok(Stmt {
            kind: StmtKind::Retry { policy, body },
            span: header,
            text: self.text(header),
        })
    }

    fn policy(&mut self) -> PResult<Backoff> {
        let t = self.tok_at(0).clone();
        let name = match &t.tok {
            Tok::Word(w) => w.clone(),
            _ => return Err(self.unexpected("a retry policy")),
        };
        match name.as_str() {
            "DefaultRetry" => {
                self.advance();
                Ok(Backoff::default_retry())
            }
            "DefaultBackoff" => {
                self.advance();
                Ok(Backoff::default_backoff())
            }
            "backoff" => {
                self.advance();
                self.expect_punct(Punct::LParen)?;
                let mut b = Backoff::default_retry();
                let mut seen: Vec<String> = Vec::new();
                while !self.at_punct(Punct::RParen) {
                    let k = self.tok_at(0).clone();
                    let Tok::Word(key) = &k.tok else {
                        return Err(
                            self.unexpected("a parameter: steps, duration, factor, jitter or cap")
                        );
                    };
                    if !matches!(
                        key.as_str(),
                        "steps" | "duration" | "factor" | "jitter" | "cap"
                    ) {
                        let mut d =
                            Diagnostic::error(k.span, format!("unknown backoff parameter `{key}`"))
                                .with_expected("steps, duration, factor, jitter or cap");
                        if let Some(s) =
                            keywords::closest(key, ["steps", "duration", "factor", "jitter", "cap"])
                        {
                            d = d.with_hint(did_you_mean(s));
                        }
                        return Err(self.fail(d));
                    }
                    if seen.contains(key) {
                        return Err(self.fail(Diagnostic::error(
                            k.span,
                            format!("backoff parameter `{key}` is given twice"),
                        )));
                    }
                    seen.push(key.clone());
                    self.advance();
                    self.expect_punct(Punct::Assign)?;
                    let v = self.tok_at(0).clone();
                    match (key.as_str(), &v.tok) {
                        ("steps", Tok::Num(Value::Number(n))) => {
                            match n.as_u64().filter(|&s| (1..=u64::from(MAX_RETRY_STEPS)).contains(&s)) {
                                Some(s) => b.steps = s as u32,
                                None => {
                                    return Err(self.fail(Diagnostic::error(
                                        v.span,
                                        format!("`steps` must be a whole number from 1 to {MAX_RETRY_STEPS}"),
                                    )))
                                }
                            }
                        }
                        ("duration", Tok::Duration(n)) => b.duration_nanos = *n,
                        ("cap", Tok::Duration(n)) => b.cap_nanos = *n,
                        ("factor" | "jitter", Tok::Num(Value::Number(n))) => {
                            let f = n
                                .as_f64()
                                .filter(|f| f.is_finite() && *f >= 0.0 && *f <= 1000.0);
                            let Some(f) = f else {
                                return Err(self.fail(Diagnostic::error(
                                    v.span,
                                    format!("`{key}` must be a number from 0 to 1000"),
                                )));
                            };
                            if key == "factor" {
                                b.factor = f;
                            } else {
                                b.jitter = f;
                            }
                        }
                        ("duration" | "cap", Tok::Num(_)) => {
                            return Err(self.fail(
                                Diagnostic::error(
                                    v.span,
                                    format!("`{key}` needs a duration with a unit"),
                                )
                                .with_expected("a duration like `10ms`"),
                            ))
                        }
                        ("duration" | "cap", _) => {
                            return Err(self.unexpected("a duration like `10ms`"))
                        }
                        _ => return Err(self.unexpected("a number")),
                    }
                    self.advance();
                    if !self.eat_punct(Punct::Comma) {
                        break;
                    }
                }
                self.expect_punct(Punct::RParen)?;
                b.name = self.text(join(t.span, self.last_end));
                Ok(b)
            }
            _ => {
                let mut d = Diagnostic::error(t.span, format!("unknown retry policy `{name}`"))
                    .with_hint("use DefaultRetry, DefaultBackoff or backoff(steps=…, duration=…, factor=…, jitter=…, cap=…)");
                if let Some(s) =
                    keywords::closest(&name, ["DefaultRetry", "DefaultBackoff", "backoff"])
                {
                    d = d.with_hint(did_you_mean(s));
                }
                Err(self.fail(d))
            }
        }
    }

    // ----- expectations ---------------------------------------------------------------------

    fn expectation(&mut self) -> PResult<()> {
        let kw = self.bump();
        let first = self.tok_at(0).clone();
        let kind = match &first.tok {
            Tok::Word(w) if w == "no" && matches!(self.peek_n(1), Tok::Word(x) if x == "lost") => {
                self.advance();
                self.advance();
                self.expect_word("updates")?;
                ExpectKind::NoLostUpdates
            }
            Tok::Word(w)
                if w == "all" && matches!(self.peek_n(1), Tok::Word(x) if x == "clients") =>
            {
                self.advance();
                self.advance();
                if !self.at_word("succeed") {
                    let mut d = Diagnostic::error(self.span(), unexpected_msg(self.peek()))
                        .with_expected("`succeed`");
                    if self.at_word("succeeds") {
                        d = d.with_hint("write `expect all clients succeed`");
                    }
                    return Err(self.fail(d));
                }
                self.advance();
                ExpectKind::AllSucceed
            }
            Tok::Ref { .. } => {
                let target = self.object_ref()?;
                if self.eat_word("exists") {
                    ExpectKind::Exists(target)
                } else if self.at_word("is") {
                    self.advance();
                    self.expect_word("deleted")?;
                    ExpectKind::Deleted(target)
                } else {
                    if !matches!(self.peek(), Tok::Word(_)) {
                        let span = self.span();
                        return Err(self.fail(
                            Diagnostic::error(span, unexpected_msg(self.peek()))
                                .with_expected("a field path, `exists` or `is deleted`")
                                .with_hint("e.g. `expect configmap/my-config data.key == \"v\"`"),
                        ));
                    }
                    let path = self.field_path()?;
                    let equal = match self.peek() {
                        Tok::Punct(Punct::EqEq) => true,
                        Tok::Punct(Punct::NotEq) => false,
                        Tok::Punct(Punct::Assign) => {
                            let span = self.span();
                            return Err(self.fail(
                                Diagnostic::error(span, "`=` assigns; use `==` to compare")
                                    .with_expected("`==` or `!=`")
                                    .with_hint("write `expect REF PATH == VALUE`"),
                            ));
                        }
                        _ => return Err(self.unexpected("`==` or `!=`")),
                    };
                    self.advance();
                    let value = self.expr(0)?;
                    self.literal_only(&value, "expected values");
                    ExpectKind::Field {
                        target,
                        path,
                        equal,
                        value,
                    }
                }
            }
            Tok::Word(w) if !is_reserved(w) => {
                self.advance();
                let client = w.clone();
                let k = self.tok_at(0).clone();
                let kind = match &k.tok {
                    Tok::Word(x) if x == "succeeds" => {
                        self.advance();
                        ExpectKind::Succeeds(client.clone())
                    }
                    Tok::Word(x) if x == "fails" => {
                        self.advance();
                        self.expect_word("with")?;
                        let r = self.tok_at(0).clone();
                        let Tok::Word(reason) = &r.tok else {
                            return Err(self.unexpected("a reason like `Conflict`"));
                        };
                        self.advance();
                        if !keywords::REASONS.contains(&reason.as_str()) {
                            let mut d = Diagnostic::warning(r.span, format!("`{reason}` is not a Kubernetes status reason"));
                            d = match keywords::closest(reason, keywords::REASONS.iter().copied()) {
                                Some(s) => d.with_hint(did_you_mean(s)),
                                None => d.with_hint(format!("reasons: {}", keywords::REASONS.join(", "))),
                            };
                            self.report(d);
                        }
                        ExpectKind::FailsWith {
                            client: client.clone(),
                            reason: reason.clone(),
                        }
                    }
                    Tok::Word(x) if x == "succeed" || x == "fail" => {
                        return Err(self.fail(
                            Diagnostic::error(k.span, format!("unexpected `{x}`"))
                                .with_expected("`succeeds` or `fails with REASON`")
                                .with_hint(format!("write `expect {client} {x}s…`")),
                        ))
                    }
                    _ => {
                        let mut d = Diagnostic::error(k.span, unexpected_msg(&k.tok))
                            .with_expected("`succeeds` or `fails with REASON`");
                        if matches!(k.tok, Tok::Word(_) | Tok::Punct(Punct::Dot)) {
                            d = d.with_hint("to check an object, start with its reference: `expect configmap/NAME data.key == \"v\"`");
                        }
                        return Err(self.fail(d));
                    }
                };
                self.drafts.expect_clients.push((client, first.span));
                kind
            }
            _ => {
                return Err(self.fail(
                    Diagnostic::error(first.span, unexpected_msg(&first.tok))
                        .with_expected("an expectation")
                        .with_hint("expectations: no lost updates | REF PATH == VALUE | REF exists | REF is deleted | CLIENT succeeds | CLIENT fails with REASON | all clients succeed"),
                ))
            }
        };
        self.expect_end()?;
        let span = join(kw.span, self.last_end);
        let text_span = join(first.span, self.last_end);
        self.scenario.expectations.push(Expectation {
            kind,
            text: self.text(text_span),
            span,
        });
        Ok(())
    }
}

/// The resource of a reference (scenario-language.md §2).
fn resolve_resource(res: &str, span: Span) -> Result<Resource, Diagnostic> {
    match res {
        "configmap" | "configmaps" | "cm" => return Ok(Resource::ConfigMap),
        "deployment" | "deployments" | "deploy" => return Ok(Resource::Deployment),
        _ => {}
    }
    if let Some((plural, group)) = res.split_once('.') {
        if label_problem(plural).is_none() && subdomain_problem(group).is_none() {
            return Ok(Resource::Custom {
                plural: plural.to_string(),
                group: group.to_string(),
            });
        }
        return Err(Diagnostic::error(span, format!("invalid custom resource `{res}`"))
            .with_hint("a custom resource is written PLURAL.GROUP in lower case, e.g. `widgets.example.com/my-widget`"));
    }
    let known = [
        "configmap",
        "configmaps",
        "cm",
        "deployment",
        "deployments",
        "deploy",
    ];
    let mut d = Diagnostic::error(span, format!("unknown resource `{res}`"));
    let lower = res.to_ascii_lowercase();
    d = if known.contains(&lower.as_str()) {
        d.with_hint(format!("resources are written in lower case: `{lower}`"))
    } else if let Some(k) = keywords::closest(res, known) {
        d.with_hint(format!(
            "did you mean `{k}`? Known resources: configmap (configmaps, cm), deployment (deployments, deploy), or PLURAL.GROUP for a custom resource"
        ))
    } else {
        d.with_hint("known resources: configmap (configmaps, cm), deployment (deployments, deploy), or PLURAL.GROUP for a custom resource (e.g. widgets.example.com)")
    };
    Err(d)
}

/// Why `name` is not a DNS subdomain (RFC 1123), if it is not.
/// Why an exercise id is not valid (`[a-z0-9][a-z0-9-]*`, at most 64 characters), if it is not.
pub(crate) fn exercise_id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        Some("the exercise id is empty".into())
    } else if id.chars().count() > 64 {
        Some("the exercise id is longer than 64 characters".into())
    } else if !id
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        || id.starts_with('-')
    {
        Some(format!("`{id}` is not a valid exercise id"))
    } else {
        None
    }
}

pub(crate) fn subdomain_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Some(format!("it is longer than {MAX_NAME_CHARS} characters"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '.'))
    {
        if c.is_ascii_uppercase() {
            return Some(format!("it contains the upper-case letter `{c}`"));
        }
        return Some(format!("it contains `{c}`"));
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !alnum(name.chars().next()) || !alnum(name.chars().last()) {
        return Some("it must start and end with a letter or a digit".into());
    }
    None
}

/// Why `name` is not a DNS label (RFC 1123), if it is not.
pub(crate) fn label_problem(name: &str) -> Option<String> {
    if name.contains('.') {
        return Some("it contains `.`".into());
    }
    if name.chars().count() > MAX_NAMESPACE_CHARS {
        return Some(format!(
            "it is longer than {MAX_NAMESPACE_CHARS} characters"
        ));
    }
    subdomain_problem(name)
}

/// `unexpected TOKEN`: one formatting site for the parser's many (docs/size.md).
fn unexpected_msg(tok: &Tok) -> String {
    format!("unexpected {}", tok.describe())
}

/// The hint for a near miss.
pub(crate) fn did_you_mean(word: &str) -> String {
    format!("did you mean `{word}`?")
}

fn name_diagnostic(
    span: Span,
    what: &str,
    name: &str,
    problem: &str,
    subdomain: bool,
) -> Diagnostic {
    let rule = if subdomain {
        "lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit, at most 253 characters"
    } else {
        "lower-case letters, digits and `-`, starting and ending with a letter or digit, at most 63 characters"
    };
    let suggestion: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || (subdomain && c == '.') {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .trim_matches(|c: char| c == '-' || c == '.')
        .to_string();
    let ok = if subdomain {
        subdomain_problem(&suggestion).is_none()
    } else {
        label_problem(&suggestion).is_none()
    };
    let article = if what.starts_with('o') { "an" } else { "a" };
    let mut d = Diagnostic::error(span, format!("invalid {what} `{name}`: {problem}"));
    d = if ok && suggestion != name {
        d.with_hint(format!("{article} {what} uses {rule}; e.g. `{suggestion}`"))
    } else {
        d.with_hint(format!("{article} {what} uses {rule}"))
    };
    d
}
