//! Plain, preformatted views of a run for the page (and the CLI): every label is ready to show,
//! no logic is left to the UI.

use crate::engine::{fmt_duration, ClientOutcome, Mark, StepKind, StepRecord, World, WriteKind};
use crate::lang::ast::{Client, Scenario, Stmt, StmtKind};
use crate::run::Run;
use crate::schedule::letter;
use crate::store::{EventType, Method, ObjectRef, Request, Response};
use crate::yaml;
use serde_json::Value;

/// One step of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView {
    /// 0-based position in the run.
    pub index: u32,
    /// 1-based, as shown.
    pub number: u32,
    pub client_index: u32,
    pub client: String,
    pub letter: char,
    pub line: u32,
    pub statement: String,
    /// The virtual clock when the step ran (`10.4ms`).
    pub clock: String,
    pub clock_nanos: u64,
    /// `PUT /api/v1/namespaces/default/configmaps/my-config?fieldManager=bob`.
    pub request_line: Option<String>,
    pub content_type: Option<String>,
    /// Pretty JSON.
    pub request_body: Option<String>,
    /// The resourceVersion the request carried in its body (`100`), from the request the
    /// engine built: an object's `metadata.resourceVersion`, or a JSON patch operation's
    /// value on `/metadata/resourceVersion`.
    pub sent_resource_version: Option<String>,
    /// `409 Conflict`.
    pub status_line: Option<String>,
    pub status_code: Option<u16>,
    /// Pretty JSON, exactly the server's body.
    pub response_body: Option<String>,
    pub narration: String,
    /// One sentence per lost update this step caused.
    pub lost_updates: Vec<String>,
    pub mark: Mark,
    /// `ok`, `conflict`, …
    pub mark_label: &'static str,
    /// The revision this step wrote.
    pub revision: Option<u64>,
    /// The kubectl command a `kubectl` statement runs, else the equivalent kubectl command of
    /// the request, where one exists.
    pub kubectl: Option<String>,
    /// Whether the step sent a request.
    pub sends_request: bool,
    /// `done: succeeded` / `done: failed with 409 Conflict` when the client finished here.
    pub finished: Option<String>,
    /// The storage step behind a write ([`storage_step`]): what the apiserver asks etcd, and
    /// where a conflict is detected.
    pub storage: Option<String>,
}

/// A server object, as `kubectl get -o yaml` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectView {
    /// `configmap/my-config`.
    pub name: String,
    pub resource_version: String,
    /// The whole YAML text.
    pub yaml: String,
    /// The same, line by line, with the `resourceVersion` line flagged for highlighting.
    pub lines: Vec<YamlLine>,
}

/// One YAML line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlLine {
    pub text: String,
    /// This is `metadata.resourceVersion`.
    pub resource_version: bool,
}

/// One entry of the server's event log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventView {
    /// `ADDED`, `MODIFIED`, `DELETED`.
    pub kind: &'static str,
    pub object: String,
    pub revision: u64,
    pub writer: String,
    /// `MODIFIED configmap/my-config at 101 by alice`.
    pub text: String,
}

/// Where a client is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientStatus {
    Ready,
    Sleeping { until: String },
    Succeeded,
    Failed { reason: String, message: String },
}

/// A client variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarView {
    pub name: String,
    /// The value as YAML (objects) or JSON (scalars).
    pub text: String,
    /// The object it holds (`configmap/my-config`), when it came from the server.
    pub object: Option<String>,
    /// `metadata.resourceVersion` as the variable holds it (possibly edited by hand).
    pub resource_version: Option<String>,
    /// The revision of the response it came from.
    pub base: Option<u64>,
    /// The server has moved the object past `base` (or deleted it).
    pub stale: bool,
    /// `stale: the server is at 101` / `current`.
    pub stale_label: Option<String>,
}

/// A client's panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientView {
    pub index: u32,
    pub name: String,
    pub letter: char,
    pub status: ClientStatus,
    /// `ready`, `sleeping until 10.4ms`, `done`, `failed: 409 Conflict`.
    pub status_label: String,
    /// The next statement (`backoff sleep (DefaultRetry)` when it is a backoff sleep).
    pub next_statement: Option<String>,
    pub next_line: Option<u32>,
    pub next_sends_request: bool,
    /// `attempt 2 of 5 (DefaultRetry)` inside a retry block.
    pub attempt: Option<String>,
    pub vars: Vec<VarView>,
    /// The client's files (kubectl's `-f F` and `> F`), in name order.
    pub files: Vec<FileView>,
}

