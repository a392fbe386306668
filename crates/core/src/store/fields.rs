//! Field ownership: `managedFields` (FieldsV1 tries) and server-side apply, after
//! structured-merge-diff (kubernetes-semantics.md §3.1).
//!
//! A *field set* is a set of paths (`.data.key`, `.spec.template.spec.containers[name="app"]`).
//! Without OpenAPI schemas the store uses a small built-in one ([`shape`]): which objects are
//! maps (`data`, `labels`, `annotations`, `matchLabels`, …: each key is a member of its own) and
//! which are structs, and which lists are list-maps keyed by a field (a Deployment's
//! `containers`, `initContainers`, `env`, `volumes` by `name`; `volumeMounts` by `mountPath`).
//! Every other list is atomic (one leaf). Custom resources are treated as fully structural
//! (objects are structs, lists atomic), like a CRD with a schema and no list-map markers.
//!
//! The rules follow structured-merge-diff:
//! - the set an **apply** owns is the applied configuration's `ToFieldSet`: leaves, map
//!   entries, list-map items, empty/null values (no `"."` for struct fields: `{"f:data":{"f:key":{}}}`);
//! - an **update** (POST, PUT, non-apply PATCH) takes what it adds or modifies (a map or a
//!   list-map item added whole is itself a member, hence `{"f:data":{".":{},"f:key":{}}}`),
//!   drops what it removes, and takes those fields away from every other manager (updates
//!   always force);
//! - an apply conflicts where another manager owns a field the apply would add or change; same
//!   value means co-ownership; `force` moves ownership; fields the applier applied before and
//!   no longer applies are removed from the object unless another manager owns them;
//! - afterwards every set is cut to the fields the object still has, and empty managers vanish.
//!
//! An explicit `null` in an applied configuration is ignored (the field is left as it is).
//!
//! **Subresources.** A write to a Deployment's `status` subresource is managed by its own
//! manager entry (`"subresource": "status"`; a manager is its name, operation, subresource and,
//! for Update, apiVersion). The strategies' reset fields are the updater's `IgnoreFilter`: the
//! main resource never owns `status`, the status subresource never owns `spec` or
//! `metadata.labels` (kubernetes `pkg/registry/apps/deployment/strategy.go`,
//! `resetFieldsByVersion`, `resetFieldsByVersionForStatus`).

use super::status;
use super::{Resource, Response};
use crate::vecmap::{VecMap, VecSet};
use serde_json::{Map, Value};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum PathElement {
    /// `f:name`.
    Field(String),
    /// `k:{"name":"app"}`: a list-map item by its key, as compact JSON.
    Key(String),
}

pub(crate) type FieldPath = Vec<PathElement>;
/// A set of paths, in sorted order (a [`VecSet`], not one more `BTreeSet` type in the page:
/// docs/size.md).
pub(crate) type FieldSet = VecSet<FieldPath>;

/// `Apply` or `Update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Operation {
    Apply,
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Manager {
    pub name: String,
    pub operation: Operation,
    pub api_version: String,
    pub time: String,
    pub set: FieldSet,
    /// `""`, or `"status"` for a manager of the status subresource.
    pub subresource: &'static str,
}

impl Manager {
    fn is(&self, name: &str, op: Operation, api_version: &str, sub: &str) -> bool {
        self.name == name
            && self.operation == op
            && self.subresource == sub
            && (op == Operation::Apply || self.api_version == api_version)
    }
    /// The manager identifier as `BuildManagerIdentifier` encodes it (conflicts sort by it).
    fn identifier(&self) -> String {
        let mut m = Map::new();
        m.insert("manager".into(), self.name.clone().into());
        m.insert("operation".into(), self.operation.as_str().into());
        if self.operation == Operation::Update {
            m.insert("apiVersion".into(), self.api_version.clone().into());
        }
        if !self.subresource.is_empty() {
            m.insert("subresource".into(), self.subresource.into());
        }
        Value::Object(m).to_string()
    }
    /// `printManager`: `"name"`, ` with subresource "status"` for a subresource's manager,
    /// plus ` using v1` for an Update manager.
    fn printed(&self) -> String {
        let mut s = status::quote(&self.name);
        if !self.subresource.is_empty() {
            s = format!("{s} with subresource {}", status::quote(self.subresource));
        }
        match self.operation {
            Operation::Apply => s,
            Operation::Update => format!("{s} using {}", self.api_version),
        }
    }
}

/// Structural kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Struct,
    Map,
    ListMap(&'static str),
    Atomic,
}

