//! kubectl 1.32.5's printers (cli-runtime `pkg/printers`), byte for byte.
//!
//! - [`for_output`]: what `-o yaml`/`-o json` print is the object without
//!   `metadata.managedFields` (`--show-managed-fields=false`, the default:
//!   `OmitManagedFieldsPrinter`, a list's items too). [`yaml`] and [`json`] apply it; `-o name`
//!   and `-o jsonpath` see the object whole (jsonpath can read `.metadata.managedFields`).
//! - [`yaml`] / [`try_yaml`]: `-o yaml` (sigs.k8s.io/yaml, [`crate::yaml`]).
//! - [`json`]: `-o json` (`json.MarshalIndent(obj, "", "    ")` + `\n`); [`go_json`] the
//!   compact `json.Marshal` text (jsonpath prints maps and lists that way).
//! - [`list`]: the `kind: List` kubectl wraps a list's items in for `-o yaml|json|jsonpath|name`.
//! - [`name`]: `configmap/my-config` (`-o name`, and the subject of every success message).
//! - [`table`] / [`no_resources`]: `kubectl get KIND [NAME]` without `-o`.

use crate::store::Resource;
use serde_json::{Map, Value};

/// The object (or a `List`'s items) without `metadata.managedFields`, as kubectl's YAML and
/// JSON printers show it.
pub fn for_output(v: &Value) -> Value {
    let mut v = v.clone();
    let strip = |o: &mut Value| {
        if let Some(Value::Object(m)) = o.get_mut("metadata") {
            m.remove("managedFields");
        }
    };
    match v.get_mut("items") {
        Some(Value::Array(items)) => items.iter_mut().for_each(strip),
        _ => strip(&mut v),
    }
    v
}

/// `-o yaml` of the object or list as the server returned it (managedFields omitted); ends with
/// a newline. For an object holding characters go-yaml refuses, see [`try_yaml`].
pub fn yaml(v: &Value) -> String {
    crate::yaml::to_yaml(&for_output(v))
}

/// `-o yaml`, or the error kubectl prints instead (`error: yaml: control characters are not
/// allowed` + newline on stderr, exit 1) when a string holds DEL, a C1 control or U+FFFE/F.
pub fn try_yaml(v: &Value) -> Result<String, String> {
    let v = for_output(v);
    if crate::yaml::has_control_characters(&v) {
        return Err("error: yaml: control characters are not allowed\n".into());
    }
    Ok(crate::yaml::to_yaml(&v))
}

/// `-o json`: Go's `json.MarshalIndent(obj, "", "    ")` plus a newline (managedFields omitted).
pub fn json(v: &Value) -> String {
    let mut s = String::new();
    write_json(&mut s, &for_output(v), Some(0));
    s.push('\n');
    s
}

/// Go's `json.Marshal` of a decoded value: keys sorted, `<`, `>`, `&`, U+2028/9 and control
/// characters escaped as Go does, numbers as Go prints int64/float64.
pub fn go_json(v: &Value) -> String {
    let mut s = String::new();
    write_json(&mut s, v, None);
    s
}

/// `indent`: `Some(depth)` for `MarshalIndent` with four spaces, `None` for compact.
fn write_json(out: &mut String, v: &Value, indent: Option<usize>) {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("    ");
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&match n.as_i64() {
            Some(i) => i.to_string(),
            None => crate::store::strategic::go_json_float(n.as_f64().unwrap_or(0.0)),
        }),
        Value::String(s) => json_string(out, s),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                write_json(out, x, indent.map(|d| d + 1));
            }
            if let Some(d) = indent {
                newline(out, d);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                json_string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(out, &m[k.as_str()], indent.map(|d| d + 1));
            }
            if let Some(d) = indent {
                newline(out, d);
            }
            out.push('}');
        }
    }
}

