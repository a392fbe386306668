//! `metav1.Status` bodies, built exactly as apimachinery's constructors build them
//! (k8s.io/apimachinery `pkg/api/errors/errors.go`): field order `kind, apiVersion, metadata, status, message,
//! reason, details, code`; `message`, `reason`, `details` omitted when empty; inside `details`
//! the order `name, group, kind, uid, causes` with empty fields omitted.

use super::{Resource, Response};
use serde_json::{Map, Value};

/// Reasons apimachinery knows (`knownReasons` in `errors.go`; `StatusReasonUnknown` (`""`) is
/// deliberately not among them).
const KNOWN_REASONS: &[&str] = &[
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "AlreadyExists",
    "Conflict",
    "Gone",
    "Invalid",
    "ServerTimeout",
    "StoreReadError",
    "Timeout",
    "TooManyRequests",
    "BadRequest",
    "MethodNotAllowed",
    "NotAcceptable",
    "RequestEntityTooLarge",
    "UnsupportedMediaType",
    "InternalError",
    "Expired",
    "ServiceUnavailable",
];

/// The `reason` of a Status body (`None` for an object, or a Status without a reason).
pub fn status_reason(body: &Value) -> Option<&str> {
    if body.get("kind").and_then(Value::as_str) != Some("Status") {
        return None;
    }
    body.get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
}

/// client-go's `errors.IsConflict`: reason `Conflict`, or a reason apimachinery does not know
/// (including none) with code 409. `AlreadyExists` is therefore *not* a conflict.
pub fn is_conflict(resp: &Response) -> bool {
    if resp.code < 400 {
        return false;
    }
    let reason = resp
        .body
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("");
    is_conflict_reason(reason, resp.code)
}

/// client-go's `errors.IsConflict` on a reason and a status code: reason `Conflict`, or a 409
/// whose reason is not a known one (so `AlreadyExists` is *not* a conflict).
pub fn is_conflict_reason(reason: &str, code: u16) -> bool {
    reason == "Conflict" || (code == 409 && !KNOWN_REASONS.contains(&reason))
}

/// The kind of a field error (`field.ErrorType`), as printed and as a cause reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldErrorType {
    Invalid,
    Required,
    Forbidden,
    NotSupported,
    /// `field.TooLong` (with the `api` feature: sizes are the server's).
    #[cfg(feature = "api")]
    TooLong,
}

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldError {
    pub kind: FieldErrorType,
    pub field: String,
    /// The bad value (only for `Invalid`), rendered as JSON (apimachinery ≥ 1.34).
    pub value: Value,
    pub detail: String,
}

impl FieldError {
    pub fn invalid(field: &str, value: Value, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorType::Invalid,
            field: field.into(),
            value,
            detail: detail.into(),
        }
    }
    pub fn required(field: &str, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorType::Required,
            field: field.into(),
            value: Value::Null,
            detail: detail.into(),
        }
    }
    pub fn forbidden(field: &str, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorType::Forbidden,
            field: field.into(),
            value: Value::Null,
            detail: detail.into(),
        }
    }
    /// `field.NotSupported(field, value, valid)`: `supported values: "a", "b"`.
    pub fn not_supported(field: &str, value: Value, valid: &[&str]) -> Self {
        let quoted: Vec<String> = valid.iter().map(|v| quote(v)).collect();
        FieldError {
            kind: FieldErrorType::NotSupported,
            field: field.into(),
            value,
            detail: format!("supported values: {}", quoted.join(", ")),
        }
    }
    /// `field.TooLong(field, "", max)`: `Too long: may not be more than MAX bytes` (the value is
    /// not printed).
    #[cfg(feature = "api")]
    pub fn too_long(field: &str, max: usize) -> Self {
        FieldError {
            kind: FieldErrorType::TooLong,
            field: field.into(),
            value: Value::Null,
            detail: format!("may not be more than {max} bytes"),
        }
    }
    /// `ErrorBody()`: the message without the field.
    fn body(&self) -> String {
        match self.kind {
            FieldErrorType::Invalid => format!("Invalid value: {}: {}", self.value, self.detail),
            FieldErrorType::NotSupported => {
                format!("Unsupported value: {}: {}", self.value, self.detail)
            }
            FieldErrorType::Required => format!("Required value: {}", self.detail),
            FieldErrorType::Forbidden => format!("Forbidden: {}", self.detail),
            #[cfg(feature = "api")]
            FieldErrorType::TooLong => format!("Too long: {}", self.detail),
        }
    }
    fn cause_reason(&self) -> &'static str {
        match self.kind {
            FieldErrorType::Invalid => "FieldValueInvalid",
            FieldErrorType::Required => "FieldValueRequired",
            FieldErrorType::Forbidden => "FieldValueForbidden",
            FieldErrorType::NotSupported => "FieldValueNotSupported",
            #[cfg(feature = "api")]
            FieldErrorType::TooLong => "FieldValueTooLong",
        }
    }
    /// `Error()`: `field: body`.
    fn message(&self) -> String {
        format!("{}: {}", self.field, self.body())
    }
}

