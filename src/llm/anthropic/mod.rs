//! Anthropic's Messages API, the second wire dialect beside chat completions
//! (docs/design.md#messages-api): `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version`, streamed as server-sent events, with prompt-cache breakpoints on the
//! stable prefix. It speaks the same conversation model ([`ChatMessage`]) and answers with the
//! same [`Reply`]; retries, cassettes and error wording are the transport's, shared with the
//! other dialect.

mod events;
pub(crate) mod request;

use std::time::Duration;

use futures::{Stream, StreamExt};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::LlmError;
use super::transport::Transport;
use super::types::{ChatMessage, Reply};
use events::Fold;

/// The API version every request names; the stream format above is that version's.
pub(crate) const API_VERSION: &str = "2023-06-01";
/// Where the API lives unless `AGENT_BASE_URL` says otherwise.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model asked when none is named: the current Sonnet.
pub(crate) const DEFAULT_MODEL: &str = "claude-sonnet-5-5";
/// `max_tokens` unless `AGENT_MAX_TOKENS` says otherwise: the API wants one on every request,
/// and it bounds thinking and answer together.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 16_384;
/// Context windows by model id prefix, as the models' pages give them (2026-12-03); a Claude
/// model not listed is taken to have the long-standing 200,000 tokens.
const WINDOWS: [(&str, u64); 5] = [
    ("claude-sonnet-5", 1_000_000),
    ("claude-opus-5", 1_000_000),
    ("claude-fable-5", 1_000_000),
    ("claude-sonnet-4-6", 1_000_000),
    ("claude-", 200_000),
];

/// The `/v1/messages` URL of a base URL given with or without its `/v1` (`https://api.anthropic.com`,
/// a gateway's `http://host:4000`, or `…/v1` as chat-completions bases are written).
pub(crate) fn messages_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// A Messages API endpoint: where, with which key, and the transport under both dialects.
pub(crate) struct Messages {
    transport: Transport,
    url: String,
    key: SecretString,
    max_tokens: u32,
}

impl Messages {
    pub(crate) fn new(transport: Transport, base_url: &str, key: SecretString, max_tokens: u32) -> Self {
        Self {
            transport,
            url: messages_url(base_url),
            key,
            max_tokens,
        }
    }

    /// The context window of `model`, as far as the client knows it.
    pub(crate) fn context_window(model: &str) -> Option<u64> {
        WINDOWS
            .iter()
            .find(|(prefix, _)| model.starts_with(prefix))
            .map(|(_, window)| *window)
    }

    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        let key = self.key.expose_secret();
        if !key.is_empty()
            && let Ok(mut value) = HeaderValue::from_str(key)
        {
            value.set_sensitive(true);
            headers.insert(HeaderName::from_static("x-api-key"), value);
        }
        headers
    }

    /// Send one request and fold its answer; text deltas go to `on_text` as they arrive. The
    /// body is written in the request's field order (model, limits, system, tools, messages), so
    /// consecutive requests share their leading bytes as they share their cached prefix.
    pub(crate) async fn complete(
        &self,
        model: &str,
        stream: bool,
        (messages, tools): (&[ChatMessage], &Value),
        idle: Duration,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Reply, LlmError> {
        let request = request::build(model, self.max_tokens, stream, messages, tools);
        let bytes = serde_json::to_vec(&request).unwrap_or_default();
        crate::support::phases::mark("request");
        tracing::debug!(bytes = bytes.len(), "sending messages request");
        let resp = self
            .transport
            .post_json(self.url.clone(), self.headers(), bytes)
            .await?;
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_sse {
            return fold_stream(resp.bytes_stream(), idle, on_text).await;
        }
        let body = tokio::time::timeout(idle, resp.bytes())
            .await
            .map_err(|_| silent(idle))?
            .map_err(|e| LlmError::new(format!("the response could not be read: {e}")).cut_off())?;
        let message: Value = serde_json::from_slice(&body).map_err(|e| {
            LlmError::new(format!(
                "the endpoint answered with something that is neither an event stream nor JSON ({e}); \
                 check that AGENT_BASE_URL points at a Messages API endpoint"
            ))
            .with_snippet(String::from_utf8_lossy(&body).chars().take(400).collect::<String>())
        })?;
        let mut fold = Fold::default();
        fold.push_message(&message, on_text)?;
        fold.finish()
    }
}

fn silent(idle: Duration) -> LlmError {
    LlmError::new(format!(
        "the model endpoint went silent mid-response: no data for {}s (AGENT_IDLE_TIMEOUT); \
         the server may be overloaded — try again, or raise the timeout",
        idle.as_secs()
    ))
}

/// Read a server-sent-event body to its end, event by event, however its bytes are split;
/// `idle` is the longest silence allowed between pieces.
pub(crate) async fn fold_stream<S, B, E>(
    body: S,
    idle: Duration,
    on_text: &mut (dyn FnMut(&str) + Send),
) -> Result<Reply, LlmError>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    use eventsource_stream::Eventsource;
    let mut events = body.eventsource();
    let mut fold = Fold::default();
    loop {
        let item = match tokio::time::timeout(idle, events.next()).await {
            Ok(Some(item)) => item,
            Ok(None) => break,
            Err(_) => return Err(silent(idle)),
        };
        let event = item.map_err(|e| LlmError::new(format!("the response stream broke off: {e}")).cut_off())?;
        fold.push(&event.event, &event.data, on_text)?;
    }
    crate::support::phases::mark("last-byte");
    fold.finish()
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
