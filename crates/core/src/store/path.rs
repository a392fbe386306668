//! Request paths: `/api/v1/namespaces/NS/{configmaps,secrets}[/NAME]`,
//! `/apis/apps/v1/namespaces/NS/deployments[/NAME[/status]]` (a Deployment's status
//! subresource), `/api/v1/namespaces/NAME/{status,finalize}` (a Namespace's),
//! `/apis/GROUP/v1/namespaces/NS/PLURAL[/NAME]` (GROUP has a dot), the lists of every namespace
//! (`/api/v1/configmaps`, `/api/v1/secrets`, `/apis/apps/v1/deployments`, `/apis/GROUP/v1/PLURAL`)
//! and the cluster-scoped Namespaces (`/api/v1/namespaces[/NAME]`), with the query parameters
//! `fieldManager`, `force`, `dryRun` and the list options (`labelSelector`, `fieldSelector`,
//! `limit`, `continue`, `resourceVersion`, `resourceVersionMatch`, `timeoutSeconds`); others are
//! ignored, as the apiserver's parameter decoder ignores them.
//!
//! Anything else is answered 404 `the server could not find the requested resource` with empty
//! details: the Status the apiserver gives for a resource it does not serve in a group version
//! (for a wholly unknown prefix the real server answers a plain-text `404 page not found`; a
//! Status body is the closest answer that stays JSON).

use super::status;
use super::{Resource, Response, API};

/// The query parameters of a request, raw (validated by the handler that uses them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub limit: Option<String>,
    pub continue_token: Option<String>,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
    pub timeout_seconds: Option<String>,
    /// Every `dryRun` value given.
    pub dry_run: Vec<String>,
    /// DeleteOptions given as query parameters (used when a DELETE has no body).
    pub grace_period_seconds: Option<String>,
    pub propagation_policy: Option<String>,
    pub orphan_dependents: Option<String>,
}

/// A parsed request target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTarget {
    pub resource: Resource,
    /// The request namespace: `""` for a cluster-scoped resource (Namespaces) and for a list of
    /// every namespace (`/api/v1/configmaps`).
    pub namespace: String,
    pub name: Option<String>,
    /// The subresource the request addresses: `""` (the object itself), `"status"`
    /// (`…/deployments/NAME/status`, `/api/v1/namespaces/NAME/status`) or `"finalize"`
    /// (`/api/v1/namespaces/NAME/finalize`).
    pub sub: &'static str,
    pub field_manager: Option<String>,
    /// `Some` when `force` was given at all (even `force=false`, as `PatchOptions.Force` is a
    /// pointer); the value is the parsed boolean.
    pub force: Option<bool>,
    pub query: Query,
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Go's `strconv.ParseBool`.
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// A namespaced resource of `group` by its plural (the registry: `kinds`).
fn namespaced(group: &str, plural: &str) -> Option<Resource> {
    Resource::for_plural(group, plural).filter(|r| !r.is_cluster_scoped())
}

