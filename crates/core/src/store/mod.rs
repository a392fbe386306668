//! The versioned store: a pure model of the Kubernetes apiserver on etcd, driven by HTTP-shaped
//! requests and answering HTTP-shaped responses, as the apiserver's generic registry
//! (k8s.io/apiserver `pkg/registry/generic/registry/store.go`) on its etcd3 storage
//! (`pkg/storage/etcd3/store.go`) answers them.
//!
//! CONTRACT (the engine, the explorer and the page are written against these types):
//! - one global revision counter; every successful create / update / patch / delete of any object
//!   takes the next revision; `metadata.resourceVersion` is the decimal string of the revision of
//!   the object's last write; no-op writes keep the version;
//! - `Store::handle` never panics, on any request; every error is a Status body;
//! - a request writes at most one object, so [`Store::undo_point`] and [`Store::undo`] can
//!   take it back (a dry run; `rvlab serve`'s stale reads keep the undo of the last writes);
//! - `Store` is a value: `Clone + PartialEq + Eq + Hash`, no `HashMap`, nothing from the outside;
//! - `GET` on a collection path is a LIST (module `list`): one namespace
//!   (`/api/v1/namespaces/NS/configmaps`), every namespace (`/api/v1/configmaps`,
//!   `/api/v1/secrets`, `/apis/apps/v1/deployments`, `/apis/GROUP/v1/PLURAL`; LIST only, other
//!   methods 405) or the Namespaces; items in etcd key order, built-in items without
//!   `kind`/`apiVersion`, `metadata.resourceVersion` the store revision; `labelSelector`
//!   (module `selector`, public for watch filtering), `fieldSelector` (per-kind fields),
//!   `limit`/`continue`, `resourceVersion`/`resourceVersionMatch`, `timeoutSeconds`; the store
//!   keeps no history, so an older revision asked for exactly is 410, as if compacted;
//! - Secrets (core/v1): `stringData` merged into `data` (base64) on every write and never
//!   stored, `data` must be base64 (Go's decoder error, 400), `type` defaults to `Opaque` and is
//!   immutable;
//! - Namespaces (module `namespace`): the four built-in ones, every namespace an object lives
//!   in and created ones exist; only written ones are stored (so a store without Namespace
//!   writes is unchanged); updated, patched and applied (also through `status` and
//!   `finalize`) with their strategies; a DELETE marks one `Terminating` and keeps it, as the
//!   reference does without the namespace controller; a create in a `Terminating` namespace is
//!   403; [`Store::set_strict_namespaces`] (off by default: every lesson as before) makes a
//!   create in a missing namespace the NamespaceLifecycle 404;
//! - all of the above beyond the page's own needs (Secrets, Namespaces, every-namespace lists,
//!   list options, dry runs, DeleteOptions, GET with a resourceVersion) is behind the crate's
//!   `api` feature (`API`, on by default; the page builds without it, `rvlab-server` asks for
//!   it): without it those requests get what they got before, and the page's wasm does not grow
//!   (measured: about +1 kB gzip without it, +17 kB with it);
//! - the apiserver version the texts follow is `kubernetes-1.35.0` (apimachinery, apiserver)
//!   where a message changed between versions.
//!
//! Module map:
//! - this file: the contract types and [`Store`] (state, accessors);
//! - `handler`: [`Store::handle`], GET/POST/PUT/PATCH/DELETE in the apiserver's order of checks
//!   (k8s.io/apiserver `pkg/endpoints/handlers`, then the registry above), and a Deployment's status
//!   subresource (`…/deployments/NAME/status`, the status strategy);
//! - `path`: request paths and query parameters (`fieldManager`, `force`, `dryRun`, the list
//!   options); unknown paths are 404;
//! - `list`: LIST, its options, paging and continue tokens;
//! - `selector`: label and field selectors (public: [`selector::parse`], [`selector::Selector`]);
//! - `namespace`: Namespaces and strict namespaces;
//! - `defaults`: a Deployment's defaults (`SetDefaults_Deployment`, the pod template's), as the
//!   apiserver's decoder fills them;
//! - `base64`: Go's standard base64 (Secret `data`);
//! - `bounds` (`api` feature): the apiserver's size limits (annotations, a ConfigMap's and a
//!   Secret's data) and the deletion fields only a DELETE sets;
//! - `status`: Status bodies ([`status_reason`], [`is_conflict`] are public);
//! - `meta`: timestamps, resourceVersion parsing, JSON field order, decoding (400) and
//!   validation (422) checks, `generation`;
//! - `patch`: JSON, merge and strategic merge patches; `strategic`: apimachinery's strategic
//!   merge patch (apply) on `schema`'s facts;
//! - `fields`: `managedFields` (FieldsV1) and server-side apply;
//! - `provenance`: who wrote each leaf, and lost updates (docs/scenario-language.md, "Lost updates, precisely");
//! - `strict`: `fieldValidation` (unknown fields: Strict 400/422, Warn warnings, Ignore);
//! - [`table`]: `meta.k8s.io/v1` Tables for `kubectl get` (the server's lane calls it);
//! - `kinds`: the registry of served kinds ([`Resource`], [`BUILT_IN`]) and the one rule for
//!   custom resources; every lookup by plural, type or name goes through it;
//! - `reference`: [`ObjectRef`], and the REST paths and etcd keys it maps to;
//! - `options`: DeleteOptions (preconditions, propagation, grace period, dry run);
//! - [`etcd`] (`api` feature): the apiserver's storage layer as data (registry keys, stored
//!   values, a store rebuilt from an etcd read);
//! - [`strategic_create`]: strategic merge patch creation (two-way, three-way), the client-side
//!   algorithm of `kubectl apply` and `edit`.
//!
//! Decisions the facts leave open are documented where they are made (module docs of each
//! submodule); the main ones: `managedFields` sent in a body are ignored (the store keeps its
//! own), a missing `fieldManager` falls back to the actor's name, custom resources print with
//! every key sorted (as `unstructured` objects do), DELETE answers `finalizeDelete`'s Status for every
//! kind when it deletes (an object with finalizers is marked and answered, `handler`), and
//! provenance treats arrays as single leaves. Defaulting is a Deployment's (module
//! `defaults`), a Secret's `type` and a Namespace's name label. Not modelled: other kinds'
//! defaulting, the full Deployment validation (only `spec.replicas >= 0`), immutable
//! ConfigMaps and Secrets, Secret type-specific keys and key names, graceful deletion (only
//! Pods delete gracefully; no served kind does), the namespace controller (a deleted
//! Namespace stays `Terminating`, its objects stay).
//! Where the model and the reference kube-apiserver still differ is listed in
//! `reference/known-differences.json` (docs/reference.md).

