//! Expressions: literals, variables with paths, object and array literals, `+` and `-`.

use super::{join, unexpected_msg, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::Diagnostic;
use crate::lang::keywords::{is_reserved, CLIENT_STATEMENTS};
use crate::lang::lexer::{Punct, Tok};
use crate::limits::{MAX_INDEX, MAX_NESTING_DEPTH};
use serde_json::Value;

impl Parser<'_> {
    pub(super) fn expr(&mut self, depth: usize) -> PResult<Expr> {
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

    pub(super) fn unary(&mut self, depth: usize) -> PResult<Expr> {
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

    pub(super) fn primary(&mut self, depth: usize) -> PResult<Expr> {
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
    pub(super) fn path_suffix(&mut self) -> PResult<Path> {
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
    pub(super) fn field_path(&mut self) -> PResult<Path> {
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
    pub(super) fn literal_only(&mut self, e: &Expr, place: &str) {
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
}
