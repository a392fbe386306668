//! The differential test of kubectl scenarios (issue #14): a scenario is run in the model (the
//! core's engine with its kubectl machine) and with the real kubectl against an in-process
//! `rvlab serve` loaded with the same setup, kubectl commands in the same order, and each
//! command's requests and terminal are compared.
//!
//! - [`model`] runs the scenario in the core ([`rvlab_core::engine::World`]) in an order where
//!   each kubectl command runs to its end before the next one starts (the scenario's `schedule`
//!   while it respects that, then client by client in declaration order), and writes down a
//!   [`Script`]: the kubectl commands with what the model sent and printed, the file texts the
//!   model's `file` statements made, and the raw requests of the other statements.
//! - [`real`] plays that script: every client its own directory with its files, each kubectl
//!   line run by `sh` in it with the real kubectl (a fresh `HOME` and `KUBECACHEDIR` per
//!   scenario; `kubectl edit` with an `EDITOR` that makes the scenario's edit), the requests
//!   each command caused read from the server's trace; the raw requests sent as the model sent
//!   them, so both sides see the same store.
//! - [`compare`] sets the two side by side: method, path with query, content type, body as JSON;
//!   stdout, stderr, exit status; and for `> F` the file's text. uids, RFC 3339 times and the
//!   AGE cells of tables are masked on both sides ([`mask`]); resourceVersions are not (the
//!   server and the model count the same).

use crate::lab::{mask_ages, Lab, RUN_TIMEOUT};
use crate::process;
use crate::tools;
use anyhow::{bail, Context, Result};
use rvlab_core::engine::{self, World};
use rvlab_core::kubectl::{self, OutputFormat, Verb};
use rvlab_core::lang::ast::{PathSeg, Scenario, StmtKind};
use rvlab_core::store::Request;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One request as both sides see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Req {
    pub method: String,
    /// The path with its query string.
    pub path: String,
    pub content_type: Option<String>,
    pub body: Option<Value>,
}

impl Req {
    fn of(r: &Request) -> Req {
        Req {
            method: r.method.as_str().to_owned(),
            path: r.path.clone(),
            content_type: r.content_type.clone(),
            body: r.body.clone(),
        }
    }

    /// A step of the server's trace (`request` {`method`, `path`, `content_type`, `body`}).
    fn of_trace(step: &Value) -> Req {
        Req::from_json(&step["request"])
    }

    fn to_json(&self) -> Value {
        json!({
            "method": self.method,
            "path": self.path,
            "content_type": self.content_type,
            "body": self.body,
        })
    }

    /// A request as [`Req::to_json`] writes it (the server's trace writes the same fields).
    fn from_json(v: &Value) -> Req {
        Req {
            method: v["method"].as_str().unwrap_or_default().to_owned(),
            path: v["path"].as_str().unwrap_or_default().to_owned(),
            content_type: v["content_type"].as_str().map(str::to_owned),
            body: match &v["body"] {
                Value::Null => None,
                b => Some(b.clone()),
            },
        }
    }
}

/// What one kubectl command did, on one side.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// Its resource requests (no discovery or OpenAPI), in order.
    pub requests: Vec<Req>,
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
    /// For `> F`: the file's text afterwards (the model's only while its client runs on).
    pub file: Option<String>,
}

/// A step of the script the model wrote down.
#[derive(Debug, Clone)]
pub enum Action {
    /// A kubectl command and what the model did with it.
    Kubectl(Box<Planned>),
    /// A client's file got this text (a `file` statement of the model).
    WriteFile {
        client: usize,
        name: String,
        text: String,
    },
    /// A statement other than kubectl sent this request (sent as is to the real server) and
    /// got this answer's body.
    Raw {
        client: usize,
        request: Req,
        response: Option<Value>,
    },
}

/// A kubectl command of the script.
#[derive(Debug, Clone)]
pub struct Planned {
    pub client: usize,
    /// The statement's line in the scenario.
    pub line: u32,
    pub cmd: kubectl::Command,
    /// A `kubectl edit` block's assignments, evaluated: (path as a JSON array of keys and
    /// indices, value).
    pub edits: Vec<(Value, Value)>,
    pub model: Outcome,
}

/// The kubectl command the model is running: its client, edits and requests so far.
struct InProgress {
    client: usize,
    edits: Vec<(Value, Value)>,
    requests: Vec<Req>,
}

