//! `kubectl …` statements (issue #14) and `file "NAME"` statements and setup files.

use super::{join, PResult, Parser};
use crate::kubectl::cmdline;
use crate::lang::ast::*;
use crate::lang::check::span_at;
use crate::lang::diagnostic::Diagnostic;
use crate::lang::lexer::{Punct, Tok};

impl Parser<'_> {
    /// `kubectl LINE`, or `kubectl edit KIND NAME:` + `PATH = EXPR` lines (the `:` is ours,
    /// not kubectl's). The current token is the word `kubectl`, the next a [`Tok::Raw`].
    pub(super) fn kubectl_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let raw = self.bump();
        let Tok::Raw(text) = &raw.tok else {
            return Err(self.unexpected("a kubectl command line"));
        };
        let header = join(kw.span, raw.span.end);
        if !crate::kubectl::IN_BUILD {
            let d = Diagnostic::error(header, crate::kubectl::NOT_IN_BUILD).with_hint(
                "the page's kubectl build (kubectl.html), `rvlab run` and `rvlab serve` run them",
            );
            return Err(self.fail(d));
        }
        // A trailing `:` opens an edit block when the rest is a `kubectl edit`.
        let mut line = text.as_str();
        let mut block = false;
        if let Some(stripped) = line.strip_suffix(':') {
            if matches!(cmdline::parse(stripped), Ok(c) if matches!(c.verb, crate::kubectl::Verb::Edit { .. }))
            {
                line = stripped;
                block = true;
            }
        }
        let cmd = match cmdline::parse(line) {
            Ok(cmd) => cmd,
            Err(e) => {
                let start = raw.span.start + e.start.min(line.len()) as u32;
                let end = raw.span.start + e.end.min(line.len()) as u32;
                let span = span_at(self.src, start, end.max(start));
                let (message, rest) = match e.message.split_once('\n') {
                    Some((m, r)) => (m, Some(r.trim_start_matches('\n'))),
                    None => (e.message.as_str(), None),
                };
                let mut d = Diagnostic::error(span, message);
                if let Some(r) = rest {
                    d = d.with_hint(r);
                }
                return Err(self.fail(d));
            }
        };
        let mut edits = Vec::new();
        if block {
            if !matches!(self.peek(), Tok::Newline) || !matches!(self.peek_n(1), Tok::Indent) {
                let d = Diagnostic::error(header, "`kubectl edit …:` needs the edit as an indented block")
                    .with_expected("an indented block of `PATH = VALUE` lines")
                    .with_hint("e.g. `kubectl edit cm my-config:` then `    data.color = \"teal\"`; without `:` the edit changes nothing");
                return Err(self.fail(d));
            }
            self.advance();
            edits = self.field_block(None);
        } else if matches!(self.peek(), Tok::Newline) && matches!(self.peek_n(1), Tok::Indent) {
            let d = Diagnostic::error(self.tok_at(1).span, "unexpected indentation").with_hint(
                "only `kubectl edit KIND NAME:` (ending with `:`) takes an indented block",
            );
            return Err(self.fail(d));
        }
        Ok(Stmt {
            kind: StmtKind::Kubectl { cmd, edits },
            span: header,
            text: self.text(header),
        })
    }

    /// `file "NAME" = EXPR` or `file "NAME":` + `PATH = EXPR` lines; `literal` for a setup
    /// file (top level). The current token is the word `file`, the next a string.
    fn file_body(&mut self, literal: Option<&str>) -> PResult<(String, SetupBody, Span)> {
        let kw = self.bump();
        if !crate::kubectl::IN_BUILD {
            // Files are what kubectl's `-f` reads: without the model they have no reader.
            let d = Diagnostic::error(kw.span, crate::kubectl::NOT_IN_BUILD)
                .with_hint("`file` statements are for kubectl's `-f`; the page's kubectl build (kubectl.html), `rvlab run` and `rvlab serve` run them");
            return Err(self.fail(d));
        }
        let n = self.bump();
        let Tok::Str(name) = n.tok else {
            return Err(self.unexpected("the file's name as a string"));
        };
        if name.is_empty() || name.contains(['\n', '\0']) {
            return Err(self.fail(
                Diagnostic::error(n.span, "a file name must be a non-empty line of text")
                    .with_hint("e.g. `file \"my-config.yaml\" = {…}`"),
            ));
        }
        if self.eat_punct(Punct::Assign) {
            let value = self.expr(0)?;
            if let Some(place) = literal {
                self.literal_only(&value, place);
            }
            let span = join(kw.span, self.last_end);
            self.expect_end()?;
            return Ok((name, SetupBody::Literal(value), span));
        }
        let span = join(kw.span, self.last_end);
        self.block_colon()?;
        if !matches!(self.peek(), Tok::Indent) {
            return Err(self.fail(
                Diagnostic::error(span, format!("file {name:?} has no lines"))
                    .with_expected("an indented block of `PATH = VALUE` lines")
                    .with_hint(
                        "or give the whole file: `file \"F\" = {\"apiVersion\": \"v1\", …}`",
                    ),
            ));
        }
        Ok((name, SetupBody::Fields(self.field_block(literal)), span))
    }

    /// A client's `file` statement.
    pub(super) fn file_stmt(&mut self) -> PResult<Stmt> {
        let (name, body, span) = self.file_body(None)?;
        Ok(Stmt {
            kind: StmtKind::File { name, body },
            text: self.text(span),
            span,
        })
    }

    /// A top-level `file`: a copy for every client.
    pub(super) fn setup_file(&mut self) -> PResult<()> {
        let name_span = self.tok_at(1).span;
        let (name, body, span) = self.file_body(Some("setup files"))?;
        if let Some(first) = self.scenario.files.iter().find(|f| f.name == name) {
            let d = Diagnostic::error(name_span, format!("file {name:?} is declared twice"))
                .with_hint(format!("it is first declared at line {}", first.span.line));
            self.report(d);
        }
        if matches!(body, SetupBody::Literal(_)) {
            self.expect_eol()?;
        }
        self.scenario.files.push(SetupFile { name, body, span });
        Ok(())
    }

    /// An indented block of `PATH = EXPR` lines (at its `Indent`); `literal` names the place
    /// when only literals are allowed.
    pub(super) fn field_block(&mut self, literal: Option<&str>) -> Vec<(Path, Expr)> {
        self.block(|p| {
            let path = p.field_path()?;
            if p.at_punct(Punct::EqEq) {
                return Err(p.fail(
                    Diagnostic::error(p.span(), "`==` compares; use `=` to set a field")
                        .with_expected("`=`"),
                ));
            }
            p.expect_punct(Punct::Assign)?;
            let value = p.expr(0)?;
            if let Some(place) = literal {
                p.literal_only(&value, place);
            }
            p.expect_eol()?;
            Ok(Some((path, value)))
        })
    }
}

#[cfg(all(test, not(feature = "kubectl")))]
mod without_the_model {
    #[test]
    fn a_kubectl_line_is_a_diagnostic_at_the_line() {
        let src = "client a:\n    kubectl get cm my-config\n";
        let parsed = crate::lang::parse(src);
        assert!(parsed.scenario.is_none());
        let d = &parsed.diagnostics[0];
        assert_eq!(
            d.message,
            "this build of rvlab does not run kubectl statements"
        );
        assert_eq!((d.span.line, d.span.col), (2, 5));
    }
}
