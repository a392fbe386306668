//! One running kubectl command: the requests it sends (one per step), what it does with each
//! answer, and what it prints. Every request, query string and printed line is what kubectl
//! v1.37.2 sends and prints against `rvlab serve` (captured with the real binaries, 1.32.5 first
//! and then the reference's v1.37.2; the Go sources named at each verb: k8s.io/kubectl
//! `pkg/cmd/…`, cli-runtime `pkg/resource`).
//! Submodules: `apply` (client-side apply's three-way merge and its annotation) and `go`
//! (kubectl's error printing, Go's formatting).
//!
//! Decisions and limits (each where it is made):
//! - the discovery and OpenAPI requests kubectl also sends are not modelled (not resource
//!   requests); kubectl's client-side apply takes its patch type from the OpenAPI v3 document
//!   `rvlab serve` publishes: strategic merge for built-in kinds, JSON merge for custom ones;
//! - a file holds one object; a `kind: List` file fails as it does against `rvlab serve`
//!   (kubectl validates it against the server's OpenAPI, which has no List);
//! - `kubectl edit`'s temporary file is named `/tmp/kubectl-edit-0000000000.yaml` (the real
//!   name has random digits and the binary's name);
//! - several failed `--overwrite` checks are reported in the command line's order (kubectl
//!   iterates a Go map: random order).

mod apply;
mod go;

use super::{Command, File, Files, MetaChange, NamedObject, OutputFormat, Reply, Terminal, Verb};
use crate::fieldpath::Path;
use crate::json::HValue;
use crate::store::PatchType;
use crate::store::{Method, ObjectRef, Request, Resource};
use go::Error;
use serde_json::{Map, Value};

/// The client-side apply annotation.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A command in progress between two of its requests (a value: worlds holding one stay
/// `Clone + Eq + Hash`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Machine {
    /// The edits of a `kubectl edit` block, evaluated when the command started.
    edits: Vec<(Path, HValue)>,
    terminal: Terminal,
    /// What the answer to the request in flight is for.
    phase: Phase,
    /// The object the command works on.
    at: ObjectRef,
    /// The file's object (namespace set), or the object the command read.
    obj: HValue,
    /// Per verb: client-side apply's modified configuration, label's object before, the
    /// patch last computed.
    text: String,
    /// Client-side apply's retries so far (and the managed-fields migration's).
    tries: u8,
    /// Client-side apply's last patch (as Go wrote it); the migration's last conflict.
    patch: String,
    /// Server-side apply: the object the server answered last.
    live: HValue,
    /// The error of an object GET while kubectl checks the namespace (`Info.Get`).
    pending: Option<HValue>,
    /// The `Warning:` texts already printed (client-go's warning writer deduplicates).
    warned: Vec<String>,
    /// The object `-o yaml|json` printed (a redirect's file value).
    printed: Option<HValue>,
}

/// What the request in flight is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Phase {
    /// GET of the object (`Info.Get`, with its namespace check after a 404).
    Get,
    /// GET of the namespace after the object's 404.
    Namespace,
    /// `kubectl get KIND`: the list.
    List,
    /// Client-side apply: the create, the patch, a retry's GET.
    ApplyCreate,
    ApplyPatch,
    ApplyRetryGet,
    /// Server-side apply, its `kubectl-last-applied` apply, the managed-fields migration (and
    /// its retry GET), the re-apply.
    Ssa,
    SsaLastApplied,
    SsaMigrate,
    SsaMigrateGet,
    SsaReapply,
    /// `kubectl replace` without a resourceVersion: the GET for the live one; then the PUT.
    ReplaceGet,
    Put,
    /// `kubectl create`.
    Create,
    /// The PATCH of `kubectl patch`, `edit`, `label`, `annotate`.
    Patch,
    /// `kubectl delete`, then its wait.
    Delete,
    DeleteWait,
}

/// What happens after a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum After {
    /// The next step sends this request (after `wait_nanos` on the virtual clock: kubectl's
    /// back-off before a retry, 0 otherwise).
    Send { request: Request, wait_nanos: u64 },
    /// The command finished (its files already written).
    Done(Terminal),
}

/// A request.
fn req(method: Method, path: String, content_type: Option<&str>, body: Option<Value>) -> Request {
    Request {
        method,
        path,
        content_type: content_type.map(str::to_string),
        body,
    }
}

fn get(path: String) -> Request {
    req(Method::Get, path, None, None)
}