/// A scenario as the model ran it.
#[derive(Debug, Clone)]
pub struct Script {
    /// The clients' names, in declaration order.
    pub clients: Vec<String>,
    /// The files every client holds at the start (the scenario's top-level `file`s), as
    /// (client, name, text).
    pub files: Vec<(usize, String, String)>,
    pub actions: Vec<Action>,
}

fn model_file_text(world: &World, client: usize, name: &str) -> Option<String> {
    world.clients[client]
        .files
        .get(name)
        .map(|f| f.text.clone())
}

fn path_json(path: &[PathSeg]) -> Value {
    Value::Array(
        path.iter()
            .map(|s| match s {
                PathSeg::Key(k) => Value::String(k.clone()),
                PathSeg::Index(i) => Value::from(*i),
            })
            .collect(),
    )
}

/// Parses `src`, failing with its diagnostics.
pub fn parse(src: &str) -> Result<Scenario> {
    let parsed = rvlab_core::lang::parse(src);
    match parsed.scenario {
        Some(s) => Ok(s),
        None => {
            let mut text = String::new();
            for d in &parsed.diagnostics {
                let _ = writeln!(text, "{}:{}: {}", d.span.line, d.span.col, d.message);
            }
            bail!("the scenario does not parse:\n{text}")
        }
    }
}

/// Runs the scenario in the model (see the module's doc) and writes down its script.
pub fn model(scenario: &Scenario) -> Result<Script> {
    let mut world = World::new(scenario, 0).map_err(|e| anyhow::anyhow!("{e}"))?;
    let n = scenario.clients.len();
    let token = match &scenario.schedule {
        Some((t, _)) => rvlab_core::schedule::parse_token(t, n as u32)
            .map_err(|e| anyhow::anyhow!("schedule: {e}"))?,
        None => Vec::new(),
    };
    let mut token = token.into_iter();
    let mut files = Vec::new();
    for (c, state) in world.clients.iter().enumerate() {
        for (name, f) in state.files.iter() {
            files.push((c, name.clone(), f.text.clone()));
        }
    }
    let mut actions = Vec::new();
    let mut running: Option<InProgress> = None;
    for _ in 0..engine::MAX_STEPS {
        if world.is_finished() {
            break;
        }
        let pick = match (&running, token.next()) {
            (Some(r), Some(t)) if t as usize != r.client => bail!(
                "the schedule interleaves step {} of client {} inside a kubectl command of \
                 client {}: the differential test runs each kubectl command to its end first",
                t,
                scenario.clients[t as usize].name,
                scenario.clients[r.client].name
            ),
            (_, Some(t)) => t as usize,
            (Some(r), None) => r.client,
            (None, None) => match world.unfinished().first() {
                Some(&c) => c as usize,
                None => break,
            },
        };
        let stmt = world.next_statement(scenario, pick as u32);
        if let (Some(s), None) = (stmt, &running) {
            if let StmtKind::Kubectl { edits, .. } = &s.kind {
                let vars = &world.clients[pick].vars;
                let mut evaluated = Vec::new();
                for (path, e) in edits {
                    let v = engine::expr::eval(e, vars)
                        .map_err(|e| anyhow::anyhow!("line {}: {e}", s.span.line))?;
                    evaluated.push((path_json(path), v));
                }
                running = Some(InProgress {
                    client: pick,
                    edits: evaluated,
                    requests: Vec::new(),
                });
            }
        }
        let rec = world
            .take_step(scenario, Some(pick as u32))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .context("the model stopped with clients left")?;
        match stmt.map(|s| &s.kind) {
            Some(StmtKind::Kubectl { cmd, .. }) => {
                let Some(mut r) = running.take() else {
                    bail!("internal: a kubectl step with no command running");
                };
                r.requests.extend(rec.request.as_ref().map(Req::of));
                let terminal = rec.kubectl.as_ref().and_then(|k| k.terminal.clone());
                let Some(t) = terminal else {
                    running = Some(r);
                    continue;
                };
                let c = r.client;
                // (The engine drops a finished client's files: then there is none to compare.)
                let file = cmd
                    .redirect
                    .as_ref()
                    .and_then(|f| model_file_text(&world, c, f));
                actions.push(Action::Kubectl(Box::new(Planned {
                    client: c,
                    line: rec.line,
                    cmd: cmd.clone(),
                    edits: r.edits,
                    model: Outcome {
                        requests: r.requests,
                        stdout: t.stdout(),
                        stderr: t.stderr(),
                        exit: i32::from(t.exit),
                        file,
                    },
                })));
            }
            Some(StmtKind::File { name, .. }) => {
                if let Some(text) = model_file_text(&world, pick, name) {
                    actions.push(Action::WriteFile {
                        client: pick,
                        name: name.clone(),
                        text,
                    });
                }
            }
            _ => {
                if let Some(r) = &rec.request {
                    actions.push(Action::Raw {
                        client: pick,
                        request: Req::of(r),
                        response: rec.response.as_ref().map(|r| r.body.clone()),
                    });
                }
            }
        }
    }
    if !world.is_finished() {
        bail!(
            "the model did not finish within {} steps",
            engine::MAX_STEPS
        );
    }
    // The scenario's `expect` lines say what its commands show: they must hold in the model
    // (the real side is then held to the model command by command).
    let broken: Vec<String> = rvlab_core::run::check_expectations(scenario, &world)
        .into_iter()
        .filter(|e| !e.holds)
        .map(|e| format!("line {}: expect {}: {}", e.line, e.text, e.detail))
        .collect();
    if !broken.is_empty() {
        bail!(
            "in the model, expectations do not hold:\n{}",
            broken.join("\n")
        );
    }
    Ok(Script {
        clients: scenario.clients.iter().map(|c| c.name.clone()).collect(),
        files,
        actions,
    })
}

