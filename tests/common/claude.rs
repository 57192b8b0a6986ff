//! A mock of Anthropic's Messages API (`POST /v1/messages`), built from the API reference: it
//! answers in the published event-stream shape (`message_start`, `ping`, `content_block_*` with
//! text, many `input_json_delta` pieces, thinking and signature deltas, `message_delta` with the
//! stop reason and usage, `message_stop`), and refuses with the API's own `400
//! invalid_request_error` a request the real API would refuse (roles out of order, a call without
//! its result, an empty text block, more than four breakpoints …), so a test passing here
//! sends what the real service accepts.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{MockLlm, TEST_KEY};

/// The model the tests name on Anthropic (a current id, priced in the built-in table).
pub const CLAUDE_MODEL: &str = "claude-sonnet-5-5";

/// One content block of a canned answer.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    /// (id, tool name, arguments)
    Tool(String, String, Value),
    /// (thinking text, signature)
    Thinking(String, String),
}

/// Token counts a canned answer reports: (input, cache write, cache read, output).
pub type Counts = (u64, u64, u64, u64);

/// One canned answer of the mock.
#[derive(Clone, Debug)]
pub enum Claude {
    Answer {
        blocks: Vec<Block>,
        stop: &'static str,
        usage: Counts,
    },
    /// A response as given (an HTTP error, a stream cut short).
    Raw(ResponseTemplate),
}

/// An answer in text.
pub fn say(text: &str) -> Claude {
    Claude::Answer {
        blocks: vec![Block::Text(text.into())],
        stop: "end_turn",
        usage: (20, 0, 0, 5),
    }
}

/// One call of `name`.
pub fn call(name: &str, args: Value) -> Claude {
    calls(&[(name, args)])
}

/// Calls in one answer (parallel tool use).
pub fn calls(list: &[(&str, Value)]) -> Claude {
    Claude::Answer {
        blocks: list
            .iter()
            .enumerate()
            .map(|(i, (n, a))| Block::Tool(format!("toolu_0{i}{n}"), n.to_string(), a.clone()))
            .collect(),
        stop: "tool_use",
        usage: (20, 0, 0, 5),
    }
}

impl Claude {
    /// The same answer with a thinking block first.
    pub fn thinking(self, text: &str, signature: &str) -> Self {
        match self {
            Self::Answer {
                mut blocks,
                stop,
                usage,
            } => {
                blocks.insert(0, Block::Thinking(text.into(), signature.into()));
                Self::Answer { blocks, stop, usage }
            }
            raw => raw,
        }
    }

