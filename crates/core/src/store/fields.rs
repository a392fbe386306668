//! Field ownership: `managedFields` (FieldsV1 tries) and server-side apply, after
//! structured-merge-diff v4.4.2 (`typed/`, `merge/update.go`) and the apiserver's field manager
//! (sigs.k8s.io/structured-merge-diff v4), driven by the schema facts of [`super::schema`].
//!
//! A *field set* is a set of paths (`.data.key`, `.spec.template.spec.containers[name="app"]`,
//! `.metadata.finalizers[="a"]`). What a node is comes from the schema ([`At`]) and the value:
//! - an object is a *struct* (its fields are named: no member of their own unless empty or
//!   null), a *map* (`{T}`: each key a member) or, atomic (`+structType=atomic`,
//!   `+mapType=atomic`), one leaf;
//! - a list is *atomic* (one leaf), a *set* (`+listType=set`: one member per value, `v:"a"`) or
//!   a *map* (`+listType=map`, `+listMapKey`s: one member per item by its keys, `k:{…}`, key
//!   fields in name order, a missing key field taking the schema's `default`). A list without
//!   `+listType` whose `patchStrategy` contains `merge` is a map by its `patchMergeKey`, or a
//!   set without one (kube-openapi `schemaconv` `getListElementRelationship`); else atomic.
//!   A list whose items have no key (or duplicate keys on apply) is treated as atomic here
//!   (structured-merge-diff answers an error there);
//! - everything else is a leaf. Custom resources have the schema a CRD of
//!   `x-kubernetes-preserve-unknown-fields` gives ([`At::custom_root`]): objects are maps,
//!   lists atomic, `metadata` ObjectMeta.
//!
//! The operations are `merge.Updater`'s: **update** compares the old and new object and takes
//! what was added or modified from everyone (it forces), dropping what was removed; **apply**
//! merges the configuration onto the live object (`typed.Merge`), owns the configuration's
//! `ToFieldSet`, prunes what it applied last time and no longer applies unless someone else owns
//! it, then conflicts where another manager owns something the apply added or modified
//! (`force` takes it). A create's old object is the kind's empty typed object (a Deployment's
//! `spec.template.spec.containers: null`, …), as the apiserver's `scope.Creater.New`.
//! `metadata` system fields, `kind`, `apiVersion` and a Deployment's or Namespace's `status`
//! (their strategies' reset fields) are not tracked.
//! An explicit `null` in an applied configuration is applied as structured-merge-diff does
//! (`ruleKeepRHS`: the merged field is `null`, and owned); defaulting (module `defaults`: a
//! Deployment's `spec.replicas: null` is 1 again) and the store's canonical form then decide
//! what a `null` becomes (`""` for a ConfigMap's data value, dropped at the top of a
//! Deployment's spec). Not modelled: the apiserver's decoding of `null` into a typed object
//! for other fields (a `null` label value stays `null` here, `""` there).
//!
//! **Subresources.** A write to a Deployment's `status` subresource is managed by its own
//! manager entry (`"subresource": "status"`; a manager is its name, operation, subresource and,
//! for Update, apiVersion). The strategies' reset fields are the updater's `IgnoreFilter`: the
//! main resource never owns `status`, the status subresource never owns `spec` or
//! `metadata.labels` (kubernetes `pkg/registry/apps/deployment/strategy.go`,
//! `resetFieldsByVersion`, `resetFieldsByVersionForStatus`).

use super::schema::{self, At, Kind, ListType};
use super::status;
use super::{Resource, Response};
use crate::vecmap::{VecMap, VecSet};
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// One step of a field path.
#[derive(Debug, Clone)]
pub(crate) enum PathElement {
    /// `f:name`.
    Field(String),
    /// `k:{"name":"app"}`: a list-map item by its key fields, sorted by name.
    Key(Vec<(String, Value)>),
    /// `v:"a"`: a set's value.
    Value(Value),
}

/// `value.Compare`: numbers, strings, bools, lists, maps, null (numbers equal as floats break
/// the tie by their text, so that the order agrees with `==`).
fn cmp_val(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Bool(_) => 2,
            Value::Array(_) => 3,
            Value::Object(_) => 4,
            Value::Null => 5,
        }
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let o = match (x.as_i64(), y.as_i64()) {
                (Some(i), Some(j)) => i.cmp(&j),
                _ => x
                    .as_f64()
                    .partial_cmp(&y.as_f64())
                    .unwrap_or(Ordering::Equal),
            };
            o.then_with(|| x.to_string().cmp(&y.to_string()))
        }
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (i, j) in x.iter().zip(y) {
                let o = cmp_val(i, j);
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(_), Value::Object(_)) => a.to_string().cmp(&b.to_string()),
        _ => rank(a).cmp(&rank(b)),
    }
}

