//! The apiserver's storage layer on etcd, as data (issue #17; `rvlab serve --etcd`,
//! docs/serve.md "On etcd"; k8s.io/apiserver `pkg/storage/etcd3/store.go`). Pure: the server sends the
//! transactions, this module says what they are.
//! - an object lives at its registry key ([`registry_key`]): `/registry/configmaps/NS/NAME`,
//!   `/registry/deployments/NS/NAME`, `/registry/secrets/NS/NAME`, `/registry/namespaces/NAME`,
//!   a custom resource under its group, `/registry/GROUP/PLURAL/NS/NAME`;
//! - the value is the object as JSON without its `resourceVersion` ([`stored_value`],
//!   `PrepareObjectForStorage`); the resourceVersion is the key's `mod_revision`, and a store's
//!   revision (a LIST's resourceVersion) is the header revision of the read;
//! - [`Store::from_etcd`] rebuilds a store from what a read returned, so a request is served by
//!   the same [`Store::handle`] as on the model; [`Store::written`] is the one key the request
//!   changed, which the server puts (or deletes) in a transaction comparing the key's
//!   `mod_revision` with the one it read (0: absent), and [`stamp`] gives the answer the
//!   revision etcd gave the write.
//!
//! What a store rebuilt this way does not have: provenance and the writers of each object
//! (who set which field: lost updates are the model's, not etcd's) and the event log.

use super::fields;
use super::meta::{canonicalize, meta_str, set_meta};
use super::{Entry, ObjectRef, Resource, Store};
use serde_json::Value;

/// The prefix every object's key starts with (one range over it reads the whole registry).
pub const REGISTRY: &str = "/registry/";

/// The object's key in etcd, as the apiserver names it ([`ObjectRef::registry_key`]).
pub fn registry_key(r: &ObjectRef) -> String {
    r.registry_key()
}

/// The object a registry key names; `None` for a key this store does not serve.
pub fn parse_key(key: &str) -> Option<ObjectRef> {
    let parts: Vec<&str> = key.strip_prefix(REGISTRY)?.split('/').collect();
    // The apiserver's layout: `/registry/PLURAL/[NS/]NAME` for the core and `apps` groups (its
    // built-in storage prefixes), `/registry/GROUP/PLURAL/NS/NAME` for a custom resource.
    let (resource, namespace, name) = match parts.as_slice() {
        [plural, name] => (Resource::for_plural("", plural)?, "", *name),
        [plural, ns, name] => (
            super::served_built_ins()
                .find(|b| b.namespaced && b.plural == *plural)?
                .resource
                .clone(),
            *ns,
            *name,
        ),
        [group, plural, ns, name] => (Resource::custom(group, plural)?, *ns, *name),
        _ => return None,
    };
    if name.is_empty() || (namespace.is_empty() && !resource.is_cluster_scoped()) {
        return None;
    }
    Some(ObjectRef {
        resource,
        namespace: namespace.to_string(),
        name: name.to_string(),
    })
}

/// The value etcd keeps for an object: the object without its resourceVersion.
pub fn stored_value(object: &Value) -> Value {
    let mut v = object.clone();
    set_meta(&mut v, "resourceVersion", Value::Null);
    v
}

/// Gives an answer (an object, a List or a Status) the revision etcd gave the write: the
/// object's `metadata.resourceVersion`, where it has one.
pub fn stamp(body: &mut Value, revision: u64) {
    if body.get("kind").and_then(Value::as_str) == Some("Status") {
        return;
    }
    if !meta_str(body, "resourceVersion").is_empty() {
        set_meta(body, "resourceVersion", revision.to_string().into());
    }
}

/// The one key a served write changed: its new value (`None`: deleted).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub object: ObjectRef,
    pub key: String,
    /// The value to put ([`stored_value`]); `None` for a delete.
    pub value: Option<Value>,
}

impl Store {
    /// A store holding what an etcd read returned, at the read's header revision: each item a
    /// registry key, the stored value and the key's `mod_revision`. An error names a key this
    /// store cannot serve (not a registry key of a served resource, not a JSON object, or
    /// managedFields it could not have written).
    pub fn from_etcd(
        header_revision: u64,
        kvs: impl IntoIterator<Item = (String, Value, u64)>,
    ) -> Result<Store, String> {
        let mut store = Store {
            revision: header_revision,
            ..Store::default()
        };
        for (key, value, mod_revision) in kvs {
            store.put_etcd(&key, value, mod_revision)?;
        }
        Ok(store)
    }

    /// Puts one key as etcd holds it (a read's, or a watch event's), returning the object and
    /// what was there before (the store's revision is left alone: [`Store::at_revision`]).
    pub fn put_etcd(
        &mut self,
        key: &str,
        value: Value,
        mod_revision: u64,
    ) -> Result<(ObjectRef, Option<Value>), String> {
        let Some(r) = parse_key(key) else {
            return Err(format!("{key}: not an object rvlab serves"));
        };
        if !value.is_object() {
            return Err(format!("{key}: the value is not a JSON object"));
        }
        let mut object = value;
        set_meta(
            &mut object,
            "resourceVersion",
            mod_revision.to_string().into(),
        );
        let object = canonicalize(&r.resource, &object);
        let managed = object.get("metadata").and_then(|m| m.get("managedFields"));
        let managers = match managed {
            None => Vec::new(),
            Some(m) => fields::parse_managed(m)
                .ok_or_else(|| format!("{key}: managedFields rvlab cannot read"))?,
        };
        let entry = Entry {
            object,
            managers,
            provenance: Default::default(),
            writers: Default::default(),
        };
        let prev = self.objects.remove(&r).map(|e| e.object);
        self.objects.insert(r.clone(), entry);
        Ok((r, prev))
    }

