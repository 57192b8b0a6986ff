//! The HTTP layer under async-openai: one retry policy, SSE normalisation, and errors that say
//! what to do. Installed with `Client::with_http_service`, replacing the crate's own retries.

use std::sync::Arc;
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};

use super::LlmError;
use super::cassette::Tape;

/// Longest wait honoured from a `Retry-After` header.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// Most of an error body kept for messages.
const SNIPPET_CHARS: usize = 400;

/// Called with a human sentence whenever a request is retried.
pub(crate) type RetryNotice = Arc<dyn Fn(String) + Send + Sync>;

/// What error messages need to name.
#[derive(Debug, Clone)]
pub(crate) struct EndpointInfo {
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// Which variable the key came from, if any.
    pub(crate) key_var: Option<&'static str>,
    /// The base URL was set by the user (or is a local server found), not the provider's default.
    pub(crate) base_url_given: bool,
    /// Whose API the default base URL is, and which variables hold its key.
    pub(crate) provider: super::Provider,
}

/// A tower service that sends requests with retries and hands async-openai an SSE body.
#[derive(Clone)]
pub(crate) struct Transport {
    http: reqwest::Client,
    retries: u32,
    idle: Duration,
    tape: Tape,
    info: Arc<EndpointInfo>,
    notice: RetryNotice,
}

impl Transport {
    pub(crate) fn new(
        http: reqwest::Client,
        retries: u32,
        idle: Duration,
        tape: Tape,
        info: EndpointInfo,
        notice: RetryNotice,
    ) -> Self {
        Self {
            http,
            retries,
            idle,
            tape,
            info: Arc::new(info),
            notice,
        }
    }
}

impl tower::Service<HttpRequestFactory> for Transport {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<reqwest::Response, OpenAIError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            this.send(factory, Shape::ChatCompletions)
                .await
                .map_err(|e| OpenAIError::Boxed(Box::new(e)))
        })
    }
}

/// What a successful response is read as: chat completions are normalised into an SSE body
/// that async-openai reads (plain JSON wrapped, a missing `[DONE]` marked); a Messages API
/// response is handed over as it came, its reader tells SSE from JSON by the content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    ChatCompletions,
    Messages,
}

