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
//! **Writes** (`pkg/registry/core/namespace`, checked against the reference kube-apiserver
//! v1.37.2: `reference/corpus/namespaces.json`):
//! - PUT, PATCH and apply of `/api/v1/namespaces/NAME` keep the old `spec` and `status`
//!   (`namespaceStrategy.PrepareForUpdate`); `…/status` keeps the old `spec`, defaults an empty
//!   phase to `Active` and refuses a phase that does not match `deletionTimestamp` (422,
//!   `ValidateNamespaceStatusUpdate`); `…/finalize` (PUT only) keeps the old `status` and is
//!   the one way to change `spec.finalizers`. Updates without a resourceVersion are allowed.
//!   A namespace that exists without a write (above) is written as it is read.
//! - DELETE (`REST.Delete` in `storage/storage.go`): `default`, `kube-system` and
//!   `kube-public` are refused by the NamespaceLifecycle admission (403 `this namespace may
//!   not be deleted`); the preconditions are checked against the namespace as read, with the
//!   registry's own texts; the first delete sets `deletionTimestamp` and phase `Terminating`
//!   (no grace period, no generation, nobody's managedFields) and answers the namespace; later
//!   ones answer it unchanged while `spec.finalizers` is not empty. The `kubernetes` finalizer
//!   is the namespace controller's (kube-controller-manager), which does not run here, as it
//!   does not beside the reference: a deleted namespace stays `Terminating` until a client
//!   empties `spec.finalizers` through `…/finalize` and `metadata.finalizers`, which deletes it
//!   (`ShouldDeleteNamespaceDuringUpdate`).
//! - A create in a `Terminating` namespace is refused by the NamespaceLifecycle admission (403,
//!   cause `NamespaceTerminating`), strict namespaces or not.

use super::meta;
#[cfg(feature = "api")]
use super::status::FieldError;
use super::{Entry, ObjectRef, Resource, Store};
use crate::rng::Rng;
use serde_json::{json, Value};

/// The namespaces a new cluster has.
pub(crate) const BUILTIN: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

#[cfg(feature = "api")]
/// The namespaces the NamespaceLifecycle admission never lets be deleted (k8s.io/apiserver
/// `pkg/admission/plugin/namespace/lifecycle/admission.go`, `Register`).
pub(crate) const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

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

/// The decoder's defaults (`SetDefaults_Namespace`: the name label once the name is known;
/// `SetDefaults_NamespaceStatus`: phase `Active` when empty).
pub(crate) fn default_object(obj: &mut Value) {
    if !meta::meta_str(obj, "name").is_empty() {
        default_labels(obj);
    }
    if let Some(o) = obj.as_object_mut() {
        let status = o
            .entry("status")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(s) = status.as_object_mut() {
            if s.get("phase")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                s.insert("phase".into(), "Active".into());
            }
        }
    }
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

/// `PrepareForCreate`: phase `Active`, and the `kubernetes` finalizer after the body's own.
pub(crate) fn prepare_for_create(obj: &mut Value) {
    let mut finalizers = spec_finalizers(obj);
    if !finalizers.iter().any(|f| f == KUBERNETES) {
        finalizers.push(KUBERNETES.into());
    }
    if let Some(o) = obj.as_object_mut() {
        o.insert("spec".into(), json!({ "finalizers": finalizers }));
        o.insert("status".into(), json!({"phase": "Active"}));
    }
}

/// The namespace controller's finalizer (`FinalizerKubernetes`).
const KUBERNETES: &str = "kubernetes";

/// `spec.finalizers`.
pub(crate) fn spec_finalizers(obj: &Value) -> Vec<String> {
    strings_at(obj, "/spec/finalizers")
}

/// The strings of the list at `pointer` (none when there is no list).
pub(crate) fn strings_at(obj: &Value, pointer: &str) -> Vec<String> {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(feature = "api")]
/// The strategies' `PrepareForUpdate` for the subresource `sub`: the main resource keeps the
/// old `spec` and `status`, `status` the old `spec`, `finalize` the old `status`.
pub(crate) fn prepare_for_update(sub: &str, old: &Value, obj: &mut Value) {
    let keep: &[&str] = match sub {
        "" => &["spec", "status"],
        "status" => &["spec"],
        _ => &["status"],
    };
    if let Some(o) = obj.as_object_mut() {
        for key in keep {
            match old.get(*key) {
                Some(v) => o.insert((*key).into(), v.clone()),
                None => o.shift_remove(*key),
            };
        }
    }
}

