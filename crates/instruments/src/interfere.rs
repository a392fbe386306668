//! Interference (issue #15): a named interferer that commits real, content-changing writes
//! through the store at the worst moments for the clients under test, so that code which
//! mishandles `409 Conflict` or writes without a precondition is caught. Pure and
//! deterministic: the same policy, seed and sequence of requests give the same injections.
//!
//! `rvlab serve --interfere POLICY` and `rvlab test --interfere POLICY` run it in the server,
//! under the store's lock, before the request it reacts to (docs/testing-controllers.md).

/// What the interferer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// After a client reads an object and before that client's next write to it, write the
    /// object, changing a field the client did not write (a label or annotation by default).
    ReadWrite,
    /// Before a write that carries no resourceVersion (a merge patch, an unconditional update,
    /// a client-side apply), write the same field, so that the loss is visible.
    SameField,
    /// A scenario's scripted clients are the other writers (`--interfere scenario FILE`): one
    /// scripted request before each real request, in schedule order ([`crate::scripted`];
    /// [`InterferenceSettings::scenario`] holds the file).
    Scenario,
}

/// The scenario of `--interfere scenario FILE`: its name as given and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioFile {
    /// As the command line gave it (`loop.rvl`, `lesson:stale-update`, `<stdin>`).
    pub name: String,
    pub text: String,
}

impl Policy {
    /// Reads a policy's name as the command line gives it (`read-write`, `same-field`).
    pub fn parse(name: &str) -> Result<Policy, String> {
        match name {
            "read-write" => Ok(Policy::ReadWrite),
            "same-field" => Ok(Policy::SameField),
            "scenario" => Ok(Policy::Scenario),
            _ => Err(format!(
                "unknown interference policy `{name}`: use read-write, same-field or scenario FILE"
            )),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::ReadWrite => "read-write",
            Policy::SameField => "same-field",
            Policy::Scenario => "scenario",
        }
    }
}

/// The interferer's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterferenceSettings {
    pub policy: Policy,
    /// The field the interferer changes (`--interfere-field PATH`, e.g. `metadata.labels.x`);
    /// `None`: the policy's default.
    pub field: Option<String>,
    /// At most this many injections per object (`--max-injections N`), so correct code
    /// converges. For [`Policy::Scenario`]: at most this many scripted requests in all (by
    /// default [`u32::MAX`]: until the scripted clients finish).
    pub max_injections: u32,
    /// The seed of its choices (for [`Policy::Scenario`], the scripted world's seed: the
    /// default scheduler's tie-breaks and the backoff jitter).
    pub seed: u64,
    /// [`Policy::Scenario`]'s scenario (`None` for the other policies).
    pub scenario: Option<ScenarioFile>,
}

/// The default of `--max-injections`.
pub const DEFAULT_MAX_INJECTIONS: u32 = 3;
/// The interferer's name, as the trace, managedFields (its field manager) and the report
/// show it.
pub const INTERFERER: &str = "rvlab-interferer";

use rvlab_core::rng::Rng;
use rvlab_core::store::{join_path, Actor, Method, ObjectRef, Request};
use rvlab_core::vecmap::VecMap;
use serde_json::{Map, Value};

/// The field `read-write` changes unless `--interfere-field` names another:
/// `metadata.annotations["rvlab.dev/interference"]`.
pub const DEFAULT_FIELD: &str = "metadata.annotations.rvlab.dev/interference";

