//! `rvlab test`'s report (issue #15): what a server's trace says about the program under test.
//! Pure, over the trace's steps as JSON values (docs/json-trace.md, "The server's trace"), so
//! it reads a `GET /rvlab/v1/trace` document, a `--trace` file's lines or a test's hand-made
//! steps alike; the CLI only runs the command and the server and prints what this computes.
//!
//! - per client: requests, writes, 409s, and what followed each write's `409 Conflict`: a
//!   retry that **re-read** the object first (a 200 GET of it, or of its collection, by the
//!   same client since the 409, and a resourceVersion other than the rejected one, or the
//!   same one when that re-read was a stale answer of `--stale-reads`), a retry
//!   that **resent a stale body** (no such GET, or the same resourceVersion again), or none;
//! - every lost update the store detected, with the value lost (the field as the overwritten
//!   write left it, read from that write's response) and the value written over it;
//! - the interferer's injections (steps of client [`crate::interfere::INTERFERER`], and under
//!   `--interfere scenario FILE` the scripted clients' steps: every step with an
//!   `interference` member);
//! - the stale answers of `--stale-reads K` (steps with a `stale_read` member,
//!   [`crate::stale`]); a write based on one without a resourceVersion is a lost update above;
//! - the verdict and the exit code ([`Report::exit_code`]).

use crate::interfere::INTERFERER;
use rvlab_core::json::object;
use serde_json::Value;

/// The report's JSON format version.
pub const REPORT_VERSION: u32 = 1;

/// How the command under test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (Unix).
    Signal(i32),
    /// It ran past the timeout and was killed.
    TimedOut,
}

/// The command under test, as it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    pub argv: Vec<String>,
    pub ended: Ended,
    /// Wall-clock time it ran, in nanoseconds.
    pub duration_ns: u64,
    pub timeout_ns: u64,
}

/// One client's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub name: String,
    pub requests: u64,
    pub writes: u64,
    /// Responses with code 409 (Conflict, AlreadyExists).
    pub conflicts: u64,
    pub retries_reread: u64,
    pub retries_stale: u64,
    /// 409 Conflicts on a write that the client never followed by another write to the object.
    pub not_retried: u64,
}

/// What followed a write's `409 Conflict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryKind {
    Reread,
    Stale,
}

impl RetryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RetryKind::Reread => "re-read",
            RetryKind::Stale => "stale",
        }
    }
}

/// A write retried after a `409 Conflict`.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    pub client: String,
    /// The object's path (`/api/v1/namespaces/default/configmaps/my-config`).
    pub object: String,
    pub conflict_step: u64,
    pub retry_step: u64,
    pub kind: RetryKind,
    /// The `metadata.resourceVersion` the rejected write and the retry sent (null: none).
    pub rejected_resource_version: Value,
    pub resource_version: Value,
    /// The retry's response code.
    pub code: u64,
}

/// A lost update, as the store detected it, with the values.
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    pub step: u64,
    pub object: String,
    pub path: String,
    /// The field as the overwritten writer left it (null: unknown, e.g. a setup object's).
    pub value_lost: Value,
    /// The field after the losing write (null: removed).
    pub value_written: Value,
    pub writer: String,
    pub overwritten_writer: String,
    pub overwritten_revision: u64,
    pub base_revision: u64,
    pub revision: u64,
}

/// A write of the interferer (or a scripted client's request).
#[derive(Debug, Clone, PartialEq)]
pub struct InjectionSeen {
    pub step: u64,
    /// `rvlab-interferer`, or the scripted client's name.
    pub client: String,
    pub method: String,
    pub path: String,
    pub code: u64,
    pub revision: Value,
}

/// A read answered from an old state (`--stale-reads K`): a step with a `stale_read`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleAnswer {
    pub step: u64,
    pub client: String,
    /// The request's path, as sent.
    pub path: String,
    pub served_revision: u64,
    pub current_revision: u64,
    pub writes_behind: u64,
}

