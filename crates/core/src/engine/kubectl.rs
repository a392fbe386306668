//! kubectl statements (issue #14): a `kubectl …` statement runs a [`Machine`], one request per
//! step (the explorer interleaves other clients between kubectl's GET and its PATCH, as in
//! reality), and a `file` statement edits one of the client's files.
//!
//! - The first step of a command evaluates its edit block, starts the machine and sends its
//!   first request; each following step sends the next one. A wait the machine asks for before
//!   a request (kubectl's back-off between apply retries) sets the client's wake-up time, as a
//!   backoff sleep does. A command that fails before sending anything (a file never written) is
//!   one step with no request.
//! - Every request goes through the store as a request statement's does: under the client's
//!   name, based on the latest revision of the object the client observed, so lost updates and
//!   provenance work for kubectl's writes too; its verb (for the narration and the timeline) is
//!   the request's kind: a client-side apply's PATCH is a strategic merge patch, a server-side
//!   apply an apply, and so on.
//! - When the command is done, its [`Terminal`] is the client's last one. Exit 0 goes on to the
//!   next statement; any other exit stops the client as `set -e` stops a shell script: with the
//!   reason of the server's Status when one caused it (so `expect bob fails with Conflict`
//!   holds, and inside `retry on conflict:` a Conflict retries), else with reason
//!   [`KUBECTL_ERROR`] and kubectl's standard error as the message.

use super::expr;
use super::narrate;
use super::records::{Failure, KubectlStep, Mark, StepKind, StepRecord, WriteKind};
use super::request::Sent;
use super::world::{eval_body, World};
use crate::json::{hash_value, same_value, HValue};
use crate::kubectl::{After, Command, File, Machine, Reply, Terminal};
use crate::lang::ast::{Expr, Path, Scenario, SetupBody};
use crate::store::{Method, ObjectRef, Request};
use serde_json::Value;
use std::hash::{Hash, Hasher};

/// The reason of a client stopped by a kubectl command that exited non-zero without an error
/// Status from the server (a file never written, a patch that changes nothing it could
/// apply…).
pub const KUBECTL_ERROR: &str = "KubectlError";

/// A kubectl command between two of its requests.
#[derive(Debug, Clone)]
pub struct Running {
    pub machine: Machine,
    /// The request the client's next step sends.
    pub request: Request,
    /// Its index in the command, from 0.
    pub index: u32,
}

impl PartialEq for Running {
    fn eq(&self, o: &Self) -> bool {
        let (a, b) = (&self.request, &o.request);
        self.machine == o.machine
            && self.index == o.index
            && a.method == b.method
            && a.path == b.path
            && a.content_type == b.content_type
            && match (&a.body, &b.body) {
                (Some(x), Some(y)) => same_value(x, y),
                (None, None) => true,
                _ => false,
            }
    }
}

impl Eq for Running {}

impl Hash for Running {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.machine.hash(h);
        self.index.hash(h);
        let r = &self.request;
        r.method.hash(h);
        r.path.hash(h);
        r.content_type.hash(h);
        match &r.body {
            Some(b) => {
                1u8.hash(h);
                hash_value(b, h);
            }
            None => 0u8.hash(h),
        }
    }
}

/// A file holding `value`, its text as kubectl's YAML.
pub(super) fn file_of(value: Value) -> File {
    File {
        text: crate::kubectl::print::yaml(&value),
        value: Some(HValue(value)),
    }
}

/// The request's verb as the narration and the timeline name it.
pub fn request_verb(r: &Request) -> WriteKind {
    match r.method {
        Method::Get => WriteKind::Get,
        Method::Post => WriteKind::Create,
        Method::Put => WriteKind::Update,
        Method::Delete => WriteKind::Delete,
        Method::Patch => match r.content_type.as_deref() {
            Some("application/merge-patch+json") => WriteKind::MergePatch,
            Some("application/json-patch+json") => WriteKind::JsonPatch,
            Some("application/apply-patch+yaml") => WriteKind::Apply,
            _ => WriteKind::StrategicPatch,
        },
    }
}

/// The object a request addresses: the path's, or for a POST the body's name in the path's
/// collection; `None` for a list.
pub fn request_target(r: &Request) -> Option<ObjectRef> {
    let t = crate::store::path::parse(&r.path).ok()?;
    let name = match t.name {
        Some(n) => n,
        None if r.method == Method::Post => r
            .body
            .as_ref()?
            .pointer("/metadata/name")?
            .as_str()?
            .to_string(),
        None => return None,
    };
    Some(ObjectRef {
        resource: t.resource,
        namespace: t.namespace,
        name,
    })
}