    /// Deletes one key (a watch event's): the object and what it was.
    pub fn delete_etcd(&mut self, key: &str) -> Option<(ObjectRef, Value)> {
        let r = parse_key(key)?;
        let prev = self.objects.remove(&r)?.object;
        Some((r, prev))
    }

    /// Sets the store's revision (etcd's header revision after the events applied).
    pub fn at_revision(&mut self, revision: u64) {
        self.revision = revision;
    }

    /// The objects whose listed `metadata.managedFields` is not what the store's own field
    /// managers render: none in a consistent store (a store rebuilt from etcd parses the list
    /// back into managers, in the listed order).
    pub fn inconsistent_managed_fields(&self) -> Vec<ObjectRef> {
        self.objects
            .iter()
            .filter(|(_, e)| {
                let listed = e.object["metadata"].get("managedFields").cloned();
                listed.unwrap_or(Value::Array(vec![])) != fields::render(&e.managers)
            })
            .map(|(r, _)| r.clone())
            .collect()
    }

    /// The key a write that took `revision` changed, `self` being the store after it and
    /// `before` the store it was served on (a served request writes one object at most).
    pub fn written(&self, before: &Store, revision: u64) -> Option<Written> {
        let rv = revision.to_string();
        if let Some((r, e)) = self
            .objects
            .iter()
            .find(|(_, e)| meta_str(&e.object, "resourceVersion") == rv)
        {
            return Some(Written {
                object: r.clone(),
                key: registry_key(r),
                value: Some(stored_value(&e.object)),
            });
        }
        let (r, _) = before
            .objects
            .iter()
            .find(|(r, _)| !self.objects.contains_key(*r))?;
        Some(Written {
            object: r.clone(),
            key: registry_key(r),
            value: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Actor, Env, Method, Request};

    fn cm(ns: &str, name: &str) -> ObjectRef {
        ObjectRef {
            resource: Resource::ConfigMap,
            namespace: ns.into(),
            name: name.into(),
        }
    }

    #[test]
    fn keys_are_the_apiservers_and_read_back() {
        let widget = ObjectRef {
            resource: Resource::Custom {
                plural: "widgets".into(),
                group: "example.com".into(),
            },
            namespace: "team-a".into(),
            name: "w".into(),
        };
        let ns = ObjectRef {
            resource: Resource::Namespace,
            namespace: String::new(),
            name: "team-a".into(),
        };
        let dep = ObjectRef {
            resource: Resource::Deployment,
            ..cm("default", "web")
        };
        for (r, key) in [
            (
                cm("default", "my-config"),
                "/registry/configmaps/default/my-config",
            ),
            (dep, "/registry/deployments/default/web"),
            (widget, "/registry/example.com/widgets/team-a/w"),
            (ns, "/registry/namespaces/team-a"),
        ] {
            assert_eq!(registry_key(&r), key);
            assert_eq!(parse_key(key), Some(r));
        }
        for bad in [
            "/registry/pods/default/p",
            "/registry/configmaps/default",
            "/registry/configmaps//x",
            "/other/configmaps/default/x",
        ] {
            assert_eq!(parse_key(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_write_names_its_key_and_value_and_a_delete_its_key() {
        let mut rng = crate::rng::Rng::new(0);
        let actor = Actor {
            name: "alice".into(),
            base_revision: 0,
        };
        let mut store = Store::from_etcd(7, []).unwrap();
        let before = store.clone();
        let create = Request {
            method: Method::Post,
            path: "/api/v1/namespaces/default/configmaps".into(),
            content_type: Some("application/json".into()),
            body: Some(serde_json::json!({"metadata": {"name": "c"}, "data": {"k": "v"}})),
        };
        let out = store.handle(
            &create,
            &actor,
            &mut Env {
                now_ms: 0,
                rng: &mut rng,
            },
        );
        assert_eq!(out.revision, Some(8));
        let w = store.written(&before, 8).expect("a write");
        assert_eq!(w.key, "/registry/configmaps/default/c");
        let value = w.value.expect("a put");
        assert_eq!(meta_str(&value, "resourceVersion"), "");
        assert_eq!(value["data"]["k"], "v");
        let mut body = out.response.body;
        stamp(&mut body, 42);
        assert_eq!(meta_str(&body, "resourceVersion"), "42");
        let before = store.clone();
        let delete = Request {
            method: Method::Delete,
            path: "/api/v1/namespaces/default/configmaps/c".into(),
            content_type: None,
            body: None,
        };
        let out = store.handle(
            &delete,
            &actor,
            &mut Env {
                now_ms: 0,
                rng: &mut rng,
            },
        );
        let rev = out.revision.expect("a delete writes");
        let w = store.written(&before, rev).expect("a delete");
        assert_eq!(
            (w.key.as_str(), w.value),
            ("/registry/configmaps/default/c", None)
        );
    }
}