/// Discovery and OpenAPI requests, which the model does not send (the server does not trace
/// them either; this keeps the comparison to resources should that change).
fn is_discovery(path: &str) -> bool {
    let p = path.split('?').next().unwrap_or_default();
    let segs: Vec<&str> = p.trim_matches('/').split('/').collect();
    matches!(p, "/api" | "/apis" | "/version" | "/api/v1")
        || p.starts_with("/openapi/")
        || (segs.first() == Some(&"apis") && segs.len() <= 3)
}

/// The editor `kubectl edit` runs: makes the scenario's edits (`RVLAB_EDITS`, a JSON list of
/// [path, value]) to the YAML kubectl hands it, with PyYAML.
const EDITOR: &str = r#"import json, os, sys, yaml
path = sys.argv[-1]
with open(path) as f:
    obj = yaml.safe_load(f)
for keys, value in json.loads(os.environ["RVLAB_EDITS"]):
    at = obj
    for k in keys[:-1]:
        if isinstance(k, str) and k not in at:
            at[k] = {}
        at = at[k]
    at[keys[-1]] = value
with open(path, "w") as f:
    yaml.safe_dump(obj, f, default_flow_style=False)
"#;

/// A python with PyYAML: the Python client's venv when there is one, else the system's.
fn python_with_yaml() -> PathBuf {
    tools::python().unwrap_or_else(|_| PathBuf::from("/usr/bin/python3"))
}

