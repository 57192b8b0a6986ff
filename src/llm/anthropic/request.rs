//! The conversation as a Messages API request body (docs/design.md#messages-api): the system
//! prompt as the top-level `system`, tool schemas as `{name, description, input_schema}`, calls as
//! `tool_use` blocks and their results as `tool_result` blocks of one user message, and prompt
//! cache breakpoints on the byte-stable prefix.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::llm::types::ChatMessage;

/// The most breakpoints one request may carry (the API refuses a fifth).
pub(crate) const MAX_BREAKPOINTS: usize = 4;

/// The body of `POST /v1/messages`. Fields are written in this order, the stable ones first, so
/// a request's bytes share their front with the one before.
#[derive(Debug, Serialize)]
pub(crate) struct MessagesRequest<'a> {
    pub(crate) model: &'a str,
    pub(crate) max_tokens: u32,
    /// Absent when empty: the API refuses an empty text block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) system: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) tools: Vec<Value>,
    pub(crate) messages: Vec<Value>,
    pub(crate) stream: bool,
}

/// The request body for `messages` and the chat-completions-shaped `tools`, as JSON.
#[cfg(test)]
pub(crate) fn body(model: &str, max_tokens: u32, stream: bool, messages: &[ChatMessage], tools: &Value) -> Value {
    serde_json::to_value(build(model, max_tokens, stream, messages, tools)).unwrap_or(Value::Null)
}

/// The request for `messages` and the chat-completions-shaped `tools`.
pub(crate) fn build<'a>(
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    messages: &[ChatMessage],
    tools: &Value,
) -> MessagesRequest<'a> {
    let (system, rest) = match messages.split_first() {
        Some((first, rest)) if first.role == "system" => (first.content.clone().unwrap_or_default(), rest),
        _ => (String::new(), messages),
    };
    let mut request = MessagesRequest {
        model,
        max_tokens,
        system: Some(system)
            .filter(|s| !s.trim().is_empty())
            .map(|s| text_block(&s))
            .into_iter()
            .collect(),
        tools: tool_schemas(tools),
        messages: grouped(rest)
            .into_iter()
            .map(|(role, blocks)| json!({"role": role, "content": blocks}))
            .collect(),
        stream,
    };
    place_breakpoints(&mut request);
    for message in &mut request.messages {
        for block in message["content"].as_array_mut().into_iter().flatten() {
            if let Some(object) = block.as_object_mut() {
                object.remove(NOTE_MARK);
            }
        }
    }
    request
}

/// A key put on the agent's note while breakpoints are placed (never sent): no breakpoint goes
/// on a note.
const NOTE_MARK: &str = "agent_note";

/// `{"type": "ephemeral"}`: the five-minute cache, refreshed by every read.
fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Chat-completions tool schemas (`{"type": "function", "function": {…}}`) as Messages API tools.
fn tool_schemas(tools: &Value) -> Vec<Value> {
    let Some(list) = tools.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|tool| {
            let f = tool.get("function").unwrap_or(tool);
            let name = f.get("name")?.as_str()?;
            let mut out = Map::new();
            out.insert("name".into(), name.into());
            if let Some(d) = f.get("description").and_then(Value::as_str) {
                out.insert("description".into(), d.into());
            }
            let schema = f
                .get("parameters")
                .or_else(|| f.get("input_schema"))
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            out.insert("input_schema".into(), schema);
            Some(Value::Object(out))
        })
        .collect()
}

/// One wire message per run of same-role messages: the results of parallel calls (and anything
/// the user says right after them) become one user message, tool results first, as the API
/// requires: `(role, blocks)`.
fn grouped(messages: &[ChatMessage]) -> Vec<(&'static str, Vec<Value>)> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            "assistant" => ("assistant", assistant_blocks(m)),
            "tool" => ("user", vec![tool_result(m)]),
            // A user's message, an agent's note, or a later system message (sent as user text).
            _ => ("user", user_blocks(m)),
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => {
                if role == "user" && m.role == "tool" {
                    // Results must lead their message: put this one after the other results.
                    let at = last_blocks.iter().take_while(|b| b["type"] == "tool_result").count();
                    last_blocks.splice(at..at, blocks);
                } else {
                    last_blocks.extend(blocks);
                }
            }
            _ => out.push((role, blocks)),
        }
    }
    if out.first().is_some_and(|(role, _)| *role == "assistant") {
        // The API wants a user message first; a compacted history can begin with an answer.
        out.insert(0, ("user", vec![text_block("(earlier conversation)")]));
    }
    out
}