/// The annotation kubectl's client-side apply keeps its last configuration in: never written by
/// the interferer (kubectl's next three-way merge would read it).
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Reads `--interfere-field PATH` into its keys. Two spellings: the scenario language's
/// (`metadata.annotations["rvlab.dev/interference"]`, `data["app.properties"]`), and plain dots,
/// where everything after `metadata.labels.`, `metadata.annotations.` or `data.` is one key
/// (`metadata.labels.rvlab.dev/x`). The field must be one the interferer may change: a label,
/// an annotation, or a field outside `metadata` other than `apiVersion` and `kind`.
pub fn parse_field(path: &str) -> Result<Vec<String>, String> {
    let bad = |why: &str| Err(format!("--interfere-field `{path}`: {why}"));
    let mut keys: Vec<String> = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            // A quoted key: `["..."]`, as JSON text.
            let Some(end) = r.find("\"]") else {
                return bad("a `[` needs a quoted key and `]`, as in data[\"app.properties\"]");
            };
            match serde_json::from_str::<String>(&r[..end + 1]) {
                Ok(k) => keys.push(k),
                Err(_) => return bad("the key in brackets must be a quoted string"),
            }
            rest = &r[end + 2..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
            continue;
        }
        let whole_key = matches!(
            keys.iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["metadata", "labels" | "annotations"] | ["data"]
        );
        if whole_key && !rest.starts_with('[') {
            keys.push(rest.to_string());
            break;
        }
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        if end == 0 {
            return bad("a key is empty");
        }
        keys.push(rest[..end].to_string());
        rest = &rest[end..];
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    if keys.is_empty() || keys.iter().any(String::is_empty) {
        return bad("a key is empty");
    }
    if keys.len() < 2 {
        return bad("name a field inside the object, such as metadata.labels.KEY or data.KEY");
    }
    let metadata_ok = keys.len() == 3 && matches!(keys[1].as_str(), "labels" | "annotations");
    match keys[0].as_str() {
        "apiVersion" | "kind" => bad("the interferer does not change an object's type"),
        "metadata" if !metadata_ok => bad(
            "of metadata, only a label or an annotation (metadata.labels.KEY, metadata.annotations.KEY)",
        ),
        _ => Ok(keys),
    }
}

/// A field's keys in the scenario language's path syntax (`metadata.annotations["rvlab.dev/x"]`),
/// as lost updates name fields.
pub fn field_path(keys: &[String]) -> String {
    keys.iter().fold(String::new(), |p, k| join_path(&p, k))
}

/// A field's keys in plain dots, as the plan line prints them
/// (`metadata.annotations.rvlab.dev/interference`).
fn dotted(keys: &[String]) -> String {
    keys.join(".")
}

impl InterferenceSettings {
    /// The settings of `policy` with the defaults: its default field, at most
    /// [`DEFAULT_MAX_INJECTIONS`] per object (for [`Policy::Scenario`]: no bound but the
    /// scenario's end), seed 0, no scenario.
    pub fn new(policy: Policy) -> InterferenceSettings {
        InterferenceSettings {
            policy,
            field: None,
            max_injections: match policy {
                Policy::Scenario => u32::MAX,
                _ => DEFAULT_MAX_INJECTIONS,
            },
            seed: 0,
            scenario: None,
        }
    }

    /// The settings of `--interfere scenario FILE` with the defaults (no bound, seed 0).
    pub fn scenario(file: ScenarioFile) -> InterferenceSettings {
        InterferenceSettings {
            scenario: Some(file),
            ..InterferenceSettings::new(Policy::Scenario)
        }
    }

    /// The keys of the field `read-write` changes.
    pub fn field_keys(&self) -> Result<Vec<String>, String> {
        parse_field(self.field.as_deref().unwrap_or(DEFAULT_FIELD))
    }

    /// The plan of a policy of writes (every policy but [`Policy::Scenario`], whose plan is
    /// [`crate::scripted::plan`]; [`crate::interference_plan`] picks), one line, as `rvlab
    /// serve` prints it on standard error at start:
    /// `interference: read-write, at most 3 per object, field metadata.annotations.rvlab.dev/interference, seed 0`.
    pub fn writes_plan(&self) -> String {
        let what = match self.policy {
            Policy::ReadWrite => format!(
                "field {}",
                self.field_keys()
                    .map(|k| dotted(&k))
                    .unwrap_or_else(|e| format!("(invalid: {e})"))
            ),
            Policy::SameField | Policy::Scenario => {
                "the fields each write without resourceVersion sets".to_string()
            }
        };
        let when = if self.seed == 0 {
            "every chance".to_string()
        } else {
            "chances taken by a coin".to_string()
        };
        format!(
            "interference: {}, at most {} per object, {what}, seed {} ({when})",
            self.policy.name(),
            self.max_injections,
            self.seed
        )
    }
}