/// `url.QueryEscape` (the field manager is the only free text kubectl puts in a query).
fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `?fieldManager=M[&fieldValidation=Strict][&force=F]` (url.Values sorts its keys).
fn query(path: String, manager: &str, strict: bool, force: Option<bool>) -> String {
    let mut p = format!("{path}?fieldManager={}", escape(manager));
    if strict {
        p.push_str("&fieldValidation=Strict");
    }
    if let Some(f) = force {
        p.push_str(if f { "&force=true" } else { "&force=false" });
    }
    p
}

/// How kubectl's name printer names a kind: `configmap`, `deployment.apps`,
/// `widget.example.com` ([`super::print::name`] without the name).
fn kind_name(r: &Resource) -> String {
    let mut k = super::print::name(r, "");
    k.pop();
    k
}

/// The resource a manifest's `apiVersion` and `kind` name (the store's registry of kinds).
pub(crate) fn resource_of(api: &str, kind: &str) -> Option<Resource> {
    Resource::for_type(api, kind)
}

/// `-n`/`--namespace` given on the command line (kubectl's `EnforceNamespace`).
fn explicit_namespace(cmd: &Command) -> bool {
    cmd.line.split_whitespace().any(|w| {
        w == "-n" || w == "--namespace" || w.starts_with("--namespace=") || w.starts_with("-n=")
    })
}

/// A `metadata` string field.
fn meta_str<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Sets (or, for `None`, removes) a `metadata` field, creating `metadata`.
fn set_meta(v: &mut Value, key: &str, value: Option<Value>) {
    if let Value::Object(o) = v {
        let m = o
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = m {
            match value {
                Some(x) => {
                    m.insert(key.into(), x);
                }
                None => {
                    m.remove(key);
                }
            }
        }
    }
}

/// `Resource: "/v1, Resource=configmaps", GroupVersionKind: "/v1, Kind=ConfigMap"` and the
/// name line (`Info.String()`).
fn info_string(at: &ObjectRef) -> String {
    let (g, r) = (at.resource.group(), &at.resource);
    format!(
        "Resource: \"{g}/v1, Resource={}\", GroupVersionKind: \"{g}/v1, Kind={}\"\nName: {}, Namespace: {}",
        r.plural(),
        r.kind(),
        go::quote(&at.name),
        go::quote(&at.namespace)
    )
}

/// The object of a `-f F` file, its namespace defaulted (cli-runtime's builder), or what
/// kubectl prints before sending anything.
fn read_file(
    cmd: &Command,
    file: &str,
    verb: &str,
    files: &Files,
) -> Result<(ObjectRef, Value), Error> {
    let plain = |text: String| Error::Plain { text, status: None };
    let f = files
        .get(file)
        .ok_or_else(|| plain(format!("the path {} does not exist", go::quote(file))))?;
    let Some(HValue(v)) = f.value.as_ref().filter(|v| v.0.is_object()) else {
        // Text that holds no object (`-o name` output): kubectl's validation refuses it.
        return Err(plain(if f.text.trim().is_empty() {
            format!("no objects passed to {verb}")
        } else {
            format!("error validating {}: error validating data: invalid object to validate; if you choose to ignore these errors, turn validation off with --validate=false", go::quote(file))
        }));
    };
    let (api, kind) = (go::str_at(v, "apiVersion"), go::str_at(v, "kind"));
    if kind == "List" || v.get("items").is_some() {
        // kubectl validates a List against the server's OpenAPI, which `rvlab serve` does not
        // publish a List in (captured from kubectl 1.32.5 against `rvlab serve`).
        return Err(plain(format!("error validating {}: error validating data: the server could not find the requested resource; if you choose to ignore these errors, turn validation off with --validate=false", go::quote(file))));
    }
    let name = meta_str(v, "name").to_string();
    let own_ns = meta_str(v, "namespace").to_string();
    let resource = resource_of(api, kind).ok_or_else(|| {
        plain(format!(
            "resource mapping not found for name: {} namespace: {} from {}: no matches for kind {} in version {}\nensure CRDs are installed first",
            go::quote(&name),
            go::quote(&own_ns),
            go::quote(file),
            go::quote(kind),
            go::quote(api)
        ))
    })?;
    if name.is_empty() {
        return Err(plain("resource name may not be empty".into()));
    }
    let namespace = if resource.is_cluster_scoped() {
        String::new()
    } else if own_ns.is_empty() {
        cmd.namespace.clone()
    } else if own_ns != cmd.namespace && explicit_namespace(cmd) {
        return Err(plain(format!(
            "the namespace from the provided object {} does not match the namespace {}. You must pass '--namespace={own_ns}' to perform this operation.",
            go::quote(&own_ns),
            go::quote(&cmd.namespace)
        )));
    } else {
        own_ns
    };
    let mut obj = v.clone();
    if !namespace.is_empty() {
        set_meta(&mut obj, "namespace", Some(namespace.clone().into()));
    }
    Ok((
        ObjectRef {
            resource,
            namespace,
            name,
        },
        obj,
    ))
}

