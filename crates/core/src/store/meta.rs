//! Object metadata and shape: timestamps, resourceVersion parsing, the apiserver's JSON field
//! order, decoding checks (400), validation (422) and `generation`.
//!
//! Field order: built-in kinds print in Go struct order (`kind, apiVersion, metadata, …`; map
//! keys such as `data` or `labels` sorted, as Go's encoder sorts maps). Custom resources are
//! served from `unstructured` maps, which Go prints with **every key sorted**
//! (`apiVersion, kind, metadata{creationTimestamp, generation, managedFields, name, …}, spec`):
//! the store does the same, which is what a real cluster answers.

use super::status::{self, FieldError};
use super::{Resource, Response};
use crate::names::dns_subdomain_errors;
use serde_json::{Map, Value};

/// `ObjectMeta` fields in Go struct order; anything else in `metadata` is dropped.
const OBJECT_META_ORDER: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// `DeploymentSpec` fields in Go struct order (unknown fields follow in their given order).
pub(crate) const DEPLOYMENT_SPEC_ORDER: &[&str] = &[
    "replicas",
    "selector",
    "template",
    "strategy",
    "minReadySeconds",
    "revisionHistoryLimit",
    "paused",
    "progressDeadlineSeconds",
];

/// `DeploymentStatus` fields in Go struct order.
const DEPLOYMENT_STATUS_ORDER: &[&str] = &[
    "observedGeneration",
    "replicas",
    "updatedReplicas",
    "readyReplicas",
    "availableReplicas",
    "unavailableReplicas",
    "terminatingReplicas",
    "conditions",
    "collisionCount",
];

/// Its non-pointer counts (`omitempty`: 0 is not written), the first six of the order;
/// `terminatingReplicas` and `collisionCount` are pointers.
const DEPLOYMENT_STATUS_COUNTS: &[&str] = DEPLOYMENT_STATUS_ORDER.split_at(6).0;

/// Days since 1970-01-01 to a civil date (Howard Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Unix seconds as RFC 3339 UTC with second precision (`2026-01-01T00:00:00Z`).
pub(crate) fn rfc3339_unix(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The timestamp of virtual time `now_ms` (`EPOCH_UNIX_SECONDS + now_ms / 1000`).
pub(crate) fn timestamp(now_ms: u64) -> String {
    let secs = i64::try_from(now_ms / 1000).unwrap_or(i64::MAX / 2);
    rfc3339_unix(super::EPOCH_UNIX_SECONDS.saturating_add(secs))
}

/// The versioner's parse: `""` is 0, otherwise `strconv.ParseUint(rv, 10, 64)` with Go's error text.
pub(crate) fn parse_rv(rv: &str) -> Result<u64, String> {
    if rv.is_empty() {
        return Ok(0);
    }
    if !rv.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            status::quote(rv)
        ));
    }
    rv.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            status::quote(rv)
        )
    })
}

/// `metadata.KEY` as a string (`""` when absent or not a string).
pub(crate) fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Sets (or, with `Value::Null`, removes) `metadata.KEY`, creating `metadata` if needed.
pub(crate) fn set_meta(obj: &mut Value, key: &str, v: Value) {
    let Some(o) = obj.as_object_mut() else {
        return;
    };
    let meta = o
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Some(m) = meta.as_object_mut() {
        if v.is_null() {
            m.remove(key);
        } else {
            m.insert(key.into(), v);
        }
    }
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), m[k].clone()))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

fn sorted_deep(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted_deep(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted_deep).collect()),
        other => other.clone(),
    }
}

fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
    }
}

fn canonical_meta(meta: &Value) -> Value {
    let mut out = Map::new();
    let Some(m) = meta.as_object() else {
        return Value::Object(out);
    };
    for key in OBJECT_META_ORDER {
        if let Some(v) = m.get(*key) {
            // `deletionGracePeriodSeconds` is a pointer in Go: 0 is written, only nil omitted.
            // (Only the `api` feature's store marks objects as being deleted.)
            let pointer = super::API && *key == "deletionGracePeriodSeconds" && v.is_number();
            if is_empty_value(v) && !pointer {
                continue;
            }
            let v = match *key {
                "labels" | "annotations" => sorted(v),
                _ => v.clone(),
            };
            out.insert((*key).into(), v);
        }
    }
    Value::Object(out)
}

