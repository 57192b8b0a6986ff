//! The OpenAI-compatible chat client: requests, lenient streaming, retries, clear errors.

pub(crate) mod cassette;
mod cassette_stream;
pub(crate) mod client;
pub mod embeddings;
pub(crate) mod http;
pub(crate) mod models;
pub mod stream;
pub(crate) mod tool_support;
pub(crate) mod transport;
pub mod types;
pub(crate) mod window;

pub(crate) use client::{LlmClient, LlmSettings};
pub use types::{ChatMessage, ToolCall};

/// Why a model call failed, worded for the user (what happened and what to do).
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
