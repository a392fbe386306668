//! `fieldValidation` (`Strict` / `Warn` / `Ignore`) on POST, PUT and PATCH: unknown fields in a
//! body (k8s.io/apiserver `pkg/endpoints/handlers/rest.go`, KEP-2885).
//!
//! What the apiserver does (AS `pkg/endpoints/handlers/{create,update,patch,rest}.go`, AM
//! `pkg/runtime/error.go`, at 1.32):
//! - the directive is the `fieldValidation` query parameter; absent means `Warn`
//!   (`fieldValidation("")` in `rest.go`), so the default answer is a success with warnings;
//! - the unknown fields are reported as sigs.k8s.io/json does, `unknown field "PATH"` with a
//!   dotted path and `[i]` for list items (`spec.template.spec.containers[0].foo`), in the
//!   order of the document; several are joined by `, ` after one `strict decoding error: `
//!   (`strictDecodingError.Error()`);
//! - POST / PUT, `Strict`: 400 `Kind in version "v1" cannot be handled as a Kind: strict
//!   decoding error: unknown field "spec"` (`transformDecodeError`); a type error of the same
//!   body wins (it is reported instead);
//! - PATCH (JSON, merge and strategic merge patch): the patched object is decoded strictly;
//!   `Strict`: 422 `NewInvalid(GroupKind{}, "", [patch: Invalid value: V: strict decoding
//!   error: …])`, message ` "" is invalid: patch: Invalid value: …` (the leading space is
//!   Go's: the empty GroupKind prints as nothing). V is the patched JSON for JSON and merge
//!   patches (`jsonPatcher`: `string(patchedObjJS)`) and the patch as Go prints a map
//!   (`fmt.Sprintf("%+v", patchMap)`, `map[data:map[k:v]]`) for strategic ones
//!   (`applyPatchToObject`). evanphx's JSON and merge patches re-marshal the maps they touch,
//!   so the patched JSON's top-level keys are sorted (done here) while untouched subtrees keep
//!   the stored order; numbers, and Go's HTML escaping of `<>&`, may differ from the real
//!   bytes. The unknown fields of a patch come in sorted order (the re-marshalled maps for JSON
//!   and merge patches; `FromUnstructuredWithValidation` sorts its errors for strategic ones);
//! - `Warn`: the write goes on; each unknown field is one warning, `unknown field "spec.foo"`,
//!   the text of one `Warning: 299 - "…"` header ([`super::Outcome::warnings`]);
//! - `Ignore`: nothing.
//!
//! An unsupported directive (`fieldValidation=strict`) is the options' 422 (`Unsupported
//! value`), before the body is read.
//!
//! Not modelled: duplicate fields (`duplicate field "x"`: bodies reach the store already
//! parsed), server-side apply (its unknown fields are a schema error of the typed patch, not a
//! `fieldValidation` matter), and
//! custom resources (the store has no CRD schemas: every field is kept, as with
//! `x-kubernetes-preserve-unknown-fields`).
//!
//! **How far the known fields go.** ConfigMap, Secret, Namespace and ObjectMeta (with
//! `ownerReferences` and `managedFields` entries) completely; Deployment: every field of
//! `DeploymentSpec`, `DeploymentStrategy`, `DeploymentStatus` and its conditions, the label
//! selector, the pod template's metadata, every field of `PodSpec` and of a `Container`, a
//! container's `ports`, `env` and `envFrom` items; below those (probes, resources, volumes,
//! security contexts, affinity, …) anything is accepted. Issue #18 will bring the real schema
//! (the OpenAPI of k8s.io/api); until then those deeper typos go through.

use super::status::{self, FieldError};
use super::Resource;
use serde_json::Value;

/// The `fieldValidation` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Directive {
    Strict,
    Warn,
    Ignore,
}

/// The first `fieldValidation` value of a request path's query, raw (`None` when absent).
fn raw_directive(path: &str) -> Option<&str> {
    let query = path.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("fieldValidation="))
}