/// The target of a `KIND NAME` command.
fn target_ref(cmd: &Command, t: &NamedObject) -> ObjectRef {
    ObjectRef {
        resource: t.resource.clone(),
        namespace: if t.resource.is_cluster_scoped() {
            String::new()
        } else {
            cmd.namespace.clone()
        },
        name: t.name.clone(),
    }
}

impl Machine {
    fn new(edits: Vec<(Path, HValue)>, at: ObjectRef, obj: Value, phase: Phase) -> Machine {
        Machine {
            edits,
            terminal: Terminal::default(),
            phase,
            at,
            obj: HValue(obj),
            text: String::new(),
            tries: 0,
            patch: String::new(),
            live: HValue(Value::Null),
            pending: None,
            warned: Vec::new(),
            printed: None,
        }
    }

    /// Starts `cmd` for a client holding `files`: the machine and its first request, or what
    /// the command printed when it fails before sending anything (a file never written).
    /// `edits` are a `kubectl edit` block's assignments, evaluated.
    pub fn start(
        cmd: &Command,
        edits: Vec<(Path, HValue)>,
        files: &Files,
    ) -> Result<(Machine, Request), Terminal> {
        let fail = |e: Error| {
            let mut t = Terminal::default();
            t.write(true, &e.printed());
            t.exit = 1;
            t
        };
        let object = |t: &NamedObject, phase| {
            let at = target_ref(cmd, t);
            let r = get(at.path());
            (Machine::new(edits.clone(), at, Value::Null, phase), r)
        };
        Ok(match &cmd.verb {
            Verb::Get {
                resource,
                name: Some(name),
                ..
            } => object(
                &NamedObject {
                    resource: resource.clone(),
                    name: name.clone(),
                },
                Phase::Get,
            ),
            Verb::Get { resource, .. } => {
                let at = ObjectRef {
                    resource: resource.clone(),
                    namespace: cmd.namespace.clone(),
                    name: String::new(),
                };
                let r = get(format!("{}?limit=500", at.collection_path()));
                (Machine::new(edits, at, Value::Null, Phase::List), r)
            }
            Verb::Patch { target, .. }
            | Verb::Edit { target }
            | Verb::Label { target, .. }
            | Verb::Annotate { target, .. } => object(target, Phase::Get),
            Verb::Delete { target } => {
                let at = target_ref(cmd, target);
                let mut body = Map::new();
                body.insert("propagationPolicy".into(), "Background".into());
                let r = req(
                    Method::Delete,
                    at.path(),
                    Some("application/json"),
                    Some(Value::Object(body)),
                );
                (Machine::new(edits, at, Value::Null, Phase::Delete), r)
            }
            Verb::CreateConfigMap { name, literals } => {
                // The typed client's body (protobuf on the wire; this is what the server
                // decodes): data keys sorted, `namespace` only with `-n`.
                let mut meta = Map::new();
                meta.insert("name".into(), name.clone().into());
                if explicit_namespace(cmd) {
                    meta.insert("namespace".into(), cmd.namespace.clone().into());
                }
                meta.insert("creationTimestamp".into(), Value::Null);
                let mut body = Map::new();
                body.insert("kind".into(), "ConfigMap".into());
                body.insert("apiVersion".into(), "v1".into());
                body.insert("metadata".into(), Value::Object(meta));
                if !literals.is_empty() {
                    let data: Map<String, Value> = literals
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect();
                    body.insert("data".into(), go::sorted(&Value::Object(data)));
                }
                let at = ObjectRef {
                    resource: Resource::ConfigMap,
                    namespace: cmd.namespace.clone(),
                    name: name.clone(),
                };
                let manager = cmd.field_manager.as_deref().unwrap_or("kubectl-create");
                let r = req(
                    Method::Post,
                    query(at.collection_path(), manager, true, None),
                    Some("application/vnd.kubernetes.protobuf"),
                    Some(Value::Object(body)),
                );
                (Machine::new(edits, at, Value::Null, Phase::Create), r)
            }
            Verb::Create { file } => {
                let (at, mut obj) = read_file(cmd, file, "create", files).map_err(fail)?;
                // `Helper.Create(…, modify=true)` clears the resourceVersion.
                set_meta(&mut obj, "resourceVersion", None);
                let manager = cmd.field_manager.as_deref().unwrap_or("kubectl-create");
                let r = req(
                    Method::Post,
                    query(at.collection_path(), manager, true, None),
                    Some("application/json"),
                    Some(obj.clone()),
                );
                (Machine::new(edits, at, obj, Phase::Create), r)
            }
            Verb::Replace { file } => {
                let (at, obj) = read_file(cmd, file, "replace", files).map_err(fail)?;
                let mut m = Machine::new(edits, at, obj, Phase::Put);
                if meta_str(&m.obj.0, "resourceVersion").is_empty() {
                    // `Helper.Replace`: no resourceVersion, so the live one is copied in.
                    m.phase = Phase::ReplaceGet;
                    let r = get(m.at.path());
                    (m, r)
                } else {
                    let r = m.put(cmd);
                    (m, r)
                }
            }
            Verb::Apply {
                file, server_side, ..
            } => {
                let (at, obj) = read_file(cmd, file, "apply", files).map_err(fail)?;
                let mut m = Machine::new(edits, at, obj, Phase::Get);
                let r = if *server_side {
                    m.phase = Phase::Ssa;
                    m.ssa(cmd)
                } else {
                    m.text = apply::modified(&m.obj.0);
                    get(m.at.path())
                };
                (m, r)
            }
        })
    }