/// The failure of a command that exited non-zero (see the module docs).
pub(super) fn failure_of(t: &Terminal) -> Failure {
    match &t.status {
        Some(s) => {
            let text = |k: &str| s.0[k].as_str().unwrap_or("").to_string();
            Failure {
                reason: text("reason"),
                message: text("message"),
                code: s.0["code"].as_u64().and_then(|c| u16::try_from(c).ok()),
                status: Some(s.clone()),
            }
        }
        None => Failure {
            reason: KUBECTL_ERROR.into(),
            message: t.stderr().trim_end().to_string(),
            code: None,
            status: None,
        },
    }
}

/// "kubectl prints: configmap/my-config configured", "kubectl prints nothing", with the exit
/// status.
fn printed(t: &Terminal, cmd: &Command) -> String {
    let all: String = t.chunks.iter().map(|c| c.text.as_str()).collect();
    let mut lines = all.lines().filter(|l| !l.trim().is_empty());
    let mut s = match lines.next() {
        None => "kubectl prints nothing".to_string(),
        Some(first) => {
            let more = lines.count();
            let mut s = format!("kubectl prints: {}", first.trim_end());
            if more > 0 {
                s.push_str(&format!(" (and {more} more line{})", plural(more)));
            }
            s
        }
    };
    if let Some(f) = &cmd.redirect {
        s.push_str(&format!(" (its standard output goes to the file {f})"));
    }
    s.push_str(&format!("; it exits {}", t.exit));
    s
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl World {
    /// One step of a `kubectl` statement: start the command and send its first request, or
    /// send the next request of the command in progress (see the module docs).
    pub(super) fn kubectl_stmt(
        &mut self,
        via: &mut dyn super::request::Transport,
        scenario: &Scenario,
        client: u32,
        cmd: &Command,
        edits: &[(Path, Expr)],
        mut rec: StepRecord,
    ) -> StepRecord {
        if !crate::kubectl::IN_BUILD {
            let msg = crate::kubectl::NOT_IN_BUILD.to_string();
            return self.runtime_error(scenario, client, rec, msg);
        }
        let name = scenario.clients[client as usize].name.clone();
        let command = format!("kubectl {}", cmd.line);
        let ci = client as usize;
        let (mut machine, request, index) = match self.clients[ci].kubectl.take() {
            Some(r) => (r.machine, r.request, r.index),
            None => {
                let c = &self.clients[ci];
                let mut evaluated = Vec::with_capacity(edits.len());
                for (path, e) in edits {
                    match expr::eval(e, &c.vars) {
                        Ok(v) => evaluated.push((path.clone(), HValue(v))),
                        Err(msg) => return self.runtime_error(scenario, client, rec, msg),
                    }
                }
                match Machine::start(cmd, evaluated, &c.files) {
                    Ok((m, req)) => (m, req, 0),
                    Err(terminal) => {
                        if terminal.exit != 0 {
                            rec.action = StepKind::Error;
                            rec.mark = Mark::OtherError;
                        }
                        rec.kubectl = Some(KubectlStep {
                            command: command.clone(),
                            request_index: 0,
                            terminal: None,
                        });
                        let sentence = format!("{name} runs `{command}`: kubectl sends no request");
                        return self.finish_kubectl(scenario, client, cmd, rec, terminal, sentence);
                    }
                }
            }
        };
        rec.action = StepKind::Request;
        rec.kubectl = Some(KubectlStep {
            command: command.clone(),
            request_index: index,
            terminal: None,
        });
        let verb = request_verb(&request);
        let target = request_target(&request);
        let base = target
            .as_ref()
            .map_or(0, |t| self.observed_revision(client, t));
        let now_ms = self.clock_nanos / 1_000_000;
        let Sent {
            response,
            revision,
            lost_updates,
            warnings,
            before,
            after,
        } = self.send(via, client, &name, &request, target.as_ref(), base, verb);
        let what = match &target {
            // kubectl apply and kubectl create look first: absence is an answer, not a failure.
            Some(t) if verb == WriteKind::Get && response.code == 404 => {
                format!("kubectl looked for {t}: it does not exist (404 NotFound)")
            }
            Some(t) => narrate::request(&narrate::RequestCtx {
                client: "kubectl",
                verb,
                target: t,
                request: &request,
                response: &response,
                revision,
                before,
                after,
                lost: &lost_updates,
                store: &self.store,
                verbs: &self.write_verbs,
            }),
            None => {
                let what = match crate::store::path::parse(&request.path) {
                    Ok(t) if t.namespace.is_empty() => format!("all {}", t.resource.plural()),
                    Ok(t) => format!("the {} in {}", t.resource.plural(), t.namespace),
                    Err(_) => request.path.clone(),
                };
                format!(
                    "kubectl lists {what} ({})",
                    crate::store::status::status_line(response.code)
                )
            }
        };
        let ordinal = if index == 0 {
            String::new()
        } else {
            format!(" (request {})", index + 1)
        };
        let sentence = format!("{name} runs `{command}`{ordinal}: {what}");
        rec.verb = Some(verb);
        rec.target = target;
        rec.mark = narrate::mark(&response, !lost_updates.is_empty());
        rec.sent_resource_version = super::request::sent_resource_version(&request);
        rec.stored_revision = before;
        rec.revision = revision;
        rec.lost_updates = lost_updates;
        let next = machine.receive(
            cmd,
            Reply {
                response: &response,
                warnings: &warnings,
                now_ms,
            },
            &mut self.clients[ci].files,
        );
        rec.request = Some(request);
        rec.response = Some(response);
        match next {
            After::Send {
                request,
                wait_nanos,
            } => {
                let c = &mut self.clients[ci];
                let mut sentence = sentence;
                if wait_nanos > 0 {
                    c.ready_at = self.clock_nanos.saturating_add(wait_nanos);
                    sentence.push_str(&format!(
                        "; kubectl waits {} before its next request",
                        narrate::fmt_duration(wait_nanos)
                    ));
                }
                c.kubectl = Some(Running {
                    machine,
                    request,
                    index: index.saturating_add(1),
                });
                rec.narration = sentence;
                rec
            }
            After::Done(terminal) => {
                self.finish_kubectl(scenario, client, cmd, rec, terminal, sentence)
            }
        }
    }

    /// The command finished with `terminal`: record it, then go on (exit 0) or fail the client.
    fn finish_kubectl(
        &mut self,
        scenario: &Scenario,
        client: u32,
        cmd: &Command,
        mut rec: StepRecord,
        terminal: Terminal,
        sentence: String,
    ) -> StepRecord {
        let mut sentence = format!("{sentence}; {}", printed(&terminal, cmd));
        if let Some(k) = rec.kubectl.as_mut() {
            k.terminal = Some(terminal.clone());
        }
        let exit = terminal.exit;
        let failure = (exit != 0).then(|| failure_of(&terminal));
        self.clients[client as usize].terminal = Some(terminal);
        match failure {
            None => self.advance(client),
            Some(f) => {
                let note = self.fail(scenario, client, f);
                sentence = format!("{sentence}; {note}");
            }
        }
        rec.narration = sentence;
        rec
    }

    /// A `file "F" = …` / `file "F":` statement: writes or edits the client's file (local:
    /// nothing is sent).
    pub(super) fn file_stmt(
        &mut self,
        scenario: &Scenario,
        client: u32,
        file: &str,
        body: &SetupBody,
        mut rec: StepRecord,
    ) -> StepRecord {
        if !crate::kubectl::IN_BUILD {
            let msg = crate::kubectl::NOT_IN_BUILD.to_string();
            return self.runtime_error(scenario, client, rec, msg);
        }
        let name = scenario.clients[client as usize].name.clone();
        let c = &self.clients[client as usize];
        let base = match (body, c.files.get(file)) {
            (SetupBody::Literal(_), _) | (_, None) => None,
            (SetupBody::Fields(_), Some(f)) => match &f.value {
                Some(v) => Some(v.0.clone()),
                None => {
                    let msg = format!(
                        "the file {file} holds no object to edit (it holds text kubectl printed)"
                    );
                    return self.runtime_error(scenario, client, rec, msg);
                }
            },
        };
        let existed = c.files.contains_key(file);
        let value = match eval_body(body, &c.vars, file, base) {
            Ok(v) => v,
            Err(msg) => return self.runtime_error(scenario, client, rec, msg),
        };
        rec.mark = Mark::Local;
        rec.narration = match body {
            SetupBody::Literal(_) => format!(
                "{name} wrote the file {file}: {} (a local file: nothing is sent)",
                narrate::short_json(&value)
            ),
            SetupBody::Fields(fields) => {
                let paths: Vec<String> = fields.iter().map(|(p, _)| expr::path_text(p)).collect();
                format!(
                    "{name} {} the file {file}, setting {} (a local file: nothing is sent)",
                    if existed { "edited" } else { "wrote" },
                    paths.join(", ")
                )
            }
        };
        self.clients[client as usize]
            .files
            .set(file, file_of(value));
        self.advance(client);
        rec
    }

    /// Whether the client's next step continues a kubectl command it has started.
    pub fn kubectl_running(&self, client: u32) -> bool {
        self.clients
            .get(client as usize)
            .is_some_and(|c| c.kubectl.is_some())
    }
}
