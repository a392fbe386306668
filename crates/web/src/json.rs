//! JSON objects built by hand: `serde_json::json!` serialises every field through serde's
//! `Value` serializer, which the page would link for its three small records alone
//! (docs/size.md). `serde_json`'s `preserve_order` keeps the fields in this order, as `json!`
//! did, so the text is the same.

use serde_json::{Map, Value};

/// A JSON object with these fields, in this order.
pub fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<String, Value>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::object;

    #[test]
    fn fields_keep_their_order_and_types() {
        let v = object(vec![
            ("z", 1u64.into()),
            ("a", "x".into()),
            ("n", Option::<String>::None.into()),
            ("b", true.into()),
        ]);
        assert_eq!(v.to_string(), r#"{"z":1,"a":"x","n":null,"b":true}"#);
    }
}