    /// The answer to the request this machine sent last: the next request, or the end.
    pub fn receive(&mut self, cmd: &Command, reply: Reply<'_>, files: &mut Files) -> After {
        for w in reply.warnings {
            if !self.warned.contains(w) {
                self.terminal.write(true, &format!("Warning: {w}\n"));
                self.warned.push(w.clone());
            }
        }
        let code = reply.response.code;
        let body = &reply.response.body;
        let ok = (200..300).contains(&code);
        let result = if ok {
            Ok(body.clone())
        } else {
            Err(Error::server(body))
        };
        let step = match self.phase {
            Phase::Get => match result {
                Err(Error::Status { status, .. })
                    if go::is_not_found(&status)
                        && !self.at.namespace.is_empty()
                        && self.at.namespace != "default" =>
                {
                    // cli-runtime `Info.Get`: is it the namespace that is missing?
                    self.pending = Some(HValue(status));
                    self.phase = Phase::Namespace;
                    Step::Send(get(format!("/api/v1/namespaces/{}", self.at.namespace)))
                }
                r => self.fetched(cmd, r, reply.now_ms),
            },
            Phase::Namespace => {
                let own = self.pending.take().map(|h| Error::server(&h.0));
                let err = match result {
                    Err(e) if e.status().is_some_and(go::is_not_found) => e,
                    _ => own.unwrap_or(Error::Plain {
                        text: String::new(),
                        status: None,
                    }),
                };
                self.fetched(cmd, Err(err), reply.now_ms)
            }
            Phase::List => self.listed(cmd, result, reply.now_ms),
            Phase::ApplyCreate => match result {
                Ok(b) => {
                    let line = format!(
                        "{}/{} created\n",
                        kind_name(&self.at.resource),
                        name_of(&b, &self.at)
                    );
                    {
                        self.out(&line);
                        Step::Done
                    }
                }
                Err(e) => Step::Fail(e.with_source("creating", source(cmd))),
            },
            Phase::ApplyPatch => self.csa_patched(cmd, result),
            Phase::ApplyRetryGet => match result {
                Ok(live) => self.csa_patch(cmd, live),
                Err(e) => Step::Fail(apply::patch_error(self, cmd, "", e)),
            },
            Phase::Ssa => self.ssa_applied(cmd, result),
            Phase::SsaLastApplied => self.ssa_last_applied(cmd, result),
            Phase::SsaMigrate => self.ssa_migrated(cmd, result),
            Phase::SsaMigrateGet => self.ssa_migrate_get(cmd, result),
            Phase::SsaReapply => {
                match result {
                    Ok(b) => self.obj = HValue(b),
                    Err(e) => self.terminal.write(true, &format!("Warning: failed to re-apply configuration after performing Server-Side Apply migration. This is non-fatal and will be retried next time you apply. Error: {}\n", e.text())),
                }
                self.ssa_done()
            }
            Phase::ReplaceGet => {
                if let Ok(live) = &result {
                    let rv = meta_str(live, "resourceVersion").to_string();
                    set_meta(&mut self.obj.0, "resourceVersion", Some(rv.into()));
                }
                self.phase = Phase::Put;
                Step::Send(self.put(cmd))
            }
            Phase::Put => match result {
                Ok(b) => {
                    let line = format!(
                        "{}/{} replaced\n",
                        kind_name(&self.at.resource),
                        name_of(&b, &self.at)
                    );
                    {
                        self.out(&line);
                        Step::Done
                    }
                }
                Err(e) => Step::Fail(e.with_source("replacing", source(cmd))),
            },
            Phase::Create => match (result, &cmd.verb) {
                (Ok(b), _) => {
                    let line = format!(
                        "{}/{} created\n",
                        kind_name(&self.at.resource),
                        name_of(&b, &self.at)
                    );
                    {
                        self.out(&line);
                        Step::Done
                    }
                }
                (Err(e), Verb::CreateConfigMap { .. }) => Step::Fail(Error::Plain {
                    text: format!("failed to create configmap: {}", e.text()),
                    status: e.status().cloned(),
                }),
                (Err(e), _) => Step::Fail(e.with_source("creating", source(cmd))),
            },
            Phase::Patch => self.patched(cmd, result),
            Phase::Delete => match result {
                Ok(_) => {
                    // kubectl 1.34 and later name a namespaced object's namespace
                    // (`DeleteOptions.PrintObj`, k8s.io/kubectl `pkg/cmd/delete/delete.go`).
                    let mut line = format!(
                        "{} {} deleted",
                        kind_name(&self.at.resource),
                        go::quote(&self.at.name)
                    );
                    if !self.at.resource.is_cluster_scoped() {
                        line = format!("{line} from {} namespace", self.at.namespace);
                    }
                    line.push('\n');
                    self.terminal.write(false, &line);
                    // `--wait`: kubectl reads the object until it is gone (the store deletes
                    // at once, so one GET answers 404 — or finds a new object of the name).
                    self.phase = Phase::DeleteWait;
                    Step::Send(get(self.at.path()))
                }
                Err(e) => Step::Fail(e),
            },
            Phase::DeleteWait => Step::Done,
        };
        match step {
            Step::Send(request) => After::Send {
                request,
                wait_nanos: 0,
            },
            Step::Wait(request) => After::Send {
                request,
                wait_nanos: 1_000_000_000,
            },
            Step::Done => After::Done(self.finish(cmd, files)),
            Step::Fail(e) => {
                self.terminal.write(true, &e.printed());
                self.terminal.exit = 1;
                self.terminal.status = e.status().cloned().map(HValue);
                After::Done(self.finish(cmd, files))
            }
            Step::Exit(status) => {
                self.terminal.exit = 1;
                self.terminal.status = status.map(HValue);
                After::Done(self.finish(cmd, files))
            }
        }
    }

