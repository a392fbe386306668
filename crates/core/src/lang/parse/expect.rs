//! `expect …` lines.

use super::{join, unexpected_msg, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::{did_you_mean, Diagnostic};
use crate::lang::keywords::{self, is_reserved};
use crate::lang::lexer::{Punct, Tok};

impl Parser<'_> {
    pub(super) fn expectation(&mut self) -> PResult<()> {
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
                    if self.at_word("contains") {
                        self.advance();
                        if self.at_eol() {
                            let span = self.span();
                            return Err(self.fail(
                                Diagnostic::error(span, "`contains` needs a value")
                                    .with_expected("a value")
                                    .with_hint("write `expect REF PATH contains VALUE`, e.g. `expect configmap/my-config metadata.finalizers contains \"example.com/audit\"`"),
                            ));
                        }
                        let value = self.expr(0)?;
                        self.literal_only(&value, "expected values");
                        return self.finish_expectation(
                            kw.span,
                            first.span,
                            ExpectKind::Contains {
                                target,
                                path,
                                value,
                            },
                        );
                    }
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
                        _ => return Err(self.unexpected("`==`, `!=` or `contains`")),
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
                    Tok::Word(x) if x == "prints" && crate::kubectl::IN_BUILD => {
                        self.advance();
                        let s = self.tok_at(0).clone();
                        let Tok::Str(text) = s.tok else {
                            return Err(self.unexpected("the text as a string, e.g. \"configmap/my-config configured\""));
                        };
                        self.advance();
                        ExpectKind::Prints {
                            client: client.clone(),
                            text,
                        }
                    }
                    Tok::Word(x) if x == "exits" && crate::kubectl::IN_BUILD => {
                        self.advance();
                        let n = self.tok_at(0).clone();
                        let code = match &n.tok {
                            Tok::Num(serde_json::Value::Number(v)) => {
                                v.as_u64().and_then(|v| u8::try_from(v).ok())
                            }
                            _ => None,
                        };
                        let Some(code) = code else {
                            return Err(self.fail(
                                Diagnostic::error(n.span, "`exits` needs an exit status from 0 to 255")
                                    .with_expected("a number like 1")
                                    .with_hint("kubectl exits 0 on success and 1 on an error"),
                            ));
                        };
                        self.advance();
                        ExpectKind::Exits {
                            client: client.clone(),
                            code,
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
                            .with_expected("`succeeds`, `fails with REASON`, `prints \"TEXT\"` or `exits N`");
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
                        .with_hint("expectations: no lost updates | REF PATH == VALUE | REF PATH contains VALUE | REF exists | REF is deleted | CLIENT succeeds | CLIENT fails with REASON | CLIENT prints \"TEXT\" | CLIENT exits N | all clients succeed"),
                ))
            }
        };
        self.finish_expectation(kw.span, first.span, kind)
    }

    /// The end of an `expect` line: nothing may follow; records the expectation.
    fn finish_expectation(&mut self, kw: Span, first: Span, kind: ExpectKind) -> PResult<()> {
        self.expect_end()?;
        let span = join(kw, self.last_end);
        let text_span = join(first, self.last_end);
        self.scenario.expectations.push(Expectation {
            kind,
            text: self.text(text_span),
            span,
        });
        Ok(())
    }
}