/// The built-in schema: the shape of the node at `spath` (field names; list items as `[]`).
fn shape(res: &Resource, spath: &[String], is_array: bool) -> Shape {
    let last = spath.last().map(String::as_str).unwrap_or("");
    let parent = if spath.len() >= 2 {
        spath[spath.len() - 2].as_str()
    } else {
        ""
    };
    if is_array {
        return match (res, last) {
            (
                Resource::Deployment,
                "containers" | "initContainers" | "ephemeralContainers" | "env" | "volumes",
            ) => Shape::ListMap("name"),
            (Resource::Deployment, "volumeMounts") => Shape::ListMap("mountPath"),
            _ => Shape::Atomic,
        };
    }
    if parent == "metadata" && matches!(last, "labels" | "annotations") {
        return Shape::Map;
    }
    match (res, spath.len(), last) {
        (Resource::ConfigMap, 1, "data" | "binaryData") => Shape::Map,
        (Resource::Secret, 1, "data" | "stringData") => Shape::Map,
        (Resource::Deployment, _, "matchLabels" | "nodeSelector" | "limits" | "requests") => {
            Shape::Map
        }
        _ => Shape::Struct,
    }
}

/// What the walk knows about one node.
#[derive(Debug, Clone)]
struct Node {
    /// The value, for leaves (scalars, atomic lists, empty maps).
    value: Option<Value>,
    /// A map-typed node or a list-map item: a member of a set when added or removed whole.
    whole: bool,
    /// A member of the applied configuration's field set.
    apply_member: bool,
}

/// `metadata` fields the field manager strips (`stripmeta.go`).
const STRIPPED_META: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];

fn list_key(item: &Value, key: &str) -> Option<String> {
    let v = item.as_object()?.get(key)?;
    if v.is_object() || v.is_array() || v.is_null() {
        return None;
    }
    let mut m = Map::new();
    m.insert(key.into(), v.clone());
    Some(Value::Object(m).to_string())
}

/// The keys of every item of a list-map, or `None` if one has none. A loop, not a
/// `collect::<Option<Vec<_>>>()` at each caller (docs/size.md).
fn list_keys(items: &[Value], key: &str) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(items.len());
    for i in items {
        out.push(list_key(i, key)?);
    }
    Some(out)
}

fn walk(
    res: &Resource,
    v: &Value,
    path: &mut FieldPath,
    spath: &mut Vec<String>,
    parent_is_map: bool,
    out: &mut Vec<(FieldPath, Node)>,
) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let is_map = shape(res, spath, false) == Shape::Map;
            out.push((
                path.clone(),
                Node {
                    value: None,
                    whole: is_map,
                    apply_member: parent_is_map,
                },
            ));
            for (k, c) in m {
                path.push(PathElement::Field(k.clone()));
                spath.push(k.clone());
                walk(res, c, path, spath, is_map, out);
                spath.pop();
                path.pop();
            }
        }
        Value::Array(items) => {
            let keyed = match shape(res, spath, true) {
                Shape::ListMap(key) => list_keys(items, key),
                _ => None,
            };
            match keyed {
                Some(keys) if !items.is_empty() => {
                    out.push((
                        path.clone(),
                        Node {
                            value: None,
                            whole: false,
                            apply_member: parent_is_map,
                        },
                    ));
                    for (key, item) in keys.into_iter().zip(items) {
                        path.push(PathElement::Key(key));
                        spath.push("[]".into());
                        out.push((
                            path.clone(),
                            Node {
                                value: None,
                                whole: true,
                                apply_member: true,
                            },
                        ));
                        if let Some(m) = item.as_object() {
                            for (k, c) in m {
                                path.push(PathElement::Field(k.clone()));
                                spath.push(k.clone());
                                walk(res, c, path, spath, false, out);
                                spath.pop();
                                path.pop();
                            }
                        }
                        spath.pop();
                        path.pop();
                    }
                }
                _ => leaf(v, path, out),
            }
        }
        _ => leaf(v, path, out),
    }
}

fn leaf(v: &Value, path: &FieldPath, out: &mut Vec<(FieldPath, Node)>) {
    out.push((
        path.clone(),
        Node {
            value: Some(v.clone()),
            whole: false,
            apply_member: true,
        },
    ));
}

/// Every tracked node of an object (system metadata, `kind` and `apiVersion` are not tracked).
fn nodes(res: &Resource, obj: &Value) -> Nodes {
    nodes_but(res, obj, |_| false)
}

