//! kubectl's printers.

use serde_json::Value;

/// `-o yaml`: sigs.k8s.io/yaml v1.4.0 (its goyaml.v2 fork) of the object as kubectl prints it.
pub fn yaml(v: &Value) -> String {
    crate::yaml::to_yaml(v)
}

/// `-o json`: Go's `json.MarshalIndent(obj, "", "    ")` plus a newline.
pub fn json(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
