//! `meta.k8s.io/v1` Tables: what the apiserver answers `kubectl get` (human-readable output,
//! `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`; k8s.io/apiserver `pkg/endpoints/handlers/response.go`).
//!
//! Faithful to, at Kubernetes 1.32:
//! - the column definitions and cells of kubernetes/kubernetes
//!   `pkg/printers/internalversion/printers.go` (`configMapColumnDefinitions`/`printConfigMap`,
//!   `secretColumnDefinitions`/`printSecret`, `namespaceColumnDefinitions`/`printNamespace`,
//!   `deploymentColumnDefinitions`/`printDeployment`), generated with `Wide: true` as the
//!   server's `TableConvertor` always does (so the priority-1 Deployment cells are there; kubectl
//!   shows them only with `-o wide`); descriptions are the `SwaggerDoc` strings of k8s.io/api and
//!   apimachinery v0.32.5;
//! - for custom resources, the CRD table convertor with the logically defaulted columns of a CRD
//!   without `additionalPrinterColumns` (`serveDefaultColumnsIfEmpty`): `Name`, then `Age` of
//!   type `date`, its cell the humanized age (`cellForJSONValue`);
//! - the Age cell: `translateTimestampSince` = `duration.HumanDuration(time.Since(t))`
//!   ([`human_duration`]), `<unknown>` without a creation timestamp;
//! - the row objects (AS `pkg/endpoints/handlers/response.go`): `PartialObjectMetadata` with the
//!   object's whole `metadata` (`meta.AsPartialObjectMetadata`) for `includeObject` unset or
//!   `Metadata`, `null` for `None` (a nil `RawExtension`), the object itself for `Object`;
//! - the Table's `metadata`: the list's `resourceVersion` (and `continue` when set), or the
//!   object's for a single object (`GenerateTable`).
//!
//! Not modelled: `noHeaders` other than through [`watch_table`], row `conditions`, CRD
//! `additionalPrinterColumns` (the store has no CRDs), a Deployment's defaulted `spec.replicas`
//! (an object without it prints the default 1, which the real object would carry).

use super::meta::meta_str;
use super::{Resource, EPOCH_UNIX_SECONDS as EPOCH_SECONDS};
use serde_json::{Map, Value};

/// `includeObject` of the request's `TableOptions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    None,
    /// The default.
    #[default]
    Metadata,
    Object,
}

impl IncludeObject {
    /// The query parameter's value (`None`, `Metadata`, `Object`); `None` for anything else
    /// (the server answers that as a bad request).
    pub fn parse(s: &str) -> Option<IncludeObject> {
        match s {
            "None" => Some(IncludeObject::None),
            "Metadata" | "" => Some(IncludeObject::Metadata),
            "Object" => Some(IncludeObject::Object),
            _ => None,
        }
    }
}

const NAME_DOC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DOC: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const CONFIGMAP_DATA_DOC: &str = "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.";
const SECRET_TYPE_DOC: &str = "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
const SECRET_DATA_DOC: &str = "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4";
const DEPLOY_UPDATED_DOC: &str =
    "Total number of non-terminated pods targeted by this deployment that have the desired template spec.";
const DEPLOY_AVAILABLE_DOC: &str =
    "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.";
const DEPLOY_SELECTOR_DOC: &str = "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.";

/// The printer a resource uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Printer {
    ConfigMap,
    Secret,
    Namespace,
    Deployment,
    Custom,
}

fn printer(res: &Resource) -> Printer {
    match res {
        Resource::ConfigMap => Printer::ConfigMap,
        Resource::Secret => Printer::Secret,
        Resource::Namespace => Printer::Namespace,
        Resource::Deployment => Printer::Deployment,
        Resource::Custom { .. } => Printer::Custom,
    }
}

fn column(name: &str, ty: &str, format: &str, description: &str, priority: i32) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), name.into());
    m.insert("type".into(), ty.into());
    m.insert("format".into(), format.into());
    m.insert("description".into(), description.into());
    m.insert("priority".into(), priority.into());
    Value::Object(m)
}