/// Puts an object into the form the apiserver serializes: field order, omitempty, unknown
/// top-level fields of built-in kinds dropped, `null` ConfigMap values decoded as `""`.
pub(crate) fn canonicalize(res: &Resource, obj: &Value) -> Value {
    let Some(o) = obj.as_object() else {
        return obj.clone();
    };
    let meta = canonical_meta(o.get("metadata").unwrap_or(&Value::Null));
    let mut out = Map::new();
    match res {
        Resource::ConfigMap => {
            out.insert("kind".into(), "ConfigMap".into());
            out.insert("apiVersion".into(), "v1".into());
            out.insert("metadata".into(), meta);
            if let Some(v @ Value::Bool(_)) = o.get("immutable") {
                out.insert("immutable".into(), v.clone());
            }
            for key in ["data", "binaryData"] {
                if let Some(Value::Object(m)) = o.get(key) {
                    if !m.is_empty() {
                        let m: Map<String, Value> = m
                            .iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    if v.is_null() {
                                        Value::from("")
                                    } else {
                                        v.clone()
                                    },
                                )
                            })
                            .collect();
                        out.insert(key.into(), sorted(&Value::Object(m)));
                    }
                }
            }
        }
        Resource::Secret if super::API => {
            out.insert("kind".into(), "Secret".into());
            out.insert("apiVersion".into(), "v1".into());
            out.insert("metadata".into(), meta);
            if let Some(v @ Value::Bool(_)) = o.get("immutable") {
                out.insert("immutable".into(), v.clone());
            }
            if let Some(Value::Object(m)) = o.get("data") {
                if !m.is_empty() {
                    let m: Map<String, Value> = m
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").into()))
                        .collect();
                    out.insert("data".into(), sorted(&Value::Object(m)));
                }
            }
            // `SetDefaults_Secret`: an empty type is `Opaque`.
            let ty = o
                .get("type")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .unwrap_or("Opaque");
            out.insert("type".into(), ty.into());
        }
        Resource::Namespace if super::API => {
            out.insert("kind".into(), "Namespace".into());
            out.insert("apiVersion".into(), "v1".into());
            out.insert("metadata".into(), meta);
            // Both are structs in Go, printed even when empty (`"spec":{}` once `…/finalize`
            // emptied its finalizers: the reference's answers).
            for key in ["spec", "status"] {
                let m: Map<String, Value> = match o.get(key) {
                    Some(Value::Object(m)) => m
                        .iter()
                        .filter(|(_, v)| !is_empty_value(v))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    _ => Map::new(),
                };
                out.insert(key.into(), Value::Object(m));
            }
        }
        Resource::Deployment => {
            out.insert("kind".into(), "Deployment".into());
            out.insert("apiVersion".into(), "apps/v1".into());
            out.insert("metadata".into(), meta);
            let spec = o.get("spec").cloned().unwrap_or(Value::Object(Map::new()));
            let mut s = Map::new();
            if let Some(sm) = spec.as_object() {
                for key in DEPLOYMENT_SPEC_ORDER {
                    if let Some(v) = sm.get(*key).filter(|v| !v.is_null()) {
                        s.insert((*key).into(), v.clone());
                    }
                }
                for (k, v) in sm {
                    if !DEPLOYMENT_SPEC_ORDER.contains(&k.as_str()) && !v.is_null() {
                        s.insert(k.clone(), v.clone());
                    }
                }
            }
            out.insert("spec".into(), Value::Object(s));
            // `DeploymentStatus` (k8s.io/api apps/v1 types.go) in Go field order; its counts
            // are non-pointer integers with `omitempty`, so a 0 is not written (the reference
            // drops a 0 a client writes), nor are empty conditions.
            if !super::API {
                // The page's store keeps the status as written (size, docs/size.md).
                let status = o
                    .get("status")
                    .cloned()
                    .unwrap_or(Value::Object(Map::new()));
                out.insert("status".into(), status);
                return Value::Object(out);
            }
            let mut st = Map::new();
            if let Some(sm) = o.get("status").and_then(Value::as_object) {
                let zero = |k: &str, v: &Value| {
                    DEPLOYMENT_STATUS_COUNTS.contains(&k) && v.as_f64() == Some(0.0)
                };
                for key in DEPLOYMENT_STATUS_ORDER {
                    if let Some(v) = sm.get(*key).filter(|v| !v.is_null()) {
                        let omitted = zero(key, v) || (*key == "conditions" && is_empty_value(v));
                        if !omitted {
                            st.insert((*key).into(), v.clone());
                        }
                    }
                }
                for (k, v) in sm {
                    if !DEPLOYMENT_STATUS_ORDER.contains(&k.as_str()) && !v.is_null() {
                        st.insert(k.clone(), v.clone());
                    }
                }
            }
            out.insert("status".into(), Value::Object(st));
        }
        // Only without the `api` feature, where no path names these kinds.
        Resource::Secret | Resource::Namespace => {}
        Resource::Custom { .. } => {
            for (k, v) in o {
                if k == "metadata" {
                    out.insert(k.clone(), meta.clone());
                } else {
                    out.insert(k.clone(), v.clone());
                }
            }
            out.insert("metadata".into(), meta);
            out.insert("kind".into(), res.kind().into());
            out.insert("apiVersion".into(), res.api_version().into());
            return sorted_deep(&Value::Object(out));
        }
    }
    Value::Object(out)
}