#[cfg(feature = "api")]
/// `ValidateNamespaceStatusUpdate` (the phase follows `deletionTimestamp`) and, for
/// `finalize`, `validateKubeFinalizerName` of each `spec.finalizers` name (k8s.io/kubernetes
/// `pkg/apis/core/validation/validation.go`).
pub(crate) fn validate_update(sub: &str, obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if sub == "status" {
        let phase = obj
            .pointer("/status/phase")
            .and_then(Value::as_str)
            .unwrap_or("");
        let deleting = obj.pointer("/metadata/deletionTimestamp").is_some();
        let (want, detail) = if deleting {
            (
                "Terminating",
                "may only be 'Terminating' if `deletionTimestamp` is not empty",
            )
        } else {
            (
                "Active",
                "may only be 'Active' if `deletionTimestamp` is empty",
            )
        };
        if phase != want {
            errs.push(FieldError::invalid("status.Phase", phase.into(), detail));
        }
    }
    if sub == "finalize" {
        for (i, f) in spec_finalizers(obj).iter().enumerate() {
            // `IsStandardFinalizerName`: a name without a `/` must be one of these.
            if !f.contains('/')
                && ![KUBERNETES, "orphan", "foregroundDeletion"].contains(&f.as_str())
            {
                errs.push(FieldError::invalid(
                    &format!("spec.finalizers[{i}]"),
                    f.as_str().into(),
                    "name is neither a standard finalizer name nor is it fully qualified",
                ));
            }
        }
    }
    errs
}

#[cfg(feature = "api")]
/// Whether a namespace is `Terminating`.
pub(crate) fn terminating(obj: &Value) -> bool {
    obj.pointer("/status/phase").and_then(Value::as_str) == Some("Terminating")
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

    /// Whether a namespace exists (built in, holding an object, or created). Binary searches
    /// only, one per resource the store holds (objects are sorted by resource, namespace and
    /// name): it runs for every create and for each request in a namespace, so its cost must
    /// not grow with the number of objects (issue #37: a scan made every request O(n)).
    pub fn namespace_exists(&self, name: &str) -> bool {
        let stored = ObjectRef {
            resource: Resource::Namespace,
            namespace: String::new(),
            name: name.to_string(),
        };
        if BUILTIN.contains(&name) || self.objects.contains_key(&stored) {
            return true;
        }
        let objects = self.objects.as_slice();
        let mut i = 0;
        while let Some((first, _)) = objects.get(i) {
            let res = &first.resource;
            let rest = &objects[i..];
            let at =
                rest.partition_point(|(r, _)| r.resource == *res && r.namespace.as_str() < name);
            if rest
                .get(at)
                .is_some_and(|(r, _)| r.resource == *res && r.namespace == name)
            {
                return true;
            }
            // The first object of the next resource.
            i += rest.partition_point(|(r, _)| r.resource == *res);
        }
        false
    }

    /// Stores a namespace that exists without a write (built in, or holding objects) as it is
    /// read, so that a write can update it; `true` when it did (the caller takes it out again
    /// if the write is refused, [`Store::unstore_namespace`]).
    pub(crate) fn store_implicit_namespace(&mut self, name: &str) -> bool {
        let r = ObjectRef {
            resource: Resource::Namespace,
            namespace: String::new(),
            name: name.to_string(),
        };
        if self.objects.contains_key(&r) || !self.namespace_exists(name) {
            return false;
        }
        let entry = Entry {
            object: implicit(name),
            managers: Vec::new(),
            provenance: Default::default(),
            writers: Default::default(),
        };
        self.objects.insert(r, entry);
        true
    }

    /// Takes out a namespace [`Store::store_implicit_namespace`] stored.
    pub(crate) fn unstore_namespace(&mut self, name: &str) {
        self.objects.remove(&ObjectRef {
            resource: Resource::Namespace,
            namespace: String::new(),
            name: name.to_string(),
        });
    }

    #[cfg(feature = "api")]
    /// Whether the namespace `name` is being terminated.
    pub(crate) fn namespace_terminating(&self, name: &str) -> bool {
        self.objects
            .get(&ObjectRef {
                resource: Resource::Namespace,
                namespace: String::new(),
                name: name.to_string(),
            })
            .is_some_and(|e| terminating(&e.object))
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
