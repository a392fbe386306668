//! "Save as scenario" (issue #15): [`Live::scenario`] turns `rvlab serve`'s history of real
//! requests into a scenario text that `rvlab run` replays in the same order, with the same
//! answers and revisions (docs/serve.md, "The live view").
//!
//! - The setup is the history's start ([`Live::start`]): one `object REF at resourceVersion N`
//!   per object, in revision order, with its content (`data`, `spec`, … and the labels,
//!   annotations, finalizers and owner references; no server-set metadata). When the store's
//!   counter was beyond the last object's revision, or an object cannot be written as a setup
//!   object (a Secret, a Namespace, an object being deleted), a comment says so.
//! - One client per real client program, in the order of its first request; a scripted client
//!   stops at its first error, a real one goes on, so after each failed request (a failed
//!   kubectl command) the program's next requests go to a new client (`python_2`, `# python,
//!   after its 409 …`). So does a kubectl invocation that ran while another one of the same
//!   program was still running, and a client that reached the statement limit.
//! - kubectl's requests, grouped by invocation (`Kubectl-Session`), become the kubectl command
//!   that sends them (`Kubectl-Command` says which), with a `file` statement holding what
//!   `-f` read; a command that cannot be rebuilt becomes the requests it sent, as scenario
//!   statements, with a comment. Other programs' requests become scenario statements; LISTs,
//!   watches and paths that are not objects are comments.
//! - The `schedule` is the recorded order: one step per statement step (a local `VAR = {…}`
//!   and a `file` statement are steps of their own; a kubectl command takes one per request).
//!
//! What the text leaves out (and says where it matters): `metadata.uid` and `managedFields` of
//! the bodies sent (the replay's objects have their own uids; the server keeps its managed
//! fields when a body has none), a DELETE's uid precondition, the field manager of a plain
//! update, patch or create (a scripted client's is its name), and requests a scenario cannot
//! send (Secrets and Namespaces outside kubectl, subresources other than a Deployment's
//! status, other content types).

use crate::live::{Live, LiveRequest};
use rvlab_core::lang::keywords;
use rvlab_core::limits::{
    MAX_CLIENTS, MAX_NESTING_DEPTH, MAX_SOURCE_BYTES, MAX_STATEMENTS_PER_CLIENT,
};
use rvlab_core::store::{Method, ObjectRef, Resource};
use serde_json::{Map, Value};

/// kubectl's client-side apply annotation.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

impl Live {
    /// The history as a scenario text ("Save as scenario", see the module docs): parsed and
    /// run with its own schedule, it sends the same requests in the same order.
    pub fn scenario(&self) -> String {
        let recorded: Vec<&LiveRequest> = self.recorded().collect();
        let (objects, revision) = self.start();
        let objects: Vec<&Value> = objects.iter().collect();
        save(
            &recorded,
            &objects,
            revision,
            self.dropped(),
            self.is_shared(),
        )
    }
}

/// A client identifier for a program name: `rvlab-interferer` → `rvlab_interferer`; a name
/// that is empty, starts with a digit or is a reserved word is adjusted, and `taken` names are
/// avoided (`python_2`).
pub fn client_name(program: &str, taken: &[String]) -> String {
    let mut base: String = program
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if base.is_empty() {
        base = "unnamed".into();
    }
    if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, '_');
    }
    if keywords::is_reserved(&base) {
        base.push('_');
    }
    unique(base, taken)
}

fn unique(base: String, taken: &[String]) -> String {
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| !taken.contains(n))
        .unwrap_or(base)
}

/// A value as a scenario literal (JSON is one).
fn lit(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// A string as a scenario string literal.
fn string(s: &str) -> String {
    lit(&Value::String(s.to_string()))
}

/// How deeply a value's brackets nest.
fn depth(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A path segment after `prefix`: `.key`, or `["key"]` for a key that is not an identifier.
fn seg(prefix: &str, key: &str) -> String {
    if keywords::is_identifier(key) {
        if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        }
    } else {
        format!("{prefix}[{}]", string(key))
    }
}

/// `PATH = LITERAL` assignments that build `v` at `path`, split into one per key where the
/// literal would nest brackets deeper than the language allows.
fn assignments(path: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if depth(v) > MAX_NESTING_DEPTH && !m.is_empty() => {
            out.push(format!("{path} = {{}}"));
            for (k, x) in m {
                assignments(&seg(path, k), x, out);
            }
        }
        _ => out.push(format!("{path} = {}", lit(v))),
    }
}