impl Transport {
    /// `POST url` with a JSON `body` and `headers`, under the same retries, cassette and error
    /// messages as every chat-completions call (the Messages API dialect sends through this).
    pub(crate) async fn post_json(
        &self,
        url: String,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> Result<reqwest::Response, LlmError> {
        let http = self.http.clone();
        let body = Bytes::from(body);
        let factory = HttpRequestFactory::new(move || {
            let request = http
                .post(&url)
                .headers(headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone())
                .build()
                .map_err(OpenAIError::Reqwest);
            async move { request }
        });
        self.send(factory, Shape::Messages).await
    }

    async fn send(&self, factory: HttpRequestFactory, shape: Shape) -> Result<reqwest::Response, LlmError> {
        let mut attempt = 0u32;
        loop {
            let request = factory
                .build()
                .await
                .map_err(|e| LlmError::new(format!("could not build the request: {e}")))?;
            // Only for messages, which are printed and stored: never with credentials.
            let url = crate::support::public_url::without_credentials(request.url().as_str());
            let body = request
                .body()
                .and_then(|b| b.as_bytes())
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            if let Tape::Replay(player) = &self.tape {
                let (status, text) = player.serve(&body)?;
                let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
                if !status.is_success() {
                    return Err(self.status_error(status, &text, &url, 0));
                }
                return match shape {
                    Shape::ChatCompletions => as_event_stream(sse_response(status, text)).await,
                    Shape::Messages => Ok(recorded_response(status, text)),
                };
            }
            let sent = match tokio::time::timeout(self.idle, self.http.execute(request)).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(LlmError::new(format!(
                        "no response from the model endpoint {url} within {}s (AGENT_IDLE_TIMEOUT); \
                         the server may be overloaded or still loading the model",
                        self.idle.as_secs()
                    )));
                }
            };
            let (retry_reason, delay) = match sent {
                Ok(resp) if resp.status().is_success() => {
                    let resp = match shape {
                        Shape::ChatCompletions => as_event_stream(resp).await?,
                        Shape::Messages => resp,
                    };
                    return Ok(match &self.tape {
                        Tape::Record(recorder) => recorder.tee(body, resp),
                        _ => resp,
                    });
                }
                Ok(resp) => {
                    let status = resp.status();
                    let retry_after = retry_after(resp.headers());
                    let text = resp.text().await.unwrap_or_default();
                    if !is_retryable(status) || attempt >= self.retries {
                        if let Tape::Record(recorder) = &self.tape {
                            recorder.write(&body, status.as_u16(), text.as_bytes());
                        }
                        return Err(self.status_error(status, &text, &url, attempt));
                    }
                    (
                        format!("HTTP {status}"),
                        retry_after.unwrap_or_else(|| backoff(attempt)),
                    )
                }
                Err(e) => {
                    if !(e.is_connect() || e.is_timeout() || e.is_request()) || attempt >= self.retries {
                        return Err(self.transport_error(&e, &url, attempt));
                    }
                    (transport_cause(&e), backoff(attempt))
                }
            };
            attempt += 1;
            (self.notice)(format!(
                "{retry_reason} from the model endpoint; retry {attempt} of {} in {:.1}s",
                self.retries,
                delay.as_secs_f64()
            ));
            tokio::time::sleep(delay).await;
        }
    }

    fn status_error(&self, status: StatusCode, body: &str, url: &str, retries: u32) -> LlmError {
        let server = server_message(body);
        let info = &self.info;
        let after = if retries > 0 {
            format!(" after {} attempts", retries + 1)
        } else {
            String::new()
        };
        let message = match status.as_u16() {
            401 | 403 => match info.key_var {
                Some(var) => format!(
                    "the endpoint rejected the API key (HTTP {status}): {server}. Check the key in {var} (and that it belongs to {})",
                    info.base_url
                ),
                None => format!(
                    "the endpoint wants an API key (HTTP {status}): {server}. Set {}",
                    info.provider.key_vars()
                ),
            },
            404 => format!(
                "HTTP 404 from {url}: the model `{}` or the base URL `{}` is wrong ({server}). Check AGENT_MODEL/--model and AGENT_BASE_URL",
                info.model, info.base_url
            ),
            400 | 422 => format!("the endpoint refused the request (HTTP {status}): {server}"),
            413 => format!(
                "the request is too large for the endpoint (HTTP {status}): {server}. Start a new session, \
                 /compact the chat, or lower AGENT_HISTORY_BUDGET"
            ),
            _ => format!("the model endpoint failed{after} (HTTP {status}): {server}"),
        };
        LlmError::new(message).with_snippet(truncate(body))
    }

    fn transport_error(&self, e: &reqwest::Error, url: &str, retries: u32) -> LlmError {
        let after = if retries > 0 {
            format!(" after {} attempts", retries + 1)
        } else {
            String::new()
        };
        let cause = transport_cause(e);
        let lower = cause.to_ascii_lowercase();
        let hint = if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            || lower.contains("corrupt message")
        {
            "The TLS handshake failed: a local server usually wants http://, not https://; a private CA must be in the system's trust store."
        } else if lower.contains("dns") || lower.contains("lookup") || lower.contains("resolve") {
            return LlmError::new(format!(
                "cannot reach the model endpoint {url}{after}: {cause}. {}",
                unresolved_hint(&self.info)
            ));
        } else if lower.contains("refused") {
            "Nothing is listening there: is the server running, on that port?"
        } else {
            "Is the server running, and is AGENT_BASE_URL right?"
        };
        LlmError::new(format!(
            "cannot reach the model endpoint {url}{after}: {cause}. {hint} (base URL {})",
            self.info.base_url
        ))
    }
}

