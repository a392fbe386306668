//! Semantic checks on a parsed (possibly partial) scenario: the diagnostics the editor shows
//! live besides syntax errors.

use super::ast::*;
use super::diagnostic::{did_you_mean, Diagnostic};
use super::drafts::Drafts;
use super::keywords;
use crate::limits::{
    MAX_CLIENTS, MAX_EXPECTATIONS, MAX_OBJECTS, MAX_SCHEDULE_COUNT, MAX_STATEMENTS_PER_CLIENT,
    MAX_STEPS,
};
use crate::schedule::Piece;

/// Runs every check and appends its diagnostics.
pub(crate) fn check(src: &str, sc: &Scenario, drafts: &Drafts, diags: &mut Vec<Diagnostic>) {
    clients(src, sc, drafts, diags);
    expectations(sc, drafts, diags);
    schedule(src, sc, drafts, diags);
    exercise(sc, diags);
    if let Some(o) = sc.objects.get(MAX_OBJECTS) {
        diags.push(Diagnostic::error(
            o.span,
            format!("too many setup objects (the limit is {MAX_OBJECTS})"),
        ));
    }
    if let Some(e) = sc.expectations.get(MAX_EXPECTATIONS) {
        diags.push(Diagnostic::error(
            e.span,
            format!("too many expectations (the limit is {MAX_EXPECTATIONS})"),
        ));
    }
}

/// The span of bytes `start..end`, with its line and column computed from the text.
pub(crate) fn span_at(src: &str, start: u32, end: u32) -> Span {
    let s = (start as usize).min(src.len());
    let before = src.get(..s).unwrap_or("");
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before.get(line_start..).map_or(0, |l| l.chars().count()) as u32 + 1;
    Span {
        start,
        end: end.max(start),
        line,
        col,
    }
}

fn clients(src: &str, sc: &Scenario, drafts: &Drafts, diags: &mut Vec<Diagnostic>) {
    for (i, c) in sc.clients.iter().enumerate() {
        let (name_span, clean) = drafts.clients.get(i).copied().unwrap_or((c.span, false));
        if i == MAX_CLIENTS as usize {
            diags.push(
                Diagnostic::error(
                    c.span,
                    format!("too many clients: at most {MAX_CLIENTS}, one per letter a to z"),
                )
                .with_hint("remove clients, or split the scenario"),
            );
        }
        if !c.name.is_empty() {
            if let Some(first) = sc.clients[..i].iter().find(|o| o.name == c.name) {
                diags.push(
                    Diagnostic::error(name_span, format!("client `{}` is declared twice", c.name))
                        .with_hint(format!(
                            "the first `client {}` is at line {}; give each client its own name",
                            c.name, first.span.line
                        )),
                );
            }
        }
        let mut count = 0usize;
        count_statements(&c.body, &mut count, diags);
        if clean {
            let mut assigned: Vec<String> = Vec::new();
            assignments(src, &c.name, &c.body, &mut assigned, diags);
        }
        retry_warnings(&c.body, diags);
        let mut written: Vec<&str> = sc.files.iter().map(|f| f.name.as_str()).collect();
        files(src, &c.body, &mut written, diags);
    }
}

/// kubectl's `-f F` reads a file this client has: one given at the top level, or written
/// before by `> F` or a `file "F"` statement (in text order; a `retry` body's first attempt
/// runs with what came before it).
fn files<'a>(src: &str, body: &'a [Stmt], written: &mut Vec<&'a str>, diags: &mut Vec<Diagnostic>) {
    use crate::kubectl::Verb;
    if !crate::kubectl::IN_BUILD {
        // No kubectl statement parses in this build (and the check would link its parser).
        return;
    }
    for s in body {
        match &s.kind {
            StmtKind::Kubectl { cmd, .. } => {
                if let Verb::Apply { file, .. } | Verb::Replace { file } | Verb::Create { file } =
                    &cmd.verb
                {
                    if !written.contains(&file.as_str()) {
                        let after = src
                            .get(s.span.start as usize + "kubectl".len()..)
                            .unwrap_or("");
                        let raw = s.span.start as usize
                            + "kubectl".len()
                            + (after.len() - after.trim_start_matches([' ', '\t']).len());
                        let (a, b) = crate::kubectl::cmdline::file_span(&cmd.line)
                            .unwrap_or((0, cmd.line.len()));
                        diags.push(
                            Diagnostic::error(
                                span_at(src, (raw + a) as u32, (raw + b) as u32),
                                format!("the path {file:?} does not exist"),
                            )
                            .with_hint(format!("kubectl reads the client's own files: write it first, with `kubectl get … -o yaml > {file}` or `file {file:?} = {{…}}`, or give it to every client with a top-level `file {file:?}`")),
                        );
                        written.push(file);
                    }
                }
                if let Some(f) = &cmd.redirect {
                    written.push(f);
                }
            }
            StmtKind::File { name, .. } => written.push(name),
            StmtKind::Retry { body, .. } => files(src, body, written, diags),
            _ => {}
        }
    }
}