/// A `StatusDetails` (omitempty fields left out).
#[derive(Debug, Clone, Default)]
pub(crate) struct Details {
    pub name: String,
    pub group: String,
    pub kind: String,
    pub uid: String,
    /// `(reason, message, field)`.
    pub causes: Vec<(String, String, String)>,
    /// `retryAfterSeconds` (omitted when 0).
    pub retry_after_seconds: u32,
}

impl Details {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        for (k, v) in [
            ("name", &self.name),
            ("group", &self.group),
            ("kind", &self.kind),
            ("uid", &self.uid),
        ] {
            if !v.is_empty() {
                m.insert(k.into(), Value::String(v.clone()));
            }
        }
        if !self.causes.is_empty() {
            let causes = self
                .causes
                .iter()
                .map(|(reason, message, field)| {
                    let mut c = Map::new();
                    if !reason.is_empty() {
                        c.insert("reason".into(), reason.clone().into());
                    }
                    if !message.is_empty() {
                        c.insert("message".into(), message.clone().into());
                    }
                    if !field.is_empty() {
                        c.insert("field".into(), field.clone().into());
                    }
                    Value::Object(c)
                })
                .collect();
            m.insert("causes".into(), Value::Array(causes));
        }
        if self.retry_after_seconds != 0 {
            m.insert("retryAfterSeconds".into(), self.retry_after_seconds.into());
        }
        Value::Object(m)
    }
}

/// A Status body. `details: None` omits the field; `Some(Details::default())` prints `{}`.
pub(crate) fn status_body(
    status: &str,
    code: u16,
    reason: &str,
    message: &str,
    details: Option<&Details>,
) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), "Status".into());
    m.insert("apiVersion".into(), "v1".into());
    m.insert("metadata".into(), Value::Object(Map::new()));
    m.insert("status".into(), status.into());
    if !message.is_empty() {
        m.insert("message".into(), message.into());
    }
    if !reason.is_empty() {
        m.insert("reason".into(), reason.into());
    }
    if let Some(d) = details {
        m.insert("details".into(), d.to_value());
    }
    if code != 0 {
        m.insert("code".into(), code.into());
    }
    Value::Object(m)
}

fn failure(code: u16, reason: &str, message: &str, details: Option<&Details>) -> Response {
    Response {
        code,
        body: status_body("Failure", code, reason, message, details),
    }
}

fn resource_details(res: &Resource, name: &str) -> Details {
    Details {
        name: name.into(),
        group: res.group().into(),
        kind: res.plural().into(),
        ..Details::default()
    }
}

/// Go's `%q` for the strings we print (JSON escaping is the same for printable text).
pub fn quote(s: &str) -> String {
    Value::String(s.into()).to_string()
}

/// `NewNotFound(qr, name)`: 404.
pub(crate) fn not_found(res: &Resource, name: &str) -> Response {
    let msg = format!("{} {} not found", res.group_resource(), quote(name));
    failure(404, "NotFound", &msg, Some(&resource_details(res, name)))
}

