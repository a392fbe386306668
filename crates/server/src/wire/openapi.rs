//! OpenAPI v3: `/openapi/v3` and `/openapi/v3/<gv path>?hash=…`; `/openapi/v2` answers 404.
//! (Owned by the `wire` helper.) kubernetes/kubernetes `api/openapi-spec/v3` is the reference.
//!
//! kubectl 1.32 fetches these for `apply -f`, `create -f`, `replace -f` and `edit` (its default
//! `--validate=strict`): it looks, in the group-version's document, for a PATCH operation whose
//! `x-kubernetes-group-version-kind` is the object's GVK and that declares the
//! `fieldValidation` query parameter (cli-runtime `query_param_verifier_v3.go`). Found, it
//! skips client-side schema validation and sends `fieldValidation=Strict`: the server owns
//! strict field validation. So every served kind gets a PATCH (and POST/PUT) operation with
//! that parameter, and a schema carrying its GVK.
//!
//! The documents are deliberately small: top-level fields only (enough for the verifier and a
//! shallow `kubectl explain`). Their `requestBody` content types do **not** list
//! `application/strategic-merge-patch+json`: with it, kubectl's client-side apply would build
//! its strategic merge patch from these schemas (KC `patcher.go`), which carry no patch
//! strategies; without it, it uses its compiled-in scheme for built-in kinds and a JSON merge
//! patch for custom resources, as with the real apiserver.
//!
//! The serving follows kube-openapi `pkg/handler3` and kube-aggregator's v3 `specProxier`: the
//! hash is the upper-case hex SHA-512 of the document's JSON (`computeETag`), a stale `hash`
//! is redirected (301), an unknown group-version is a bare 404.

use super::{Reply, Served};
use serde_json::{json, Map, Value};
use sha2::Digest as _;

/// The reply to a `/openapi/…` request, or `None` for a path OpenAPI does not own. `query` is
/// the raw query string (`hash=…&timeout=32s`), without `?`. Only `GET` reaches here (the
/// server routes other methods). JSON is served whatever the Accept header (the protobuf form
/// of the v3 documents is not implemented; kubectl asks for JSON).
pub fn answer(path: &str, query: Option<&str>, served: &[Served]) -> Option<Reply> {
    if path == "/openapi/v2" {
        // The real apiserver serves v2, but only as protobuf (client-go
        // `discovery/discovery_client.go`, `OpenAPISchema`, asks for nothing else); a 404 makes
        // kubectl fall back to its compiled-in types (k8s.io/kubectl `pkg/cmd/apply/patcher.go`).
        return Some(Reply::page_not_found());
    }
    if path == "/openapi/v3" {
        return Some(root(served));
    }
    let key = path.strip_prefix("/openapi/v3/")?;
    let documents = documents(served);
    let Some((key, document)) = documents.iter().find(|(k, _)| k == key) else {
        // specProxier.handleGroupVersion: `w.WriteHeader(404)`, no body, no Content-Type.
        return Some(Reply {
            code: 404,
            content_type: String::new(),
            body: Vec::new(),
            headers: Vec::new(),
        });
    };
    let etag = etag(document);
    let asked = query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("hash="))
        .filter(|h| !h.is_empty());
    let reply = Reply {
        code: 200,
        content_type: "application/json".to_owned(),
        body: document.clone(),
        headers: Vec::new(),
    }
    .with_header("Etag", &format!("\"{etag}\""))
    .with_header("Vary", "Accept");
    Some(match asked {
        None => reply,
        // kube-openapi also sets `Expires` one year ahead; that needs a clock, which this pure
        // function has not: the server may add it.
        Some(hash) if hash == etag => reply.with_header("Cache-Control", "public, immutable"),
        Some(_) => {
            // Go's `http.Redirect(w, r, url, 301)` for a GET.
            let url = server_relative_url(key, &etag);
            Reply {
                code: 301,
                content_type: "text/html; charset=utf-8".to_owned(),
                body: format!("<a href=\"{url}\">Moved Permanently</a>.\n\n").into_bytes(),
                headers: Vec::new(),
            }
            .with_header("Location", &url)
        }
    })
}

/// The hash kube-openapi gives a document: `fmt.Sprintf("%X", sha512.Sum512(json))`.
fn etag(document: &[u8]) -> String {
    sha2::Sha512::digest(document)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect()
}

fn server_relative_url(key: &str, etag: &str) -> String {
    format!("/openapi/v3/{key}?hash={etag}")
}

