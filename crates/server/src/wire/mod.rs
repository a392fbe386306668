//! The apiserver's wire documents that are not objects: discovery (aggregated v2 and legacy),
//! `/version`, OpenAPI v3, and the protobuf request bodies kubectl's typed client sends. Pure
//! functions of the request and the served resources, checked against the apiserver's own
//! documents (kubernetes/kubernetes `api/discovery/*.json`, `api/openapi-spec/v3`). Modules:
//! [`discovery`], [`openapi`], [`protobuf`].

use serde_json::Value;

pub mod discovery;
pub mod openapi;
pub mod protobuf;

/// A response that is not a store object: status code, `Content-Type`, body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub code: u16,
    /// Empty means the response has no `Content-Type` header at all (the apiserver's bare 404
    /// for an unknown OpenAPI group-version).
    pub content_type: String,
    pub body: Vec<u8>,
    /// Extra response headers (`ETag`, `Cache-Control`, `Location`), in order; usually empty.
    pub headers: Vec<(String, String)>,
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
            headers: Vec::new(),
        }
    }

    /// The apiserver's answer to a path no web service claims at all: an unknown group
    /// (`/apis/nope.io/v1`, and every path under it), a custom resource group's unknown
    /// version, `/openapi/v2` here. The request falls through the delegation chain to
    /// k8s.io/apiserver `pkg/util/notfoundhandler`, which calls Go's `http.NotFound`: the plain
    /// text `404 page not found`, not a Status (kubectl then prints its generic `the server
    /// could not find the requested resource`).
    pub fn page_not_found() -> Reply {
        Reply {
            code: 404,
            content_type: "text/plain; charset=utf-8".to_owned(),
            body: b"404 page not found\n".to_vec(),
            headers: vec![("X-Content-Type-Options".to_owned(), "nosniff".to_owned())],
        }
    }

    /// The same reply with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The apiserver's answer to a method a route does not have (go-restful's 405, written by
    /// the apiserver as `apierrors.NewGenericServerResponse(405, …)`): the MethodNotAllowed
    /// Status, `details` empty.
    pub fn method_not_allowed() -> Reply {
        Reply::json(
            405,
            &serde_json::json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "the server does not allow this method on the requested resource",
                "reason": "MethodNotAllowed",
                "details": {},
                "code": 405
            }),
        )
    }

    /// The apiserver's answer to a path under one of its go-restful web services that no route
    /// serves (`/api/v2`, `/api/v1/nope`, `/apis/apps/v2`): go-restful's 404 written as
    /// `apierrors.NewGenericServerResponse(404, …)` (k8s.io/apiserver `pkg/server/handler.go`,
    /// `serviceErrorHandler`): the NotFound Status, `the server could not find the requested
    /// resource`, `details` empty.
    pub fn not_found() -> Reply {
        Reply::json(
            404,
            &serde_json::json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "the server could not find the requested resource",
                "reason": "NotFound",
                "details": {},
                "code": 404
            }),
        )
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
    /// `["all"]` for deployments; empty for the others served here.
    pub categories: Vec<String>,
    /// The subresources served (`["status"]` for deployments), each with the verbs get,
    /// patch and update and the resource's own kind.
    pub subresources: Vec<String>,
}

/// The verbs of a resource with every REST operation (configmaps, secrets, deployments, a
/// custom resource), in the apiserver's (alphabetical) order.
const ALL_VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

impl Served {
    /// A scenario's custom resource `PLURAL.GROUP`: version `v1` (scenario-language.md),
    /// namespaced, no short names or categories, every verb, the singular the apiextensions
    /// apiserver defaults to (the lowercased kind).
    pub fn custom(plural: &str, group: &str, kind: &str) -> Served {
        Served {
            group: group.to_owned(),
            version: "v1".to_owned(),
            resource: plural.to_owned(),
            singular: kind.to_lowercase(),
            kind: kind.to_owned(),
            namespaced: true,
            short_names: Vec::new(),
            verbs: strings(&ALL_VERBS),
            categories: Vec::new(),
            subresources: Vec::new(),
        }
    }