/// One request as the interferer sees it, before the store handles it.
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    /// The client's name (docs/serve.md, "Clients are named").
    pub client: &'a str,
    pub method: Method,
    /// The body's media type as the store gets it (the patch type for a PATCH).
    pub content_type: Option<&'a str>,
    /// The decoded body (the object of a PUT, the patch of a PATCH).
    pub body: Option<&'a Value>,
    /// The object the request addresses (`None`: a collection, or nothing the store serves).
    pub object: Option<&'a ObjectRef>,
    /// The request addresses the object's `status` subresource.
    pub status: bool,
    /// The object as stored now (`None`: it does not exist).
    pub current: Option<&'a Value>,
    /// The revision of the object the client last observed (0: nothing).
    pub observed: u64,
}

/// The interferer's write, to commit before the request it reacts to.
#[derive(Debug, Clone, PartialEq)]
pub struct Injection {
    /// A JSON merge patch of the object by [`INTERFERER`], with the current resourceVersion as
    /// its precondition.
    pub request: Request,
    /// [`INTERFERER`], having observed the current revision (its write loses nothing).
    pub actor: Actor,
    pub policy: Policy,
    /// The client whose request it reacts to.
    pub client: String,
    /// The object, as `configmap/my-config`.
    pub object: String,
    /// The fields it changes, in the scenario language's path syntax.
    pub fields: Vec<String>,
    /// 1 for the interferer's first injection of the run, then 2, …
    pub number: u32,
    /// The how-manieth injection on this object (1 ..= max_injections).
    pub on_object: u32,
    /// Why, in a sentence.
    pub why: String,
}

impl Injection {
    /// The trace step's `interference` field (docs/json-trace.md).
    pub fn to_json(&self) -> Value {
        rvlab_core::json::object(vec![
            ("policy", Value::from(self.policy.name())),
            ("client", Value::from(self.client.as_str())),
            ("object", Value::from(self.object.as_str())),
            (
                "fields",
                Value::Array(
                    self.fields
                        .iter()
                        .map(|f| Value::from(f.as_str()))
                        .collect(),
                ),
            ),
            ("number", Value::from(self.number)),
            ("on_object", Value::from(self.on_object)),
            ("why", Value::from(self.why.as_str())),
        ])
    }
}

/// The interferer: fed every request before the store handles it ([`Interferer::before`]), it
/// decides whether to write first. Pure: its choices depend only on its settings and the
/// requests it is fed.
#[derive(Debug, Clone)]
pub struct Interferer {
    settings: InterferenceSettings,
    field: Vec<String>,
    rng: Rng,
    /// Injections so far, per object.
    counts: VecMap<ObjectRef, u32>,
    number: u32,
}

impl Interferer {
    /// An interferer; `Err` when the settings' field is not one it can write, or for
    /// [`Policy::Scenario`] (whose writers are a scenario's clients: [`crate::scripted`]).
    pub fn new(settings: InterferenceSettings) -> Result<Interferer, String> {
        if settings.policy == Policy::Scenario {
            return Err(
                "the scenario policy's writers are the scenario's clients (rvlab_core::scripted)"
                    .into(),
            );
        }
        let field = settings.field_keys()?;
        Ok(Interferer {
            rng: Rng::new(settings.seed),
            settings,
            field,
            counts: VecMap::new(),
            number: 0,
        })
    }

    /// Its settings.
    pub fn settings(&self) -> &InterferenceSettings {
        &self.settings
    }

    /// How many injections it has made, in all.
    pub fn injections(&self) -> u32 {
        self.number
    }