/// A user message: its text, then the agent's note as a block of its own, kept apart from the
/// user's words and never carrying a breakpoint, so it always follows the cached prefix.
fn user_blocks(m: &ChatMessage) -> Vec<Value> {
    // The API refuses text blocks that are empty or only white space.
    let mut blocks: Vec<Value> = m
        .content
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .map(text_block)
        .into_iter()
        .collect();
    if let Some(note) = m.note.as_deref().filter(|t| !t.trim().is_empty()) {
        let mut block = text_block(note);
        block[NOTE_MARK] = Value::Bool(true);
        blocks.push(block);
    }
    blocks
}

/// An answer: its reasoning blocks exactly as received, its text, then a `tool_use` per call.
fn assistant_blocks(m: &ChatMessage) -> Vec<Value> {
    let mut blocks = m.thinking.clone();
    if let Some(text) = m.content.as_deref().filter(|t| !t.trim().is_empty()) {
        blocks.push(text_block(text));
    }
    for call in &m.tool_calls {
        // Arguments were checked when the call ran; a malformed one is sent as no arguments
        // (its result already told the model what was wrong).
        let input = serde_json::from_str::<Value>(&call.function.arguments)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        blocks.push(json!({
            "type": "tool_use",
            "id": tool_id(&call.id),
            "name": call.function.name,
            "input": input,
        }));
    }
    blocks
}

fn tool_result(m: &ChatMessage) -> Value {
    let mut block = json!({
        "type": "tool_result",
        "tool_use_id": tool_id(m.tool_call_id.as_deref().unwrap_or_default()),
    });
    if let Some(text) = m.content.as_deref().filter(|t| !t.trim().is_empty()) {
        block["content"] = text.into();
    }
    block
}

/// A call id the API accepts (`[A-Za-z0-9_-]+`): ids made by another provider, or by the agent
/// for a call written as text, keep their letters and lose the rest, the same way on both sides.
pub(crate) fn tool_id(id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() { "call".into() } else { clean }
}

/// Breakpoints on the stable prefix, at most [`MAX_BREAKPOINTS`] (docs/design.md#prompt-caching):
/// the last tool (caches every schema), the system prompt (with the catalog), the message the
/// previous request ended with (what it wrote is read back exactly there: the one before the last
/// answer, so for a turn's first request the last message of the previous turn's requests), and
/// the last message (written now, read by the next request, in this turn or the next).
fn place_breakpoints(request: &mut MessagesRequest<'_>) {
    let mut left = MAX_BREAKPOINTS;
    if let Some(last) = request.tools.last_mut() {
        mark(last, &mut left);
    }
    if let Some(last) = request.system.last_mut() {
        mark(last, &mut left);
    }
    let count = request.messages.len();
    // Every request adds the model's answer and what follows it: the message before the last
    // answer is where the previous request ended.
    let previous = request
        .messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .and_then(|a| a.checked_sub(1));
    for index in [previous, count.checked_sub(1)].into_iter().flatten() {
        if let Some(message) = request.messages.get_mut(index)
            && let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut)
            && let Some(block) = blocks.iter_mut().rev().find(|b| {
                !matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")) && b.get(NOTE_MARK).is_none()
            })
            && block.get("cache_control").is_none()
        {
            mark(block, &mut left);
        }
    }
}

fn mark(block: &mut Value, left: &mut usize) {
    if *left > 0
        && let Some(object) = block.as_object_mut()
    {
        object.insert("cache_control".into(), ephemeral());
        *left -= 1;
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