/// Plays `script` with the real kubectl against a server loaded with `src`'s setup: each
/// kubectl command's outcome, in the script's order.
pub fn real(src: &str, script: &Script) -> Result<Vec<Outcome>> {
    let lab = Lab::start(Some(src))?;
    let kubectl = tools::kubectl()?;
    let root = lab.dir().join("clients");
    let dirs: Vec<PathBuf> = script.clients.iter().map(|c| root.join(c)).collect();
    for d in &dirs {
        std::fs::create_dir_all(d)?;
    }
    for (c, name, text) in &script.files {
        std::fs::write(dirs[*c].join(name), text)?;
    }
    let editor = lab.write("editor.py", EDITOR)?;
    let editor = format!("{} {}", python_with_yaml().display(), editor.display());
    let http = lab.http()?;
    let mut seen = trace_len(&lab)?;
    let mut uids = Uids::default();
    let mut out = Vec::new();
    for action in &script.actions {
        match action {
            Action::WriteFile { client, name, text } => {
                std::fs::write(dirs[*client].join(name), uids.translate(text))?;
            }
            Action::Raw {
                request, response, ..
            } => {
                let body = request
                    .body
                    .as_ref()
                    .map(|b| uids.translate(&b.to_string()));
                let reply = http.request(
                    &request.method,
                    &request.path,
                    request.content_type.as_deref(),
                    body.as_deref(),
                )?;
                if let (Some(m), Ok(r)) = (response, reply.json()) {
                    uids.learn(&m.to_string(), &r.to_string());
                }
                seen = trace_len(&lab)?;
            }
            Action::Kubectl(p) => {
                let Planned {
                    client,
                    cmd,
                    edits,
                    model,
                    ..
                } = &**p;
                let dir = &dirs[*client];
                let mut c = lab.shell(dir, &format!("{} {}", kubectl.display(), cmd.line));
                c.env("EDITOR", &editor)
                    .env("RVLAB_EDITS", Value::from(edits_json(edits)).to_string());
                let ran = process::run(c, None, RUN_TIMEOUT, lab.dir())?;
                let steps = trace_steps(&lab)?;
                let requests = steps
                    .get(seen..)
                    .unwrap_or_default()
                    .iter()
                    .map(Req::of_trace)
                    .filter(|r| !is_discovery(&r.path))
                    .collect();
                seen = steps.len();
                let file = cmd
                    .redirect
                    .as_ref()
                    .map(|f| std::fs::read_to_string(dir.join(f)).unwrap_or_default());
                uids.learn(&model.stdout, &ran.stdout);
                if let (Some(m), Some(r)) = (&model.file, &file) {
                    uids.learn(m, r);
                }
                out.push(Outcome {
                    requests,
                    stdout: ran.stdout,
                    stderr: ran.stderr,
                    exit: ran.code.unwrap_or(-1),
                    file,
                });
            }
        }
    }
    lab.stop()?;
    Ok(out)
}

fn edits_json(edits: &[(Value, Value)]) -> Vec<Value> {
    edits
        .iter()
        .map(|(p, v)| Value::Array(vec![p.clone(), v.clone()]))
        .collect()
}

fn trace_steps(lab: &Lab) -> Result<Vec<Value>> {
    let t = lab.trace()?;
    anyhow::ensure!(t["dropped"] == 0, "the server dropped trace steps");
    t["steps"]
        .as_array()
        .cloned()
        .context("no steps in the trace")
}

fn trace_len(lab: &Lab) -> Result<usize> {
    Ok(trace_steps(lab)?.len())
}

/// `text` with every uid (8-4-4-4-12 lower-case hex) replaced by `<uid>` and every RFC 3339
/// UTC time to the second (`2026-12-01T17:25:12Z`) by `<time>`: the two things the model and
/// the server cannot agree on (the server's uids are its own, its clock is the wall clock).
pub fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut plain = 0;
    for (at, len, uid) in shapes(text) {
        out.push_str(&text[plain..at]);
        out.push_str(if uid { "<uid>" } else { "<time>" });
        plain = at + len;
    }
    out.push_str(&text[plain..]);
    out
}

/// Where `text` holds a uid or a time: (start, length, whether a uid), in order.
fn shapes(text: &str) -> Vec<(usize, usize, bool)> {
    const UID: &[u8] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    const TIME: &[u8] = b"dddd-dd-ddTdd:dd:ddZ";
    let fits = |at: &[u8], shape: &[u8]| {
        at.len() >= shape.len()
            && at.iter().zip(shape).all(|(c, s)| match s {
                b'x' => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
                b'd' => c.is_ascii_digit(),
                _ => c == s,
            })
    };
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if fits(rest, UID) {
            out.push((i, UID.len(), true));
            i += UID.len();
        } else if fits(rest, TIME) {
            out.push((i, TIME.len(), false));
            i += TIME.len();
        } else {
            i += 1;
        }
    }
    out
}

/// The model's uids and the server's, paired: the model's generator and the server's draw
/// differently once the model breaks ties between clients, so an object a client created has
/// one uid in each. Text the model hands the real side (a file its `file` statement edited, a
/// raw request's body) carries the model's uids; the server would refuse them (`Precondition
/// failed: UID in precondition`), so they are translated. Pairs are learnt from the two
/// sides' outputs when those agree apart from uids and times.
#[derive(Debug, Default)]
struct Uids(Vec<(String, String)>);

impl Uids {
    fn learn(&mut self, model: &str, real: &str) {
        if mask(model) != mask(real) {
            return;
        }
        let (m, r) = (shapes(model), shapes(real));
        for (&(ma, ml, uid), &(ra, rl, _)) in m.iter().zip(&r) {
            let (mu, ru) = (&model[ma..ma + ml], &real[ra..ra + rl]);
            if uid && mu != ru && !self.0.iter().any(|(k, _)| k == mu) {
                self.0.push((mu.to_owned(), ru.to_owned()));
            }
        }
    }

