//! Discovery: `/api`, `/apis` (aggregated `apidiscovery.k8s.io/v2` when the Accept header asks
//! for it, else legacy), `/api/v1`, `/apis/G`, `/apis/G/V`, `/version`. (Owned by the `wire`
//! helper.) k8s.io/apiserver `pkg/endpoints/discovery` is the reference; the bodies follow the apiserver's
//! Go structs field by field (so their JSON keys come in the apiserver's order), checked against
//! kubernetes/kubernetes `api/discovery/aggregated_v2.json`, `api__v1.json` and
//! `apis__apps__v1.json`.

use super::{Reply, Served};
use serde_json::{json, Value};

/// The aggregated discovery content type kubectl 1.32 asks for first (client-go v0.32
/// `discovery/discovery_client.go`, `acceptDiscoveryFormats`).
pub const AGGREGATED_V2: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
/// The older one, still accepted by client-go 1.32 and served by the 1.32 apiserver.
pub const AGGREGATED_V2BETA1: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

/// The named groups rvlab serves from built-in code (a go-restful web service each in the real
/// apiserver, whose 404 for a path under it is a Status); every other group is a custom one.
const BUILTIN_GROUPS: [&str; 1] = ["apps"];

/// Which form of `/api` and `/apis` the client's Accept header selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    AggregatedV2,
    AggregatedV2Beta1,
    Legacy,
}

/// Reads an Accept header as client-go writes it (`AcceptV2,AcceptV2Beta1,application/json`):
/// media ranges separated by commas, parameters by semicolons, in any order and with any
/// whitespace; `q` weights sort the ranges (highest first, ties kept in the client's order, as
/// the apiserver's goautoneg does) and `q=0` excludes one. The first range that names an
/// aggregated discovery version wins, else the first that accepts JSON (`application/json`,
/// `application/*`, `*/*`) gives the legacy form. No Accept header, or one that accepts
/// neither, also gives the legacy JSON (the apiserver would answer 406 to the latter; rvlab
/// does not model 406 on discovery).
pub fn negotiate(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::Legacy;
    };
    let mut ranges: Vec<(f32, usize, Format)> = Vec::new();
    for (index, clause) in accept.split(',').enumerate() {
        let mut parts = clause.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let (mut g, mut v, mut as_, mut q) = (None, None, None, 1.0f32);
        for param in parts {
            let Some((key, value)) = param.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            match key.trim().to_ascii_lowercase().as_str() {
                "g" => g = Some(value.to_owned()),
                "v" => v = Some(value.to_owned()),
                "as" => as_ = Some(value.to_owned()),
                "q" => q = value.parse().unwrap_or(0.0),
                _ => {}
            }
        }
        if q <= 0.0 {
            continue;
        }
        let format = match (media.as_str(), g.as_deref(), v.as_deref(), as_.as_deref()) {
            (
                "application/json",
                Some("apidiscovery.k8s.io"),
                Some("v2"),
                Some("APIGroupDiscoveryList"),
            ) => Format::AggregatedV2,
            (
                "application/json",
                Some("apidiscovery.k8s.io"),
                Some("v2beta1"),
                Some("APIGroupDiscoveryList"),
            ) => Format::AggregatedV2Beta1,
            // Another `as=` (a Table, another discovery version) is not this document.
            ("application/json" | "application/*" | "*/*", None, None, None) => Format::Legacy,
            _ => continue,
        };
        ranges.push((q, index, format));
    }
    ranges.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranges.first().map_or(Format::Legacy, |r| r.2)
}

/// The reply to a discovery request, or `None` for a path discovery does not own (resource
/// paths such as `/api/v1/namespaces/default/configmaps` are the server's). Owned: `/api`,
/// `/apis`, `/api/V`, `/apis/G`, `/apis/G/V`, `/version` (a query string is ignored). An
/// unknown core version or an unknown version of a built-in group answers the apiserver's 404
/// NotFound Status ([`Reply::not_found`]); an unknown group, or a custom group's unknown
/// version, its plain `404 page not found` ([`Reply::page_not_found`]); another method than GET
/// (or HEAD) its 405 MethodNotAllowed Status.
pub fn answer(method: &str, path: &str, accept: Option<&str>, served: &[Served]) -> Option<Reply> {
    answer_at(method, path, accept, served, None)
}