/// Shell single quotes.
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The resource of an object's `apiVersion` and `kind` (the store's registry of kinds).
fn resource_of(obj: &Value) -> Option<Resource> {
    Resource::for_type(obj["apiVersion"].as_str()?, obj["kind"].as_str()?)
}

/// Whether a scenario reference can name objects of this resource.
fn expressible(r: &Resource) -> bool {
    matches!(
        r,
        Resource::ConfigMap | Resource::Deployment | Resource::Custom { .. }
    )
}

/// The object without `metadata.uid` and `metadata.managedFields` (see the module docs).
fn scrub(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(Value::Object(m)) = v.get_mut("metadata") {
        m.remove("uid");
        m.remove("managedFields");
    }
    v
}

/// A create or apply body without what the engine fills in (`apiVersion`, `kind`, name and
/// namespace: it sets them from the reference).
fn bare(v: &Value) -> Value {
    let mut v = scrub(v);
    if let Value::Object(o) = &mut v {
        o.remove("apiVersion");
        o.remove("kind");
        let empty = match o.get_mut("metadata") {
            Some(Value::Object(m)) => {
                m.remove("name");
                m.remove("namespace");
                m.is_empty()
            }
            _ => false,
        };
        if empty {
            o.remove("metadata");
        }
    }
    v
}

/// The setup lines of one start object.
fn setup_object(obj: &Value, out: &mut Vec<String>) {
    let rv = obj["metadata"]["resourceVersion"].as_str().unwrap_or("");
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    let ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    let resource = resource_of(obj);
    let what = format!(
        "{}/{name}",
        obj["kind"]
            .as_str()
            .unwrap_or("object")
            .to_ascii_lowercase()
    );
    let Some(resource) = resource.filter(expressible) else {
        out.push(format!(
            "# {what} at resourceVersion {rv} is left out: a scenario has no reference for it"
        ));
        return;
    };
    let target = ObjectRef {
        resource,
        namespace: ns.to_string(),
        name: name.to_string(),
    };
    if obj["metadata"].get("deletionTimestamp").is_some() {
        out.push(format!(
            "# {target} was being deleted (it has a deletionTimestamp): a setup object cannot be"
        ));
    }
    let mut lines = Vec::new();
    if let Value::Object(m) = obj {
        for (k, v) in m {
            match k.as_str() {
                "apiVersion" | "kind" => {}
                "metadata" => {
                    for key in ["labels", "annotations", "finalizers", "ownerReferences"] {
                        if let Some(x) = v.get(key) {
                            assignments(&format!("metadata.{key}"), x, &mut lines);
                        }
                    }
                }
                _ if keywords::is_identifier(k) && !keywords::is_reserved(k) => {
                    assignments(k, v, &mut lines)
                }
                _ => out.push(format!(
                    "# its field {} cannot be written in a setup block",
                    string(k)
                )),
            }
        }
    }
    let at = match rv.parse::<u64>() {
        Ok(n) if n > 0 => format!(" at resourceVersion {n}"),
        _ => String::new(),
    };
    if lines.is_empty() {
        out.push(format!("object {target}{at}"));
    } else {
        out.push(format!("object {target}{at}:"));
        out.extend(lines.into_iter().map(|l| format!("    {l}")));
    }
}

/// The parsed target of a request (`None`: not an object or collection path).
fn target_of(r: &LiveRequest) -> Option<rvlab_core::store::path::RequestTarget> {
    rvlab_core::store::path::parse(&r.request.path).ok()
}

fn ok(r: &LiveRequest) -> bool {
    (200..300).contains(&r.response.code)
}

/// `PUT /api/v1/namespaces/default/configmaps/x` (the query left out).
fn request_text(r: &LiveRequest) -> String {
    format!(
        "{} {}",
        r.request.method.as_str(),
        r.request.path.split('?').next().unwrap_or("")
    )
}

/// What one request or one kubectl invocation becomes.
#[derive(Default)]
struct Unit {
    /// The client statements and comments, unindented.
    lines: Vec<String>,
    /// How many of `lines` are statements.
    statements: usize,
    /// The schedule steps each request of the unit takes (by index into the history).
    steps: Vec<(usize, usize)>,
    /// Why the client stops after this unit (`409`), if it does.
    stops: Option<String>,
}