pub(crate) use crate::json::json_type;

/// `cannot unmarshal TYPE into Go struct field FIELDKEY of type TY`: one formatting site for the
/// decode errors below (docs/size.md).
fn unmarshal_error(v: &Value, field: &str, key: &str, ty: &str) -> String {
    format!(
        "cannot unmarshal {} into Go struct field {field}{key} of type {ty}",
        json_type(v)
    )
}

/// Checks that a body decodes into the Go type, as the apiserver's strict JSON decoder would;
/// failures are the 400 `Kind in version "v1" cannot be handled as a Kind: json: …` the
/// handlers return (`transformDecodeError`). A number in a ConfigMap's `data` is such a
/// failure in a real cluster (not a 422), so it is one here.
pub(crate) fn decode_check(res: &Resource, obj: &Value) -> Result<(), Response> {
    let kind = res.kind();
    let fail = |what: String| -> Result<(), Response> {
        Err(status::bad_request(&format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: json: {what}"
        )))
    };
    let Some(o) = obj.as_object() else {
        // The codec fails before it knows the kind.
        return Err(status::bad_request(&format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}",
            json_type(obj)
        )));
    };
    let type_name = kind.as_str();
    if let Some(meta) = o.get("metadata") {
        if !meta.is_object() && !meta.is_null() {
            return fail(unmarshal_error(
                meta,
                type_name,
                ".metadata",
                "v1.ObjectMeta",
            ));
        }
        for key in ["labels", "annotations"] {
            match meta.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => {
                    for v in m.values() {
                        if !v.is_string() && !v.is_null() {
                            return fail(unmarshal_error(v, "ObjectMeta.metadata.", key, "string"));
                        }
                    }
                }
                Some(v) => {
                    return fail(unmarshal_error(
                        v,
                        "ObjectMeta.metadata.",
                        key,
                        "map[string]string",
                    ))
                }
            }
        }
        for key in [
            "name",
            "namespace",
            "resourceVersion",
            "uid",
            "generateName",
        ] {
            if let Some(v) = meta.get(key).filter(|v| !v.is_string() && !v.is_null()) {
                return fail(unmarshal_error(v, "ObjectMeta.metadata.", key, "string"));
            }
        }
        #[cfg(feature = "api")]
        if !matches!(res, Resource::Custom { .. }) {
            if let Some(what) = super::bounds::metadata_decode_error(meta) {
                return Err(status::bad_request(&format!(
                    "{kind} in version \"v1\" cannot be handled as a {kind}: {what}"
                )));
            }
        }
    }
    match res {
        Resource::ConfigMap => {
            for key in ["data", "binaryData"] {
                match o.get(key) {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(m)) => {
                        for v in m.values() {
                            if !v.is_string() && !v.is_null() {
                                let ty = if key == "data" { "string" } else { "[]uint8" };
                                return fail(unmarshal_error(v, "ConfigMap.", key, ty));
                            }
                            // `[]byte` decodes from base64 (the decoder's own error, without
                            // `json: `, as a Secret's `data`).
                            #[cfg(feature = "api")]
                            if let (true, Some(Err(at))) =
                                (key == "binaryData", v.as_str().map(super::base64::decode))
                            {
                                return Err(status::bad_request(&format!(
                                    "{kind} in version \"v1\" cannot be handled as a {kind}: illegal base64 data at input byte {at}"
                                )));
                            }
                        }
                    }
                    Some(v) => {
                        let ty = if key == "data" {
                            "map[string]string"
                        } else {
                            "map[string][]uint8"
                        };
                        return fail(unmarshal_error(v, "ConfigMap.", key, ty));
                    }
                }
            }
        }
        Resource::Deployment => match o.get("spec") {
            None | Some(Value::Null) => {}
            Some(Value::Object(spec)) => match spec.get("replicas") {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    let ok = n.as_i64().is_some_and(|i| i32::try_from(i).is_ok());
                    if !ok {
                        return fail(format!(
                            "cannot unmarshal number {n} into Go struct field DeploymentSpec.spec.replicas of type int32"
                        ));
                    }
                }
                Some(v) => {
                    return fail(unmarshal_error(
                        v,
                        "DeploymentSpec.spec.",
                        "replicas",
                        "int32",
                    ))
                }
            },
            Some(v) => {
                return fail(unmarshal_error(
                    v,
                    "Deployment.",
                    "spec",
                    "v1.DeploymentSpec",
                ))
            }
        },
        Resource::Secret if super::API => {
            for (key, elem, map_ty) in [
                ("data", "[]uint8", "map[string][]uint8"),
                ("stringData", "string", "map[string]string"),
            ] {
                match o.get(key) {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(m)) => {
                        for v in m.values() {
                            match v {
                                Value::Null => {}
                                Value::String(s) if super::API && key == "data" => {
                                    // `[]byte` decodes from base64; the error is the decoder's
                                    // own, without `json: `.
                                    if let Err(at) = super::base64::decode(s) {
                                        return Err(status::bad_request(&format!(
                                            "{kind} in version \"v1\" cannot be handled as a {kind}: illegal base64 data at input byte {at}"
                                        )));
                                    }
                                }
                                Value::String(_) => {}
                                v => return fail(unmarshal_error(v, "Secret.", key, elem)),
                            }
                        }
                    }
                    Some(v) => return fail(unmarshal_error(v, "Secret.", key, map_ty)),
                }
            }
            if let Some(v) = o.get("type").filter(|v| !v.is_string() && !v.is_null()) {
                return fail(unmarshal_error(v, "Secret.", "type", "v1.SecretType"));
            }
        }
        Resource::Namespace if super::API => {
            if let Some(v) = o.get("spec").filter(|v| !v.is_object() && !v.is_null()) {
                return fail(unmarshal_error(v, "Namespace.", "spec", "v1.NamespaceSpec"));
            }
        }
        Resource::Secret | Resource::Namespace | Resource::Custom { .. } => {}
    }
    Ok(())
}

