//! Object references (`RESOURCE/NAME [in NAMESPACE]`, validated) and setup `object` blocks.

use super::{join, Fail, PResult, Parser};
use crate::lang::ast::*;
use crate::lang::diagnostic::Diagnostic;
use crate::lang::keywords;
use crate::lang::lexer::{is_name_char, Punct, Tok};
use crate::names::{label_problem, subdomain_problem};
use crate::store::{ObjectRef, Resource};
use serde_json::Value;

impl Parser<'_> {
    /// `RESOURCE/NAME [in NAMESPACE]`, validated.
    pub(super) fn object_ref(&mut self) -> PResult<ObjectRef> {
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

    pub(super) fn object(&mut self) -> PResult<()> {
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
            fields = self.field_block(Some("setup objects"));
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

    /// Advances the setup revision counter for one object (docs/scenario-language.md, "Top level") and checks `at resourceVersion`.
    pub(super) fn next_revision(&mut self, at: Option<(u64, Span)>, span: Span) -> Option<u64> {
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
}

/// The resource of a reference (docs/scenario-language.md, "Top level").
pub(super) fn resolve_resource(res: &str, span: Span) -> Result<Resource, Diagnostic> {
    // The language names ConfigMaps and Deployments of the built-in kinds (the store's
    // registry), and any custom resource by the registry's one rule.
    if let Some(r @ (Resource::ConfigMap | Resource::Deployment)) = Resource::for_name(res) {
        return Ok(r);
    }
    if let Some((plural, group)) = res.split_once('.') {
        if let Some(r) = Resource::custom(group, plural) {
            return Ok(r);
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

pub(super) fn name_diagnostic(
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