impl Unit {
    fn statement(&mut self, line: String) {
        self.lines.push(line);
        self.statements += 1;
    }
}

/// One request as scenario statements (or a comment saying why it is none).
fn plain(i: usize, r: &LiveRequest, unit: &mut Unit) {
    let text = request_text(r);
    let comment = |unit: &mut Unit, why: &str| unit.lines.push(format!("# {text} ({why})"));
    let Some(t) = target_of(r) else {
        return comment(unit, "not a statement: not an object's path");
    };
    let watch = r.request.path.contains("watch=true") || r.request.path.contains("watch=1");
    if watch {
        return comment(unit, "a watch: not a statement");
    }
    if t.name.is_none() && r.request.method == Method::Get {
        return comment(unit, "a LIST: not a statement");
    }
    if !expressible(&t.resource) {
        return comment(
            unit,
            &format!(
                "not replayed: a scenario has no reference for {}",
                t.resource.plural()
            ),
        );
    }
    let body = r.request.body.clone().unwrap_or(Value::Null);
    let name = match &t.name {
        Some(n) => n.clone(),
        None => match body["metadata"]["name"].as_str() {
            Some(n) => n.to_string(),
            None => return comment(unit, "not replayed: a create without a name"),
        },
    };
    let target = ObjectRef {
        resource: t.resource.clone(),
        namespace: t.namespace.clone(),
        name,
    };
    let status = if t.sub == "status" { " status" } else { "" };
    let before = unit.statements;
    match r.request.method {
        Method::Get => unit.statement(format!("obj = get {target}{status}")),
        Method::Put => {
            if !body.is_object() {
                return comment(unit, "not replayed: the body is not an object");
            }
            let mut b = scrub(&body);
            if let Value::Object(o) = &mut b {
                o.entry("apiVersion")
                    .or_insert_with(|| t.resource.api_version().into());
                o.entry("kind").or_insert_with(|| t.resource.kind().into());
                if let Value::Object(m) = o
                    .entry("metadata")
                    .or_insert_with(|| Value::Object(Map::new()))
                {
                    m.entry("name")
                        .or_insert_with(|| target.name.clone().into());
                    if target.namespace != "default" {
                        m.entry("namespace")
                            .or_insert_with(|| target.namespace.clone().into());
                    }
                }
            }
            let mut lines = Vec::new();
            assignments("obj", &b, &mut lines);
            for l in lines {
                unit.statement(l);
            }
            unit.statement(format!("update obj{status}"));
        }
        Method::Post | Method::Patch => {
            let b = if r.request.method == Method::Patch
                && r.request.content_type.as_deref() == Some("application/json-patch+json")
            {
                body.clone()
            } else if r.request.method == Method::Post
                || r.request.content_type.as_deref() == Some("application/apply-patch+yaml")
            {
                bare(&body)
            } else {
                scrub(&body)
            };
            let kind = match (r.request.method, r.request.content_type.as_deref()) {
                (Method::Post, _) => format!("create {target}"),
                (_, Some("application/merge-patch+json")) => {
                    format!("patch {target}{status} merge")
                }
                (_, Some("application/json-patch+json")) => format!("patch {target}{status} json"),
                (_, Some("application/strategic-merge-patch+json")) => {
                    format!("patch {target}{status} strategic")
                }
                (_, Some("application/apply-patch+yaml")) => format!("apply {target}{status}"),
                (_, ct) => {
                    return comment(
                        unit,
                        &format!("not replayed: a patch of type {}", ct.unwrap_or("(none)")),
                    )
                }
            };
            let tail = match r.request.content_type.as_deref() {
                Some("application/apply-patch+yaml") if r.request.method == Method::Patch => {
                    format!(
                        " as {}{}",
                        string(t.field_manager.as_deref().unwrap_or(&r.name)),
                        if t.force == Some(true) { " force" } else { "" }
                    )
                }
                _ => String::new(),
            };
            if depth(&b) <= MAX_NESTING_DEPTH {
                unit.statement(format!("{kind} {}{tail}", lit(&b)));
            } else {
                let mut lines = Vec::new();
                assignments("body", &b, &mut lines);
                for l in lines {
                    unit.statement(l);
                }
                unit.statement(format!("{kind} body{tail}"));
            }
        }
        Method::Delete => {
            let pre = &body["preconditions"];
            let mut line = format!("delete {target}");
            if let Some(rv) = pre["resourceVersion"].as_str() {
                line.push_str(&format!(" precondition resourceVersion {}", string(rv)));
            }
            if let Some(uid) = pre["uid"].as_str() {
                unit.lines.push(format!(
                    "# its precondition uid {} is left out: the replay's object has another uid",
                    string(uid)
                ));
            }
            unit.statement(line);
        }
    }
    unit.steps.push((i, unit.statements - before));
    if !ok(r) {
        unit.stops = Some(format!("{} ({text})", r.response.code));
    }
}