    fn translate(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (m, r) in &self.0 {
            out = out.replace(m.as_str(), r);
        }
        out
    }
}

/// [`mask`] in every string of a JSON value (keys stay).
pub fn mask_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(mask(s)),
        Value::Array(a) => Value::Array(a.iter().map(mask_value).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), mask_value(v))).collect())
        }
        other => other.clone(),
    }
}

fn normalized(o: &Outcome, table: bool) -> Outcome {
    let text = |s: &str| {
        let s = mask(s);
        if table {
            mask_ages(&s)
        } else {
            s
        }
    };
    Outcome {
        requests: o
            .requests
            .iter()
            .map(|r| Req {
                body: r.body.as_ref().map(mask_value),
                ..r.clone()
            })
            .collect(),
        stdout: text(&o.stdout),
        stderr: text(&o.stderr),
        exit: o.exit,
        file: o.file.as_deref().map(text),
    }
}

/// The differences between the model's and the real outcome of `cmd`, as readable text
/// (empty when they agree).
pub fn compare(cmd: &kubectl::Command, model: &Outcome, real: &Outcome) -> String {
    let table = matches!(
        cmd.verb,
        Verb::Get {
            output: OutputFormat::Table,
            ..
        }
    );
    let (m, r) = (normalized(model, table), normalized(real, table));
    let mut out = String::new();
    if m.requests != r.requests {
        let list = |o: &Outcome| {
            let v: Vec<Value> = o.requests.iter().map(Req::to_json).collect();
            serde_json::to_string_pretty(&v).unwrap_or_default()
        };
        let _ = writeln!(out, "requests differ:\n{}", line_diff(&list(&m), &list(&r)));
    }
    for (what, a, b) in [
        ("stdout", &m.stdout, &r.stdout),
        ("stderr", &m.stderr, &r.stderr),
    ] {
        if a != b {
            let _ = writeln!(out, "{what} differs:\n{}", line_diff(a, b));
        }
    }
    if m.exit != r.exit {
        let _ = writeln!(
            out,
            "exit status differs: model {}, real {}",
            m.exit, r.exit
        );
    }
    if m.file.is_some() && m.file != r.file {
        let _ = writeln!(
            out,
            "the file `{}` differs:\n{}",
            cmd.redirect.as_deref().unwrap_or_default(),
            line_diff(
                m.file.as_deref().unwrap_or_default(),
                r.file.as_deref().unwrap_or_default()
            )
        );
    }
    out
}

/// A line diff of `model` (`-`) against `real` (`+`), common lines with two spaces (a longest
/// common subsequence; the texts are short). A missing final newline is shown as `⏎?`.
pub fn line_diff(model: &str, real: &str) -> String {
    let a: Vec<&str> = model.split_inclusive('\n').collect();
    let b: Vec<&str> = real.split_inclusive('\n').collect();
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let show = |l: &str| match l.strip_suffix('\n') {
        Some(l) => l.to_owned(),
        None => format!("{l}⏎?"),
    };
    let mut out = String::from("  (- model, + real kubectl)\n");
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            let _ = writeln!(out, "   {}", show(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "  -{}", show(a[i]));
            i += 1;
        } else {
            let _ = writeln!(out, "  +{}", show(b[j]));
            j += 1;
        }
    }
    out
}

/// One compared command.
#[derive(Debug, Clone)]
pub struct Compared {
    pub client: String,
    pub line: u32,
    pub command: String,
    /// Empty when the two sides agree.
    pub diff: String,
    /// What the real kubectl did (for the goldens).
    pub real: Outcome,
}

/// A difference between kubectl releases in what the model prints: the model prints what
/// the reference's kubectl (the model's release) prints; an older kubectl, still a client of
/// `rvlab serve`, prints `older(model's text)`. Each one was seen with the real binaries.
pub struct ReleaseChange {
    /// The first kubectl minor release that prints the model's text.
    pub since: u32,
    /// What changed, and where upstream.
    pub why: &'static str,
    /// The model's stdout as the older releases print it.
    pub older: fn(&str) -> String,
}

