//! Folding chunks into one [`Reply`], tolerating missing tool-call indexes and odd finish reasons.

use serde_json::Value;

use super::LlmError;
use super::types::{Chunk, FunctionCall, Reply, ToolCall, ToolCallDelta};

#[derive(Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Accumulates the chunks of one response.
#[derive(Debug, Default)]
pub struct Accumulator {
    content: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Option<super::types::Usage>,
    chunks: usize,
    /// Some chunk had a `choices` field (even an empty one): this is a completion at all.
    saw_choices: bool,
    truncated: bool,
}

impl Accumulator {
    /// Fold in one chunk; text deltas are passed to `on_text` as they arrive.
    pub fn push(&mut self, chunk: Chunk, on_text: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
        if chunk.agent_stream_truncated {
            self.truncated = true;
            return Ok(());
        }
        self.chunks += 1;
        if let Some(err) = chunk.error {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(
                LlmError::new(format!("the endpoint reported an error mid-response: {message}"))
                    .with_snippet(err.to_string()),
            );
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        self.saw_choices |= chunk.choices.is_some();
        // Only the first choice matters: we never ask for n > 1.
        let Some(choice) = chunk.choices.into_iter().flatten().find(|c| c.index.unwrap_or(0) == 0) else {
            return Ok(());
        };
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            self.finish_reason = Some(reason);
        }
        let Some(delta) = choice.delta else {
            return Ok(());
        };
        match delta.content {
            Some(Value::String(text)) if !text.is_empty() => {
                on_text(&text);
                self.content.push_str(&text);
            }
            Some(Value::Array(parts)) => {
                for text in parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)) {
                    on_text(text);
                    self.content.push_str(text);
                }
            }
            _ => {}
        }
        for call in delta.tool_calls.unwrap_or_default() {
            self.push_call(call);
        }
        Ok(())
    }

    fn push_call(&mut self, delta: ToolCallDelta) {
        let slot = match (delta.index, delta.id.as_deref()) {
            (Some(i), _) => self.calls.iter().position(|c| c.index == Some(i)),
            // No index: a new id starts a new call, no id continues the last one.
            (None, Some(id)) => self.calls.iter().position(|c| c.id.as_deref() == Some(id)),
            (None, None) => self.calls.len().checked_sub(1),
        };
        let idx = match slot {
            Some(i) => i,
            None => {
                self.calls.push(PartialCall {
                    index: delta.index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[idx];
        if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
            call.id.get_or_insert(id);
        }
        if let Some(f) = delta.function {
            if let Some(name) = f.name {
                // Some servers repeat the full name in every chunk; others split it.
                if !call.name.ends_with(&name) || call.name.is_empty() {
                    call.name.push_str(&name);
                }
            }
            match f.arguments {
                Some(Value::String(s)) => call.arguments.push_str(&s),
                Some(Value::Null) | None => {}
                Some(other) => call.arguments.push_str(&other.to_string()),
            }
        }
    }

    /// The finished reply. An empty response (no text, no calls) is an error.
    pub fn finish(self) -> Result<Reply, LlmError> {
        // A stream without `[DONE]` is accepted when the model said it had finished: some
        // servers omit `[DONE]`, but none omit both.
        if self.truncated && self.finish_reason.is_none() && self.chunks > 0 {
            let partial: String = self.content.chars().take(200).collect();
            let shown = if partial.is_empty() {
                String::new()
            } else {
                format!("; it had sent: {partial:?}")
            };
            return Err(LlmError::new(format!(
                "the response stream was cut off before the model finished (no finish_reason, no [DONE]){shown}. Try again"
            ))
            .cut_off());
        }
        if self.content.is_empty() && self.calls.is_empty() {
            if self.chunks > 0 && !self.saw_choices {
                return Err(LlmError::new(format!(
                    "the endpoint's response is not a chat completion: none of its {} event(s) has `choices`; \
                     check that AGENT_BASE_URL is the chat API's base (…/v1)",
                    self.chunks
                )));
            }
            let detail = if self.chunks == 0 {
                "no data at all"
            } else {
                "neither text nor tool calls"
            };
            let error = LlmError::new(format!(
                "the endpoint returned an empty response ({detail}); check that the model supports chat completions with tools"
            ));
            return Err(if self.chunks > 0 { error.empty_reply() } else { error });
        }
        let tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.unwrap_or_else(|| format!("call_{i}")),
                kind: "function",
                function: FunctionCall {
                    name: c.name.trim().to_string(),
                    arguments: c.arguments,
                },
            })
            .collect();
        Ok(Reply {
            content: self.content,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
            thinking: Vec::new(),
        })
    }
}

/// What a retried response shows, given what the cut-off attempts already showed: the re-sent
/// part that matches is not shown twice; if the retry says something else, the whole new answer is
/// shown after a line break and the caller is told, so the user knows which text stands.
#[derive(Debug, Default)]
pub(crate) struct Resend {
    /// The answer as the user has it on screen so far.
    shown: String,
    /// Text of the current attempt.
    current: String,
    /// Bytes of `current` already shown.
    emitted: usize,
    /// This attempt departed from `shown`: its text is shown as it comes.
    diverged: bool,
    /// Some attempt has been cut off.
    retrying: bool,
}

/// What to do with one delta of a retried response.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Show {
    /// Show this text (possibly empty).
    Text(String),
    /// The retry differs from what was shown: say so, then show this whole answer afresh.
    Afresh(String),
}

