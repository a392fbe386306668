//! Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`): the `k8s\0`
//! envelope and `runtime.Unknown`, decoded to the JSON object. (Owned by the `wire` helper.)
//!
//! kubectl 1.32's typed client sends `kubectl create configmap|secret|namespace …` bodies as
//! protobuf, with no JSON fallback (kubernetes-api-server.md §5.1–§5.2). This decodes them
//! into the JSON object a JSON client would have sent for the same object: the JSON Go's
//! `encoding/json` writes for the decoded struct (its field order, `omitempty`, the
//! `"creationTimestamp":null` of a zero `metav1.Time`, `spec`/`status` structs always present),
//! with `kind`/`apiVersion` from the envelope's `typeMeta`.
//!
//! Decoding uses `prost` (its derive): the messages below are the apiserver's own field
//! numbers and types (k8s.io/api `core/v1/generated.proto`, apimachinery `meta/v1` and
//! `runtime` `generated.proto`; checked against the `k8s-pb` crate's generated code). Why
//! prost with a few hand-declared messages rather than `k8s-pb`, which has them all: measured
//! on this machine (2 cores shared with other builds, load average about 10, fresh target
//! dirs, `opt-level = 2` for dependencies as in this workspace), a crate using prost 0.14 +
//! prost-derive built in 65.8 s wall from nothing (most of it `syn`/`proc-macro2`, which this
//! workspace already builds for serde); one using `k8s-pb` 0.9.0 (39,227 generated lines, every
//! Kubernetes API) took 561.3 s wall, the `k8s_pb` rustc alone over 104 s of CPU. And `k8s-pb`
//! has no serde support, so the per-kind JSON writing below would be needed anyway. The
//! messages declared here are about 130 lines.
//!
//! Unknown fields are skipped (as the apiserver's gogo-generated decoders do). Every error is
//! a value: truncated input, a wrong magic, a wire-type mismatch, invalid UTF-8, an
//! unsupported kind or content encoding; nothing here panics on any input (a proptest checks).

use base64::Engine as _;
use prost::Message;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The media type of these bodies.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The envelope's magic prefix: `k8s\0`.
pub const MAGIC: [u8; 4] = [0x6b, 0x38, 0x73, 0x00];

#[derive(Clone, PartialEq, Message)]
struct TypeMeta {
    #[prost(string, optional, tag = "1")]
    api_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    kind: Option<String>,
}

