//! Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`): the `k8s\0`
//! envelope and `runtime.Unknown`, decoded to the JSON object. (Owned by the `wire` helper.)
//!
//! kubectl 1.32's typed client sends `kubectl create configmap|secret|namespace|deployment …`
//! bodies as protobuf, with no JSON fallback (k8s.io/apimachinery `pkg/runtime/serializer/protobuf`). This decodes them
//! into the JSON object a JSON client would have sent for the same object: the JSON Go's
//! `encoding/json` writes for the decoded struct (its field order, `omitempty`, the
//! `"creationTimestamp":null` of a zero `metav1.Time`, `spec`/`status` structs always present),
//! with `kind`/`apiVersion` from the envelope's `typeMeta`. `tests/wire_kubectl.rs` checks that
//! for every generator above, the decoded body equals kubectl's own `--dry-run=client -o json`.
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

#[derive(Clone, PartialEq, Message)]
struct LabelSelectorRequirement {
    #[prost(string, optional, tag = "1")]
    key: Option<String>,
    #[prost(string, optional, tag = "2")]
    operator: Option<String>,
    #[prost(string, repeated, tag = "3")]
    values: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct LabelSelector {
    #[prost(btree_map = "string, string", tag = "1")]
    match_labels: BTreeMap<String, String>,
    #[prost(message, repeated, tag = "2")]
    match_expressions: Vec<LabelSelectorRequirement>,
}

#[derive(Clone, PartialEq, Message)]
struct IntOrString {
    #[prost(int64, optional, tag = "1")]
    r#type: Option<i64>,
    #[prost(int32, optional, tag = "2")]
    int_val: Option<i32>,
    #[prost(string, optional, tag = "3")]
    str_val: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct RollingUpdateDeployment {
    #[prost(message, optional, tag = "1")]
    max_unavailable: Option<IntOrString>,
    #[prost(message, optional, tag = "2")]
    max_surge: Option<IntOrString>,
}

#[derive(Clone, PartialEq, Message)]
struct DeploymentStrategy {
    #[prost(string, optional, tag = "1")]
    r#type: Option<String>,
    #[prost(message, optional, tag = "2")]
    rolling_update: Option<RollingUpdateDeployment>,
}

#[derive(Clone, PartialEq, Message)]
struct ContainerPort {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    host_port: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    container_port: Option<i32>,
    #[prost(string, optional, tag = "4")]
    protocol: Option<String>,
    #[prost(string, optional, tag = "5")]
    host_ip: Option<String>,
}

/// `core/v1` EnvVar without `valueFrom` (3): a body using it is refused ([`Walk`]).
#[derive(Clone, PartialEq, Message)]
struct EnvVar {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    value: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Quantity {
    #[prost(string, optional, tag = "1")]
    string: Option<String>,
}

/// Without `claims` (3).
#[derive(Clone, PartialEq, Message)]
struct ResourceRequirements {
    #[prost(btree_map = "string, message", tag = "1")]
    limits: BTreeMap<String, Quantity>,
    #[prost(btree_map = "string, message", tag = "2")]
    requests: BTreeMap<String, Quantity>,
}

/// The `core/v1` Container fields `kubectl create deployment` can set, and a few more.
#[derive(Clone, PartialEq, Message)]
struct Container {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    image: Option<String>,
    #[prost(string, repeated, tag = "3")]
    command: Vec<String>,
    #[prost(string, repeated, tag = "4")]
    args: Vec<String>,
    #[prost(string, optional, tag = "5")]
    working_dir: Option<String>,
    #[prost(message, repeated, tag = "6")]
    ports: Vec<ContainerPort>,
    #[prost(message, repeated, tag = "7")]
    env: Vec<EnvVar>,
    #[prost(message, optional, tag = "8")]
    resources: Option<ResourceRequirements>,
    #[prost(string, optional, tag = "13")]
    termination_message_path: Option<String>,
    #[prost(string, optional, tag = "14")]
    image_pull_policy: Option<String>,
    #[prost(bool, optional, tag = "16")]
    stdin: Option<bool>,
    #[prost(bool, optional, tag = "17")]
    stdin_once: Option<bool>,
    #[prost(bool, optional, tag = "18")]
    tty: Option<bool>,
    #[prost(string, optional, tag = "20")]
    termination_message_policy: Option<String>,
}

/// A subset of `core/v1` PodSpec (containers and the plain scalars next to them).
#[derive(Clone, PartialEq, Message)]
struct PodSpec {
    #[prost(message, repeated, tag = "2")]
    containers: Vec<Container>,
    #[prost(string, optional, tag = "3")]
    restart_policy: Option<String>,
    #[prost(int64, optional, tag = "4")]
    termination_grace_period_seconds: Option<i64>,
    #[prost(int64, optional, tag = "5")]
    active_deadline_seconds: Option<i64>,
    #[prost(string, optional, tag = "6")]
    dns_policy: Option<String>,
    #[prost(btree_map = "string, string", tag = "7")]
    node_selector: BTreeMap<String, String>,
    #[prost(string, optional, tag = "8")]
    service_account_name: Option<String>,
    #[prost(string, optional, tag = "9")]
    service_account: Option<String>,
    #[prost(message, repeated, tag = "20")]
    init_containers: Vec<Container>,
}

#[derive(Clone, PartialEq, Message)]
struct PodTemplateSpec {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<PodSpec>,
}

#[derive(Clone, PartialEq, Message)]
struct DeploymentSpec {
    #[prost(int32, optional, tag = "1")]
    replicas: Option<i32>,
    #[prost(message, optional, tag = "2")]
    selector: Option<LabelSelector>,
    #[prost(message, optional, tag = "3")]
    template: Option<PodTemplateSpec>,
    #[prost(message, optional, tag = "4")]
    strategy: Option<DeploymentStrategy>,
    #[prost(int32, optional, tag = "5")]
    min_ready_seconds: Option<i32>,
    #[prost(int32, optional, tag = "6")]
    revision_history_limit: Option<i32>,
    #[prost(bool, optional, tag = "7")]
    paused: Option<bool>,
    #[prost(int32, optional, tag = "9")]
    progress_deadline_seconds: Option<i32>,
}

/// `apps/v1` Deployment. Its `status` (3) is not decoded: the apiserver resets a created
/// Deployment's status (its strategy's `PrepareForCreate`), so the JSON carries `"status":{}`.
#[derive(Clone, PartialEq, Message)]
struct Deployment {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<DeploymentSpec>,
}

/// The messages decoded here only in part. prost (like the apiserver's gogo code) skips
/// fields it does not declare; for these messages that would silently drop fields the
/// apiserver knows (a probe, a volume), so before decoding a Deployment its bytes are walked
/// and any field of these messages not in the list is refused unless it is zero or empty
/// (gogo writes every non-pointer field, `nodeName: ""` and `hostNetwork: false` included). (The other messages are
/// declared whole, except ObjectMeta's `managedFields`, which the apiserver overwrites.)
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Walk {
    Deployment,
    DeploymentSpec,
    PodTemplateSpec,
    PodSpec,
    Container,
    EnvVar,
    ResourceRequirements,
    /// Declared whole (or the apiserver ignores what is not): not walked further.
    Whole,
}

/// For each partly declared message: its name and the (field, message) pairs it may carry.
fn subset(message: Walk) -> Option<(&'static str, &'static [(u32, Walk)])> {
    use Walk::*;
    Some(match message {
        Deployment => ("Deployment", &[(1, Whole), (2, DeploymentSpec), (3, Whole)]),
        DeploymentSpec => (
            "DeploymentSpec",
            &[
                (1, Whole),
                (2, Whole),
                (3, PodTemplateSpec),
                (4, Whole),
                (5, Whole),
                (6, Whole),
                (7, Whole),
                (9, Whole),
            ],
        ),
        PodTemplateSpec => ("PodTemplateSpec", &[(1, Whole), (2, PodSpec)]),
        PodSpec => (
            "PodSpec",
            &[
                (2, Container),
                (3, Whole),
                (4, Whole),
                (5, Whole),
                (6, Whole),
                (7, Whole),
                (8, Whole),
                (9, Whole),
                (20, Container),
            ],
        ),
        Container => (
            "Container",
            &[
                (1, Whole),
                (2, Whole),
                (3, Whole),
                (4, Whole),
                (5, Whole),
                (6, Whole),
                (7, EnvVar),
                (8, ResourceRequirements),
                (13, Whole),
                (14, Whole),
                (16, Whole),
                (17, Whole),
                (18, Whole),
                (20, Whole),
            ],
        ),
        EnvVar => ("EnvVar", &[(1, Whole), (2, Whole)]),
        ResourceRequirements => ("ResourceRequirements", &[(1, Whole), (2, Whole)]),
        Whole => return None,
    })
}

/// Walks `bytes` as `message`, refusing a field the partial declarations would drop.
fn walk(mut bytes: &[u8], message: Walk) -> Result<(), String> {
    let Some((name, fields)) = subset(message) else {
        return Ok(());
    };
    while !bytes.is_empty() {
        let (tag, wire_type) =
            prost::encoding::decode_key(&mut bytes).map_err(|e| e.to_string())?;
        let inner = fields
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|&(_, inner)| inner);
        let refuse = || {
            format!(
                "rvlab does not decode field {tag} of a protobuf {name} (it decodes a subset of apps/v1 Deployment); send JSON"
            )
        };
        use prost::encoding::WireType;
        match wire_type {
            WireType::Varint => {
                let value =
                    prost::encoding::decode_varint(&mut bytes).map_err(|e| e.to_string())?;
                // gogo writes every non-pointer scalar, zero ones too: a zero is "unset".
                if inner.is_none() && value != 0 {
                    return Err(refuse());
                }
            }
            WireType::LengthDelimited => {
                let len = prost::encoding::decode_varint(&mut bytes).map_err(|e| e.to_string())?;
                let len = usize::try_from(len).map_err(|e| e.to_string())?;
                if len > bytes.len() {
                    return Err("failed to decode Protobuf message: buffer underflow".to_owned());
                }
                let (field, rest) = bytes.split_at(len);
                match inner {
                    Some(inner) => walk(field, inner)?,
                    // An empty string (always written by gogo) is unset; an empty message is
                    // a pointer to an empty struct, dropped (the default in every case here).
                    None if field.is_empty() => {}
                    None => return Err(refuse()),
                }
                bytes = rest;
            }
            WireType::SixtyFourBit | WireType::ThirtyTwoBit => {
                let len = if wire_type == WireType::SixtyFourBit {
                    8
                } else {
                    4
                };
                if len > bytes.len() {
                    return Err("failed to decode Protobuf message: buffer underflow".to_owned());
                }
                if inner.is_none() && bytes[..len].iter().any(|b| *b != 0) {
                    return Err(refuse());
                }
                bytes = &bytes[len..];
            }
            _ => {
                return Err(format!(
                    "unexpected wire type {wire_type:?} in a protobuf {name}"
                ))
            }
        }
    }
    Ok(())
}

/// Decodes a protobuf request body (the `k8s\0` magic, then a `runtime.Unknown` whose `raw`
/// is the object) to the JSON object a JSON client would have sent. Decoded kinds: `v1`
/// `ConfigMap`, `Secret`, `Namespace`, and `apps/v1` `Deployment` with the pod template
/// fields `kubectl create deployment` sets (a body with other PodSpec/Container fields is
/// refused with an error naming the field, never decoded with the field dropped). The error texts are for a 400's message: the magic's
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
        ("apps/v1", "Deployment") => {
            walk(&raw, Walk::Deployment)?;
            deployment(Deployment::decode(raw.as_slice()).map_err(|e| e.to_string())?)
        }
        ("", _) | (_, "") => {
            return Err("the protobuf envelope names no apiVersion and kind".to_owned());
        }
        _ => {
            return Err(format!(
                "rvlab decodes protobuf bodies of v1 ConfigMap, Secret, Namespace and apps/v1 Deployment only, not {api_version} {kind}; send JSON"
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
/// optional strings explicitly, as in k8s.io/apimachinery `pkg/apis/meta/v1/generated.pb.go`).
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

fn int_or_string(v: &IntOrString) -> Value {
    // intstr.IntOrString's MarshalJSON: type 1 is the string, otherwise the int.
    if v.r#type == Some(1) {
        json!(v.str_val.clone().unwrap_or_default())
    } else {
        json!(v.int_val.unwrap_or(0))
    }
}

fn label_selector(selector: LabelSelector) -> Value {
    let mut m = Map::new();
    if !selector.match_labels.is_empty() {
        m.insert("matchLabels".into(), string_map(selector.match_labels));
    }
    if !selector.match_expressions.is_empty() {
        let expressions: Vec<Value> = selector
            .match_expressions
            .into_iter()
            .map(|r| {
                let mut e = Map::new();
                e.insert("key".into(), json!(r.key.unwrap_or_default()));
                e.insert("operator".into(), json!(r.operator.unwrap_or_default()));
                if !r.values.is_empty() {
                    e.insert("values".into(), json!(r.values));
                }
                Value::Object(e)
            })
            .collect();
        m.insert("matchExpressions".into(), json!(expressions));
    }
    Value::Object(m)
}

/// Go's `omitempty` on a non-pointer scalar gogo always writes: absent when zero.
fn put_nonzero<T: Into<Value> + PartialEq + Default>(
    map: &mut Map<String, Value>,
    key: &str,
    value: Option<T>,
) {
    if let Some(value) = value.filter(|v| *v != T::default()) {
        map.insert(key.into(), value.into());
    }
}

/// A pointer field: present whenever set, zero included.
fn put_some<T: Into<Value>>(map: &mut Map<String, Value>, key: &str, value: Option<T>) {
    if let Some(value) = value {
        map.insert(key.into(), value.into());
    }
}

fn quantities(map: BTreeMap<String, Quantity>) -> Value {
    Value::Object(
        map.into_iter()
            .map(|(k, q)| (k, json!(q.string.unwrap_or_default())))
            .collect(),
    )
}

fn container(c: Container) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(c.name.unwrap_or_default()));
    put_string(&mut m, "image", c.image);
    if !c.command.is_empty() {
        m.insert("command".into(), json!(c.command));
    }
    if !c.args.is_empty() {
        m.insert("args".into(), json!(c.args));
    }
    put_string(&mut m, "workingDir", c.working_dir);
    if !c.ports.is_empty() {
        let ports: Vec<Value> = c
            .ports
            .into_iter()
            .map(|p| {
                let mut port = Map::new();
                put_string(&mut port, "name", p.name);
                put_nonzero(&mut port, "hostPort", p.host_port);
                port.insert("containerPort".into(), json!(p.container_port.unwrap_or(0)));
                put_string(&mut port, "protocol", p.protocol);
                put_string(&mut port, "hostIP", p.host_ip);
                Value::Object(port)
            })
            .collect();
        m.insert("ports".into(), json!(ports));
    }
    if !c.env.is_empty() {
        let env: Vec<Value> = c
            .env
            .into_iter()
            .map(|e| {
                let mut var = Map::new();
                var.insert("name".into(), json!(e.name.unwrap_or_default()));
                put_string(&mut var, "value", e.value);
                Value::Object(var)
            })
            .collect();
        m.insert("env".into(), json!(env));
    }
    let resources = c.resources.unwrap_or_default();
    let mut r = Map::new();
    if !resources.limits.is_empty() {
        r.insert("limits".into(), quantities(resources.limits));
    }
    if !resources.requests.is_empty() {
        r.insert("requests".into(), quantities(resources.requests));
    }
    m.insert("resources".into(), Value::Object(r));
    put_string(&mut m, "terminationMessagePath", c.termination_message_path);
    put_string(
        &mut m,
        "terminationMessagePolicy",
        c.termination_message_policy,
    );
    put_string(&mut m, "imagePullPolicy", c.image_pull_policy);
    put_nonzero(&mut m, "stdin", c.stdin);
    put_nonzero(&mut m, "stdinOnce", c.stdin_once);
    put_nonzero(&mut m, "tty", c.tty);
    Value::Object(m)
}

fn pod_spec(spec: PodSpec) -> Value {
    let mut m = Map::new();
    if !spec.init_containers.is_empty() {
        m.insert(
            "initContainers".into(),
            Value::Array(spec.init_containers.into_iter().map(container).collect()),
        );
    }
    // `containers` has no omitempty: a nil slice is `null`.
    m.insert(
        "containers".into(),
        if spec.containers.is_empty() {
            Value::Null
        } else {
            Value::Array(spec.containers.into_iter().map(container).collect())
        },
    );
    put_string(&mut m, "restartPolicy", spec.restart_policy);
    put_some(
        &mut m,
        "terminationGracePeriodSeconds",
        spec.termination_grace_period_seconds,
    );
    put_some(
        &mut m,
        "activeDeadlineSeconds",
        spec.active_deadline_seconds,
    );
    put_string(&mut m, "dnsPolicy", spec.dns_policy);
    if !spec.node_selector.is_empty() {
        m.insert("nodeSelector".into(), string_map(spec.node_selector));
    }
    put_string(&mut m, "serviceAccountName", spec.service_account_name);
    put_string(&mut m, "serviceAccount", spec.service_account);
    Value::Object(m)
}

fn deployment(d: Deployment) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("metadata".into(), object_meta(d.metadata));
    let spec = d.spec.unwrap_or_default();
    let mut s = Map::new();
    put_some(&mut s, "replicas", spec.replicas);
    if let Some(selector) = spec.selector {
        s.insert("selector".into(), label_selector(selector));
    }
    let template = spec.template.unwrap_or_default();
    s.insert(
        "template".into(),
        json!({"metadata": object_meta(template.metadata), "spec": pod_spec(template.spec.unwrap_or_default())}),
    );
    let strategy = spec.strategy.unwrap_or_default();
    let mut st = Map::new();
    put_string(&mut st, "type", strategy.r#type);
    if let Some(rolling) = strategy.rolling_update {
        let mut r = Map::new();
        if let Some(v) = &rolling.max_unavailable {
            r.insert("maxUnavailable".into(), int_or_string(v));
        }
        if let Some(v) = &rolling.max_surge {
            r.insert("maxSurge".into(), int_or_string(v));
        }
        st.insert("rollingUpdate".into(), Value::Object(r));
    }
    s.insert("strategy".into(), Value::Object(st));
    put_nonzero(&mut s, "minReadySeconds", spec.min_ready_seconds);
    put_some(&mut s, "revisionHistoryLimit", spec.revision_history_limit);
    put_nonzero(&mut s, "paused", spec.paused);
    put_some(
        &mut s,
        "progressDeadlineSeconds",
        spec.progress_deadline_seconds,
    );
    m.insert("spec".into(), Value::Object(s));
    m.insert("status".into(), json!({}));
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
            // gogo writes every optional string, empty ones too (apimachinery's `generated.pb.go`).
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
        let unknown = envelope("apps/v1", "StatefulSet", Vec::new());
        assert_eq!(
            decode(&unknown).unwrap_err(),
            "rvlab decodes protobuf bodies of v1 ConfigMap, Secret, Namespace and apps/v1 Deployment only, not apps/v1 StatefulSet; send JSON"
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

    /// A length-delimited field (tags and lengths under 16 and 128).
    fn ld(tag: u8, bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![(tag << 3) | 2, u8::try_from(bytes.len()).unwrap()];
        out.extend(bytes);
        out
    }

    /// A Deployment whose pod spec holds `pod_spec_fields` after one container.
    fn deployment_with(pod_spec_fields: &[u8]) -> Vec<u8> {
        let container = ld(1, b"web");
        let mut pod_spec = ld(2, &container);
        pod_spec.extend(pod_spec_fields);
        let template = ld(2, &pod_spec);
        let spec = ld(3, &template);
        let mut raw = ld(1, &ld(1, b"d"));
        raw.extend(ld(2, &spec));
        envelope("apps/v1", "Deployment", raw)
    }

    #[test]
    fn deployment_fields_outside_the_subset_are_refused_unless_empty() {
        // gogo's empty nodeName (10) and false hostNetwork (11): unset, accepted.
        let empty = deployment_with(&[0x52, 0x00, 0x58, 0x00]);
        assert_eq!(
            decode(&empty).unwrap().to_string(),
            concat!(
                r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d","creationTimestamp":null},"#,
                r#""spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"web","resources":{}}]}},"strategy":{}},"status":{}}"#
            )
        );
        // A nodeName, a volume (1), hostNetwork true: refused by name.
        assert_eq!(
            decode(&deployment_with(&ld(10, b"node-1"))).unwrap_err(),
            "rvlab does not decode field 10 of a protobuf PodSpec (it decodes a subset of apps/v1 Deployment); send JSON"
        );
        assert!(decode(&deployment_with(&ld(1, &ld(1, b"data"))))
            .unwrap_err()
            .contains("field 1 of a protobuf PodSpec"));
        assert!(decode(&deployment_with(&[0x58, 0x01]))
            .unwrap_err()
            .contains("field 11 of a protobuf PodSpec"));
        // A container's liveness probe (10).
        let container = [ld(1, b"web"), ld(10, &ld(1, b"x"))].concat();
        let template = ld(2, &ld(2, &container));
        let raw = ld(2, &ld(3, &template));
        assert_eq!(
            decode(&envelope("apps/v1", "Deployment", raw)).unwrap_err(),
            "rvlab does not decode field 10 of a protobuf Container (it decodes a subset of apps/v1 Deployment); send JSON"
        );
    }

    proptest! {
        #[test]
        fn random_raw_deployments_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode(&envelope("apps/v1", "Deployment", raw));
        }

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
