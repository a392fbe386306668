//! Small helpers over `serde_json::Value` (objects keep insertion order: the workspace enables
//! serde_json's `preserve_order`, so bodies print in the apiserver's field order).

use serde_json::{Map, Value};
use std::hash::{Hash, Hasher};

/// A JSON object with these fields, in this order (`preserve_order` keeps it): the explorer's
/// report and the page's small records are built with it rather than `json!`, which links
/// serde's `Value` serializer (docs/size.md).
pub fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<String, Value>>(),
    )
}

/// Feeds a JSON value into a hasher, structurally and deterministically (map keys in their
/// stored order, numbers by their text), so that worlds holding JSON can be `Hash`. Values
/// that hold it must compare with [`same_value`], which agrees with it.
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

/// Whether two JSON values are equal as [`hash_value`] sees them: the same structure, object
/// keys in the same order, numbers with the same text. So `same_value(a, b)` holds exactly when
/// `hash_value` writes the same bytes for both (a property test checks it), and equal values
/// hash alike.
///
/// `Value`'s own `==` is coarser, and would not agree with `hash_value`: it ignores the order
/// of object keys (`{"a":1,"b":2} == {"b":2,"a":1}`) and takes `0.0 == -0.0` (`-0` parses as
/// `-0.0`, printed `-0.0`). Both differences are observable (bodies print in their key order),
/// so world values compare with this one.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        // Equal numbers print alike except for the two zeros of a float.
        (Value::Number(x), Value::Number(y)) => {
            x == y && x.as_f64().map(f64::is_sign_negative) == y.as_f64().map(f64::is_sign_negative)
        }
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, x), (ky, y))| kx == ky && same_value(x, y))
        }
        _ => false,
    }
}

/// A JSON value that is `Hash`, for use inside world values. Its equality is [`same_value`],
/// which agrees with its hash.
#[derive(Debug, Clone, Default)]
pub struct HValue(pub Value);

impl PartialEq for HValue {
    fn eq(&self, other: &Self) -> bool {
        same_value(&self.0, &other.0)
    }
}

impl Eq for HValue {}

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

/// The value with every object's keys sorted, as Go marshals a map (kubectl's request bodies,
/// the strategic merge patches it computes).
pub fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut e: Vec<(&String, &Value)> = m.iter().collect();
            crate::sort::sort_by(&mut e, |a, b| a.0.cmp(b.0));
            Value::Object(e.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        v => v.clone(),
    }
}

/// Removes every `null` member of every object, at any depth (array items stay): what kubectl
/// drops from a file before it sends it, and from a three-way patch's additions.
pub fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(prune_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

/// Whether `v` nests containers (objects and arrays) more than `max` deep, the root counting
/// as one: walked with a stack of its own, so any depth is measured without recursion.
pub fn deeper_than(v: &Value, max: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 1)];
    while let Some((v, depth)) = stack.pop() {
        let is_container = matches!(v, Value::Array(_) | Value::Object(_));
        if is_container && depth > max {
            return true;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, depth + 1))),
            Value::Object(m) => stack.extend(m.values().map(|c| (c, depth + 1))),
            _ => {}
        }
    }
    false
}

/// The length of `v` as Go's `json.Marshal` writes it: compact, and with `<`, `>`, `&`,
/// U+2028 and U+2029 escaped as `\u003c` and the like (encoding/json's `escapeHTML`), where
/// serde_json writes them as they are. What gopkg.in/evanphx/json-patch.v4 counts against the
/// apiserver's copy limit (`deepCopy`: `len(json.Marshal(node))`).
pub fn go_encoded_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            // serde_json writes each run of unescaped string bytes in one call, so a
            // three-byte U+2028 or U+2029 is never split between two calls.
            let html = buf
                .iter()
                .filter(|b| matches!(b, b'<' | b'>' | b'&'))
                .count();
            let separators = buf
                .windows(3)
                .filter(|w| matches!(w, [0xE2, 0x80, 0xA8 | 0xA9]))
                .count();
            self.0 += buf.len() + 5 * html + 3 * separators;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

