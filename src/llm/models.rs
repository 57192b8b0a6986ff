//! Asking an OpenAI-compatible server which models it serves (`GET {base}/models`), and looking
//! for a local server on the usual ports when nothing is configured (docs/design.md#configuration).

use std::time::Duration;

use reqwest::header::AUTHORIZATION;
use serde_json::Value;

use super::transport::{server_message, transport_cause};

/// Where local servers listen by default, in the order they are preferred when several answer.
pub(crate) const LOCAL_SERVERS: [(u16, &str); 4] = [
    (11434, "Ollama"),
    (8080, "llama.cpp"),
    (1234, "LM Studio"),
    (8000, "vLLM"),
];

/// How long one port of the local probe may take: a listening local server answers in
/// milliseconds, and a closed port refuses at once.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_millis(700);

/// Why the model list could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelsError {
    /// No HTTP answer at all (refused, unresolvable, TLS, timeout); the text says which.
    Unreachable(String),
    /// An answer that is not a model list (an HTTP error, or a body without one).
    NoList(String),
}

/// A local server found by [`find_local_server`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalServer {
    pub(crate) base_url: String,
    /// "Ollama", "llama.cpp" … for the usual ports, else "a local server".
    pub(crate) kind: &'static str,
    pub(crate) models: Vec<String>,
}

/// The model ids `GET {base_url}/models` lists, in the server's order.
pub(crate) async fn list_models(
    http: &reqwest::Client,
    base_url: &str,
    api_key: Option<&str>,
) -> Result<Vec<String>, ModelsError> {
    let parsed = fetch_models(http, base_url, api_key).await?;
    model_ids(&parsed).ok_or_else(|| ModelsError::NoList("the answer has no `data` list of models".into()))
}

/// The JSON body of `GET {base_url}/models`: the model list, with whatever else each server says
/// about its models (the context window, for some: `super::window`).
pub(crate) async fn fetch_models(
    http: &reqwest::Client,
    base_url: &str,
    api_key: Option<&str>,
) -> Result<Value, ModelsError> {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let mut request = http.get(&url);
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        request = request.header(AUTHORIZATION, format!("Bearer {key}"));
    }
    let response = request
        .send()
        .await
        .map_err(|e| ModelsError::Unreachable(transport_cause(&e)))?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|e| ModelsError::Unreachable(transport_cause(&e)))?;
    if !status.is_success() {
        return Err(ModelsError::NoList(format!("HTTP {status}: {}", server_message(&body))));
    }
    serde_json::from_str(&body).map_err(|e| ModelsError::NoList(format!("the answer is not JSON ({e})")))
}

/// `data[].id` (OpenAI, Ollama, vLLM, LM Studio), else `models[]` by `id`, `name` or `model`
/// (llama.cpp's own listing).
fn model_ids(body: &Value) -> Option<Vec<String>> {
    if let Some(data) = body.get("data").and_then(Value::as_array) {
        return Some(
            data.iter()
                .filter_map(|m| m.get("id")?.as_str().map(str::to_string))
                .collect(),
        );
    }
    let models = body.get("models").and_then(Value::as_array)?;
    Some(
        models
            .iter()
            .filter_map(|m| {
                ["id", "name", "model"]
                    .iter()
                    .find_map(|k| m.get(*k).and_then(Value::as_str))
                    .map(str::to_string)
            })
            .collect(),
    )
}

/// The first of `ports` on 127.0.0.1 (in the given order) that answers `GET /v1/models` with a
/// model list. Every port is asked at once, each for at most [`PROBE_TIMEOUT`].
pub(crate) async fn find_local_server(http: &reqwest::Client, ports: &[u16]) -> Option<LocalServer> {
    let probes = ports.iter().map(|&port| async move {
        let base_url = format!("http://127.0.0.1:{port}/v1");
        let models = tokio::time::timeout(PROBE_TIMEOUT, list_models(http, &base_url, None))
            .await
            .ok()?
            .ok()?;
        let kind = LOCAL_SERVERS
            .iter()
            .find(|(p, _)| *p == port)
            .map_or("a local server", |(_, kind)| *kind);
        Some(LocalServer { base_url, kind, models })
    });
    futures::future::join_all(probes).await.into_iter().flatten().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_openai_and_llama_cpp_listings() {
        let openai = json!({"object": "list", "data": [{"id": "qwen2.5:7b"}, {"id": "llama3"}]});
        assert_eq!(model_ids(&openai).unwrap(), ["qwen2.5:7b", "llama3"]);
        let llama = json!({"models": [{"name": "model.gguf", "model": "model.gguf"}]});
        assert_eq!(model_ids(&llama).unwrap(), ["model.gguf"]);
        assert_eq!(model_ids(&json!({"data": []})).unwrap(), Vec::<String>::new());
        assert!(model_ids(&json!({"error": "no"})).is_none());
    }
}
