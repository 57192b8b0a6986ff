//! YAML read as JSON values: the one bridge from the YAML parser to `serde_json`, used for skill
//! frontmatter, routing-case files, and for naming a value's kind in messages.

use gray_matter::Pod;
use gray_matter::engine::{Engine, YAML};
use serde_json::Value;

/// Parse YAML text into JSON values; the error is the parser's whole message, which names the line
/// and column ("… at byte N line L column C"). It is text on purpose: callers quote it in a lint
/// finding or a message naming the file, and the parser's error has no cause beneath it.
pub(crate) fn to_json(text: &str) -> Result<Value, String> {
    YAML::parse(text).map(pod_to_json).map_err(|e| e.to_string())
}

/// Parse a whole YAML document (not frontmatter) into JSON values; the error is the first line of
/// the parser's message, which names the line.
pub(crate) fn document(text: &str) -> Result<Value, String> {
    to_json(text).map_err(|e| first_line(&e).to_string())
}

/// The first line of a (possibly multi-line) message.
pub(crate) fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// A JSON value's kind, for messages ("a list", "a mapping").
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

fn pod_to_json(pod: Pod) -> Value {
    match pod {
        Pod::Null => Value::Null,
        Pod::String(s) => Value::String(s),
        Pod::Integer(i) => Value::from(i),
        Pod::Float(f) => serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Pod::Boolean(b) => Value::Bool(b),
        Pod::Array(items) => Value::Array(items.into_iter().map(pod_to_json).collect()),
        Pod::Hash(map) => {
            let mut sorted: Vec<_> = map.into_iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(sorted.into_iter().map(|(k, v)| (k, pod_to_json(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_parse_and_errors_name_the_line() {
        let v = document("threshold: 0.5\ncases:\n  - prompt: x\n").unwrap();
        assert_eq!(v["cases"][0]["prompt"], "x");
        assert_eq!(kind_of(&v["cases"]), "list");
        let err = document("a: [unclosed\nb: c").unwrap_err();
        assert!(err.contains("line"), "{err}");
        assert!(!err.contains('\n'));
    }
}
