//! The apiserver's size limits and the metadata only it may set (issue #37; with the `api`
//! feature: the page's store does without, docs/size.md). Each rule names its upstream source;
//! every answer is checked against the reference's (`reference/corpus/limits.json`):
//! - annotations: keys are qualified names (any case), and keys and values together at most
//!   256 KiB (`ValidateAnnotations`, k8s.io/apimachinery `pkg/api/validation/objectmeta.go`);
//! - ConfigMap `data` and `binaryData`, Secret `data`: keys are config keys, a key is not in
//!   both of a ConfigMap's maps, and the values together at most 1 MiB (`ValidateConfigMap`,
//!   `ValidateSecret`, k8s.io/kubernetes `pkg/apis/core/validation/validation.go`; the size of
//!   a `[]byte` is its decoded length);
//! - on update, `deletionTimestamp` and `deletionGracePeriodSeconds` are immutable
//!   (`ValidateObjectMetaAccessorUpdate`): only a DELETE sets them. (`BeforeUpdate` has
//!   already put back the old ones where the update left them out.)

use super::status::FieldError;
use super::Resource;
use serde_json::Value;

/// `TotalAnnotationSizeLimitB`.
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;
/// `core.MaxSecretSize`, the limit of a ConfigMap's and a Secret's data.
pub const MAX_DATA_BYTES: usize = 1024 * 1024;

/// `validation.IsConfigMapKey`.
fn config_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if key.is_empty() || !key.chars().all(valid) {
        errs.push(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
                .to_string(),
        );
    }
    // `hasChDirPrefix`.
    if key == "." {
        errs.push("must not be '.'".to_string());
    } else if key == ".." {
        errs.push("must not be '..'".to_string());
    } else if key.starts_with("..") {
        errs.push("must not start with '..'".to_string());
    }
    errs
}

/// `ValidateAnnotations` of `metadata.annotations`.
pub(crate) fn annotation_errors(obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(annotations) = obj
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    else {
        return errs;
    };
    let mut size = 0;
    for (k, v) in annotations {
        // Go lowers the whole of Unicode; ASCII is enough here (a key with any other character
        // is invalid either way, but for the Kelvin sign, which Go lowers to `k`).
        for msg in super::selector::label_key_errors(&k.to_ascii_lowercase()) {
            errs.push(FieldError::invalid(
                "metadata.annotations",
                k.as_str().into(),
                &msg,
            ));
        }
        size += k.len() + v.as_str().map_or(0, str::len);
    }
    if size > MAX_ANNOTATIONS_BYTES {
        errs.push(FieldError::too_long(
            "metadata.annotations",
            MAX_ANNOTATIONS_BYTES,
        ));
    }
    errs
}