/// [`nodes`] without those `skip` says.
fn nodes_but(res: &Resource, obj: &Value, skip: impl Fn(&[PathElement]) -> bool) -> Nodes {
    let mut out = Vec::new();
    let Some(o) = obj.as_object() else {
        return Nodes::new();
    };
    for (k, v) in o {
        match k.as_str() {
            "kind" | "apiVersion" => {}
            "metadata" => {
                if let Some(m) = v.as_object() {
                    for (mk, mv) in m {
                        if STRIPPED_META.contains(&mk.as_str()) {
                            continue;
                        }
                        let mut path = vec![
                            PathElement::Field("metadata".into()),
                            PathElement::Field(mk.clone()),
                        ];
                        let mut spath = vec!["metadata".into(), mk.clone()];
                        walk(res, mv, &mut path, &mut spath, false, &mut out);
                    }
                }
            }
            _ => {
                let mut path = vec![PathElement::Field(k.clone())];
                let mut spath = vec![k.clone()];
                walk(res, v, &mut path, &mut spath, false, &mut out);
            }
        }
    }
    out.retain(|(p, _)| !skip(p));
    // A path met twice (list items with the same key): the later node wins, as in a map.
    Nodes::from_vec(out)
}

/// Nodes by path.
type Nodes = VecMap<FieldPath, Node>;

/// The strategy's reset fields for a write to `sub` (`""`: the main resource), which no
/// manager of that write owns: a Deployment's `status` on the main resource, its `spec` and
/// `metadata.labels` on the status subresource.
fn ignored(res: &Resource, sub: &str, path: &[PathElement]) -> bool {
    let field =
        |i: usize, name: &str| matches!(path.get(i), Some(PathElement::Field(f)) if f == name);
    *res == Resource::Deployment
        && if sub == "status" {
            field(0, "spec") || (field(0, "metadata") && field(1, "labels"))
        } else {
            field(0, "status")
        }
}

/// The nodes of an object a write to `sub` can own.
fn owned_nodes(res: &Resource, sub: &str, obj: &Value) -> Nodes {
    nodes_but(res, obj, |p| ignored(res, sub, p))
}

/// The field set an applied configuration owns.
pub(crate) fn apply_set(res: &Resource, sub: &str, cfg: &Value) -> FieldSet {
    // Inserted one by one: `collect` into a set would link a second copy of the standard
    // sort (docs/size.md); the keys come in order anyway.
    let mut set = FieldSet::new();
    for (p, n) in owned_nodes(res, sub, cfg) {
        if n.apply_member {
            set.insert(p);
        }
    }
    set
}

/// `(added ∪ modified, removed)` between two versions of an object, without the fields a
/// write to `sub` cannot own.
fn compare(res: &Resource, sub: &str, old: Option<&Value>, new: &Value) -> (FieldSet, FieldSet) {
    let on = old.map(|o| owned_nodes(res, sub, o)).unwrap_or_default();
    let nn = owned_nodes(res, sub, new);
    let mut changed = FieldSet::new();
    let mut removed = FieldSet::new();
    for (p, n) in nn.iter() {
        match on.get(p) {
            None => {
                if n.value.is_some() || n.whole {
                    changed.insert(p.clone());
                }
            }
            // An empty object that gains members (or loses them all) is not itself changed:
            // structured-merge-diff compares an empty map as a leaf only when both sides are
            // empty (`typed/compare.go`, `emptyPromoteToLeaf`), so a Deployment's `status: {}`
            // filled in by a status write is not `.status` itself.
            Some(o)
                if empty_object(&o.value) != empty_object(&n.value)
                    && o.value.is_some() != n.value.is_some() => {}
            Some(o) => {
                if (n.value.is_some() || o.value.is_some()) && n.value != o.value {
                    changed.insert(p.clone());
                }
            }
        }
    }
    for (p, o) in on.iter() {
        if !nn.contains_key(p) && (o.value.is_some() || o.whole) {
            removed.insert(p.clone());
        }
    }
    (changed, removed)
}

fn empty_object(v: &Option<Value>) -> bool {
    matches!(v, Some(Value::Object(m)) if m.is_empty())
}

fn finish(res: &Resource, obj: &Value, mut managers: Vec<Manager>) -> Vec<Manager> {
    let present = nodes(res, obj);
    for m in &mut managers {
        m.set.retain(|p| present.contains_key(p));
    }
    managers.retain(|m| !m.set.is_empty());
    managers
}