/// The `columnDefinitions` of a resource's table.
pub fn column_definitions(res: &Resource) -> Value {
    let name = column("Name", "string", "name", NAME_DOC, 0);
    let age = column("Age", "string", "", AGE_DOC, 0);
    Value::Array(match printer(res) {
        Printer::ConfigMap => vec![
            name,
            column("Data", "string", "", CONFIGMAP_DATA_DOC, 0),
            age,
        ],
        Printer::Secret => vec![
            name,
            column("Type", "string", "", SECRET_TYPE_DOC, 0),
            column("Data", "string", "", SECRET_DATA_DOC, 0),
            age,
        ],
        Printer::Namespace => vec![
            name,
            column("Status", "string", "", "The status of the namespace", 0),
            age,
        ],
        Printer::Deployment => vec![
            name,
            column(
                "Ready",
                "string",
                "",
                "Number of the pod with ready state",
                0,
            ),
            column("Up-to-date", "string", "", DEPLOY_UPDATED_DOC, 0),
            column("Available", "string", "", DEPLOY_AVAILABLE_DOC, 0),
            age,
            column(
                "Containers",
                "string",
                "",
                "Names of each container in the template.",
                1,
            ),
            column(
                "Images",
                "string",
                "",
                "Images referenced by each container in the template.",
                1,
            ),
            column("Selector", "string", "", DEPLOY_SELECTOR_DOC, 1),
        ],
        Printer::Custom => vec![name, column("Age", "date", "", AGE_DOC, 0)],
    })
}

/// `len(map)` of an object field (0 when absent or not a map).
fn map_len(obj: &Value, key: &str) -> i64 {
    obj.get(key)
        .and_then(Value::as_object)
        .map_or(0, |m| i64::try_from(m.len()).unwrap_or(i64::MAX))
}

fn int_at(obj: &Value, path: &[&str]) -> Option<i64> {
    let mut v = obj;
    for p in path {
        v = v.get(*p)?;
    }
    v.as_i64()
}

/// `metav1.LabelSelectorAsSelector(sel).String()`: requirements sorted by key, `k=v`,
/// `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by `,`; `""` for a missing or empty
/// selector (`labels.Nothing()` / `labels.Everything()` both print empty); `<invalid>` for an
/// operator the conversion rejects.
fn selector_string(sel: Option<&Value>) -> String {
    let Some(sel) = sel.filter(|s| s.is_object()) else {
        return String::new();
    };
    // (key, rendered) pairs; sorted by key, stable for equal keys (Go's sort.Sort(ByKey) is not
    // stable, but equal keys with different requirements are rare enough not to matter here).
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in m {
            reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
        }
    }
    if let Some(exprs) = sel.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            let key = e.get("key").and_then(Value::as_str).unwrap_or("");
            let mut values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|vs| vs.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            crate::sort::sort(&mut values);
            values.dedup();
            let rendered = match e.get("operator").and_then(Value::as_str).unwrap_or("") {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_string(),
                "DoesNotExist" => format!("!{key}"),
                _ => return "<invalid>".into(),
            };
            reqs.push((key.to_string(), rendered));
        }
    }
    crate::sort::sort_by(&mut reqs, |a, b| a.0.cmp(&b.0));
    reqs.into_iter()
        .map(|(_, r)| r)
        .collect::<Vec<_>>()
        .join(",")
}

/// `layoutContainerCells`: container names and images, each joined by `,`.
fn containers(obj: &Value) -> (String, String) {
    let list = obj
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array);
    let mut names = Vec::new();
    let mut images = Vec::new();
    for c in list.into_iter().flatten() {
        names.push(c.get("name").and_then(Value::as_str).unwrap_or(""));
        images.push(c.get("image").and_then(Value::as_str).unwrap_or(""));
    }
    (names.join(","), images.join(","))
}

/// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix seconds of an RFC 3339 UTC timestamp as the store writes them (`2026-01-01T00:00:00Z`).
fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[19] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se)
}