/// `Convert_v1_Secret_To_core_Secret`: `stringData` overwrites `data` (base64-encoded) and is
/// never stored. Runs on a body that passed [`decode_check`].
pub(crate) fn merge_string_data(obj: &mut Value) {
    let Some(o) = obj.as_object_mut() else {
        return;
    };
    let Some(Value::Object(sd)) = o.shift_remove("stringData") else {
        return;
    };
    if sd.is_empty() {
        return;
    }
    if !matches!(o.get("data"), Some(Value::Object(_))) {
        o.insert("data".into(), Value::Object(Map::new()));
    }
    if let Some(Value::Object(data)) = o.get_mut("data") {
        for (k, v) in sd {
            let text = v.as_str().unwrap_or("");
            data.insert(k, super::base64::encode(text.as_bytes()).into());
        }
    }
}

/// Validation shared by create and update (422 field errors). Kept to what the facts support:
/// the name is a DNS subdomain, a Deployment's `spec.replicas` is not negative, and on update
/// `metadata.uid` is immutable.
pub(crate) fn validate(res: &Resource, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = meta_str(obj, "name");
    if old.is_none() {
        if name.is_empty() {
            errs.push(FieldError::required(
                "metadata.name",
                "name or generateName is required",
            ));
        } else if super::API && *res == Resource::Namespace {
            for msg in crate::names::dns_label_errors(name) {
                errs.push(FieldError::invalid("metadata.name", name.into(), msg));
            }
        } else {
            for msg in dns_subdomain_errors(name) {
                errs.push(FieldError::invalid("metadata.name", name.into(), msg));
            }
        }
    }
    // `ValidateLabels` (k8s.io/apimachinery `pkg/apis/meta/v1/validation`), after the name:
    // each key, then its value, all reported at `metadata.labels` (keys in the stored order;
    // Go walks the map in random order). With the `api` feature (docs/size.md).
    #[cfg(feature = "api")]
    if let Some(labels) = obj.pointer("/metadata/labels").and_then(Value::as_object) {
        for (k, v) in labels {
            for msg in super::selector::label_key_errors(k) {
                errs.push(FieldError::invalid(
                    "metadata.labels",
                    k.as_str().into(),
                    &msg,
                ));
            }
            let v = v.as_str().unwrap_or("");
            for msg in super::selector::label_value_errors(v) {
                errs.push(FieldError::invalid("metadata.labels", v.into(), &msg));
            }
        }
    }
    #[cfg(feature = "api")]
    errs.extend(super::bounds::annotation_errors(obj));
    if let Some(old) = old {
        let (u_new, u_old) = (meta_str(obj, "uid"), meta_str(old, "uid"));
        if u_new != u_old {
            errs.push(FieldError::invalid(
                "metadata.uid",
                u_new.into(),
                "field is immutable",
            ));
        }
    }
    #[cfg(feature = "api")]
    if let Some(old) = old {
        super::bounds::deletion_field_errors(res, obj, old, &mut errs);
    }
    if let (Some(old), true) = (old, super::API) {
        // `ValidateObjectMetaUpdate` (k8s.io/apimachinery `pkg/api/validation/objectmeta.go`):
        // "Finalizers cannot be added if the object is already being deleted."
        // Plain vectors, not a `BTreeSet<String>`: the finalizer lists are short, and one more
        // B-tree instantiation is kilobytes of the page's wasm (docs/size.md).
        fn list(o: &Value) -> Vec<&str> {
            o.get("metadata")
                .and_then(|m| m.get("finalizers"))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default()
        }
        let deleting = old
            .get("metadata")
            .and_then(|m| m.get("deletionTimestamp"))
            .is_some();
        let before = list(old);
        // The new ones, sorted and once each (`sets.String.List()`), inserted in place: no
        // sort instantiation for `&str` in the page.
        let mut new: Vec<&str> = Vec::new();
        for f in list(obj) {
            if !before.contains(&f) && !new.contains(&f) {
                let at = new.iter().position(|n| *n > f).unwrap_or(new.len());
                new.insert(at, f);
            }
        }
        let extra: Vec<String> = new.iter().map(|f| super::status::quote(f)).collect();
        if deleting && !extra.is_empty() {
            // `ValidateNoNewFinalizers`: the new ones sorted, as Go prints a []string with %#v.
            let err = FieldError::forbidden(
                "metadata.finalizers",
                &format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    extra.join(", ")
                ),
            );
            // A custom resource's metadata is validated twice: by `BeforeUpdate`'s common
            // fields (k8s.io/apiserver `pkg/registry/rest/update.go`) and by its validator's
            // `validateObjectMetaUpdateDeclaratively` (apiextensions-apiserver
            // `pkg/registry/customresource/validator.go`): the reference lists the cause twice.
            if matches!(res, Resource::Custom { .. }) {
                errs.push(err.clone());
            }
            errs.push(err);
        }
    }
    if let (Resource::Secret, Some(old), true) = (res, old, super::API) {
        // `ValidateSecretUpdate`: the type is immutable.
        let ty = |o: &Value| {
            o.get("type")
                .and_then(Value::as_str)
                .unwrap_or("Opaque")
                .to_string()
        };
        if ty(obj) != ty(old) {
            errs.push(FieldError::invalid(
                "type",
                ty(obj).into(),
                "field is immutable",
            ));
        }
    }
    #[cfg(feature = "api")]
    errs.extend(super::bounds::data_errors(res, obj));
    if *res == Resource::Deployment {
        if let Some(r) = obj
            .get("spec")
            .and_then(|s| s.get("replicas"))
            .and_then(Value::as_i64)
        {
            if r < 0 {
                errs.push(FieldError::invalid(
                    "spec.replicas",
                    r.into(),
                    "must be greater than or equal to 0",
                ));
            }
        }
    }
    errs
}