use crate::json::{hash_value, same_value};

/// The API server's surface beyond what the page uses (Secrets, Namespaces, every-namespace
/// lists and list options, dry runs, DeleteOptions, GET with a resourceVersion, the
/// `fieldValidation` schema of unknown fields): on with the
/// crate's `api` feature (default; `rvlab-server` asks for it, the page does not). Off, those
/// requests get what they got before (404 for the paths, options ignored), and the optimizer
/// drops the code from the page's wasm (docs/size.md: the page does not pay for the server).
pub const API: bool = cfg!(feature = "api");
use crate::rng::Rng;
use crate::vecmap::VecMap;
use serde_json::Value;
use std::hash::{Hash, Hasher};

mod base64;
#[cfg(feature = "api")]
mod bounds;
mod defaults;
#[cfg(feature = "api")]
pub mod etcd;
mod fields;
mod handler;
mod kinds;
pub mod list;
pub mod meta;
mod namespace;
mod options;
pub mod patch;
pub mod path;
mod provenance;
mod reference;
pub mod schema;
pub mod selector;
pub mod status;
pub mod strategic;
// Strategic merge patch creation for the scenarios' kubectl (issue #14).
pub mod strategic_create;
mod strict;
pub mod table;

#[cfg(feature = "symmetry")]
pub use fields::rename_managed;
pub use kinds::{served_built_ins, BuiltIn, Resource, BUILT_IN};
pub use list::{list_filter, ListFilter};
pub use patch::PatchType;
pub use provenance::join_path;
pub use reference::ObjectRef;
pub use status::{is_conflict, is_conflict_reason, status_reason};

/// An HTTP method the store serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    /// The method as it appears on the wire (`GET`, `PUT`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// A request as a client sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: Method,
    /// The path with its query string, e.g.
    /// `/api/v1/namespaces/default/configmaps/my-config?fieldManager=alice`.
    /// POST goes to the collection (`…/configmaps?fieldManager=alice`).
    /// Query parameters understood: `fieldManager`, `force` (`true`/`false`), `dryRun`, and on
    /// a collection GET `labelSelector`, `fieldSelector`, `limit`, `continue`,
    /// `resourceVersion`, `resourceVersionMatch`, `timeoutSeconds` (others are ignored).
    pub path: String,
    /// `Content-Type` of the body, when there is one: `application/json`,
    /// `application/merge-patch+json`, `application/json-patch+json`,
    /// `application/strategic-merge-patch+json`, `application/apply-patch+yaml` (the body is
    /// still given as JSON: JSON is YAML).
    pub content_type: Option<String>,
    pub body: Option<Value>,
}

