//! Who sent a request, and what each client has observed (the server parses the URL into a
//! [`UrlTarget`] and the query into pairs; the rest is here, pure).
//!
//! - **Name** (the trace's `client`, provenance's writer, a write's `Actor`): the `fieldManager`
//!   query parameter when there is one, else the User-Agent's product: `kubectl…` → `kubectl`,
//!   `OpenAPI-Generator/…/python` → `python`, `kube-rs…`/`kube/…` → `kube-rs`, else the first
//!   token up to its `/` (`curl/8.5.0` → `curl`); no User-Agent at all → `unknown`.
//! - **Program** (whose observations count): the User-Agent's product alone, so `kubectl edit`'s
//!   GET (no manager) and its PATCH (`fieldManager=kubectl-edit`) are one client. Two processes
//!   of one program with the same User-Agent are one client (docs/serve.md).
//! - **Observed revisions**, per program and object: the resourceVersion of every object a
//!   response carried (a GET, a write's answer, each list item, each watch event), and a
//!   delete's revision. A write's `Actor.base_revision` is that figure for its target (or the
//!   body's own `metadata.resourceVersion` when larger), so lost updates are found exactly as
//!   for scripted clients (docs/scenario-language.md, "Lost updates, precisely").

use crate::limits::MAX_TRACKED_CLIENTS;
use serde_json::Value;
use std::collections::BTreeMap;

/// The program name of a User-Agent.
pub fn program(user_agent: Option<&str>) -> String {
    let ua = user_agent.map(str::trim).unwrap_or("");
    let token = ua.split_whitespace().next().unwrap_or("");
    let product = token.split('/').next().unwrap_or("");
    if product.starts_with("kubectl") {
        "kubectl".into()
    } else if product == "OpenAPI-Generator" && token.ends_with("/python") {
        "python".into()
    } else if product == "kube-rs" || product == "kube" {
        "kube-rs".into()
    } else if product.is_empty() {
        "unknown".into()
    } else {
        product.into()
    }
}

/// The client name: the `fieldManager` when present (and not empty), else [`program`].
pub fn name(field_manager: Option<&str>, user_agent: Option<&str>) -> String {
    match field_manager {
        Some(m) if !m.is_empty() => m.into(),
        _ => program(user_agent),
    }
}

/// The apiserver's `prefixFromUserAgent`: the User-Agent up to its first `/`, the manager of a
/// write that names none (AS `handlers/create.go`).
pub fn manager_from_user_agent(user_agent: Option<&str>) -> String {
    user_agent
        .unwrap_or("")
        .split('/')
        .next()
        .unwrap_or("")
        .to_string()
}

/// The last value of a query parameter.
pub fn query_value<'q>(pairs: &'q [(String, String)], key: &str) -> Option<&'q str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// An object as the URL layout names it: group, plural resource, namespace (`""` for
/// cluster-scoped), name.
pub type ObjectKey = (String, String, String, String);

/// What a request path addresses, from the REST URL layout alone (no knowledge of which
/// resources exist: the store answers that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlTarget {
    /// One object.
    Object(ObjectKey),
    /// A collection: group, plural, namespace (`None`: every namespace, or cluster-scoped).
    Collection(String, String, Option<String>),
    Other,
}

/// The store's resource for a path's group and plural (the store's registry of kinds).
pub fn resource_of(group: &str, plural: &str) -> Option<rvlab_core::store::Resource> {
    rvlab_core::store::Resource::for_plural(group, plural)
}

/// The store's object a path names, when its resource is one the store serves.
pub fn object_of(key: &ObjectKey) -> Option<rvlab_core::store::ObjectRef> {
    Some(rvlab_core::store::ObjectRef {
        resource: resource_of(&key.0, &key.1)?,
        namespace: key.2.clone(),
        name: key.3.clone(),
    })
}

/// The Kind a path's resource holds (for the decode errors that name it).
pub fn kind_of(group: &str, plural: &str) -> Option<String> {
    resource_of(group, plural).map(|r| r.kind())
}

fn rv_of(obj: &Value) -> Option<u64> {
    obj.get("metadata")?
        .get("resourceVersion")?
        .as_str()?
        .parse()
        .ok()
}

fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The body's `metadata.resourceVersion`, when it is a number.
pub fn body_revision(body: Option<&Value>) -> Option<u64> {
    body.and_then(rv_of)
}