/// [`answer`], with the `host:port` the server is reached at for legacy `/api`'s
/// `serverAddressByClientCIDRs` (`[{"clientCIDR":"0.0.0.0/0","serverAddress":…}]`, as the
/// apiserver reports its advertise address). Without it the list is empty (clients do not use
/// it over plain http).
pub fn answer_at(
    method: &str,
    path: &str,
    accept: Option<&str>,
    served: &[Served],
    server_address: Option<&str>,
) -> Option<Reply> {
    let path = path.split('?').next().unwrap_or("");
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let owned = matches!(
        segments.as_slice(),
        ["api"] | ["apis"] | ["version"] | ["api", _] | ["apis", _] | ["apis", _, _]
    );
    if !owned || !path.starts_with('/') || segments.iter().any(|s| s.is_empty()) {
        return None;
    }
    if method != "GET" && method != "HEAD" {
        return Some(Reply::method_not_allowed());
    }
    Some(match segments.as_slice() {
        ["version"] => version(),
        ["api"] => match negotiate(accept) {
            Format::Legacy => api_versions(served, server_address),
            aggregated => aggregated_list(aggregated, core_group(served).into_iter().collect()),
        },
        ["apis"] => match negotiate(accept) {
            Format::Legacy => group_list(served),
            aggregated => aggregated_list(aggregated, named_groups(served)),
        },
        ["api", version] => {
            let resources: Vec<&Served> = served
                .iter()
                .filter(|s| s.group.is_empty() && s.version == *version)
                .collect();
            if resources.is_empty() {
                Reply::not_found()
            } else {
                resource_list(None, version, &resources)
            }
        }
        ["apis", group] => match named_groups(served).into_iter().find(|g| g.name == *group) {
            Some(g) => Reply::json(200, &group_object(&g, true)),
            None => Reply::page_not_found(),
        },
        ["apis", group, version] => {
            let resources: Vec<&Served> = served
                .iter()
                .filter(|s| s.group == *group && s.version == *version)
                .collect();
            if !resources.is_empty() {
                resource_list(Some(group), version, &resources)
            } else if BUILTIN_GROUPS.contains(group) {
                // A built-in group's web service claims the path; no route: its 404 Status.
                Reply::not_found()
            } else {
                // An unknown group, or a custom group's unknown version: the apiextensions
                // apiserver hands it to the delegate's not-found handler.
                Reply::page_not_found()
            }
        }
        _ => return None,
    })
}

/// `GET /version`, kube-apiserver 1.32's `version.Info` (k8s.io/apimachinery
/// `pkg/version/types.go`; `kubectl version` reads it through client-go's `ServerVersion`). The
/// apiserver writes it indented (`responsewriters.WriteRawJSON` marshals with two-space
/// indentation). `minor` `"32"` makes the Google Cloud SDK's `/usr/bin/kubectl` dispatcher, which
/// asks `/version` first, pick `kubectl.1.32` (`rvlab_clients::tools`). The build fields are
/// placeholders in a 1.32 build's shape, with rvlab's version: rvlab is not a Go build of
/// Kubernetes.
pub fn version() -> Reply {
    let info = json!({
        "major": "1",
        "minor": "32",
        "gitVersion": "v1.32.0-rvlab",
        "gitCommit": format!("rvlab-{}", env!("CARGO_PKG_VERSION")),
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.23.4",
        "compiler": "gc",
        "platform": "linux/amd64"
    });
    let mut body = serde_json::to_vec_pretty(&info).unwrap_or_default();
    body.push(b'\n');
    Reply {
        code: 200,
        content_type: "application/json".to_owned(),
        body,
        headers: Vec::new(),
    }
}

/// One API group (the core group has no name) with its versions, each with its resources.
struct Group<'a> {
    name: &'a str,
    /// In the apiserver's preference order (the first is the preferred version).
    versions: Vec<(&'a str, Vec<&'a Served>)>,
}

fn group_of<'a>(name: &'a str, resources: impl Iterator<Item = &'a Served>) -> Group<'a> {
    let mut versions: Vec<(&'a str, Vec<&'a Served>)> = Vec::new();
    for s in resources {
        match versions.iter_mut().find(|(v, _)| *v == s.version) {
            Some((_, list)) => list.push(s),
            None => versions.push((s.version.as_str(), vec![s])),
        }
    }
    // The apiserver lists a version's resources sorted by name (api__v1.json).
    for (_, list) in &mut versions {
        list.sort_by(|a, b| a.resource.cmp(&b.resource));
    }
    Group { name, versions }
}