/// The analysis of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Every client but the interferer, by first request.
    pub clients: Vec<ClientStats>,
    pub retries: Vec<Retry>,
    pub lost_updates: Vec<Lost>,
    pub injections: Vec<InjectionSeen>,
    pub stale_answers: Vec<StaleAnswer>,
    pub steps: u64,
    /// Steps the server let go from memory before the analysis (its `dropped`).
    pub dropped: u64,
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn u64_at(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr).and_then(Value::as_u64).unwrap_or(0)
}

fn is_write(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH" | "DELETE")
}

/// The object a step's request is about: its path without the query (and without a
/// subresource `/status`); a POST's is its collection's path and the body's name.
fn object_of(step: &Value) -> String {
    let path = str_at(step, "/request/path");
    let path = path.split('?').next().unwrap_or("");
    if str_at(step, "/request/method") == "POST" {
        let name = str_at(step, "/request/body/metadata/name");
        if !name.is_empty() {
            return format!("{}/{name}", path.trim_end_matches('/'));
        }
    }
    path.strip_suffix("/status").unwrap_or(path).to_string()
}

/// Whether a step is a successful GET of `object` or of the collection holding it.
fn reads(step: &Value, object: &str) -> bool {
    if str_at(step, "/request/method") != "GET" || u64_at(step, "/response/code") != 200 {
        return false;
    }
    let path = str_at(step, "/request/path");
    let path = path.split('?').next().unwrap_or("");
    path == object
        || object
            .rsplit_once('/')
            .is_some_and(|(coll, _)| coll == path)
}

/// The value at a scenario-syntax path (`data.key`, `data["a.b"]`) of an object.
fn leaf_at(obj: &Value, path: &str) -> Value {
    fn walk(v: &Value, here: &str, want: &str) -> Option<Value> {
        if here == want {
            return Some(v.clone());
        }
        let Value::Object(m) = v else { return None };
        for (k, c) in m {
            let p = rvlab_core::store::join_path(here, k);
            if want == p || want.starts_with(&p) {
                if let Some(found) = walk(c, &p, want) {
                    return Some(found);
                }
            }
        }
        None
    }
    walk(obj, "", path).unwrap_or(Value::Null)
}

