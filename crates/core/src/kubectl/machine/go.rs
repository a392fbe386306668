//! What kubectl's Go libraries do with values and errors: maps in key order, and how
//! `cmdutil.CheckErr` prints an error (KC
//! `pkg/cmd/util/helpers.go`).

use serde_json::{Map, Value};

pub(crate) use crate::json::sorted;

/// An error as the command ends with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Error {
    /// An API Status from the server (its message possibly rewritten by `AddSourceToErr`).
    Status { status: Value, message: String },
    /// Any other error, with the server's Status when one caused it.
    Plain { text: String, status: Option<Value> },
}

impl Error {
    /// The server's error Status of a failed response (client-go: a body of `kind: Status`
    /// with `status: Failure`; the store answers every error with one).
    pub(crate) fn server(body: &Value) -> Error {
        Error::Status {
            status: body.clone(),
            message: str_at(body, "message").to_string(),
        }
    }

    /// `cmdutil.AddSourceToErr(verb, source, err)`.
    pub(crate) fn with_source(self, verb: &str, source: &str) -> Error {
        let wrap = |m: &str| format!("error when {verb} {}: {m}", quote(source));
        match self {
            Error::Status { status, message } => Error::Status {
                status,
                message: wrap(&message),
            },
            Error::Plain { text, status } => Error::Plain {
                text: wrap(&text),
                status,
            },
        }
    }

    /// The error's own text (`err.Error()`).
    pub(crate) fn text(&self) -> &str {
        match self {
            Error::Status { message, .. } => message,
            Error::Plain { text, .. } => text,
        }
    }

    /// The server's Status behind the error, if any.
    pub(crate) fn status(&self) -> Option<&Value> {
        match self {
            Error::Status { status, .. } => Some(status),
            Error::Plain { status, .. } => status.as_ref(),
        }
    }

    /// What `CheckErr` prints for it (ending with a newline).
    pub(crate) fn printed(&self) -> String {
        let mut s = match self {
            Error::Status { status, message } => status_text(status, message),
            Error::Plain { text, .. } if text.starts_with("error: ") => text.clone(),
            Error::Plain { text, .. } => format!("error: {text}"),
        };
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    }
}

/// A string field of an object (`""` when absent).
pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Go's `%q` of a string (JSON quoting agrees for the texts kubectl quotes).
pub(crate) fn quote(s: &str) -> String {
    crate::store::status::quote(s)
}

/// The reason of a Status body.
pub(crate) fn reason(status: &Value) -> &str {
    str_at(status, "reason")
}

/// `errors.IsConflict`: reason `Conflict`, or a 409 without a known reason.
pub(crate) fn is_conflict(status: &Value) -> bool {
    let r = reason(status);
    r == "Conflict" || (r.is_empty() && status.get("code").and_then(Value::as_u64) == Some(409))
}

/// `errors.IsNotFound`.
pub(crate) fn is_not_found(status: &Value) -> bool {
    let r = reason(status);
    r == "NotFound" || (r.is_empty() && status.get("code").and_then(Value::as_u64) == Some(404))
}

/// `checkErr` of an API Status error whose message is `message`: the Invalid form with its
/// causes, else `StandardErrorMessage`.
fn status_text(status: &Value, message: &str) -> String {
    let r = reason(status);
    if r == "Invalid" {
        let Some(details) = status.get("details").filter(|d| d.is_object()) else {
            let mut s = "The request is invalid".to_string();
            if !message.is_empty() {
                s = format!("{s}: {message}");
            }
            return s;
        };
        let causes = details
            .get("causes")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let (kind, name) = (str_at(details, "kind"), str_at(details, "name"));
        let mut s = "The request is invalid".to_string();
        if !kind.is_empty() || !name.is_empty() {
            s = format!("The {kind} {} is invalid", quote(name));
        } else if !message.is_empty() && causes.is_empty() {
            s = format!("{s}: {message}");
        }
        let mut lines: Vec<String> = Vec::new();
        for c in causes {
            let l = format!("{}: {}", str_at(c, "field"), str_at(c, "message"));
            if !lines.contains(&l) {
                lines.push(l);
            }
        }
        return match lines.as_slice() {
            [] => s,
            [one] => format!("{s}: {one}\n"),
            many => {
                let mut out = format!("{s}: \n");
                for l in many {
                    out.push_str(&format!("* {l}\n"));
                }
                out
            }
        };
    }
    match r {
        "Unauthorized" => format!("error: You must be logged in to the server ({message})"),
        "" => format!("Error from server: {message}"),
        r => format!("Error from server ({r}): {message}"),
    }
}

/// An object's `metadata` map (empty when absent).
pub(crate) fn meta(v: &Value) -> Map<String, Value> {
    v.get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn check_err_forms() {
        // Captured from kubectl 1.32.5 against `rvlab serve`.
        let st = json!({"kind":"Status","status":"Failure","message":"configmaps \"nope\" not found","reason":"NotFound","code":404});
        assert_eq!(
            Error::server(&st).printed(),
            "Error from server (NotFound): configmaps \"nope\" not found\n"
        );
        let inv = json!({"kind":"Status","status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422});
        assert_eq!(
            Error::server(&inv).printed(),
            "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
        );
        let bare = json!({"kind":"Status","status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422});
        assert_eq!(
            Error::server(&bare).printed(),
            "The request is invalid: the server rejected our request due to an error in our request\n"
        );
        let none = json!({"kind":"Status","status":"Failure","message":"m","code":500});
        assert_eq!(Error::server(&none).printed(), "Error from server: m\n");
        let e = Error::server(&st).with_source("replacing", "f.yaml");
        assert_eq!(
            e.printed(),
            "Error from server (NotFound): error when replacing \"f.yaml\": configmaps \"nope\" not found\n"
        );
    }
}