/// `runtime.Unknown`: the envelope after the magic.
#[derive(Clone, PartialEq, Message)]
struct Unknown {
    #[prost(message, optional, tag = "1")]
    type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    raw: Option<Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    content_encoding: Option<String>,
    #[prost(string, optional, tag = "4")]
    content_type: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Time {
    #[prost(int64, optional, tag = "1")]
    seconds: Option<i64>,
    #[prost(int32, optional, tag = "2")]
    nanos: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct OwnerReference {
    #[prost(string, optional, tag = "5")]
    api_version: Option<String>,
    #[prost(string, optional, tag = "1")]
    kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    name: Option<String>,
    #[prost(string, optional, tag = "4")]
    uid: Option<String>,
    #[prost(bool, optional, tag = "6")]
    controller: Option<bool>,
    #[prost(bool, optional, tag = "7")]
    block_owner_deletion: Option<bool>,
}

/// `metav1.ObjectMeta` without `managedFields` (17): a client does not send them on create
/// (and the apiserver overwrites them); they are skipped like any unknown field.
#[derive(Clone, PartialEq, Message)]
struct ObjectMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    generate_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    #[prost(string, optional, tag = "4")]
    self_link: Option<String>,
    #[prost(string, optional, tag = "5")]
    uid: Option<String>,
    #[prost(string, optional, tag = "6")]
    resource_version: Option<String>,
    #[prost(int64, optional, tag = "7")]
    generation: Option<i64>,
    #[prost(message, optional, tag = "8")]
    creation_timestamp: Option<Time>,
    #[prost(message, optional, tag = "9")]
    deletion_timestamp: Option<Time>,
    #[prost(int64, optional, tag = "10")]
    deletion_grace_period_seconds: Option<i64>,
    #[prost(btree_map = "string, string", tag = "11")]
    labels: BTreeMap<String, String>,
    #[prost(btree_map = "string, string", tag = "12")]
    annotations: BTreeMap<String, String>,
    #[prost(message, repeated, tag = "13")]
    owner_references: Vec<OwnerReference>,
    #[prost(string, repeated, tag = "14")]
    finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ConfigMap {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(bool, optional, tag = "4")]
    immutable: Option<bool>,
    #[prost(btree_map = "string, string", tag = "2")]
    data: BTreeMap<String, String>,
    #[prost(btree_map = "string, bytes", tag = "3")]
    binary_data: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
struct Secret {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(bool, optional, tag = "5")]
    immutable: Option<bool>,
    #[prost(btree_map = "string, bytes", tag = "2")]
    data: BTreeMap<String, Vec<u8>>,
    #[prost(btree_map = "string, string", tag = "4")]
    string_data: BTreeMap<String, String>,
    #[prost(string, optional, tag = "3")]
    r#type: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct NamespaceSpec {
    #[prost(string, repeated, tag = "1")]
    finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct NamespaceCondition {
    #[prost(string, optional, tag = "1")]
    r#type: Option<String>,
    #[prost(string, optional, tag = "2")]
    status: Option<String>,
    #[prost(message, optional, tag = "4")]
    last_transition_time: Option<Time>,
    #[prost(string, optional, tag = "5")]
    reason: Option<String>,
    #[prost(string, optional, tag = "6")]
    message: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct NamespaceStatus {
    #[prost(string, optional, tag = "1")]
    phase: Option<String>,
    #[prost(message, repeated, tag = "2")]
    conditions: Vec<NamespaceCondition>,
}

#[derive(Clone, PartialEq, Message)]
struct Namespace {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<NamespaceSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<NamespaceStatus>,
}

/// Decodes a protobuf request body (the `k8s\0` magic, then a `runtime.Unknown` whose `raw`
/// is the object) to the JSON object a JSON client would have sent. Decoded kinds: `v1`
/// `ConfigMap`, `Secret`, `Namespace`. The error texts are for a 400's message: the magic's
/// is the apiserver's own (`provided data does not appear to be a protobuf message, expected
/// prefix [107 56 115 0]`), the others are prost's or rvlab's.
pub fn decode(bytes: &[u8]) -> Result<Value, String> {
    let Some(envelope) = bytes.strip_prefix(&MAGIC) else {
        // Go's `fmt.Errorf("… expected prefix %v", s.prefix)` prints the bytes as `[107 56 115 0]`.
        return Err(
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
                .to_owned(),
        );
    };
    let unknown = Unknown::decode(envelope).map_err(|e| e.to_string())?;
    let type_meta = unknown.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    if let Some(encoding) = unknown.content_encoding.filter(|e| !e.is_empty()) {
        return Err(format!(
            "unsupported protobuf content encoding {encoding:?}"
        ));
    }
    if let Some(inner) = unknown
        .content_type
        .filter(|t| !t.is_empty() && t != CONTENT_TYPE)
    {
        return Err(format!(
            "unsupported content type {inner:?} inside the protobuf envelope"
        ));
    }
    let raw = unknown.raw.unwrap_or_default();
    let mut object = Map::new();
    object.insert("kind".into(), json!(kind));
    object.insert("apiVersion".into(), json!(api_version));
    let fields = match (api_version.as_str(), kind.as_str()) {
        ("v1", "ConfigMap") => {
            config_map(ConfigMap::decode(raw.as_slice()).map_err(|e| e.to_string())?)
        }
        ("v1", "Secret") => secret(Secret::decode(raw.as_slice()).map_err(|e| e.to_string())?),
        ("v1", "Namespace") => {
            namespace(Namespace::decode(raw.as_slice()).map_err(|e| e.to_string())?)
        }
        ("", _) | (_, "") => {
            return Err("the protobuf envelope names no apiVersion and kind".to_owned());
        }
        _ => {
            return Err(format!(
                "rvlab decodes protobuf bodies of v1 ConfigMap, Secret and Namespace only, not {api_version} {kind}; send JSON"
            ));
        }
    };
    object.extend(fields);
    Ok(Value::Object(object))
}

fn base64(bytes: &[u8]) -> Value {
    json!(base64::engine::general_purpose::STANDARD.encode(bytes))
}

fn string_map(map: BTreeMap<String, String>) -> Value {
    Value::Object(map.into_iter().map(|(k, v)| (k, json!(v))).collect())
}

fn bytes_map(map: BTreeMap<String, Vec<u8>>) -> Value {
    Value::Object(map.into_iter().map(|(k, v)| (k, base64(&v))).collect())
}

/// Inserts `key` when the string is set and not empty (Go's `omitempty`; gogo writes empty
/// optional strings explicitly, §5.2).
fn put_string(map: &mut Map<String, Value>, key: &str, value: Option<String>) {
    if let Some(value) = value.filter(|v| !v.is_empty()) {
        map.insert(key.into(), json!(value));
    }
}

/// `metav1.Time` as JSON: RFC 3339 in UTC, whole seconds (its `MarshalJSON`); `null` when zero.
fn time(t: Option<&Time>) -> Value {
    let seconds = t.and_then(|t| t.seconds).unwrap_or(0);
    let nanos = t.and_then(|t| t.nanos).unwrap_or(0);
    if seconds == 0 && nanos == 0 {
        return Value::Null;
    }
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days (the core's store/meta.rs has the same, crate-private).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    json!(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    ))
}

fn object_meta(meta: Option<ObjectMeta>) -> Value {
    let meta = meta.unwrap_or_default();
    let mut m = Map::new();
    put_string(&mut m, "name", meta.name);
    put_string(&mut m, "generateName", meta.generate_name);
    put_string(&mut m, "namespace", meta.namespace);
    put_string(&mut m, "selfLink", meta.self_link);
    put_string(&mut m, "uid", meta.uid);
    put_string(&mut m, "resourceVersion", meta.resource_version);
    if let Some(generation) = meta.generation.filter(|g| *g != 0) {
        m.insert("generation".into(), json!(generation));
    }
    m.insert(
        "creationTimestamp".into(),
        time(meta.creation_timestamp.as_ref()),
    );
    if meta.deletion_timestamp.is_some() {
        m.insert(
            "deletionTimestamp".into(),
            time(meta.deletion_timestamp.as_ref()),
        );
    }
    if let Some(grace) = meta.deletion_grace_period_seconds {
        m.insert("deletionGracePeriodSeconds".into(), json!(grace));
    }
    if !meta.labels.is_empty() {
        m.insert("labels".into(), string_map(meta.labels));
    }
    if !meta.annotations.is_empty() {
        m.insert("annotations".into(), string_map(meta.annotations));
    }
    if !meta.owner_references.is_empty() {
        let owners: Vec<Value> = meta
            .owner_references
            .into_iter()
            .map(|o| {
                // Go's OwnerReference: apiVersion, kind, name, uid always; the bools omitempty.
                let mut r = Map::new();
                r.insert(
                    "apiVersion".into(),
                    json!(o.api_version.unwrap_or_default()),
                );
                r.insert("kind".into(), json!(o.kind.unwrap_or_default()));
                r.insert("name".into(), json!(o.name.unwrap_or_default()));
                r.insert("uid".into(), json!(o.uid.unwrap_or_default()));
                if let Some(c) = o.controller {
                    r.insert("controller".into(), json!(c));
                }
                if let Some(b) = o.block_owner_deletion {
                    r.insert("blockOwnerDeletion".into(), json!(b));
                }
                Value::Object(r)
            })
            .collect();
        m.insert("ownerReferences".into(), json!(owners));
    }
    if !meta.finalizers.is_empty() {
        m.insert("finalizers".into(), json!(meta.finalizers));
    }
    Value::Object(m)
}

fn config_map(cm: ConfigMap) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("metadata".into(), object_meta(cm.metadata));
    if let Some(immutable) = cm.immutable {
        m.insert("immutable".into(), json!(immutable));
    }
    if !cm.data.is_empty() {
        m.insert("data".into(), string_map(cm.data));
    }
    if !cm.binary_data.is_empty() {
        m.insert("binaryData".into(), bytes_map(cm.binary_data));
    }
    m
}

fn secret(s: Secret) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("metadata".into(), object_meta(s.metadata));
    if let Some(immutable) = s.immutable {
        m.insert("immutable".into(), json!(immutable));
    }
    if !s.data.is_empty() {
        m.insert("data".into(), bytes_map(s.data));
    }
    if !s.string_data.is_empty() {
        m.insert("stringData".into(), string_map(s.string_data));
    }
    put_string(&mut m, "type", s.r#type);
    m
}

fn namespace(ns: Namespace) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("metadata".into(), object_meta(ns.metadata));
    let spec = ns.spec.unwrap_or_default();
    let mut spec_json = Map::new();
    if !spec.finalizers.is_empty() {
        spec_json.insert("finalizers".into(), json!(spec.finalizers));
    }
    m.insert("spec".into(), Value::Object(spec_json));
    let status = ns.status.unwrap_or_default();
    let mut status_json = Map::new();
    put_string(&mut status_json, "phase", status.phase);
    if !status.conditions.is_empty() {
        let conditions: Vec<Value> = status
            .conditions
            .into_iter()
            .map(|c| {
                let mut r = Map::new();
                r.insert("type".into(), json!(c.r#type.unwrap_or_default()));
                r.insert("status".into(), json!(c.status.unwrap_or_default()));
                if c.last_transition_time.is_some() {
                    r.insert(
                        "lastTransitionTime".into(),
                        time(c.last_transition_time.as_ref()),
                    );
                }
                put_string(&mut r, "reason", c.reason);
                put_string(&mut r, "message", c.message);
                Value::Object(r)
            })
            .collect();
        status_json.insert("conditions".into(), json!(conditions));
    }
    m.insert("status".into(), Value::Object(status_json));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What kubectl 1.32.5 sent for `kubectl create configmap x --from-literal=a=b`, captured by
    /// `tests/wire_kubectl.rs` (which checks kubectl still sends exactly these bytes).
    const KUBECTL_CREATE_CONFIGMAP: &[u8] =
        include_bytes!("../../tests/fixtures/kubectl-1.32-create-configmap.pb");

    fn envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some(api_version.into()),
                kind: Some(kind.into()),
            }),
            raw: Some(raw),
            content_encoding: Some(String::new()),
            content_type: Some(String::new()),
        };
        let mut bytes = MAGIC.to_vec();
        bytes.extend(unknown.encode_to_vec());
        bytes
    }

