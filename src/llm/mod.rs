//! The model client: two wire dialects (OpenAI chat completions, Anthropic's Messages API in
//! `anthropic/`) behind one conversation model; requests, lenient streaming, retries, prices,
//! clear errors.

pub(crate) mod anthropic;
pub(crate) mod cassette;
mod cassette_stream;
pub(crate) mod client;
pub mod embeddings;
pub(crate) mod http;
pub(crate) mod models;
pub(crate) mod prices;
pub mod stream;
pub(crate) mod tool_support;
pub(crate) mod transport;
pub mod types;
pub(crate) mod window;

pub(crate) use client::{LlmClient, LlmSettings};
pub use types::{ChatMessage, ToolCall};

/// Why a model call failed, worded for the user (what happened and what to do). Text on purpose,
/// with no source: a transport error is put into words by `transport::transport_cause`, which
/// takes the credentials out of the URL reqwest names (a kept `reqwest::Error` would show them
/// in a `caused by:` line), and the error is `Clone` for the turn's retries and events.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    pub(crate) message: String,
    /// The raw response text involved, shown with `-v`.
    pub(crate) snippet: Option<String>,
    /// The response broke off before the model finished: worth asking again.
    pub(crate) cut_off: bool,
    /// The model finished with neither text nor tool calls (a small model after a denial does).
    pub(crate) empty_reply: bool,
}

impl LlmError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            snippet: None,
            cut_off: false,
            empty_reply: false,
        }
    }

    /// Mark the error as a finished reply that said nothing.
    pub(crate) fn empty_reply(mut self) -> Self {
        self.empty_reply = true;
        self
    }

    /// Mark the error as a response that broke off (retried like a 5xx).
    pub(crate) fn cut_off(mut self) -> Self {
        self.cut_off = true;
        self
    }

    pub(crate) fn with_snippet(mut self, snippet: impl Into<String>) -> Self {
        self.snippet = Some(snippet.into());
        self
    }
}

/// Which wire dialect a run speaks (docs/design.md#wire-formats). The rest of the crate sees one
/// conversation model; only `llm/` looks at this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Provider {
    /// OpenAI chat completions: api.openai.com and every compatible server.
    #[default]
    OpenAi,
    /// Anthropic's Messages API (`llm/anthropic/`).
    Anthropic,
}

impl Provider {
    /// The provider as settings and session files write it.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// The provider's name, as messages say it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI",
            Self::Anthropic => "Anthropic",
        }
    }

    /// Whether servers of this dialect are looked for on 127.0.0.1 and asked which models they
    /// serve (`/v1/models`); Anthropic's API is never local, and its default model is named.
    pub(crate) fn discovers_servers(self) -> bool {
        self == Self::OpenAi
    }

    /// The variables its key is read from, as messages name them.
    pub(crate) fn key_vars(self) -> &'static str {
        match self {
            Self::OpenAi => "AGENT_API_KEY or OPENAI_API_KEY",
            Self::Anthropic => "ANTHROPIC_API_KEY (or AGENT_API_KEY)",
        }
    }
}