    /// Writes to stdout.
    fn out(&mut self, text: &str) {
        self.terminal.write(false, text);
    }

    /// The terminal at the end; a `> F` redirect takes stdout into the client's file.
    fn finish(&mut self, cmd: &Command, files: &mut Files) -> Terminal {
        let mut t = std::mem::take(&mut self.terminal);
        if let Some(f) = &cmd.redirect {
            let text = t.stdout();
            t.chunks.retain(|c| c.stderr);
            let value = if t.exit == 0 {
                self.printed.take()
            } else {
                None
            };
            files.insert(f.clone(), File { text, value });
        }
        t
    }

    /// The PUT of `kubectl replace`.
    fn put(&self, cmd: &Command) -> Request {
        let manager = cmd.field_manager.as_deref().unwrap_or("kubectl-replace");
        req(
            Method::Put,
            query(self.at.path(), manager, true, None),
            Some("application/json"),
            Some(self.obj.0.clone()),
        )
    }

    /// The object read (`Info.Get` done): what each verb does with it.
    fn fetched(&mut self, cmd: &Command, result: Result<Value, Error>, now_ms: u64) -> Step {
        let live = match result {
            Ok(v) => v,
            Err(e) => {
                return match cmd.verb {
                    Verb::Apply { .. } if e.status().is_some_and(go::is_not_found) => {
                        self.csa_create(cmd)
                    }
                    Verb::Apply { .. } => Step::Fail(e.with_source(
                        &format!(
                            "retrieving current configuration of:\n{}\nfrom server for:",
                            info_string(&self.at)
                        ),
                        source(cmd),
                    )),
                    _ => Step::Fail(e),
                }
            }
        };
        match &cmd.verb {
            Verb::Get { output, .. } => self.print(output, &live, false, now_ms),
            Verb::Apply { .. } => {
                let annotated = live
                    .pointer("/metadata/annotations")
                    .and_then(|a| a.get(LAST_APPLIED))
                    .is_some();
                if !annotated {
                    let w = format!("Warning: resource {}/{} is missing the {LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n", self.at.resource.plural(), self.at.name);
                    self.terminal.write(true, &w);
                }
                self.csa_patch(cmd, live)
            }
            Verb::Patch {
                patch_type, patch, ..
            } => {
                let body = match serde_json::from_str::<Value>(patch) {
                    Ok(b) => b,
                    Err(e) => {
                        return Step::Fail(Error::Plain {
                            text: format!("unable to parse {}: {e}", go::quote(patch)),
                            status: None,
                        })
                    }
                };
                self.obj = HValue(live);
                let manager = cmd.field_manager.as_deref().unwrap_or("kubectl-patch");
                self.phase = Phase::Patch;
                Step::Send(req(
                    Method::Patch,
                    query(self.at.path(), manager, false, None),
                    Some(patch_type.content_type()),
                    Some(body),
                ))
            }
            Verb::Edit { .. } => self.edit(cmd, live),
            Verb::Label {
                changes,
                overwrite,
                resource_version,
                ..
            } => self.label(cmd, live, changes, *overwrite, resource_version, true),
            Verb::Annotate {
                changes,
                overwrite,
                resource_version,
                ..
            } => self.label(cmd, live, changes, *overwrite, resource_version, false),
            _ => Step::Done,
        }
    }

