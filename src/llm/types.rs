//! Wire types: what we send (strict) and what we accept back (lenient, for real servers' quirks).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a message from `agent` itself to the model begins ([`ChatMessage::agent_note`]).
pub(crate) const AGENT_NOTE: &str = "[agent]";

/// One message of the conversation, in the chat-completions shape. Sessions store it as it was
/// sent and read it back (roles other than the four below are refused); a request sends it
/// through `Sent`, which puts a `note` at the end of its content.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChatMessage {
    pub(crate) role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<String>,
    /// What the agent added after a user's own words (skills that may fit the request): sent as
    /// the end of the content, kept apart everywhere else, so the user's words stay theirs in
    /// history, exports and session titles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) tool_calls: Vec<ToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_call_id: Option<String>,
    /// Reasoning blocks the model returned before this (assistant) message's text and calls,
    /// kept exactly as received because the provider checks their signatures when they are sent
    /// back (Anthropic's `thinking` and `redacted_thinking`). Opaque to everything outside the
    /// dialect that made them; the chat-completions dialect never sends them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) thinking: Vec<Value>,
}

impl ChatMessage {
    pub(crate) fn system(text: impl Into<String>) -> Self {
        Self::plain("system", text)
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::plain("user", text)
    }

    fn plain(role: &'static str, text: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(text.into()),
            note: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            thinking: Vec::new(),
        }
    }

    /// The same message with `note` after its content when a request sends it.
    pub(crate) fn noted(mut self, note: Option<String>) -> Self {
        self.note = note;
        self
    }

    /// Bytes of the content as a request sends it: with the note, if any, after a blank line.
    pub(crate) fn sent_len(&self) -> usize {
        self.content.as_ref().map_or(0, String::len) + self.note.as_ref().map_or(0, |n| n.len() + 2)
    }

    /// A message from `agent` itself to the model in the user's place (a second chance after an
    /// answer that rests on nothing), marked so it is never taken for something the user typed.
    pub(crate) fn agent_note(text: impl Into<String>) -> Self {
        Self::plain("user", format!("{AGENT_NOTE} {}", text.into()))
    }

    /// The model's turn, as it must be echoed back on the next request.
    pub fn assistant(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            role: "assistant",
            content: content.filter(|c| !c.is_empty() || tool_calls.is_empty()),
            note: None,
            tool_calls,
            tool_call_id: None,
            thinking: Vec::new(),
        }
    }

    /// The same (assistant) message with the reasoning blocks its reply carried, to be sent back
    /// unchanged (see [`ChatMessage::thinking`]).
    pub(crate) fn with_thinking(mut self, thinking: Vec<Value>) -> Self {
        self.thinking = thinking;
        self
    }

    pub fn tool(call_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: "tool",
            content: Some(text.into()),
            note: None,
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
            thinking: Vec::new(),
        }
    }
}

/// The roles a stored message may have, as the `&'static str`s the rest of the code compares with.
const ROLES: [&str; 4] = ["system", "user", "assistant", "tool"];

/// The owned shapes a stored message and tool call are read through: `role` and `type` are
/// `&'static str`s, which serde cannot read directly from text that does not live forever.
#[derive(Deserialize)]
struct StoredMessage {
    role: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCall>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    thinking: Vec<Value>,
}

#[derive(Deserialize)]
struct StoredCall {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    function: FunctionCall,
}

impl<'de> Deserialize<'de> for ChatMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredMessage::deserialize(deserializer)?;
        let role = ROLES
            .into_iter()
            .find(|r| *r == stored.role)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown message role {:?}", stored.role)))?;
        Ok(Self {
            role,
            content: stored.content,
            note: stored.note,
            tool_calls: stored.tool_calls,
            tool_call_id: stored.tool_call_id,
            thinking: stored.thinking,
        })
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredCall::deserialize(deserializer)?;
        if stored.kind != "function" {
            return Err(serde::de::Error::custom(format!(
                "unknown tool call type {:?}",
                stored.kind
            )));
        }
        Ok(Self {
            id: stored.id,
            kind: "function",
            function: stored.function,
        })
    }
}

/// A function call the model asked for.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionCall,
}

/// Name and raw JSON arguments of a call.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// The body of a chat-completions request.
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    pub(crate) model: &'a str,
    #[serde(serialize_with = "as_sent")]
    pub(crate) messages: &'a [ChatMessage],
    #[serde(skip_serializing_if = "Value::is_null")]
    pub(crate) tools: &'a Value,
    pub(crate) stream: bool,
    /// `{"include_usage": true}`, sent only where it is known to be accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stream_options: Option<Value>,
    /// llama.cpp's `return_progress`: chunks while it processes the prompt, so a long prompt on
    /// a CPU is not mistaken for a server gone silent. Sent only to llama.cpp (others may refuse
    /// a field they do not know).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) return_progress: Option<bool>,
    /// The sampling temperature, when one is chosen (`AGENT_TEMPERATURE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) temperature: Option<f32>,
    /// `"none"` beside a [`Self::response_format`]: llama.cpp takes a grammar only when it is not
    /// itself to parse tool calls, and the tools stay in the prompt, so its cached prefix holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_choice: Option<&'static str>,
    /// A JSON schema the reply must match, for a guided call (`AGENT_GUIDED_CALLS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) response_format: Option<Value>,
}

/// A message as a request sends it: the chat-completions fields only, a note at the end of the
/// content.
pub(crate) struct Sent<'a>(pub &'a ChatMessage);