/// `GET /openapi/v3`: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}`,
/// keys sorted (Go marshals the map sorted). The aggregator serves it with
/// `http.ServeContent(w, r, "/openapi/v3", …)` and no Content-Type set, so Go sniffs the bytes:
/// `text/plain; charset=utf-8` (client-go reads the body raw, whatever the type).
fn root(served: &[Served]) -> Reply {
    let mut paths = Map::new();
    for (key, document) in documents(served) {
        paths.insert(
            key.clone(),
            json!({"serverRelativeURL": server_relative_url(&key, &etag(&document))}),
        );
    }
    let body = json!({ "paths": paths });
    Reply {
        code: 200,
        content_type: "text/plain; charset=utf-8".to_owned(),
        body: body.to_string().into_bytes(),
        headers: Vec::new(),
    }
}

/// Every served group-version's document, keyed `api/v1` or `apis/G/V` (client-go
/// `gvToAPIPath`), sorted by key.
pub fn documents(served: &[Served]) -> Vec<(String, Vec<u8>)> {
    let mut keys: Vec<String> = served.iter().map(document_key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|key| {
            let mut members: Vec<&Served> =
                served.iter().filter(|s| document_key(s) == key).collect();
            members.sort_by(|a, b| a.resource.cmp(&b.resource));
            let document = document(&members).to_string().into_bytes();
            (key, document)
        })
        .collect()
}

fn document_key(s: &Served) -> String {
    if s.group.is_empty() {
        format!("api/{}", s.version)
    } else {
        format!("apis/{}/{}", s.group, s.version)
    }
}

