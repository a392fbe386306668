//! Small helpers over `serde_json::Value` (objects keep insertion order: the workspace enables
//! serde_json's `preserve_order`, so bodies print in the apiserver's field order).

use serde_json::Value;
use std::hash::{Hash, Hasher};

/// Feeds a JSON value into a hasher, structurally and deterministically (map keys in their
/// stored order, numbers by their text), so that worlds holding JSON can be `Hash`.
pub fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => {
            1u8.hash(h);
            b.hash(h);
        }
        Value::Number(n) => {
            2u8.hash(h);
            n.to_string().hash(h);
        }
        Value::String(s) => {
            3u8.hash(h);
            s.hash(h);
        }
        Value::Array(a) => {
            4u8.hash(h);
            (a.len() as u64).hash(h);
            for x in a {
                hash_value(x, h);
            }
        }
        Value::Object(m) => {
            5u8.hash(h);
            (m.len() as u64).hash(h);
            for (k, x) in m {
                k.hash(h);
                hash_value(x, h);
            }
        }
    }
}

/// A JSON value that is `Hash`, for use inside world values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HValue(pub Value);

impl Hash for HValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_value(&self.0, state)
    }
}

impl From<Value> for HValue {
    fn from(v: Value) -> Self {
        HValue(v)
    }
}