/// `KIND NAME [-n NS]` of a kubectl command line.
fn kubectl_object(t: &rvlab_core::store::path::RequestTarget) -> String {
    let mut s = t.resource.short();
    if let Some(n) = &t.name {
        s.push(' ');
        s.push_str(&quote(n));
    }
    if !t.namespace.is_empty() && t.namespace != "default" {
        s.push_str(&format!(" -n {}", quote(&t.namespace)));
    }
    s
}

/// ` --field-manager M` when the request's manager is not kubectl's default for the command.
fn manager_flag(r: &LiveRequest, default: &str) -> String {
    match target_of(r).and_then(|t| t.field_manager) {
        Some(m) if m != default => format!(" --field-manager {}", quote(&m)),
        _ => String::new(),
    }
}

/// The file name a command reads (`my-config.yaml`, `team-a-my-config.yaml`).
fn file_name(t: &rvlab_core::store::path::RequestTarget, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    match t.namespace.as_str() {
        "" | "default" => format!("{clean}.yaml"),
        ns => format!("{ns}-{clean}.yaml"),
    }
}

fn is_object_get(r: &LiveRequest, t: &rvlab_core::store::path::RequestTarget) -> bool {
    r.request.method == Method::Get && t.name.is_some() && t.sub.is_empty()
}

/// A rebuilt kubectl command: a comment, the file it reads (name, object), its line.
type Rebuilt = (Option<String>, Option<(String, Value)>, String);