/// The schema name the apiserver gives a kind: `io.k8s.api.core.v1.ConfigMap`,
/// `io.k8s.api.apps.v1.Deployment`; a custom resource's is its reversed group
/// (`com.example.v1.Widget`), as the apiextensions apiserver names them.
fn schema_name(s: &Served) -> String {
    match s.group.as_str() {
        "" => format!("io.k8s.api.core.{}.{}", s.version, s.kind),
        "apps" => format!("io.k8s.api.apps.{}.{}", s.version, s.kind),
        group => {
            let reversed: Vec<&str> = group.split('.').rev().collect();
            format!("{}.{}.{}", reversed.join("."), s.version, s.kind)
        }
    }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// `Core` for the core group, `Apps`, `ExampleCom` (operation ids: `patchCoreV1NamespacedConfigMap`;
/// the real ids for custom resources were not checked).
fn operation_group(s: &Served) -> String {
    if s.group.is_empty() {
        return "Core".to_owned();
    }
    s.group
        .trim_end_matches(".k8s.io")
        .split('.')
        .map(capitalize)
        .collect()
}

fn gvk(s: &Served) -> Value {
    // A Go map in the real document: keys sorted.
    json!({"group": s.group, "kind": s.kind, "version": s.version})
}

fn query_parameter(name: &str, kind: &str) -> Value {
    json!({"name": name, "in": "query", "schema": {"type": kind, "uniqueItems": true}})
}

fn path_parameter(name: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string", "uniqueItems": true}})
}

/// One write operation: `action` is `post`, `put` or `patch` (the `x-kubernetes-action`s
/// `post`, `put`, `patch`).
fn write_operation(s: &Served, action: &str) -> Value {
    let reference = json!({"$ref": format!("#/components/schemas/{}", schema_name(s))});
    let scope = if s.namespaced { "Namespaced" } else { "" };
    let (verb, content) = match action {
        "post" => ("create", json!({"application/json": {"schema": reference}})),
        "put" => (
            "replace",
            json!({"application/json": {"schema": reference}}),
        ),
        _ => (
            "patch",
            json!({
                "application/json-patch+json": {"schema": {"type": "object"}},
                "application/merge-patch+json": {"schema": {"type": "object"}},
                "application/apply-patch+yaml": {"schema": {"type": "object"}}
            }),
        ),
    };
    let mut parameters = vec![
        query_parameter("dryRun", "string"),
        query_parameter("fieldManager", "string"),
        query_parameter("fieldValidation", "string"),
    ];
    if action == "patch" {
        parameters.push(query_parameter("force", "boolean"));
    }
    let code = if action == "post" { "201" } else { "200" };
    json!({
        "operationId": format!("{verb}{}{}{scope}{}", operation_group(s), capitalize(&s.version), s.kind),
        "parameters": parameters,
        "requestBody": {"content": content, "required": true},
        "responses": {code: {"description": if code == "201" { "Created" } else { "OK" },
                             "content": {"application/json": {"schema": reference}}}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk(s)
    })
}

fn get_operation(s: &Served) -> Value {
    let scope = if s.namespaced { "Namespaced" } else { "" };
    json!({
        "operationId": format!("read{}{}{scope}{}", operation_group(s), capitalize(&s.version), s.kind),
        "responses": {"200": {"description": "OK", "content": {"application/json": {
            "schema": {"$ref": format!("#/components/schemas/{}", schema_name(s))}}}}},
        "x-kubernetes-action": "get",
        "x-kubernetes-group-version-kind": gvk(s)
    })
}

/// The top-level fields of a kind's schema beyond `apiVersion`, `kind`, `metadata`.
fn kind_properties(s: &Served) -> Value {
    let string_map =
        json!({"type": "object", "additionalProperties": {"type": "string", "default": ""}});
    let bytes_map =
        json!({"type": "object", "additionalProperties": {"type": "string", "format": "byte"}});
    match (s.group.as_str(), s.kind.as_str()) {
        ("", "ConfigMap") => json!({
            "binaryData": bytes_map, "data": string_map, "immutable": {"type": "boolean"}
        }),
        ("", "Secret") => json!({
            "data": bytes_map, "immutable": {"type": "boolean"}, "stringData": string_map,
            "type": {"type": "string"}
        }),
        ("", "Namespace") | ("apps", "Deployment") => json!({
            "spec": {"type": "object"}, "status": {"type": "object"}
        }),
        // A scenario's custom resource has no declared schema: anything goes under spec/status.
        _ => json!({
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }),
    }
}

fn schema(s: &Served) -> Value {
    let mut properties = json!({
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"}
    });
    if let (Some(all), Value::Object(extra)) = (properties.as_object_mut(), kind_properties(s)) {
        all.extend(extra);
    }
    json!({
        "type": "object",
        "properties": properties,
        "x-kubernetes-group-version-kind": [gvk(s)]
    })
}

/// One group-version's document: for each kind, its collection path (POST) and item path (GET,
/// PUT, PATCH), and its schema.
fn document(members: &[&Served]) -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for s in members {
        let prefix = if s.group.is_empty() {
            format!("/api/{}", s.version)
        } else {
            format!("/apis/{}/{}", s.group, s.version)
        };
        let (collection, mut path_parameters) = if s.namespaced {
            (
                format!("{prefix}/namespaces/{{namespace}}/{}", s.resource),
                vec![path_parameter("namespace")],
            )
        } else {
            (format!("{prefix}/{}", s.resource), Vec::new())
        };
        paths.insert(
            collection.clone(),
            json!({"post": write_operation(s, "post"), "parameters": path_parameters.clone()}),
        );
        path_parameters.insert(0, path_parameter("name"));
        paths.insert(
            format!("{collection}/{{name}}"),
            json!({
                "get": get_operation(s),
                "put": write_operation(s, "put"),
                "patch": write_operation(s, "patch"),
                "parameters": path_parameters
            }),
        );
        schemas.insert(schema_name(s), schema(s));
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": schemas}
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::builtins;

    fn served() -> Vec<Served> {
        let mut s = builtins();
        s.push(Served::custom("widgets", "example.com", "Widget"));
        s
    }

    fn body_json(reply: &Reply) -> Value {
        serde_json::from_slice(&reply.body).unwrap()
    }

    fn header<'a>(reply: &'a Reply, name: &str) -> Option<&'a str> {
        reply
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn root_lists_each_group_version_with_its_hash() {
        let reply = answer("/openapi/v3", None, &served()).unwrap();
        assert_eq!(reply.code, 200);
        assert_eq!(reply.content_type, "text/plain; charset=utf-8");
        let root = body_json(&reply);
        let paths = root["paths"].as_object().unwrap();
        let keys: Vec<&str> = paths.keys().map(String::as_str).collect();
        assert_eq!(keys, ["api/v1", "apis/apps/v1", "apis/example.com/v1"]);
        for (key, document) in documents(&served()) {
            let url = paths[&key]["serverRelativeURL"].as_str().unwrap();
            let hash = url
                .strip_prefix(&format!("/openapi/v3/{key}?hash="))
                .unwrap();
            assert_eq!(hash.len(), 128);
            assert!(hash
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase()));
            assert_eq!(hash, etag(&document));
        }
    }

    #[test]
    fn etag_is_upper_hex_sha512() {
        // sha512("") from FIPS 180-4's examples.
        assert!(etag(b"")
            .starts_with("CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE"));
    }

    #[test]
    fn core_document_declares_field_validation_on_patch() {
        let root = body_json(&answer("/openapi/v3", None, &served()).unwrap());
        let url = root["paths"]["api/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap();
        let (path, query) = url.split_once('?').unwrap();
        let reply = answer(path, Some(query), &served()).unwrap();
        assert_eq!(
            (reply.code, reply.content_type.as_str()),
            (200, "application/json")
        );
        assert_eq!(header(&reply, "Cache-Control"), Some("public, immutable"));
        assert_eq!(
            header(&reply, "Etag").unwrap(),
            format!("\"{}\"", query.strip_prefix("hash=").unwrap())
        );
        let doc = body_json(&reply);
        assert_eq!(doc["openapi"], "3.0.0");
        let patch = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
        assert_eq!(patch["operationId"], "patchCoreV1NamespacedConfigMap");
        assert_eq!(
            patch["x-kubernetes-group-version-kind"],
            json!({"group": "", "kind": "ConfigMap", "version": "v1"})
        );
        let names: Vec<&str> = patch["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["dryRun", "fieldManager", "fieldValidation", "force"]
        );
        assert_eq!(
            patch["parameters"][2],
            json!({"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}})
        );
        let content = patch["requestBody"]["content"].as_object().unwrap();
        assert!(!content.contains_key("application/strategic-merge-patch+json"));
        // Cluster-scoped namespaces.
        let ns = &doc["paths"]["/api/v1/namespaces/{name}"]["patch"];
        assert_eq!(ns["operationId"], "patchCoreV1Namespace");
        assert_eq!(ns["x-kubernetes-group-version-kind"]["kind"], "Namespace");
        assert!(doc["paths"]["/api/v1/namespaces/{namespace}/secrets"]["post"].is_object());
        let schema = &doc["components"]["schemas"]["io.k8s.api.core.v1.ConfigMap"];
        assert_eq!(
            schema["x-kubernetes-group-version-kind"],
            json!([{"group": "", "kind": "ConfigMap", "version": "v1"}])
        );
        assert_eq!(
            schema["properties"]["data"]["additionalProperties"]["type"],
            "string"
        );
        let keys: Vec<&str> = doc["components"]["schemas"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "io.k8s.api.core.v1.ConfigMap",
                "io.k8s.api.core.v1.Namespace",
                "io.k8s.api.core.v1.Secret"
            ]
        );
    }

    #[test]
    fn group_documents() {
        let apps = body_json(&answer("/openapi/v3/apis/apps/v1", None, &served()).unwrap());
        let patch =
            &apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(patch["operationId"], "patchAppsV1NamespacedDeployment");
        assert_eq!(patch["x-kubernetes-group-version-kind"]["group"], "apps");
        assert!(apps["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"].is_object());
        let widgets = answer(
            "/openapi/v3/apis/example.com/v1",
            Some("timeout=32s"),
            &served(),
        )
        .unwrap();
        assert_eq!(header(&widgets, "Cache-Control"), None);
        let widgets = body_json(&widgets);
        let patch = &widgets["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]
            ["patch"];
        assert_eq!(patch["operationId"], "patchExampleComV1NamespacedWidget");
        assert_eq!(
            patch["x-kubernetes-group-version-kind"],
            json!({"group": "example.com", "kind": "Widget", "version": "v1"})
        );
        assert!(widgets["components"]["schemas"]["com.example.v1.Widget"].is_object());
    }

    #[test]
    fn a_stale_hash_is_redirected() {
        let reply = answer("/openapi/v3/api/v1", Some("hash=AAAA"), &served()).unwrap();
        assert_eq!(reply.code, 301);
        let location = header(&reply, "Location").unwrap();
        let expected = format!(
            "/openapi/v3/api/v1?hash={}",
            etag(&documents(&served())[0].1)
        );
        assert_eq!(location, expected);
        assert_eq!(
            String::from_utf8(reply.body).unwrap(),
            format!("<a href=\"{expected}\">Moved Permanently</a>.\n\n")
        );
    }

    #[test]
    fn hashes_follow_the_served_set() {
        let before = documents(&served());
        let mut more = served();
        more.push(Served::custom("gadgets", "example.com", "Gadget"));
        let after = documents(&more);
        assert_eq!(before[0], after[0]);
        assert_ne!(etag(&before[2].1), etag(&after[2].1));
    }

    #[test]
    fn unknown_and_foreign_paths() {
        let missing = answer("/openapi/v3/apis/nope.io/v1", None, &served()).unwrap();
        assert_eq!(
            (
                missing.code,
                missing.content_type.as_str(),
                missing.body.len()
            ),
            (404, "", 0)
        );
        assert_eq!(answer("/openapi/v3/", None, &served()).unwrap().code, 404);
        let v2 = answer("/openapi/v2", None, &served()).unwrap();
        assert_eq!(
            (v2.code, v2.body.as_slice()),
            (404, b"404 page not found\n".as_slice())
        );
        assert_eq!(answer("/api/v1", None, &served()), None);
        assert_eq!(answer("/openapi", None, &served()), None);
    }
}