    /// The write to commit before `seen`, if the policy calls for one now.
    pub fn before(&mut self, seen: &Seen<'_>) -> Option<Injection> {
        if seen.client == INTERFERER
            || !matches!(seen.method, Method::Put | Method::Patch | Method::Delete)
        {
            return None;
        }
        let object = seen.object?;
        let current = seen.current?;
        let current_rv = resource_version(current)?;
        let done = self.counts.get(object).copied().unwrap_or(0);
        if done >= self.settings.max_injections {
            return None;
        }
        let (fields, why) = match self.settings.policy {
            Policy::ReadWrite => {
                // The client read this object, nobody wrote it since: make its read stale.
                if seen.observed == 0 || seen.observed != current_rv {
                    return None;
                }
                let path = field_path(&self.field);
                if writes_field(seen, &self.field) {
                    return None;
                }
                let value = Value::from((self.number + 1).to_string());
                let why = format!(
                    "{} read {object} at {} and is about to write it ({}): {INTERFERER} changes {path} to {value}, a field it does not write, so its write is based on a stale read (a correct client gets 409 Conflict, re-reads and keeps {path})",
                    seen.client,
                    seen.observed,
                    seen.method.as_str(),
                );
                (vec![(self.field.clone(), value)], why)
            }
            Policy::SameField => {
                if seen.status || carries_resource_version(seen) {
                    return None;
                }
                let set = fields_set(seen, current);
                if set.is_empty() {
                    return None;
                }
                let n = self.number + 1;
                let fields: Vec<(Vec<String>, Value)> = set
                    .into_iter()
                    .filter_map(|(keys, v)| {
                        let o = match v {
                            // A list a merge patch replaces whole: the current list with an
                            // entry of the interferer's, which the patch then drops.
                            Value::Array(_) => with_entry(lookup(current, &keys), n),
                            v => other_value(&v, n),
                        };
                        o.map(|o| (keys, o))
                    })
                    .collect();
                if fields.is_empty() {
                    return None;
                }
                let names: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{} to {v}", field_path(k)))
                    .collect();
                let kind = match (seen.method, seen.content_type) {
                    (Method::Put, _) => "an update (PUT)".to_string(),
                    (_, Some(ct)) => format!("a patch ({ct})"),
                    _ => "a patch".to_string(),
                };
                let why = format!(
                    "{} is about to write {object} with {kind} that carries no resourceVersion: {INTERFERER} first sets {}, the field(s) that write sets, so the write overwrites a change {} never read (a lost update)",
                    seen.client,
                    names.join(", "),
                    seen.client,
                );
                (fields, why)
            }
            Policy::Scenario => return None,
        };
        if self.settings.seed != 0 && self.rng.below(2) == 1 {
            return None;
        }
        self.number += 1;
        self.counts.insert(object.clone(), done + 1);
        let mut patch = Value::Object(Map::new());
        for (keys, v) in &fields {
            put(&mut patch, keys, v.clone());
        }
        put(
            &mut patch,
            &["metadata".to_string(), "resourceVersion".to_string()],
            Value::from(current_rv.to_string()),
        );
        Some(Injection {
            request: Request {
                method: Method::Patch,
                path: format!("{}?fieldManager={INTERFERER}", object.path()),
                content_type: Some("application/merge-patch+json".into()),
                body: Some(patch),
            },
            actor: Actor {
                name: INTERFERER.into(),
                base_revision: current_rv,
            },
            policy: self.settings.policy,
            client: seen.client.into(),
            object: object.to_string(),
            fields: fields.iter().map(|(k, _)| field_path(k)).collect(),
            number: self.number,
            on_object: done + 1,
            why,
        })
    }
}

fn resource_version(obj: &Value) -> Option<u64> {
    obj.get("metadata")?
        .get("resourceVersion")?
        .as_str()?
        .parse()
        .ok()
}

/// Sets `keys` in `v` to `value`, making the objects on the way.
fn put(v: &mut Value, keys: &[String], value: Value) {
    let Some((last, init)) = keys.split_last() else {
        return;
    };
    let mut at = v;
    for k in init {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Value::Object(m) = at else { return };
        at = m
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !at.is_object() {
        *at = Value::Object(Map::new());
    }
    if let Value::Object(m) = at {
        m.insert(last.clone(), value);
    }
}

fn lookup<'v>(v: &'v Value, keys: &[String]) -> Option<&'v Value> {
    keys.iter().try_fold(v, |at, k| at.get(k.as_str()))
}

