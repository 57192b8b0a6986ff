//! JSON text that does not depend on the order keys were written in. `serde_json` keeps an
//! object's keys in insertion order in this build (the ACP SDK turns on its `preserve_order`
//! feature for the whole crate graph), so anything hashed or compared as text sorts them first.

use serde_json::Value;

/// `value` with the keys of every object in it sorted, recursively.
pub(crate) fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Compact JSON text of `value` with every object's keys sorted: the same for the same content
/// whatever order the keys came in.
pub(crate) fn canonical(value: &Value) -> String {
    sorted(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_does_not_change_the_text() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[{"d":1,"c":2}],"x":2}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":2,"y":[{"c":2,"d":1}]},"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(canonical(&a), r#"{"a":{"x":2,"y":[{"c":2,"d":1}]},"b":1}"#);
    }
}
