//! A Messages API response folded into one [`Reply`]: the streamed events (`message_start`,
//! `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`, `ping`, `error`)
//! one at a time, or a whole non-streamed message. Event and block types this client does not
//! know are skipped, as the API's versioning policy asks; a known event whose data is not what
//! the reference says is an error naming the event.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::llm::LlmError;
use crate::llm::types::{FunctionCall, Reply, ToolCall, Usage};

/// One content block as it is being built.
#[derive(Debug)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
        start_input: Value,
    },
    /// `thinking` (text and signature arrive in deltas) or `redacted_thinking` (whole at start):
    /// kept as the object the API must get back.
    Thinking(Value),
    /// A block type this client does not use (server tools, citations …).
    Other,
}

/// Folds the events of one response, in order.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    blocks: BTreeMap<u64, Block>,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    started: bool,
    stopped: bool,
}

impl Fold {
    /// Take one event: its `event:` name (may be empty; the data's `type` decides) and data.
    /// Text deltas go to `on_text` as they come.
    pub(crate) fn push(
        &mut self,
        name: &str,
        data: &str,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<(), LlmError> {
        // Some gateways end a Messages API stream with the chat-completions `[DONE]` as well.
        if data.trim().is_empty() || data.trim() == "[DONE]" {
            return Ok(());
        }
        let event: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(format!(
                "the endpoint sent a `{}` event whose data is not JSON ({e}); is AGENT_BASE_URL a Messages API endpoint?",
                if name.is_empty() { "message" } else { name }
            ))
            .with_snippet(data.chars().take(400).collect::<String>())
        })?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or(name).to_string();
        match kind.as_str() {
            "message_start" => {
                self.started = true;
                self.add_usage(event.pointer("/message/usage"));
            }
            "content_block_start" => {
                let index = index_of(&event, &kind)?;
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                self.start_block(index, block, on_text);
            }
            "content_block_delta" => {
                let index = index_of(&event, &kind)?;
                self.delta(index, event.get("delta").unwrap_or(&Value::Null), on_text);
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                self.add_usage(event.get("usage"));
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(stream_error(&event)),
            // `ping`, `content_block_stop` and anything newer.
            _ => {}
        }
        Ok(())
    }

    /// Take a whole (non-streamed) message, as `stream: false` returns it.
    pub(crate) fn push_message(
        &mut self,
        message: &Value,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<(), LlmError> {
        if message.get("type").and_then(Value::as_str) == Some("error") {
            return Err(stream_error(message));
        }
        let Some(content) = message.get("content").and_then(Value::as_array) else {
            return Err(LlmError::new(
                "the endpoint answered with JSON that is not a Messages API message (no `content`); \
                 check that AGENT_BASE_URL points at a Messages API endpoint",
            )
            .with_snippet(message.to_string().chars().take(400).collect::<String>()));
        };
        self.started = true;
        for (i, block) in content.iter().enumerate() {
            self.start_block(i as u64, block.clone(), on_text);
        }
        self.add_usage(message.get("usage"));
        self.stop_reason = message.get("stop_reason").and_then(Value::as_str).map(str::to_string);
        self.stopped = true;
        Ok(())
    }

    fn start_block(&mut self, index: u64, block: Value, on_text: &mut (dyn FnMut(&str) + Send)) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
        let built = match kind {
            "text" => {
                let text = block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if !text.is_empty() {
                    on_text(&text);
                }
                Block::Text(text)
            }
            "tool_use" => Block::ToolUse {
                id: str_field(&block, "id"),
                name: str_field(&block, "name"),
                json: String::new(),
                start_input: block.get("input").cloned().unwrap_or(Value::Null),
            },
            "thinking" | "redacted_thinking" => Block::Thinking(block),
            _ => Block::Other,
        };
        self.blocks.insert(index, built);
    }

    fn delta(&mut self, index: u64, delta: &Value, on_text: &mut (dyn FnMut(&str) + Send)) {
        let Some(block) = self.blocks.get_mut(&index) else {
            return;
        };
        let kind = delta.get("type").and_then(Value::as_str).unwrap_or_default();
        match (kind, block) {
            ("text_delta", Block::Text(text)) => {
                let piece = delta.get("text").and_then(Value::as_str).unwrap_or_default();
                text.push_str(piece);
                if !piece.is_empty() {
                    on_text(piece);
                }
            }
            ("input_json_delta", Block::ToolUse { json, .. }) => {
                json.push_str(delta.get("partial_json").and_then(Value::as_str).unwrap_or_default());
            }
            ("thinking_delta", Block::Thinking(b)) => append(b, "thinking", delta),
            ("signature_delta", Block::Thinking(b)) => append(b, "signature", delta),
            _ => {}
        }
    }