/// Go's `encoding/json` string (HTML-safe escaping, `\b` `\f` `\n` `\r` `\t`, `\u00XX`).
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\0'..='\u{1f}' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str("\\u");
                let v = c as u32;
                for k in (0..4).rev() {
                    out.push(char::from_digit((v >> (4 * k)) & 0xf, 16).unwrap_or('0'));
                }
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

/// The `List` kubectl prints for `kubectl get KIND -o yaml|json|name|jsonpath` (items in the
/// server's order, each with its `apiVersion`/`kind`, which the server's list items lack;
/// `metadata.resourceVersion` is always `""`).
pub fn list(res: &Resource, items: &[Value]) -> Value {
    let items = items
        .iter()
        .map(|item| {
            let mut m = Map::new();
            m.insert("apiVersion".into(), res.api_version().into());
            m.insert("kind".into(), res.kind().into());
            if let Value::Object(o) = item {
                m.extend(o.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Value::Object(m)
        })
        .collect();
    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), "".into());
    let mut m = Map::new();
    m.insert("apiVersion".into(), "v1".into());
    m.insert("items".into(), Value::Array(items));
    m.insert("kind".into(), "List".into());
    m.insert("metadata".into(), Value::Object(meta));
    Value::Object(m)
}

/// `KIND[.GROUP]/NAME` (`configmap/my-config`, `deployment.apps/web`, `widget.example.com/w1`):
/// a line of `-o name` (add the newline) and the subject of kubectl's success messages
/// (`configmap/my-config created`).
pub fn name(res: &Resource, name: &str) -> String {
    let kind = res.kind().to_ascii_lowercase();
    match res.group() {
        "" => format!("{kind}/{name}"),
        g => format!("{kind}.{g}/{name}"),
    }
}

/// What `kubectl get` prints on stderr when there is nothing to show (no `-o`, or a table
/// without rows): `No resources found in NS namespace.` for a namespaced resource, else
/// `No resources found` (cluster-scoped, or `-A`: pass `None`).
pub fn no_resources(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No resources found in {ns} namespace.\n"),
        None => "No resources found\n".into(),
    }
}

/// kubectl's human-readable printing of a `meta.k8s.io/v1` Table (`store::table::table`): the
/// priority-0 columns, names upper-cased, cells as Go's `fmt.Sprint` prints them (a string cut
/// at its first `\f`, `\n` or `\r` with `...` appended; ESC as `^[`, CR as `\r`), aligned by
/// Go's `text/tabwriter` with kubectl's settings (min width 6, padding 3, spaces). A table
/// without rows prints nothing (`kubectl get` then prints [`no_resources`]).
pub fn table(table: &Value) -> String {
    fn arr(v: Option<&Value>) -> &[Value] {
        v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }
    let columns = arr(table.get("columnDefinitions"));
    let rows = arr(table.get("rows"));
    if rows.is_empty() {
        return String::new();
    }
    let shown: Vec<bool> = columns
        .iter()
        .map(|c| c.get("priority").and_then(Value::as_i64).unwrap_or(0) == 0)
        .collect();
    let mut text = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = String>| {
        let mut first = true;
        for (i, cell) in cells.enumerate() {
            if i >= shown.len() {
                break;
            }
            if !shown[i] {
                continue;
            }
            if !first {
                text.push('\t');
            }
            first = false;
            text.push_str(&cell);
        }
        text.push('\n');
    };
    line(&mut columns.iter().map(|c| {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        name.to_ascii_uppercase()
    }));
    for row in rows {
        line(&mut arr(row.get("cells")).iter().map(cell));
    }
    tabwriter(&text)
}

fn cell(v: &Value) -> String {
    let text = match v {
        Value::Null => return String::new(),
        Value::String(s) => match s.find(['\u{c}', '\n', '\r']) {
            Some(at) => format!("{}...", &s[..at]),
            None => s.clone(),
        },
        other => crate::store::strategic::go_value(other),
    };
    text.replace('\u{1b}', "^[").replace('\r', "\\r")
}

