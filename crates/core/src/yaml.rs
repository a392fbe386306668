//! A small YAML emitter for JSON values, in the style `kubectl get -o yaml` prints: keys
//! sorted, 2-space indent, list items `- ` at their parent's indent, strings quoted only when
//! plain YAML would read them as something else (`resourceVersion: "101"`).

use serde_json::Value;

/// The value as kubectl-style YAML, ending with a newline (`{}` for an empty object).
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => map(&mut out, v, 0),
        Value::Array(a) if !a.is_empty() => list(&mut out, a, 0),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn pad(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push(' ');
    }
}

fn sorted(v: &Value) -> Vec<(&String, &Value)> {
    let mut kv: Vec<(&String, &Value)> = match v {
        Value::Object(m) => m.iter().collect(),
        _ => Vec::new(),
    };
    crate::sort::sort_by(&mut kv, |a, b| a.0.cmp(b.0));
    kv
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn map(out: &mut String, v: &Value, indent: usize) {
    for (k, x) in sorted(v) {
        pad(out, indent);
        out.push_str(&string(k));
        out.push(':');
        match x {
            Value::Object(_) if is_block(x) => {
                out.push('\n');
                map(out, x, indent + 2);
            }
            Value::Array(a) if is_block(x) => {
                out.push('\n');
                list(out, a, indent);
            }
            _ => {
                out.push(' ');
                out.push_str(&scalar(x));
                out.push('\n');
            }
        }
    }
}

fn list(out: &mut String, items: &[Value], indent: usize) {
    for x in items {
        pad(out, indent);
        out.push('-');
        match x {
            Value::Object(_) if is_block(x) => {
                // The first key goes on the dash's line.
                let mut inner = String::new();
                map(&mut inner, x, indent + 2);
                out.push(' ');
                out.push_str(&inner[indent + 2..]);
            }
            Value::Array(a) if is_block(x) => {
                out.push('\n');
                list(out, a, indent + 2);
            }
            _ => {
                out.push(' ');
                out.push_str(&scalar(x));
                out.push('\n');
            }
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// A string as a YAML scalar: plain when that reads back as the same string, else
/// double-quoted with JSON escapes.
pub fn string(s: &str) -> String {
    if needs_quotes(s) {
        Value::String(s.to_string()).to_string()
    } else {
        s.to_string()
    }
}

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | "null"
            | "~"
            | ".inf"
            | "-.inf"
            | ".nan"
    ) {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // `-x` and `?x`/`:x` are plain in YAML only in some positions; quote them all.
        return true;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s.chars().any(|c| c.is_control())
    {
        return true;
    }
    // Anything that looks like a number or a timestamp.
    let numberish = s
        .chars()
        .all(|c| c.is_ascii_digit() || "+-.:eE_xXoOTZtz ".contains(c));
    if numberish && s.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    // What else `str::parse::<f64>` accepts: the words below (any case, optional sign). Written
    // out rather than calling the parser, whose tables cost ~10 kB of wasm (docs/size.md).
    let word = s.strip_prefix(['+', '-']).unwrap_or(s);
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every string `str::parse::<f64>` accepts is quoted (it would read back as a number).
    #[test]
    fn float_looking_strings_are_quoted() {
        for s in ["inf", "-Infinity", "+NaN", "1.5", ".5", "1e9", "-0"] {
            assert!(needs_quotes(s), "{s}");
        }
        proptest::proptest!(proptest::prelude::ProptestConfig::with_cases(256), |(
            s in "[-+.0-9eEinfatyINFATY_ x]{1,9}",
        )| {
            if s.parse::<f64>().is_ok() {
                proptest::prop_assert!(needs_quotes(&s), "{}", s);
            }
        });
    }

    #[test]
    fn prints_like_kubectl() {
        let v = json!({
            "kind": "ConfigMap",
            "apiVersion": "v1",
            "metadata": {"name": "my-config", "resourceVersion": "101", "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {}},
            "data": {"key": "from-alice", "count": "3", "empty": "", "flag": "true"},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "ports": [80, 443]}], "replicas": 3}
        });
        let y = to_yaml(&v);
        let want = "apiVersion: v1
data:
  count: \"3\"
  empty: \"\"
  flag: \"true\"
  key: from-alice
kind: ConfigMap
metadata:
  creationTimestamp: \"2026-01-01T00:00:00Z\"
  labels: {}
  name: my-config
  resourceVersion: \"101\"
spec:
  containers:
  - image: nginx:1.27
    name: app
    ports:
    - 80
    - 443
  replicas: 3
";
        assert_eq!(y, want);
    }

    #[test]
    fn quotes_what_would_change_meaning() {
        assert_eq!(string("a: b"), "\"a: b\"");
        assert_eq!(string("line\nbreak"), "\"line\\nbreak\"");
        assert_eq!(string("-x"), "\"-x\"");
        assert_eq!(string("1.5"), "\"1.5\"");
        assert_eq!(string("hello world"), "hello world");
    }
}