fn count_statements(body: &[Stmt], count: &mut usize, diags: &mut Vec<Diagnostic>) {
    for s in body {
        *count += 1;
        if *count == MAX_STATEMENTS_PER_CLIENT + 1 {
            diags.push(Diagnostic::error(
                s.span,
                format!(
                    "too many statements in this client (the limit is {MAX_STATEMENTS_PER_CLIENT})"
                ),
            ));
        }
        if let StmtKind::Retry { body, .. } = &s.kind {
            count_statements(body, count, diags);
        }
    }
}

/// Use before assignment, flow-sensitively over straight-line code and `retry` blocks: a `retry`
/// body runs from its top with what was assigned before it (its first attempt), and after the
/// block everything it assigned is assigned (the block completed). Each variable is reported
/// once.
fn assignments(
    src: &str,
    client: &str,
    body: &[Stmt],
    assigned: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    for s in body {
        match &s.kind {
            StmtKind::Get { var, .. } => assign(assigned, var),
            StmtKind::Assign { var, path, value } => {
                uses(src, client, value, assigned, diags);
                if !path.is_empty() {
                    let span = span_at(src, s.span.start, s.span.start + var.len() as u32);
                    used(client, var, span, assigned, diags);
                }
                assign(assigned, var);
            }
            StmtKind::Update { var, status } => {
                // The variable ends the statement, or comes before its `status`.
                let end = if *status {
                    let before = s.text.trim_end_matches("status").trim_end();
                    s.span.start + before.len() as u32
                } else {
                    s.span.end
                };
                let start = end.saturating_sub(var.len() as u32);
                let span = span_at(src, start, end);
                used(client, var, span, assigned, diags);
            }
            StmtKind::Create { var, body, .. } => {
                if let Some(b) = body {
                    uses(src, client, b, assigned, diags);
                }
                if let Some(v) = var {
                    assign(assigned, v);
                }
            }
            StmtKind::Patch { var, body, .. } | StmtKind::Apply { var, body, .. } => {
                uses(src, client, body, assigned, diags);
                if let Some(v) = var {
                    assign(assigned, v);
                }
            }
            StmtKind::Delete {
                resource_version,
                uid,
                ..
            } => {
                for e in [resource_version, uid].into_iter().flatten() {
                    uses(src, client, e, assigned, diags);
                }
            }
            StmtKind::Sleep { .. } => {}
            StmtKind::Retry { body, .. } => assignments(src, client, body, assigned, diags),
            StmtKind::Kubectl { edits, .. } => {
                for (_, e) in edits {
                    uses(src, client, e, assigned, diags);
                }
            }
            StmtKind::File { body, .. } => match body {
                crate::lang::ast::SetupBody::Literal(e) => uses(src, client, e, assigned, diags),
                crate::lang::ast::SetupBody::Fields(f) => {
                    for (_, e) in f {
                        uses(src, client, e, assigned, diags);
                    }
                }
            },
        }
    }
}

fn assign(assigned: &mut Vec<String>, var: &str) {
    if !assigned.iter().any(|a| a == var) {
        assigned.push(var.to_string());
    }
}

