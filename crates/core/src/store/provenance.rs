//! Provenance of leaf fields and lost-update detection (docs/scenario-language.md, "Lost updates, precisely").
//!
//! - A **leaf** is a scalar (string, number, bool, null) or an **array, taken whole** (an array
//!   is one leaf at its own path: `spec.template.spec.containers`); objects are not leaves.
//! - Paths use the scenario language's syntax: identifiers joined by `.`, other keys as
//!   `["…"]` (`data.key`, `data["app.properties"]`, `metadata.labels.app`).
//! - Not tracked: `kind`, `apiVersion`, and the identity and system fields of `metadata`
//!   (`name`, `namespace`, `generateName`, `selfLink`, `uid`, `resourceVersion`, `generation`,
//!   `creationTimestamp`, `managedFields`).
//! - A write records `(writer, revision)` for every leaf whose value it changes or adds; a leaf
//!   written with the value it already has **keeps its old provenance** (nothing was lost or
//!   learnt); removed leaves lose their provenance.
//! - A write's lost updates are the leaves it changes or removes whose current value was
//!   written by another writer at a revision after the write's base. An array changed so that
//!   it still holds every element it held (as many times; order aside) lost nothing: a
//!   strategic merge or a server-side apply that adds a finalizer or a condition keeps the
//!   others. (Whole arrays keep one provenance: after such a merge the array is the merging
//!   writer's, and a write that changes one element of an array someone else wrote last counts
//!   as overwriting that writer's array.)
//! - A delete loses at most one update, reported with path `""`: the latest write to the object
//!   by another writer after the deleter's base (any write counts, including one that only
//!   removed fields).

use super::{Actor, LostUpdate, Provenance};
use crate::vecmap::VecMap;
use serde_json::Value;

const UNTRACKED_META: &[&str] = &[
    "name",
    "namespace",
    "generateName",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
];

fn is_ident(k: &str) -> bool {
    let mut cs = k.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Appends one key to a path in the scenario language's syntax.
pub fn join_path(base: &str, key: &str) -> String {
    if is_ident(key) {
        if base.is_empty() {
            key.to_string()
        } else {
            format!("{base}.{key}")
        }
    } else {
        format!("{base}[{}]", Value::String(key.into()))
    }
}

/// Leaves by path (distinct keys make distinct paths, so no path repeats).
type Leaves = VecMap<String, Value>;

fn collect(v: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                collect(c, join_path(&path, k), out);
            }
        }
        other => out.push((path, other.clone())),
    }
}

/// The tracked leaves of an object, by path.
pub(crate) fn leaves(obj: &Value) -> Leaves {
    let mut out = Vec::new();
    let Some(o) = obj.as_object() else {
        return Leaves::new();
    };
    for (k, v) in o {
        match k.as_str() {
            "kind" | "apiVersion" => {}
            "metadata" => {
                if let Some(m) = v.as_object() {
                    for (mk, mv) in m {
                        if !UNTRACKED_META.contains(&mk.as_str()) {
                            collect(mv, join_path("metadata", mk), &mut out);
                        }
                    }
                }
            }
            _ => collect(v, join_path("", k), &mut out),
        }
    }
    Leaves::from_vec(out)
}