/// Analyses a trace's steps (in the order the server served them).
pub fn analyze(steps: &[Value], dropped: u64) -> Analysis {
    let mut clients: Vec<ClientStats> = Vec::new();
    let mut retries = Vec::new();
    let mut injections = Vec::new();
    let mut stale_answers = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let client = str_at(step, "/client");
        let method = str_at(step, "/request/method");
        let code = u64_at(step, "/response/code");
        if let Some(s) = step.get("stale_read").filter(|s| s.is_object()) {
            stale_answers.push(StaleAnswer {
                step: u64_at(step, "/index"),
                client: client.to_string(),
                path: str_at(step, "/request/path").to_string(),
                served_revision: u64_at(s, "/served_revision"),
                current_revision: u64_at(s, "/current_revision"),
                writes_behind: u64_at(s, "/writes_behind"),
            });
        }
        if client == INTERFERER || step.get("interference").is_some() {
            injections.push(InjectionSeen {
                step: u64_at(step, "/index"),
                client: client.to_string(),
                method: method.to_string(),
                path: str_at(step, "/request/path").to_string(),
                code,
                revision: step.get("revision").cloned().unwrap_or(Value::Null),
            });
            continue;
        }
        let at = match clients.iter().position(|c| c.name == client) {
            Some(at) => at,
            None => {
                clients.push(ClientStats {
                    name: client.to_string(),
                    ..ClientStats::default()
                });
                clients.len() - 1
            }
        };
        let stats = &mut clients[at];
        stats.requests += 1;
        if !is_write(method) {
            continue;
        }
        stats.writes += 1;
        if code != 409 {
            continue;
        }
        stats.conflicts += 1;
        if str_at(step, "/response/body/reason") != "Conflict" {
            continue;
        }
        let object = object_of(step);
        let rejected_rv = step
            .pointer("/request/body/metadata/resourceVersion")
            .cloned()
            .unwrap_or(Value::Null);
        let mut reread = false;
        // A re-read answered from an old state (`--stale-reads`) may give the rejected
        // resourceVersion again: the client did re-read.
        let mut reread_stale = false;
        let mut retry = None;
        for later in &steps[i + 1..] {
            if str_at(later, "/client") != client {
                continue;
            }
            if reads(later, &object) {
                reread = true;
                reread_stale |= later.get("stale_read").is_some_and(Value::is_object);
            } else if is_write(str_at(later, "/request/method")) && object_of(later) == object {
                retry = Some(later);
                break;
            }
        }
        let Some(later) = retry else {
            stats.not_retried += 1;
            continue;
        };
        let rv = later
            .pointer("/request/body/metadata/resourceVersion")
            .cloned()
            .unwrap_or(Value::Null);
        let kind = if reread && (rv.is_null() || rv != rejected_rv || reread_stale) {
            stats.retries_reread += 1;
            RetryKind::Reread
        } else {
            stats.retries_stale += 1;
            RetryKind::Stale
        };
        retries.push(Retry {
            client: client.to_string(),
            object,
            conflict_step: u64_at(step, "/index"),
            retry_step: u64_at(later, "/index"),
            kind,
            rejected_resource_version: rejected_rv,
            resource_version: rv,
            code: u64_at(later, "/response/code"),
        });
    }
    let mut lost_updates = Vec::new();
    for step in steps {
        let Some(list) = step.get("lost_updates").and_then(Value::as_array) else {
            continue;
        };
        for l in list {
            let path = str_at(l, "/path").to_string();
            let overwritten_revision = u64_at(l, "/overwritten_revision");
            let value_lost = steps
                .iter()
                .find(|s| s.get("revision").and_then(Value::as_u64) == Some(overwritten_revision))
                .and_then(|s| s.pointer("/response/body"))
                .map_or(Value::Null, |b| leaf_at(b, &path));
            let value_written = step
                .pointer("/response/body")
                .filter(|_| str_at(step, "/request/method") != "DELETE")
                .map_or(Value::Null, |b| leaf_at(b, &path));
            lost_updates.push(Lost {
                step: u64_at(step, "/index"),
                object: str_at(l, "/object").to_string(),
                path,
                value_lost,
                value_written,
                writer: str_at(l, "/writer").to_string(),
                overwritten_writer: str_at(l, "/overwritten_writer").to_string(),
                overwritten_revision,
                base_revision: u64_at(l, "/base_revision"),
                revision: u64_at(l, "/revision"),
            });
        }
    }
    Analysis {
        clients,
        retries,
        lost_updates,
        injections,
        stale_answers,
        steps: steps.len() as u64,
        dropped,
    }
}

/// A whole report: the command and the analysis of the server's trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub command: CommandRun,
    pub analysis: Analysis,
    /// The interferer's settings (null: none).
    pub interfere: Option<crate::interfere::InterferenceSettings>,
    /// `--stale-reads K`'s settings (null: off).
    pub stale: Option<crate::stale::StaleReadSettings>,
}

/// `rvlab test`'s exit code when the command timed out (as GNU `timeout`).
pub const EXIT_TIMED_OUT: u8 = 124;