/// `NewForbidden(qr, name, err)`: 403 (`name` empty: `RESOURCE is forbidden: …`), with a
/// cause when the refusal carries one (the NamespaceLifecycle admission's
/// `NamespaceTerminating`: `(type, message, field)`).
#[cfg(feature = "api")]
pub(crate) fn forbidden(
    res: &Resource,
    name: &str,
    err: &str,
    cause: Option<(&str, String, &str)>,
) -> Response {
    let msg = match name {
        "" => format!("{} is forbidden: {err}", res.group_resource()),
        _ => format!(
            "{} {} is forbidden: {err}",
            res.group_resource(),
            quote(name)
        ),
    };
    let mut details = resource_details(res, name);
    if let Some((ty, message, field)) = cause {
        details.causes.push((ty.into(), message, field.into()));
    }
    failure(403, "Forbidden", &msg, Some(&details))
}

/// `NewAlreadyExists(qr, name)`: 409.
pub(crate) fn already_exists(res: &Resource, name: &str) -> Response {
    let msg = format!("{} {} already exists", res.group_resource(), quote(name));
    failure(
        409,
        "AlreadyExists",
        &msg,
        Some(&resource_details(res, name)),
    )
}

/// `NewConflict(qr, name, err)` for a resource: 409 `Conflict`.
pub(crate) fn conflict(res: &Resource, name: &str, err: &str) -> Response {
    let msg = format!(
        "Operation cannot be fulfilled on {} {}: {err}",
        res.group_resource(),
        quote(name)
    );
    failure(409, "Conflict", &msg, Some(&resource_details(res, name)))
}

/// The optimistic-lock conflict of a stale resourceVersion (`OptimisticLockErrorMsg`, k8s.io/apiserver `pkg/registry/generic/registry/store.go`).
pub(crate) fn optimistic_lock(res: &Resource, name: &str) -> Response {
    conflict(
        res,
        name,
        "the object has been modified; please apply your changes to the latest version and try again",
    )
}

/// `NewConflict(GroupResource{group, Kind}, …)` as `BeforeDelete` builds it (k8s.io/apiserver `pkg/registry/rest/delete.go`).
pub(crate) fn delete_precondition_conflict(res: &Resource, name: &str, err: &str) -> Response {
    let kind = res.kind();
    let gr = match res.group() {
        "" => kind.clone(),
        g => format!("{kind}.{g}"),
    };
    let msg = format!(
        "Operation cannot be fulfilled on {gr} {}: {err}",
        quote(name)
    );
    let d = Details {
        name: name.into(),
        group: res.group().into(),
        kind,
        ..Details::default()
    };
    failure(409, "Conflict", &msg, Some(&d))
}