/// Why the host was tried at all: a base URL the user set may be misspelt; the default one is
/// there because a key is set, which also skipped looking for a local server.
fn unresolved_hint(info: &EndpointInfo) -> String {
    if info.base_url_given {
        return format!(
            "The host name does not resolve: check the spelling of the base URL ({}).",
            info.base_url
        );
    }
    let key = info.key_var.unwrap_or("an API key");
    format!(
        "The host name does not resolve (is this machine offline?). No base URL is set, so this is \
         {}'s ({}), used because {key} is set; with a key set, no local server on 127.0.0.1 is \
         looked for. For a local server, unset {key} or set AGENT_BASE_URL=http://127.0.0.1:PORT/v1.",
        info.provider.name(),
        info.base_url
    )
}

/// Async-openai parses SSE; a server that answers with plain JSON (it ignored `stream`, or we
/// asked for no stream) gets its body wrapped as a single event so one code path reads both.
async fn as_event_stream(resp: reqwest::Response) -> Result<reqwest::Response, LlmError> {
    let is_sse = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if is_sse {
        return Ok(watch_for_done(resp));
    }
    let status = resp.status();
    let body = resp
        .bytes()
        .await
        .map_err(|e| LlmError::new(format!("the response body was cut off: {e}")))?;
    let one_line = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(v) if is_completion_like(&v) => v.to_string(),
        Ok(v) => {
            let text = String::from_utf8_lossy(&body);
            return Err(LlmError::new(format!(
                "the endpoint answered HTTP {status} with JSON that is not a chat completion (no `choices`; it sent {}). \
                 Check that AGENT_BASE_URL is the chat API's base (…/v1); -v shows the response",
                describe_json(&v)
            ))
            .with_snippet(truncate(&text)));
        }
        Err(_) => {
            let text = String::from_utf8_lossy(&body);
            return Err(LlmError::new(format!(
                "the endpoint answered with something that is not JSON: {}",
                truncate(text.trim()).replace('\n', " ")
            ))
            .with_snippet(truncate(&text)));
        }
    };
    Ok(sse_response(status, format!("data: {one_line}\n\ndata: [DONE]\n\n")))
}

/// A completion, or an error object the stream folding reports with the server's own words.
fn is_completion_like(v: &serde_json::Value) -> bool {
    v.get("choices").is_some() || v.get("error").is_some()
}

/// What a JSON value is, in a few words: an object's keys, else its kind.
fn describe_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(map) if map.is_empty() => "an empty object".into(),
        serde_json::Value::Object(map) => {
            // Sorted: the same answer whatever order the server wrote them in (support/json.rs).
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            let keys: Vec<String> = names
                .into_iter()
                .take(8)
                .map(|k| format!("`{}`", truncate(k)))
                .collect();
            let more = if map.len() > 8 { ", …" } else { "" };
            format!("an object with {}{more}", keys.join(", "))
        }
        serde_json::Value::Array(a) => format!("an array of {} item(s)", a.len()),
        serde_json::Value::String(_) => "a string".into(),
        serde_json::Value::Number(_) => "a number".into(),
        serde_json::Value::Bool(_) => "a boolean".into(),
        serde_json::Value::Null => "null".into(),
    }
}

/// A replayed Messages API response: SSE when the recording is an event stream, else JSON.
fn recorded_response(status: StatusCode, text: String) -> reqwest::Response {
    let head = text.trim_start();
    if head.starts_with("event:") || head.starts_with("data:") || head.starts_with(':') {
        return sse_response(status, text);
    }
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    with_body(status, headers, reqwest::Body::from(text))
}

/// A server-sent-event response with `body`, made here rather than received.
fn sse_response(status: StatusCode, body: String) -> reqwest::Response {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, http::HeaderValue::from_static("text/event-stream"));
    with_body(status, headers, reqwest::Body::from(body))
}