/// One of a client's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileView {
    pub name: String,
    /// The file's text, as kubectl would read it from disk (YAML for an object).
    pub text: String,
}

/// One command in a client's terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalEntry {
    /// The command line as typed (`kubectl apply -f my-config.yaml`), shown after `$ `.
    pub command: String,
    /// What it printed so far, in order (stdout and stderr interleaved as written). Empty
    /// while the command runs: kubectl's output appears at the step of its last request.
    pub chunks: Vec<crate::kubectl::Chunk>,
    /// The exit status, once the command finished (`None`: still running).
    pub exit: Option<u8>,
    /// The steps (0-based indices in the run) of the command's first and latest request.
    pub first_step: u32,
    pub last_step: u32,
}

/// A client's terminal: its kubectl commands up to a step, the one in progress last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalView {
    pub client_index: u32,
    pub client: String,
    pub entries: Vec<TerminalEntry>,
}

/// The state after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldView {
    pub clock: String,
    pub objects: Vec<ObjectView>,
    pub events: Vec<EventView>,
    pub clients: Vec<ClientView>,
    /// Every lost update so far, as sentences.
    pub lost_updates: Vec<String>,
    pub finished: bool,
}

pub use crate::store::status::{reason_phrase, status_line};

/// `serde_json::to_string_pretty`, through `Value`'s `{:#}` Display (the same printer and
/// indent), which the page links anyway: one pretty serializer instead of two (docs/size.md).
fn pretty(v: &Value) -> String {
    format!("{v:#}")
}