fn without_metadata(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("metadata");
    }
    v
}

/// `metadata.generation` after an update: frozen for ConfigMaps; +1 for a Deployment when its
/// spec or annotations change; +1 for a custom resource on any change outside `metadata`.
pub(crate) fn generation_after_update(res: &Resource, old: &Value, new: &Value) -> Value {
    let old_gen = old
        .get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let changed = match res {
        Resource::ConfigMap | Resource::Secret | Resource::Namespace => false,
        Resource::Deployment => {
            old.get("spec") != new.get("spec")
                || old.get("metadata").and_then(|m| m.get("annotations"))
                    != new.get("metadata").and_then(|m| m.get("annotations"))
        }
        Resource::Custom { .. } => without_metadata(old) != without_metadata(new),
    };
    let g = if changed { old_gen + 1 } else { old_gen };
    if g == 0 {
        Value::Null
    } else {
        g.into()
    }
}

/// `metadata.generation` on create (1, or none for ConfigMaps, Secrets and Namespaces).
pub(crate) fn generation_on_create(res: &Resource) -> Value {
    match res {
        Resource::ConfigMap | Resource::Secret | Resource::Namespace => Value::Null,
        _ => 1.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_format_from_the_epoch() {
        assert_eq!(rfc3339_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(0), "2026-01-01T00:00:00Z");
        assert_eq!(timestamp(1_500), "2026-01-01T00:00:01Z");
        assert_eq!(rfc3339_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_unix(1_709_164_799), "2024-02-28T23:59:59Z");
        assert_eq!(rfc3339_unix(-1), "1969-12-31T23:59:59Z");
        // 2026-01-01 + 59 days + 13:46:40.
        assert_eq!(
            timestamp(59 * 86_400_000 + 49_600_000),
            "2026-03-01T13:46:40Z"
        );
    }

    #[test]
    fn rv_parse_like_go() {
        assert_eq!(parse_rv(""), Ok(0));
        assert_eq!(parse_rv("0"), Ok(0));
        assert_eq!(parse_rv("007"), Ok(7));
        assert_eq!(
            parse_rv("abc").unwrap_err(),
            "strconv.ParseUint: parsing \"abc\": invalid syntax"
        );
        assert!(parse_rv("+1").is_err());
        assert!(parse_rv("-1").is_err());
        assert!(parse_rv("99999999999999999999")
            .unwrap_err()
            .ends_with("value out of range"));
    }

    #[test]
    fn dns_names() {
        assert!(dns_subdomain_errors("my-config").is_empty());
        assert!(dns_subdomain_errors("a.b-c.d").is_empty());
        assert_eq!(dns_subdomain_errors("Bad_Name").len(), 1);
        assert_eq!(dns_subdomain_errors("-a").len(), 1);
        assert_eq!(dns_subdomain_errors("a..b").len(), 1);
        assert_eq!(dns_subdomain_errors(&"a".repeat(254)).len(), 1);
    }

    #[test]
    fn canonical_orders() {
        let cm = json!({"data": {"b": "2", "a": "1"}, "metadata": {"labels": {}, "uid": "u", "name": "x"}, "apiVersion": "v1", "kind": "ConfigMap", "junk": 1});
        assert_eq!(
            canonicalize(&Resource::ConfigMap, &cm).to_string(),
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","uid":"u"},"data":{"a":"1","b":"2"}}"#
        );
        let cr = Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into(),
        };
        let w = json!({"spec": {"z": 1, "a": 2}, "metadata": {"name": "w"}});
        assert_eq!(
            canonicalize(&cr, &w).to_string(),
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":2,"z":1}}"#
        );
    }
}