/// A kubectl command that sends exactly the requests of one invocation: its comment, the file
/// it reads (name, object) and its line; `None` when the requests do not fit the command.
fn kubectl_command(reqs: &[&LiveRequest]) -> Option<Rebuilt> {
    let first = *reqs.first()?;
    let last = *reqs.last()?;
    let t0 = target_of(first)?;
    let verb = first
        .command
        .as_deref()
        .and_then(|c| c.split_whitespace().nth(1))
        .unwrap_or("");
    let m = |r: &LiveRequest| r.request.method;
    let count = reqs.len();
    let same = |r: &LiveRequest| {
        target_of(r).is_some_and(|t| t.resource == t0.resource && t.namespace == t0.namespace)
    };
    if !reqs
        .iter()
        .all(|r| same(r) || r.request.path.starts_with("/api/v1/namespaces/"))
    {
        return None;
    }
    match verb {
        "get" => {
            if m(first) != Method::Get || !t0.sub.is_empty() || count > 2 {
                return None;
            }
            if first.request.path.contains("watch=") {
                return None;
            }
            let output = if first.table { "" } else { " -o yaml" };
            Some((
                None,
                None,
                format!("kubectl get {}{output}", kubectl_object(&t0)),
            ))
        }
        "apply"
            if m(first) == Method::Patch
                && first.request.content_type.as_deref()
                    == Some("application/apply-patch+yaml") =>
        {
            let body = scrub(first.request.body.as_ref()?);
            let name = t0.name.clone()?;
            let force = if t0.force == Some(true) {
                " --force-conflicts"
            } else {
                ""
            };
            let file = file_name(&t0, &name);
            let line = format!(
                "kubectl apply --server-side{force}{} -f {}",
                manager_flag(first, "kubectl"),
                quote(&file)
            );
            Some((None, Some((file, body)), line))
        }
        "apply" => {
            if !is_object_get(first, &t0) {
                return None;
            }
            let annotation = |v: &Value| -> Option<Value> {
                let text = v["metadata"]["annotations"][LAST_APPLIED].as_str()?;
                serde_json::from_str(text).ok()
            };
            let write = reqs
                .iter()
                .find(|r| matches!(m(r), Method::Post | Method::Patch));
            let applied = match write {
                Some(w) => annotation(w.request.body.as_ref()?),
                None => annotation(&first.response.body),
            }?;
            let name = t0.name.clone()?;
            let file = file_name(&t0, &name);
            let manager = write.map_or(String::new(), |w| {
                manager_flag(w, "kubectl-client-side-apply")
            });
            Some((
                None,
                Some((file.clone(), applied)),
                format!("kubectl apply{manager} -f {}", quote(&file)),
            ))
        }
        "replace" => {
            let reread = match count {
                1 => false,
                2 if is_object_get(first, &t0) => true,
                _ => return None,
            };
            if m(last) != Method::Put {
                return None;
            }
            let mut body = scrub(last.request.body.as_ref()?);
            if reread {
                if let Some(Value::Object(meta)) = body.get_mut("metadata") {
                    meta.remove("resourceVersion");
                }
            }
            let name = body["metadata"]["name"].as_str()?.to_string();
            let file = file_name(&t0, &name);
            let line = format!(
                "kubectl replace{} -f {}",
                manager_flag(last, "kubectl-replace"),
                quote(&file)
            );
            Some((None, Some((file, body)), line))
        }
        "create" => {
            if count != 1 || m(first) != Method::Post {
                return None;
            }
            let body = scrub(first.request.body.as_ref()?);
            let name = body["metadata"]["name"].as_str()?.to_string();
            let file = file_name(&t0, &name);
            let comment = (first.request.content_type.as_deref()
                == Some("application/vnd.kubernetes.protobuf"))
            .then(|| "# kubectl create configmap: the object it created, as a file".to_string());
            let line = format!(
                "kubectl create{} -f {}",
                manager_flag(first, "kubectl-create"),
                quote(&file)
            );
            Some((comment, Some((file, body)), line))
        }
        "delete" => {
            if m(first) != Method::Delete || count > 2 || t0.name.is_none() {
                return None;
            }
            Some((
                None,
                None,
                format!("kubectl delete {}", kubectl_object(&t0)),
            ))
        }
        _ => {
            // `patch`, and anything else that reads the object and patches it (`edit`,
            // `label`, `annotate`, …): the patch it sent.
            if !is_object_get(first, &t0) {
                return None;
            }
            let original = first.command.clone().unwrap_or_else(|| "kubectl".into());
            if count == 1 {
                let comment = (verb != "patch" && verb != "get")
                    .then(|| format!("# {original}: it read the object and sent nothing more"));
                let line = if verb == "patch" {
                    format!(
                        "kubectl patch {} --type merge -p '{{}}'",
                        kubectl_object(&t0)
                    )
                } else {
                    format!("kubectl get {} -o yaml", kubectl_object(&t0))
                };
                return Some((comment, None, line));
            }
            let t1 = target_of(last)?;
            if count != 2 || m(last) != Method::Patch || !t1.sub.is_empty() || t1.name != t0.name {
                return None;
            }
            let ty = match last.request.content_type.as_deref() {
                Some("application/merge-patch+json") => "merge",
                Some("application/json-patch+json") => "json",
                Some("application/strategic-merge-patch+json") => "strategic",
                _ => return None,
            };
            let body = last.request.body.as_ref()?;
            let default = if verb == "patch" { "kubectl-patch" } else { "" };
            let comment =
                (verb != "patch").then(|| format!("# {original}, sent as the patch it made"));
            Some((
                comment,
                None,
                format!(
                    "kubectl patch {} --type {ty} -p {}{}",
                    kubectl_object(&t0),
                    quote(&lit(body)),
                    manager_flag(last, default)
                ),
            ))
        }
    }
}

