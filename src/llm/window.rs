//! The context window a server says a model has, read from its `/v1/models` listing. No standard
//! field exists; servers that say it at all use one of a few: vLLM `max_model_len`, LM Studio
//! `loaded_context_length`/`max_context_length`, llama.cpp `meta.n_ctx`/`meta.n_ctx_train`,
//! OpenRouter and others `context_length` or `context_window`.

use std::time::Duration;

use secrecy::ExposeSecret;
use serde_json::Value;

use super::LlmClient;
use super::models::fetch_models;

/// Longest wait for the listing: it only refines `/context` and automatic compaction.
const ASK_TIMEOUT: Duration = Duration::from_secs(5);

impl LlmClient {
    /// The current model's context window as the server's `/models` listing gives it; `None`
    /// when it says none (api.openai.com lists none, so it is not asked), cannot be reached, or
    /// the run is replayed. Asked once per model and run, on first use.
    pub(crate) async fn context_window(&self) -> Option<u64> {
        if let Some(window) = self.known_window() {
            return window;
        }
        let access = &self.models;
        let mut known = access.window.lock().await;
        if let Some((model, window)) = known.as_ref()
            && model == self.model()
        {
            return *window;
        }
        let openai = url::Url::parse(&access.base_url).is_ok_and(|u| u.host_str() == Some("api.openai.com"));
        let window = if access.replaying || openai {
            None
        } else {
            let key = access.key.expose_secret();
            let listing = tokio::time::timeout(ASK_TIMEOUT, fetch_models(&access.http, &access.base_url, Some(key)));
            match listing.await {
                Ok(Ok(body)) => context_window(&body, self.model()),
                _ => None,
            }
        };
        *known = Some((self.model().to_string(), window));
        window
    }
}

/// Where each server puts the window, most specific first: what is loaded now before what the
/// model was trained for.
const WINDOW_FIELDS: [&str; 7] = [
    "/loaded_context_length",
    "/max_model_len",
    "/meta/n_ctx",
    "/context_length",
    "/context_window",
    "/max_context_length",
    "/meta/n_ctx_train",
];

/// The window of `model` in a `/v1/models` body: its entry's, or the only entry's when none has
/// its id (llama.cpp serves one model under its file name, whatever name requests use).
pub(crate) fn context_window(body: &Value, model: &str) -> Option<u64> {
    let entries = body
        .get("data")
        .or_else(|| body.get("models"))
        .and_then(Value::as_array)?;
    let named = |e: &&Value| {
        ["id", "name", "model"]
            .iter()
            .any(|k| e.get(*k).and_then(Value::as_str) == Some(model))
    };
    let entry = match entries.iter().find(named) {
        Some(entry) => entry,
        None if entries.len() == 1 => &entries[0],
        None => return None,
    };
    WINDOW_FIELDS.iter().find_map(|field| tokens(entry.pointer(field)?))
}

/// A positive token count, as a number or a numeric string.
fn tokens(value: &Value) -> Option<u64> {
    let n = match value {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_each_servers_field() {
        let vllm = json!({"data": [{"id": "qwen", "max_model_len": 32768}]});
        assert_eq!(context_window(&vllm, "qwen"), Some(32768));
        let llama = json!({"data": [{"id": "model.gguf", "meta": {"n_ctx_train": 131072, "n_vocab": 1}}]});
        assert_eq!(context_window(&llama, "anything"), Some(131072), "the only model");
        let lmstudio = json!({"data": [
            {"id": "a", "max_context_length": 8192},
            {"id": "b", "max_context_length": 32768, "loaded_context_length": "4096"}
        ]});
        assert_eq!(context_window(&lmstudio, "b"), Some(4096));
        assert_eq!(context_window(&lmstudio, "c"), None, "several models, none named");
        let openrouter = json!({"data": [{"id": "x/y", "context_length": 200000}]});
        assert_eq!(context_window(&openrouter, "x/y"), Some(200000));
        let openai = json!({"object": "list", "data": [{"id": "gpt-4.1-mini", "owned_by": "openai"}]});
        assert_eq!(context_window(&openai, "gpt-4.1-mini"), None);
        assert_eq!(
            context_window(&json!({"data": [{"id": "z", "context_length": 0}]}), "z"),
            None
        );
        assert_eq!(context_window(&json!({"error": "no"}), "z"), None);
    }
}
