//! A tool result as the model reads it: text content as it is, images, audio and binary resources
//! described by type and size (never inlined: they would cost the context for nothing the model
//! can read as text), `isError` kept, and the whole capped with its head and tail.

use serde_json::Value;

use crate::support::redact::Redactor;

/// What a call came to, for the model and the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallResult {
    /// The text the model gets (capped).
    pub(crate) text: String,
    /// The server said the tool failed (`isError`).
    pub(crate) is_error: bool,
    /// Bytes of text before the cap.
    pub(crate) bytes: u64,
    /// The cap cut something out.
    pub(crate) truncated: bool,
}

/// Read a `tools/call` result (the protocol's JSON) into text, keeping at most `head` bytes from
/// the start and `tail` from the end.
pub(crate) fn read(result: &Value, head: usize, tail: usize, redactor: &Redactor) -> CallResult {
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let mut parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(block_text).collect())
        .unwrap_or_default();
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    let text = if parts.is_empty() {
        "(no content)".to_string()
    } else {
        parts.join("\n")
    };
    // Secrets go before the cap, so a cut never leaves half of one.
    let text = redactor.redact(&text).into_owned();
    let bytes = text.len() as u64;
    let (text, truncated) = cap(&text, head, tail);
    CallResult {
        text,
        is_error,
        bytes,
        truncated,
    }
}

/// One content block as text.
fn block_text(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("unknown");
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    match kind {
        "text" => str_of(block, "text"),
        "image" | "audio" => format!(
            "[{kind}: {}, {} bytes, not shown]",
            str_of(block, "mimeType"),
            decoded_len(&str_of(block, "data"))
        ),
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let uri = str_of(&resource, "uri");
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => format!(
                    "[resource {uri}: {}, {} bytes, not shown]",
                    str_of(&resource, "mimeType"),
                    decoded_len(&str_of(&resource, "blob"))
                ),
            }
        }
        "resource_link" => format!("[resource link {} ({})]", str_of(block, "uri"), str_of(block, "name")),
        other => format!("[{other} content, not shown]"),
    }
}

/// Bytes a base64 text decodes to.
fn decoded_len(b64: &str) -> usize {
    let trimmed = b64.trim_end_matches('=');
    trimmed.len() * 3 / 4
}

/// `text` with at most `head` bytes from its start and `tail` from its end, cut on character
/// boundaries, with a marker saying how much is missing; and whether anything was cut.
pub(crate) fn cap(text: &str, head: usize, tail: usize) -> (String, bool) {
    if text.len() <= head + tail {
        return (text.to_string(), false);
    }
    let mut start = head;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = text.len() - tail;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let cut = end - start;
    (
        format!("{}\n[… {cut} bytes cut …]\n{}", &text[..start], &text[end..]),
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_kept_and_binary_is_described() {
        let r = read(
            &json!({"content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
            ]}),
            100,
            100,
            &Redactor::NONE,
        );
        assert_eq!(
            r.text,
            "hello\n[image: image/png, 3 bytes, not shown]\n[resource file:///a]\ninside"
        );
        assert!(!r.is_error && !r.truncated);
        let failed = read(
            &json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
            10,
            10,
            &Redactor::NONE,
        );
        assert!(failed.is_error);
        assert_eq!(
            read(&json!({"structuredContent": {"a": 1}}), 10, 10, &Redactor::NONE).text,
            r#"{"a":1}"#
        );
        assert_eq!(read(&json!({}), 10, 10, &Redactor::NONE).text, "(no content)");
    }

    #[test]
    fn a_long_result_keeps_head_and_tail() {
        let text = format!("{}{}{}", "a".repeat(10), "é".repeat(100), "z".repeat(10));
        let (capped, cut) = cap(&text, 11, 11);
        assert!(cut);
        assert!(capped.starts_with("aaaaaaaaaa") && capped.ends_with("zzzzzzzzzz"));
        assert!(capped.contains("bytes cut"));
        assert_eq!(cap("short", 2, 3), ("short".to_string(), false));
    }
}