/// Parses a request path (with its query string).
pub fn parse(full: &str) -> Result<RequestTarget, Response> {
    let (path, query) = match full.split_once('?') {
        Some((p, q)) => (p, q),
        None => (full, ""),
    };
    let segs: Vec<String> = path.split('/').map(percent_decode).collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    // (resource, namespace, the segments after the collection).
    let (resource, namespace, name): (Resource, &str, &[&str]) = match segs.as_slice() {
        ["", "api", "v1", "namespaces"] if API => (Resource::Namespace, "", &[]),
        ["", "api", "v1", "namespaces", ns] if API => {
            (Resource::Namespace, "", std::slice::from_ref(ns))
        }
        // A Namespace's subresources (`namespaces/status`, `namespaces/finalize`).
        ["", "api", "v1", "namespaces", _, "status" | "finalize"] if API => {
            (Resource::Namespace, "", &segs[4..])
        }
        ["", "api", "v1", "namespaces", ns, plural, rest @ ..] => match namespaced("", plural) {
            Some(r) if !ns.is_empty() => (r, *ns, rest),
            _ => return Err(status::path_not_found()),
        },
        ["", "api", "v1", plural] if API => match namespaced("", plural) {
            Some(r) => (r, "", &[]),
            None => return Err(status::path_not_found()),
        },
        ["", "apis", group, "v1", "namespaces", ns, plural, rest @ ..] if !ns.is_empty() => {
            match namespaced(group, plural) {
                Some(r) => (r, *ns, rest),
                None => return Err(status::path_not_found()),
            }
        }
        // (A group's `namespaces` segment is the namespaced layout's, never a plural.)
        ["", "apis", group, "v1", plural] if API && *plural != "namespaces" => {
            match namespaced(group, plural) {
                Some(r) => (r, "", &[]),
                None => return Err(status::path_not_found()),
            }
        }
        _ => return Err(status::path_not_found()),
    };
    let (name, sub) = match name {
        [] => (None, ""),
        [n] if !n.is_empty() => (Some((*n).to_string()), ""),
        // The subresources the store serves: the apiserver's `deployments/status`,
        // `namespaces/status` and `namespaces/finalize`.
        [n, "status"] if !n.is_empty() && resource == Resource::Deployment => {
            (Some((*n).to_string()), "status")
        }
        [n, s @ ("status" | "finalize")]
            if API && !n.is_empty() && resource == Resource::Namespace =>
        {
            (
                Some((*n).to_string()),
                if *s == "status" { "status" } else { "finalize" },
            )
        }
        // A custom resource's subresource its CRD does not define: apiextensions-apiserver's
        // `crdHandler` answers NotFound for the object (the reference kube-apiserver v1.37.2
        // does, reference/goldens), whether the object exists or not.
        [n, _] if API && !n.is_empty() && matches!(resource, Resource::Custom { .. }) => {
            return Err(status::not_found(&resource, n));
        }
        _ => return Err(status::path_not_found()),
    };
    let mut field_manager = None;
    let mut force = None;
    let mut q = Query::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = percent_decode(v);
        // Go's `url.Values` keeps every value; the apiserver's decoder reads the first one.
        let first = |slot: &mut Option<String>, v: String| {
            if slot.is_none() {
                *slot = Some(v);
            }
        };
        match k {
            "fieldManager" => field_manager = Some(v).filter(|m| !m.is_empty()),
            "force" => match parse_bool(&v) {
                Some(b) => force = Some(b),
                None => {
                    return Err(status::bad_request(&format!(
                        "strconv.ParseBool: parsing {}: invalid syntax",
                        status::quote(&v)
                    )))
                }
            },
            _ if !API => {}
            "labelSelector" => first(&mut q.label_selector, v),
            "fieldSelector" => first(&mut q.field_selector, v),
            "limit" => first(&mut q.limit, v),
            "continue" => first(&mut q.continue_token, v),
            "resourceVersion" => first(&mut q.resource_version, v),
            "resourceVersionMatch" => first(&mut q.resource_version_match, v),
            "timeoutSeconds" => first(&mut q.timeout_seconds, v),
            "dryRun" => q.dry_run.push(v),
            "gracePeriodSeconds" => first(&mut q.grace_period_seconds, v),
            "propagationPolicy" => first(&mut q.propagation_policy, v),
            "orphanDependents" => first(&mut q.orphan_dependents, v),
            _ => {}
        }
    }
    Ok(RequestTarget {
        resource,
        namespace: namespace.to_string(),
        name,
        sub,
        field_manager,
        force,
        query: q,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_shapes_and_query() {
        let t =
            parse("/api/v1/namespaces/default/configmaps/my-config?fieldManager=alice&force=true")
                .unwrap();
        assert_eq!(t.resource, Resource::ConfigMap);
        assert_eq!(t.name.as_deref(), Some("my-config"));
        assert_eq!(t.field_manager.as_deref(), Some("alice"));
        assert_eq!(t.force, Some(true));
        let t = parse("/apis/apps/v1/namespaces/ns/deployments").unwrap();
        assert_eq!(t.resource, Resource::Deployment);
        assert_eq!(t.name, None);
        let t = parse("/apis/example.com/v1/namespaces/team-a/widgets/w1").unwrap();
        assert_eq!(t.resource.group_resource(), "widgets.example.com");
        // The API server's paths exist with the `api` feature only (404 in the page).
        if !API {
            assert!(parse("/api/v1/namespaces/default/secrets/x").is_err());
            assert!(parse("/api/v1/configmaps").is_err());
            assert!(parse("/api/v1/namespaces/team-a").is_err());
        } else {
            assert_eq!(
                parse("/api/v1/namespaces/default/secrets/x")
                    .unwrap()
                    .resource,
                Resource::Secret
            );
            let t = parse("/api/v1/configmaps?limit=500&labelSelector=app%3Dweb").unwrap();
            assert_eq!((t.namespace.as_str(), t.name), ("", None));
            assert_eq!(t.query.limit.as_deref(), Some("500"));
            assert_eq!(t.query.label_selector.as_deref(), Some("app=web"));
            let t = parse("/api/v1/namespaces/team-a").unwrap();
            assert_eq!(t.resource, Resource::Namespace);
            assert_eq!(t.name.as_deref(), Some("team-a"));
            assert_eq!(parse("/api/v1/namespaces").unwrap().name, None);
            assert!(parse("/apis/apps/v1/deployments").is_ok());
            assert!(parse("/apis/example.com/v1/widgets").is_ok());
        }
        assert!(parse("/api/v1/pods").is_err());
        assert_eq!(parse("/api/v1/namespaces/a/status").is_ok(), API);
        assert_eq!(parse("/api/v1/namespaces/a/finalize").is_ok(), API);
        assert!(parse("/api/v1/namespaces/a/scale").is_err());
        assert!(parse("/apis/apps/v1/namespaces/default/replicasets/x").is_err());
        assert!(parse("/api/v1/namespaces/default/configmaps/a/b").is_err());
        let t = parse("/apis/apps/v1/namespaces/default/deployments/web/status").unwrap();
        assert_eq!((t.name.as_deref(), t.sub), (Some("web"), "status"));
        assert_eq!(
            parse("/apis/apps/v1/namespaces/default/deployments/web")
                .unwrap()
                .sub,
            ""
        );
        assert!(parse("/api/v1/namespaces/default/configmaps/a/status").is_err());
        assert!(parse("/apis/apps/v1/namespaces/default/deployments/web/scale").is_err());
        assert!(parse("/apis/apps/v1/namespaces/default/deployments//status").is_err());
        assert!(parse("/apis/example.com/v1/namespaces/default/widgets/w/status").is_err());
        assert!(parse("").is_err());
        assert!(parse("%%%?&&=").is_err());
        assert_eq!(
            parse("/api/v1/namespaces/d/configmaps?force=x")
                .unwrap_err()
                .code,
            400
        );
        assert_eq!(percent_decode("a%2Fb%"), "a/b%");
    }
}
