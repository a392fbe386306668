//! The versioned store: a pure model of the Kubernetes apiserver on etcd, driven by HTTP-shaped
//! requests and answering HTTP-shaped responses (see ../shared/docs/kubernetes-semantics.md).
//!
//! CONTRACT (the engine, the explorer and the page are written against these types):
//! - one global revision counter; every successful create / update / patch / delete of any object
//!   takes the next revision; `metadata.resourceVersion` is the decimal string of the revision of
//!   the object's last write; no-op writes keep the version;
//! - `Store::handle` never panics, on any request; every error is a Status body;
//! - `Store` is a value: `Clone + PartialEq + Eq + Hash`, no `HashMap`, nothing from the outside.

use crate::rng::Rng;
use serde_json::Value;

mod reference;
pub use reference::{ObjectRef, Resource};

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
    /// Query parameters understood: `fieldManager`, `force` (`true`/`false`).
    pub path: String,
    /// `Content-Type` of the body, when there is one: `application/json`,
    /// `application/merge-patch+json`, `application/json-patch+json`,
    /// `application/strategic-merge-patch+json`, `application/apply-patch+yaml` (the body is
    /// still given as JSON: JSON is YAML).
    pub content_type: Option<String>,
    pub body: Option<Value>,
}

/// Who sends a write, for provenance and lost-update detection (scenario-language.md §6).
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

/// An HTTP-shaped response.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub code: u16,
    /// Exactly the apiserver's JSON: the object, or the Status (field order as the apiserver's).
    pub body: Value,
}

/// A leaf field overwritten by a writer that had never read its current value (§6).
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
}
