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
    serde_json::from_slice(bytes).map_err(|e| go_json_error(bytes, &e))
}

/// Go's `quoteChar` (encoding/json's scanner): `'x'`, `'\''`, `'"'`, `'\x01'`.
fn quote_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        c if (' '..='~').contains(&c) => format!("'{c}'"),
        c if (c as u32) < 0x80 => format!("'\\x{:02x}'", c as u32),
        c => format!("'{c}'"),
    }
}

/// Go's `encoding/json` syntax error for the same input, from serde's error category and
/// position: `unexpected end of JSON input`, `invalid character 'b' looking for beginning of
/// object key string`, …; serde's own text where the two scanners do not map one to one.
pub fn go_json_error(bytes: &[u8], e: &serde_json::Error) -> String {
    if e.is_eof() {
        return "unexpected end of JSON input".into();
    }
    if !e.is_syntax() {
        return e.to_string();
    }
    // The offending byte: line `e.line()`, 1-based byte column `e.column()`.
    let line_start = bytes
        .split(|b| *b == b'\n')
        .take(e.line().saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let at = line_start + e.column().saturating_sub(1);
    let Some(c) = std::str::from_utf8(bytes.get(at..).unwrap_or(&[]))
        .ok()
        .and_then(|s| s.chars().next())
        .or_else(|| bytes.get(at).map(|b| char::from(*b)))
    else {
        return e.to_string();
    };
    let msg = e.to_string();
    let what = msg.split(" at line ").next().unwrap_or("");
    let context = match what {
        "expected value" => "looking for beginning of value".to_string(),
        "key must be a string" => "looking for beginning of object key string".to_string(),
        "expected `:`" => "after object key".to_string(),
        "expected `,` or `}`" => "after object key:value pair".to_string(),
        "expected `,` or `]`" => "after array element".to_string(),
        "trailing characters" => "after top-level value".to_string(),
        "invalid escape" => "in string escape code".to_string(),
        w if w.starts_with("control character") => "in string literal".to_string(),
        "trailing comma" => {
            if c == '}' {
                "looking for beginning of object key string".to_string()
            } else {
                "looking for beginning of value".to_string()
            }
        }
        "expected ident" => {
            // Inside `true`, `false` or `null`: Go names the literal and the byte it expected.
            let start = bytes
                .get(..at)
                .unwrap_or(bytes)
                .iter()
                .rposition(|b| matches!(b, b't' | b'f' | b'n'));
            match start {
                Some(st) => {
                    let lit = match bytes.get(st).copied().unwrap_or(b'n') {
                        b't' => "true",
                        b'f' => "false",
                        _ => "null",
                    };
                    let i = at - st;
                    match lit.as_bytes().get(i) {
                        Some(exp) => format!("in literal {lit} (expecting '{}')", char::from(*exp)),
                        None => return msg,
                    }
                }
                None => return msg,
            }
        }
        _ => return msg,
    };
    format!("invalid character {} {context}", quote_char(c))
}

/// `summarizeData(body, 30)` (AS `handlers/rest.go`): the body as text when it starts with
/// `{`, else in hex, cut at 30 bytes with ` ...`.
pub fn summarize(body: &[u8]) -> String {
    let cut = body.len() > 30;
    let head = &body[..body.len().min(30)];
    let mut s = if body.is_empty() {
        return "<empty>".into();
    } else if body[0] == b'{' {
        String::from_utf8_lossy(head).into_owned()
    } else {
        head.iter().map(|b| format!("{b:02x}")).collect()
    };
    if cut {
        s.push_str(" ...");
    }
    s
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
pub fn decode(
    how: Use,
    content_type: Option<&str>,
    bytes: &[u8],
    kind: Option<&str>,
) -> Result<Decoded, Value> {
    // `transformDecodeError` without a decoded kind (AS `handlers/rest.go`).
    let unrecognized = |e: String| {
        bad(format!(
            "the object provided is unrecognized (must be of type {}): {e} ({})",
            kind.unwrap_or(""),
            summarize(bytes)
        ))
    };
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
                    unrecognized(format!("couldn't get version/kind; json parse error: {e}"))
                })?,
                "application/yaml" => yaml(bytes).map_err(unrecognized)?,
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
                // `jsonpatch.DecodePatch` and the strategic patcher's `json.Unmarshal`: Go's
                // error as the message.
                "application/json-patch+json" | "application/strategic-merge-patch+json" => {
                    json(bytes).map_err(bad)?
                }
                // `jsonpatch.MergePatch`: `ErrBadJSONPatch`.
                "application/merge-patch+json" => {
                    json(bytes).map_err(|_| bad("Invalid JSON Patch".into()))?
                }
                "application/apply-patch+yaml" => {
                    serde_yaml::from_slice::<serde_yaml::Value>(bytes)
                        .map_err(|e| e.to_string())
                        .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string()))
                        .map_err(|e| bad(format!("error decoding YAML: {e}")))?
                }
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
        let (b, ct) = decode(Use::Object, None, br#"{"a":1}"#, Some("ConfigMap")).unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1})));
        assert_eq!(ct.as_deref(), Some("application/json"));
        let (b, _) = decode(
            Use::Object,
            Some("application/yaml"),
            b"a: 1\nb: x\n",
            Some("ConfigMap"),
        )
        .unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1, "b": "x"})));
        let (b, _) = decode(
            Use::Object,
            Some("Application/JSON; charset=utf-8"),
            b"{}",
            Some("ConfigMap"),
        )
        .unwrap();
        assert_eq!(b, Some(serde_json::json!({})));
        let e = decode(Use::Object, Some("text/plain"), b"x", Some("ConfigMap")).unwrap_err();
        assert_eq!(e["code"], 415);
        assert_eq!(
            e["message"],
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
        let e = decode(
            Use::Object,
            Some("application/json"),
            b"{bad",
            Some("ConfigMap"),
        )
        .unwrap_err();
        assert_eq!(e["code"], 400);
        assert_eq!(e["reason"], "BadRequest");
        assert_eq!(
            e["message"],
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object key string ({bad)"
        );
        let (b, ct) = decode(
            Use::Patch,
            Some("application/apply-patch+yaml"),
            b"{\"a\": 1}",
            Some("ConfigMap"),
        )
        .unwrap();
        assert_eq!(b, Some(serde_json::json!({"a": 1})));
        assert_eq!(ct.as_deref(), Some("application/apply-patch+yaml"));
        let (b, ct) = decode(Use::Patch, Some("text/x"), b"{", Some("ConfigMap")).unwrap();
        assert_eq!((b, ct.as_deref()), (None, Some("text/x")));
        assert_eq!(
            decode(Use::Options, None, b"", Some("ConfigMap")).unwrap(),
            (None, None)
        );
    }

    #[test]
    fn go_json_errors() {
        let go = |s: &str| json(s.as_bytes()).unwrap_err();
        assert_eq!(go("{\"a\":1"), "unexpected end of JSON input");
        assert_eq!(go(""), "unexpected end of JSON input");
        assert_eq!(
            go("{\"a\": x}"),
            "invalid character 'x' looking for beginning of value"
        );
        assert_eq!(go("{\"a\" 1}"), "invalid character '1' after object key");
        assert_eq!(
            go("{\"a\":1 \"b\"}"),
            "invalid character '\"' after object key:value pair"
        );
        assert_eq!(go("[1 2]"), "invalid character '2' after array element");
        assert_eq!(go("{} x"), "invalid character 'x' after top-level value");
        assert_eq!(
            go("{\"a\":\"\\q\"}"),
            "invalid character 'q' in string escape code"
        );
        assert_eq!(
            go("{\"a\":\"\u{1}\"}"),
            "invalid character '\\x01' in string literal"
        );
        assert_eq!(
            go("{\"a\":tru}"),
            "invalid character '}' in literal true (expecting 'e')"
        );
        assert_eq!(
            go("[1,]"),
            "invalid character ']' looking for beginning of value"
        );
        assert_eq!(
            go("{\"a\":1,}"),
            "invalid character '}' looking for beginning of object key string"
        );
        assert_eq!(
            go("{\n\"a\": @}"),
            "invalid character '@' looking for beginning of value"
        );
        assert_eq!(summarize(b""), "<empty>");
        assert_eq!(summarize(b"[1]"), "5b315d");
        assert_eq!(summarize(&[b'{'; 31]), format!("{} ...", "{".repeat(30)));
    }

    proptest::proptest! {
        /// No body, however broken, makes decoding panic; every refusal is a Status.
        #[test]
        fn any_bytes_decode_or_are_a_status(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
                                             json_ish in "[{}\\[\\]\":,a-z0-9 \\\\\n]{0,40}") {
            for ct in [None, Some("application/json"), Some("application/yaml"),
                       Some("application/vnd.kubernetes.protobuf"), Some("application/merge-patch+json"),
                       Some("application/json-patch+json"), Some("application/strategic-merge-patch+json"),
                       Some("application/apply-patch+yaml"), Some("text/plain")] {
                for how in [Use::Object, Use::Patch, Use::Options] {
                    for b in [&bytes[..], json_ish.as_bytes()] {
                        if let Err(st) = decode(how, ct, b, Some("ConfigMap")) {
                            proptest::prop_assert_eq!(&st["kind"], "Status");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn too_large_is_the_apiservers_status() {
        assert_eq!(
            too_large(3145728).to_string(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}"#
        );
    }
}