fn core_group(served: &[Served]) -> Option<Group<'_>> {
    served
        .iter()
        .any(|s| s.group.is_empty())
        .then(|| group_of("", served.iter().filter(|s| s.group.is_empty())))
}

/// The named groups in the apiserver's order: built-in groups by their fixed priority (`apps`
/// is the only one served here), then custom resources' groups (a CRD's APIService has group
/// priority 1000, below every built-in), those sorted by name.
fn named_groups(served: &[Served]) -> Vec<Group<'_>> {
    let mut names: Vec<&str> = Vec::new();
    for s in served {
        if !s.group.is_empty() && !names.contains(&s.group.as_str()) {
            names.push(&s.group);
        }
    }
    let builtin_rank = |name: &str| match name {
        "apps" => 0,
        _ => 1,
    };
    names.sort_by(|a, b| builtin_rank(a).cmp(&builtin_rank(b)).then(a.cmp(b)));
    names
        .into_iter()
        .map(|name| group_of(name, served.iter().filter(move |s| s.group == name)))
        .collect()
}

fn aggregated_list(format: Format, groups: Vec<Group<'_>>) -> Reply {
    let (content_type, api_version) = match format {
        Format::AggregatedV2Beta1 => (AGGREGATED_V2BETA1, "apidiscovery.k8s.io/v2beta1"),
        _ => (AGGREGATED_V2, "apidiscovery.k8s.io/v2"),
    };
    let items: Vec<Value> = groups
        .iter()
        .map(|g| {
            let mut metadata = json!({"creationTimestamp": null});
            if !g.name.is_empty() {
                metadata["name"] = json!(g.name);
            }
            let versions: Vec<Value> = g
                .versions
                .iter()
                .map(|(version, resources)| {
                    json!({
                        "version": version,
                        "resources": resources.iter().map(|s| aggregated_resource(s)).collect::<Vec<_>>(),
                        "freshness": "Current"
                    })
                })
                .collect();
            json!({"metadata": metadata, "versions": versions})
        })
        .collect();
    Reply::typed(
        200,
        content_type,
        &json!({"kind": "APIGroupDiscoveryList", "apiVersion": api_version, "metadata": {}, "items": items}),
    )
}

/// One `APIResourceDiscovery`: `responseKind` with the group and version left empty for a
/// resource of the same group-version, as the apiserver writes it (aggregated_v2.json).
fn aggregated_resource(s: &Served) -> Value {
    let mut r = json!({
        "resource": s.resource,
        "responseKind": {"group": "", "version": "", "kind": s.kind},
        "scope": if s.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": s.singular,
        "verbs": s.verbs,
    });
    if !s.short_names.is_empty() {
        r["shortNames"] = json!(s.short_names);
    }
    if !s.categories.is_empty() {
        r["categories"] = json!(s.categories);
    }
    if !s.subresources.is_empty() {
        let subs: Vec<Value> = s
            .subresources
            .iter()
            .map(|sub| {
                json!({
                    "subresource": sub,
                    "responseKind": {"group": "", "version": "", "kind": s.kind},
                    "verbs": SUBRESOURCE_VERBS,
                })
            })
            .collect();
        r["subresources"] = json!(subs);
    }
    r
}

/// The verbs of a status subresource (apis__apps__v1.json: `deployments/status`).
const SUBRESOURCE_VERBS: [&str; 3] = ["get", "patch", "update"];

fn api_versions(served: &[Served], server_address: Option<&str>) -> Reply {
    let versions: Vec<&str> = core_group(served)
        .map(|g| g.versions.iter().map(|(v, _)| *v).collect())
        .unwrap_or_default();
    let addresses: Vec<Value> = server_address
        .map(|a| json!({"clientCIDR": "0.0.0.0/0", "serverAddress": a}))
        .into_iter()
        .collect();
    Reply::json(
        200,
        &json!({"kind": "APIVersions", "versions": versions, "serverAddressByClientCIDRs": addresses}),
    )
}

