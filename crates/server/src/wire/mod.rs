//! The apiserver's wire documents that are not objects: discovery (aggregated v2 and legacy),
//! `/version`, OpenAPI v3, and the protobuf request bodies kubectl's typed client sends. Pure
//! functions of the request and the served resources; `../shared/docs/kubernetes-api-server.md`
//! §3–§5 is the reference.

use serde_json::Value;

pub mod discovery;
pub mod openapi;
pub mod protobuf;

/// A response that is not a store object: status code, `Content-Type`, body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub code: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON reply with `Content-Type: application/json`.
    pub fn json(code: u16, body: &Value) -> Reply {
        Reply::typed(code, "application/json", body)
    }

    /// A JSON body with another content type (aggregated discovery's, for one).
    pub fn typed(code: u16, content_type: &str, body: &Value) -> Reply {
        Reply {
            code,
            content_type: content_type.to_owned(),
            body: body.to_string().into_bytes(),
        }
    }
}

/// One resource type the server serves, as discovery and OpenAPI describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// `""` for the core group, `apps`, `example.com`.
    pub group: String,
    /// `v1`.
    pub version: String,
    /// The plural resource name: `configmaps`.
    pub resource: String,
    /// `configmap`.
    pub singular: String,
    /// `ConfigMap`.
    pub kind: String,
    /// Namespaced (`true`) or cluster-scoped (`namespaces`).
    pub namespaced: bool,
    /// `["cm"]`.
    pub short_names: Vec<String>,
    /// `["create", "delete", …]`, sorted as the apiserver lists them.
    pub verbs: Vec<String>,
}