impl Resend {
    /// Start the next attempt after a cut: what was shown so far is the reference.
    pub(crate) fn next_attempt(&mut self) {
        let current = std::mem::take(&mut self.current);
        if self.diverged || current.len() > self.shown.len() {
            self.shown = current;
        }
        self.emitted = 0;
        self.diverged = false;
        self.retrying = true;
    }

    /// Whether any text was shown yet (then a retry is announced differently).
    pub(crate) fn anything_shown(&self) -> bool {
        !self.shown.is_empty() || !self.current.is_empty()
    }

    /// Take one delta of the current attempt.
    pub(crate) fn push(&mut self, delta: &str) -> Show {
        self.current.push_str(delta);
        if !self.retrying || self.diverged {
            self.emitted = self.current.len();
            return Show::Text(delta.to_string());
        }
        if self.shown.starts_with(&self.current) {
            return Show::Text(String::new());
        }
        if self.current.starts_with(&self.shown) {
            let from = self.emitted.max(self.shown.len());
            self.emitted = self.current.len();
            return Show::Text(self.current[from..].to_string());
        }
        self.diverged = true;
        self.emitted = self.current.len();
        Show::Afresh(self.current.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_does_not_show_the_same_text_twice() {
        let mut r = Resend::default();
        assert_eq!(r.push("Hello "), Show::Text("Hello ".into()));
        assert_eq!(r.push("wor"), Show::Text("wor".into()));
        r.next_attempt();
        assert_eq!(r.push("Hel"), Show::Text(String::new()));
        assert_eq!(r.push("lo wo"), Show::Text(String::new()));
        assert_eq!(r.push("rld"), Show::Text("ld".into()));
        assert_eq!(r.push("!"), Show::Text("!".into()));
        r.next_attempt();
        assert_eq!(r.push("Hello world!"), Show::Text(String::new()));
        assert_eq!(r.push(" Bye"), Show::Text(" Bye".into()));
    }

    #[test]
    fn a_retry_that_differs_is_shown_afresh() {
        let mut r = Resend::default();
        r.push("Hello wor");
        r.next_attempt();
        assert_eq!(r.push("Hel"), Show::Text(String::new()));
        assert_eq!(r.push("p is here"), Show::Afresh("Help is here".into()));
        assert_eq!(r.push("."), Show::Text(".".into()));
        r.next_attempt();
        assert_eq!(r.push("Help is here. More"), Show::Text(" More".into()));
    }

    fn chunk(v: serde_json::Value) -> Chunk {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_deltas_stream_and_join() {
        let mut acc = Accumulator::default();
        let mut seen = String::new();
        for t in ["Hel", "lo"] {
            acc.push(
                chunk(serde_json::json!({"choices":[{"index":0,"delta":{"content":t}}]})),
                &mut |s| seen.push_str(s),
            )
            .unwrap();
        }
        acc.push(
            chunk(serde_json::json!({"choices":[{"delta":{},"finish_reason":""}]})),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(seen, "Hello");
        assert_eq!(acc.finish().unwrap().content, "Hello");
    }

    #[test]
    fn tool_calls_with_and_without_index() {
        let mut acc = Accumulator::default();
        let parts = [
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"activate_skill","arguments":"{\"na"}}]}}]}),
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"me\":\"x\"}"}}]}}]}),
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"run_command","arguments":{"command":"ls"}}}]}}]}),
        ];
        for p in parts {
            acc.push(chunk(p), &mut |_| {}).unwrap();
        }
        let reply = acc.finish().unwrap();
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].function.arguments, "{\"name\":\"x\"}");
        assert_eq!(reply.tool_calls[1].function.arguments, "{\"command\":\"ls\"}");
    }

    #[test]
    fn indexed_parallel_calls() {
        let mut acc = Accumulator::default();
        let parts = [
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}},{"index":1,"id":"b","function":{"name":"g","arguments":"{"}}]}}]}),
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}},{"index":0,"function":{"arguments":"{}"}}]}}]}),
        ];
        for p in parts {
            acc.push(chunk(p), &mut |_| {}).unwrap();
        }
        let reply = acc.finish().unwrap();
        assert_eq!(reply.tool_calls[0].function.arguments, "{}");
        assert_eq!(reply.tool_calls[1].function.arguments, "{}");
    }

    #[test]
    fn non_streamed_message_is_read_as_delta() {
        let mut acc = Accumulator::default();
        acc.push(
            chunk(
                serde_json::json!({"choices":[{"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}),
            ),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(acc.finish().unwrap().content, "Hi");
    }

    #[test]
    fn truncation_is_an_error_only_without_finish_reason() {
        let marker = || chunk(serde_json::json!({"agent_stream_truncated": true}));
        let mut acc = Accumulator::default();
        acc.push(
            chunk(serde_json::json!({"choices":[{"delta":{"content":"Hal"}}]})),
            &mut |_| {},
        )
        .unwrap();
        acc.push(marker(), &mut |_| {}).unwrap();
        assert!(acc.finish().unwrap_err().message.contains("cut off"));
        let mut acc = Accumulator::default();
        acc.push(
            chunk(serde_json::json!({"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]})),
            &mut |_| {},
        )
        .unwrap();
        acc.push(marker(), &mut |_| {}).unwrap();
        assert_eq!(acc.finish().unwrap().content, "ok");
    }

    #[test]
    fn mid_stream_error_and_empty_response() {
        let mut acc = Accumulator::default();
        assert!(
            acc.push(
                chunk(serde_json::json!({"error":{"message":"overloaded"}})),
                &mut |_| {}
            )
            .unwrap_err()
            .message
            .contains("overloaded")
        );
        assert!(Accumulator::default().finish().is_err());
    }
}