fn used(
    client: &str,
    var: &str,
    span: Span,
    assigned: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    if assigned.iter().any(|a| a == var) {
        return;
    }
    diags.push(
        Diagnostic::error(
            span,
            format!("`{var}` is used before it is assigned in client `{client}`"),
        )
        .with_hint(format!(
            "assign it first, e.g. `{var} = get configmap/NAME`"
        )),
    );
    // Report each variable once.
    assigned.push(var.to_string());
}

fn uses(
    src: &str,
    client: &str,
    e: &Expr,
    assigned: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    match &e.kind {
        ExprKind::Literal(_) => {}
        ExprKind::Var { name, .. } => {
            let span = span_at(src, e.span.start, e.span.start + name.len() as u32);
            used(client, name, span, assigned, diags);
        }
        ExprKind::Object(entries) => {
            for (_, v) in entries {
                uses(src, client, v, assigned, diags);
            }
        }
        ExprKind::Array(items) => {
            for v in items {
                uses(src, client, v, assigned, diags);
            }
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            uses(src, client, lhs, assigned, diags);
            uses(src, client, rhs, assigned, diags);
        }
    }
}

fn sends_request(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Retry { body, .. } => sends_request(body),
        kind => kind.sends_request(),
    })
}

fn retry_warnings(body: &[Stmt], diags: &mut Vec<Diagnostic>) {
    for s in body {
        if let StmtKind::Retry { body, .. } = &s.kind {
            if !body.is_empty() && !sends_request(body) {
                diags.push(
                    Diagnostic::warning(
                        s.span,
                        "this `retry` block sends no request, so it never sees a conflict",
                    )
                    .with_hint(
                        "put the read-modify-write (`get`, edits, `update`) inside the block",
                    ),
                );
            }
            retry_warnings(body, diags);
        }
    }
}