    /// `v1` for the core group, `apps/v1` otherwise.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The legacy discovery's `storageVersionHash`: the apiserver's
    /// `discovery.StorageVersionHash(group, version, kind)` (k8s.io/apiserver
    /// `pkg/endpoints/discovery/storageversionhash.go`), the base64 of the first 8 bytes of the
    /// SHA-256 of `group/version/kind` of the *storage* version. The storage version of every
    /// resource served here is the served one (v1 / apps/v1; a CRD's single version), so this
    /// is the real value: the test checks it against the apiserver's `api__v1.json`
    /// (`qFsyl6wFWjQ=` for configmaps).
    pub fn storage_version_hash(&self) -> String {
        use base64::Engine as _;
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(format!("{}/{}/{}", self.group, self.version, self.kind));
        base64::engine::general_purpose::STANDARD.encode(&digest[..8])
    }
}

/// The built-in resources rvlab serves (the store's registry of kinds, `BUILT_IN`), as the real
/// apiserver (1.32) describes them in discovery: configmaps, secrets, namespaces (cluster-scoped) in the core group, deployments
/// in `apps/v1`, with its `deployments/status`. Other subresources (`deployments/scale`,
/// `namespaces/finalize`, …) are not listed: rvlab does not serve them.
pub fn builtins() -> Vec<Served> {
    use rvlab_core::store::{Resource, BUILT_IN};
    BUILT_IN
        .iter()
        .map(|b| {
            let mut served = Served {
                group: b.group.to_owned(),
                version: "v1".to_owned(),
                resource: b.plural.to_owned(),
                singular: b.singular.to_owned(),
                kind: b.kind.to_owned(),
                namespaced: b.namespaced,
                short_names: strings(b.short_names),
                verbs: strings(&ALL_VERBS),
                categories: Vec::new(),
                subresources: Vec::new(),
            };
            match b.resource {
                // Namespaces have no deletecollection (kubernetes/kubernetes
                // `api/discovery/api__v1.json`).
                Resource::Namespace => served.verbs.retain(|v| v != "deletecollection"),
                // The store serves a Deployment's status subresource (GET, PUT, PATCH).
                Resource::Deployment => {
                    served.categories = strings(&["all"]);
                    served.subresources = strings(&["status"]);
                }
                _ => {}
            }
            served
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(served: &'a [Served], resource: &str) -> &'a Served {
        served.iter().find(|s| s.resource == resource).unwrap()
    }

    #[test]
    fn builtins_are_the_apiservers() {
        let served = builtins();
        let names: Vec<_> = served.iter().map(|s| s.resource.as_str()).collect();
        assert_eq!(
            names,
            ["configmaps", "secrets", "namespaces", "deployments"]
        );
        let cm = find(&served, "configmaps");
        assert_eq!(
            (cm.group.as_str(), cm.version.as_str(), cm.kind.as_str()),
            ("", "v1", "ConfigMap")
        );
        assert_eq!(cm.short_names, ["cm"]);
        assert_eq!(cm.singular, "configmap");
        assert!(cm.namespaced);
        assert_eq!(
            cm.verbs,
            [
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch"
            ]
        );
        assert!(find(&served, "secrets").short_names.is_empty());
        let ns = find(&served, "namespaces");
        assert!(!ns.namespaced);
        assert_eq!(ns.short_names, ["ns"]);
        assert_eq!(
            ns.verbs,
            ["create", "delete", "get", "list", "patch", "update", "watch"]
        );
        let deploy = find(&served, "deployments");
        assert_eq!(deploy.group_version(), "apps/v1");
        assert_eq!(deploy.short_names, ["deploy"]);
        assert_eq!(deploy.categories, ["all"]);
        assert_eq!(cm.group_version(), "v1");
    }

    #[test]
    fn storage_version_hashes_are_the_apiservers() {
        // The values of the real apiserver's legacy discovery (kubernetes/kubernetes
        // `api/discovery/api__v1.json`, `apis__apps__v1.json`).
        let served = builtins();
        let hashes: Vec<_> = served
            .iter()
            .map(|s| (s.resource.as_str(), s.storage_version_hash()))
            .collect();
        assert_eq!(
            hashes,
            [
                ("configmaps", "qFsyl6wFWjQ=".to_owned()),
                ("secrets", "S6u1pOWzb84=".to_owned()),
                ("namespaces", "Q3oi5N2YM8M=".to_owned()),
                ("deployments", "8aSe+NMegvE=".to_owned()),
            ]
        );
    }

    #[test]
    fn custom_resource() {
        let w = Served::custom("widgets", "example.com", "Widget");
        assert_eq!(w.group_version(), "example.com/v1");
        assert_eq!(w.singular, "widget");
        assert!(w.namespaced && w.short_names.is_empty() && w.categories.is_empty());
        assert_eq!(w.verbs.len(), 8);
        assert_eq!(Reply::not_found().code, 404);
    }
}