/// The JSON type of a value as Go's `encoding/json` names it in unmarshal errors.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn objects_keep_their_fields_order_and_types() {
        let v = super::object(vec![
            ("z", 1u64.into()),
            ("a", "x".into()),
            ("n", Option::<String>::None.into()),
            ("b", true.into()),
        ]);
        assert_eq!(v.to_string(), r#"{"z":1,"a":"x","n":null,"b":true}"#);
    }

    use super::*;
    use crate::hash::Recorder;
    use proptest::prelude::*;
    use serde_json::{json, Map};

    /// The bytes `hash_value` writes (the explorer's encoding of a world's JSON).
    fn encoding(v: &Value) -> Vec<u8> {
        let mut r = Recorder(Vec::new());
        hash_value(v, &mut r);
        r.0
    }

    fn number() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!(0)),
            Just(json!(1)),
            Just(json!(-1)),
            Just(json!(0.0)),
            Just(json!(-0.0)),
            Just(json!(1.0)),
            Just(json!(2.5)),
            Just(json!(u64::MAX)),
            Just(json!(i64::MIN)),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            number(),
            "[ab1]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::vec(("[abc]", inner), 0..4)
                    .prop_map(|kvs| Value::Object(kvs.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// `v` with every object's keys in reverse order and every float zero's sign flipped, as
    /// chosen by `flags`: the near misses that `Value`'s own `==` does not tell apart.
    fn variant(v: &Value, reverse: bool, flip_zeros: bool) -> Value {
        match v {
            Value::Number(n) if flip_zeros && n.as_f64() == Some(0.0) && n.is_f64() => {
                json!(-n.as_f64().unwrap_or(0.0))
            }
            Value::Array(a) => {
                Value::Array(a.iter().map(|x| variant(x, reverse, flip_zeros)).collect())
            }
            Value::Object(m) => {
                let mut entries: Vec<(String, Value)> = m
                    .iter()
                    .map(|(k, x)| (k.clone(), variant(x, reverse, flip_zeros)))
                    .collect();
                if reverse {
                    entries.reverse();
                }
                Value::Object(entries.into_iter().collect())
            }
            other => other.clone(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Equal `HValue`s hash alike, and more: they are equal exactly when `hash_value`
        /// writes the same bytes, so world equality is the explorer's merging.
        #[test]
        fn hvalue_equality_is_equality_of_the_hash_stream(
            a in value(),
            b in value(),
            reverse in any::<bool>(),
            flip_zeros in any::<bool>(),
        ) {
            let near = variant(&a, reverse, flip_zeros);
            for other in [&b, &near, &a] {
                let equal = HValue(a.clone()) == HValue(other.clone());
                prop_assert_eq!(equal, encoding(&a) == encoding(other));
                // Finer than `Value`'s own equality, never coarser.
                prop_assert!(!equal || a == *other);
            }
        }
    }

    #[test]
    fn key_order_and_the_sign_of_zero_tell_values_apart() {
        let ab = json!({"a": 1, "b": 2});
        let ba = json!({"b": 2, "a": 1});
        assert_eq!(ab, ba, "serde_json ignores key order");
        assert_ne!(HValue(ab.clone()), HValue(ba.clone()));
        assert_ne!(encoding(&ab), encoding(&ba));
        let (zero, minus_zero) = (json!(0.0), serde_json::from_str::<Value>("-0").unwrap());
        assert_eq!(zero, minus_zero, "serde_json takes 0.0 == -0.0");
        assert_ne!(HValue(zero.clone()), HValue(minus_zero.clone()));
        assert_ne!(encoding(&zero), encoding(&minus_zero));
        assert_eq!(HValue(ab.clone()), HValue(ab));
        assert_ne!(HValue(json!(1)), HValue(json!(1.0)));
    }

    #[test]
    fn depth_is_measured_without_recursion() {
        use serde_json::json;
        assert!(!super::deeper_than(&json!(1), 0));
        assert!(!super::deeper_than(&json!({"a": [1]}), 2));
        assert!(super::deeper_than(&json!({"a": [1]}), 1));
        assert!(super::deeper_than(&json!({"a": {}}), 1));
        // Far deeper than any recursion would survive.
        let mut v = json!(0);
        for _ in 0..200_000 {
            v = serde_json::Value::Array(vec![v]);
        }
        assert!(super::deeper_than(&v, 199_999));
        assert!(!super::deeper_than(&v, 200_000));
        // Dropping it recursively would overflow the stack: unwind it by hand.
        while let serde_json::Value::Array(mut a) = v {
            v = a.pop().unwrap_or_default();
        }
    }

    #[test]
    fn go_length_escapes_html_and_line_separators() {
        use serde_json::json;
        assert_eq!(super::go_encoded_len(&json!({"a": "x"})), 9);
        // Go: {"a":"\u003c\u0026\u003e"} and "\u2028".
        assert_eq!(super::go_encoded_len(&json!({"a": "<&>"})), 26);
        assert_eq!(super::go_encoded_len(&json!("\u{2028}")), 8);
        assert_eq!(super::go_encoded_len(&json!(["\n", 1.5, null])), 15);
    }
}