/// Ownership after a non-apply write by `name` (operation Update) to `sub` (`""`: the main
/// resource, `"status"`).
pub(crate) fn after_update(
    res: &Resource,
    sub: &'static str,
    managers: &[Manager],
    old: Option<&Value>,
    new: &Value,
    name: &str,
    now: &str,
) -> Vec<Manager> {
    let api = res.api_version();
    let (changed, removed) = compare(res, sub, old, new);
    let mut out: Vec<Manager> = managers.to_vec();
    for m in &mut out {
        if !m.is(name, Operation::Update, &api, sub) {
            m.set.retain(|p| !changed.contains(p));
        }
    }
    let idx = match out
        .iter()
        .position(|m| m.is(name, Operation::Update, &api, sub))
    {
        Some(i) => i,
        None => {
            out.push(Manager {
                name: name.into(),
                operation: Operation::Update,
                api_version: api.clone(),
                time: now.into(),
                set: FieldSet::new(),
                subresource: sub,
            });
            out.len() - 1
        }
    };
    let me = &mut out[idx];
    me.set.retain(|p| !removed.contains(p));
    me.set.extend(changed);
    me.time = now.into();
    finish(res, new, out)
}

/// Merges an applied configuration onto the live object (maps deep, list-maps by key, the
/// rest replaced; `null`s ignored).
pub(crate) fn merge(res: &Resource, live: &Value, cfg: &Value) -> Value {
    let mut spath = Vec::new();
    merge_at(res, live, cfg, &mut spath)
}

fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