/// `NewInvalid(GroupKind{group, kind}, name, errs)`: 422.
pub(crate) fn invalid(group: &str, kind: &str, name: &str, errs: &[FieldError]) -> Response {
    let gk = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    };
    // The message is the errors' aggregate: each text once (`aggregate.Error()` in
    // k8s.io/apimachinery `pkg/util/errors`), in brackets when more than one; the causes keep
    // every error. Duplicates only come with the `api` feature (a custom resource's); the
    // page's store, at its size budget (docs/size.md), joins the texts as they are.
    #[cfg(feature = "api")]
    let msg = {
        let mut texts: Vec<String> = Vec::new();
        for e in errs {
            let t = e.message();
            if !texts.contains(&t) {
                texts.push(t);
            }
        }
        match texts.as_slice() {
            [] => format!("{gk} {} is invalid", quote(name)),
            [one] => format!("{gk} {} is invalid: {one}", quote(name)),
            many => format!("{gk} {} is invalid: [{}]", quote(name), many.join(", ")),
        }
    };
    #[cfg(not(feature = "api"))]
    let msg = match errs {
        [] => format!("{gk} {} is invalid", quote(name)),
        [one] => format!("{gk} {} is invalid: {}", quote(name), one.message()),
        many => format!(
            "{gk} {} is invalid: [{}]",
            quote(name),
            many.iter()
                .map(FieldError::message)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let d = Details {
        name: name.into(),
        group: group.into(),
        kind: kind.into(),
        uid: String::new(),
        retry_after_seconds: 0,
        causes: errs
            .iter()
            .map(|e| (e.cause_reason().into(), e.body(), e.field.clone()))
            .collect(),
    };
    failure(422, "Invalid", &msg, Some(&d))
}

/// `NewInvalid` for an object of a resource (GroupKind of the Kind).
pub(crate) fn invalid_object(res: &Resource, name: &str, errs: &[FieldError]) -> Response {
    invalid(res.group(), &res.kind(), name, errs)
}

/// `NewBadRequest(msg)`: 400, no details.
pub(crate) fn bad_request(msg: &str) -> Response {
    failure(400, "BadRequest", msg, None)
}

/// `NewRequestEntityTooLargeError(msg)`: 413.
pub(crate) fn request_entity_too_large(msg: &str) -> Response {
    failure(
        413,
        "RequestEntityTooLarge",
        &format!("Request entity too large: {msg}"),
        None,
    )
}

/// A plain Go error, not an API status: 500, no reason (k8s.io/apiserver `pkg/endpoints/handlers/responsewriters/status.go`).
pub(crate) fn raw_internal(msg: &str) -> Response {
    failure(500, "", msg, None)
}

/// `NewGenericServerResponse(422, "", GroupResource{}, "", …)` as k8s.io/apiserver `pkg/endpoints/handlers/patch.go`
/// builds it for a JSON-patch apply error: reason `Invalid`, generic message, empty details.
pub(crate) fn patch_apply_error() -> Response {
    failure(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        Some(&Details::default()),
    )
}

/// `NewGenericServerResponse(404, …)` for a path the server does not serve: what the apiserver
/// answers for an unknown resource inside a served group version.
pub(crate) fn path_not_found() -> Response {
    failure(
        404,
        "NotFound",
        "the server could not find the requested resource",
        Some(&Details::default()),
    )
}

/// 405 for a method the path does not serve (`StatusReasonMethodNotAllowed`), with the empty
/// `details: {}` of the apiserver's generic response (the reference's answers).
pub(crate) fn method_not_allowed() -> Response {
    failure(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        Some(&Details::default()),
    )
}

/// `NewUnsupportedMediaTypeError(accepted)`: 415.
pub(crate) fn unsupported_media_type(accepted: &[&str]) -> Response {
    let msg = format!(
        "the body of the request was in an unknown format - accepted media types include: {}",
        accepted.join(", ")
    );
    failure(415, "UnsupportedMediaType", &msg, None)
}

/// `NewApplyConflict(causes, msg)`: 409 Conflict with causes only.
pub(crate) fn apply_conflict(causes: Vec<(String, String, String)>, msg: &str) -> Response {
    let d = Details {
        causes,
        ..Details::default()
    };
    failure(409, "Conflict", msg, Some(&d))
}

/// The Status a successful DELETE answers when the object is not returned (k8s.io/apiserver `pkg/registry/generic/registry/store.go`, `finalizeDelete`).
pub(crate) fn delete_success(res: &Resource, name: &str, uid: &str) -> Value {
    let d = Details {
        uid: uid.into(),
        ..resource_details(res, name)
    };
    status_body("Success", 0, "", "", Some(&d))
}

/// `NewResourceExpired(msg)`: 410 `Expired`, no details.
pub(crate) fn resource_expired(msg: &str) -> Response {
    failure(410, "Expired", msg, None)
}

/// The 410 of a paged list whose snapshot is gone, carrying a continue token for the rest of
/// the list at the current state in the Status's `metadata.continue` (etcd3
/// `handleCompactedErrorForPaging`).
pub(crate) fn inconsistent_continue(token: &str) -> Response {
    let mut r = resource_expired(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
    );
    if let Some(m) = r.body.get_mut("metadata").and_then(Value::as_object_mut) {
        m.insert("continue".into(), token.into());
    }
    r
}

/// `storage.NewTooLargeResourceVersionError(rv, current, 1)`: 504 `Timeout`.
pub(crate) fn too_large_resource_version(rv: u64, current: u64) -> Response {
    let d = Details {
        causes: vec![(
            "ResourceVersionTooLarge".into(),
            "Too large resource version".into(),
            String::new(),
        )],
        retry_after_seconds: 1,
        ..Details::default()
    };
    failure(
        504,
        "Timeout",
        &format!("Timeout: Too large resource version: {rv}, current: {current}"),
        Some(&d),
    )
}
/// The HTTP reason phrase of a status code (`Conflict`, `Unprocessable Entity`).
pub fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        500 => "Internal Server Error",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// `409 Conflict`.
pub fn status_line(code: u16) -> String {
    let p = reason_phrase(code);
    if p.is_empty() {
        code.to_string()
    } else {
        format!("{code} {p}")
    }
}