/// An `APIGroup`: its versions and the preferred one; `with_type` adds `kind`/`apiVersion` (the
/// standalone `/apis/G` document; the entries of an `APIGroupList` have none).
fn group_object(g: &Group<'_>, with_type: bool) -> Value {
    let gv = |v: &str| json!({"groupVersion": format!("{}/{}", g.name, v), "version": v});
    let versions: Vec<Value> = g.versions.iter().map(|(v, _)| gv(v)).collect();
    let preferred = g
        .versions
        .first()
        .map(|(v, _)| gv(v))
        .unwrap_or(Value::Null);
    let mut object = serde_json::Map::new();
    if with_type {
        object.insert("kind".into(), json!("APIGroup"));
        object.insert("apiVersion".into(), json!("v1"));
    }
    object.insert("name".into(), json!(g.name));
    object.insert("versions".into(), json!(versions));
    object.insert("preferredVersion".into(), preferred);
    Value::Object(object)
}

fn group_list(served: &[Served]) -> Reply {
    let groups: Vec<Value> = named_groups(served)
        .iter()
        .map(|g| group_object(g, false))
        .collect();
    Reply::json(
        200,
        &json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}),
    )
}

/// An `APIResourceList`. The core group's has no `apiVersion` (api__v1.json), a named group's
/// has `"apiVersion":"v1"` (apis__apps__v1.json).
fn resource_list(group: Option<&str>, version: &str, resources: &[&Served]) -> Reply {
    let mut sorted = resources.to_vec();
    sorted.sort_by(|a, b| a.resource.cmp(&b.resource));
    let items: Vec<Value> = sorted
        .iter()
        .flat_map(|s| {
            let mut r = json!({
                "name": s.resource,
                "singularName": s.singular,
                "namespaced": s.namespaced,
                "kind": s.kind,
                "verbs": s.verbs,
            });
            if !s.short_names.is_empty() {
                r["shortNames"] = json!(s.short_names);
            }
            if !s.categories.is_empty() {
                r["categories"] = json!(s.categories);
            }
            r["storageVersionHash"] = json!(s.storage_version_hash());
            // Its subresources follow it (`deployments/status` sorts right after
            // `deployments`), without a storage version hash (apis__apps__v1.json).
            let subs = s.subresources.iter().map(|sub| {
                json!({
                    "name": format!("{}/{sub}", s.resource),
                    "singularName": "",
                    "namespaced": s.namespaced,
                    "kind": s.kind,
                    "verbs": SUBRESOURCE_VERBS,
                })
            });
            std::iter::once(r).chain(subs)
        })
        .collect();
    let body = match group {
        None => json!({"kind": "APIResourceList", "groupVersion": version, "resources": items}),
        Some(g) => json!({
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": format!("{g}/{version}"),
            "resources": items
        }),
    };
    Reply::json(200, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::builtins;

    /// What kubectl 1.32 sends on `/api` and `/apis` (client-go v0.32 `acceptDiscoveryFormats`).
    const KUBECTL_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    fn served() -> Vec<Served> {
        let mut s = builtins();
        s.push(Served::custom("widgets", "example.com", "Widget"));
        s.push(Served::custom("gadgets", "acme.io", "Gadget"));
        s
    }

    fn get(path: &str, accept: Option<&str>) -> Reply {
        answer("GET", path, accept, &served()).expect("owned")
    }

    fn body(reply: &Reply) -> String {
        String::from_utf8(reply.body.clone()).unwrap()
    }

    #[test]
    fn negotiation() {
        assert_eq!(negotiate(Some(KUBECTL_ACCEPT)), Format::AggregatedV2);
        assert_eq!(
            negotiate(Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")),
            Format::AggregatedV2Beta1
        );
        // Parameters in any order, with spaces.
        assert_eq!(
            negotiate(Some(
                "application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io"
            )),
            Format::AggregatedV2
        );
        assert_eq!(negotiate(Some("application/json, */*")), Format::Legacy);
        assert_eq!(negotiate(None), Format::Legacy);
        // The client's order decides between equal weights; q reorders; q=0 excludes.
        assert_eq!(
            negotiate(Some(&format!("application/json,{AGGREGATED_V2}"))),
            Format::Legacy
        );
        assert_eq!(
            negotiate(Some(&format!("application/json;q=0.5,{AGGREGATED_V2}"))),
            Format::AggregatedV2
        );
        assert_eq!(
            negotiate(Some(&format!("{AGGREGATED_V2};q=0,application/json"))),
            Format::Legacy
        );
        // A Table request is not discovery.
        assert_eq!(
            negotiate(Some("application/json;as=Table;v=v1;g=meta.k8s.io")),
            Format::Legacy
        );
    }

    #[test]
    fn aggregated_api() {
        let reply = get("/api", Some(KUBECTL_ACCEPT));
        assert_eq!(reply.code, 200);
        assert_eq!(reply.content_type, AGGREGATED_V2);
        let all = r#"["create","delete","deletecollection","get","list","patch","update","watch"]"#;
        assert_eq!(
            body(&reply),
            format!(
                concat!(
                    r#"{{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{{}},"items":[{{"metadata":{{"creationTimestamp":null}},"versions":[{{"version":"v1","resources":["#,
                    r#"{{"resource":"configmaps","responseKind":{{"group":"","version":"","kind":"ConfigMap"}},"scope":"Namespaced","singularResource":"configmap","verbs":{all},"shortNames":["cm"]}},"#,
                    r#"{{"resource":"namespaces","responseKind":{{"group":"","version":"","kind":"Namespace"}},"scope":"Cluster","singularResource":"namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]}},"#,
                    r#"{{"resource":"secrets","responseKind":{{"group":"","version":"","kind":"Secret"}},"scope":"Namespaced","singularResource":"secret","verbs":{all}}}"#,
                    r#"],"freshness":"Current"}}]}}]}}"#
                ),
                all = all
            )
        );
    }

    #[test]
    fn aggregated_apis_orders_groups_as_the_apiserver() {
        let reply = get("/apis", Some(KUBECTL_ACCEPT));
        assert_eq!(reply.content_type, AGGREGATED_V2);
        let all = r#"["create","delete","deletecollection","get","list","patch","update","watch"]"#;
        assert_eq!(
            body(&reply),
            format!(
                concat!(
                    r#"{{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{{}},"items":["#,
                    r#"{{"metadata":{{"creationTimestamp":null,"name":"apps"}},"versions":[{{"version":"v1","resources":[{{"resource":"deployments","responseKind":{{"group":"","version":"","kind":"Deployment"}},"scope":"Namespaced","singularResource":"deployment","verbs":{all},"shortNames":["deploy"],"categories":["all"],"subresources":[{{"subresource":"status","responseKind":{{"group":"","version":"","kind":"Deployment"}},"verbs":["get","patch","update"]}}]}}],"freshness":"Current"}}]}},"#,
                    r#"{{"metadata":{{"creationTimestamp":null,"name":"acme.io"}},"versions":[{{"version":"v1","resources":[{{"resource":"gadgets","responseKind":{{"group":"","version":"","kind":"Gadget"}},"scope":"Namespaced","singularResource":"gadget","verbs":{all}}}],"freshness":"Current"}}]}},"#,
                    r#"{{"metadata":{{"creationTimestamp":null,"name":"example.com"}},"versions":[{{"version":"v1","resources":[{{"resource":"widgets","responseKind":{{"group":"","version":"","kind":"Widget"}},"scope":"Namespaced","singularResource":"widget","verbs":{all}}}],"freshness":"Current"}}]}}"#,
                    r#"]}}"#
                ),
                all = all
            )
        );
    }

    #[test]
    fn aggregated_v2beta1_when_only_that_is_accepted() {
        let reply = get(
            "/apis",
            Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
        );
        assert_eq!(reply.content_type, AGGREGATED_V2BETA1);
        assert!(body(&reply).starts_with(
            r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1","metadata":{},"items":[{"metadata":{"creationTimestamp":null,"name":"apps"}"#
        ));
    }

    #[test]
    fn legacy_root_documents() {
        let api = answer_at(
            "GET",
            "/api",
            Some("application/json, */*"),
            &served(),
            Some("127.0.0.1:8001"),
        )
        .unwrap();
        assert_eq!(api.content_type, "application/json");
        assert_eq!(
            body(&api),
            r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:8001"}]}"#
        );
        assert_eq!(
            body(&get("/api", None)),
            r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#
        );
        let apis = get("/apis?timeout=32s", Some("application/json"));
        assert_eq!(apis.content_type, "application/json");
        assert_eq!(
            body(&apis),
            concat!(
                r#"{"kind":"APIGroupList","apiVersion":"v1","groups":["#,
                r#"{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},"#,
                r#"{"name":"acme.io","versions":[{"groupVersion":"acme.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"acme.io/v1","version":"v1"}},"#,
                r#"{"name":"example.com","versions":[{"groupVersion":"example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.com/v1","version":"v1"}}"#,
                r#"]}"#
            )
        );
        assert_eq!(
            body(&get("/apis/apps", None)),
            r#"{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}"#
        );
    }

    #[test]
    fn legacy_resource_lists() {
        let core = get("/api/v1", Some("application/json, */*"));
        assert_eq!(
            (core.code, core.content_type.as_str()),
            (200, "application/json")
        );
        let all = r#"["create","delete","deletecollection","get","list","patch","update","watch"]"#;
        assert_eq!(
            body(&core),
            format!(
                concat!(
                    r#"{{"kind":"APIResourceList","groupVersion":"v1","resources":["#,
                    r#"{{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":{all},"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="}},"#,
                    r#"{{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="}},"#,
                    r#"{{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":{all},"storageVersionHash":"S6u1pOWzb84="}}"#,
                    r#"]}}"#
                ),
                all = all
            )
        );
        assert_eq!(
            body(&get("/apis/apps/v1", None)),
            format!(
                concat!(
                    r#"{{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":["#,
                    r#"{{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":{all},"shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="}},"#,
                    r#"{{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]}}"#,
                    r#"]}}"#
                ),
                all = all
            )
        );
        let widgets = body(&get("/apis/example.com/v1", None));
        assert!(
            widgets.contains(r#""groupVersion":"example.com/v1""#),
            "{widgets}"
        );
        assert!(widgets.contains(r#"{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":"#));
    }

    #[test]
    fn unknown_group_is_the_plain_404() {
        for path in ["/apis/nope.io/v1", "/apis/nope.io", "/apis/example.com/v2"] {
            let reply = get(path, None);
            assert_eq!(reply.code, 404, "{path}");
            assert_eq!(reply.content_type, "text/plain; charset=utf-8");
            assert_eq!(body(&reply), "404 page not found\n");
        }
    }

    #[test]
    fn unknown_version_of_a_builtin_group_is_the_404_status() {
        for path in ["/apis/apps/v2", "/api/v2"] {
            let reply = get(path, None);
            assert_eq!(reply.code, 404, "{path}");
            assert_eq!(
                body(&reply),
                r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#
            );
        }
    }

    #[test]
    fn paths_discovery_does_not_own() {
        for path in [
            "/api/v1/namespaces",
            "/api/v1/namespaces/default/configmaps",
            "/apis/apps/v1/deployments",
            "/openapi/v3",
            "/",
            "/healthz",
            "/apis/",
            "/versions",
        ] {
            assert_eq!(answer("GET", path, None, &served()), None, "{path}");
        }
    }

    #[test]
    fn other_methods_are_405() {
        let reply = answer("POST", "/api", None, &served()).unwrap();
        assert_eq!(reply.code, 405);
        assert_eq!(
            body(&reply),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}"#
        );
    }

    #[test]
    fn version_document() {
        let reply = get("/version", None);
        assert_eq!(
            (reply.code, reply.content_type.as_str()),
            (200, "application/json")
        );
        let text = body(&reply);
        assert!(text.starts_with("{\n  \"major\": \"1\",\n  \"minor\": \"32\",\n  \"gitVersion\": \"v1.32.0-rvlab\",\n"), "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "major",
                "minor",
                "gitVersion",
                "gitCommit",
                "gitTreeState",
                "buildDate",
                "goVersion",
                "compiler",
                "platform"
            ]
        );
    }

    #[test]
    fn no_core_resources_means_no_core_group() {
        let only_apps: Vec<Served> = builtins()
            .into_iter()
            .filter(|s| s.group == "apps")
            .collect();
        let reply = answer("GET", "/api", Some(KUBECTL_ACCEPT), &only_apps).unwrap();
        assert_eq!(
            body(&reply),
            r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}"#
        );
    }
}