    /// The same answer reporting `usage`.
    pub fn usage(self, usage: Counts) -> Self {
        match self {
            Self::Answer { blocks, stop, .. } => Self::Answer { blocks, stop, usage },
            raw => raw,
        }
    }
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// `s` in pieces of `n` characters.
fn pieces(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// The event stream of an answer, as the API sends it.
pub fn stream(blocks: &[Block], stop: &str, (input, write, read, output): Counts) -> String {
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_01mock", "type": "message", "role": "assistant",
            "content": [], "model": CLAUDE_MODEL, "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 1}}}),
    );
    out.push_str(&event("ping", json!({"type": "ping"})));
    for (index, block) in blocks.iter().enumerate() {
        let (start, deltas): (Value, Vec<Value>) = match block {
            Block::Text(t) => (
                json!({"type": "text", "text": ""}),
                pieces(t, 4)
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect(),
            ),
            Block::Tool(id, name, args) => {
                let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
                deltas.extend(
                    pieces(&args.to_string(), 3)
                        .into_iter()
                        .map(|p| json!({"type": "input_json_delta", "partial_json": p})),
                );
                (json!({"type": "tool_use", "id": id, "name": name, "input": {}}), deltas)
            }
            Block::Thinking(text, signature) => {
                let mut deltas: Vec<Value> = pieces(text, 5)
                    .into_iter()
                    .map(|p| json!({"type": "thinking_delta", "thinking": p}))
                    .collect();
                deltas.push(json!({"type": "signature_delta", "signature": signature}));
                (json!({"type": "thinking", "thinking": "", "signature": ""}), deltas)
            }
        };
        out.push_str(&event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            out.push_str(&event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        out.push_str(&event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    out.push_str(&event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": output}}),
    ));
    out.push_str(&event("message_stop", json!({"type": "message_stop"})));
    out
}

/// A whole (non-streamed) message, as `stream: false` returns it.
fn message(blocks: &[Block], stop: &str, (input, write, read, output): Counts) -> Value {
    let content: Vec<Value> = blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => json!({"type": "text", "text": t}),
            Block::Tool(id, name, args) => json!({"type": "tool_use", "id": id, "name": name, "input": args}),
            Block::Thinking(t, s) => json!({"type": "thinking", "thinking": t, "signature": s}),
        })
        .collect();
    json!({"id": "msg_01mock", "type": "message", "role": "assistant", "model": CLAUDE_MODEL, "content": content,
        "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": input, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": output}})
}

/// An API error response: `{"type": "error", "error": {"type": kind, "message": …}}`.
pub fn api_error(status: u16, kind: &str, message: &str) -> ResponseTemplate {
    let body = json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_mock"});
    ResponseTemplate::new(status).set_body_raw(body.to_string(), "application/json")
}

/// What the real API would refuse in this request, if anything (the reference's rules).
pub fn refusal(request: &Request) -> Option<String> {
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    if header("anthropic-version").as_deref() != Some("2023-06-01") {
        return Some("anthropic-version: header is required".into());
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return Some("the request body is not JSON".into());
    };
    if !body["model"].is_string() || !body["max_tokens"].is_u64() {
        return Some("model and max_tokens: Field required".into());
    }
    if body.get("tool_choice").is_some() || body.get("thinking").is_some() {
        return Some("this mock expects no tool_choice and no thinking settings".into());
    }
    if let Some(system) = body.get("system")
        && !system.is_string()
        && !system
            .as_array()
            .is_some_and(|a| a.iter().all(|b| b["type"] == "text" && b["text"].is_string()))
    {
        return Some("system: Input should be a valid list of text blocks".into());
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        if !tool["name"].is_string() || !tool["input_schema"].is_object() || tool.get("function").is_some() {
            return Some(format!("tools: unexpected tool shape {tool}"));
        }
    }
    let marks = body.to_string().matches("\"cache_control\"").count();
    if marks > 4 {
        return Some(format!(
            "A maximum of 4 blocks with cache_control may be provided. Found {marks}."
        ));
    }
    match body["messages"].as_array() {
        Some(messages) => messages_refusal(messages),
        None => Some("messages: Field required".into()),
    }
}

fn messages_refusal(messages: &[Value]) -> Option<String> {
    if messages.first().map(|m| &m["role"]) != Some(&json!("user")) {
        return Some("messages: the first message must use the \"user\" role".into());
    }
    let mut open_calls: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 && m["role"] == messages[i - 1]["role"] {
            return Some(format!(
                "messages.{i}: roles must alternate between \"user\" and \"assistant\""
            ));
        }
        let Some(blocks) = m["content"].as_array() else {
            return Some(format!("messages.{i}: this mock expects content as a list of blocks"));
        };
        if blocks.is_empty() {
            return Some(format!("messages.{i}: all messages must have non-empty content"));
        }
        for b in blocks {
            if b["type"] == "text" && b["text"].as_str().is_none_or(str::is_empty) {
                return Some(format!("messages.{i}: text content blocks must be non-empty"));
            }
            if b["type"] == "thinking" && !b["signature"].is_string() {
                return Some(format!("messages.{i}: thinking.signature: Field required"));
            }
        }
        let results: Vec<String> = blocks
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str().map(str::to_string))
            .collect();
        if blocks.iter().filter(|b| b["type"] == "tool_result").count() != results.len() {
            return Some(format!("messages.{i}: tool_result blocks must come first"));
        }
        if m["role"] == "user" && (!open_calls.is_empty() || !results.is_empty()) {
            let mut want = open_calls.clone();
            let mut got = results.clone();
            want.sort();
            got.sort();
            if want != got {
                return Some(format!(
                    "messages.{i}: tool_use ids were found without tool_result blocks immediately after: {want:?} vs {got:?}"
                ));
            }
        }
        open_calls = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| b["id"].as_str().map(str::to_string))
            .collect();
    }
    (messages.last().map(|m| &m["role"]) == Some(&json!("assistant")))
        .then(|| "the last message must be the user's".into())
}

/// Serves answers in order, each checked first against the API's rules.
struct Sequence {
    answers: Mutex<VecDeque<Claude>>,
}

impl Respond for Sequence {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        if request.headers.get("x-api-key").is_none() {
            return api_error(401, "authentication_error", "x-api-key header is required");
        }
        if let Some(why) = refusal(request) {
            return api_error(400, "invalid_request_error", &why);
        }
        let Some(answer) = self.answers.lock().unwrap().pop_front() else {
            return api_error(500, "api_error", "mock: no more answers queued");
        };
        let stream = serde_json::from_slice::<Value>(&request.body)
            .ok()
            .and_then(|b| b["stream"].as_bool())
            .unwrap_or(false);
        match answer {
            Claude::Raw(t) => t,
            Claude::Answer { blocks, stop, usage } if stream => {
                ResponseTemplate::new(200).set_body_raw(self::stream(&blocks, stop, usage), "text/event-stream")
            }
            Claude::Answer { blocks, stop, usage } => {
                ResponseTemplate::new(200).set_body_json(message(&blocks, stop, usage))
            }
        }
    }
}

impl MockLlm {
    /// A Messages API endpoint answering `POST /v1/messages` with `answers` in order. Its
    /// `base_url` (`…/v1`) and `env` serve both dialects: add [`MockLlm::claude_env`].
    pub async fn claude(answers: Vec<Claude>) -> Self {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Sequence {
                answers: Mutex::new(answers.into()),
            })
            .mount(&server)
            .await;
        Self { server }
    }

    /// The variables that point a run at this mock as an Anthropic endpoint: its URL (without
    /// `/v1`, as Anthropic's base URLs are written), the key as `ANTHROPIC_API_KEY` alone, and
    /// a Claude model.
    pub fn claude_env(&self) -> [(&'static str, String); 3] {
        [
            ("AGENT_BASE_URL", self.server.uri()),
            ("ANTHROPIC_API_KEY", TEST_KEY.to_string()),
            ("AGENT_MODEL", CLAUDE_MODEL.to_string()),
        ]
    }
}

/// The text of every block of `role`'s messages in a Messages API request, in order (tool
/// results included).
pub fn claude_texts(request: &Value, role: &str) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == role)
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().or_else(|| b["content"].as_str()).map(str::to_string))
        .collect()
}
