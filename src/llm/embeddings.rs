//! An OpenAI-compatible embeddings client: `POST {base_url}/embeddings` in batches, lenient
//! about what compatible servers leave out, strict about what would corrupt a ranking (a
//! missing, duplicated or ragged vector). Every failure is one typed, one-line error, so the
//! caller can rank by words alone and say why in a single warning.

pub mod stand_in;

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use reqwest::header::AUTHORIZATION;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::json;

/// Most of a server's error text kept in a message.
const MESSAGE_CHARS: usize = 200;
/// Batches in flight at once: enough to hide a remote API's latency, few enough not to be
/// rate-limited for it.
const CONCURRENT_BATCHES: usize = 4;

/// Where and how to ask for embeddings.
#[derive(Debug, Clone)]
pub struct EmbeddingsSettings {
    /// The OpenAI-compatible base URL, as for chat (`…/v1`); `/embeddings` is appended.
    pub(crate) base_url: String,
    pub(crate) api_key: Option<String>,
    pub(crate) model: String,
    /// Longest wait for the connection to open.
    pub(crate) connect_timeout: Duration,
    /// Longest wait for one batch, from sending it to the last byte of the answer.
    pub(crate) timeout: Duration,
    /// Texts per request.
    pub(crate) batch_size: usize,
}

impl EmbeddingsSettings {
    /// Settings with the usual timeouts (5 s to connect, 60 s a batch) and batches of 64.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(60),
            batch_size: 64,
        }
    }
}

/// Why embeddings could not be had. Each message is one line naming the URL and the cause.
/// The causes are text on purpose: the error is kept for the whole run (a client that cannot be
/// set up is remembered, so it is `Clone`), a transport error's words are one-lined with the URL
/// already said, and a malformed answer's reason describes what the server sent, nothing beneath.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmbeddingsError {
    #[error("cannot set up the HTTP client for embeddings: {0}")]
    Setup(String),
    #[error("cannot reach the embeddings endpoint {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the embeddings endpoint {url} did not answer within {secs}s")]
    Timeout { url: String, secs: u64 },
    #[error("the embeddings endpoint {url} answered HTTP {status}: {message}")]
    Status { url: String, status: u16, message: String },
    #[error("the embeddings endpoint {url} sent an unusable answer: {reason}")]
    Malformed { url: String, reason: String },
}