impl Serialize for Sent<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let m = self.0;
        let mut out = serializer.serialize_struct("ChatMessage", 4)?;
        out.serialize_field("role", m.role)?;
        match (&m.content, &m.note) {
            (Some(content), Some(note)) => out.serialize_field("content", &Noted(content, note))?,
            (Some(content), None) => out.serialize_field("content", content)?,
            (None, _) => {}
        }
        if !m.tool_calls.is_empty() {
            out.serialize_field("tool_calls", &m.tool_calls)?;
        }
        if let Some(id) = &m.tool_call_id {
            out.serialize_field("tool_call_id", id)?;
        }
        out.end()
    }
}

/// Content and note as one JSON string, written without joining them first (a request
/// serialises every earlier message again).
struct Noted<'a>(&'a str, &'a str);

impl Serialize for Noted<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{}\n\n{}", self.0, self.1))
    }
}

fn as_sent<S: serde::Serializer>(messages: &&[ChatMessage], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(Sent))
}

/// Token counts, when the server reports them. `prompt_tokens` counts every input token, those
/// written to and read from the provider's prompt cache included; the two cache counts say how
/// many of them were.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(from = "WireUsage")]
pub(crate) struct Usage {
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    pub(crate) total_tokens: u64,
    /// Input tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`).
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) cache_write_tokens: u64,
    /// Input tokens read from the prompt cache (Anthropic's `cache_read_input_tokens`, OpenAI's
    /// `prompt_tokens_details.cached_tokens`).
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) cache_read_tokens: u64,
    /// What the call cost, where the model's prices are known (`super::prices`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cost_usd: Option<crate::support::money::Usd>,
}

impl Usage {
    /// The sum of two calls' usage; a cost only where both are priced (else the known part).
    pub(crate) fn add(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cost_usd = crate::support::money::Usd::sum(self.cost_usd, other.cost_usd);
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `usage` as a chat-completions server sends it: OpenAI counts cached input under
/// `prompt_tokens_details.cached_tokens` (inside `prompt_tokens`, as here).
#[derive(Deserialize, Default)]
#[serde(default)]
struct WireUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PromptDetails {
    cached_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(w: WireUsage) -> Self {
        Self {
            prompt_tokens: w.prompt_tokens,
            completion_tokens: w.completion_tokens,
            total_tokens: w.total_tokens,
            cache_read_tokens: w.prompt_tokens_details.map_or(0, |d| d.cached_tokens),
            ..Self::default()
        }
    }
}

/// A streamed chunk, or a whole non-streamed completion (its `message` read as `delta`).
/// Every field is optional: servers omit and add fields freely.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Chunk {
    /// `None` when the field is missing: then the body is not a completion at all.
    pub(crate) choices: Option<Vec<ChunkChoice>>,
    pub(crate) usage: Option<Usage>,
    /// Some servers report failures mid-stream as `{"error": …}`.
    pub(crate) error: Option<Value>,
    /// Set only on the synthetic event the transport adds when a stream ends without `[DONE]`.
    pub(crate) agent_stream_truncated: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChunkChoice {
    pub(crate) index: Option<u64>,
    #[serde(alias = "message")]
    pub(crate) delta: Option<Delta>,
    pub(crate) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Delta {
    pub(crate) content: Option<Value>,
    pub(crate) tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ToolCallDelta {
    pub(crate) index: Option<u64>,
    pub(crate) id: Option<String>,
    pub(crate) function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FunctionDelta {
    pub(crate) name: Option<String>,
    /// Usually a string fragment; some servers send the whole arguments object.
    pub(crate) arguments: Option<Value>,
}

/// The model's complete answer to one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    pub(crate) content: String,
    pub(crate) tool_calls: Vec<ToolCall>,
    /// Reasoning blocks to send back unchanged with this reply ([`ChatMessage::thinking`]).
    pub(crate) thinking: Vec<Value>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) usage: Option<Usage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back_as_they_were_written() {
        let call = ToolCall {
            id: "c1".into(),
            kind: "function",
            function: FunctionCall {
                name: "run_command".into(),
                arguments: r#"{"command":"./run.sh"}"#.into(),
            },
        };
        for message in [
            ChatMessage::user("hi"),
            ChatMessage::user("hi").noted(Some("[a note]".into())),
            ChatMessage::assistant(None, vec![call]),
            ChatMessage::tool("c1", "exit code: 0"),
        ] {
            let line = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<ChatMessage>(&line).unwrap(), message, "{line}");
        }
        let bad = serde_json::from_str::<ChatMessage>(r#"{"role":"root","content":"x"}"#).unwrap_err();
        assert!(bad.to_string().contains("unknown message role \"root\""), "{bad}");
    }

    #[test]
    fn openai_cached_tokens_count_as_cache_reads() {
        let u: Usage = serde_json::from_str(
            r#"{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}"#,
        )
        .unwrap();
        assert_eq!(
            (u.prompt_tokens, u.cache_read_tokens, u.cache_write_tokens),
            (2006, 1920, 0)
        );
        let plain: Usage = serde_json::from_str(r#"{"prompt_tokens":5}"#).unwrap();
        assert_eq!((plain.prompt_tokens, plain.cache_read_tokens), (5, 0));
    }

    #[test]
    fn a_request_sends_a_note_at_the_end_of_the_content_and_no_field_of_its_own() {
        let messages = [
            ChatMessage::system("rules"),
            ChatMessage::user("convert this").noted(Some("[agent: skills]\n- pdf: PDFs".into())),
        ];
        let body = serde_json::to_value(ChatRequest {
            model: "m",
            messages: &messages,
            tools: &Value::Null,
            stream: false,
            stream_options: None,
            return_progress: None,
            temperature: None,
            tool_choice: None,
            response_format: None,
        })
        .unwrap();
        assert_eq!(
            body["messages"],
            serde_json::json!([
                {"role": "system", "content": "rules"},
                {"role": "user", "content": "convert this\n\n[agent: skills]\n- pdf: PDFs"},
            ])
        );
    }
}