impl Report {
    /// Why the test fails, in order (empty: it passes).
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.command.ended {
            Ended::Exited(0) => {}
            Ended::Exited(c) => out.push(format!("the command exited with {c}")),
            Ended::Signal(s) => out.push(format!("the command was ended by signal {s}")),
            Ended::TimedOut => out.push(format!(
                "the command timed out after {} and was killed",
                seconds(self.command.timeout_ns)
            )),
        }
        let n = self.analysis.lost_updates.len();
        if n > 0 {
            out.push(format!("{n} lost update{}", if n == 1 { "" } else { "s" }));
        }
        out
    }

    /// The exit code: the command's own non-zero code; 124 when it timed out; 1 when a signal
    /// ended it, or when it exited 0 but an update was lost; 0 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self.command.ended {
            Ended::Exited(c) if c != 0 => u8::try_from(c).ok().filter(|&c| c != 0).unwrap_or(1),
            Ended::Signal(_) => 1,
            Ended::TimedOut => EXIT_TIMED_OUT,
            Ended::Exited(_) if self.analysis.lost_updates.is_empty() => 0,
            Ended::Exited(_) => 1,
        }
    }

    /// The report as JSON (docs/json-trace.md, "`rvlab test --report`").
    pub fn to_json(&self) -> Value {
        let c = &self.command;
        let (ended, code, signal) = match c.ended {
            Ended::Exited(code) => ("exited", Value::from(code), Value::Null),
            Ended::Signal(s) => ("signal", Value::Null, Value::from(s)),
            Ended::TimedOut => ("timed-out", Value::Null, Value::Null),
        };
        let a = &self.analysis;
        object(vec![
            ("version", REPORT_VERSION.into()),
            ("passed", self.failures().is_empty().into()),
            ("exit_code", self.exit_code().into()),
            (
                "failures",
                self.failures().into_iter().map(Value::from).collect(),
            ),
            (
                "command",
                object(vec![
                    (
                        "argv",
                        c.argv.iter().map(|s| Value::from(s.as_str())).collect(),
                    ),
                    ("ended", ended.into()),
                    ("code", code),
                    ("signal", signal),
                    ("duration_ms", (c.duration_ns / 1_000_000).into()),
                    ("timeout_ms", (c.timeout_ns / 1_000_000).into()),
                ]),
            ),
            (
                "interfere",
                self.interfere.as_ref().map_or(Value::Null, |s| {
                    object(vec![
                        ("policy", s.policy.name().into()),
                        ("field", s.field.clone().map_or(Value::Null, Value::from)),
                        (
                            "scenario",
                            s.scenario
                                .as_ref()
                                .map_or(Value::Null, |f| f.name.as_str().into()),
                        ),
                        ("max_injections", s.max_injections.into()),
                        ("seed", s.seed.into()),
                    ])
                }),
            ),
            (
                "stale_reads",
                self.stale.as_ref().map_or(Value::Null, |s| {
                    object(vec![
                        ("writes_behind", s.writes_behind.into()),
                        ("max_stale", s.max_stale.into()),
                    ])
                }),
            ),
            ("steps", a.steps.into()),
            ("dropped", a.dropped.into()),
            (
                "clients",
                a.clients
                    .iter()
                    .map(|s| {
                        object(vec![
                            ("name", s.name.as_str().into()),
                            ("requests", s.requests.into()),
                            ("writes", s.writes.into()),
                            ("conflicts", s.conflicts.into()),
                            ("retries_reread", s.retries_reread.into()),
                            ("retries_stale", s.retries_stale.into()),
                            ("not_retried", s.not_retried.into()),
                        ])
                    })
                    .collect(),
            ),
            (
                "retries",
                a.retries
                    .iter()
                    .map(|r| {
                        object(vec![
                            ("client", r.client.as_str().into()),
                            ("object", r.object.as_str().into()),
                            ("conflict_step", r.conflict_step.into()),
                            ("retry_step", r.retry_step.into()),
                            ("kind", r.kind.as_str().into()),
                            (
                                "rejected_resource_version",
                                r.rejected_resource_version.clone(),
                            ),
                            ("resource_version", r.resource_version.clone()),
                            ("code", r.code.into()),
                        ])
                    })
                    .collect(),
            ),
            (
                "lost_updates",
                a.lost_updates
                    .iter()
                    .map(|l| {
                        object(vec![
                            ("step", l.step.into()),
                            ("object", l.object.as_str().into()),
                            ("path", l.path.as_str().into()),
                            ("value_lost", l.value_lost.clone()),
                            ("value_written", l.value_written.clone()),
                            ("writer", l.writer.as_str().into()),
                            ("overwritten_writer", l.overwritten_writer.as_str().into()),
                            ("overwritten_revision", l.overwritten_revision.into()),
                            ("base_revision", l.base_revision.into()),
                            ("revision", l.revision.into()),
                        ])
                    })
                    .collect(),
            ),
            (
                "injections",
                a.injections
                    .iter()
                    .map(|i| {
                        object(vec![
                            ("step", i.step.into()),
                            ("client", i.client.as_str().into()),
                            ("method", i.method.as_str().into()),
                            ("path", i.path.as_str().into()),
                            ("code", i.code.into()),
                            ("revision", i.revision.clone()),
                        ])
                    })
                    .collect(),
            ),
            (
                "stale_answers",
                a.stale_answers
                    .iter()
                    .map(|s| {
                        object(vec![
                            ("step", s.step.into()),
                            ("client", s.client.as_str().into()),
                            ("path", s.path.as_str().into()),
                            ("served_revision", s.served_revision.into()),
                            ("current_revision", s.current_revision.into()),
                            ("writes_behind", s.writes_behind.into()),
                        ])
                    })
                    .collect(),
            ),
        ])
    }

    /// The report as text, one fact a line (what `rvlab test` prints on standard error).
    pub fn to_text(&self) -> String {
        let c = &self.command;
        let a = &self.analysis;
        let mut out = String::new();
        let ended = match c.ended {
            Ended::Exited(code) => format!("exited with {code}"),
            Ended::Signal(s) => format!("was ended by signal {s}"),
            Ended::TimedOut => format!("timed out after {} and was killed", seconds(c.timeout_ns)),
        };
        out.push_str(&format!(
            "rvlab test: `{}` {ended} ({}); the server answered {} request{}\n",
            c.argv.join(" "),
            seconds(c.duration_ns),
            a.steps,
            if a.steps == 1 { "" } else { "s" },
        ));
        if a.dropped > 0 {
            out.push_str(&format!(
                "  note: the oldest {} steps were dropped from the server's memory; the figures cover the rest\n",
                a.dropped
            ));
        }
        for s in &a.clients {
            out.push_str(&format!(
                "  client {}: {} requests, {} writes, {} conflicts (409); after a 409: {} re-read and retried, {} resent a stale body, {} not retried\n",
                s.name, s.requests, s.writes, s.conflicts, s.retries_reread, s.retries_stale, s.not_retried
            ));
        }
        for r in &a.retries {
            if r.kind == RetryKind::Stale {
                out.push_str(&format!(
                    "  stale retry: {} got 409 at step {} on {} and resent at step {} without re-reading it (resourceVersion {}), answered {}\n",
                    r.client, r.conflict_step, r.object, r.retry_step, rv_text(&r.resource_version), r.code
                ));
            }
        }
        match self.interfere.as_ref() {
            None => {}
            Some(s) => {
                let policy = match &s.scenario {
                    Some(f) => format!("{} {}", s.policy.name(), f.name),
                    None => s.policy.name().to_string(),
                };
                let scripted = if s.scenario.is_some() {
                    " (scripted requests)"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "  interferer ({policy}): {} injection{}{scripted}\n",
                    a.injections.len(),
                    if a.injections.len() == 1 { "" } else { "s" }
                ))
            }
        }
        if let Some(s) = self.stale.as_ref() {
            let n = a.stale_answers.len();
            let mut by_client: Vec<(&str, u64)> = Vec::new();
            for x in &a.stale_answers {
                match by_client.iter_mut().find(|(c, _)| *c == x.client) {
                    Some((_, k)) => *k += 1,
                    None => by_client.push((&x.client, 1)),
                }
            }
            let who: Vec<String> = by_client.iter().map(|(c, k)| format!("{c} {k}")).collect();
            out.push_str(&format!(
                "  stale reads ({} write{} behind): {n} stale answer{} served{}\n",
                s.writes_behind,
                if s.writes_behind == 1 { "" } else { "s" },
                if n == 1 { "" } else { "s" },
                if who.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", who.join(", "))
                },
            ));
        }
        if a.lost_updates.is_empty() {
            out.push_str("  no lost updates\n");
        }
        for l in &a.lost_updates {
            let now = if l.value_written.is_null() {
                "removed it".to_string()
            } else {
                format!("wrote {}", l.value_written)
            };
            let lost = if l.value_lost.is_null() {
                "its value".to_string()
            } else {
                l.value_lost.to_string()
            };
            out.push_str(&format!(
                "  LOST UPDATE on {} {}: {} (step {}, revision {}; it had read revision {}) {now} over {lost}, written by {} at revision {}\n",
                l.object, l.path, l.writer, l.step, l.revision, l.base_revision, l.overwritten_writer, l.overwritten_revision
            ));
        }
        let failures = self.failures();
        if failures.is_empty() {
            out.push_str("PASSED\n");
        } else {
            out.push_str(&format!("FAILED: {}\n", failures.join("; ")));
        }
        out
    }
}