/// One item of the response's `data`; `index` is optional because some servers leave it out.
#[derive(Deserialize)]
struct Item {
    index: Option<usize>,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

/// A client for one endpoint and model.
#[derive(Debug, Clone)]
pub struct EmbeddingsClient {
    http: reqwest::Client,
    url: String,
    key: Option<SecretString>,
    model: String,
    timeout: Duration,
    batch_size: usize,
}

impl EmbeddingsClient {
    pub fn new(settings: EmbeddingsSettings) -> Result<Self, EmbeddingsError> {
        let http = super::http::builder(&settings.base_url)
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .user_agent(concat!("agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| EmbeddingsError::Setup(e.to_string()))?;
        Ok(Self {
            http,
            url: format!("{}/embeddings", settings.base_url.trim_end_matches('/')),
            key: settings.api_key.filter(|k| !k.is_empty()).map(SecretString::from),
            model: settings.model,
            timeout: settings.timeout,
            batch_size: settings.batch_size.max(1),
        })
    }

    /// The model the vectors come from (part of any cache key).
    pub(crate) fn model(&self) -> &str {
        &self.model
    }

    /// The URL requests go to (`{base_url}/embeddings`).
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// One vector per input, in input order. All or nothing: any failed batch fails the call.
    pub async fn embed(&self, inputs: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingsError> {
        // Owned batches: a closure over borrowed slices makes the future impossible to prove
        // `Send`, and a chat fetches skill embeddings on a spawned task.
        let owned: Vec<Vec<String>> = inputs.chunks(self.batch_size).map(<[String]>::to_vec).collect();
        let batches: Vec<Vec<Vec<f32>>> = futures::stream::iter(owned)
            .map(|batch: Vec<String>| async move { self.embed_batch(&batch).await })
            .buffered(CONCURRENT_BATCHES)
            .try_collect()
            .await?;
        let vectors: Vec<Vec<f32>> = batches.into_iter().flatten().collect();
        let dims = vectors.first().map_or(0, Vec::len);
        if vectors.iter().any(|v| v.len() != dims) {
            return Err(self.malformed("vectors of different lengths across batches".into()));
        }
        Ok(vectors)
    }

    async fn embed_batch(&self, batch: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingsError> {
        let mut request = self
            .http
            .post(&self.url)
            .json(&json!({"model": self.model, "input": batch}));
        if let Some(key) = &self.key {
            request = request.header(AUTHORIZATION, format!("Bearer {}", key.expose_secret()));
        }
        let response = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| self.transport_error(&e))?;
        if !status.is_success() {
            return Err(EmbeddingsError::Status {
                url: self.url.clone(),
                status: status.as_u16(),
                message: server_message(&body),
            });
        }
        let parsed: Response = serde_json::from_str(&body).map_err(|e| {
            self.malformed(format!(
                "expected {{\"data\": [{{\"embedding\": [numbers…]}}]}} ({e}); body starts {}",
                one_line(&body)
            ))
        })?;
        order(parsed.data, batch.len()).map_err(|reason| self.malformed(reason))
    }

    fn transport_error(&self, e: &reqwest::Error) -> EmbeddingsError {
        if e.is_timeout() {
            return EmbeddingsError::Timeout {
                url: self.url.clone(),
                secs: self.timeout.as_secs(),
            };
        }
        // The URL is already in our message; reqwest's own would repeat it.
        let mut reason = one_line(&e.to_string());
        if let Some(src) = std::error::Error::source(e) {
            reason = format!("{reason} ({})", one_line(&src.to_string()));
        }
        EmbeddingsError::Unreachable {
            url: self.url.clone(),
            reason,
        }
    }

    fn malformed(&self, reason: String) -> EmbeddingsError {
        EmbeddingsError::Malformed {
            url: self.url.clone(),
            reason,
        }
    }
}

/// Puts a batch's vectors in input order: by `index` when every item has one, else in the
/// order sent (servers that omit `index` answer in order). Rejects missing, extra, duplicated,
/// empty, ragged or non-finite vectors. The reason is text: it becomes the `Malformed` error's
/// words about the server's answer, with nothing beneath it.
fn order(items: Vec<Item>, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    if items.len() != expected {
        return Err(format!("{} vectors for {expected} inputs", items.len()));
    }
    let indexed = items.iter().all(|i| i.index.is_some());
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (pos, item) in items.into_iter().enumerate() {
        let at = if indexed { item.index.unwrap_or(pos) } else { pos };
        let slot = slots
            .get_mut(at)
            .ok_or_else(|| format!("index {at} is out of range for {expected} inputs"))?;
        if slot.is_some() {
            return Err(format!("index {at} appears twice"));
        }
        *slot = Some(item.embedding);
    }
    let vectors: Vec<Vec<f32>> = slots.into_iter().flatten().collect();
    let dims = vectors.first().map_or(0, Vec::len);
    if dims == 0 {
        return Err("empty vectors".into());
    }
    if vectors.iter().any(|v| v.len() != dims) {
        return Err("vectors of different lengths".into());
    }
    if vectors.iter().flatten().any(|x| !x.is_finite()) {
        return Err("a vector holds a value that is not a finite number".into());
    }
    Ok(vectors)
}

/// The error text of a failed response: `error.message` or `error` from an OpenAI-style body,
/// else the body itself, on one line and cut short.
fn server_message(body: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = value.as_ref().and_then(|v| {
        v["error"]["message"]
            .as_str()
            .or_else(|| v["error"].as_str())
            .or_else(|| v["message"].as_str())
            .or_else(|| v["detail"].as_str())
    });
    let text = one_line(message.unwrap_or(body));
    if text.is_empty() { "(no details)".into() } else { text }
}

/// `text` on one line, at most [`MESSAGE_CHARS`] characters.
fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > MESSAGE_CHARS {
        let cut: String = flat.chars().take(MESSAGE_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
#[path = "embeddings_tests.rs"]
mod tests;