    /// `message_start` carries the input counts; `message_delta` the output count so far, and
    /// may repeat the input counts: each count present replaces the one before.
    fn add_usage(&mut self, usage: Option<&Value>) {
        let Some(u) = usage.filter(|u| u.is_object()) else {
            return;
        };
        let mut raw = self.raw_usage();
        for (field, slot) in [
            ("input_tokens", &mut raw.0),
            ("cache_creation_input_tokens", &mut raw.1),
            ("cache_read_input_tokens", &mut raw.2),
            ("output_tokens", &mut raw.3),
        ] {
            if let Some(n) = u.get(field).and_then(Value::as_u64) {
                *slot = n;
            }
        }
        let (input, write, read, output) = raw;
        let prompt = input + write + read;
        self.usage = Some(Usage {
            prompt_tokens: prompt,
            completion_tokens: output,
            total_tokens: prompt + output,
            cache_write_tokens: write,
            cache_read_tokens: read,
            cost_usd: None,
        });
    }

    /// `(input, cache write, cache read, output)` as counted so far.
    fn raw_usage(&self) -> (u64, u64, u64, u64) {
        self.usage.as_ref().map_or((0, 0, 0, 0), |u| {
            (
                u.prompt_tokens - u.cache_write_tokens - u.cache_read_tokens,
                u.cache_write_tokens,
                u.cache_read_tokens,
                u.completion_tokens,
            )
        })
    }

    /// The reply, once the stream has ended; a stream that ends before `message_stop` broke off.
    pub(crate) fn finish(self) -> Result<Reply, LlmError> {
        if !self.stopped {
            let when = if self.started {
                "before `message_stop`"
            } else {
                "before `message_start`"
            };
            return Err(LlmError::new(format!("the response stream broke off {when}")).cut_off());
        }
        let mut reply = Reply {
            finish_reason: self.stop_reason,
            usage: self.usage,
            ..Reply::default()
        };
        for block in self.blocks.into_values() {
            match block {
                Block::Text(text) => reply.content.push_str(&text),
                Block::ToolUse {
                    id,
                    name,
                    json,
                    start_input,
                } => {
                    let arguments = match (json.trim().is_empty(), start_input) {
                        (false, _) => json,
                        (true, Value::Object(m)) if !m.is_empty() => Value::Object(m).to_string(),
                        (true, _) => "{}".to_string(),
                    };
                    reply.tool_calls.push(ToolCall {
                        id,
                        kind: "function",
                        function: FunctionCall { name, arguments },
                    });
                }
                Block::Thinking(b) => reply.thinking.push(b),
                Block::Other => {}
            }
        }
        if reply.content.is_empty() && reply.tool_calls.is_empty() {
            return Err(LlmError::new(format!(
                "the model finished without an answer (stop reason {})",
                reply.finish_reason.as_deref().unwrap_or("none")
            ))
            .empty_reply());
        }
        Ok(reply)
    }
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Append a delta's `key` text to the block's field of that name (thinking text, signature).
fn append(block: &mut Value, key: &str, delta: &Value) {
    let piece = delta.get(key).and_then(Value::as_str).unwrap_or_default();
    if let Some(object) = block.as_object_mut() {
        let mut text = object.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        text.push_str(piece);
        object.insert(key.into(), Value::String(text));
    }
}

fn index_of(event: &Value, kind: &str) -> Result<u64, LlmError> {
    event.get("index").and_then(Value::as_u64).ok_or_else(|| {
        LlmError::new(format!("the endpoint sent a `{kind}` event without a block `index`"))
            .with_snippet(event.to_string().chars().take(400).collect::<String>())
    })
}

/// An `error` event mid-stream: overloaded and internal errors break the response off and are
/// asked again, like an HTTP 529 or 500; others end the call with the server's words.
fn stream_error(event: &Value) -> LlmError {
    let kind = event.pointer("/error/type").and_then(Value::as_str).unwrap_or("error");
    let message = event
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("no details");
    let snippet = event.to_string();
    match kind {
        "overloaded_error" | "api_error" | "rate_limit_error" | "timeout_error" => LlmError::new(format!(
            "the model endpoint failed mid-response ({kind}: {message}); the server may be overloaded — try again later"
        ))
        .cut_off()
        .with_snippet(snippet),
        _ => LlmError::new(format!("the model endpoint failed mid-response ({kind}: {message})")).with_snippet(snippet),
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
