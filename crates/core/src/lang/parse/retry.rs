//! `retry on conflict [with POLICY]:` blocks and their policies (`DefaultRetry`,
//! `DefaultBackoff`, `backoff(…)`).

use super::{join, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::{did_you_mean, Diagnostic};
use crate::lang::keywords;
use crate::lang::lexer::{backoff_number, BackoffNumberError};
use crate::lang::lexer::{Punct, Tok};
use crate::limits::{MAX_BACKOFF_DECIMALS, MAX_RETRY_STEPS};
use serde_json::Value;

impl Parser<'_> {
    pub(super) fn retry(&mut self, start: Span, in_retry: bool) -> PResult<Stmt> {
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

    pub(super) fn policy(&mut self) -> PResult<Backoff> {
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
                        ("factor" | "jitter", Tok::Num(_)) => {
                            let f = match backoff_number(&self.text(v.span), 1000) {
                                Ok(f) => f,
                                Err(BackoffNumberError::OutOfRange) => {
                                    return Err(self.fail(Diagnostic::error(
                                        v.span,
                                        format!("`{key}` must be a number from 0 to 1000"),
                                    )))
                                }
                                Err(BackoffNumberError::TooPrecise) => {
                                    return Err(self.fail(Diagnostic::error(
                                        v.span,
                                        format!("`{key}` has more than {MAX_BACKOFF_DECIMALS} digits after the point"),
                                    )))
                                }
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
}
