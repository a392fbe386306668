//! Write options: `dryRun` (Create/Update/Patch/DeleteOptions) and `DeleteOptions`, as the
//! apiserver decodes and validates them (apimachinery `pkg/apis/meta/v1/validation`,
//! apiserver `pkg/endpoints/handlers/delete.go`, tag `kubernetes-1.35.0`).
//!
//! - `dryRun`: only `All` is allowed; anything else is 422 `<Kind>Options.meta.k8s.io "" is
//!   invalid: dryRun: Unsupported value: ["x"]: supported values: "All"`, checked before the
//!   body. A dry run answers what the write would have answered and changes nothing: a create
//!   answers the object without `resourceVersion` (the dry-run storage copies the object it
//!   would have written, which has none yet), an update keeps the stored `resourceVersion`; no
//!   revision, event or lost update.
//! - `DeleteOptions` come from the body when there is one, else from the query
//!   (`gracePeriodSeconds`, `propagationPolicy`, `orphanDependents`, `dryRun`). Field types are
//!   checked as the decoder checks them (400 `json: cannot unmarshal …`, the decoder's text
//!   without a `Kind in version` prefix: the delete handler wraps the raw error); then
//!   `ValidateDeleteOptions` (422): `propagationPolicy` one of `Foreground`, `Background`,
//!   `Orphan`, not together with `orphanDependents`; `dryRun`. `gracePeriodSeconds` and the
//!   policy are accepted and change nothing (no graceful deletion, no garbage collector).
//!   `preconditions` (uid, then resourceVersion) are checked by the handler against the stored
//!   object (409; k8s.io/apiserver `pkg/registry/rest/delete.go`, `BeforeDelete`).

use super::meta::json_type;
use super::path::RequestTarget;
use super::status::{self, FieldError};
use super::Response;
use serde_json::Value;

/// `ValidateDryRun`.
pub(crate) fn dry_run_errors(values: &[String]) -> Vec<FieldError> {
    if values.iter().all(|v| v == "All") {
        return Vec::new();
    }
    vec![FieldError::not_supported(
        "dryRun",
        Value::from(values.to_vec()),
        &["All"],
    )]
}

/// The 422 of invalid options of kind `kind` (`CreateOptions`, …), if any.
pub(crate) fn check(kind: &str, errs: &[FieldError]) -> Result<(), Response> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(status::invalid("meta.k8s.io", kind, "", errs))
    }
}

/// The decoded `DeleteOptions` the store uses.
#[derive(Debug, Default)]
pub(crate) struct DeleteOptions {
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub dry_run: Vec<String>,
    /// `propagationPolicy`: `Foreground`, `Background` or `Orphan` (validated).
    pub propagation_policy: Option<String>,
    /// The deprecated `orphanDependents`, when given.
    pub orphan_dependents: Option<bool>,
}

fn unmarshal(v: &Value, field: &str, ty: &str) -> Response {
    status::bad_request(&format!(
        "json: cannot unmarshal {} into Go struct field {field} of type {ty}",
        json_type(v)
    ))
}