impl Ord for PathElement {
    /// `PathElement.Compare`: fields, then keys, then values.
    fn cmp(&self, o: &Self) -> Ordering {
        use PathElement::*;
        match (self, o) {
            (Field(a), Field(b)) => a.cmp(b),
            (Key(a), Key(b)) => {
                for ((an, av), (bn, bv)) in a.iter().zip(b) {
                    let c = an.cmp(bn).then_with(|| cmp_val(av, bv));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Value(a), Value(b)) => cmp_val(a, b),
            (Field(_), _) | (Key(_), Value(_)) => Ordering::Less,
            _ => Ordering::Greater,
        }
    }
}
impl PartialOrd for PathElement {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl PartialEq for PathElement {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for PathElement {}
impl std::hash::Hash for PathElement {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.v1().hash(h)
    }
}

impl PathElement {
    /// The FieldsV1 key: `f:name`, `k:{"containerPort":80,"protocol":"TCP"}`, `v:"a"`.
    fn v1(&self) -> String {
        match self {
            PathElement::Field(f) => format!("f:{f}"),
            PathElement::Key(k) => {
                let m: Map<String, Value> = k.iter().cloned().collect();
                format!("k:{}", Value::Object(m))
            }
            PathElement::Value(v) => format!("v:{v}"),
        }
    }
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

// ---- the schema's view of a node ----

/// A list's associative keys (`At::apply_list`): `None` atomic, `Some([])` a set,
/// `Some(keys)` a list-map.
fn assoc(at: &At) -> Option<Vec<String>> {
    match at.apply_list()? {
        (ListType::Set, _) => Some(Vec::new()),
        (ListType::Map, k) if !k.is_empty() => Some(k.into_iter().map(String::from).collect()),
        _ => None,
    }
}

/// What a node is, given its schema and (non-null) value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Leaf,
    Struct,
    Map,
    List,
}

fn node_kind(at: &At, v: &Value) -> NodeKind {
    match v {
        Value::Object(_) if at.atomic() => NodeKind::Leaf,
        Value::Object(_) if at.kind() == Kind::Map => NodeKind::Map,
        Value::Object(_) => NodeKind::Struct,
        Value::Array(_) if assoc(at).is_some() => NodeKind::List,
        _ => NodeKind::Leaf,
    }
}

/// The kind of a node seen on two sides (a `null` takes the other side's kind; different kinds,
/// or containers empty on both sides, are a leaf: `emptyPromoteToLeaf`).
fn pair_kind(at: &At, l: Option<&Value>, r: Option<&Value>) -> NodeKind {
    let k = |v: Option<&Value>| v.filter(|v| !v.is_null()).map(|v| node_kind(at, v));
    let empty = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    match (k(l), k(r)) {
        _ if empty(l) && empty(r) => NodeKind::Leaf,
        (Some(a), Some(b)) if a != b => NodeKind::Leaf,
        (Some(a), _) | (None, Some(a)) => a,
        (None, None) => NodeKind::Leaf,
    }
}

/// The path element of a list item, or `None` when it has none (a set's object or null, a
/// list-map item without a key field and no default).
fn item_path_element(at: &At, keys: &[String], item: &Value) -> Option<PathElement> {
    if keys.is_empty() {
        return match item {
            Value::Object(_) | Value::Array(_) | Value::Null => None,
            v => Some(PathElement::Value(v.clone())),
        };
    }
    let o = item.as_object()?;
    let mut k = Vec::new();
    for name in keys {
        let v = match o.get(name) {
            Some(v) => v.clone(),
            None => at.item().field(name).default()?,
        };
        k.push((name.clone(), v));
    }
    crate::sort::sort_by(&mut k, |a, b| a.0.cmp(&b.0));
    Some(PathElement::Key(k))
}

/// The path elements of a list's items (`None`: the list is treated as atomic).
fn item_path_elements(at: &At, items: &[Value]) -> Option<Vec<PathElement>> {
    let keys = assoc(at)?;
    let mut out = Vec::with_capacity(items.len());
    for i in items {
        out.push(item_path_element(at, &keys, i)?);
    }
    Some(out)
}

fn items(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(a)) => a,
        _ => &[],
    }
}