/// The reviewed list of [`ReleaseChange`]s.
pub const RELEASE_CHANGES: &[ReleaseChange] = &[ReleaseChange {
    since: 34,
    why: "`kubectl delete` names a namespaced object's namespace: `configmap \"x\" deleted \
          from default namespace` (k8s.io/kubectl v0.34.0 `pkg/cmd/delete/delete.go`, \
          `PrintObj`; kubectl 1.33.1 prints `configmap \"x\" deleted`)",
    older: |text| {
        text.split_inclusive('\n')
            .map(|l| match l.find(" deleted from ") {
                Some(at) if l.trim_end().ends_with(" namespace") => {
                    format!("{} deleted\n", &l[..at])
                }
                _ => l.to_owned(),
            })
            .collect()
    },
}];

/// `model` as a kubectl of minor release `minor` prints it ([`RELEASE_CHANGES`]).
pub fn as_release(model: &Outcome, minor: u32) -> Outcome {
    let mut out = model.clone();
    for c in RELEASE_CHANGES.iter().filter(|c| minor < c.since) {
        out.stdout = (c.older)(&out.stdout);
    }
    out
}

/// Runs the scenario `src` on both sides and compares each kubectl command; the real
/// kubectl's minor release `minor` (the model's outcomes are read as that release prints
/// them, [`as_release`]).
pub fn run_scenario(src: &str, minor: u32) -> Result<Vec<Compared>> {
    let scenario = parse(src)?;
    let script = model(&scenario)?;
    let real = real(src, &script)?;
    let mut out = Vec::new();
    let mut real = real.into_iter();
    for a in &script.actions {
        if let Action::Kubectl(p) = a {
            let r = real.next().context("internal: fewer real outcomes")?;
            out.push(Compared {
                client: script.clients[p.client].clone(),
                line: p.line,
                command: p.cmd.line.clone(),
                diff: compare(&p.cmd, &as_release(&p.model, minor), &r),
                real: r,
            });
        }
    }
    Ok(out)
}

/// The reference kubectl's outcomes for the corpus: `tests/clients/kubectl-goldens.json`.
pub fn goldens_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kubectl-goldens.json")
}

/// The goldens' text: the kubectl's version, and per scenario (in corpus order) each kubectl
/// command with what the real one did, uids and times masked ([`mask`]), one command a line.
pub fn goldens_text(version: &str, scenarios: &[(String, Vec<Compared>)]) -> String {
    let mut out = format!(
        "{{\"kubectl\": {}, \"server\": \"rvlab serve\", \"scenarios\": [\n",
        Value::from(version)
    );
    for (i, (name, cmds)) in scenarios.iter().enumerate() {
        let _ = writeln!(
            out,
            "{{\"name\": {}, \"commands\": [",
            Value::from(name.as_str())
        );
        for (j, c) in cmds.iter().enumerate() {
            let r = &c.real;
            let line = json!({
                "line": c.line,
                "client": c.client,
                "command": c.command,
                "requests": r.requests.iter().map(|q| Req {
                    body: q.body.as_ref().map(mask_value),
                    ..q.clone()
                }.to_json()).collect::<Vec<_>>(),
                "stdout": mask(&r.stdout),
                "stderr": mask(&r.stderr),
                "exit": r.exit,
                "file": r.file.as_deref().map(mask),
            });
            let comma = if j + 1 < cmds.len() { "," } else { "" };
            let _ = writeln!(out, "  {line}{comma}");
        }
        let comma = if i + 1 < scenarios.len() { "," } else { "" };
        let _ = writeln!(out, "]}}{comma}");
    }
    out.push_str("]}\n");
    out
}

/// One command of the goldens.
#[derive(Debug, Clone)]
pub struct GoldenCommand {
    pub line: u32,
    pub client: String,
    pub command: String,
    pub outcome: Outcome,
}

/// The goldens read back: the kubectl's version, and (scenario name, commands).
pub type Goldens = (String, Vec<(String, Vec<GoldenCommand>)>);