fn merge_at(res: &Resource, live: &Value, cfg: &Value, spath: &mut Vec<String>) -> Value {
    match (live, cfg) {
        (Value::Object(l), Value::Object(c)) => {
            let mut out = l.clone();
            for (k, cv) in c {
                if cv.is_null() {
                    continue;
                }
                spath.push(k.clone());
                let merged = match l.get(k) {
                    Some(lv) => merge_at(res, lv, cv, spath),
                    None => strip_nulls(cv),
                };
                spath.pop();
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Array(l), Value::Array(c)) => {
            if let Shape::ListMap(key) = shape(res, spath, true) {
                let lk = list_keys(l, key);
                let ck = list_keys(c, key);
                if let (Some(lk), Some(ck)) = (lk, ck) {
                    let mut out = l.clone();
                    spath.push("[]".into());
                    for (k, item) in ck.iter().zip(c) {
                        match lk.iter().position(|x| x == k) {
                            Some(i) => out[i] = merge_at(res, &l[i], item, spath),
                            None => out.push(strip_nulls(item)),
                        }
                    }
                    spath.pop();
                    return Value::Array(out);
                }
            }
            strip_nulls(cfg)
        }
        _ => strip_nulls(cfg),
    }
}

/// Removes the node at `path` from `obj` (nothing when absent).
fn remove_path(obj: &mut Value, path: &[PathElement]) {
    let Some((last, init)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for pe in init {
        let next = match (pe, cur) {
            (PathElement::Field(f), Value::Object(m)) => m.get_mut(f),
            (PathElement::Key(k), Value::Array(items)) => {
                items.iter_mut().find(|i| item_has_key(i, k))
            }
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return,
        }
    }
    match (last, cur) {
        (PathElement::Field(f), Value::Object(m)) => {
            m.shift_remove(f);
        }
        (PathElement::Key(k), Value::Array(items)) => items.retain(|i| !item_has_key(i, k)),
        _ => {}
    }
}

fn item_has_key(item: &Value, key_json: &str) -> bool {
    let Ok(Value::Object(k)) = serde_json::from_str::<Value>(key_json) else {
        return false;
    };
    k.iter()
        .all(|(f, v)| item.as_object().and_then(|o| o.get(f)) == Some(v))
}

/// A path as structured-merge-diff prints it: `.data.key`, `.spec.containers[name="app"].image`.
pub(crate) fn path_string(path: &FieldPath) -> String {
    let mut s = String::new();
    for pe in path {
        match pe {
            PathElement::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            PathElement::Key(k) => {
                let fields = match serde_json::from_str::<Value>(k) {
                    Ok(Value::Object(m)) => m
                        .iter()
                        .map(|(f, v)| format!("{f}={v}"))
                        .collect::<Vec<_>>()
                        .join(","),
                    _ => k.clone(),
                };
                s.push('[');
                s.push_str(&fields);
                s.push(']');
            }
        }
    }
    s
}

/// The result of a server-side apply onto an existing object.
pub(crate) struct Applied {
    pub object: Value,
    pub managers: Vec<Manager>,
}

/// Server-side apply of `cfg` by `name` onto `live` (without managedFields), to `sub`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply(
    res: &Resource,
    sub: &'static str,
    live: &Value,
    managers: &[Manager],
    cfg: &Value,
    name: &str,
    force: bool,
    now: &str,
) -> Result<Applied, Response> {
    let api = res.api_version();
    let new_set = apply_set(res, sub, cfg);
    let mut merged = merge(res, live, cfg);
    let is_me = |m: &Manager| m.is(name, Operation::Apply, &api, sub);
    let old_set: FieldSet = managers
        .iter()
        .find(|m| is_me(m))
        .map(|m| m.set.clone())
        .unwrap_or_default();
    // Fields the applier no longer applies: removed unless someone else owns them (or
    // something below them). Deepest first.
    let dropped: Vec<&FieldPath> = old_set.difference(&new_set).collect();
    for p in dropped.into_iter().rev() {
        let owned_by_other = managers
            .iter()
            .filter(|m| !is_me(m))
            .any(|m| m.set.iter().any(|q| q.starts_with(p)));
        if !owned_by_other {
            remove_path(&mut merged, p);
        }
    }
    let (changed, _removed) = compare(res, sub, Some(live), &merged);
    let mut conflicts: Vec<(String, String, String)> = Vec::new(); // (identifier, printed, path)
    for m in managers.iter().filter(|m| !is_me(m)) {
        for p in m.set.intersection(&changed) {
            conflicts.push((m.identifier(), m.printed(), path_string(p)));
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(conflicts));
    }
    let mut out: Vec<Manager> = managers.to_vec();
    for m in &mut out {
        if !is_me(m) {
            m.set.retain(|p| !changed.contains(p));
        }
    }
    match out.iter_mut().find(|m| is_me(m)) {
        Some(me) => {
            me.set = new_set;
            me.time = now.into();
        }
        None => out.push(Manager {
            name: name.into(),
            operation: Operation::Apply,
            api_version: api,
            time: now.into(),
            set: new_set,
            subresource: sub,
        }),
    }
    let managers = finish(res, &merged, out);
    Ok(Applied {
        object: merged,
        managers,
    })
}

/// The managers of an object created by an apply.
pub(crate) fn created_by_apply(
    res: &Resource,
    obj: &Value,
    cfg: &Value,
    name: &str,
    now: &str,
) -> Vec<Manager> {
    let m = Manager {
        name: name.into(),
        operation: Operation::Apply,
        api_version: res.api_version(),
        time: now.into(),
        set: apply_set(res, "", cfg),
        subresource: "",
    };
    finish(res, obj, vec![m])
}

fn conflict_error(mut conflicts: Vec<(String, String, String)>) -> Response {
    // Managers sorted by identifier; paths in set order within a manager (stable sort).
    crate::sort::sort_by(&mut conflicts, |a, b| a.0.cmp(&b.0));
    let causes = conflicts
        .iter()
        .map(|(_, printed, path)| {
            (
                "FieldManagerConflict".to_string(),
                format!("conflict with {printed}"),
                path.clone(),
            )
        })
        .collect();
    let msg = if let [(_, printed, path)] = conflicts.as_slice() {
        format!("Apply failed with 1 conflict: conflict with {printed}: {path}")
    } else {
        let mut lines = Vec::new();
        let mut last: Option<&str> = None;
        for (id, printed, path) in &conflicts {
            if last != Some(id.as_str()) {
                lines.push(format!("conflicts with {printed}:"));
                last = Some(id);
            }
            lines.push(format!("- {path}"));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    status::apply_conflict(causes, &msg)
}

/// A field set as a FieldsV1 trie.
pub(crate) fn fields_v1(set: &FieldSet) -> Value {
    #[derive(Default)]
    struct Trie {
        member: bool,
        children: VecMap<PathElement, Trie>,
    }
    fn render(t: &Trie) -> Value {
        let mut m = Map::new();
        if t.member && !t.children.is_empty() {
            m.insert(".".into(), Value::Object(Map::new()));
        }
        for (pe, c) in t.children.iter() {
            let k = match pe {
                PathElement::Field(f) => format!("f:{f}"),
                PathElement::Key(k) => format!("k:{k}"),
            };
            m.insert(k, render(c));
        }
        Value::Object(m)
    }
    let mut root = Trie::default();
    for p in set.iter() {
        let mut t = &mut root;
        for pe in p {
            t = t.children.get_or_insert_with(pe, Trie::default);
        }
        t.member = true;
    }
    render(&root)
}

/// `metadata.managedFields`, sorted as the field manager sorts it (operation, time, manager,
/// apiVersion, subresource).
pub(crate) fn render(managers: &[Manager]) -> Value {
    let mut ms: Vec<&Manager> = managers.iter().collect();
    crate::sort::sort_by(&mut ms, |a, b| {
        (
            a.operation.as_str(),
            &a.time,
            &a.name,
            &a.api_version,
            a.subresource,
        )
            .cmp(&(
                b.operation.as_str(),
                &b.time,
                &b.name,
                &b.api_version,
                b.subresource,
            ))
    });
    Value::Array(
        ms.into_iter()
            .map(|m| {
                let mut e = Map::new();
                e.insert("manager".into(), m.name.clone().into());
                e.insert("operation".into(), m.operation.as_str().into());
                e.insert("apiVersion".into(), m.api_version.clone().into());
                e.insert("time".into(), m.time.clone().into());
                e.insert("fieldsType".into(), "FieldsV1".into());
                e.insert("fieldsV1".into(), fields_v1(&m.set));
                if !m.subresource.is_empty() {
                    e.insert("subresource".into(), m.subresource.into());
                }
                Value::Object(e)
            })
            .collect(),
    )
}

/// Two manager lists equal but for their `time`s (`IgnoreManagedFieldsTimestampsTransformer`).
pub(crate) fn same_ignoring_time(a: &[Manager], b: &[Manager]) -> bool {
    a.len() == b.len()
        && a.iter().all(|m| {
            b.iter().any(|n| {
                n.name == m.name
                    && n.operation == m.operation
                    && n.api_version == m.api_version
                    && n.subresource == m.subresource
                    && n.set == m.set
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy() -> Value {
        json!({"metadata": {"name": "web", "labels": {"app": "web"}},
               "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "app", "image": "a:1"}]}}}})
    }

    #[test]
    fn nodes_are_sorted_and_a_repeated_path_keeps_the_later_node() {
        let d = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "a:1"}, {"name": "app", "image": "a:2"}]}}}});
        let ns = nodes(&Resource::Deployment, &d);
        assert!(
            ns.as_slice().windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no repeats"
        );
        let image: FieldPath = ["spec", "template", "spec", "containers"]
            .iter()
            .map(|f| PathElement::Field(f.to_string()))
            .chain([
                PathElement::Key(list_key(&json!({"name": "app"}), "name").unwrap()),
                PathElement::Field("image".into()),
            ])
            .collect();
        assert_eq!(ns.get(&image).unwrap().value, Some(json!("a:2")));
    }

    #[test]
    fn update_on_create_marks_maps_and_items_with_dot() {
        let ms = after_update(
            &Resource::Deployment,
            "",
            &[],
            None,
            &deploy(),
            "kubectl-create",
            "t",
        );
        assert_eq!(
            fields_v1(&ms[0].set).to_string(),
            r#"{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}"#
        );
        let cm = json!({"data": {"key": "v"}});
        let ms = after_update(&Resource::ConfigMap, "", &[], None, &cm, "m", "t");
        assert_eq!(
            fields_v1(&ms[0].set).to_string(),
            r#"{"f:data":{".":{},"f:key":{}}}"#
        );
        assert_eq!(
            fields_v1(&apply_set(&Resource::ConfigMap, "", &cm)).to_string(),
            r#"{"f:data":{"f:key":{}}}"#
        );
    }

    #[test]
    fn list_map_merge_and_paths() {
        let live = deploy();
        let cfg = json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "a:2"}, {"name": "side", "image": "s"}]}}}});
        let merged = merge(&Resource::Deployment, &live, &cfg);
        let cs = &merged["spec"]["template"]["spec"]["containers"];
        assert_eq!(cs[0]["image"], "a:2");
        assert_eq!(cs[1]["name"], "side");
        let p = vec![
            PathElement::Field("spec".into()),
            PathElement::Key(r#"{"name":"app"}"#.into()),
            PathElement::Field("image".into()),
        ];
        assert_eq!(path_string(&p), r#".spec[name="app"].image"#);
        let mut m = merged.clone();
        remove_path(
            &mut m,
            &[
                PathElement::Field("spec".into()),
                PathElement::Field("template".into()),
                PathElement::Field("spec".into()),
                PathElement::Field("containers".into()),
                PathElement::Key(r#"{"name":"side"}"#.into()),
            ],
        );
        assert_eq!(
            m["spec"]["template"]["spec"]["containers"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
    }
}