/// The patch or update names `metadata.resourceVersion` (a precondition).
fn carries_resource_version(seen: &Seen<'_>) -> bool {
    let Some(body) = seen.body else { return false };
    if seen.content_type == Some("application/json-patch+json") {
        // A `test` operation is a precondition of its own.
        return body.as_array().is_some_and(|ops| {
            ops.iter().any(|op| {
                op.get("op").and_then(Value::as_str) == Some("test")
                    || op.get("path").and_then(Value::as_str) == Some("/metadata/resourceVersion")
            })
        });
    }
    body.get("metadata")
        .and_then(|m| m.get("resourceVersion"))
        .is_some_and(|rv| !rv.is_null() && rv.as_str() != Some(""))
}

/// Whether the request's patch writes the field (then `read-write` picks no field it writes).
fn writes_field(seen: &Seen<'_>, field: &[String]) -> bool {
    seen.method == Method::Patch
        && patch_leaves(seen)
            .iter()
            .any(|(k, _)| k.as_slice() == field)
}

/// Whether the interferer may write a field at these keys (outside `metadata`, only labels and
/// annotations; never the last applied configuration, `apiVersion`, `kind` or `status`).
fn writable(keys: &[String]) -> bool {
    match keys.first().map(String::as_str) {
        None | Some("apiVersion" | "kind" | "status") => false,
        Some("metadata") => {
            keys.len() == 3
                && matches!(keys[1].as_str(), "labels" | "annotations")
                && keys[2] != LAST_APPLIED
        }
        Some(_) => !keys.iter().any(|k| k.starts_with('$')),
    }
}

/// The scalar leaves (strings, numbers, booleans) of a value, by keys, in the value's order;
/// lists and nulls are not leaves the interferer writes.
fn scalar_leaves(v: &Value, keys: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                keys.push(k.clone());
                scalar_leaves(c, keys, out);
                keys.pop();
            }
        }
        Value::String(_) | Value::Number(_) | Value::Bool(_) => {
            if writable(keys) {
                out.push((keys.clone(), v.clone()));
            }
        }
        Value::Null | Value::Array(_) => {}
    }
}

/// The lists of strings a JSON merge patch sets (it replaces a list whole, RFC 7386), a
/// finalizer-like `metadata.finalizers` too.
fn string_lists(v: &Value, keys: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                keys.push(k.clone());
                string_lists(c, keys, out);
                keys.pop();
            }
        }
        Value::Array(items) if items.iter().all(Value::is_string) => {
            let finalizers = keys.len() == 2 && keys[0] == "metadata" && keys[1] == "finalizers";
            if finalizers || (keys.first().is_some_and(|k| k != "metadata") && writable(keys)) {
                out.push((keys.clone(), v.clone()));
            }
        }
        _ => {}
    }
}

/// The list `current` (or none) with the interferer's entry `rvlab-interferer/N` appended.
fn with_entry(current: Option<&Value>, n: u32) -> Option<Value> {
    let mut items = match current {
        Some(Value::Array(a)) => a.clone(),
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return None,
    };
    items.push(Value::String(format!("{INTERFERER}/{n}")));
    Some(Value::Array(items))
}

/// The fields a patch sets: its scalar leaves, and for a JSON merge patch its lists of strings.
fn patch_leaves(seen: &Seen<'_>) -> Vec<(Vec<String>, Value)> {
    let mut out = Vec::new();
    let Some(body) = seen.body else { return out };
    match seen.content_type {
        Some("application/merge-patch+json") => {
            scalar_leaves(body, &mut Vec::new(), &mut out);
            string_lists(body, &mut Vec::new(), &mut out);
        }
        Some("application/strategic-merge-patch+json") => {
            scalar_leaves(body, &mut Vec::new(), &mut out);
        }
        Some("application/json-patch+json") => {
            for op in body.as_array().into_iter().flatten() {
                let kind = op.get("op").and_then(Value::as_str);
                let (Some("add" | "replace"), Some(path), Some(value)) = (
                    kind,
                    op.get("path").and_then(Value::as_str),
                    op.get("value"),
                ) else {
                    continue;
                };
                let keys: Vec<String> = path
                    .split('/')
                    .skip(1)
                    .map(|k| k.replace("~1", "/").replace("~0", "~"))
                    .collect();
                let mut prefix = keys;
                scalar_leaves(value, &mut prefix, &mut out);
            }
        }
        _ => {}
    }
    out
}