fn client_list(sc: &Scenario) -> String {
    sc.clients
        .iter()
        .take(MAX_CLIENTS as usize)
        .enumerate()
        .map(|(i, c)| format!("{} = {}", (b'a' + i as u8) as char, c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn expectations(sc: &Scenario, drafts: &Drafts, diags: &mut Vec<Diagnostic>) {
    for (name, span) in &drafts.expect_clients {
        if sc.clients.iter().any(|c| c.name == *name) {
            continue;
        }
        let mut d = Diagnostic::error(*span, format!("no client is named `{name}`"));
        let names = sc.clients.iter().map(|c| c.name.as_str());
        d = if let Some(s) = keywords::closest(name, names) {
            d.with_hint(did_you_mean(s))
        } else if sc.clients.is_empty() {
            d.with_hint("declare it with `client NAME:`")
        } else {
            let all: Vec<&str> = sc.clients.iter().map(|c| c.name.as_str()).collect();
            d.with_hint(format!("the clients are: {}", all.join(", ")))
        };
        diags.push(d);
    }
}

/// Exercise header lines (docs/exercises.md): `editable` names a client, `goal break` names an
/// expectation.
fn exercise(sc: &Scenario, diags: &mut Vec<Diagnostic>) {
    let mut seen: Vec<&str> = Vec::new();
    for line in &sc.exercise {
        match &line.kind {
            ExerciseLineKind::Editable(name) => {
                if !sc.clients.iter().any(|c| c.name == *name) {
                    let mut d =
                        Diagnostic::error(line.value_span, format!("no client is named `{name}`"));
                    let names = sc.clients.iter().map(|c| c.name.as_str());
                    d = if let Some(s) = keywords::closest(name, names) {
                        d.with_hint(did_you_mean(s))
                    } else if sc.clients.is_empty() {
                        d.with_hint("declare it with `client NAME:`")
                    } else {
                        let all: Vec<&str> = sc.clients.iter().map(|c| c.name.as_str()).collect();
                        d.with_hint(format!("the clients are: {}", all.join(", ")))
                    };
                    diags.push(d);
                } else if seen.contains(&name.as_str()) {
                    diags.push(
                        Diagnostic::warning(
                            line.value_span,
                            format!("`editable {name}` is given twice"),
                        )
                        .with_hint("keep one"),
                    );
                } else {
                    seen.push(name);
                }
            }
            ExerciseLineKind::GoalBreak(text) => {
                let want = normalize_space(text);
                if sc
                    .expectations
                    .iter()
                    .any(|e| normalize_space(&e.text) == want)
                {
                    continue;
                }
                let mut d =
                    Diagnostic::error(line.value_span, format!("no `expect` line reads `{text}`"));
                let texts = sc.expectations.iter().map(|e| e.text.as_str());
                d = if let Some(s) = keywords::closest(text, texts) {
                    d.with_hint(format!("did you mean \"{s}\"?"))
                } else if sc.expectations.is_empty() {
                    d.with_hint("add the expectation to break, e.g. `expect no lost updates`")
                } else {
                    let all: Vec<String> = sc
                        .expectations
                        .iter()
                        .map(|e| format!("\"{}\"", e.text))
                        .collect();
                    d.with_hint(format!("name one of the expectations: {}", all.join(", ")))
                };
                diags.push(d);
            }
            ExerciseLineKind::GoalFix if sc.expectations.is_empty() => {
                diags.push(
                    Diagnostic::error(line.span, "`goal fix` needs at least one `expect` line")
                        .with_hint("the learner's fix is checked against the expectations"),
                );
            }
            _ => {}
        }
    }
}

/// Text with runs of whitespace folded to one space (how `goal break` matches `expect` texts).
pub(crate) fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Schedule tokens: client letters with optional run-length counts (`a3b2a`; docs/scenario-language.md, "Schedules"), read by the
/// one token grammar of [`crate::schedule::pieces`] (the command line's and the page's too).
fn schedule(src: &str, sc: &Scenario, drafts: &Drafts, diags: &mut Vec<Diagnostic>) {
    let Some((token, span)) = &sc.schedule else {
        return;
    };
    // Point at single characters when the literal is written without escapes.
    let raw = src
        .get(span.start as usize + 1..(span.end as usize).saturating_sub(1))
        .unwrap_or("");
    let precise = raw == token.as_str() && token.is_ascii();
    let at_chars = |i: usize, len: usize| {
        if precise {
            span_at(
                src,
                span.start + 1 + i as u32,
                span.start + 1 + (i + len) as u32,
            )
        } else {
            *span
        }
    };
    let hint = "a schedule lists client letters with optional counts, e.g. \"abaabb\" or \"a3b2a\"";
    let n = sc.clients.len().min(MAX_CLIENTS as usize);
    let pieces = crate::schedule::pieces(token);
    let mut reported: Vec<u32> = Vec::new();
    for piece in &pieces {
        match *piece {
            Piece::Steps {
                client,
                at,
                digits,
                count,
            } => {
                if count.is_err() {
                    let text = token.get(at + 1..at + 1 + digits).unwrap_or("");
                    diags.push(
                        Diagnostic::error(
                            at_chars(at + 1, digits),
                            format!(
                                "schedule count `{text}` must be from 1 to {MAX_SCHEDULE_COUNT}"
                            ),
                        )
                        .with_hint(hint),
                    );
                }
                if client as usize >= n && drafts.clients_complete && !reported.contains(&client) {
                    reported.push(client);
                    let have = if n == 0 {
                        "this scenario has no clients".to_string()
                    } else {
                        format!(
                            "this scenario has {n} client{}: {}",
                            if n == 1 { "" } else { "s" },
                            client_list(sc)
                        )
                    };
                    let c = crate::schedule::letter(client);
                    diags.push(
                        Diagnostic::error(
                            at_chars(at, 1),
                            format!("schedule letter `{c}` names no client"),
                        )
                        .with_hint(have),
                    );
                }
            }
            Piece::Bad { ch, at } => {
                let what = if ch.is_ascii_digit() {
                    format!("a count `{ch}` must follow a client letter")
                } else {
                    format!("`{}` is not a client letter", ch.escape_debug())
                };
                diags.push(
                    Diagnostic::error(at_chars(at, 1), format!("invalid schedule token: {what}"))
                        .with_hint(hint),
                );
            }
        }
    }
    if crate::schedule::steps_named(&pieces) > u64::from(MAX_STEPS) {
        diags.push(
            Diagnostic::error(
                *span,
                format!("the schedule names more than {MAX_STEPS} steps (the limit of a run)"),
            )
            .with_hint("a run takes at most that many steps; shorten the token"),
        );
    }
}