/// One kubectl invocation as a unit: its command, or else its requests as statements.
fn kubectl_unit(reqs: &[(usize, &LiveRequest)]) -> Unit {
    let mut unit = Unit::default();
    let recs: Vec<&LiveRequest> = reqs.iter().map(|(_, r)| *r).collect();
    match kubectl_command(&recs) {
        Some((comment, file, line)) => {
            unit.lines.extend(comment);
            let pre = usize::from(file.is_some());
            if let Some((name, value)) = file {
                if depth(&value) <= MAX_NESTING_DEPTH {
                    unit.statement(format!("file {} = {}", string(&name), lit(&value)));
                } else {
                    // Too deep for one literal: the file's fields one by one.
                    unit.statement(format!("file {}:", string(&name)));
                    let mut fields = Vec::new();
                    if let Value::Object(m) = &value {
                        for (k, v) in m {
                            assignments(&seg("", k), v, &mut fields);
                        }
                    }
                    unit.lines
                        .extend(fields.into_iter().map(|l| format!("    {l}")));
                }
            }
            unit.statement(line);
            for (k, (i, _)) in reqs.iter().enumerate() {
                unit.steps.push((*i, if k == 0 { 1 + pre } else { 1 }));
            }
            let last = reqs.len() - 1;
            let delete = recs[0].request.method == Method::Delete;
            let failed = recs.iter().enumerate().find(|(k, r)| {
                let wait = delete && *k == last && *k > 0;
                let apply_get = r.request.method == Method::Get
                    && r.response.code == 404
                    && *k < last
                    && recs[0].command.as_deref() == Some("kubectl apply");
                !ok(r) && !wait && !apply_get
            });
            if let Some((_, r)) = failed {
                unit.stops = Some(format!("{} ({})", r.response.code, request_text(r)));
            }
        }
        None => {
            let cmd = recs[0].command.as_deref().unwrap_or("kubectl");
            unit.lines.push(format!(
                "# {cmd}: sent as the requests it made (no kubectl command line sends them)"
            ));
            for (i, r) in reqs {
                plain(*i, r, &mut unit);
            }
        }
    }
    unit
}

/// One client of the saved scenario.
struct Client {
    name: String,
    program: String,
    lines: Vec<String>,
    statements: usize,
    /// The history index of its last request.
    last: usize,
    /// Why it stops (`409 (PUT …)`), after the unit that failed.
    stop: Option<String>,
}

/// Whether kubectl sent the request: it names its command and session in headers (the lane
/// alone is not enough: a test, or a server, may name lanes otherwise).
fn is_kubectl(r: &LiveRequest) -> bool {
    r.program == "kubectl" || r.command.is_some() || r.session.is_some()
}

/// The scenario text of a history (see [`Live::scenario`]): its units, given to clients, then
/// written as the header, the setup, the clients and the schedule.
fn save(
    recorded: &[&LiveRequest],
    objects: &[&Value],
    revision: u64,
    dropped: u64,
    shared: bool,
) -> String {
    let clients = Clients::assign(units(recorded), recorded.len());
    let mut out = header(recorded, dropped, shared, !clients.list.is_empty());
    push_setup(&mut out, objects, revision);
    clients.push_text(&mut out);
    if out.len() > MAX_SOURCE_BYTES {
        out.insert_str(
            0,
            &format!("# This text is larger than the {MAX_SOURCE_BYTES} bytes a scenario may be: cut it before running it.\n"),
        );
    }
    out
}

/// The history as units (see [`Unit`]), in the order of their first request, each with that
/// request's index and its program: each kubectl invocation (its requests grouped by program
/// and `Kubectl-Session`; a request without a session is an invocation of its own) and each
/// other request.
fn units(recorded: &[&LiveRequest]) -> Vec<(usize, String, Unit)> {
    let mut units: Vec<(usize, String, Unit)> = Vec::new();
    let mut sessions: Vec<(String, Vec<(usize, &LiveRequest)>)> = Vec::new();
    for (i, r) in recorded.iter().enumerate() {
        if is_kubectl(r) {
            if let Some(s) = &r.session {
                let key = format!("{}\u{0}{s}", r.program);
                if let Some((_, reqs)) = sessions.iter_mut().find(|(k, _)| *k == key) {
                    reqs.push((i, r));
                    continue;
                }
                sessions.push((key, vec![(i, r)]));
                continue;
            }
            sessions.push((format!("#{i}"), vec![(i, r)]));
            continue;
        }
        let mut unit = Unit::default();
        plain(i, r, &mut unit);
        units.push((i, r.program.clone(), unit));
    }
    for (_, reqs) in &sessions {
        units.push((reqs[0].0, reqs[0].1.program.clone(), kubectl_unit(reqs)));
    }
    rvlab_core::sort::sort_by_key(&mut units, |(i, _, _)| *i);
    units
}

