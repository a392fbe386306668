//! Namespaces (`/api/v1/namespaces[/NAME]`, cluster-scoped).
//!
//! Which exist: the four a cluster starts with (`default`, `kube-node-lease`, `kube-public`,
//! `kube-system`), every namespace an object of the store lives in, and the ones created with
//! `POST /api/v1/namespaces`. Only created ones are stored (they take a revision and an ADDED
//! event, like any write); the others are answered as the apiserver shows a namespace nobody
//! wrote since the cluster started, so a store without Namespace writes is exactly what it was
//! before Namespaces were served (every lesson and explorer count unchanged). Such a namespace
//! has `creationTimestamp` the epoch, a `uid` derived from its name (deterministic), **no
//! `resourceVersion`** (no write of this store made it) and no `managedFields`.
//!
//! The object (`pkg/registry/core/namespace/strategy.go`, `SetDefaults_Namespace`): the label
//! `kubernetes.io/metadata.name: NAME` (set whatever the body says), `spec.finalizers:
//! ["kubernetes"]`, `status.phase: Active`. The creator's `managedFields` own the label (set by
//! defaulting, before the field manager) but not `spec`/`status` (set by `PrepareForCreate`,
//! after it). The name must be a DNS label (`ValidateNamespaceName`, 422 with apimachinery's
//! text); a `metadata.namespace` in the body is cleared (`EnsureObjectNamespaceMatchesRequest
//! Namespace` for a cluster-scoped resource).
//!
//! **Strict namespaces** ([`Store::set_strict_namespaces`], off by default so every lesson
//! behaves as before; `rvlab serve` turns it on): a create (POST, or an apply that creates) in a
//! namespace that does not exist is the NamespaceLifecycle admission's 404 `namespaces "x" not
//! found` (the NotFound of its namespace lookup, returned as is), before validation.
//!
//! Not modelled: updating or deleting a Namespace (PUT, PATCH, DELETE answer 405), and with it
//! namespace termination and finalization.

use super::meta;
use super::{ObjectRef, Resource, Store};
use crate::rng::Rng;
use serde_json::{json, Value};

/// The namespaces a new cluster has.
pub(crate) const BUILTIN: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// The label every namespace carries with its own name.
pub(crate) const NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// A namespace that exists without a write of this store.
fn implicit(name: &str) -> Value {
    // FNV-1a of the name seeds the uid: deterministic, different per name.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let uid = Rng::new(h).uuid();
    json!({
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": {
            "name": name,
            "uid": uid,
            "creationTimestamp": meta::timestamp(0),
            "labels": {NAME_LABEL: name},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    })
}

/// `SetDefaults_Namespace` (and the strategy's `Canonicalize`): the name label.
pub(crate) fn default_labels(obj: &mut Value) {
    let name = meta::meta_str(obj, "name").to_string();
    let mut labels = obj
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.insert(NAME_LABEL.into(), name.into());
    meta::set_meta(obj, "labels", Value::Object(labels));
}

/// `PrepareForCreate`: the `kubernetes` finalizer and phase `Active`.
pub(crate) fn prepare_for_create(obj: &mut Value) {
    if let Some(o) = obj.as_object_mut() {
        o.insert("spec".into(), json!({"finalizers": ["kubernetes"]}));
        o.insert("status".into(), json!({"phase": "Active"}));
    }
}

impl Store {
    /// Makes creates in a namespace that does not exist fail as the apiserver's
    /// NamespaceLifecycle admission fails them (404 `namespaces "x" not found`). Off by default.
    pub fn set_strict_namespaces(&mut self, strict: bool) {
        self.strict_namespaces = strict;
    }

    /// Whether creates require an existing namespace.
    pub fn strict_namespaces(&self) -> bool {
        self.strict_namespaces
    }

    /// Whether a namespace exists (built in, holding an object, or created).
    pub fn namespace_exists(&self, name: &str) -> bool {
        BUILTIN.contains(&name)
            || self.objects.iter().any(|(r, _)| {
                if r.resource == Resource::Namespace {
                    r.name == name
                } else {
                    r.namespace == name
                }
            })
    }

    /// A namespace as GET answers it.
    pub(crate) fn namespace_object(&self, name: &str) -> Option<Value> {
        let stored = ObjectRef {
            resource: Resource::Namespace,
            namespace: String::new(),
            name: name.to_string(),
        };
        if let Some(e) = self.objects.get(&stored) {
            return Some(e.object.clone());
        }
        self.namespace_exists(name).then(|| implicit(name))
    }

    /// Every namespace, keyed by name (the list's etcd key), in no particular order.
    pub(crate) fn namespaces(&self) -> Vec<(String, Value)> {
        let mut names: Vec<String> = BUILTIN.iter().map(|s| s.to_string()).collect();
        for (r, _) in self.objects.iter() {
            let n = if r.resource == Resource::Namespace {
                &r.name
            } else {
                &r.namespace
            };
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        names
            .into_iter()
            .filter_map(|n| self.namespace_object(&n).map(|o| (n, o)))
            .collect()
    }
}
