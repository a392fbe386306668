//! Request paths: `/api/v1/namespaces/NS/configmaps[/NAME]`,
//! `/apis/apps/v1/namespaces/NS/deployments[/NAME]`,
//! `/apis/GROUP/v1/namespaces/NS/PLURAL[/NAME]` (GROUP has a dot), with the query parameters
//! `fieldManager` and `force`.
//!
//! Anything else is answered 404 `the server could not find the requested resource` with empty
//! details: the Status the apiserver gives for a resource it does not serve in a group version
//! (for a wholly unknown prefix the real server answers a plain-text `404 page not found`; a
//! Status body is the closest answer that stays JSON).

use super::status;
use super::{Resource, Response};

/// A parsed request target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub resource: Resource,
    pub namespace: String,
    pub name: Option<String>,
    pub field_manager: Option<String>,
    /// `Some` when `force` was given at all (even `force=false`, as `PatchOptions.Force` is a
    /// pointer); the value is the parsed boolean.
    pub force: Option<bool>,
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
fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Parses a request path (with its query string).
pub(crate) fn parse(full: &str) -> Result<Target, Response> {
    let (path, query) = match full.split_once('?') {
        Some((p, q)) => (p, q),
        None => (full, ""),
    };
    let segs: Vec<String> = path.split('/').map(percent_decode).collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let (resource, namespace, name) = match segs.as_slice() {
        ["", "api", "v1", "namespaces", ns, "configmaps", rest @ ..] => {
            (Resource::ConfigMap, *ns, rest)
        }
        ["", "apis", "apps", "v1", "namespaces", ns, "deployments", rest @ ..] => {
            (Resource::Deployment, *ns, rest)
        }
        ["", "apis", group, "v1", "namespaces", ns, plural, rest @ ..]
            if group.contains('.') && valid_segment(plural) && valid_segment(group) =>
        {
            (
                Resource::Custom {
                    plural: (*plural).to_string(),
                    group: (*group).to_string(),
                },
                *ns,
                rest,
            )
        }
        _ => return Err(status::path_not_found()),
    };
    if namespace.is_empty() {
        return Err(status::path_not_found());
    }
    let name = match name {
        [] => None,
        [n] if !n.is_empty() => Some((*n).to_string()),
        _ => return Err(status::path_not_found()),
    };
    let mut field_manager = None;
    let mut force = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = percent_decode(v);
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
            _ => {}
        }
    }
    Ok(Target {
        resource,
        namespace: namespace.to_string(),
        name,
        field_manager,
        force,
    })
}

fn valid_segment(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
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
        assert!(parse("/api/v1/namespaces/default/secrets/x").is_err());
        assert!(parse("/apis/apps/v1/namespaces/default/replicasets/x").is_err());
        assert!(parse("/api/v1/namespaces/default/configmaps/a/b").is_err());
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