/// The keys and values of one of an object's string maps (`data`, `binaryData`).
fn entries<'a>(obj: &'a Value, key: &str) -> impl Iterator<Item = (&'a String, &'a str)> {
    obj.get(key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
}

/// A base64 value's decoded length (the decoder has already refused bad ones).
fn decoded_len(v: &str) -> usize {
    super::base64::decode(v).map_or(0, |b| b.len())
}

/// `ValidateConfigMap`'s and `ValidateSecret`'s checks of their data, after the metadata's.
pub(crate) fn data_errors(res: &Resource, obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut size = 0;
    let key_errors = |errs: &mut Vec<FieldError>, map: &str, k: &str| {
        for msg in config_key_errors(k) {
            errs.push(FieldError::invalid(&format!("{map}[{k}]"), k.into(), &msg));
        }
    };
    match res {
        Resource::ConfigMap => {
            let binary = obj.get("binaryData").and_then(Value::as_object);
            for (k, v) in entries(obj, "data") {
                key_errors(&mut errs, "data", k);
                if binary.is_some_and(|b| b.contains_key(k)) {
                    errs.push(FieldError::invalid(
                        &format!("data[{k}]"),
                        k.as_str().into(),
                        "duplicate of key present in binaryData",
                    ));
                }
                size += v.len();
            }
            for (k, v) in entries(obj, "binaryData") {
                key_errors(&mut errs, "binaryData", k);
                size += decoded_len(v);
            }
            if size > MAX_DATA_BYTES {
                // `field.NewPath("")`: the whole object, printed `[]`.
                errs.push(FieldError::too_long("[]", MAX_DATA_BYTES));
            }
        }
        Resource::Secret => {
            for (k, v) in entries(obj, "data") {
                key_errors(&mut errs, "data", k);
                size += decoded_len(v);
            }
            if size > MAX_DATA_BYTES {
                errs.push(FieldError::too_long("data", MAX_DATA_BYTES));
            }
        }
        _ => {}
    }
    errs
}

/// `deletionTimestamp` and `deletionGracePeriodSeconds` may not change in an update. A custom
/// resource's metadata is validated twice (as for its finalizers, `meta::validate`), so the
/// reference lists each cause twice.
pub(crate) fn deletion_field_errors(
    res: &Resource,
    obj: &Value,
    old: &Value,
    errs: &mut Vec<FieldError>,
) {
    for key in ["deletionTimestamp", "deletionGracePeriodSeconds"] {
        let new = obj.get("metadata").and_then(|m| m.get(key));
        let was = old.get("metadata").and_then(|m| m.get(key));
        let Some(new) = new.filter(|v| !v.is_null()) else {
            continue;
        };
        if was != Some(new) {
            let err = FieldError::invalid(
                &format!("metadata.{key}"),
                new.clone(),
                "field is immutable",
            );
            if matches!(res, Resource::Custom { .. }) {
                errs.push(err.clone());
            }
            errs.push(err);
        }
    }
}

/// Go's `time.Parse(time.RFC3339, s)` error, as `metav1.Time`'s decoder returns it (`None`: it
/// parses). Layout elements one by one, as the time package reports the first that fails:
/// `parsing time "X" as "2006-01-02T15:04:05Z07:00": cannot parse "REST" as "ELEMENT"`, a
/// field out of range, or extra text.
fn go_time_error(s: &str) -> Option<String> {
    const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
    let cannot = |rest: &str, elem: &str| {
        Some(format!(
            "parsing time {s:?} as {LAYOUT:?}: cannot parse {rest:?} as {elem:?}"
        ))
    };
    let range = |what: &str| Some(format!("parsing time {s:?}: {what} out of range"));
    let digits = |rest: &str, n: usize| -> Option<u32> {
        let d = rest.get(..n)?;
        d.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| d.parse().ok())?
    };
    let mut rest = s;
    let mut fields = [0u32; 6];
    let elems = [
        ("2006", 4),
        ("01", 2),
        ("02", 2),
        ("15", 2),
        ("04", 2),
        ("05", 2),
    ];
    let seps = ["-", "-", "T", ":", ":", ""];
    for (i, ((elem, n), sep)) in elems.iter().zip(seps).enumerate() {
        let Some(v) = digits(rest, *n) else {
            return cannot(rest, elem);
        };
        fields[i] = v;
        rest = &rest[*n..];
        if !sep.is_empty() {
            let Some(r) = rest.strip_prefix(sep) else {
                return cannot(rest, sep);
            };
            rest = r;
        }
    }
    // Fractional seconds after the seconds are accepted.
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        rest = &r[n..];
    }
    let zone_ok = rest.starts_with('Z')
        || (rest.len() >= 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && digits(&rest[1..], 2).is_some()
            && rest.as_bytes()[3] == b':'
            && digits(&rest[4..], 2).is_some());
    if !zone_ok {
        return cannot(rest, "Z07:00");
    }
    let after = rest.strip_prefix('Z').unwrap_or_else(|| &rest[6..]);
    if !after.is_empty() {
        return Some(format!("parsing time {s:?}: extra text: {after:?}"));
    }
    let [_, month, day, hour, minute, second] = fields;
    if !(1..=12).contains(&month) {
        return range("month");
    }
    if !(1..=31).contains(&day) {
        return range("day");
    }
    if hour > 23 {
        return range("hour");
    }
    if minute > 59 {
        return range("minute");
    }
    if second > 59 {
        return range("second");
    }
    None
}