    fn meta(name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            // gogo writes every optional string, empty ones too (§5.2).
            generate_name: Some(String::new()),
            namespace: Some(String::new()),
            self_link: Some(String::new()),
            uid: Some(String::new()),
            resource_version: Some(String::new()),
            generation: Some(0),
            creation_timestamp: Some(Time::default()),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn the_body_kubectl_sends_for_create_configmap() {
        assert_eq!(
            decode(KUBECTL_CREATE_CONFIGMAP).unwrap().to_string(),
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},"data":{"a":"b"}}"#
        );
    }

    #[test]
    fn a_full_config_map() {
        let mut m = meta("full");
        m.namespace = Some("team".into());
        m.generate_name = Some("full-".into());
        m.resource_version = Some("42".into());
        m.labels = [
            ("app".to_owned(), "web".to_owned()),
            ("a".to_owned(), "1".to_owned()),
        ]
        .into();
        m.annotations = [("note".to_owned(), "hi".to_owned())].into();
        m.finalizers = vec!["example.com/keep".into()];
        m.creation_timestamp = Some(Time {
            seconds: Some(1_764_576_000),
            nanos: Some(0),
        });
        m.owner_references = vec![OwnerReference {
            api_version: Some("apps/v1".into()),
            kind: Some("Deployment".into()),
            name: Some("web".into()),
            uid: Some("u-1".into()),
            controller: Some(true),
            block_owner_deletion: None,
        }];
        let cm = ConfigMap {
            metadata: Some(m),
            immutable: Some(true),
            data: [("color".to_owned(), "blue".to_owned())].into(),
            binary_data: [("bin".to_owned(), vec![0, 159, 146, 150])].into(),
        };
        let value = decode(&envelope("v1", "ConfigMap", cm.encode_to_vec())).unwrap();
        assert_eq!(
            value.to_string(),
            concat!(
                r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"full","generateName":"full-","namespace":"team","resourceVersion":"42","#,
                r#""creationTimestamp":"2025-12-01T08:00:00Z","labels":{"a":"1","app":"web"},"annotations":{"note":"hi"},"#,
                r#""ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u-1","controller":true}],"#,
                r#""finalizers":["example.com/keep"]},"immutable":true,"data":{"color":"blue"},"binaryData":{"bin":"AJ+Slg=="}}"#
            )
        );
    }

    #[test]
    fn secret_and_namespace() {
        let s = Secret {
            metadata: Some(meta("token")),
            immutable: None,
            data: [("k".to_owned(), b"v".to_vec())].into(),
            string_data: [("s".to_owned(), "t".to_owned())].into(),
            r#type: Some("Opaque".into()),
        };
        assert_eq!(
            decode(&envelope("v1", "Secret", s.encode_to_vec()))
                .unwrap()
                .to_string(),
            r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"token","creationTimestamp":null},"data":{"k":"dg=="},"stringData":{"s":"t"},"type":"Opaque"}"#
        );
        let ns = Namespace {
            metadata: Some(meta("team")),
            spec: Some(NamespaceSpec::default()),
            status: Some(NamespaceStatus::default()),
        };
        assert_eq!(
            decode(&envelope("v1", "Namespace", ns.encode_to_vec()))
                .unwrap()
                .to_string(),
            r#"{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team","creationTimestamp":null},"spec":{},"status":{}}"#
        );
    }

    #[test]
    fn time_format() {
        let t = |s| {
            time(Some(&Time {
                seconds: Some(s),
                nanos: None,
            }))
        };
        assert_eq!(t(0), Value::Null);
        assert_eq!(t(1), json!("1970-01-01T00:00:01Z"));
        assert_eq!(t(951_782_400), json!("2000-02-29T00:00:00Z"));
        assert_eq!(t(-1), json!("1969-12-31T23:59:59Z"));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(
            decode(b"{\"kind\":\"ConfigMap\"}").unwrap_err(),
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
        );
        assert!(decode(b"").is_err());
        assert!(decode(b"k8s").is_err());
        // Every truncation of the real body fails cleanly or decodes a prefix-complete message.
        for len in 4..KUBECTL_CREATE_CONFIGMAP.len() {
            let _ = decode(&KUBECTL_CREATE_CONFIGMAP[..len]);
        }
        let truncated = &KUBECTL_CREATE_CONFIGMAP[..KUBECTL_CREATE_CONFIGMAP.len() - 3];
        let error = decode(truncated).unwrap_err();
        assert!(
            error.contains("failed to decode Protobuf message"),
            "{error}"
        );
        let unknown = envelope("apps/v1", "Deployment", Vec::new());
        assert_eq!(
            decode(&unknown).unwrap_err(),
            "rvlab decodes protobuf bodies of v1 ConfigMap, Secret and Namespace only, not apps/v1 Deployment; send JSON"
        );
        assert_eq!(
            decode(&envelope("", "", Vec::new())).unwrap_err(),
            "the protobuf envelope names no apiVersion and kind"
        );
        let mut gzip = Unknown::decode(&KUBECTL_CREATE_CONFIGMAP[4..]).unwrap();
        gzip.content_encoding = Some("gzip".into());
        let mut bytes = MAGIC.to_vec();
        bytes.extend(gzip.encode_to_vec());
        assert_eq!(
            decode(&bytes).unwrap_err(),
            "unsupported protobuf content encoding \"gzip\""
        );
        // Invalid UTF-8 in a string field.
        let mut bad = ConfigMap::default().encode_to_vec();
        bad.extend([0x12, 0x04, 0x0a, 0x02, 0xff, 0xfe]);
        let error = decode(&envelope("v1", "ConfigMap", bad)).unwrap_err();
        assert!(error.contains("UTF-8"), "{error}");
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode(&body);
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend(&body);
            let _ = decode(&with_magic);
        }

        #[test]
        fn mutated_real_bodies_never_panic(index in 0usize..64, byte in any::<u8>()) {
            let mut body = KUBECTL_CREATE_CONFIGMAP.to_vec();
            let at = index % body.len();
            body[at] = byte;
            let _ = decode(&body);
        }

        #[test]
        fn random_raw_config_maps_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..128)) {
            let _ = decode(&envelope("v1", "ConfigMap", raw.clone()));
            let _ = decode(&envelope("v1", "Namespace", raw));
        }
    }
}