/// apimachinery's `duration.HumanDuration` of `ms` milliseconds: ~2–3 significant figures
/// (`5s`, `119s`, `2m`, `3m2s`, `10m`, `179m`, `3h`, `7h59m`, `8h`, `47h`, `2d`, `2d3h`, `8d`,
/// `729d`, `2y`, `2y5d`, `8y`); `0s` down to -1.999… s, `<invalid>` below.
pub fn human_duration(ms: i64) -> String {
    let seconds = ms / 1000; // Go's int(d.Seconds()) truncates towards zero too.
    if seconds < -1 {
        return "<invalid>".into();
    } else if seconds < 0 {
        return "0s".into();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        }
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        }
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        }
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// The Age cell of an object at virtual time `now_ms` (`Env::now_ms`'s clock).
fn age(obj: &Value, now_ms: u64) -> String {
    let Some(created) = parse_rfc3339(meta_str(obj, "creationTimestamp")) else {
        return "<unknown>".into();
    };
    let now = i64::try_from(now_ms)
        .unwrap_or(i64::MAX / 2)
        .saturating_add(EPOCH_SECONDS.saturating_mul(1000));
    human_duration(now.saturating_sub(created.saturating_mul(1000)))
}

fn cells(res: &Resource, obj: &Value, now_ms: u64) -> Vec<Value> {
    let name = Value::from(meta_str(obj, "name"));
    let age = Value::from(age(obj, now_ms));
    match printer(res) {
        Printer::ConfigMap => vec![
            name,
            (map_len(obj, "data") + map_len(obj, "binaryData")).into(),
            age,
        ],
        Printer::Secret => vec![
            name,
            obj.get("type").and_then(Value::as_str).unwrap_or("").into(),
            map_len(obj, "data").into(),
            age,
        ],
        Printer::Namespace => vec![
            name,
            obj.pointer("/status/phase")
                .and_then(Value::as_str)
                .unwrap_or("")
                .into(),
            age,
        ],
        Printer::Deployment => {
            let desired = int_at(obj, &["spec", "replicas"]).unwrap_or(1);
            let status = |k: &str| int_at(obj, &["status", k]).unwrap_or(0);
            let (names, images) = containers(obj);
            vec![
                name,
                format!("{}/{desired}", status("readyReplicas")).into(),
                status("updatedReplicas").into(),
                status("availableReplicas").into(),
                age,
                names.into(),
                images.into(),
                selector_string(obj.pointer("/spec/selector")).into(),
            ]
        }
        Printer::Custom => vec![name, age],
    }
}

fn row_object(res: &Resource, obj: &Value, include: IncludeObject) -> Value {
    match include {
        IncludeObject::None => Value::Null,
        IncludeObject::Metadata => {
            let mut m = Map::new();
            m.insert("kind".into(), "PartialObjectMetadata".into());
            m.insert("apiVersion".into(), "meta.k8s.io/v1".into());
            m.insert(
                "metadata".into(),
                obj.get("metadata")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            );
            Value::Object(m)
        }
        IncludeObject::Object => {
            // List items of built-in kinds come without kind/apiVersion; the row carries them.
            let Some(o) = obj.as_object() else {
                return obj.clone();
            };
            if o.contains_key("kind") && o.contains_key("apiVersion") {
                return obj.clone();
            }
            let mut m = Map::new();
            m.insert("kind".into(), res.kind().into());
            m.insert("apiVersion".into(), res.api_version().into());
            for (k, v) in o {
                if k != "kind" && k != "apiVersion" {
                    m.insert(k.clone(), v.clone());
                }
            }
            Value::Object(m)
        }
    }
}

fn row(res: &Resource, obj: &Value, now_ms: u64, include: IncludeObject) -> Value {
    let mut m = Map::new();
    m.insert("cells".into(), Value::Array(cells(res, obj, now_ms)));
    m.insert("object".into(), row_object(res, obj, include));
    Value::Object(m)
}