/// The directive of a request path's query (`fieldValidation=…`, the first one given); absent:
/// `Warn`. An unsupported value is refused by [`directive_errors`] first; here it is `Warn`.
pub(crate) fn directive(path: &str) -> Directive {
    match raw_directive(path) {
        Some("Strict") => Directive::Strict,
        Some("Ignore") => Directive::Ignore,
        _ => Directive::Warn,
    }
}

/// `ValidateFieldValidation` of the request's options (`CreateOptions`, `UpdateOptions`,
/// `PatchOptions`, after `dryRun`: the handler puts them in one 422, `CreateOptions.meta.k8s.io
/// "" is invalid: fieldValidation: Unsupported value: "x": supported values: "", "Ignore",
/// "Strict", "Warn"`).
pub(crate) fn directive_errors(path: &str) -> Vec<FieldError> {
    match raw_directive(path) {
        None | Some("" | "Strict" | "Warn" | "Ignore") => Vec::new(),
        Some(v) => vec![FieldError::not_supported(
            "fieldValidation",
            Value::String(v.to_string()),
            &["", "Ignore", "Strict", "Warn"],
        )],
    }
}

/// A type in the known-field tree.
#[derive(Clone, Copy)]
enum Ty {
    /// Anything (a leaf, a free map, or a struct we do not check).
    Any,
    /// A struct: its fields.
    Struct(&'static [(&'static str, Ty)]),
    /// A list of structs.
    List(&'static [(&'static str, Ty)]),
}

use Ty::{Any, List, Struct};