/// Provenance after a write of `new` over `old`, and the updates that write lost.
pub(crate) fn track(
    prov: &VecMap<String, Provenance>,
    old: Option<&Value>,
    new: &Value,
    actor: &Actor,
    revision: u64,
    object: &str,
) -> (VecMap<String, Provenance>, Vec<LostUpdate>) {
    let before = old.map(leaves).unwrap_or_default();
    let after = leaves(new);
    let mut lost = Vec::new();
    // Filled in `after`'s order (by path): each insert appends.
    let mut out = VecMap::new();
    let mut check = |path: &str| {
        if let Some(p) = prov.get(path) {
            if p.writer != actor.name && p.revision > actor.base_revision {
                lost.push(LostUpdate {
                    object: object.to_string(),
                    path: path.to_string(),
                    writer: actor.name.clone(),
                    overwritten_writer: p.writer.clone(),
                    overwritten_revision: p.revision,
                    base_revision: actor.base_revision,
                    revision,
                });
            }
        }
    };
    for (path, v) in after.iter() {
        match before.get(path) {
            Some(old_v) if old_v == v => {
                if let Some(p) = prov.get(path) {
                    out.insert(path.clone(), p.clone());
                }
            }
            Some(old_v) => {
                if !keeps_every_element(old_v, v) {
                    check(path);
                }
                out.insert(path.clone(), fresh(actor, revision));
            }
            None => {
                out.insert(path.clone(), fresh(actor, revision));
            }
        }
    }
    for (path, _) in before.iter() {
        if !after.contains_key(path) {
            check(path);
        }
    }
    (out, lost)
}

/// `new` is an array holding every element of the array `old`, each as many times.
fn keeps_every_element(old: &Value, new: &Value) -> bool {
    let (Value::Array(old), Value::Array(new)) = (old, new) else {
        return false;
    };
    let mut taken = vec![false; new.len()];
    old.iter().all(|x| {
        let found = (0..new.len()).find(|&i| !taken[i] && new[i] == *x);
        if let Some(i) = found {
            taken[i] = true;
        }
        found.is_some()
    })
}

fn fresh(actor: &Actor, revision: u64) -> Provenance {
    Provenance {
        writer: actor.name.clone(),
        revision,
    }
}

/// The update a delete loses, if any (see the module docs).
pub(crate) fn lost_on_delete(
    writers: &VecMap<String, u64>,
    actor: &Actor,
    revision: u64,
    object: &str,
) -> Option<LostUpdate> {
    writers
        .iter()
        .filter(|(w, r)| **w != actor.name && **r > actor.base_revision)
        .max_by_key(|(_, r)| *r)
        .map(|(w, r)| LostUpdate {
            object: object.to_string(),
            path: String::new(),
            writer: actor.name.clone(),
            overwritten_writer: w.clone(),
            overwritten_revision: *r,
            base_revision: actor.base_revision,
            revision,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_array_that_keeps_every_element_loses_nothing() {
        let a = |v: Value| json!({"metadata": {"finalizers": v}});
        let prov = VecMap::from_vec(vec![(
            "metadata.finalizers".to_string(),
            Provenance {
                writer: "w".into(),
                revision: 2,
            },
        )]);
        let x = Actor {
            name: "x".into(),
            base_revision: 1,
        };
        let lost = |old: Value, new: Value| track(&prov, Some(&a(old)), &a(new), &x, 3, "o").1;
        assert!(lost(json!(["w"]), json!(["w", "x"])).is_empty());
        assert!(lost(json!(["w", "v"]), json!(["x", "v", "w"])).is_empty());
        assert_eq!(lost(json!(["w"]), json!(["x"])).len(), 1);
        assert_eq!(lost(json!(["w", "w"]), json!(["w", "x"])).len(), 1);
        assert_eq!(lost(json!(["w"]), json!("w")).len(), 1);
        let (p, _) = track(
            &prov,
            Some(&a(json!(["w"]))),
            &a(json!(["w", "x"])),
            &x,
            3,
            "o",
        );
        assert_eq!(p.get("metadata.finalizers").map(|p| p.revision), Some(3));
    }

    #[test]
    fn paths_in_scenario_syntax() {
        let obj = json!({"kind": "ConfigMap", "metadata": {"name": "x", "resourceVersion": "3",
            "labels": {"app": "a", "example.com/owner": "o"}},
            "data": {"key": "v", "app.properties": "p"}, "spec": {"list": [1, 2]}});
        let keys: Vec<String> = leaves(&obj).into_iter().map(|l| l.0).collect();
        assert_eq!(
            keys,
            vec![
                "data.key",
                "data[\"app.properties\"]",
                "metadata.labels.app",
                "metadata.labels[\"example.com/owner\"]",
                "spec.list",
            ]
        );
    }
}