    /// Prints a `kubectl get` result (an object, or a list as kubectl's `kind: List`).
    fn print(&mut self, output: &OutputFormat, v: &Value, list: bool, now_ms: u64) -> Step {
        use super::print;
        let items = v.get("items").and_then(Value::as_array);
        let shown = match (list, items) {
            (true, Some(items)) => print::list(&self.at.resource, items),
            (true, None) => print::list(&self.at.resource, &[]),
            _ => v.clone(),
        };
        let empty = list && items.is_none_or(Vec::is_empty);
        let text = match output {
            OutputFormat::Table if empty => {
                let ns =
                    (!self.at.resource.is_cluster_scoped()).then_some(self.at.namespace.as_str());
                self.terminal.write(true, &print::no_resources(ns));
                String::new()
            }
            OutputFormat::Table => {
                use crate::store::table::{table, IncludeObject};
                print::table(&table(
                    v,
                    &self.at.resource,
                    now_ms,
                    IncludeObject::Metadata,
                ))
            }
            OutputFormat::Yaml => match print::try_yaml(&shown) {
                Ok(t) => t,
                Err(e) => {
                    return Step::Fail(Error::Plain {
                        text: e,
                        status: None,
                    })
                }
            },
            OutputFormat::Json => print::json(&shown),
            OutputFormat::Name => {
                let one = |o: &Value| {
                    format!("{}\n", print::name(&self.at.resource, meta_str(o, "name")))
                };
                match shown.get("items").and_then(Value::as_array) {
                    Some(is) => is.iter().map(one).collect(),
                    None => one(&shown),
                }
            }
            OutputFormat::JsonPath(t) => match super::jsonpath::eval(t, &shown) {
                Ok(s) => s,
                Err(e) => {
                    return Step::Fail(Error::Plain {
                        text: e,
                        status: None,
                    })
                }
            },
        };
        if matches!(output, OutputFormat::Yaml | OutputFormat::Json) {
            self.printed = Some(HValue(print::for_output(&shown)));
        }
        self.out(&text);
        Step::Done
    }

    /// The list of `kubectl get KIND`.
    fn listed(&mut self, cmd: &Command, result: Result<Value, Error>, now_ms: u64) -> Step {
        match (result, &cmd.verb) {
            (Ok(v), Verb::Get { output, .. }) => self.print(output, &v, true, now_ms),
            (Err(e), _) => Step::Fail(e),
            _ => Step::Done,
        }
    }

    /// The PATCH of `kubectl patch`, `edit`, `label` or `annotate` answered.
    fn patched(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        let kn = kind_name(&self.at.resource);
        match (result, &cmd.verb) {
            (Ok(b), Verb::Patch { .. }) => {
                let same = crate::json::same_value(&b, &self.obj.0);
                let line = format!(
                    "{kn}/{} {}\n",
                    name_of(&b, &self.at),
                    if same {
                        "patched (no change)"
                    } else {
                        "patched"
                    }
                );
                self.out(&line);
                Step::Done
            }
            (Err(e), Verb::Patch { patch_type, .. })
                if e.status()
                    .and_then(|s| s.get("code"))
                    .and_then(Value::as_u64)
                    == Some(415) =>
            {
                let r = &self.at.resource;
                Step::Fail(Error::Plain {
                    text: format!(
                        "{} is not supported by {}/v1, Kind={}: {}",
                        patch_type.content_type(),
                        r.group(),
                        r.kind(),
                        e.text()
                    ),
                    status: e.status().cloned(),
                })
            }
            (Err(e), Verb::Edit { .. }) => self.edit_failed(e),
            (Err(e), _) => Step::Fail(e),
            (Ok(b), Verb::Edit { .. }) => {
                let line = format!("{kn}/{} edited\n", name_of(&b, &self.at));
                self.out(&line);
                Step::Done
            }
            (Ok(_), Verb::Annotate { .. }) => {
                let line = format!("{kn}/{} annotated\n", self.at.name);
                self.out(&line);
                Step::Done
            }
            (Ok(_), _) => {
                let line = format!("{kn}/{} {}\n", self.at.name, self.text);
                self.out(&line);
                Step::Done
            }
        }
    }