/// The clients of the saved scenario, filled unit by unit in history order (see the module
/// docs), with what does not go into a client.
struct Clients {
    /// The clients, in the order they were opened.
    list: Vec<Client>,
    /// The client names given so far.
    taken: Vec<String>,
    /// Each request's schedule step: its client and how many steps it takes.
    steps: Vec<Option<(u32, usize)>>,
    /// Comments of programs that have no client yet, by program.
    pending: Vec<(String, Vec<String>)>,
    /// The units of programs past [`MAX_CLIENTS`], as comments.
    left_out: Vec<String>,
}

impl Clients {
    /// The units given to clients, for a history of `requests` requests.
    fn assign(units: Vec<(usize, String, Unit)>, requests: usize) -> Clients {
        let mut clients = Clients {
            list: Vec::new(),
            taken: Vec::new(),
            steps: vec![None; requests],
            pending: Vec::new(),
            left_out: Vec::new(),
        };
        for (first, program, unit) in units {
            clients.add(first, program, unit);
        }
        clients
    }

    /// One unit, whose first request is the history's `first`: comments only go with the
    /// program's other comments; statements into the program's client when it can take them,
    /// else into a new one (or among the left out, past [`MAX_CLIENTS`]).
    fn add(&mut self, first: usize, program: String, unit: Unit) {
        if unit.statements == 0 {
            self.hold_comments(program, unit.lines);
            return;
        }
        let index = match self.usable(first, &program, &unit) {
            Some(ci) => ci,
            None => {
                if self.list.len() as u32 >= MAX_CLIENTS {
                    self.left_out.push(format!("# {program}:"));
                    self.left_out
                        .extend(unit.lines.iter().map(|l| format!("#     {l}")));
                    return;
                }
                self.open(first, &program)
            }
        };
        self.fill(index, first, unit);
    }

    /// Comments only: into the program's latest client, or held for its first one.
    fn hold_comments(&mut self, program: String, lines: Vec<String>) {
        match self.list.iter_mut().rev().find(|c| c.program == program) {
            Some(c) => c.lines.extend(lines),
            None => match self.pending.iter_mut().find(|(p, _)| *p == program) {
                Some((_, l)) => l.extend(lines),
                None => self.pending.push((program, lines)),
            },
        }
    }

    /// The program's client that can take the unit: it has not stopped, its last request came
    /// before the unit's first (it does not overlap), and it stays within
    /// [`MAX_STATEMENTS_PER_CLIENT`].
    fn usable(&self, first: usize, program: &str, unit: &Unit) -> Option<usize> {
        self.list.iter().position(|c| {
            c.program == program
                && c.stop.is_none()
                && (c.last < first || c.statements == 0)
                && c.statements + unit.statements <= MAX_STATEMENTS_PER_CLIENT
        })
    }

    /// A new client for `program`, starting with the comment that says why there is one
    /// (see [`Clients::opening_lines`]); returns its index.
    fn open(&mut self, first: usize, program: &str) -> usize {
        let name = client_name(program, &self.taken);
        self.taken.push(name.clone());
        let lines = self.opening_lines(first, program, &name);
        self.list.push(Client {
            name,
            program: program.to_string(),
            lines,
            statements: 0,
            last: first,
            stop: None,
        });
        self.list.len() - 1
    }

    /// The first lines of a new client named `name`: a program's first client names the
    /// program (when its name differs) and takes the comments held for it; a later one says
    /// why the program goes on in another client (a failure, an overlap, the statement limit).
    fn opening_lines(&mut self, first: usize, program: &str, name: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let previous = self.list.iter().rev().find(|c| c.program == program);
        match previous {
            None => {
                if name != program {
                    lines.push(format!("# {program}"));
                }
                if let Some(k) = self.pending.iter().position(|(p, _)| *p == program) {
                    lines.extend(self.pending.remove(k).1);
                }
            }
            Some(Client { stop: Some(why), .. }) => lines.push(format!(
                "# {program}, after its {why}: a scripted client stops at an error, {program} went on"
            )),
            Some(p) if p.last >= first => lines.push(format!(
                "# {program}, a command that ran while another one of {program} was still running"
            )),
            Some(_) => lines.push(format!(
                "# {program}, continued (a client has at most {MAX_STATEMENTS_PER_CLIENT} statements)"
            )),
        }
        lines
    }