/// Without the `api` feature: only `preconditions` (strings) are read from a body, as before.
pub(crate) fn delete_preconditions(body: Option<&Value>) -> Result<DeleteOptions, Response> {
    let pre = match body {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => o.get("preconditions"),
        Some(_) => {
            return Err(status::bad_request(
                "the body of the request was in an unknown format",
            ))
        }
    };
    let get = |k: &str| {
        pre.and_then(|p| p.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Ok(DeleteOptions {
        uid: get("uid"),
        resource_version: get("resourceVersion"),
        ..DeleteOptions::default()
    })
}

/// Decodes and validates the `DeleteOptions` of a DELETE.
pub(crate) fn delete_options(
    body: Option<&Value>,
    t: &RequestTarget,
) -> Result<DeleteOptions, Response> {
    let mut out = DeleteOptions::default();
    let mut policy: Option<String> = None;
    let mut orphan = false;
    match body {
        None | Some(Value::Null) => {
            let q = &t.query;
            let bad = |e: String| status::bad_request(&e);
            if let Some(g) = &q.grace_period_seconds {
                super::list::parse_int(g).map_err(bad)?;
            }
            if let Some(o) = &q.orphan_dependents {
                let Some(b) = super::path::parse_bool(o) else {
                    return Err(bad(format!(
                        "strconv.ParseBool: parsing {}: invalid syntax",
                        status::quote(o)
                    )));
                };
                out.orphan_dependents = Some(b);
                orphan = true;
            }
            policy.clone_from(&q.propagation_policy);
            out.dry_run.clone_from(&q.dry_run);
        }
        Some(Value::Object(o)) => {
            for (key, v) in o {
                let ok = match key.as_str() {
                    "gracePeriodSeconds" => {
                        v.is_null()
                            || v.as_i64().is_some()
                            || (v.is_number() && v.as_f64().is_some_and(|f| f.fract() == 0.0))
                    }
                    "propagationPolicy" => v.is_null() || v.is_string(),
                    "orphanDependents" => v.is_null() || v.is_boolean(),
                    "dryRun" => {
                        v.is_null()
                            || v.as_array()
                                .is_some_and(|a| a.iter().all(|x| x.is_string() || x.is_null()))
                    }
                    "preconditions" => v.is_null() || v.is_object(),
                    _ => true,
                };
                if !ok {
                    let (field, ty) = match key.as_str() {
                        "gracePeriodSeconds" => ("DeleteOptions.gracePeriodSeconds", "int64"),
                        "propagationPolicy" => {
                            ("DeleteOptions.propagationPolicy", "v1.DeletionPropagation")
                        }
                        "orphanDependents" => ("DeleteOptions.orphanDependents", "bool"),
                        "dryRun" => match v {
                            Value::Array(a) => {
                                let bad = a
                                    .iter()
                                    .find(|x| !x.is_string() && !x.is_null())
                                    .unwrap_or(v);
                                return Err(unmarshal(bad, "DeleteOptions.dryRun", "string"));
                            }
                            _ => ("DeleteOptions.dryRun", "[]string"),
                        },
                        _ => ("DeleteOptions.preconditions", "v1.Preconditions"),
                    };
                    return Err(unmarshal(v, field, ty));
                }
            }
            if let Some(p) = o.get("preconditions").and_then(Value::as_object) {
                for (key, ty) in [("uid", "types.UID"), ("resourceVersion", "string")] {
                    match p.get(key) {
                        None | Some(Value::Null) => {}
                        Some(Value::String(s)) => {
                            let s = Some(s.clone());
                            if key == "uid" {
                                out.uid = s;
                            } else {
                                out.resource_version = s;
                            }
                        }
                        Some(v) => {
                            return Err(unmarshal(
                                v,
                                &format!("Preconditions.preconditions.{key}"),
                                ty,
                            ))
                        }
                    }
                }
            }
            policy = o
                .get("propagationPolicy")
                .and_then(Value::as_str)
                .map(str::to_string);
            out.orphan_dependents = o.get("orphanDependents").and_then(Value::as_bool);
            orphan = out.orphan_dependents.is_some();
            out.dry_run = o
                .get("dryRun")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|x| x.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
        }
        Some(_) => {
            return Err(status::bad_request(
                "the body of the request was in an unknown format",
            ))
        }
    }
    // ValidateDeleteOptions.
    let mut errs = Vec::new();
    if let Some(p) = &policy {
        if orphan {
            errs.push(FieldError::invalid(
                "propagationPolicy",
                p.as_str().into(),
                "orphanDependents and deletionPropagation cannot be both set",
            ));
        }
        if !["Foreground", "Background", "Orphan"].contains(&p.as_str()) {
            errs.push(FieldError::not_supported(
                "propagationPolicy",
                p.as_str().into(),
                &["Foreground", "Background", "Orphan", "nil"],
            ));
        }
    }
    errs.extend(dry_run_errors(&out.dry_run));
    check("DeleteOptions", &errs)?;
    out.propagation_policy = policy;
    Ok(out)
}