/// A response with the given status and headers around a new body (to wrap or replace one).
pub(super) fn with_body(status: StatusCode, headers: HeaderMap, body: reqwest::Body) -> reqwest::Response {
    let mut rebuilt = http::Response::new(body);
    *rebuilt.status_mut() = status;
    *rebuilt.headers_mut() = headers;
    reqwest::Response::from(rebuilt)
}

/// The event appended when an SSE body ends without `data: [DONE]` (read as `Chunk::agent_stream_truncated`).
const TRUNCATION_EVENT: &[u8] = b"\n\ndata: {\"agent_stream_truncated\":true}\n\n";

/// Pass an SSE body through unchanged, but if it ends without `[DONE]` append one synthetic
/// event saying so: async-openai ends the stream the same way on `[DONE]` and on a cut connection,
/// and only this layer sees the bytes.
fn watch_for_done(resp: reqwest::Response) -> reqwest::Response {
    let status = resp.status();
    let headers = resp.headers().clone();
    struct Watch<S> {
        inner: S,
        tail: Vec<u8>,
        seen_done: bool,
        ended: bool,
    }
    let state = Watch {
        inner: Box::pin(resp.bytes_stream()),
        tail: Vec::new(),
        seen_done: false,
        ended: false,
    };
    let body = futures::stream::unfold(state, |mut st| async move {
        use futures::StreamExt;
        if st.ended {
            return None;
        }
        match st.inner.next().await {
            Some(Ok(bytes)) => {
                crate::support::phases::mark("first-byte");
                let mut window = std::mem::take(&mut st.tail);
                window.extend_from_slice(&bytes);
                if window.windows(6).any(|w| w == b"[DONE]") {
                    crate::support::phases::mark("last-byte");
                    st.seen_done = true;
                }
                st.tail = window[window.len().saturating_sub(5)..].to_vec();
                Some((Ok::<Bytes, reqwest::Error>(bytes), st))
            }
            Some(Err(e)) => {
                st.ended = true;
                Some((Err(e), st))
            }
            None => {
                st.ended = true;
                crate::support::phases::mark("last-byte");
                (!st.seen_done).then(|| (Ok(Bytes::from_static(TRUNCATION_EVENT)), st))
            }
        }
    });
    with_body(status, headers, reqwest::Body::wrap_stream(body))
}

/// Worth asking again: timeouts, conflicts, rate limits and server errors, Anthropic's 529
/// (`overloaded_error`) among them.
fn is_retryable(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// Exponential backoff (0.5 s, 1 s, 2 s …, capped at 8 s) with up to 25 % jitter.
pub(super) fn backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(500).saturating_mul(1u32 << attempt.min(4));
    let base = base.min(Duration::from_secs(8));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    base + base.mul_f64(f64::from(nanos % 1000) / 4000.0)
}

/// `Retry-After` as seconds or an HTTP date, capped.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let raw = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let wait = match raw.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs),
        _ => {
            let when = httpdate::parse_http_date(raw).ok()?;
            when.duration_since(std::time::SystemTime::now()).unwrap_or_default()
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

pub(super) fn transport_cause(e: &reqwest::Error) -> String {
    let mut cause = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = format!("{cause}: {s}");
        source = s.source();
    }
    if e.is_timeout() {
        cause = format!("timed out ({cause})");
    }
    // reqwest names the URL it failed on; its credentials must not reach a message.
    match e.url() {
        Some(url) => cause.replace(
            url.as_str(),
            &crate::support::public_url::without_credentials(url.as_str()),
        ),
        None => cause,
    }
}

/// The `error.message` of an OpenAI-style error body, else the body itself.
pub(super) fn server_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(|m| m.as_str())
            .map(str::to_string)
    });
    match message {
        Some(m) => m,
        None if body.trim().is_empty() => "no details in the response".into(),
        None => truncate(body.trim()).replace('\n', " "),
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= SNIPPET_CHARS {
        return s.to_string();
    }
    let cut: String = s.chars().take(SNIPPET_CHARS).collect();
    format!("{cut}…")
}

#[cfg(test)]
#[path = "transport_tests.rs"]
mod tests;