/// Who sends a write, for provenance and lost-update detection (docs/scenario-language.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The writer's name as provenance records it (a client's name, or `setup`).
    pub name: String,
    /// The revision of the object this writer last observed (the write's base).
    pub base_revision: u64,
}

/// What the environment lends a request: the virtual clock and the run's one generator (uids).
#[derive(Debug)]
pub struct Env<'a> {
    /// Virtual milliseconds since the run's epoch (timestamps are `EPOCH` + this).
    pub now_ms: u64,
    pub rng: &'a mut Rng,
}

/// The fixed epoch object timestamps count from: 2026-01-01T00:00:00Z, in Unix seconds.
pub const EPOCH_UNIX_SECONDS: i64 = 1_767_225_600;

/// The Kubernetes release the store models and is checked against: the reference
/// kube-apiserver's (`reference/kubernetes/go.mod`, docs/reference.md; a test keeps them one).
pub const KUBERNETES_RELEASE: &str = "v1.37.2";

/// An HTTP-shaped response.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub code: u16,
    /// Exactly the apiserver's JSON: the object, or the Status (field order as the apiserver's).
    pub body: Value,
}

/// A leaf field overwritten by a writer that had never read its current value (docs/scenario-language.md, "Lost updates, precisely").
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LostUpdate {
    /// The object, as `configmap/my-config` (short resource name, namespace omitted when `default`).
    pub object: String,
    /// The field in scenario-language path syntax, e.g. `data.key` or `data["app.properties"]`.
    /// The whole object (`""`) for a delete.
    pub path: String,
    /// Who made the write that lost the change.
    pub writer: String,
    /// Whose change was lost, and the revision at which it was made.
    pub overwritten_writer: String,
    pub overwritten_revision: u64,
    /// The revision the writer had observed.
    pub base_revision: u64,
    /// The revision of the losing write.
    pub revision: u64,
}

/// The kind of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

/// One entry of the store's event log (the server's lane).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WatchEvent {
    pub kind: EventType,
    pub object: String,
    pub revision: u64,
    pub writer: String,
}

/// Who set a leaf field's current value, and at which revision.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Provenance {
    pub writer: String,
    pub revision: u64,
}

/// The result of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub response: Response,
    /// The revision this request wrote, when it changed the store.
    pub revision: Option<u64>,
    pub lost_updates: Vec<LostUpdate>,
    /// The apiserver's warnings for this request, each the text of one `Warning: 299 - "…"`
    /// header (e.g. `unknown field "spec.foo"` under `fieldValidation=Warn`, the default).
    pub warnings: Vec<String>,
}

impl Outcome {
    fn failed(response: Response) -> Outcome {
        Outcome {
            response,
            revision: None,
            lost_updates: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// One stored object with its bookkeeping. Compared as it is hashed (the object by
/// [`same_value`], which agrees with [`hash_value`]).
#[derive(Debug, Clone)]
struct Entry {
    /// The object exactly as GET returns it (managedFields rendered).
    object: Value,
    managers: Vec<fields::Manager>,
    /// By path.
    provenance: VecMap<String, Provenance>,
    /// The revision of each writer's last write to this object (for lost deletes), by writer.
    writers: VecMap<String, u64>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        same_value(&self.object, &other.object)
            && self.managers == other.managers
            && self.provenance == other.provenance
            && self.writers == other.writers
    }
}

impl Eq for Entry {}

impl Hash for Entry {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_value(&self.object, state);
        self.managers.hash(state);
        self.provenance.hash(state);
        self.writers.hash(state);
    }
}

/// The store: objects, the revision counter and the event log. A value (`Clone + Eq + Hash`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Store {
    /// The revision of the last write (0 before any).
    revision: u64,
    /// The lowest revision the next write may take (`advance_to`).
    next_floor: u64,
    objects: Objects,
    events: Vec<WatchEvent>,
    /// Creates need an existing namespace (`set_strict_namespaces`).
    strict_namespaces: bool,
}

/// How to undo one served request ([`Store::undo_point`], [`Store::undo`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    revision: u64,
    next_floor: u64,
    /// The target and its entry before the request (`None`: it was absent).
    target: Option<(ObjectRef, Option<Entry>)>,
    /// A POST to a collection: the reference with an empty name, named once the answer says
    /// what was created ([`Undo::completed`]).
    collection: Option<ObjectRef>,
}

impl Undo {
    /// Notes what the request created, from its answer (a POST names its object only there).
    pub fn completed(&mut self, out: &Outcome) {
        let Some(mut r) = self.collection.take() else {
            return;
        };
        if out.revision.is_none() {
            return;
        }
        if let Some(name) = out
            .response
            .body
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
        {
            r.name = name.to_string();
            self.target = Some((r, None));
        }
    }