fn build(
    list_or_object: &Value,
    res: &Resource,
    now_ms: u64,
    include: IncludeObject,
    headers: bool,
) -> Value {
    let items = list_or_object.get("items").and_then(Value::as_array);
    let mut meta = Map::new();
    let rv = match items {
        Some(_) => list_or_object
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or(""),
        None => meta_str(list_or_object, "resourceVersion"),
    };
    if !rv.is_empty() {
        meta.insert("resourceVersion".into(), rv.into());
    }
    if items.is_some() {
        if let Some(c) = list_or_object
            .pointer("/metadata/continue")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
        {
            meta.insert("continue".into(), c.into());
        }
    }
    let rows: Vec<Value> = match items {
        Some(items) => items.iter().map(|o| row(res, o, now_ms, include)).collect(),
        None => vec![row(res, list_or_object, now_ms, include)],
    };
    let mut t = Map::new();
    t.insert("kind".into(), "Table".into());
    t.insert("apiVersion".into(), "meta.k8s.io/v1".into());
    t.insert("metadata".into(), Value::Object(meta));
    t.insert(
        "columnDefinitions".into(),
        if headers {
            column_definitions(res)
        } else {
            Value::Null
        },
    );
    t.insert("rows".into(), Value::Array(rows));
    Value::Object(t)
}

/// The Table for a list (a body with `items`, as GET of a collection answers) or for one object,
/// at virtual time `now_ms` (the clock of `Env::now_ms`).
pub fn table(
    list_or_object: &Value,
    resource: &Resource,
    now_ms: u64,
    include_object: IncludeObject,
) -> Value {
    build(list_or_object, resource, now_ms, include_object, true)
}

/// The one-row Table of a watch event's object. The apiserver sends the column definitions
/// with the first event only (`NoHeaders` afterwards, AS `handlers/response.go`): `first`
/// says which this is; later ones carry `"columnDefinitions": null` (the nil slice).
pub fn watch_table(
    object: &Value,
    resource: &Resource,
    now_ms: u64,
    include_object: IncludeObject,
    first: bool,
) -> Value {
    build(object, resource, now_ms, include_object, first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn human_duration_follows_apimachinery_at_every_boundary() {
        let s = 1000;
        let m = 60 * s;
        let h = 60 * m;
        let d = 24 * h;
        let y = 365 * d;
        for (ms, want) in [
            (-2 * s, "<invalid>"),
            (-1999, "0s"),
            (-s, "0s"),
            (-999, "0s"),
            (0, "0s"),
            (999, "0s"),
            (5 * s, "5s"),
            (119 * s + 999, "119s"),
            (2 * m, "2m"),
            (3 * m + 2 * s, "3m2s"),
            (9 * m + 59 * s, "9m59s"),
            (10 * m, "10m"),
            (10 * m + 30 * s, "10m"),
            (179 * m + 59 * s, "179m"),
            (3 * h, "3h"),
            (3 * h + 5 * m, "3h5m"),
            (7 * h + 59 * m, "7h59m"),
            (8 * h, "8h"),
            (47 * h + 59 * m, "47h"),
            (2 * d, "2d"),
            (2 * d + 3 * h, "2d3h"),
            (7 * d + 23 * h, "7d23h"),
            (8 * d, "8d"),
            (729 * d, "729d"),
            (2 * y, "2y"),
            (2 * y + 5 * d, "2y5d"),
            (8 * y - d, "7y364d"),
            (8 * y, "8y"),
            (100 * y, "100y"),
        ] {
            assert_eq!(human_duration(ms), want, "{ms} ms");
        }
    }

    #[test]
    fn timestamps_parse_back() {
        assert_eq!(parse_rfc3339("2026-01-01T00:00:00Z"), Some(EPOCH_SECONDS));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2024-02-29T12:34:56Z"), Some(1_709_210_096));
        assert_eq!(parse_rfc3339("2024-02-29 12:34:56"), None);
        assert_eq!(parse_rfc3339(""), None);
    }

    #[test]
    fn selectors_print_as_labels_selector_string() {
        let sel = json!({"matchLabels":{"tier":"web","app":"x"},
                         "matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},
                                             {"key":"gone","operator":"DoesNotExist"},
                                             {"key":"b","operator":"Exists"},
                                             {"key":"zone","operator":"NotIn","values":["a"]}]});
        assert_eq!(
            selector_string(Some(&sel)),
            "app=x,b,env in (dev,prod),!gone,tier=web,zone notin (a)"
        );
        assert_eq!(selector_string(None), "");
        assert_eq!(selector_string(Some(&json!({}))), "");
        assert_eq!(
            selector_string(Some(
                &json!({"matchExpressions":[{"key":"a","operator":"Is"}]})
            )),
            "<invalid>"
        );
    }
}
