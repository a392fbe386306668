//! `client NAME:` blocks and their statements: assignments and requests.

use super::{join, unexpected_msg, Fail, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::{did_you_mean, Diagnostic};
use crate::lang::keywords::{self, is_reserved, CLIENT_STATEMENTS, TOP_LEVEL};
use crate::lang::lexer::{Punct, Tok};
use crate::store::{ObjectRef, Resource};

impl Parser<'_> {
    pub(super) fn client(&mut self) -> PResult<()> {
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

    pub(super) fn stmt_block(&mut self, in_retry: bool) -> Vec<Stmt> {
        self.block(|p| p.client_stmt(in_retry).map(Some))
    }

    pub(super) fn stmt(&self, kind: StmtKind, start: Span) -> Stmt {
        let span = join(start, self.last_end);
        Stmt {
            kind,
            span,
            text: self.text(span),
        }
    }

    pub(super) fn var_name(&mut self, what: &str) -> PResult<String> {
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

    pub(super) fn client_stmt(&mut self, in_retry: bool) -> PResult<Stmt> {
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
                let status = self.eat_word("status");
                self.expect_end()?;
                Ok(self.finish(StmtKind::Update { var, status }, t.span))
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
            "kubectl" if matches!(self.peek_n(1), Tok::Raw(_)) => self.kubectl_stmt(),
            "file" if matches!(self.peek_n(1), Tok::Str(_)) => self.file_stmt(),
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
                                "client statements: VAR = get REF, VAR.PATH = VALUE, update VAR, create, patch, apply, delete, sleep, retry on conflict:, kubectl …, file \"F\" = VALUE",
                            ),
                        };
                        Err(self.fail(d))
                    }
                }
            }
        }
    }

    pub(super) fn finish(&self, kind: StmtKind, start: Span) -> Stmt {
        self.stmt(kind, start)
    }

    /// The end of a simple statement (without consuming the line end, so that the statement's
    /// span ends at its last token).
    pub(super) fn expect_end(&mut self) -> PResult<()> {
        if self.at_eol() {
            Ok(())
        } else {
            Err(self.unexpected("end of line"))
        }
    }

    pub(super) fn assignment(&mut self, start: Span) -> PResult<Stmt> {
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
                let status = self.status_suffix(&target, false)?;
                StmtKind::Get {
                    var,
                    target,
                    status,
                }
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

    /// The `status` after a reference (the status subresource), which only Deployments have.
    /// With `before_as`, a `status` directly followed by `as` is an apply's body (a variable).
    fn status_suffix(&mut self, target: &ObjectRef, before_as: bool) -> PResult<bool> {
        if !self.at_word("status")
            || (before_as && matches!(self.peek_n(1), Tok::Word(w) if w == "as"))
        {
            return Ok(false);
        }
        let span = self.bump().span;
        if target.resource != Resource::Deployment {
            return Err(self.fail(
                Diagnostic::error(
                    span,
                    format!("`{}` has no status subresource", target.resource.short()),
                )
                .with_hint(
                    "of the resources here, only deployments have one (`deployment/NAME status`)",
                ),
            ));
        }
        Ok(true)
    }

    /// `create REF [BODY]`, `patch REF [status] TYPE BODY`,
    /// `apply REF [status] BODY as MANAGER [force]`.
    pub(super) fn request(&mut self, var: Option<String>) -> PResult<StmtKind> {
        let kw = self.bump();
        let Tok::Word(w) = &kw.tok else {
            return Err(Fail);
        };
        let target = self.object_ref()?;
        let status = match w.as_str() {
            "create" => false,
            "patch" => self.status_suffix(&target, false)?,
            _ => self.status_suffix(&target, true)?,
        };
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
                    status,
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
                    status,
                    body,
                    manager,
                    force,
                })
            }
        }
    }
}