/// Reads [`goldens_text`]'s text back.
pub fn read_goldens(text: &str) -> Result<Goldens> {
    let v: Value = serde_json::from_str(text).context("the kubectl goldens are not JSON")?;
    let version = v["kubectl"]
        .as_str()
        .context("no `kubectl` version")?
        .to_owned();
    let mut scenarios = Vec::new();
    for s in v["scenarios"].as_array().context("no `scenarios`")? {
        let name = s["name"].as_str().context("a scenario without a name")?;
        let mut cmds = Vec::new();
        for c in s["commands"]
            .as_array()
            .context("a scenario without commands")?
        {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            cmds.push(GoldenCommand {
                line: c["line"].as_u64().context("a command without a line")? as u32,
                client: text("client"),
                command: text("command"),
                outcome: Outcome {
                    requests: c["requests"]
                        .as_array()
                        .map(|a| a.iter().map(Req::from_json).collect())
                        .unwrap_or_default(),
                    stdout: text("stdout"),
                    stderr: text("stderr"),
                    exit: c["exit"]
                        .as_i64()
                        .context("a command without an exit status")?
                        as i32,
                    file: c["file"].as_str().map(str::to_owned),
                },
            });
        }
        scenarios.push((name.to_owned(), cmds));
    }
    Ok((version, scenarios))
}

/// The model's outcome of every kubectl command of `src` against the goldens' `golden`
/// commands of that scenario: one [`Compared`] per command, or an error when the scenario's
/// commands are not the goldens' (the corpus changed: capture again).
pub fn against_goldens(src: &str, golden: &[GoldenCommand]) -> Result<Vec<Compared>> {
    let script = model(&parse(src)?)?;
    let planned: Vec<&Planned> = script
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::Kubectl(p) => Some(&**p),
            _ => None,
        })
        .collect();
    let ours: Vec<(u32, &str)> = planned
        .iter()
        .map(|p| (p.line, p.cmd.line.as_str()))
        .collect();
    let theirs: Vec<(u32, &str)> = golden
        .iter()
        .map(|g| (g.line, g.command.as_str()))
        .collect();
    anyhow::ensure!(
        ours == theirs,
        "the scenario's kubectl commands are not the goldens' (capture them again: \
         `cargo xtask reference capture kubectl`):\n  scenario: {ours:?}\n  goldens:  {theirs:?}"
    );
    Ok(planned
        .iter()
        .zip(golden)
        .map(|(p, g)| Compared {
            client: script.clients[p.client].clone(),
            line: p.line,
            command: p.cmd.line.clone(),
            diff: compare(&p.cmd, &p.model, &g.outcome),
            real: g.outcome.clone(),
        })
        .collect())
}

/// The first kubectl minor release a scenario is for, from its first line `# since kubectl
/// 1.N` (what older ones send or print differently in ways no [`ReleaseChange`] can say: the
/// live test skips it with them; the goldens always compare it).
pub fn since(src: &str) -> Option<u32> {
    src.lines()
        .next()?
        .strip_prefix("# since kubectl 1.")?
        .trim()
        .parse()
        .ok()
}

