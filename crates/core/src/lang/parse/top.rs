//! The file and its top-level lines: `title`, `about`, `schedule`, exercise headers, and the
//! dispatch to `object`, `client` and `expect`.

use super::{join, unexpected_msg, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::{did_you_mean, Diagnostic};
use crate::lang::keywords::{self, CLIENT_STATEMENTS, EXERCISE_HEADERS, TOP_LEVEL};
use crate::lang::lexer::{Punct, Tok, Token};

impl Parser<'_> {
    pub(super) fn file(&mut self) {
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

    pub(super) fn top_statement(&mut self) -> PResult<()> {
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
            "file" if matches!(self.peek_n(1), Tok::Str(_)) => self.setup_file(),
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
    pub(super) fn exercise_line(&mut self, t: &Token, w: &str) -> PResult<()> {
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
}

/// Why an exercise id is not valid (`[a-z0-9][a-z0-9-]*`, at most 64 characters), if it is not.
pub(super) fn exercise_id_problem(id: &str) -> Option<String> {
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
