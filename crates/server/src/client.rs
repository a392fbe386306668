//! The HTTP side of naming a request: the URL's [`UrlTarget`] (percent-decoded path segments)
//! and the query's pairs. Client names, programs and observed revisions are the instruments'
//! (`rvlab_instruments::client`, re-exported here).

pub use rvlab_instruments::client::{
    kind_of, manager_from_user_agent, name, object_of, program, query_value, resource_of, UrlTarget,
};

/// The query parameters, decoded (`application/x-www-form-urlencoded`), in order.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Parses `/api/v1/...` and `/apis/G/V/...` (path without query; segments percent-decoded).
pub fn target(path: &str) -> UrlTarget {
    let segs: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let (group, rest) = match segs.first().map(String::as_str) {
        Some("api") if segs.len() >= 2 => (String::new(), &segs[2..]),
        Some("apis") if segs.len() >= 3 => (segs[1].clone(), &segs[3..]),
        _ => return UrlTarget::Other,
    };
    let r: Vec<&str> = rest.iter().map(String::as_str).collect();
    match r.as_slice() {
        ["namespaces", ns, plural] => {
            UrlTarget::Collection(group, (*plural).into(), Some((*ns).into()))
        }
        // An object's status subresource addresses the object (its revisions, its kind).
        ["namespaces", ns, plural, name] | ["namespaces", ns, plural, name, "status"] => {
            UrlTarget::Object((group, (*plural).into(), (*ns).into(), (*name).into()))
        }
        [plural] => UrlTarget::Collection(group, (*plural).into(), None),
        [plural, name] => {
            UrlTarget::Object((group, (*plural).into(), String::new(), (*name).into()))
        }
        _ => UrlTarget::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_from_the_url_layout() {
        let k = |g: &str, p: &str, ns: &str, n: &str| (g.into(), p.into(), ns.into(), n.into());
        assert_eq!(
            target("/api/v1/namespaces/default/configmaps/my-config"),
            UrlTarget::Object(k("", "configmaps", "default", "my-config"))
        );
        assert_eq!(
            target("/apis/apps/v1/namespaces/x/deployments/web/status"),
            UrlTarget::Object(k("apps", "deployments", "x", "web"))
        );
        assert_eq!(
            target("/apis/apps/v1/namespaces/x/deployments/web/scale"),
            UrlTarget::Other
        );
        assert_eq!(
            target("/apis/apps/v1/namespaces/x/deployments"),
            UrlTarget::Collection("apps".into(), "deployments".into(), Some("x".into()))
        );
        assert_eq!(
            target("/api/v1/configmaps"),
            UrlTarget::Collection("".into(), "configmaps".into(), None)
        );
        assert_eq!(
            target("/api/v1/namespaces/team-a"),
            UrlTarget::Object(k("", "namespaces", "", "team-a"))
        );
        assert_eq!(target("/version"), UrlTarget::Other);
        assert_eq!(target("/api"), UrlTarget::Other);
    }
}