    /// `kubectl edit` (KC `pkg/cmd/util/editor/editoptions.go`): the object as the editor shows
    /// it (no managedFields), the scenario's edits, and the two-way patch of kubectl's
    /// preconditions.
    fn edit(&mut self, cmd: &Command, live: Value) -> Step {
        let original = super::print::for_output(&live);
        let mut edited = original.clone();
        for (path, HValue(v)) in &self.edits {
            if let Err(e) = crate::fieldpath::write_path(&mut edited, "object", path, v.clone()) {
                return Step::Fail(Error::Plain {
                    text: e,
                    status: None,
                });
            }
        }
        if crate::json::same_value(&original, &edited) {
            self.terminal
                .write(true, "Edit cancelled, no changes made.\n");
            return Step::Done;
        }
        let changed = "At least one of apiVersion, kind and name was changed";
        let custom = matches!(self.at.resource, Resource::Custom { .. });
        let patch = if custom {
            Ok(crate::store::strategic_create::json_merge_two_way(
                &original, &edited,
            ))
        } else {
            let at = crate::store::schema::builtin().root(&self.at.resource.kind());
            crate::store::strategic_create::two_way(&original, &edited, at)
        };
        let patch = match patch {
            Ok(p) => p,
            Err(e) => return self.preserved(e.to_string()),
        };
        let touches = |k: &str| patch.get(k).is_some();
        if touches("apiVersion")
            || touches("kind")
            || touches("managedFields")
            || patch.pointer("/metadata/name").is_some()
        {
            return self.preserved(changed.into());
        }
        let manager = cmd.field_manager.as_deref().unwrap_or("kubectl-edit");
        let ct = if custom {
            PatchType::Merge
        } else {
            PatchType::Strategic
        };
        self.phase = Phase::Patch;
        Step::Send(req(
            Method::Patch,
            query(self.at.path(), manager, true, None),
            Some(ct.content_type()),
            Some(patch),
        ))
    }

    /// `preservedFile`: the edit's file is kept, and the error printed.
    fn preserved(&mut self, text: String) -> Step {
        self.terminal.write(
            true,
            &format!("A copy of your changes has been stored to \"{EDIT_FILE}\"\n"),
        );
        Step::Fail(Error::Plain { text, status: None })
    }

    /// An edit's PATCH failed (`editResults.addError`).
    fn edit_failed(&mut self, e: Error) -> Step {
        let r = &self.at.resource;
        let res = match r.group() {
            "" => r.plural().to_string(),
            g => format!("{}.{g}", r.plural()),
        };
        let name = go::quote(&self.at.name);
        let status = e.status().cloned();
        let reason = status.as_ref().map_or("", go::reason);
        let text = if reason == "Invalid" {
            // kubectl reopens the editor with the error; the same edit changes nothing more,
            // so it gives up.
            format!("error: {res} {name} is invalid\nA copy of your changes has been stored to \"{EDIT_FILE}\"\nerror: Edit cancelled, no valid changes were saved.\n")
        } else if status.as_ref().is_some_and(go::is_not_found) {
            format!("error: {res} {name} could not be found on the server\nThe edits you made on deleted resources have been saved to \"{EDIT_FILE}\"\n")
        } else {
            format!("error: {res} {name} could not be patched: {}\nYou can run `kubectl replace -f {EDIT_FILE}` to try this update again.\n", e.text())
        };
        self.terminal.write(true, &text);
        Step::Exit(status)
    }