fn as_map(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

fn with_element<R>(
    path: &mut FieldPath,
    elem: PathElement,
    f: impl FnOnce(&mut FieldPath) -> R,
) -> R {
    path.push(elem);
    let r = f(path);
    path.pop();
    r
}

// ---- ToFieldSet ----

fn to_set(at: At, v: &Value, path: &mut FieldPath, out: &mut FieldSet) {
    match (node_kind(&at, v), v) {
        (NodeKind::Struct | NodeKind::Map, Value::Object(m)) => {
            let is_map = node_kind(&at, v) == NodeKind::Map;
            for (k, c) in m {
                with_element(path, PathElement::Field(k.clone()), |p| {
                    to_set(at.field(k), c, p, out);
                    let empty = c.as_object().is_some_and(Map::is_empty);
                    if c.is_null() || empty || is_map {
                        out.insert(p.clone());
                    }
                });
            }
        }
        (NodeKind::List, Value::Array(a)) => match item_path_elements(&at, a) {
            None => out.insert(path.clone()),
            Some(pes) => {
                for (i, (elem, item)) in pes.iter().zip(a).enumerate() {
                    let dup = pes.iter().filter(|p| *p == elem).count() > 1;
                    if dup && pes[..i].contains(elem) {
                        continue;
                    }
                    with_element(path, elem.clone(), |p| {
                        if !dup {
                            to_set(at.item(), item, p, out);
                        }
                        out.insert(p.clone());
                    });
                }
            }
        },
        // A null root has no field (below a struct or map the parent owns a null).
        (NodeKind::Leaf, Value::Null) if path.is_empty() => {}
        (NodeKind::Leaf, _) => out.insert(path.clone()),
        _ => {}
    }
}

// ---- Compare ----

#[derive(Default)]
struct Cmp {
    added: FieldSet,
    modified: FieldSet,
    removed: FieldSet,
}

fn compare(at: At, l: Option<&Value>, r: Option<&Value>, path: &mut FieldPath, c: &mut Cmp) {
    match pair_kind(&at, l, r) {
        NodeKind::Leaf => {
            match (l, r) {
                (None, _) => c.added.insert(path.clone()),
                (_, None) => c.removed.insert(path.clone()),
                (Some(a), Some(b)) if a != b => c.modified.insert(path.clone()),
                _ => {}
            }
            return;
        }
        NodeKind::Struct | NodeKind::Map => {
            let (lm, rm) = (as_map(l), as_map(r));
            let keys = lm
                .into_iter()
                .flat_map(|m| m.keys())
                .chain(rm.into_iter().flat_map(|m| m.keys()));
            let mut seen = VecSet::new();
            for k in keys {
                if seen.contains(k) {
                    continue;
                }
                seen.insert(k.clone());
                let (lv, rv) = (lm.and_then(|m| m.get(k)), rm.and_then(|m| m.get(k)));
                with_element(path, PathElement::Field(k.clone()), |p| {
                    compare(at.field(k), lv, rv, p, c)
                });
            }
        }
        NodeKind::List => {
            let (la, ra) = (items(l), items(r));
            let (Some(lp), Some(rp)) = (item_path_elements(&at, la), item_path_elements(&at, ra))
            else {
                // Not associative after all: one leaf.
                if l != r {
                    c.modified.insert(path.clone());
                }
                return;
            };
            let mut all: Vec<&PathElement> = Vec::new();
            for elem in lp.iter().chain(&rp) {
                if !all.contains(&elem) {
                    all.push(elem);
                }
            }
            let group = |pes: &[PathElement], vs: &[Value], elem: &PathElement| -> Vec<Value> {
                pes.iter()
                    .zip(vs)
                    .filter(|(p, _)| *p == elem)
                    .map(|(_, v)| v.clone())
                    .collect()
            };
            for elem in all {
                let (ll, rl) = (group(&lp, la, elem), group(&rp, ra, elem));
                with_element(path, elem.clone(), |p| match (ll.len(), rl.len()) {
                    (0..=1, 0..=1) => compare(at.item(), ll.first(), rl.first(), p, c),
                    (2.., 2..) => {
                        if ll != rl {
                            c.modified.insert(p.clone())
                        }
                    }
                    (2.., _) => {
                        if let Some(r0) = rl.first() {
                            compare(at.item(), None, Some(r0), p, c);
                        }
                        c.removed.insert(p.clone());
                    }
                    _ => {
                        if let Some(l0) = ll.first() {
                            compare(at.item(), Some(l0), None, p, c);
                        }
                        c.added.insert(p.clone());
                    }
                });
            }
        }
    }
    match (l, r) {
        (None, _) => c.added.insert(path.clone()),
        (_, None) => c.removed.insert(path.clone()),
        _ => {}
    }
}

// ---- Merge ----

/// `typed.Merge` with `ruleKeepRHS`: `r` (the configuration) onto `l` (the live object).
fn merge_at(at: At, l: Option<&Value>, r: Option<&Value>) -> Option<Value> {
    match pair_kind(&at, l, r) {
        NodeKind::Leaf => r.or(l).cloned(),
        NodeKind::Struct | NodeKind::Map => {
            let (lm, rm) = (as_map(l), as_map(r));
            let mut out = Map::new();
            for (k, lv) in lm.into_iter().flatten() {
                let rv = rm.and_then(|m| m.get(k));
                if let Some(v) = merge_at(at.field(k), Some(lv), rv) {
                    out.insert(k.clone(), v);
                }
            }
            for (k, rv) in rm.into_iter().flatten() {
                if !out.contains_key(k) {
                    if let Some(v) = merge_at(at.field(k), None, Some(rv)) {
                        out.insert(k.clone(), v);
                    }
                }
            }
            Some(Value::Object(out))
        }
        NodeKind::List => {
            let (la, ra) = (items(l), items(r));
            let (Some(lp), Some(rp)) = (item_path_elements(&at, la), item_path_elements(&at, ra))
            else {
                return r.or(l).cloned();
            };
            if rp.iter().enumerate().any(|(i, p)| rp[..i].contains(p)) {
                // Duplicate keys in the configuration: an error in structured-merge-diff.
                return r.cloned();
            }
            Some(Value::Array(merge_list(at, la, &lp, ra, &rp)))
        }
    }
}

/// `visitListItems` of the merging walker: the order of the merged items.
fn merge_list(
    at: At,
    la: &[Value],
    lp: &[PathElement],
    ra: &[Value],
    rp: &[PathElement],
) -> Vec<Value> {
    let null = Value::Null;
    // observedLHS: a duplicated live item merges as null.
    let observed_l = |elem: &PathElement| -> Option<&Value> {
        let mut it = lp.iter().zip(la).filter(|(p, _)| *p == elem);
        let first = it.next()?.1;
        Some(if it.next().is_some() { &null } else { first })
    };
    let observed_r = |elem: &PathElement| rp.iter().position(|p| p == elem).map(|i| &ra[i]);
    let mut shared = rp.iter().filter(|p| lp.contains(p));
    let mut next_shared = shared.next();
    let mut merged_r: Vec<&PathElement> = Vec::new();
    let mut out = Vec::new();
    let item = at.item();
    let (mut li, mut ri) = (0, 0);
    while li < lp.len() || ri < rp.len() {
        if li < lp.len() && ri < rp.len() {
            let elem = &lp[li];
            if *elem == rp[ri] {
                merged_r.push(elem);
                out.extend(merge_at(item, observed_l(elem), observed_r(elem)));
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if observed_r(elem).is_some() && next_shared.is_some_and(|n| n != elem) {
                li += 1;
                continue;
            }
        }
        if li < lp.len() {
            let elem = &lp[li];
            if observed_r(elem).is_none() {
                out.extend(merge_at(item, Some(&la[li]), None));
                li += 1;
                continue;
            } else if merged_r.contains(&elem) {
                li += 1;
            }
        }
        if ri < rp.len() {
            let elem = &rp[ri];
            merged_r.push(elem);
            out.extend(merge_at(item, observed_l(elem), observed_r(elem)));
            ri += 1;
            if next_shared == Some(elem) {
                next_shared = shared.next();
            }
        }
    }
    out
}

// ---- RemoveItems ----

/// The paths of `set` below `elem`, without it.
fn with_prefix(set: &FieldSet, elem: &PathElement) -> FieldSet {
    let mut out = FieldSet::new();
    for p in set.iter() {
        if p.len() > 1 && p[0] == *elem {
            out.insert(p[1..].to_vec());
        }
    }
    out
}

/// `pruned` without the object fields that are `null` there and were not in `merged` (the
/// containers a prune emptied).
fn without_new_nulls(pruned: &Value, merged: &Value) -> Value {
    match (pruned, merged) {
        (Value::Object(p), Value::Object(m)) => Value::Object(
            p.iter()
                .filter(|(k, v)| !(v.is_null() && m.get(*k).is_some_and(|o| !o.is_null())))
                .map(|(k, v)| match m.get(k) {
                    Some(o) => (k.clone(), without_new_nulls(v, o)),
                    None => (k.clone(), v.clone()),
                })
                .collect(),
        ),
        _ => pruned.clone(),
    }
}

/// `RemoveItems`: `v` without the fields and items `set` names. A container left empty is
/// `null`, as structured-merge-diff leaves it, or, with `drop`, left out.
fn remove(at: At, v: &Value, set: &FieldSet, drop: bool) -> Option<Value> {
    let one = |elem: PathElement| vec![elem];
    match (node_kind(&at, v), v) {
        (NodeKind::Struct | NodeKind::Map, Value::Object(m)) if !m.is_empty() => {
            let mut out = Map::new();
            for (k, c) in m {
                let elem = PathElement::Field(k.clone());
                let sub = with_prefix(set, &elem);
                if set.contains(&one(elem)) {
                    continue;
                }
                let c = if sub.is_empty() {
                    Some(c.clone())
                } else {
                    remove(at.field(k), c, &sub, drop)
                };
                match c {
                    Some(c) => out.insert(k.clone(), c),
                    None if drop => None,
                    None => out.insert(k.clone(), Value::Null),
                };
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        (NodeKind::List, Value::Array(a)) if !a.is_empty() => {
            let Some(pes) = item_path_elements(&at, a) else {
                return Some(v.clone());
            };
            let mut out = Vec::new();
            for (elem, item) in pes.into_iter().zip(a) {
                let sub = with_prefix(set, &elem);
                if set.contains(&one(elem)) {
                    continue;
                }
                if sub.is_empty() {
                    out.push(item.clone());
                } else {
                    out.push(remove(at.item(), item, &sub, drop).unwrap_or(Value::Null));
                }
            }
            (!out.is_empty()).then_some(Value::Array(out))
        }
        (NodeKind::Leaf, _) => Some(v.clone()),
        _ => None,
    }
}

/// `EnsureNamedFieldsAreMembers`: a struct's fields with children are members too.
fn named_members(at: At, set: &FieldSet) -> FieldSet {
    let mut out = set.clone();
    for p in set.iter() {
        let mut a = at;
        for (i, elem) in p.iter().enumerate().take(p.len().saturating_sub(1)) {
            if let PathElement::Field(f) = elem {
                if matches!(a.kind(), Kind::Struct | Kind::Unknown) {
                    out.insert(p[..=i].to_vec());
                }
                a = a.field(f);
            } else {
                a = a.item();
            }
        }
    }
    out
}

fn minus(a: &FieldSet, b: &FieldSet) -> FieldSet {
    let mut out = a.clone();
    out.retain(|p| !b.contains(p));
    out
}

fn union(a: &FieldSet, b: &FieldSet) -> FieldSet {
    let mut out = a.clone();
    out.extend(b.clone());
    out
}

// ---- the updater, on a schema ----

/// A typed view: the schema root, and for the store's kinds the fields not tracked.
#[derive(Clone, Copy)]
pub(crate) struct Typed<'a> {
    pub at: At<'a>,
    /// The store's object: `kind`, `apiVersion`, system `metadata` (and a Deployment's
    /// `status`) are not tracked; containers a prune emptied are left out of the object
    /// stored (they are `null` while the ownership is computed, as in structured-merge-diff).
    pub res: Option<&'a Resource>,
    /// The subresource written (`""` or `"status"`), for the reset fields.
    pub sub: &'static str,
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
    "clusterName",
];

impl Typed<'_> {
    /// The reset fields of the strategy (`IgnoreFilter`) are left out: a Deployment's
    /// `status` on the main resource, its `spec` and `metadata.labels` on the status
    /// subresource.
    fn view(&self, v: &Value) -> Value {
        let mut v = v.clone();
        if let (Some(Resource::Namespace), Some(o), true) =
            (self.res, v.as_object_mut(), super::API)
        {
            // `GetResetFields` of the strategies: `status` for the main resource and
            // `finalize`, `spec` for `status`.
            o.shift_remove(if self.sub == "status" {
                "spec"
            } else {
                "status"
            });
        }
        if let (Some(Resource::Deployment), Some(o)) = (self.res, v.as_object_mut()) {
            if self.sub == "status" {
                o.shift_remove("spec");
                if let Some(Value::Object(m)) = o.get_mut("metadata") {
                    m.shift_remove("labels");
                }
            } else {
                o.shift_remove("status");
            }
        }
        v
    }
    /// Without the paths `stripMeta` strips (exactly those paths).
    fn strip(&self, mut set: FieldSet) -> FieldSet {
        if self.res.is_some() {
            set.retain(|p| {
                let f = |i: usize| match p.get(i) {
                    Some(PathElement::Field(f)) => f.as_str(),
                    _ => "",
                };
                !match p.len() {
                    1 => matches!(f(0), "kind" | "apiVersion" | "metadata"),
                    2 => f(0) == "metadata" && STRIPPED_META.contains(&f(1)),
                    _ => false,
                }
            });
        }
        set
    }
    fn set(&self, v: &Value) -> FieldSet {
        self.strip(self.full_set(v))
    }
    /// `ToFieldSet` as structured-merge-diff computes it: not stripped.
    fn full_set(&self, v: &Value) -> FieldSet {
        let mut out = FieldSet::new();
        to_set(self.at, &self.view(v), &mut Vec::new(), &mut out);
        out
    }
    fn cmp(&self, l: &Value, r: &Value) -> Cmp {
        let mut c = Cmp::default();
        let (l, r) = (self.view(l), self.view(r));
        compare(self.at, Some(&l), Some(&r), &mut Vec::new(), &mut c);
        Cmp {
            added: self.strip(c.added),
            modified: self.strip(c.modified),
            removed: self.strip(c.removed),
        }
    }
    fn remove(&self, v: &Value, set: &FieldSet) -> Value {
        // (The page's store, without the `api` feature, drops an emptied container at once and
        // computes the ownership without it: `without_new_nulls` is 200 B of its wasm, which is
        // at its size budget, docs/size.md.)
        let drop = !super::API && self.res.is_some();
        remove(self.at, v, set, drop).unwrap_or_else(|| Value::Object(Map::new()))
    }

    /// `Updater.update`: ownership after `live` → `new`; `me` is the writer (skipped).
    fn update(
        &self,
        live: &Value,
        new: &Value,
        ms: &mut [Manager],
        me: Option<usize>,
        force: bool,
    ) -> Result<Cmp, Conflicts> {
        let c = self.cmp(live, new);
        let changed = union(&c.modified, &c.added);
        let mut conflicts = Vec::new();
        for (i, m) in ms.iter().enumerate() {
            if Some(i) != me {
                for p in iterate_order(m.set.intersection(&changed).collect()) {
                    conflicts.push((i, path_string(p)));
                }
            }
        }
        if !conflicts.is_empty() && !force {
            return Err(conflicts);
        }
        for (i, m) in ms.iter_mut().enumerate() {
            if Some(i) != me {
                m.set
                    .retain(|p| !changed.contains(p) && !c.removed.contains(p));
            }
        }
        Ok(c)
    }

    /// `Updater.Update` by `ms[me]` (pushed by the caller when new); whether it took anything.
    pub(crate) fn update_by(
        &self,
        live: &Value,
        new: &Value,
        ms: &mut [Manager],
        me: usize,
    ) -> bool {
        let Ok(c) = self.update(live, new, ms, Some(me), true) else {
            return false;
        };
        let m = &mut ms[me];
        m.set.retain(|p| !c.removed.contains(p));
        let took = !(c.modified.is_empty() && c.added.is_empty());
        m.set.extend(c.modified);
        m.set.extend(c.added);
        took
    }

    /// `Updater.Apply` of `cfg` by `ms[me]` (pushed by the caller when new): the merged
    /// object, or the conflicts (`ms` is then unchanged).
    pub(crate) fn apply_by(
        &self,
        live: &Value,
        cfg: &Value,
        ms: &mut [Manager],
        me: usize,
        force: bool,
    ) -> Result<Value, Conflicts> {
        let merged = merge_at(self.at, Some(live), Some(cfg)).unwrap_or(Value::Null);
        let mut next = ms.to_vec();
        let last = std::mem::replace(&mut next[me].set, self.set(cfg));
        // Inside structured-merge-diff the applier's new set is not stripped yet (the field
        // manager's `stripMeta` runs after `Updater.Apply`): `addBackOwnedItems` keeps what
        // the configuration names, `metadata.name` and `metadata.namespace` included, so a
        // prune never takes them (nor `metadata` with them).
        let applied = self.full_set(cfg);
        // structured-merge-diff's prune leaves a container it emptied as `null`
        // (`removingWalker`), and the ownership is computed on that object: the `null` is a
        // field still there, so whoever owned the container (its `.`) keeps it (the
        // reference's answers, `reference/goldens/apply-prune.json`). The object stored is the
        // apiserver's after its round trip through the Go types, without those `null`s.
        // (Without the `api` feature the prune drops them at once, `Typed::remove`.)
        if !super::API || self.res.is_none() {
            let merged = self.prune(merged, &next, &last, applied);
            self.update(live, &merged, &mut next, Some(me), force)?;
            ms.clone_from_slice(&next);
            return Ok(merged);
        }
        let pruned = self.prune(merged.clone(), &next, &last, applied);
        self.update(live, &pruned, &mut next, Some(me), force)?;
        ms.clone_from_slice(&next);
        Ok(without_new_nulls(&pruned, &merged))
    }

    /// `Updater.prune`: removes what the applier applied last time (`last`) and no longer
    /// applies, unless a manager owns it.
    fn prune(&self, merged: Value, ms: &[Manager], last: &FieldSet, applied: FieldSet) -> Value {
        if last.is_empty() {
            return merged;
        }
        let named = |s: &FieldSet| named_members(self.at, s);
        let last = named(last);
        let pruned = self.remove(&merged, &last);
        let mut managed = applied;
        for m in ms {
            managed.extend(m.set.clone());
        }
        // The objects' field sets as structured-merge-diff computes them: not stripped.
        let ms_set = named(&self.full_set(&merged));
        let keep = union(&named(&self.full_set(&pruned)), &named(&managed));
        let pruned = self.remove(&merged, &minus(&ms_set, &keep));
        let gone = minus(&ms_set, &named(&self.full_set(&pruned)));
        let mut dangling = gone;
        dangling.retain(|p| last.contains(p));
        self.remove(&merged, &dangling)
    }
}

/// Conflicts: the manager (an index) and the path, in `ConflictsFromManagers` order.
pub(crate) type Conflicts = Vec<(usize, String)>;

/// `Set.Iterate` order: at each level the members, then the children.
fn iterate_order(mut ps: Vec<&FieldPath>) -> Vec<&FieldPath> {
    crate::sort::sort_by(&mut ps, |a, b| {
        let i = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
        match (a.len() == i + 1, b.len() == i + 1) {
            _ if i == a.len() || i == b.len() => a.len().cmp(&b.len()),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => a[i].cmp(&b[i]),
        }
    });
    ps
}

// ---- the store's kinds ----

fn typed<'a>(res: &'a Resource, sub: &'static str) -> Typed<'a> {
    let at = match res {
        // (With the `api` feature: the page's custom resources keep the deduced schema, its
        // wasm is at its size budget until issue #38, docs/size.md.)
        Resource::Custom { .. } if super::API => At::custom_root(),
        Resource::Custom { .. } => At::deduced(),
        r => schema::builtin().root(&r.kind()),
    };
    Typed {
        at,
        res: Some(res),
        sub,
    }
}

/// The kind's empty typed object as the apiserver serializes it (`scope.Creater.New`): fields
/// without `omitempty` are there, `null` or empty (the old object of a create).
fn zero(res: &Resource) -> Value {
    let s = match res {
        Resource::Deployment => {
            r#"{"metadata":{},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}}}"#
        }
        Resource::Namespace => r#"{"metadata":{},"spec":{}}"#,
        _ => r#"{"metadata":{}}"#,
    };
    serde_json::from_str(s).unwrap_or_default()
}

/// Ownership after a non-apply write by `name` (operation Update).
pub(crate) fn after_update(
    res: &Resource,
    managers: &[Manager],
    old: Option<&Value>,
    new: &Value,
    name: &str,
    now: &str,
) -> Vec<Manager> {
    after_update_to(res, "", managers, old, new, name, now)
}

/// The index of `name`'s `op` manager of `sub` in `out`, added with an empty set if it has none.
fn manager_index(
    out: &mut Vec<Manager>,
    res: &Resource,
    sub: &'static str,
    name: &str,
    op: Operation,
    now: &str,
) -> usize {
    let api = res.api_version();
    if let Some(i) = out.iter().position(|m| m.is(name, op, &api, sub)) {
        return i;
    }
    out.push(Manager {
        name: name.into(),
        operation: op,
        api_version: api,
        time: now.into(),
        set: FieldSet::new(),
        subresource: sub,
    });
    out.len() - 1
}

/// [`after_update`] of a write to `sub` (`""`: the main resource, `"status"`).
pub(crate) fn after_update_to(
    res: &Resource,
    sub: &'static str,
    managers: &[Manager],
    old: Option<&Value>,
    new: &Value,
    name: &str,
    now: &str,
) -> Vec<Manager> {
    // `skipNonAppliedManager` (k8s.io/apimachinery `pkg/util/managedfields/internal/
    // skipnonapplied.go`): an update of an object that has no managedFields leaves it without;
    // only a create or an apply starts tracking (the reference's answers show it, e.g. a
    // ConfigMap created empty and then patched).
    // (With the `api` feature: the page's store tracks as before, docs/size.md.)
    if super::API && old.is_some() && managers.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Manager> = managers.to_vec();
    let me = manager_index(&mut out, res, sub, name, Operation::Update, now);
    let zero = zero(res);
    if typed(res, sub).update_by(old.unwrap_or(&zero), new, &mut out, me) {
        out[me].time = now.into();
    }
    out.retain(|m| !m.set.is_empty());
    out
}

/// Merges an applied configuration onto the live object (`typed.Merge`).
pub(crate) fn merge(res: &Resource, live: &Value, cfg: &Value) -> Value {
    merge_at(typed(res, "").at, Some(live), Some(cfg)).unwrap_or(Value::Null)
}

/// A path as structured-merge-diff prints it: `.data.key`, `.spec.containers[name="app"].image`,
/// `.metadata.finalizers[="a"]`.
pub(crate) fn path_string(path: &FieldPath) -> String {
    // `value.ToString`: strings quoted (`%q`), numbers and bools as they are.
    fn val(v: &Value) -> String {
        match v {
            Value::String(s) => status::quote(s),
            v => v.to_string(),
        }
    }
    let mut s = String::new();
    for elem in path {
        match elem {
            PathElement::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            PathElement::Key(k) => {
                let fields: Vec<String> =
                    k.iter().map(|(f, v)| format!("{f}={}", val(v))).collect();
                s.push_str(&format!("[{}]", fields.join(",")));
            }
            PathElement::Value(v) => s.push_str(&format!("[={}]", val(v))),
        }
    }
    s
}

/// The result of a server-side apply onto an existing object.
pub(crate) struct Applied {
    pub object: Value,
    pub managers: Vec<Manager>,
}

/// Server-side apply of `cfg` by `name` onto `live` (without managedFields).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn apply(
    res: &Resource,
    live: &Value,
    managers: &[Manager],
    cfg: &Value,
    name: &str,
    force: bool,
    now: &str,
) -> Result<Applied, Response> {
    apply_to(res, "", live, managers, cfg, name, force, now)
}

/// [`apply`] to `sub` (`""`: the main resource, `"status"`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_to(
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
    let mut out: Vec<Manager> = managers.to_vec();
    let me = manager_index(&mut out, res, sub, name, Operation::Apply, now);
    let object = typed(res, sub)
        .apply_by(live, cfg, &mut out, me, force)
        .map_err(|c| conflict_error(&out, c))?;
    out[me].api_version = api;
    // `managedFieldsUpdater.Apply` (k8s.io/apimachinery `pkg/util/managedfields/internal/
    // managedfieldsupdater.go`) stamps the applier's time only when structured-merge-diff's
    // `Updater.Apply` returns an object, i.e. when the merged value is not equal to the live
    // one (`value.Equals`, before Go's `omitempty`: applying `data: {}` to an object without
    // `data` is a change, to one with data is not). An apply that changes nothing keeps the
    // entry's time (`apply_by` leaves it), and a new entry (`manager_index` appended it) gets
    // none; the reference's answers show both. The page's store, without the `api` feature,
    // stamps every apply: its wasm is at its size budget (docs/size.md).
    if super::API && object == *live {
        if me >= managers.len() {
            out[me].time = String::new();
        }
    } else {
        out[me].time = now.into();
    }
    out.retain(|m| !m.set.is_empty());
    Ok(Applied {
        object,
        managers: out,
    })
}