    /// The revision before the request.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The object the request wrote, if any.
    pub fn object(&self) -> Option<&ObjectRef> {
        self.target.as_ref().map(|(r, _)| r)
    }
}

/// The stored objects by reference, in reference order (a [`VecMap`], not one more `BTreeMap`
/// type in the page: docs/size.md).
type Objects = VecMap<ObjectRef, Entry>;

impl Store {
    /// An empty store at revision 0.
    pub fn new() -> Store {
        Store::default()
    }

    /// The revision of the last write (etcd's header revision).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Makes the next write take revision `rev` (`object … at resourceVersion N`); `rev` must be
    /// larger than the current revision.
    pub fn advance_to(&mut self, rev: u64) -> Result<(), String> {
        if rev <= self.revision {
            return Err(format!(
                "resourceVersion {rev} must be larger than the current revision {}",
                self.revision
            ));
        }
        self.next_floor = rev;
        Ok(())
    }

    /// Takes the next revision.
    fn take_revision(&mut self) -> u64 {
        let rev = self.revision.saturating_add(1).max(self.next_floor);
        self.revision = rev;
        self.next_floor = 0;
        rev
    }

    /// The object exactly as GET returns it.
    pub fn get(&self, r: &ObjectRef) -> Option<&Value> {
        self.objects.get(r).map(|e| &e.object)
    }

    /// The object's `metadata.resourceVersion` as a number (the revision of its last write).
    pub fn resource_version(&self, r: &ObjectRef) -> Option<u64> {
        let rv = self
            .get(r)?
            .get("metadata")?
            .get("resourceVersion")?
            .as_str()?;
        rv.parse().ok()
    }

    /// Every stored object, ordered by resource (ConfigMaps, Deployments, Secrets, created
    /// Namespaces, then custom resources by plural and group), namespace and name.
    pub fn objects(&self) -> impl Iterator<Item = (&ObjectRef, &Value)> + '_ {
        self.objects.iter().map(|(r, e)| (r, &e.object))
    }

    /// The event log: one ADDED / MODIFIED / DELETED per accepted, effective write.
    pub fn events(&self) -> &[WatchEvent] {
        &self.events
    }

    /// The store with every name `rename` maps replaced: field managers (and
    /// `managedFields` sorted again, as the order depends on the names), the writers of
    /// provenance and of the lost-delete bookkeeping. It is what the same history leaves with
    /// those clients' names swapped, but for the event log, which it leaves empty (the
    /// explorer's symmetry reduction, `explore::scenario`, drops it anyway).
    #[cfg(feature = "symmetry")]
    pub fn renamed(&self, rename: &dyn Fn(&str) -> Option<String>) -> Store {
        let name = |n: &mut String| {
            if let Some(new) = rename(n) {
                *n = new;
            }
        };
        let mut out = self.clone();
        for e in out.objects.values_mut() {
            fields::rename_managed(&mut e.object, rename);
            for m in &mut e.managers {
                name(&mut m.name);
            }
            for p in e.provenance.values_mut() {
                name(&mut p.writer);
            }
            // Keyed by the name: sorted again.
            let writers = std::mem::take(&mut e.writers);
            e.writers = VecMap::from_vec(
                writers
                    .into_iter()
                    .map(|(mut w, r)| {
                        name(&mut w);
                        (w, r)
                    })
                    .collect(),
            );
        }
        out.events.clear();
        out
    }

    /// Forgets all but the newest `keep` events of the log, in batches (when it holds twice
    /// that), so a long-running server's log is bounded at O(1) amortised per write. The log is
    /// read only to narrate who wrote an object since a client read it.
    pub fn keep_recent_events(&mut self, keep: usize) {
        if self.events.len() > keep.saturating_mul(2).max(1) {
            let extra = self.events.len() - keep;
            self.events.drain(..extra);
        }
    }

    /// Forgets the event log. The log is history only (no request reads it); the explorer
    /// clears it so that a world's value is its state, not the order of writes that made it.
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// Who set each tracked leaf of an object, by scenario-language path (see `provenance`),
    /// sorted by path.
    pub fn provenance(&self, r: &ObjectRef) -> Option<&[(String, Provenance)]> {
        self.objects.get(r).map(|e| e.provenance.as_slice())
    }

    /// Who set the leaf at `path` (scenario-language syntax) of an object.
    pub fn provenance_at(&self, r: &ObjectRef, path: &str) -> Option<&Provenance> {
        self.objects.get(r)?.provenance.get(path)
    }
}