const OWNER_REFERENCE: &[(&str, Ty)] = &[
    ("apiVersion", Any),
    ("kind", Any),
    ("name", Any),
    ("uid", Any),
    ("controller", Any),
    ("blockOwnerDeletion", Any),
];
const MANAGED_FIELDS_ENTRY: &[(&str, Ty)] = &[
    ("manager", Any),
    ("operation", Any),
    ("apiVersion", Any),
    ("time", Any),
    ("fieldsType", Any),
    ("fieldsV1", Any),
    ("subresource", Any),
];
const OBJECT_META: &[(&str, Ty)] = &[
    ("name", Any),
    ("generateName", Any),
    ("namespace", Any),
    ("selfLink", Any),
    ("uid", Any),
    ("resourceVersion", Any),
    ("generation", Any),
    ("creationTimestamp", Any),
    ("deletionTimestamp", Any),
    ("deletionGracePeriodSeconds", Any),
    ("labels", Any),
    ("annotations", Any),
    ("ownerReferences", List(OWNER_REFERENCE)),
    ("finalizers", Any),
    ("managedFields", List(MANAGED_FIELDS_ENTRY)),
];
const CONFIGMAP: &[(&str, Ty)] = &[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", Struct(OBJECT_META)),
    ("immutable", Any),
    ("data", Any),
    ("binaryData", Any),
];
const SECRET: &[(&str, Ty)] = &[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", Struct(OBJECT_META)),
    ("immutable", Any),
    ("data", Any),
    ("stringData", Any),
    ("type", Any),
];
const NAMESPACE_CONDITION: &[(&str, Ty)] = &[
    ("type", Any),
    ("status", Any),
    ("lastTransitionTime", Any),
    ("reason", Any),
    ("message", Any),
];
const NAMESPACE: &[(&str, Ty)] = &[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", Struct(OBJECT_META)),
    ("spec", Struct(&[("finalizers", Any)])),
    (
        "status",
        Struct(&[("phase", Any), ("conditions", List(NAMESPACE_CONDITION))]),
    ),
];
const LABEL_SELECTOR: &[(&str, Ty)] = &[
    ("matchLabels", Any),
    (
        "matchExpressions",
        List(&[("key", Any), ("operator", Any), ("values", Any)]),
    ),
];
const CONTAINER: &[(&str, Ty)] = &[
    ("name", Any),
    ("image", Any),
    ("command", Any),
    ("args", Any),
    ("workingDir", Any),
    (
        "ports",
        List(&[
            ("name", Any),
            ("hostPort", Any),
            ("containerPort", Any),
            ("protocol", Any),
            ("hostIP", Any),
        ]),
    ),
    (
        "envFrom",
        List(&[("prefix", Any), ("configMapRef", Any), ("secretRef", Any)]),
    ),
    (
        "env",
        List(&[("name", Any), ("value", Any), ("valueFrom", Any)]),
    ),
    ("resources", Any),
    ("resizePolicy", Any),
    ("restartPolicy", Any),
    ("volumeMounts", Any),
    ("volumeDevices", Any),
    ("livenessProbe", Any),
    ("readinessProbe", Any),
    ("startupProbe", Any),
    ("lifecycle", Any),
    ("terminationMessagePath", Any),
    ("terminationMessagePolicy", Any),
    ("imagePullPolicy", Any),
    ("securityContext", Any),
    ("stdin", Any),
    ("stdinOnce", Any),
    ("tty", Any),
];
const POD_SPEC: &[(&str, Ty)] = &[
    ("volumes", Any),
    ("initContainers", List(CONTAINER)),
    ("containers", List(CONTAINER)),
    ("ephemeralContainers", Any),
    ("restartPolicy", Any),
    ("terminationGracePeriodSeconds", Any),
    ("activeDeadlineSeconds", Any),
    ("dnsPolicy", Any),
    ("nodeSelector", Any),
    ("serviceAccountName", Any),
    ("serviceAccount", Any),
    ("automountServiceAccountToken", Any),
    ("nodeName", Any),
    ("hostNetwork", Any),
    ("hostPID", Any),
    ("hostIPC", Any),
    ("shareProcessNamespace", Any),
    ("securityContext", Any),
    ("imagePullSecrets", Any),
    ("hostname", Any),
    ("subdomain", Any),
    ("affinity", Any),
    ("schedulerName", Any),
    ("tolerations", Any),
    ("hostAliases", Any),
    ("priorityClassName", Any),
    ("priority", Any),
    ("dnsConfig", Any),
    ("readinessGates", Any),
    ("runtimeClassName", Any),
    ("enableServiceLinks", Any),
    ("preemptionPolicy", Any),
    ("overhead", Any),
    ("topologySpreadConstraints", Any),
    ("setHostnameAsFQDN", Any),
    ("os", Any),
    ("hostUsers", Any),
    ("schedulingGates", Any),
    ("resourceClaims", Any),
    ("resources", Any),
];
const DEPLOYMENT_CONDITION: &[(&str, Ty)] = &[
    ("type", Any),
    ("status", Any),
    ("lastUpdateTime", Any),
    ("lastTransitionTime", Any),
    ("reason", Any),
    ("message", Any),
];
const DEPLOYMENT_SPEC: &[(&str, Ty)] = &[
    ("replicas", Any),
    ("selector", Struct(LABEL_SELECTOR)),
    (
        "template",
        Struct(&[
            ("metadata", Struct(OBJECT_META)),
            ("spec", Struct(POD_SPEC)),
        ]),
    ),
    (
        "strategy",
        Struct(&[
            ("type", Any),
            (
                "rollingUpdate",
                Struct(&[("maxUnavailable", Any), ("maxSurge", Any)]),
            ),
        ]),
    ),
    ("minReadySeconds", Any),
    ("revisionHistoryLimit", Any),
    ("paused", Any),
    ("progressDeadlineSeconds", Any),
];
const DEPLOYMENT_STATUS: &[(&str, Ty)] = &[
    ("observedGeneration", Any),
    ("replicas", Any),
    ("updatedReplicas", Any),
    ("readyReplicas", Any),
    ("availableReplicas", Any),
    ("unavailableReplicas", Any),
    ("conditions", List(DEPLOYMENT_CONDITION)),
    ("collisionCount", Any),
];
const DEPLOYMENT: &[(&str, Ty)] = &[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", Struct(OBJECT_META)),
    ("spec", Struct(DEPLOYMENT_SPEC)),
    ("status", Struct(DEPLOYMENT_STATUS)),
];

