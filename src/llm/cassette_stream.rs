//! Redacting a recorded stream as a whole: a model streams text in pieces, so a secret can arrive
//! split across two chunks (`S` then `ECRETTOKEN123456`) and no chunk alone matches it. Before a
//! response is written to a cassette, the pieces of each message (and of each tool call's
//! arguments) are joined and redacted, as the terminal redacts the joined text; when that changes
//! anything, the whole redacted text goes into the first piece and the others are emptied.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::redact::Redactor;

/// Where one streamed piece sits in a chunk: the choice, and the message text or a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Content(u64),
    Arguments(u64, u64),
    /// A Messages API content block (its text, or its tool input's JSON), by index.
    Block(u64),
}

/// The server-sent-event text `sse` with every secret its joined pieces hold redacted.
pub(crate) fn redact_joined(sse: &str, redactor: &Redactor) -> String {
    if redactor.is_empty() {
        return sse.to_string();
    }
    let mut lines: Vec<(String, Option<Value>)> = sse
        .split('\n')
        .map(|line| {
            let data = line
                .strip_prefix("data:")
                .map(str::trim)
                .filter(|d| *d != "[DONE]")
                .and_then(|d| serde_json::from_str::<Value>(d).ok());
            (line.to_string(), data)
        })
        .collect();
    // Each part's pieces, in order: (line, text).
    let mut parts: BTreeMap<Part, Vec<(usize, String)>> = BTreeMap::new();
    for (idx, (_, data)) in lines.iter().enumerate() {
        for (part, text) in pieces(data.as_ref()) {
            parts.entry(part).or_default().push((idx, text));
        }
    }
    let mut changed = false;
    for (part, pieces) in &parts {
        let joined: String = pieces.iter().map(|(_, t)| t.as_str()).collect();
        let redacted = redactor.redact(&joined);
        if redacted == joined {
            continue;
        }
        changed = true;
        for (n, (idx, _)) in pieces.iter().enumerate() {
            let text = if n == 0 { redacted.as_ref() } else { "" };
            if let Some(data) = lines[*idx].1.as_mut() {
                set_piece(data, *part, text);
            }
        }
    }
    if !changed {
        return sse.to_string();
    }
    lines
        .into_iter()
        .map(|(raw, data)| match data {
            Some(data) => format!("data: {data}"),
            None => raw,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The streamed text pieces of one chunk.
fn pieces(data: Option<&Value>) -> Vec<(Part, String)> {
    let mut out = Vec::new();
    if let Some((index, text)) = data.and_then(block_piece) {
        out.push((Part::Block(index), text.to_string()));
        return out;
    }
    let Some(choices) = data.and_then(|d| d.get("choices")).and_then(Value::as_array) else {
        return out;
    };
    for (n, choice) in choices.iter().enumerate() {
        let index = choice.get("index").and_then(Value::as_u64).unwrap_or(n as u64);
        let delta = choice.get("delta");
        if let Some(text) = delta.and_then(|d| d.get("content")).and_then(Value::as_str) {
            out.push((Part::Content(index), text.to_string()));
        }
        let calls = delta.and_then(|d| d.get("tool_calls")).and_then(Value::as_array);
        for (k, call) in calls.into_iter().flatten().enumerate() {
            let call_index = call.get("index").and_then(Value::as_u64).unwrap_or(k as u64);
            let args = call.get("function").and_then(|f| f.get("arguments"));
            if let Some(text) = args.and_then(Value::as_str) {
                out.push((Part::Arguments(index, call_index), text.to_string()));
            }
        }
    }
    out
}

/// The block index and text of a Messages API `content_block_delta` (text or tool input).
fn block_piece(data: &Value) -> Option<(u64, &str)> {
    if data.get("type").and_then(Value::as_str) != Some("content_block_delta") {
        return None;
    }
    let index = data.get("index").and_then(Value::as_u64)?;
    let delta = data.get("delta")?;
    let text = delta.get("text").or_else(|| delta.get("partial_json"))?.as_str()?;
    Some((index, text))
}

/// Put `text` where `part` sits in this chunk.
fn set_piece(data: &mut Value, part: Part, text: &str) {
    if let Part::Block(index) = part {
        if data.get("index").and_then(Value::as_u64) == Some(index)
            && let Some(delta) = data.get_mut("delta").and_then(Value::as_object_mut)
        {
            for key in ["text", "partial_json"] {
                if let Some(slot) = delta.get_mut(key) {
                    *slot = Value::String(text.to_string());
                }
            }
        }
        return;
    }
    let Some(choices) = data.get_mut("choices").and_then(Value::as_array_mut) else {
        return;
    };
    for (n, choice) in choices.iter_mut().enumerate() {
        let index = choice.get("index").and_then(Value::as_u64).unwrap_or(n as u64);
        let Some(delta) = choice.get_mut("delta") else { continue };
        match part {
            Part::Content(i) if i == index => {
                if let Some(content) = delta.get_mut("content") {
                    *content = Value::String(text.to_string());
                }
            }
            Part::Arguments(i, call_index) if i == index => {
                let calls = delta.get_mut("tool_calls").and_then(Value::as_array_mut);
                for (k, call) in calls.into_iter().flatten().enumerate() {
                    let this = call.get("index").and_then(Value::as_u64).unwrap_or(k as u64);
                    if this == call_index
                        && let Some(args) = call.get_mut("function").and_then(|f| f.get_mut("arguments"))
                    {
                        *args = Value::String(text.to_string());
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::from_env(&[("MY_TOKEN".to_string(), "SECRETTOKEN123456".to_string())].into())
    }

    fn chunk(content: &str) -> String {
        format!(
            "data: {}",
            serde_json::json!({"choices": [{"index": 0, "delta": {"content": content}}]})
        )
    }

    #[test]
    fn a_secret_split_across_chunks_is_redacted_whole() {
        let sse = [
            chunk("the key is S"),
            chunk("ECRETTOKEN123456"),
            chunk(" ok"),
            "data: [DONE]".into(),
        ]
        .join("\n\n");
        let out = redact_joined(&sse, &redactor());
        assert!(!out.contains("ECRETTOKEN123456"), "{out}");
        assert!(out.contains("the key is [REDACTED:MY_TOKEN] ok"), "{out}");
        assert!(out.ends_with("data: [DONE]"), "{out}");
        let plain = [chunk("nothing "), chunk("secret")].join("\n\n");
        assert_eq!(
            redact_joined(&plain, &redactor()),
            plain,
            "untouched when nothing matches"
        );
    }

    #[test]
    fn messages_api_blocks_are_joined_per_block() {
        let delta = |index: u64, delta: serde_json::Value| {
            format!(
                "event: content_block_delta\ndata: {}",
                serde_json::json!({"type": "content_block_delta", "index": index, "delta": delta})
            )
        };
        let sse = [
            delta(0, serde_json::json!({"type": "text_delta", "text": "key S"})),
            delta(
                1,
                serde_json::json!({"type": "input_json_delta", "partial_json": "{\"command\":\"echo SECRET"}),
            ),
            delta(
                0,
                serde_json::json!({"type": "text_delta", "text": "ECRETTOKEN123456 end"}),
            ),
            delta(
                1,
                serde_json::json!({"type": "input_json_delta", "partial_json": "TOKEN123456\"}"}),
            ),
        ]
        .join("\n\n");
        let out = redact_joined(&sse, &redactor());
        assert!(!out.contains("TOKEN123456"), "{out}");
        assert!(out.contains("key [REDACTED:MY_TOKEN] end"), "{out}");
        assert!(out.contains("echo [REDACTED:MY_TOKEN]"), "{out}");
        assert!(out.contains("event: content_block_delta"), "event lines kept: {out}");
    }

    #[test]
    fn tool_call_arguments_are_joined_per_call() {
        let call = |args: &str| {
            format!(
                "data: {}",
                serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": args}}]}}]})
            )
        };
        let sse = [call("{\"command\":\"echo SECRET"), call("TOKEN123456\"}")].join("\n\n");
        let out = redact_joined(&sse, &redactor());
        assert!(!out.contains("TOKEN123456"), "{out}");
        assert!(out.contains("[REDACTED:MY_TOKEN]"), "{out}");
    }
}