    /// `kubectl label` / `kubectl annotate` (KC `pkg/cmd/label`, `pkg/cmd/annotate`): the
    /// change made on the object read, sent as the JSON merge patch from before to after.
    fn label(
        &mut self,
        cmd: &Command,
        live: Value,
        changes: &[MetaChange],
        overwrite: bool,
        rv: &Option<String>,
        labels: bool,
    ) -> Step {
        let field = if labels { "labels" } else { "annotations" };
        let mut obj = live;
        if rv.is_some() {
            set_meta(&mut obj, "resourceVersion", None);
        }
        let old = super::print::go_json(&obj);
        let current = go::meta(&obj)
            .get(field)
            .and_then(Value::as_object)
            .cloned();
        if labels {
            for c in changes {
                if let MetaChange::Remove { key } = c {
                    if !current.as_ref().is_some_and(|m| m.contains_key(key)) {
                        self.out(&format!("label {} not found.\n", go::quote(key)));
                    }
                }
            }
        }
        if !overwrite {
            let clashes: Vec<(&String, &str)> = changes
                .iter()
                .filter_map(|c| match c {
                    MetaChange::Set { key, value } => {
                        let cur = current.as_ref()?.get(key)?.as_str()?;
                        (cur != value && (labels || key != "kubernetes.io/change-cause"))
                            .then_some((key, cur))
                    }
                    MetaChange::Remove { .. } => None,
                })
                .collect();
            if !clashes.is_empty() {
                let one = |(k, v): &(&String, &str)| format!("'{k}' already has a value ({v})");
                let text = if labels {
                    let ls: Vec<String> = clashes
                        .iter()
                        .map(|c| format!("{}, and --overwrite is false", one(c)))
                        .collect();
                    if ls.len() == 1 {
                        format!("error: {}\n", ls[0])
                    } else {
                        ls.iter().map(|l| format!("{l}\n")).collect()
                    }
                } else {
                    let ls: Vec<String> = clashes.iter().map(one).collect();
                    format!(
                        "error: --overwrite is false but found the following declared annotation(s): {}\n",
                        ls.join("; ")
                    )
                };
                self.terminal.write(true, &text);
                return Step::Exit(None);
            }
        }
        let mut map = current.unwrap_or_default();
        // `labelFunc` (KC `pkg/cmd/label/label.go`, 1.37): the keys a change really adds
        // (absent, or another value) and removes (present).
        let (mut added, mut removed) = (false, false);
        for c in changes {
            match c {
                MetaChange::Set { key, value } => {
                    added |= map.get(key).and_then(Value::as_str) != Some(value.as_str());
                    map.insert(key.clone(), value.clone().into());
                }
                MetaChange::Remove { key } => {
                    removed |= map.remove(key).is_some();
                }
            }
        }
        if labels {
            // `updateDataChangeMsg`; a label change that changes nothing sends no request
            // (its `--resource-version` neither).
            self.text = match (added, removed) {
                (true, true) => "modified",
                (true, false) => "labeled",
                (false, true) => "unlabeled",
                (false, false) => {
                    let kn = kind_name(&self.at.resource);
                    self.out(&format!("{kn}/{} not labeled\n", self.at.name));
                    return Step::Done;
                }
            }
            .into();
        }
        set_meta(&mut obj, field, Some(Value::Object(map)));
        if let Some(rv) = rv {
            set_meta(&mut obj, "resourceVersion", Some(rv.clone().into()));
        }
        let patch = crate::store::strategic_create::json_merge_two_way(
            &serde_json::from_str(&old).unwrap_or_default(),
            &obj,
        );
        let default = if labels {
            "kubectl-label"
        } else {
            "kubectl-annotate"
        };
        let manager = cmd.field_manager.as_deref().unwrap_or(default);
        self.phase = Phase::Patch;
        Step::Send(req(
            Method::Patch,
            query(self.at.path(), manager, false, None),
            Some(PatchType::Merge.content_type()),
            Some(patch),
        ))
    }
}

/// The name of `kubectl edit`'s temporary file in what kubectl prints (the real one has random
/// digits, and the binary's base name instead of `kubectl`).
const EDIT_FILE: &str = "/tmp/kubectl-edit-0000000000.yaml";

/// What a reply leads to.
enum Step {
    Send(Request),
    /// The next request after kubectl's 1 s back-off.
    Wait(Request),
    /// Finished (exit 0 unless a failure was already written).
    Done,
    /// Failed with this error (printed, exit 1).
    Fail(Error),
    /// Failed, its message already written (exit 1), with the server's Status if one caused it.
    Exit(Option<Value>),
}

/// The `-f` file's name (`Info.Source`).
fn source(cmd: &Command) -> &str {
    match &cmd.verb {
        Verb::Apply { file, .. } | Verb::Replace { file } | Verb::Create { file } => file,
        _ => "",
    }
}

/// The name of the object a response holds (the command's when it holds none).
fn name_of<'a>(b: &'a Value, at: &'a ObjectRef) -> &'a str {
    match meta_str(b, "name") {
        "" => &at.name,
        n => n,
    }
}

#[cfg(test)]
mod tests;
