//! `LlmClient`: one chat-completions call with tools, streamed into a [`Reply`].

use std::time::Duration;

use async_openai::config::Config;
use async_openai::error::OpenAIError;
use futures::StreamExt;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::LlmError;
use super::cassette::Tape;
use super::stream::{Accumulator, Resend, Show};
use super::transport::{EndpointInfo, RetryNotice, Transport, backoff};
use super::types::{ChatMessage, ChatRequest, Chunk, Reply};
use crate::support::redact::Redactor;

/// The endpoint as async-openai sees it; sends `Authorization` only when there is a key,
/// since some local servers reject an empty bearer token.
#[derive(Debug, Clone)]
struct Endpoint {
    base: String,
    key: SecretString,
}

impl Config for Endpoint {
    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let key = self.key.expose_secret();
        if !key.is_empty()
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {key}"))
        {
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    fn query(&self) -> Vec<(&str, &str)> {
        Vec::new()
    }

    fn api_base(&self) -> &str {
        &self.base
    }

    fn api_key(&self) -> &SecretString {
        &self.key
    }
}

/// Everything the client needs to know about the endpoint.
pub(crate) struct LlmSettings {
    /// Which wire dialect the endpoint speaks.
    pub(crate) provider: super::Provider,
    /// `max_tokens` of a Messages API request (chat completions leave it to the server).
    pub(crate) max_tokens: u32,
    /// What each model's tokens cost, where known.
    pub(crate) prices: super::prices::Prices,
    pub(crate) base_url: String,
    pub(crate) api_key: Option<String>,
    pub(crate) key_var: Option<&'static str>,
    /// The base URL was set (flag or variable) rather than the default, or a local server found.
    pub(crate) base_url_given: bool,
    pub(crate) model: String,
    pub(crate) stream: bool,
    pub(crate) retries: u32,
    /// Longest wait for the connection to open.
    pub(crate) connect_timeout: Duration,
    /// Longest silence while waiting for response headers or the next streamed bytes.
    pub(crate) idle_timeout: Duration,
    /// Whether the server is llama.cpp, which streams its prompt processing when asked.
    pub(crate) prompt_progress: bool,
    /// The sampling temperature to ask for; `None` leaves it to the server.
    pub(crate) temperature: Option<f32>,
    /// Record or replay the calls.
    pub(crate) tape: Tape,
    /// Applied to error messages and raw snippets before anyone logs or prints them.
    pub(crate) redactor: Redactor,
}

/// A model client bound to one endpoint and model, in either wire dialect: the rest of the crate
/// asks it the same way whichever it speaks.
pub(crate) struct LlmClient {
    client: async_openai::Client<Endpoint>,
    /// Set when the endpoint speaks the Messages API; chat completions otherwise.
    messages: Option<super::anthropic::Messages>,
    provider: super::Provider,
    prices: super::prices::Prices,
    model: String,
    stream: bool,
    idle_timeout: Duration,
    /// Ask for token usage in streams: OpenAI itself wants `stream_options` for that, while
    /// some compatible servers reject the unknown field, so only there.
    usage_in_stream: bool,
    /// Ask llama.cpp for prompt-processing progress (see [`LlmSettings::prompt_progress`]).
    prompt_progress: bool,
    /// See [`LlmSettings::temperature`].
    temperature: Option<f32>,
    redactor: Redactor,
    /// Times a response that broke off is asked for again (`AGENT_RETRIES`).
    retries: u32,
    /// Hears about those retries.
    notice: RetryNotice,
    /// What asking the server about its models needs (`super::window`).
    pub(super) models: ModelsAccess,
}

/// The endpoint's `/models` listing, as [`LlmClient::context_window`] asks it.
pub(super) struct ModelsAccess {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: String,
    pub(crate) key: SecretString,
    /// A replayed run asks no server anything.
    pub(crate) replaying: bool,
    /// The last answer and the model it was for: asked once per model and run.
    pub(crate) window: tokio::sync::Mutex<Option<(String, Option<u64>)>>,
}

impl LlmClient {
    /// Build the client; `notice` hears about retries.
    pub(crate) fn new(settings: LlmSettings, notice: RetryNotice) -> Result<Self, LlmError> {
        let mut builder = super::http::builder(&settings.base_url);
        if crate::support::phases::enabled() {
            builder = builder.connector_layer(crate::support::phases::ConnectedLayer);
        }
        let http = builder
            .connect_timeout(settings.connect_timeout)
            // A backstop only: the idle timeout below gives the clearer message first.
            .read_timeout(settings.idle_timeout + Duration::from_secs(5))
            .user_agent(concat!("agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::new(format!("cannot set up HTTPS: {e}")))?;
        let info = EndpointInfo {
            // Error messages are printed and stored: never with the URL's credentials.
            base_url: crate::support::public_url::without_credentials(&settings.base_url),
            model: settings.model.clone(),
            key_var: settings.key_var,
            base_url_given: settings.base_url_given,
            provider: settings.provider,
        };
        let endpoint = Endpoint {
            base: settings.base_url,
            key: SecretString::from(settings.api_key.unwrap_or_default()),
        };
        let usage_in_stream = url::Url::parse(&endpoint.base)
            .ok()
            .is_some_and(|u| u.host_str() == Some("api.openai.com"));
        let models = ModelsAccess {
            http: http.clone(),
            base_url: endpoint.base.clone(),
            key: endpoint.key.clone(),
            replaying: matches!(settings.tape, Tape::Replay(_)),
            window: tokio::sync::Mutex::new(None),
        };
        let transport = Transport::new(
            http.clone(),
            settings.retries,
            settings.idle_timeout,
            settings.tape,
            info,
            notice.clone(),
        );
        let messages = (settings.provider == super::Provider::Anthropic).then(|| {
            super::anthropic::Messages::new(
                transport.clone(),
                &endpoint.base,
                endpoint.key.clone(),
                settings.max_tokens,
            )
        });
        let client = async_openai::Client::build(http, endpoint).with_http_service(transport);
        Ok(Self {
            client,
            messages,
            provider: settings.provider,
            prices: settings.prices,
            model: settings.model,
            stream: settings.stream,
            idle_timeout: settings.idle_timeout,
            usage_in_stream,
            prompt_progress: settings.prompt_progress,
            temperature: settings.temperature,
            redactor: settings.redactor,
            retries: settings.retries,
            notice,
            models,
        })
    }

    pub(crate) fn model(&self) -> &str {
        &self.model
    }

    pub(crate) fn set_model(&mut self, model: String) {
        self.model = model;
    }

    /// Take up a stored session's model, when it was the model of this client's provider
    /// (`provider` as the session says it; sessions from before there were two spoke OpenAI's):
    /// a session resumed on the other provider keeps this run's model.
    pub(crate) fn resume_model(&mut self, model: String, provider: Option<&str>) {
        if provider.unwrap_or(super::Provider::OpenAi.id()) == self.provider.id() {
            self.model = model;
        }
    }

    /// The context window of a Messages API model, known without asking (`None` elsewhere).
    pub(super) fn known_window(&self) -> Option<Option<u64>> {
        self.messages
            .as_ref()
            .map(|_| super::anthropic::Messages::context_window(&self.model))
    }

    /// The exact JSON body a chat-completions request with these messages and tools sends;
    /// `guide`, a JSON schema the reply must match (a guided call).
    pub(crate) fn request_body(&self, messages: &[ChatMessage], tools: &Value, guide: Option<&Value>) -> Value {
        serde_json::to_value(ChatRequest {
            model: &self.model,
            messages,
            tools,
            stream: self.stream,
            // llama.cpp reports usage in streams too when asked, as OpenAI does.
            stream_options: (self.stream && (self.usage_in_stream || self.prompt_progress))
                .then(|| serde_json::json!({"include_usage": true})),
            return_progress: (self.stream && self.prompt_progress).then_some(true),
            temperature: self.temperature,
            tool_choice: guide.map(|_| "none"),
            response_format: guide.map(|schema| {
                serde_json::json!({
                    "type": "json_schema",
                    "json_schema": {"name": "tool_call", "strict": true, "schema": schema}
                })
            }),
        })
        .unwrap_or(Value::Null)
    }

    /// Send one request; text deltas go to `on_text` as they arrive. Errors come back redacted.
    pub(crate) async fn complete(
        &self,
        messages: &[ChatMessage],
        tools: &Value,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Reply, LlmError> {
        self.complete_guided(messages, tools, None, on_text).await
    }

    /// [`Self::complete`], the reply held to the JSON schema `guide` when one is given (a guided
    /// call: docs/configuration.md "Small local models"). The Messages API has no such
    /// constraint; it is never asked for one.
    pub(crate) async fn complete_guided(
        &self,
        messages: &[ChatMessage],
        tools: &Value,
        guide: Option<&Value>,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Reply, LlmError> {
        self.complete_retrying(messages, tools, guide, on_text)
            .await
            .map(|mut reply| {
                if let Some(usage) = reply.usage.as_mut() {
                    usage.cost_usd = self.prices.cost(&self.model, usage);
                }
                reply
            })
            .map_err(|e| LlmError {
                message: self.redactor.redact(&e.message).into_owned(),
                snippet: e.snippet.map(|s| self.redactor.redact(&s).into_owned()),
                cut_off: e.cut_off,
                empty_reply: e.empty_reply,
            })
    }

    /// A response that breaks off before the model finished is asked for again, like a 5xx
    /// (nothing of it has run: tool calls run only once a response is complete). Text already
    /// shown is not shown twice; a retry that says something else is shown afresh, announced.
    async fn complete_retrying(
        &self,
        messages: &[ChatMessage],
        tools: &Value,
        guide: Option<&Value>,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Reply, LlmError> {
        let mut resend = Resend::default();
        let mut attempt = 0u32;
        loop {
            let notice = &self.notice;
            let mut show = |delta: &str| match resend.push(delta) {
                Show::Text(text) if text.is_empty() => {}
                Show::Text(text) => on_text(&text),
                Show::Afresh(text) => {
                    notice("the retried answer differs from the part shown before the cut; here it is in full".into());
                    on_text("\n");
                    on_text(&text);
                }
            };
            match self.complete_raw(messages, tools, guide, &mut show).await {
                Err(e) if e.cut_off && attempt < self.retries => {
                    attempt += 1;
                    let delay = backoff(attempt - 1);
                    let shown = if resend.anything_shown() {
                        "; the part already shown is not repeated"
                    } else {
                        ""
                    };
                    (self.notice)(format!(
                        "the response stream broke off before the model finished; retry {attempt} of {} in {:.1}s{shown}",
                        self.retries,
                        delay.as_secs_f64()
                    ));
                    resend.next_attempt();
                    tokio::time::sleep(delay).await;
                }
                Err(e) if e.cut_off && attempt > 0 => {
                    return Err(LlmError {
                        message: format!("{} (after {} attempts)", e.message, attempt + 1),
                        ..e
                    });
                }
                other => return other,
            }
        }
    }

    async fn complete_raw(
        &self,
        messages: &[ChatMessage],
        tools: &Value,
        guide: Option<&Value>,
        on_text: &mut (dyn FnMut(&str) + Send),
    ) -> Result<Reply, LlmError> {
        if let Some(api) = &self.messages {
            return api
                .complete(&self.model, self.stream, (messages, tools), self.idle_timeout, on_text)
                .await;
        }
        let body = self.request_body(messages, tools, guide);
        crate::support::phases::mark("request");
        tracing::debug!(bytes = body.to_string().len(), "sending chat request");
        let mut stream = self
            .client
            .chat()
            .create_stream_byot::<Value, Chunk>(body)
            .await
            .map_err(from_openai)?;
        let mut acc = Accumulator::default();
        loop {
            let item = match tokio::time::timeout(self.idle_timeout, stream.next()).await {
                Ok(Some(item)) => item,
                Ok(None) => break,
                Err(_) => {
                    return Err(LlmError::new(format!(
                        "the model endpoint went silent mid-response: no data for {}s (AGENT_IDLE_TIMEOUT); \
                         the server may be overloaded — try again, or raise the timeout for slow local models",
                        self.idle_timeout.as_secs()
                    )));
                }
            };
            let chunk = item.map_err(from_openai)?;
            acc.push(chunk, on_text)?;
        }
        acc.finish()
    }
}

fn from_openai(err: OpenAIError) -> LlmError {
    match err {
        OpenAIError::Boxed(inner) => match inner.downcast::<LlmError>() {
            Ok(e) => *e,
            Err(other) => LlmError::new(format!("model request failed: {other}")),
        },
        OpenAIError::JSONDeserialize(e, content) => LlmError::new(format!(
            "the endpoint sent a response that is not a chat completion ({e})"
        ))
        .with_snippet(content),
        OpenAIError::StreamError(e) => LlmError::new(format!("the response stream broke off: {e}")).cut_off(),
        OpenAIError::Reqwest(e) => LlmError::new(format!("the response could not be read: {e}")).cut_off(),
        other => LlmError::new(format!("model request failed: {other}")),
    }
}