/// Go's `text/tabwriter` (`NewWriter(w, 6, 4, 3, ' ', 0)`): tab-terminated cells padded to their
/// column block's widest cell plus 3 (at least 6); the last cell of a line is not aligned.
fn tabwriter(text: &str) -> String {
    let lines: Vec<Vec<&str>> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(|l| l.split('\t').collect())
        .collect();
    let mut out = String::new();
    let mut widths = Vec::new();
    format_block(&lines, 0, lines.len(), &mut widths, &mut out);
    out
}

/// `Writer.format`: the column blocks of column `widths.len()` within lines `from..to`.
fn format_block(
    lines: &[Vec<&str>],
    from: usize,
    to: usize,
    widths: &mut Vec<usize>,
    out: &mut String,
) {
    let column = widths.len();
    let mut start = from;
    let mut this = from;
    while this < to {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(lines, start, this, widths, out);
        start = this;
        let mut width = 6;
        while this < to && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + 3);
            this += 1;
        }
        widths.push(width);
        format_block(lines, start, this, widths, out);
        widths.pop();
        start = this;
    }
    write_lines(lines, start, to, widths, out);
}

fn write_lines(lines: &[Vec<&str>], from: usize, to: usize, widths: &[usize], out: &mut String) {
    for line in &lines[from..to] {
        for (j, c) in line.iter().enumerate() {
            out.push_str(c);
            if let Some(&pad) = widths.get(j) {
                for _ in c.chars().count()..pad {
                    out.push(' ');
                }
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    //! Every expected text was captured from kubectl 1.32.5 (`kubectl.1.32 get … -o …`) against
    //! `rvlab serve`, the input being the server's JSON for the same object from the same run
    //! (`*.server.json`, managedFields included), in `testdata/kubectl/print/`.
    use super::*;
    use serde_json::json;

    fn data(name: &str) -> String {
        let path = format!(
            "{}/testdata/kubectl/print/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn server(name: &str) -> Value {
        serde_json::from_str(&data(&format!("{name}.server.json"))).expect("server JSON")
    }

    /// go-yaml's key order is not transitive for `"10"`, `"1x"`, `"9"` (each is less than the
    /// next, and `"9" < "10"`): Go's random map order decides, and kubectl printed them in two
    /// different orders in the same probe (`get cm sorting -o yaml`: 10, 1x, 9; `get cm -o
    /// yaml`: 1x, 9, 10). Those three lines are left out of the comparison.
    fn cyclic_keys_removed(yaml: &str) -> String {
        yaml.lines()
            .filter(|l| !matches!(l.trim(), "\"10\": x" | "1x: x" | "\"9\": x"))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    #[test]
    fn yaml_and_json_of_objects_as_kubectl_prints_them() {
        for name in [
            "cm-tricky",
            "cm-sorting",
            "cm-edge",
            "cm-plus",
            "cm-fold",
            "cm-empty",
            "w1",
            "w2",
            "w3",
            "deploy-web",
        ] {
            let v = server(name);
            assert_eq!(
                cyclic_keys_removed(&yaml(&v)),
                cyclic_keys_removed(&data(&format!("{name}.yaml"))),
                "{name} -o yaml"
            );
            assert_eq!(try_yaml(&v), Ok(yaml(&v)), "{name}");
            assert_eq!(json(&v), data(&format!("{name}.json")), "{name} -o json");
        }
    }

    #[test]
    fn a_list_is_rewrapped() {
        let l = server("cm-list");
        let items = l["items"].as_array().expect("items");
        let wrapped = list(&Resource::ConfigMap, items);
        assert_eq!(
            cyclic_keys_removed(&yaml(&wrapped)),
            cyclic_keys_removed(&data("get-cm-list.yaml"))
        );
        assert_eq!(json(&wrapped), data("get-cm-list.json"));
        // An empty list (`kubectl get secrets -o yaml|json` with none).
        let empty = list(&Resource::Secret, &[]);
        assert_eq!(
            yaml(&empty),
            "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
        );
        assert_eq!(
            json(&empty),
            "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
        );
    }

    #[test]
    fn names() {
        let l = server("cm-list");
        let lines: String = l["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|o| {
                name(
                    &Resource::ConfigMap,
                    o["metadata"]["name"].as_str().unwrap_or(""),
                ) + "\n"
            })
            .collect();
        assert_eq!(lines, data("get-cm.name.txt"));
        assert_eq!(name(&Resource::Deployment, "web"), "deployment.apps/web");
        let widgets = Resource::Custom {
            plural: "widgets".into(),
            group: "example.com".into(),
        };
        assert_eq!(name(&widgets, "w1"), "widget.example.com/w1");
    }

    #[test]
    fn tables() {
        for name in [
            "get-cm",
            "get-deploy",
            "get-widgets",
            "get-ns",
            "get-cm-tricky",
        ] {
            let t: Value =
                serde_json::from_str(&data(&format!("{name}.table.json"))).expect("table");
            assert_eq!(table(&t), data(&format!("{name}.txt")), "{name}");
        }
        // No rows: nothing on stdout; kubectl get says so on stderr (captured).
        assert_eq!(
            table(&json!({"columnDefinitions": [{"name": "Name"}], "rows": []})),
            ""
        );
        assert_eq!(
            no_resources(Some("team-a")),
            "No resources found in team-a namespace.\n"
        );
        assert_eq!(no_resources(None), "No resources found\n");
    }

    /// Cells kubectl formats itself (Go source: `printTable`, `WriteEscaped`, `fmt.Sprint`).
    #[test]
    fn table_cells() {
        let t = json!({
            "columnDefinitions": [
                {"name": "Name", "priority": 0}, {"name": "Wide", "priority": 1},
                {"name": "x", "priority": 0}, {"name": "Last", "priority": 0}
            ],
            "rows": [
                {"cells": ["a", "hidden", "two\nlines", 2.5]},
                {"cells": ["longer-name", "", {"k": [1, true]}, null]},
                {"cells": ["e\u{1b}[1m", "", "", "z"]}
            ]
        });
        assert_eq!(
            table(&t),
            "NAME          X                 LAST\n\
             a             two...            2.5\n\
             longer-name   map[k:[1 true]]   \n\
             e^[[1m                          z\n"
        );
    }

    #[test]
    fn json_escapes_as_go() {
        // Captured: `"k": "\b\f\u001f\u0000\u007f<>&\u2028\u2029\"\\/é😀\r\n\t"` came back as
        // below (DEL raw).
        let v = json!("\u{8}\u{c}\u{1f}\u{0}\u{7f}<>&\u{2028}\u{2029}\"\\/é😀\r\n\t");
        assert_eq!(
            go_json(&v),
            "\"\\b\\f\\u001f\\u0000\u{7f}\\u003c\\u003e\\u0026\\u2028\\u2029\\\"\\\\/é😀\\r\\n\\t\""
        );
        assert_eq!(
            go_json(&json!({"b": [1, 0.5], "a": {}})),
            "{\"a\":{},\"b\":[1,0.5]}"
        );
    }

    #[test]
    fn control_characters_fail_like_kubectl() {
        // Captured: DEL, U+0080, U+009F, U+FFFE in a value.
        for c in ['\u{7f}', '\u{80}', '\u{9f}', '\u{fffe}'] {
            let v = json!({"data": {"k": format!("a{c}b")}});
            assert_eq!(
                try_yaml(&v),
                Err("error: yaml: control characters are not allowed\n".to_string())
            );
        }
        // Captured: these print, escaped.
        let v = json!({"a": "a\u{1}b", "b": "a\u{1f}b", "c": "a\u{10000}b", "d": "a\u{feff}b"});
        assert_eq!(
            try_yaml(&v).as_deref(),
            Ok("a: \"a\\x01b\"\nb: \"a\\x1Fb\"\nc: \"a\\U00010000b\"\nd: \"a\\uFEFFb\"\n")
        );
    }
}
