//! Request bodies: media-type negotiation and decoding to the JSON the store takes, and the
//! Status bodies of the HTTP layer (413, 415, 400 for an undecodable body, 429).
//!
//! - POST/PUT: an empty `Content-Type` is JSON (AS `negotiation/negotiate.go`, the first
//!   supported type); `application/json`, `application/yaml`, and
//!   `application/vnd.kubernetes.protobuf` (through `wire::protobuf`); anything else is 415
//!   `the body of the request was in an unknown format - accepted media types include: …`.
//! - PATCH: the four patch types are parsed (`application/apply-patch+yaml` as YAML, the others
//!   as JSON); any other type is passed through without a body and the store answers its 415.
//! - DELETE: a body, if any, is `DeleteOptions` in JSON or YAML.
//! - Media type parameters (`; charset=utf-8`) are ignored; the type compares case-insensitively.
//!
//! Decode failures are 400 `BadRequest`. The apiserver's texts for them quote Go's decoders
//! (`encoding/json`, `go-yaml`), which serde does not reproduce word for word: ours keep the
//! apiserver's prefix and give serde's description of the error (docs/serve.md).

use serde_json::{Map, Value};

/// A Status body with the apiserver's field order.
pub fn status(code: u16, reason: &str, message: &str) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), "Status".into());
    m.insert("apiVersion".into(), "v1".into());
    m.insert("metadata".into(), Value::Object(Map::new()));
    m.insert("status".into(), "Failure".into());
    m.insert("message".into(), message.into());
    if !reason.is_empty() {
        m.insert("reason".into(), reason.into());
    }
    m.insert("code".into(), code.into());
    Value::Object(m)
}

/// `NewRequestEntityTooLargeError("limit is N")` (AS `handlers/rest.go`, `limitedReadBody`).
pub fn too_large(limit: usize) -> Value {
    status(
        413,
        "RequestEntityTooLarge",
        &format!("Request entity too large: limit is {limit}"),
    )
}

/// `NewUnsupportedMediaTypeError(accepted)` (AS `negotiation/errors.go`).
pub fn unsupported(accepted: &[&str]) -> Value {
    status(
        415,
        "UnsupportedMediaType",
        &format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ),
    )
}

/// The media types a built-in resource's POST/PUT accepts, in the apiserver's order.
pub const OBJECT_TYPES: &[&str] = &[
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// The media type alone, lower-cased (`application/json; charset=utf-8` → `application/json`).
pub fn media_type(content_type: Option<&str>) -> String {
    content_type
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// How a method's body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// POST, PUT: an object.
    Object,
    Patch,
    /// DELETE: optional `DeleteOptions`.
    Options,
    /// GET: no body is read.
    None,
}

/// What decoding gave: the body for the store, and the content type to tell it.
pub type Decoded = (Option<Value>, Option<String>);

fn json(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

/// YAML to JSON (JSON is YAML), as `sigs.k8s.io/yaml` converts it.
fn yaml(bytes: &[u8]) -> Result<Value, String> {
    let v: serde_yaml::Value = serde_yaml::from_slice(bytes)
        .map_err(|e| format!("error converting YAML to JSON: yaml: {e}"))?;
    serde_json::to_value(v).map_err(|e| format!("error converting YAML to JSON: {e}"))
}

fn bad(msg: String) -> Value {
    status(400, "BadRequest", &msg)
}

/// Decodes a request body for the store, or answers the Status the apiserver would.
pub fn decode(how: Use, content_type: Option<&str>, bytes: &[u8]) -> Result<Decoded, Value> {
    let mt = media_type(content_type);
    let ct = content_type.map(str::to_string);
    match how {
        Use::None => Ok((None, None)),
        Use::Options => {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok((None, None));
            }
            let v = match mt.as_str() {
                "" | "application/json" => json(bytes),
                "application/yaml" => yaml(bytes),
                // DeleteOptions in protobuf: not decoded (docs/serve.md); read as none.
                "application/vnd.kubernetes.protobuf" => return Ok((None, None)),
                _ => return Err(unsupported(OBJECT_TYPES)),
            };
            v.map(|v| (Some(v), Some("application/json".into())))
                .map_err(|e| bad(format!("couldn't get version/kind; json parse error: {e}")))
        }
        Use::Object => {
            let v = match mt.as_str() {
                "" | "application/json" => json(bytes).map_err(|e| {
                    bad(format!("couldn't get version/kind; json parse error: {e}"))
                })?,
                "application/yaml" => yaml(bytes).map_err(bad)?,
                "application/vnd.kubernetes.protobuf" => {
                    crate::wire::protobuf::decode(bytes).map_err(bad)?
                }
                _ => return Err(unsupported(OBJECT_TYPES)),
            };
            // The store reads every object body as JSON.
            Ok((Some(v), Some("application/json".into())))
        }
        Use::Patch => {
            let v = match mt.as_str() {
                "application/json-patch+json"
                | "application/merge-patch+json"
                | "application/strategic-merge-patch+json" => json(bytes).map_err(bad)?,
                "application/apply-patch+yaml" => yaml(bytes).map_err(bad)?,
                // The store answers 415 for a patch type it does not take.
                _ => return Ok((None, ct)),
            };
            Ok((Some(v), Some(mt)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiates_like_the_apiserver() {
        let (b, ct) = decode(Use::Object, None, br#"{"a":1}"#).unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1})));
        assert_eq!(ct.as_deref(), Some("application/json"));
        let (b, _) = decode(Use::Object, Some("application/yaml"), b"a: 1\nb: x\n").unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1, "b": "x"})));
        let (b, _) = decode(Use::Object, Some("Application/JSON; charset=utf-8"), b"{}").unwrap();
        assert_eq!(b, Some(serde_json::json!({})));
        let e = decode(Use::Object, Some("text/plain"), b"x").unwrap_err();
        assert_eq!(e["code"], 415);
        assert_eq!(
            e["message"],
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
        let e = decode(Use::Object, Some("application/json"), b"{bad").unwrap_err();
        assert_eq!(e["code"], 400);
        assert_eq!(e["reason"], "BadRequest");
        let (b, ct) = decode(
            Use::Patch,
            Some("application/apply-patch+yaml"),
            b"{\"a\": 1}",
        )
        .unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1})));
        assert_eq!(ct.as_deref(), Some("application/apply-patch+yaml"));
        let (b, ct) = decode(Use::Patch, Some("text/x"), b"{").unwrap();
        assert_eq!((b, ct.as_deref()), (None, Some("text/x")));
        assert_eq!(decode(Use::Options, None, b"").unwrap(), (None, None));
    }

    #[test]
    fn too_large_is_the_apiservers_status() {
        assert_eq!(
            too_large(3145728).to_string(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}"#
        );
    }
}