/// The fields a write without resourceVersion sets: a patch's scalar leaves; an update's
/// scalar leaves that differ from the stored object (the client's changes).
fn fields_set(seen: &Seen<'_>, current: &Value) -> Vec<(Vec<String>, Value)> {
    match seen.method {
        Method::Patch => patch_leaves(seen),
        Method::Put => {
            let mut out = Vec::new();
            if let Some(body) = seen.body {
                scalar_leaves(body, &mut Vec::new(), &mut out);
            }
            out.retain(|(keys, v)| lookup(current, keys) != Some(v));
            out
        }
        _ => Vec::new(),
    }
}

/// A value of the same type that differs from `v`: `"rvlab-interferer-N"` for a string, one more
/// for an integer, the other boolean.
fn other_value(v: &Value, n: u32) -> Option<Value> {
    match v {
        Value::String(s) => {
            let mut o = format!("{INTERFERER}-{n}");
            if *s == o {
                o.push_str("-b");
            }
            Some(Value::String(o))
        }
        Value::Bool(b) => Some(Value::Bool(!b)),
        Value::Number(x) => {
            if let Some(i) = x.as_i64() {
                Some(Value::from(i.checked_add(1).unwrap_or(i - 1)))
            } else {
                x.as_u64().map(|u| Value::from(u - 1))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvlab_core::store::Resource;
    use serde_json::json;

    fn cm(name: &str) -> ObjectRef {
        ObjectRef {
            resource: Resource::ConfigMap,
            namespace: "default".into(),
            name: name.into(),
        }
    }

    fn stored(rv: u64) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "namespace": "default", "resourceVersion": rv.to_string()},
            "data": {"x": "1", "y": "2"}})
    }

    fn seen<'a>(
        client: &'a str,
        method: Method,
        ct: Option<&'a str>,
        body: Option<&'a Value>,
        object: &'a ObjectRef,
        current: &'a Value,
        observed: u64,
    ) -> Seen<'a> {
        Seen {
            client,
            method,
            content_type: ct,
            body,
            object: Some(object),
            status: false,
            current: Some(current),
            observed,
        }
    }

    fn interferer(policy: Policy) -> Interferer {
        Interferer::new(InterferenceSettings::new(policy)).unwrap()
    }

    #[test]
    fn read_write_changes_the_annotation_before_a_write_over_a_fresh_read() {
        let mut i = interferer(Policy::ReadWrite);
        let x = cm("x");
        let cur = stored(101);
        let body = stored(101);
        let s = seen(
            "bob",
            Method::Put,
            Some("application/json"),
            Some(&body),
            &x,
            &cur,
            101,
        );
        let inj = i.before(&s).expect("an injection");
        assert_eq!(
            inj.request.path,
            "/api/v1/namespaces/default/configmaps/x?fieldManager=rvlab-interferer"
        );
        assert_eq!(
            inj.request.content_type.as_deref(),
            Some("application/merge-patch+json")
        );
        assert_eq!(
            inj.request.body,
            Some(
                json!({"metadata": {"annotations": {"rvlab.dev/interference": "1"}, "resourceVersion": "101"}})
            )
        );
        assert_eq!(inj.actor.name, INTERFERER);
        assert_eq!(inj.actor.base_revision, 101);
        assert_eq!(
            inj.fields,
            vec![r#"metadata.annotations["rvlab.dev/interference"]"#]
        );
        assert_eq!((inj.number, inj.on_object), (1, 1));
        assert!(
            inj.why.starts_with("bob read configmap/x at 101 and is about to write it (PUT): rvlab-interferer changes metadata.annotations[\"rvlab.dev/interference\"] to \"1\""),
            "{}",
            inj.why
        );
        assert_eq!(inj.to_json()["policy"], "read-write");
    }

    #[test]
    fn read_write_needs_a_read_that_is_still_current() {
        let mut i = interferer(Policy::ReadWrite);
        let x = cm("x");
        let cur = stored(102);
        let body = stored(101);
        // Never read it.
        let s = seen("bob", Method::Put, None, Some(&body), &x, &cur, 0);
        assert_eq!(i.before(&s), None);
        // Read an older revision: already stale (a retry reusing the stale body).
        let s = seen("bob", Method::Put, None, Some(&body), &x, &cur, 101);
        assert_eq!(i.before(&s), None);
        // Reads and creates are never interfered with.
        let s = seen("bob", Method::Get, None, None, &x, &cur, 102);
        assert_eq!(i.before(&s), None);
        let s = seen("bob", Method::Post, None, Some(&body), &x, &cur, 102);
        assert_eq!(i.before(&s), None);
        // Nor is a write to an object that does not exist.
        let s = Seen {
            current: None,
            ..seen("bob", Method::Put, None, Some(&body), &x, &cur, 102)
        };
        assert_eq!(i.before(&s), None);
        // Nor the interferer's own writes.
        let s = seen(INTERFERER, Method::Put, None, Some(&body), &x, &cur, 102);
        assert_eq!(i.before(&s), None);
        // A patch of the field itself: the interferer picks a field the client does not write.
        let p = json!({"metadata": {"annotations": {"rvlab.dev/interference": "mine"}}});
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/merge-patch+json"),
            Some(&p),
            &x,
            &cur,
            102,
        );
        assert_eq!(i.before(&s), None);
        assert_eq!(i.injections(), 0);
        let s = seen("bob", Method::Delete, None, None, &x, &cur, 102);
        assert!(i.before(&s).is_some());
    }

    #[test]
    fn at_most_max_injections_per_object() {
        let mut i = Interferer::new(InterferenceSettings {
            max_injections: 2,
            ..InterferenceSettings::new(Policy::ReadWrite)
        })
        .unwrap();
        let (x, y) = (cm("x"), cm("y"));
        for rv in [101, 102, 103, 104] {
            let cur = stored(rv);
            let got = i.before(&seen("bob", Method::Put, None, Some(&cur), &x, &cur, rv));
            assert_eq!(got.is_some(), rv <= 102, "at {rv}");
        }
        // Another object has its own bound; the number counts every injection.
        let cur = stored(200);
        let inj = i
            .before(&seen("bob", Method::Put, None, Some(&cur), &y, &cur, 200))
            .unwrap();
        assert_eq!((inj.number, inj.on_object), (3, 1));
        assert_eq!(
            inj.request.body.unwrap()["metadata"]["annotations"]["rvlab.dev/interference"],
            "3"
        );
    }

    #[test]
    fn same_field_writes_the_fields_of_a_write_without_resource_version() {
        let mut i = interferer(Policy::SameField);
        let x = cm("x");
        let cur = stored(101);
        let p = json!({"data": {"x": "mine"}});
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/merge-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        let inj = i.before(&s).expect("an injection");
        assert_eq!(
            inj.request.body,
            Some(
                json!({"data": {"x": "rvlab-interferer-1"}, "metadata": {"resourceVersion": "101"}})
            )
        );
        assert_eq!(inj.fields, vec!["data.x"]);
        assert!(
            inj.why.contains("carries no resourceVersion"),
            "{}",
            inj.why
        );
        // With a resourceVersion it is a precondition: nothing.
        let p = json!({"metadata": {"resourceVersion": "101"}, "data": {"x": "mine"}});
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/merge-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        assert_eq!(i.before(&s), None);
        // An unconditional update: the fields it changes.
        let mut put = stored(101);
        put["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("resourceVersion");
        put["data"]["y"] = json!("changed");
        put["metadata"]["labels"] = json!({"app": "web"});
        let s = seen(
            "bob",
            Method::Put,
            Some("application/json"),
            Some(&put),
            &x,
            &cur,
            0,
        );
        let inj = i.before(&s).unwrap();
        assert_eq!(inj.fields, vec!["metadata.labels.app", "data.y"]);
        assert_eq!(
            inj.request.body.as_ref().unwrap()["data"]["y"],
            "rvlab-interferer-2"
        );
        // An update that carries the resourceVersion: nothing.
        let s = seen(
            "bob",
            Method::Put,
            Some("application/json"),
            Some(&cur),
            &x,
            &cur,
            0,
        );
        assert_eq!(i.before(&s), None);
        // A client-side apply's strategic merge patch: its fields, not the last applied
        // configuration, not the list, not a directive.
        let p = json!({"metadata": {"annotations": {LAST_APPLIED: "{}"}}, "data": {"x": "a"},
            "spec": {"replicas": 3, "paused": false, "ports": [{"port": 80}], "$retainKeys": ["x"]}});
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/strategic-merge-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        let inj = i.before(&s).unwrap();
        assert_eq!(inj.fields, vec!["data.x", "spec.replicas", "spec.paused"]);
        let b = inj.request.body.unwrap();
        assert_eq!(
            (b["spec"]["replicas"].clone(), b["spec"]["paused"].clone()),
            (json!(4), json!(true))
        );
        // The bound holds for same-field too (3 on configmap/x).
        let p = json!({"data": {"x": "mine"}});
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/merge-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        assert_eq!(i.before(&s), None);
        // A JSON patch's add/replace values; a `test` operation is a precondition.
        let mut i = interferer(Policy::SameField);
        let p = json!([{"op": "replace", "path": "/data/x", "value": "v"}]);
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/json-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        assert_eq!(i.before(&s).unwrap().fields, vec!["data.x"]);
        let p = json!([{"op": "test", "path": "/data/x", "value": "1"}, {"op": "replace", "path": "/data/x", "value": "v"}]);
        let s = seen(
            "bob",
            Method::Patch,
            Some("application/json-patch+json"),
            Some(&p),
            &x,
            &cur,
            0,
        );
        assert_eq!(i.before(&s), None);
        // Reads, deletes and status writes set no field.
        let s = seen("bob", Method::Get, None, None, &x, &cur, 0);
        assert_eq!(i.before(&s), None);
        let s = seen("bob", Method::Delete, None, None, &x, &cur, 0);
        assert_eq!(i.before(&s), None);
    }

    #[test]
    fn a_seed_chooses_the_chances_taken_and_replays() {
        let run = |seed: u64| -> Vec<bool> {
            let mut i = Interferer::new(InterferenceSettings {
                seed,
                max_injections: 100,
                ..InterferenceSettings::new(Policy::ReadWrite)
            })
            .unwrap();
            let x = cm("x");
            (1..=40)
                .map(|rv| {
                    let cur = stored(rv);
                    i.before(&seen("bob", Method::Put, None, Some(&cur), &x, &cur, rv))
                        .is_some()
                })
                .collect()
        };
        assert!(run(0).iter().all(|&t| t), "seed 0 takes every chance");
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().any(|&t| t) && run(7).iter().any(|&t| !t));
    }

    #[test]
    fn fields_and_the_plan() {
        let k = |p: &str| parse_field(p).unwrap();
        assert_eq!(
            k(DEFAULT_FIELD),
            ["metadata", "annotations", "rvlab.dev/interference"]
        );
        assert_eq!(
            k(r#"metadata.annotations["rvlab.dev/interference"]"#),
            k(DEFAULT_FIELD)
        );
        assert_eq!(k("metadata.labels.app"), ["metadata", "labels", "app"]);
        assert_eq!(k("data.app.properties"), ["data", "app.properties"]);
        assert_eq!(k(r#"spec["a.b"].c"#), ["spec", "a.b", "c"]);
        for bad in [
            "",
            "data",
            "metadata.name",
            "kind.x",
            "spec..x",
            "data[x]",
            "metadata.labels",
        ] {
            assert!(parse_field(bad).is_err(), "{bad}");
        }
        assert_eq!(
            InterferenceSettings::new(Policy::ReadWrite).writes_plan(),
            "interference: read-write, at most 3 per object, field metadata.annotations.rvlab.dev/interference, seed 0 (every chance)"
        );
        assert!(Interferer::new(InterferenceSettings {
            field: Some("metadata.uid".into()),
            ..InterferenceSettings::new(Policy::ReadWrite)
        })
        .is_err());
    }
}