/// The known fields of a resource's objects (`None`: not checked).
fn schema(res: &Resource) -> Option<&'static [(&'static str, Ty)]> {
    // The page builds the core without the `api` feature: no schema there, so unknown fields
    // stay as scenarios wrote them (3.3 kB of the page's gzip; docs/size.md). The server and
    // the CLI check them as the apiserver does.
    if !super::API {
        return None;
    }
    match res {
        Resource::ConfigMap => Some(CONFIGMAP),
        Resource::Secret => Some(SECRET),
        Resource::Namespace => Some(NAMESPACE),
        Resource::Deployment => Some(DEPLOYMENT),
        Resource::Custom { .. } => None,
    }
}

fn walk(v: &Value, fields: &[(&str, Ty)], path: &str, out: &mut Vec<String>) {
    let Some(o) = v.as_object() else {
        return; // A type error, reported by the decode check, not here.
    };
    for (k, child) in o {
        let p = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        match fields.iter().find(|(name, _)| name == k) {
            None => out.push(p),
            Some((_, Ty::Any)) => {}
            Some((_, Ty::Struct(f))) => walk(child, f, &p, out),
            Some((_, Ty::List(f))) => {
                for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                    walk(item, f, &format!("{p}[{i}]"), out);
                }
            }
        }
    }
}

fn strip(v: &mut Value, fields: &[(&str, Ty)]) {
    let Some(o) = v.as_object_mut() else {
        return;
    };
    o.retain(|k, _| fields.iter().any(|(name, _)| name == k));
    for (k, child) in o.iter_mut() {
        match fields.iter().find(|(name, _)| name == k) {
            Some((_, Ty::Struct(f))) => strip(child, f),
            Some((_, Ty::List(f))) => {
                for item in child.as_array_mut().into_iter().flatten() {
                    strip(item, f);
                }
            }
            _ => {}
        }
    }
}

/// Drops the unknown fields of an object, as decoding into the Go type does (what a write
/// that passed the check stores).
pub(crate) fn strip_unknown(res: &Resource, obj: &mut Value) {
    if let Some(fields) = schema(res) {
        strip(obj, fields);
    }
}

/// The unknown fields of an object, as paths, in document order.
pub(crate) fn unknown_fields(res: &Resource, obj: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(fields) = schema(res) {
        walk(obj, fields, "", &mut out);
    }
    out
}

fn unknown_field_errors(fields: &[String]) -> Vec<String> {
    fields
        .iter()
        .map(|f| format!("unknown field {}", status::quote(f)))
        .collect()
}

/// `strictDecodingError.Error()`.
fn strict_message(errors: &[String]) -> String {
    format!("strict decoding error: {}", errors.join(", "))
}

/// The warnings of a check that passes (empty for `Ignore` and for `Strict`, which fails
/// instead).
fn outcome(
    directive: Directive,
    errors: Vec<String>,
    fail: impl FnOnce(&str) -> super::Response,
) -> Result<Vec<String>, super::Response> {
    if errors.is_empty() {
        return Ok(Vec::new());
    }
    match directive {
        Directive::Ignore => Ok(Vec::new()),
        Directive::Warn => Ok(errors),
        Directive::Strict => Err(fail(&strict_message(&errors))),
    }
}

/// POST / PUT: the body as sent. `Ok(warnings)`, or the 400 of `transformDecodeError`.
pub(crate) fn check_body(
    res: &Resource,
    body: &Value,
    directive: Directive,
) -> Result<Vec<String>, super::Response> {
    let kind = res.kind();
    outcome(
        directive,
        unknown_field_errors(&unknown_fields(res, body)),
        |msg| {
            status::bad_request(&format!(
                "{kind} in version \"v1\" cannot be handled as a {kind}: {msg}"
            ))
        },
    )
}

/// The patched object as evanphx's patch functions marshal it: top-level keys sorted.
fn patched_json(patched: &Value) -> String {
    let Some(m) = patched.as_object() else {
        return patched.to_string();
    };
    let mut keys: Vec<&String> = m.keys().collect();
    crate::sort::sort(&mut keys);
    let mut sorted = serde_json::Map::new();
    for k in keys {
        sorted.insert(k.clone(), m[k.as_str()].clone());
    }
    Value::Object(sorted).to_string()
}