    /// The unit into client `index`: its lines and statements, where it stops, and its
    /// requests' schedule steps.
    fn fill(&mut self, index: usize, first: usize, unit: Unit) {
        let last = unit.steps.iter().map(|(i, _)| *i).max().unwrap_or(first);
        let c = &mut self.list[index];
        c.lines.extend(unit.lines);
        c.statements += unit.statements;
        c.last = c.last.max(last);
        if let Some(why) = unit.stops {
            c.lines
                .push(format!("# a scripted client stops here: {why}"));
            c.stop = Some(why);
        }
        for (i, n) in unit.steps {
            if let Some(s) = self.steps.get_mut(i) {
                *s = Some((index as u32, n));
            }
        }
    }

    /// The clients, the comments of programs that sent no statement, the left out units and
    /// the schedule, as text.
    fn push_text(&self, out: &mut String) {
        for c in &self.list {
            out.push_str(&format!("\nclient {}:\n", c.name));
            for l in &c.lines {
                out.push_str("    ");
                out.push_str(l);
                out.push('\n');
            }
        }
        for (program, lines) in &self.pending {
            out.push_str(&format!("\n# {program} sent no statement:\n"));
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        if !self.left_out.is_empty() {
            out.push_str(&format!(
                "\n# Not replayed: a scenario has at most {MAX_CLIENTS} clients.\n"
            ));
            for l in &self.left_out {
                out.push_str(l);
                out.push('\n');
            }
        }
        let order: Vec<u32> = self
            .steps
            .iter()
            .flatten()
            .flat_map(|(c, k)| std::iter::repeat_n(*c, *k))
            .collect();
        if !self.list.is_empty() {
            out.push_str(&format!(
                "\nschedule {}\n",
                string(&rvlab_core::schedule::format_token(&order))
            ));
        }
    }
}

/// The header: how many requests by which programs, what the history may lack (other
/// servers' writes, the requests it let go of), that the schedule is the recorded order (when
/// there are clients), and the title.
fn header(recorded: &[&LiveRequest], dropped: u64, shared: bool, has_clients: bool) -> String {
    let mut programs: Vec<&str> = Vec::new();
    for r in recorded {
        if !programs.contains(&r.program.as_str()) {
            programs.push(&r.program);
        }
    }
    let mut out = String::new();
    let n = recorded.len();
    out.push_str(&format!(
        "# Saved from rvlab serve: {n} request{} by {} client{}{}.\n",
        if n == 1 { "" } else { "s" },
        programs.len(),
        if programs.len() == 1 { "" } else { "s" },
        if programs.is_empty() {
            String::new()
        } else {
            format!(" ({})", programs.join(", "))
        }
    ));
    if shared {
        out.push_str("# Served on etcd: writes made through other servers are not in this history, so a replay can answer otherwise than they did.\n");
    }
    if dropped > 0 {
        out.push_str(&format!(
            "# The history had let go of the {dropped} request{} before these: it starts from the state after them.\n",
            if dropped == 1 { "" } else { "s" }
        ));
    }
    if has_clients {
        out.push_str("# `rvlab run` replays the requests in the recorded order (its schedule).\n");
    }
    out.push_str(&format!(
        "title {}\n",
        string(&format!(
            "Saved from rvlab serve ({n} request{})",
            if n == 1 { "" } else { "s" }
        ))
    ));
    out
}

/// The setup: the start objects in revision order, after a comment when the store's counter
/// was beyond the last object's revision (a scenario cannot advance it without an object).
fn push_setup(out: &mut String, objects: &[&Value], revision: u64) {
    let mut objs: Vec<&Value> = objects.to_vec();
    let rv = |o: &Value| {
        o["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
    };
    rvlab_core::sort::sort_by_key(&mut objs, |o| rv(o));
    let top = objs.iter().map(|o| rv(o)).max().unwrap_or(0);
    if revision > top {
        out.push_str(&format!(
            "# The store's revision was {revision}, beyond the last object's {top}: a scenario cannot\n# advance the counter without an object, so the replay's revisions are {} lower.\n",
            revision - top
        ));
    }
    if !objs.is_empty() {
        out.push('\n');
    }
    for o in objs {
        let mut lines = Vec::new();
        setup_object(o, &mut lines);
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests;