/// The corpus: `tests/clients/kubectl-corpus/*.rvl`, sorted by name, as (file name, text).
pub fn corpus() -> Result<Vec<(String, String)>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kubectl-corpus");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "rvl") {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((name, std::fs::read_to_string(&p)?));
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_says_the_first_release_it_is_for() {
        assert_eq!(since("# since kubectl 1.36\ntitle \"x\""), Some(36));
        assert_eq!(since("title \"x\"\n# since kubectl 1.36"), None);
        assert_eq!(since("# since kubectl 2.0"), None);
    }

    #[test]
    fn an_older_kubectl_prints_a_delete_without_the_namespace() {
        let model = Outcome {
            stdout: "configmap \"a\" deleted from team-a namespace\nwidget.example.com \"w\" deleted from default namespace\n".into(),
            ..Outcome::default()
        };
        assert_eq!(
            as_release(&model, 33).stdout,
            "configmap \"a\" deleted\nwidget.example.com \"w\" deleted\n"
        );
        assert_eq!(as_release(&model, 34), model);
        assert_eq!(as_release(&model, 37), model);
        // Only the delete line's form: a name that says "deleted from" is not touched.
        let other = Outcome {
            stdout: "configmap/deleted from x created\n".into(),
            ..Outcome::default()
        };
        assert_eq!(as_release(&other, 32), other);
    }

    #[test]
    fn goldens_are_read_back_as_written_with_uids_and_times_masked() {
        let real = Outcome {
            requests: vec![Req {
                method: "PATCH".into(),
                path: "/api/v1/namespaces/default/configmaps/a?fieldManager=kubectl".into(),
                content_type: Some("application/merge-patch+json".into()),
                body: Some(json!({"metadata": {"uid": "1b39896a-51a8-449b-93cb-9f0c747ea2ea"}})),
            }],
            stdout: "configmap/a patched at 2026-12-01T17:25:12Z\n".into(),
            stderr: String::new(),
            exit: 0,
            file: Some("x\n".into()),
        };
        let cmds = vec![Compared {
            client: "alice".into(),
            line: 7,
            command: "patch cm a -p '{}'".into(),
            diff: String::new(),
            real,
        }];
        let text = goldens_text("v1.37.2", &[("01-x.rvl".into(), cmds)]);
        let (version, scenarios) = read_goldens(&text).expect("the goldens read back");
        assert_eq!(version, "v1.37.2");
        assert_eq!(scenarios.len(), 1);
        let (name, cmds) = &scenarios[0];
        assert_eq!(name, "01-x.rvl");
        let g = &cmds[0];
        assert_eq!(
            (g.line, g.client.as_str(), g.command.as_str()),
            (7, "alice", "patch cm a -p '{}'")
        );
        assert_eq!(g.outcome.stdout, "configmap/a patched at <time>\n");
        assert_eq!(
            g.outcome.requests[0].body,
            Some(json!({"metadata": {"uid": "<uid>"}}))
        );
        assert_eq!(
            g.outcome.requests[0].content_type.as_deref(),
            Some("application/merge-patch+json")
        );
        assert_eq!(g.outcome.file.as_deref(), Some("x\n"));
        assert!(read_goldens("{").is_err());
    }

    #[test]
    fn uids_and_times_are_masked() {
        assert_eq!(
            mask("uid: 1b39896a-51a8-449b-93cb-9f0c747ea2ea\n  creationTimestamp: \"2026-12-01T17:25:12Z\"\nresourceVersion: \"100\""),
            "uid: <uid>\n  creationTimestamp: \"<time>\"\nresourceVersion: \"100\""
        );
        // Not a uid: upper case; too short.
        assert_eq!(
            mask("1B39896A-51a8-449b-93cb-9f0c747ea2ea"),
            "1B39896A-51a8-449b-93cb-9f0c747ea2ea"
        );
        assert_eq!(mask("2026-12-01T17:25Z"), "2026-12-01T17:25Z");
        assert_eq!(
            mask_value(&json!({"a": ["x 2026-12-01T17:25:12Z"], "2026-12-01T17:25:12Z": 1})),
            json!({"a": ["x <time>"], "2026-12-01T17:25:12Z": 1})
        );
    }

    #[test]
    fn uids_are_paired_from_outputs_that_agree_otherwise() {
        let (m1, m2) = (
            "1b39896a-51a8-449b-93cb-9f0c747ea2ea",
            "2b39896a-51a8-449b-93cb-9f0c747ea2ea",
        );
        let (r1, r2) = (
            "aaaaaaaa-51a8-449b-93cb-9f0c747ea2ea",
            "bbbbbbbb-51a8-449b-93cb-9f0c747ea2ea",
        );
        let mut uids = Uids::default();
        // Texts that differ otherwise teach nothing.
        uids.learn(&format!("uid: {m1}\nx: 1"), &format!("uid: {r1}\nx: 2"));
        assert_eq!(uids.translate(m1), m1);
        uids.learn(
            &format!("uid: {m1} at 2026-12-01T00:00:00Z, {m2}"),
            &format!("uid: {r1} at 2026-12-01T17:25:12Z, {r2}"),
        );
        assert_eq!(
            uids.translate(&format!("{m2} {m1} {m1}")),
            format!("{r2} {r1} {r1}")
        );
    }

    #[test]
    fn discovery_is_told_from_resources() {
        for p in [
            "/api",
            "/apis",
            "/api/v1",
            "/apis/apps",
            "/apis/apps/v1",
            "/version?timeout=32s",
            "/openapi/v3/api/v1",
        ] {
            assert!(is_discovery(p), "{p}");
        }
        for p in [
            "/api/v1/namespaces/default/configmaps?limit=500",
            "/apis/apps/v1/namespaces/default/deployments/web",
        ] {
            assert!(!is_discovery(p), "{p}");
        }
    }

    #[test]
    fn a_line_diff_shows_both_sides() {
        assert_eq!(
            line_diff("a\nb\nc", "a\nB\nc\n"),
            "  (- model, + real kubectl)\n   a\n  -b\n  -c⏎?\n  +B\n  +c\n"
        );
    }
}