/// The patched object as gopkg.in/evanphx/json-patch.v4 writes it: an object it decoded to
/// apply the patch is marshalled with its keys sorted (a Go map), any other part is written as
/// it was read (the apiserver's field order). A merge patch decodes every object it merges
/// into and every object it adds; a JSON patch every container on the way to each operation's
/// `path` and `from`.
#[cfg(feature = "api")]
fn evanphx_json(patched: &Value, ty: super::patch::PatchType, patch: &Value) -> String {
    use super::patch::PatchType;
    /// Keys sorted here and, where `touched` says so, below.
    fn render(v: &Value, touched: &dyn Fn(&[&str]) -> Option<bool>, at: &mut Vec<String>) -> Value {
        let here: Vec<&str> = at.iter().map(String::as_str).collect();
        match (v, touched(&here)) {
            (Value::Object(m), Some(all)) => {
                let mut keys: Vec<&String> = m.keys().collect();
                crate::sort::sort(&mut keys);
                let mut out = serde_json::Map::new();
                for k in keys {
                    at.push(k.clone());
                    let child = if all {
                        sorted_all(&m[k.as_str()])
                    } else {
                        render(&m[k.as_str()], touched, at)
                    };
                    at.pop();
                    out.insert(k.clone(), child);
                }
                Value::Object(out)
            }
            (Value::Array(a), Some(all)) => Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| {
                        at.push(i.to_string());
                        let child = if all {
                            sorted_all(x)
                        } else {
                            render(x, touched, at)
                        };
                        at.pop();
                        child
                    })
                    .collect(),
            ),
            (v, _) => v.clone(),
        }
    }
    /// Every object's keys sorted (what a merge patch adds).
    fn sorted_all(v: &Value) -> Value {
        crate::json::sorted(v)
    }
    let mut at = Vec::new();
    let out = match ty {
        PatchType::Merge => {
            // Where the patch has an object the document was merged (or added): sorted; a
            // patch's object that the document did not have is added whole (`Some(true)`).
            let touched = |path: &[&str]| -> Option<bool> {
                let mut p = patch;
                for k in path {
                    p = p.get(*k)?;
                }
                match p {
                    Value::Object(_) => Some(false),
                    Value::Array(_) => Some(true),
                    _ => None,
                }
            };
            render(patched, &touched, &mut at)
        }
        _ => {
            let mut prefixes: Vec<Vec<String>> = vec![Vec::new()];
            for op in patch.as_array().into_iter().flatten() {
                for key in ["path", "from"] {
                    let Some(ptr) = op.get(key).and_then(Value::as_str) else {
                        continue;
                    };
                    let segs: Vec<String> = ptr
                        .split('/')
                        .skip(1)
                        .map(|s| s.replace("~1", "/").replace("~0", "~"))
                        .collect();
                    for n in 0..segs.len() {
                        prefixes.push(segs[..n].to_vec());
                    }
                }
            }
            let touched = |path: &[&str]| -> Option<bool> {
                prefixes
                    .iter()
                    .any(|p| p.len() == path.len() && p.iter().zip(path).all(|(a, b)| a == b))
                    .then_some(false)
            };
            render(patched, &touched, &mut at)
        }
    };
    out.to_string()
}