/// The managers of an object created by an apply.
pub(crate) fn created_by_apply(
    res: &Resource,
    _obj: &Value,
    cfg: &Value,
    name: &str,
    now: &str,
) -> Vec<Manager> {
    let m = Manager {
        name: name.into(),
        operation: Operation::Apply,
        api_version: res.api_version(),
        time: now.into(),
        set: typed(res, "").set(cfg),
        subresource: "",
    };
    if m.set.is_empty() {
        Vec::new()
    } else {
        vec![m]
    }
}

fn conflict_error(ms: &[Manager], conflicts: Conflicts) -> Response {
    let mut conflicts: Vec<(String, String, String)> = conflicts
        .into_iter()
        .map(|(i, p)| (ms[i].identifier(), ms[i].printed(), p))
        .collect();
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
        for (elem, c) in t.children.iter() {
            m.insert(elem.v1(), render(c));
        }
        Value::Object(m)
    }
    let mut root = Trie::default();
    for p in set.iter() {
        let mut t = &mut root;
        for elem in p {
            t = t.children.get_or_insert_with(elem, Trie::default);
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
        let key = |m: &Manager| {
            (
                m.operation.as_str(),
                m.time.clone(),
                m.name.clone(),
                m.api_version.clone(),
                m.subresource,
            )
        };
        key(a).cmp(&key(b))
    });
    Value::Array(
        ms.into_iter()
            .map(|m| {
                let mut e = Map::new();
                e.insert("manager".into(), m.name.clone().into());
                e.insert("operation".into(), m.operation.as_str().into());
                e.insert("apiVersion".into(), m.api_version.clone().into());
                if !m.time.is_empty() {
                    e.insert("time".into(), m.time.clone().into());
                }
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

/// Renames the field managers that `rename` maps in every `managedFields` list inside `v`
/// (an object's, or a copy of one anywhere in a value) and sorts each list again the way
/// [`render`] sorts it, since the order depends on the names. The explorer's symmetry
/// reduction renames clients this way (`explore::scenario`).
#[cfg(feature = "symmetry")]
pub fn rename_managed(v: &mut Value, rename: &dyn Fn(&str) -> Option<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if let (true, Value::Array(mf)) = (k == "managedFields", &mut *x) {
                    rename_entries(mf, rename);
                }
                rename_managed(x, rename);
            }
        }
        Value::Array(xs) => {
            for x in xs {
                rename_managed(x, rename);
            }
        }
        _ => {}
    }
}