/// Observed revisions per program and object.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    by_program: BTreeMap<String, BTreeMap<ObjectKey, u64>>,
}

impl Observed {
    /// What `program` last observed of `key` (0: nothing).
    pub fn get(&self, program: &str, key: &ObjectKey) -> u64 {
        self.by_program
            .get(program)
            .and_then(|m| m.get(key))
            .copied()
            .unwrap_or(0)
    }

    fn set(&mut self, program: &str, key: ObjectKey, rv: u64) {
        if !self.by_program.contains_key(program) && self.by_program.len() >= MAX_TRACKED_CLIENTS {
            return;
        }
        self.by_program
            .entry(program.to_string())
            .or_default()
            .insert(key, rv);
    }

    /// Records what a response told `program` about the objects of `target`.
    pub fn record(
        &mut self,
        program: &str,
        target: &UrlTarget,
        code: u16,
        body: &Value,
        revision: Option<u64>,
    ) {
        if !(200..300).contains(&code) {
            return;
        }
        match target {
            UrlTarget::Object(key) => {
                if let Some(rv) = rv_of(body).or(revision) {
                    self.set(program, key.clone(), rv);
                }
            }
            UrlTarget::Collection(group, plural, ns) => {
                if let Some(items) = body.get("items").and_then(Value::as_array) {
                    for item in items {
                        self.record_item(program, group, plural, ns.as_deref(), item);
                    }
                } else {
                    // A create: the answer is the object.
                    self.record_item(program, group, plural, ns.as_deref(), body);
                }
            }
            UrlTarget::Other => {}
        }
    }

    /// Records one object of a collection (a list item, a created object, a watch event's).
    pub fn record_item(
        &mut self,
        program: &str,
        group: &str,
        plural: &str,
        ns: Option<&str>,
        item: &Value,
    ) {
        let name = meta_str(item, "name");
        if name.is_empty() {
            return;
        }
        let item_ns = meta_str(item, "namespace");
        let ns = if item_ns.is_empty() {
            ns.unwrap_or("")
        } else {
            item_ns
        };
        if let Some(rv) = rv_of(item) {
            self.set(
                program,
                (group.into(), plural.into(), ns.into(), name.into()),
                rv,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_real_clients() {
        assert_eq!(
            program(Some(
                "kubectl.1.32/v1.32.5 (linux/amd64) kubernetes/9894294"
            )),
            "kubectl"
        );
        assert_eq!(program(Some("kubectl/v1.30.13 (linux/amd64)")), "kubectl");
        assert_eq!(program(Some("OpenAPI-Generator/37.0.2/python")), "python");
        assert_eq!(program(Some("kube-rs/0.99")), "kube-rs");
        assert_eq!(program(Some("curl/8.5.0")), "curl");
        assert_eq!(program(Some("alice")), "alice");
        assert_eq!(program(None), "unknown");
        assert_eq!(program(Some("  ")), "unknown");
        assert_eq!(name(Some("bob"), Some("curl/8")), "bob");
        assert_eq!(name(Some(""), Some("curl/8")), "curl");
        assert_eq!(
            manager_from_user_agent(Some("kubectl.1.32/v1.32.5 (linux/amd64)")),
            "kubectl.1.32"
        );
        assert_eq!(
            manager_from_user_agent(Some("OpenAPI-Generator/37.0.2/python")),
            "OpenAPI-Generator"
        );
    }

    #[test]
    fn observations_per_program_and_object() {
        let mut o = Observed::default();
        let t = UrlTarget::Collection("".into(), "configmaps".into(), Some("default".into()));
        let list = serde_json::json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "105"},
            "items": [{"metadata": {"name": "a", "namespace": "default", "resourceVersion": "101"}}]});
        o.record("kubectl", &t, 200, &list, None);
        let key = ("".into(), "configmaps".into(), "default".into(), "a".into());
        assert_eq!(o.get("kubectl", &key), 101);
        assert_eq!(o.get("python", &key), 0);
        let conflict = serde_json::json!({"kind": "Status", "code": 409});
        o.record(
            "kubectl",
            &UrlTarget::Object(key.clone()),
            409,
            &conflict,
            None,
        );
        assert_eq!(o.get("kubectl", &key), 101);
    }
}