fn kubectl_target(t: &ObjectRef) -> String {
    let ns = if t.namespace == "default" {
        String::new()
    } else {
        format!(" -n {}", t.namespace)
    };
    format!("{} {}{ns}", t.resource.short(), t.name)
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The kubectl command that sends the same request, where one exists.
pub fn kubectl_command(rec: &StepRecord) -> Option<String> {
    let t = rec.target.as_ref()?;
    let req: &Request = rec.request.as_ref()?;
    let body = req.body.as_ref().map(|b| b.to_string()).unwrap_or_default();
    // kubectl get, patch and replace take `--subresource=status`; apply has no such flag.
    let status = crate::engine::to_status(req);
    if status && rec.verb? == WriteKind::Apply {
        return None;
    }
    let target = if status {
        format!("{} --subresource=status", kubectl_target(t))
    } else {
        kubectl_target(t)
    };
    let kubectl_target = |_: &ObjectRef| target.clone();
    Some(match rec.verb? {
        WriteKind::Get => format!("kubectl get {} -o yaml", kubectl_target(t)),
        WriteKind::Update if status => {
            "kubectl replace --subresource=status -f obj.yaml".to_string()
        }
        WriteKind::Update => "kubectl replace -f obj.yaml".to_string(),
        WriteKind::Create => "kubectl create -f obj.yaml".to_string(),
        WriteKind::MergePatch => format!(
            "kubectl patch {} --type=merge -p {}",
            kubectl_target(t),
            shell_quote(&body)
        ),
        WriteKind::JsonPatch => format!(
            "kubectl patch {} --type=json -p {}",
            kubectl_target(t),
            shell_quote(&body)
        ),
        WriteKind::StrategicPatch => format!(
            "kubectl patch {} --type=strategic -p {}",
            kubectl_target(t),
            shell_quote(&body)
        ),
        WriteKind::Apply => {
            let manager = req
                .path
                .split("fieldManager=")
                .nth(1)
                .map(|m| m.split('&').next().unwrap_or(m))
                .unwrap_or("kubectl");
            let force = if req.path.contains("force=true") {
                " --force-conflicts"
            } else {
                ""
            };
            format!("kubectl apply --server-side --field-manager={manager}{force} -f -")
        }
        WriteKind::Delete => {
            if req.body.is_some() {
                // kubectl delete has no flag for preconditions.
                return None;
            }
            format!("kubectl delete {}", kubectl_target(t))
        }
        WriteKind::Setup => return None,
    })
}

/// The view of one step.
pub fn step_view(scenario: &Scenario, index: u32, rec: &StepRecord) -> StepView {
    let name = scenario
        .clients
        .get(rec.client as usize)
        .map_or_else(String::new, |c| c.name.clone());
    step_view_named(&name, index, rec)
}

/// The view of one step of the client `name` (`rvlab serve`'s live view names real clients).
pub fn step_view_named(name: &str, index: u32, rec: &StepRecord) -> StepView {
    let name = name.to_string();
    let response: Option<&Response> = rec.response.as_ref();
    StepView {
        index,
        number: index + 1,
        client_index: rec.client,
        client: name.clone(),
        letter: letter(rec.client),
        line: rec.line,
        statement: rec.statement.clone(),
        clock: fmt_duration(rec.clock_nanos),
        clock_nanos: rec.clock_nanos,
        request_line: rec
            .request
            .as_ref()
            .map(|r| format!("{} {}", r.method.as_str(), r.path)),
        content_type: rec.request.as_ref().and_then(|r| r.content_type.clone()),
        request_body: rec
            .request
            .as_ref()
            .and_then(|r| r.body.as_ref())
            .map(pretty),
        sent_resource_version: rec.sent_resource_version.clone(),
        status_line: response.map(|r| status_line(r.code)),
        status_code: response.map(|r| r.code),
        response_body: response.map(|r| pretty(&r.body)),
        narration: rec.narration.clone(),
        lost_updates: rec
            .lost_updates
            .iter()
            .map(|l| crate::engine::lost_sentence(l, rec.verb.unwrap_or(WriteKind::Update)))
            .collect(),
        mark: rec.mark,
        mark_label: rec.mark.as_str(),
        revision: rec.revision,
        kubectl: match &rec.kubectl {
            Some(k) => Some(k.command.clone()),
            None => kubectl_command(rec),
        },
        sends_request: rec.action == StepKind::Request,
        finished: rec.finished.as_ref().map(|o| format!("{name} {o}")),
        storage: storage_step(rec),
    }
}

/// The storage step behind a write, as the apiserver on etcd takes it (k8s.io/apiserver `pkg/storage/etcd3/store.go`;
/// `rvlab serve --etcd` sends exactly these): an effective write is one transaction on
/// the object's key, comparing the `mod_revision` the apiserver read (0: absent) before it
/// puts or deletes; a create of an existing name is that compare failing; a stale
/// resourceVersion is refused by the apiserver's own comparison with the key's
/// `mod_revision`, before any transaction; a no-op write sends none. `None` for a read, and
/// for a request refused before storage.
pub fn storage_step(rec: &StepRecord) -> Option<String> {
    // Not in the page's first build (index.html): it would be 0.7 kB over the page's budget
    // (docs/size.md); the kubectl build and the live view show it.
    if !crate::kubectl::IN_BUILD {
        return None;
    }
    let (req, resp, t) = (
        rec.request.as_ref()?,
        rec.response.as_ref()?,
        rec.target.as_ref()?,
    );
    let key = t.registry_key();
    let read = rec.stored_revision.unwrap_or(0);
    let txn = |expected: u64| format!("etcd txn: compare mod_revision({key}) = {expected}");
    Some(match (resp.code, rec.revision, req.method) {
        (_, _, Method::Get) => return None,
        (200..=299, Some(n), m) => {
            let op = if m == Method::Delete { "delete" } else { "put" };
            format!("{} → true → {op}, revision {n}", txn(read))
        }
        (200..=299, None, _) => format!("unchanged: no etcd transaction ({key} stays at {read})"),
        (409, _, Method::Post) if read > 0 => format!("{} → false (it is {read}) → 409", txn(0)),
        (409, _, _) => {
            let sent = rec.sent_resource_version.as_deref()?;
            format!("read {key}: mod_revision {read}; resourceVersion {sent} ≠ {read} → 409, no etcd transaction")
        }
        _ => return None,
    })
}

/// Every step of a run.
pub fn steps_view(run: &Run) -> Vec<StepView> {
    run.steps
        .iter()
        .enumerate()
        .map(|(i, r)| step_view(&run.scenario, i as u32, r))
        .collect()
}

/// An object as `kubectl get -o yaml` shows it (managedFields hidden, as kubectl does by
/// default).
pub fn object_view(obj: &Value) -> ObjectView {
    let mut shown = obj.clone();
    if let Some(Value::Object(meta)) = shown.get_mut("metadata") {
        meta.remove("managedFields");
    }
    let text = yaml::to_yaml(&shown);
    let lines = text
        .lines()
        .map(|l| YamlLine {
            text: l.to_string(),
            resource_version: l.starts_with("  resourceVersion:"),
        })
        .collect();
    let kind = obj["kind"].as_str().unwrap_or("");
    let short = match kind {
        "ConfigMap" => "configmap".to_string(),
        "Deployment" => "deployment".to_string(),
        other => {
            let group = obj["apiVersion"]
                .as_str()
                .and_then(|a| a.split('/').next())
                .unwrap_or("");
            format!("{}.{group}", other.to_ascii_lowercase())
        }
    };
    let ns = obj["metadata"]["namespace"].as_str().unwrap_or("default");
    let mut name = format!("{short}/{}", obj["metadata"]["name"].as_str().unwrap_or(""));
    if ns != "default" {
        name.push_str(&format!(" in {ns}"));
    }
    ObjectView {
        name,
        resource_version: obj["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        yaml: text,
        lines,
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Object(m) if !m.is_empty() => yaml::to_yaml(v),
        Value::Array(a) if !a.is_empty() => yaml::to_yaml(v),
        other => other.to_string(),
    }
}

/// Every client's terminal after the first `steps` steps of the run (clamped to its length),
/// from the run's records: each kubectl command that started by then, in order, with its
/// output when it finished by then.
pub fn terminals(run: &Run, steps: usize) -> Vec<TerminalView> {
    let mut out: Vec<TerminalView> = run
        .scenario
        .clients
        .iter()
        .enumerate()
        .map(|(i, c)| TerminalView {
            client_index: i as u32,
            client: c.name.clone(),
            entries: Vec::new(),
        })
        .collect();
    for (i, rec) in run.steps.iter().take(steps).enumerate() {
        let (Some(k), Some(t)) = (&rec.kubectl, out.get_mut(rec.client as usize)) else {
            continue;
        };
        let i = i as u32;
        let running = t.entries.last_mut().filter(|e| e.exit.is_none());
        let entry = match running {
            Some(e) if k.request_index > 0 => e,
            _ => {
                t.entries.push(TerminalEntry {
                    command: k.command.clone(),
                    chunks: Vec::new(),
                    exit: None,
                    first_step: i,
                    last_step: i,
                });
                let n = t.entries.len() - 1;
                &mut t.entries[n]
            }
        };
        entry.last_step = i;
        if let Some(term) = &k.terminal {
            entry.chunks = term.chunks.clone();
            entry.exit = Some(term.exit);
        }
    }
    out
}

/// Whether a client runs kubectl commands: some `kubectl` statement in its body, in a `retry`
/// block too (the page shows a terminal for those clients only, from the start of the run).
pub fn has_kubectl(client: &Client) -> bool {
    fn any(body: &[Stmt]) -> bool {
        body.iter().any(|s| match &s.kind {
            StmtKind::Kubectl { .. } => true,
            StmtKind::Retry { body, .. } => any(body),
            _ => false,
        })
    }
    any(&client.body)
}

/// A terminal as text, as a shell shows it: `$ COMMAND`, then what it printed, byte for byte
/// (a command still running shows only its prompt line).
pub fn terminal_text(entries: &[TerminalEntry]) -> String {
    let mut s = String::new();
    for e in entries {
        s.push_str("$ ");
        s.push_str(&e.command);
        s.push('\n');
        for c in &e.chunks {
            s.push_str(&c.text);
        }
    }
    s
}

/// The view of a world.
pub fn world_view(scenario: &Scenario, world: &World) -> WorldView {
    let objects = world.store.objects().map(|(_, o)| object_view(o)).collect();
    let events = world
        .store
        .events()
        .iter()
        .map(|e| {
            let kind = match e.kind {
                EventType::Added => "ADDED",
                EventType::Modified => "MODIFIED",
                EventType::Deleted => "DELETED",
            };
            EventView {
                kind,
                object: e.object.clone(),
                revision: e.revision,
                writer: e.writer.clone(),
                text: format!("{kind} {} at {} by {}", e.object, e.revision, e.writer),
            }
        })
        .collect();
    let clients = scenario
        .clients
        .iter()
        .zip(&world.clients)
        .enumerate()
        .map(|(i, (spec, c))| {
            let i = i as u32;
            let (status, status_label) = match &c.outcome {
                Some(ClientOutcome::Succeeded) => (ClientStatus::Succeeded, "done".to_string()),
                Some(ClientOutcome::Failed(f)) => (
                    ClientStatus::Failed {
                        reason: f.reason.clone(),
                        message: f.message.clone(),
                    },
                    format!("failed: {}", f.label()),
                ),
                None if c.ready_at > world.clock_nanos => {
                    let until = fmt_duration(c.ready_at);
                    (
                        ClientStatus::Sleeping {
                            until: until.clone(),
                        },
                        format!("sleeping until {until}"),
                    )
                }
                None => (ClientStatus::Ready, "ready".to_string()),
            };
            let (next_statement, next_line) = if c.outcome.is_some() {
                (None, None)
            } else if c.backoff_pending {
                let r = world.current_retry(scenario, i);
                (
                    Some(format!(
                        "backoff sleep ({})",
                        r.map_or("retry", |(p, _)| p.name.as_str())
                    )),
                    None,
                )
            } else {
                match world.next_statement(scenario, i) {
                    Some(s) => (Some(s.text.clone()), Some(s.span.line)),
                    None => (None, None),
                }
            };
            let attempt = if c.outcome.is_none() {
                world
                    .current_retry(scenario, i)
                    .map(|(p, r)| format!("attempt {} of {} ({})", r.attempt, p.steps, p.name))
            } else {
                None
            };
            let vars = c
                .vars
                .iter()
                .map(|(name, v)| {
                    let current = v.held.as_ref().map(|h| {
                        world.store.get(&h.object).and_then(|o| {
                            o["metadata"]["resourceVersion"]
                                .as_str()
                                .and_then(|s| s.parse::<u64>().ok())
                        })
                    });
                    let stale = match (&v.held, current) {
                        (Some(h), Some(Some(cur))) => cur != h.base,
                        (Some(_), Some(None)) => true,
                        _ => false,
                    };
                    let stale_label = match (&v.held, current) {
                        (Some(_), Some(Some(cur))) if stale => {
                            Some(format!("stale: the server is at {cur}"))
                        }
                        (Some(_), Some(None)) => Some("stale: the object is gone".to_string()),
                        (Some(_), _) => Some("current".to_string()),
                        _ => None,
                    };
                    VarView {
                        name: name.clone(),
                        text: value_text(&v.value.0),
                        object: v.held.as_ref().map(|h| h.object.to_string()),
                        resource_version: v.value.0["metadata"]["resourceVersion"]
                            .as_str()
                            .map(str::to_string),
                        base: v.held.as_ref().map(|h| h.base),
                        stale,
                        stale_label,
                    }
                })
                .collect();
            ClientView {
                index: i,
                name: spec.name.clone(),
                letter: letter(i),
                status,
                status_label,
                next_statement,
                next_line,
                next_sends_request: world.next_sends_request(scenario, i),
                attempt,
                vars,
                files: c
                    .files
                    .iter()
                    .map(|(name, f)| FileView {
                        name: name.clone(),
                        text: f.text.clone(),
                    })
                    .collect(),
            }
        })
        .collect();
    WorldView {
        clock: fmt_duration(world.clock_nanos),
        objects,
        events,
        clients,
        lost_updates: world
            .lost_updates
            .iter()
            .map(|l| crate::engine::lost_sentence(l, world.write_verb(l.revision)))
            .collect(),
        finished: world.is_finished(),
    }
}

/// Whether a statement sends a request (for the editor's gutter): [`StmtKind::sends_request`].
pub fn sends_request(kind: &StmtKind) -> bool {
    kind.sends_request()
}

/// The run as narrated text, as `rvlab run` prints it: one entry per step (number, client,
/// line, statement, clock, status and narration), the clients' outcomes, the expectations.
pub fn run_text(run: &Run) -> String {
    let sc = &run.scenario;
    let mut out = String::new();
    if let Some(t) = &sc.title {
        out.push_str(t);
        out.push('\n');
    }
    out.push_str(&format!("schedule {}, seed {}\n\n", run.token(), run.seed));
    let width = sc.clients.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for (v, rec) in steps_view(run).into_iter().zip(&run.steps) {
        out.push_str(&format!(
            "{:>3}  {} {:width$}  t={:<9} line {:<3} {}\n",
            v.number,
            v.letter,
            v.client,
            v.clock,
            v.line,
            v.statement.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
        let status = match (&v.status_line, v.mark) {
            (Some(s), _) => s.clone(),
            (None, Mark::Sleep) => "sleep".to_string(),
            (None, Mark::OtherError) => "error".to_string(),
            (None, _) => "local".to_string(),
        };
        out.push_str(&format!("     {status}: {}\n", v.narration));
        if let Some((k, t)) = rec
            .kubectl
            .as_ref()
            .and_then(|k| Some((k, k.terminal.as_ref()?)))
        {
            out.push_str("$ ");
            out.push_str(&k.command);
            out.push('\n');
            for c in &t.chunks {
                out.push_str(&c.text);
            }
            if !out.ends_with('\n') {
                out.push_str("\n\\ no newline at the end of the output\n");
            }
        }
    }
    if let Some(s) = &run.stopped {
        out.push_str(&format!("\n{s}\n"));
    }
    out.push_str("\nclients:\n");
    let world = run.last();
    for (spec, c) in sc.clients.iter().zip(&world.clients) {
        let o = match &c.outcome {
            Some(o) => o.to_string(),
            None => "unfinished".to_string(),
        };
        let attempts = if c.attempts == 1 {
            "1 attempt".to_string()
        } else {
            format!("{} attempts", c.attempts)
        };
        out.push_str(&format!("  {:width$}  {o} ({attempts})\n", spec.name));
    }
    let exps = run.expectations();
    if !exps.is_empty() {
        out.push_str("\nexpectations:\n");
        for e in exps {
            out.push_str(&format!(
                "  {}  expect {}  ({})\n",
                if e.holds { "holds" } else { "FAILS" },
                e.text,
                e.detail
            ));
        }
    }
    out
}

fn opt_str(v: &Option<String>) -> Value {
    v.clone().map(Value::from).unwrap_or(Value::Null)
}

impl StepView {
    /// The view as JSON (the live view's events: `live`); [`StepView::from_json`] reads it back.
    pub fn to_json(&self) -> Value {
        crate::json::object(vec![
            ("index", self.index.into()),
            ("client_index", self.client_index.into()),
            ("client", self.client.clone().into()),
            ("letter", self.letter.to_string().into()),
            ("line", self.line.into()),
            ("statement", self.statement.clone().into()),
            ("clock", self.clock.clone().into()),
            ("clock_nanos", self.clock_nanos.into()),
            ("request_line", opt_str(&self.request_line)),
            ("content_type", opt_str(&self.content_type)),
            ("request_body", opt_str(&self.request_body)),
            (
                "sent_resource_version",
                opt_str(&self.sent_resource_version),
            ),
            ("status_line", opt_str(&self.status_line)),
            (
                "status_code",
                self.status_code.map(Value::from).unwrap_or(Value::Null),
            ),
            ("response_body", opt_str(&self.response_body)),
            ("narration", self.narration.clone().into()),
            (
                "lost_updates",
                self.lost_updates
                    .iter()
                    .map(|l| Value::from(l.as_str()))
                    .collect::<Vec<_>>()
                    .into(),
            ),
            ("mark", self.mark_label.into()),
            (
                "revision",
                self.revision.map(Value::from).unwrap_or(Value::Null),
            ),
            ("kubectl", opt_str(&self.kubectl)),
            ("sends_request", self.sends_request.into()),
            ("finished", opt_str(&self.finished)),
            ("storage", opt_str(&self.storage)),
        ])
    }

    /// Reads [`StepView::to_json`]'s form; `None` when it is not that form.
    pub fn from_json(v: &Value) -> Option<StepView> {
        let s = |k: &str| v[k].as_str().map(str::to_string);
        let n = |k: &str| v[k].as_u64();
        let mark = Mark::parse(v["mark"].as_str()?)?;
        Some(StepView {
            index: u32::try_from(n("index")?).ok()?,
            number: u32::try_from(n("index")?).ok()?.checked_add(1)?,
            client_index: u32::try_from(n("client_index")?).ok()?,
            client: s("client")?,
            letter: s("letter")?.chars().next()?,
            line: u32::try_from(n("line")?).ok()?,
            statement: s("statement")?,
            clock: s("clock")?,
            clock_nanos: n("clock_nanos")?,
            request_line: s("request_line"),
            content_type: s("content_type"),
            request_body: s("request_body"),
            sent_resource_version: s("sent_resource_version"),
            status_line: s("status_line"),
            status_code: n("status_code").and_then(|c| u16::try_from(c).ok()),
            response_body: s("response_body"),
            narration: s("narration")?,
            lost_updates: v["lost_updates"]
                .as_array()?
                .iter()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect(),
            mark,
            mark_label: mark.as_str(),
            revision: n("revision"),
            kubectl: s("kubectl"),
            sends_request: v["sends_request"].as_bool()?,
            finished: s("finished"),
            storage: s("storage"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::has_kubectl;
    use crate::lang::parse;

    /// The stale-update lesson's steps, as the inspector shows their storage step: Alice's
    /// update is the transaction on the key at the revision read; Bob's stale update is
    /// refused before any transaction; reads have none.
    #[test]
    fn the_storage_step_shows_the_transaction_and_where_the_conflict_is_detected() {
        let lesson = crate::lessons::lesson("stale-update").expect("the lesson");
        let mut run =
            crate::run::Run::new(&parse(lesson.source).scenario.unwrap(), 1, None).expect("runs");
        run.run_to_end();
        let steps = super::steps_view(&run);
        let storage: Vec<(String, Option<String>)> = steps
            .iter()
            .filter(|s| s.sends_request)
            .map(|s| {
                (
                    s.request_line.clone().unwrap_or_default(),
                    s.storage.clone(),
                )
            })
            .collect();
        let key = "/registry/configmaps/default/my-config";
        let want = [
            None,
            None,
            Some(format!("etcd txn: compare mod_revision({key}) = 100 → true → put, revision 101")),
            Some(format!("read {key}: mod_revision 101; resourceVersion 100 ≠ 101 → 409, no etcd transaction")),
        ];
        let got: Vec<Option<String>> = storage.iter().map(|(_, s)| s.clone()).collect();
        if !crate::kubectl::IN_BUILD {
            // The page's first build leaves it out (docs/size.md).
            assert!(got.iter().all(Option::is_none), "{storage:?}");
            return;
        }
        assert_eq!(got, want, "{storage:?}");
        let back = super::StepView::from_json(&steps[2].to_json()).expect("reads back");
        assert_eq!(back.storage, steps[2].storage);
    }

    #[test]
    fn a_client_without_kubectl_statements_has_no_terminal() {
        let src = "object configmap/c:\n    data.k = \"v\"\n\nclient a:\n    x = get configmap/c\n    retry on conflict:\n        y = get configmap/c\n        update y\n";
        let s = parse(src).scenario.expect("parses");
        assert!(!has_kubectl(&s.clients[0]));
    }

    #[cfg(feature = "kubectl")]
    #[test]
    fn kubectl_statements_are_found_in_retry_blocks_too() {
        let src = "object configmap/c:\n    data.k = \"v\"\n\nclient a:\n    x = get configmap/c\n\nclient b:\n    retry on conflict:\n        kubectl get configmap c\n\nclient c:\n    kubectl get configmap c -o yaml\n";
        let p = parse(src);
        let s = p.scenario.unwrap_or_else(|| panic!("{:?}", p.diagnostics));
        let found: Vec<bool> = s.clients.iter().map(has_kubectl).collect();
        assert_eq!(found, [false, true, true]);
        let lesson = crate::lessons::lesson("kubectl-stale-apply").expect("the lesson");
        let s = lesson.parse().scenario.expect("parses");
        assert!(s.clients.iter().all(has_kubectl));
    }
}