#[cfg(feature = "symmetry")]
fn rename_entries(mf: &mut [Value], rename: &dyn Fn(&str) -> Option<String>) {
    let mut renamed = false;
    for e in mf.iter_mut() {
        if let Some(Value::String(name)) = e.get_mut("manager") {
            if let Some(new) = rename(name) {
                *name = new;
                renamed = true;
            }
        }
    }
    if renamed {
        // `render`'s order; an absent subresource is `""`, as there.
        fn key(e: &Value) -> [&str; 5] {
            ["operation", "time", "manager", "apiVersion", "subresource"]
                .map(|k| e.get(k).and_then(Value::as_str).unwrap_or(""))
        }
        crate::sort::sort_by(mf, |a, b| key(a).cmp(&key(b)));
    }
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
mod smd;

/// Managers decoded from a request's body (`sent`) in the order the store keeps `live`'s
/// where they are the same entry (name, operation, apiVersion, subresource), the others after
/// them as sent. The store's order of entries follows their history, not their names (the
/// explorer's symmetry renames them in place, `Store::renamed`); a body's order is
/// [`render`]'s, which sorts by name among equal times.
#[cfg(feature = "api")]
pub(crate) fn in_live_order(mut sent: Vec<Manager>, live: &[Manager]) -> Vec<Manager> {
    let at = |m: &Manager| {
        live.iter()
            .position(|l| {
                l.name == m.name
                    && l.operation == m.operation
                    && l.api_version == m.api_version
                    && l.subresource == m.subresource
            })
            .unwrap_or(usize::MAX)
    };
    crate::sort::sort_by(&mut sent, |a, b| at(a).cmp(&at(b)));
    sent
}

/// `metadata.managedFields` read back from an object as [`render`] wrote it (what etcd keeps:
/// `rvlab serve --etcd` rebuilds its store from the stored objects, `super::etcd`). `None` for
/// an entry this store could not have written (an unknown operation, fieldsType or
/// subresource, a malformed FieldsV1 key).
#[cfg(feature = "api")]
pub(crate) fn parse_managed(v: &Value) -> Option<Vec<Manager>> {
    fn element(key: &str) -> Option<PathElement> {
        if let Some(f) = key.strip_prefix("f:") {
            return Some(PathElement::Field(f.to_string()));
        }
        if let Some(k) = key.strip_prefix("k:") {
            let Ok(Value::Object(m)) = serde_json::from_str::<Value>(k) else {
                return None;
            };
            return Some(PathElement::Key(m.into_iter().collect()));
        }
        let v = key.strip_prefix("v:")?;
        serde_json::from_str(v).ok().map(PathElement::Value)
    }
    fn walk(node: &Map<String, Value>, path: &mut FieldPath, out: &mut Vec<FieldPath>) -> bool {
        if node.is_empty() || node.contains_key(".") {
            out.push(path.clone());
        }
        for (k, child) in node {
            if k == "." {
                continue;
            }
            let (Some(elem), Some(c)) = (element(k), child.as_object()) else {
                return false;
            };
            path.push(elem);
            let ok = walk(c, path, out);
            path.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    let mut managers = Vec::new();
    for e in v.as_array()? {
        let text = |k: &str| e.get(k).and_then(Value::as_str);
        let operation = match text("operation")? {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            _ => return None,
        };
        let subresource = match text("subresource").unwrap_or("") {
            "" => "",
            "status" => "status",
            _ => return None,
        };
        if text("fieldsType")? != "FieldsV1" {
            return None;
        }
        let mut paths = Vec::new();
        let root = e.get("fieldsV1")?.as_object()?;
        if !walk(root, &mut Vec::new(), &mut paths) {
            return None;
        }
        // The root itself is no member (an empty trie is an empty set).
        let mut set = FieldSet::new();
        for p in paths.into_iter().filter(|p| !p.is_empty()) {
            set.insert(p);
        }
        managers.push(Manager {
            name: text("manager")?.to_string(),
            operation,
            api_version: text("apiVersion")?.to_string(),
            // An apply that changed nothing leaves a new entry without a time.
            time: text("time").unwrap_or_default().to_string(),
            set,
            subresource,
        });
    }
    Some(managers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::schema::Schema;
    use serde_json::json;

    const SCHEMA: &str = "root Deployment apps.v1.Deployment
type apps.v1.Deployment
  metadata meta.v1.ObjectMeta
  spec apps.v1.DeploymentSpec
type meta.v1.ObjectMeta
  labels {s}
type meta.v1.LabelSelector atomic
type apps.v1.DeploymentSpec
  selector meta.v1.LabelSelector
  template core.v1.PodTemplateSpec
type core.v1.PodTemplateSpec
  spec core.v1.PodSpec
type core.v1.PodSpec
  containers [core.v1.Container] patch=merge key=name
type core.v1.Container
  ports [core.v1.ContainerPort] patch=merge key=containerPort list=map keys=containerPort,protocol
type core.v1.ContainerPort
  protocol s default=\"TCP\"
";

    fn cm(fin: &[&str]) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": fin}})
    }

    fn v1(ms: &[Manager], name: &str) -> String {
        let m = ms.iter().find(|m| m.name == name).expect(name);
        fields_v1(&m.set).to_string()
    }

    fn msg(r: Response) -> String {
        r.body["message"].as_str().unwrap_or_default().to_string()
    }

    #[test]
    fn finalizers_are_owned_one_by_one() {
        let r = Resource::ConfigMap;
        let ms = created_by_apply(&r, &cm(&["a", "b"]), &cm(&["a", "b"]), "A", "t");
        let live = merge(&r, &json!({}), &cm(&["a", "b"]));
        // B applies one finalizer: no conflict, its own entry.
        let b = apply(&r, &live, &ms, &cm(&["c"]), "B", false, "t").unwrap();
        assert_eq!(b.object["metadata"]["finalizers"], json!(["a", "b", "c"]));
        assert_eq!(
            v1(&b.managers, "B"),
            r#"{"f:metadata":{"f:finalizers":{"v:\"c\"":{}}}}"#
        );
        assert_eq!(
            v1(&b.managers, "A"),
            r#"{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}"#
        );
        // Applying a value someone else owns too is co-ownership, not a conflict.
        let both = apply(
            &r,
            &b.object,
            &b.managers,
            &cm(&["a", "c"]),
            "B",
            false,
            "t",
        )
        .unwrap();
        assert!(v1(&both.managers, "B").contains(r#""v:\"a\"""#));
        // B drops its finalizer: only its entry goes.
        let cfg = json!({"metadata": {"name": "c"}});
        let gone = apply(&r, &b.object, &b.managers, &cfg, "B", false, "t").unwrap();
        assert_eq!(gone.object["metadata"]["finalizers"], json!(["a", "b"]));
        assert!(gone.managers.iter().all(|m| m.name != "B"));
        // An update removing A's finalizer takes it from A.
        let ms = after_update(
            &r,
            &b.managers,
            Some(&b.object),
            &cm(&["b", "c"]),
            "ctl",
            "t",
        );
        assert_eq!(
            v1(&ms, "A"),
            r#"{"f:metadata":{"f:finalizers":{"v:\"b\"":{}}}}"#
        );
        assert!(
            ms.iter().all(|m| m.name != "ctl"),
            "a removal takes nothing"
        );
    }

    #[test]
    fn owner_references_by_uid_are_atomic_items() {
        let r = Resource::ConfigMap;
        let owner = |uid: &str, name: &str| json!({"apiVersion": "v1", "kind": "X", "name": name, "uid": uid});
        let owned_by = |refs: Value| json!({"metadata": {"name": "c", "ownerReferences": refs}});
        let cfg = owned_by(json!([owner("u1", "x")]));
        let ms = created_by_apply(&r, &cfg, &cfg, "A", "t");
        let live = merge(&r, &json!({}), &cfg);
        assert_eq!(
            v1(&ms, "A"),
            r#"{"f:metadata":{"f:ownerReferences":{"k:{\"uid\":\"u1\"}":{}}}}"#
        );
        let b = apply(
            &r,
            &live,
            &ms,
            &owned_by(json!([owner("u2", "y")])),
            "B",
            false,
            "t",
        )
        .unwrap();
        assert_eq!(
            b.object["metadata"]["ownerReferences"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
        let e = apply(
            &r,
            &b.object,
            &b.managers,
            &owned_by(json!([owner("u1", "z")])),
            "B",
            false,
            "t",
        );
        assert_eq!(
            msg(e.err().unwrap()),
            r#"Apply failed with 1 conflict: conflict with "A": .metadata.ownerReferences[uid="u1"]"#
        );
    }

    #[test]
    fn ports_by_port_and_defaulted_protocol_and_an_atomic_selector() {
        let s = Schema::parse(SCHEMA).unwrap();
        let t = Typed {
            at: s.root("Deployment"),
            res: None,
            sub: "",
        };
        let dep = |ports: Value| {
            json!({"spec": {"selector": {"matchLabels": {"app": "w"}},
                "template": {"spec": {"containers": [{"name": "app", "ports": ports}]}}}})
        };
        let cfg = dep(json!([{"containerPort": 80, "name": "http"}]));
        let set = t.set(&cfg);
        assert_eq!(
            fields_v1(&set).to_string(),
            r#"{"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{}}}}}}}}}"#
        );
        let mut ms = vec![Manager {
            name: "A".into(),
            operation: Operation::Apply,
            api_version: "v1".into(),
            time: "t".into(),
            set: FieldSet::new(),
            subresource: "",
        }];
        let live = t.apply_by(&Value::Null, &cfg, &mut ms, 0, false).unwrap();
        ms.push(Manager {
            name: "B".into(),
            ..ms[0].clone()
        });
        ms[1].set = FieldSet::new();
        let udp = dep(
            json!([{"containerPort": 80, "protocol": "UDP"}, {"containerPort": 80, "name": "web"}]),
        );
        let e = t
            .apply_by(&live, &udp, &mut ms.clone(), 1, false)
            .err()
            .unwrap();
        assert_eq!(
            msg(conflict_error(&ms, e)),
            r#"Apply failed with 1 conflict: conflict with "A": .spec.template.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"].name"#
        );
        let both = t.apply_by(&live, &udp, &mut ms, 1, true).unwrap();
        let ports = &both["spec"]["template"]["spec"]["containers"][0]["ports"];
        assert_eq!(
            ports,
            &json!([{"containerPort": 80, "protocol": "UDP"}, {"containerPort": 80, "name": "web"}])
        );
        // The selector is one leaf: changing a label inside it conflicts on `.spec.selector`.
        let sel = json!({"spec": {"selector": {"matchLabels": {"app": "v"}}}});
        let e = t
            .apply_by(&both, &sel, &mut ms.clone(), 1, false)
            .err()
            .unwrap();
        assert_eq!(
            msg(conflict_error(&ms, e)),
            r#"Apply failed with 1 conflict: conflict with "A": .spec.selector"#
        );
    }

    #[test]
    fn conflicts_group_by_manager_in_set_order() {
        let r = Resource::ConfigMap;
        let ms = after_update(
            &r,
            &[],
            None,
            &json!({"data": {"a": "1", "b": "1"}, "metadata": {"labels": {"x": "1"}}}),
            "m1",
            "t",
        );
        let live =
            json!({"data": {"a": "1", "b": "1"}, "metadata": {"name": "c", "labels": {"x": "1"}}});
        let cfg = json!({"data": {"a": "2", "b": "2"}, "metadata": {"labels": {"x": "2"}}});
        let e = apply(&r, &live, &ms, &cfg, "B", false, "t").err().unwrap();
        assert_eq!(
            msg(e),
            "Apply failed with 3 conflicts: conflicts with \"m1\" using v1:\n- .data.a\n- .data.b\n- .metadata.labels.x"
        );
        assert_eq!(
            path_string(&vec![
                PathElement::Field("x".into()),
                PathElement::Value(json!(2)),
            ]),
            ".x[=2]"
        );
    }

    // Namespaces are served with the `api` feature only (the page's store has none).
    #[cfg(feature = "api")]
    #[test]
    fn a_namespace_status_is_not_tracked() {
        let ns =
            json!({"metadata": {"name": "n", "labels": {"a": "b"}}, "status": {"phase": "Active"}});
        let ms = after_update(&Resource::Namespace, &[], None, &ns, "m", "t");
        assert_eq!(
            v1(&ms, "m"),
            r#"{"f:metadata":{"f:labels":{".":{},"f:a":{}}}}"#
        );
    }

    #[test]
    fn iterate_order_puts_members_before_children() {
        let f = |s: &str| PathElement::Field(s.into());
        let (a, b) = (vec![f("a"), f("x")], vec![f("b")]);
        assert_eq!(iterate_order(vec![&a, &b]), vec![&b, &a]);
    }
}