/// The decoding error of a built-in kind's `metadata` beyond its strings (`meta::decode_check`
/// has those): times, integers and managedFields entries of the wrong type, as the apiserver's
/// JSON decoder words them (`None`: it decodes).
pub(crate) fn metadata_decode_error(meta: &Value) -> Option<String> {
    let json_type = crate::json::json_type;
    let wrong = |v: &Value, field: &str, ty: &str| {
        Some(format!(
            "json: cannot unmarshal {} into Go struct field {field} of type {ty}",
            json_type(v)
        ))
    };
    for key in ["creationTimestamp", "deletionTimestamp"] {
        match meta.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                if let Some(e) = go_time_error(s) {
                    return Some(e);
                }
            }
            // `metav1.Time.UnmarshalJSON` decodes a string first.
            Some(v) => return wrong(v, &format!("ObjectMeta.metadata.{key}"), "string"),
        }
    }
    for key in ["generation", "deletionGracePeriodSeconds"] {
        match meta.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.is_i64() => {}
            Some(v) => return wrong(v, &format!("ObjectMeta.metadata.{key}"), "int64"),
        }
    }
    match meta.get("managedFields") {
        None | Some(Value::Null) => {}
        Some(Value::Array(entries)) => {
            for e in entries {
                let Some(o) = e.as_object() else {
                    if e.is_null() {
                        continue;
                    }
                    return wrong(
                        e,
                        "ObjectMeta.metadata.managedFields",
                        "v1.ManagedFieldsEntry",
                    );
                };
                for key in [
                    "manager",
                    "operation",
                    "apiVersion",
                    "fieldsType",
                    "subresource",
                ] {
                    if let Some(v) = o.get(key).filter(|v| !v.is_string() && !v.is_null()) {
                        let ty = if key == "operation" {
                            "v1.ManagedFieldsOperationType"
                        } else {
                            "string"
                        };
                        return wrong(
                            v,
                            &format!("ManagedFieldsEntry.metadata.managedFields.{key}"),
                            ty,
                        );
                    }
                }
            }
        }
        Some(v) => {
            return wrong(
                v,
                "ObjectMeta.metadata.managedFields",
                "[]v1.ManagedFieldsEntry",
            )
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn config_keys_follow_is_config_map_key() {
        assert!(config_key_errors("a-b_c.d").is_empty());
        assert_eq!(config_key_errors("."), ["must not be '.'"]);
        assert_eq!(config_key_errors("..a"), ["must not start with '..'"]);
        assert_eq!(config_key_errors("a b").len(), 1);
        assert_eq!(config_key_errors(&"k".repeat(254)).len(), 1);
    }

    #[test]
    fn times_fail_as_go_parses_rfc3339() {
        assert_eq!(go_time_error("2020-01-02T03:04:05Z"), None);
        assert_eq!(go_time_error("2020-01-02T03:04:05.25+01:00"), None);
        assert_eq!(
            go_time_error("not-a-time").as_deref(),
            Some(
                r#"parsing time "not-a-time" as "2006-01-02T15:04:05Z07:00": cannot parse "not-a-time" as "2006""#
            )
        );
        assert_eq!(
            go_time_error("2020-13-02T03:04:05Z").as_deref(),
            Some(r#"parsing time "2020-13-02T03:04:05Z": month out of range"#)
        );
        assert_eq!(
            go_time_error("2020-01-02 03:04:05Z").as_deref(),
            Some(
                r#"parsing time "2020-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T""#
            )
        );
    }

    #[test]
    fn data_sizes_count_decoded_bytes() {
        let cm =
            json!({"data": {"a": "x".repeat(MAX_DATA_BYTES - 2)}, "binaryData": {"b": "eHg="}});
        assert!(data_errors(&Resource::ConfigMap, &cm).is_empty());
        let cm =
            json!({"data": {"a": "x".repeat(MAX_DATA_BYTES - 2)}, "binaryData": {"b": "eHh4"}});
        assert_eq!(data_errors(&Resource::ConfigMap, &cm).len(), 1);
    }
}