/// A patched object that does not decode (a metadata field of the wrong type, `binaryData`
/// that is not base64): the patch handler's 422 with the patched object as the value and the
/// decoder's error (k8s.io/apiserver `pkg/endpoints/handlers/patch.go`,
/// `applyPatchToCurrentObject`); `None` when `decode_check` passes. A strategic patch keeps
/// the create-style 400 (its converter's texts are not modelled).
#[cfg(feature = "api")]
pub(crate) fn patched_decode_error(
    res: &Resource,
    ty: super::patch::PatchType,
    patch: &Value,
    patched: &Value,
) -> Option<super::Response> {
    let err = super::meta::decode_check(res, patched).err()?;
    let kind = res.kind();
    let prefix = format!("{kind} in version \"v1\" cannot be handled as a {kind}: ");
    let inner = err
        .body
        .get("message")
        .and_then(Value::as_str)
        .and_then(|m| m.strip_prefix(&prefix));
    match inner {
        Some(inner) if ty != super::patch::PatchType::Strategic => Some(status::invalid(
            "",
            "",
            "",
            &[FieldError::invalid(
                "patch",
                Value::String(evanphx_json(patched, ty, patch)),
                inner,
            )],
        )),
        _ => Some(err),
    }
}

/// PATCH (JSON, merge or strategic; not apply): the patched object (and, for a strategic
/// patch, the patch as sent). `Ok(warnings)`, or the 422 of the patch handler.
pub(crate) fn check_patched(
    res: &Resource,
    strategic: Option<&Value>,
    patched: &Value,
    directive: Directive,
) -> Result<Vec<String>, super::Response> {
    let mut errors = unknown_field_errors(&unknown_fields(res, patched));
    crate::sort::sort(&mut errors);
    outcome(directive, errors, |msg| {
        let value = match strategic {
            Some(patch) => super::strategic::go_value(patch),
            None => patched_json(patched),
        };
        status::invalid(
            "",
            "",
            "",
            &[FieldError::invalid("patch", Value::String(value), msg)],
        )
    })
}

#[cfg(all(test, feature = "api"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn directive_defaults_to_warn() {
        assert_eq!(
            directive("/api/v1/namespaces/d/configmaps"),
            Directive::Warn
        );
        assert_eq!(
            directive("/x?fieldManager=a&fieldValidation=Strict"),
            Directive::Strict
        );
        assert_eq!(directive("/x?fieldValidation=Ignore"), Directive::Ignore);
        assert_eq!(directive("/x?fieldValidation=Warn"), Directive::Warn);
    }

    #[test]
    fn go_prints_maps_sorted() {
        let s = crate::store::strategic::go_value(
            &json!({"datta":{"k":"v"},"data":{"b":[1,true,null],"a":"x y"}}),
        );
        assert_eq!(s, "map[data:map[a:x y b:[1 true <nil>]] datta:map[k:v]]");
        assert_eq!(
            patched_json(
                &json!({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"d"}})
            ),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}}"#
        );
    }

    #[test]
    fn unknown_fields_have_dotted_paths_in_document_order() {
        let d = json!({"apiVersion":"apps/v1","kind":"Deployment","foo":1,
            "metadata":{"name":"x","labels":{"any":"thing"},"bogus":true,
                        "ownerReferences":[{"name":"o","extra":1}]},
            "spec":{"replicas":1,"replica":2,"selector":{"matchLabels":{"a":"b"},"x":1},
                    "template":{"metadata":{"labels":{"a":"b"},"lables":{}},
                                "spec":{"containers":[{"name":"c","image":"i"},
                                                      {"name":"d","imag":"i","ports":[{"containerPort":80,"prot":"TCP"}]}],
                                        "volumes":[{"anything":"goes"}]}}},
            "status":{"replicas":0,"nope":0}});
        assert_eq!(
            unknown_fields(&Resource::Deployment, &d),
            [
                "foo",
                "metadata.bogus",
                "metadata.ownerReferences[0].extra",
                "spec.replica",
                "spec.selector.x",
                "spec.template.metadata.lables",
                "spec.template.spec.containers[1].imag",
                "spec.template.spec.containers[1].ports[0].prot",
                "status.nope",
            ]
        );
        let cm = json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},
                        "data":{"k":"v"},"datta":{},"binaryData":{},"immutable":true,"spec":{}});
        assert_eq!(unknown_fields(&Resource::ConfigMap, &cm), ["datta", "spec"]);
        let w = Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into(),
        };
        assert!(unknown_fields(&w, &json!({"anything":1})).is_empty());
    }
}