fn rv_text(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Nanoseconds as `1.25s`.
fn seconds(ns: u64) -> String {
    format!("{}s", rvlab_core::decimal::fixed(ns, 9, 2))
}

/// Reads a Go-style duration (`30s`, `2m`, `1h30m`, `1.5s`, `500ms`) as nanoseconds; the
/// units are `ns`, `us` (`µs`), `ms`, `s`, `m`, `h`. Zero and negative durations are refused.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let bad = || {
        format!("`{text}` is not a duration: write it like 30s, 2m, 1h30m or 1.5s (units ns, us, ms, s, m, h)")
    };
    let mut rest = text;
    let mut total: u128 = 0;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (num, tail) = rest.split_at(digits);
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let per: u128 = match unit {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        if (int.is_empty() && frac.is_empty()) || frac.contains('.') || frac.len() > 18 {
            return Err(bad());
        }
        let int: u128 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| bad())?
        };
        let frac_part: u128 = if frac.is_empty() {
            0
        } else {
            let f: u128 = frac.parse().map_err(|_| bad())?;
            f * per / 10u128.pow(frac.len() as u32)
        };
        total = int
            .checked_mul(per)
            .and_then(|t| t.checked_add(frac_part))
            .and_then(|t| t.checked_add(total))
            .ok_or_else(bad)?;
        rest = next;
    }
    let total = u64::try_from(total).map_err(|_| bad())?;
    if total == 0 {
        return Err(format!("`{text}` is zero: the timeout must be longer"));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(
        i: u64,
        client: &str,
        method: &str,
        path: &str,
        body: Value,
        code: u64,
        resp: Value,
    ) -> Value {
        json!({"index": i, "client": client, "request": {"method": method, "path": path, "body": body},
               "response": {"code": code, "body": resp}, "revision": null, "lost_updates": []})
    }

    const CM: &str = "/api/v1/namespaces/default/configmaps/c";

    fn conflict() -> Value {
        json!({"kind": "Status", "reason": "Conflict", "code": 409})
    }

    fn put(i: u64, client: &str, rv: &str, code: u64) -> Value {
        let resp = if code == 409 { conflict() } else { json!({}) };
        step(
            i,
            client,
            "PUT",
            CM,
            json!({"metadata": {"name": "c", "resourceVersion": rv}}),
            code,
            resp,
        )
    }

    #[test]
    fn durations_read_as_go_writes_them() {
        assert_eq!(parse_duration("30s"), Ok(30_000_000_000));
        assert_eq!(parse_duration("2m"), Ok(120_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("500ms"), Ok(500_000_000));
        for bad in [
            "",
            "10",
            "s",
            "1x",
            "1..5s",
            "-1s",
            "1 s",
            "99999999999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("0s").unwrap_err().contains("zero"));
    }

    #[test]
    fn a_retry_with_a_reread_and_a_stale_one_are_told_apart() {
        let steps = vec![
            put(0, "good", "1", 409),
            step(1, "good", "GET", CM, Value::Null, 200, json!({})),
            put(2, "good", "5", 200),
            put(3, "bad", "1", 409),
            put(4, "bad", "1", 409),
            // a GET, but the same stale body again
            step(
                5,
                "bad",
                "GET",
                "/api/v1/namespaces/default/configmaps",
                Value::Null,
                200,
                json!({}),
            ),
            put(6, "bad", "1", 409),
        ];
        let a = analyze(&steps, 0);
        let kinds: Vec<_> = a
            .retries
            .iter()
            .map(|r| (r.client.as_str(), r.kind, r.retry_step))
            .collect();
        assert_eq!(
            kinds,
            [
                ("good", RetryKind::Reread, 2),
                ("bad", RetryKind::Stale, 4),
                ("bad", RetryKind::Stale, 6)
            ]
        );
        assert_eq!(a.clients[1].conflicts, 3);
        assert_eq!(a.clients[1].not_retried, 1);
        assert_eq!(a.clients[0].retries_reread, 1);
    }

    #[test]
    fn a_lost_update_carries_the_values_and_the_interferer_is_apart() {
        let mut first = put(0, "alice", "1", 200);
        first["revision"] = json!(2);
        first["response"]["body"] = json!({"data": {"a.b": "from-alice"}});
        let mut second = step(
            1,
            "bob",
            "PATCH",
            CM,
            json!({"data": {"a.b": "from-bob"}}),
            200,
            json!({"data": {"a.b": "from-bob"}}),
        );
        second["revision"] = json!(3);
        second["lost_updates"] = json!([{"object": "configmap/c", "path": "data[\"a.b\"]", "writer": "bob",
            "overwritten_writer": "alice", "overwritten_revision": 2, "base_revision": 1, "revision": 3}]);
        let inj = step(2, INTERFERER, "PATCH", CM, json!({}), 200, json!({}));
        let a = analyze(&[first, second, inj], 0);
        assert_eq!(a.lost_updates[0].value_lost, json!("from-alice"));
        assert_eq!(a.lost_updates[0].value_written, json!("from-bob"));
        assert_eq!(a.injections.len(), 1);
        assert_eq!(a.clients.len(), 2);
        let r = Report {
            command: CommandRun {
                argv: vec!["x".into()],
                ended: Ended::Exited(0),
                duration_ns: 0,
                timeout_ns: 1,
            },
            analysis: a,
            interfere: None,
            stale: None,
        };
        assert_eq!(r.exit_code(), 1);
        assert!(
            r.to_text()
                .contains("LOST UPDATE on configmap/c data[\"a.b\"]: bob"),
            "{}",
            r.to_text()
        );
    }

    #[test]
    fn a_scripted_clients_steps_are_injections_not_a_client_under_test() {
        let mut scripted = step(0, "alice", "PUT", CM, json!({}), 200, json!({}));
        scripted["interference"] = json!({"policy": "scenario", "scripted_client": "alice"});
        let real = put(1, "python", "1", 409);
        let a = analyze(&[scripted, real], 0);
        assert_eq!(a.injections.len(), 1);
        assert_eq!(a.injections[0].client, "alice");
        let names: Vec<&str> = a.clients.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["python"]);
        let r = Report {
            command: CommandRun {
                argv: vec!["x".into()],
                ended: Ended::Exited(0),
                duration_ns: 0,
                timeout_ns: 1,
            },
            analysis: a,
            interfere: Some(crate::interfere::InterferenceSettings::scenario(
                crate::interfere::ScenarioFile {
                    name: "s.rvl".into(),
                    text: String::new(),
                },
            )),
            stale: None,
        };
        assert!(
            r.to_text()
                .contains("  interferer (scenario s.rvl): 1 injection (scripted requests)\n"),
            "{}",
            r.to_text()
        );
        let j = r.to_json();
        assert_eq!(j["interfere"]["policy"], "scenario");
        assert_eq!(j["interfere"]["scenario"], "s.rvl");
        assert_eq!(j["injections"][0]["client"], "alice");
    }

    #[test]
    fn exit_codes() {
        let r = |ended| Report {
            command: CommandRun {
                argv: vec![],
                ended,
                duration_ns: 0,
                timeout_ns: 1,
            },
            analysis: analyze(&[], 0),
            interfere: None,
            stale: None,
        };
        assert_eq!(r(Ended::Exited(0)).exit_code(), 0);
        assert_eq!(r(Ended::Exited(3)).exit_code(), 3);
        assert_eq!(r(Ended::Exited(256)).exit_code(), 1);
        assert_eq!(r(Ended::Signal(9)).exit_code(), 1);
        assert_eq!(r(Ended::TimedOut).exit_code(), EXIT_TIMED_OUT);
    }

    #[test]
    fn stale_answers_are_counted_and_a_write_over_one_is_a_lost_update() {
        let mut read = step(0, "python", "GET", CM, Value::Null, 200, json!({}));
        read["stale_read"] = json!({"served_revision": 100, "current_revision": 101, "writes_behind": 1, "why": "…"});
        let fresh = step(1, "python", "GET", CM, Value::Null, 200, json!({}));
        let mut write = step(
            2,
            "python",
            "PUT",
            CM,
            json!({"metadata": {"name": "c"}, "data": {"key": "from-bob"}}),
            200,
            json!({"data": {"key": "from-bob"}}),
        );
        write["lost_updates"] = json!([{"object": "configmap/c", "path": "data.other", "writer": "python",
            "overwritten_writer": "alice", "overwritten_revision": 101, "base_revision": 100, "revision": 102}]);
        // A retry after a 409 whose re-read was a stale answer counts as a re-read, even with
        // the rejected resourceVersion again.
        let mut stale_reread = step(11, "python", "GET", CM, Value::Null, 200, json!({}));
        stale_reread["stale_read"] = read["stale_read"].clone();
        let retries = analyze(
            &[
                put(10, "python", "100", 409),
                stale_reread,
                put(12, "python", "100", 409),
            ],
            0,
        );
        assert_eq!(retries.retries[0].kind, RetryKind::Reread);
        let a = analyze(&[read, fresh, write], 0);
        assert_eq!(
            a.stale_answers,
            [StaleAnswer {
                step: 0,
                client: "python".into(),
                path: CM.into(),
                served_revision: 100,
                current_revision: 101,
                writes_behind: 1
            }]
        );
        let r = Report {
            command: CommandRun {
                argv: vec!["x".into()],
                ended: Ended::Exited(0),
                duration_ns: 0,
                timeout_ns: 1,
            },
            analysis: a,
            interfere: None,
            stale: Some(crate::stale::StaleReadSettings::new(1)),
        };
        assert_eq!(r.exit_code(), 1);
        let text = r.to_text();
        assert!(
            text.contains("  stale reads (1 write behind): 1 stale answer served (python 1)\n"),
            "{text}"
        );
        assert!(text.contains("it had read revision 100"), "{text}");
        let j = r.to_json();
        assert_eq!(
            j["stale_reads"],
            json!({"writes_behind": 1, "max_stale": 3})
        );
        assert_eq!(j["stale_answers"][0]["served_revision"], 100);
        assert_eq!(j["stale_answers"][0]["client"], "python");
    }
}
