//! Whether a local server says its model can call tools. A server that cannot drops the `tools`
//! of a request without a word (llama.cpp with a chat template that has no tools), so every skill
//! request is answered with made-up text; the servers say so elsewhere: llama.cpp's `GET /props`
//! (`chat_template_caps.supports_tools`), Ollama's `POST /api/show` (`capabilities` lists
//! `tools`), LM Studio's model list (`GET /api/v1/models`: `capabilities.trained_for_tool_use`;
//! `GET /api/v0/models`: `capabilities` lists `tool_use`). The answer is cached per server and
//! model, so only the first run with a model pays the round trips.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::header::AUTHORIZATION;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::support::cache_file::{self, CacheDir, Kind};

/// Bump `version` whenever [`Known`] changes.
const KIND: Kind = Kind {
    magic: *b"AGTTOOLS",
    version: 2,
};
/// How long one question may take: a local server answers in milliseconds.
const ASK_TIMEOUT: Duration = Duration::from_secs(3);
/// Answers kept; the oldest go first.
const KEEP: usize = 64;

/// What the server said about its model and tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ToolSupport {
    Yes,
    /// It cannot; `said` names where the server said so (`llama.cpp /props`).
    No {
        said: String,
    },
    /// The server did not say (another kind of server, an older version).
    Unknown,
}

impl ToolSupport {
    /// A server's yes or no; `said` is where it said no.
    fn answer(calls_tools: bool, said: &str) -> Self {
        if calls_tools {
            Self::Yes
        } else {
            Self::No { said: said.into() }
        }
    }
}

/// Which kind of local server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ServerKind {
    LlamaCpp,
    Ollama,
    LmStudio,
}

/// What a local server says about itself and its model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ServerFacts {
    /// Whether the model can call tools.
    pub(crate) tools: ToolSupport,
    /// The server that said so, when it is one of those asked.
    pub(crate) kind: Option<ServerKind>,
    /// The model's size in parameters, when the server says (llama.cpp's `/v1/models`
    /// `meta.n_params`, Ollama's `details.parameter_size`).
    pub(crate) params: Option<u64>,
    /// The context the server gives a request, in tokens (llama.cpp's `n_ctx`).
    pub(crate) context: Option<u64>,
}

impl ServerFacts {
    /// Nothing known: a server that did not say, or was not asked.
    pub(crate) fn unknown() -> Self {
        Self {
            tools: ToolSupport::Unknown,
            kind: None,
            params: None,
            context: None,
        }
    }

    /// Whether the compact prompt serves this model better: a small model (at most 4 billion
    /// parameters: what runs on a laptop's CPU, and what gets lost in a long prompt) or a small
    /// context (at most 8,192 tokens, which a full prompt with a few activations fills).
    pub(crate) fn wants_compact(&self) -> bool {
        self.params.is_some_and(|p| p <= 4_000_000_000) || self.context.is_some_and(|c| c <= 8192)
    }
}

/// The cached answers: `base_url model` → answer.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Known {
    answers: BTreeMap<String, ServerFacts>,
}

/// What the server at `base_url` says about `model`: from the cache when it was asked before,
/// else asked now and remembered (unless no question got an HTTP answer at all: a server that
/// is down is asked again next time).
pub(crate) async fn server_facts(
    http: &reqwest::Client,
    cache: Option<&CacheDir>,
    base_url: &str,
    model: &str,
    key: Option<&str>,
) -> ServerFacts {
    let file = cache.map(|c| c.file("models", "tool-support.bin"));
    let mut known: Known = file
        .as_ref()
        .and_then(|f| cache_file::read(f, KIND).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let entry = format!("{} {model}", base_url.trim_end_matches('/'));
    if let Some(answer) = known.answers.get(&entry) {
        return answer.clone();
    }
    let Some(answer) = ask(http, base_url, model, key).await else {
        return ServerFacts::unknown();
    };
    if let Some(file) = file {
        while known.answers.len() >= KEEP {
            known.answers.pop_first();
        }
        known.answers.insert(entry, answer.clone());
        if let Ok(bytes) = serde_json::to_vec(&known)
            && let Err(e) = cache_file::write(&file, KIND, &bytes)
        {
            tracing::debug!("{} not written: {e}", file.display());
        }
    }
    answer
}

/// Ask the places each kind of server answers in, in turn, until one says; `None` when none
/// answered over HTTP at all.
async fn ask(http: &reqwest::Client, base_url: &str, model: &str, key: Option<&str>) -> Option<ServerFacts> {
    let root = server_root(base_url);
    let get = |path: &str| send(http.get(format!("{root}{path}")), key);
    let mut answered = false;
    if let Some(body) = get("/props").await.inspect(|_| answered = true).flatten()
        && let Some(tools) = from_llama_props(&body)
    {
        let listing = get("/v1/models").await.flatten();
        return Some(ServerFacts {
            tools,
            kind: Some(ServerKind::LlamaCpp),
            params: listing
                .as_ref()
                .and_then(|l| l.pointer("/data/0/meta/n_params"))
                .and_then(Value::as_u64),
            context: body
                .pointer("/default_generation_settings/n_ctx")
                .and_then(Value::as_u64),
        });
    }
    let show = http.post(format!("{root}/api/show")).json(&json!({ "model": model }));
    if let Some(body) = send(show, key).await.inspect(|_| answered = true).flatten()
        && let Some(tools) = from_ollama_show(&body)
    {
        return Some(ServerFacts {
            tools,
            kind: Some(ServerKind::Ollama),
            params: body
                .pointer("/details/parameter_size")
                .and_then(Value::as_str)
                .and_then(parameter_count),
            context: None,
        });
    }
    for (path, read) in [
        (
            "/api/v1/models",
            from_lm_studio_v1 as fn(&Value, &str) -> Option<ToolSupport>,
        ),
        ("/api/v0/models", from_lm_studio_v0),
    ] {
        if let Some(body) = get(path).await.inspect(|_| answered = true).flatten()
            && let Some(tools) = read(&body, model)
        {
            return Some(ServerFacts {
                tools,
                kind: Some(ServerKind::LmStudio),
                ..ServerFacts::unknown()
            });
        }
    }
    answered.then(ServerFacts::unknown)
}

/// `"1.5B"`, `"494.03M"`, `"7B"` (Ollama's `parameter_size`) as a count.
fn parameter_count(size: &str) -> Option<u64> {
    let size = size.trim();
    let (number, scale) = match size.chars().last()?.to_ascii_uppercase() {
        'B' => (&size[..size.len() - 1], 1e9),
        'M' => (&size[..size.len() - 1], 1e6),
        'K' => (&size[..size.len() - 1], 1e3),
        _ => (size, 1.0),
    };
    let value: f64 = number.trim().parse().ok()?;
    // A count of parameters fits u64 by far; the cast saturates on nonsense.
    (value.is_finite() && value >= 0.0).then_some((value * scale) as u64)
}

/// `None`: no HTTP answer; `Some(None)`: an answer that is not JSON or not a success.
async fn send(request: reqwest::RequestBuilder, key: Option<&str>) -> Option<Option<Value>> {
    let request = match key.filter(|k| !k.is_empty()) {
        Some(key) => request.header(AUTHORIZATION, format!("Bearer {key}")),
        None => request,
    };
    let response = tokio::time::timeout(ASK_TIMEOUT, request.send()).await.ok()?.ok()?;
    if !response.status().is_success() {
        return Some(None);
    }
    Some(response.json::<Value>().await.ok())
}

/// `http://127.0.0.1:8080/v1` → `http://127.0.0.1:8080`: where the servers' own APIs live.
fn server_root(base_url: &str) -> &str {
    let trimmed = base_url.trim_end_matches('/');
    trimmed.strip_suffix("/v1").unwrap_or(trimmed)
}

/// llama.cpp: `{"chat_template_caps": {"supports_tools": false, …}}`.
fn from_llama_props(body: &Value) -> Option<ToolSupport> {
    let supports = body.pointer("/chat_template_caps/supports_tools")?.as_bool()?;
    Some(ToolSupport::answer(
        supports,
        "llama.cpp's /props: chat_template_caps.supports_tools is false",
    ))
}

/// Ollama: `{"capabilities": ["completion", "tools", …]}`.
fn from_ollama_show(body: &Value) -> Option<ToolSupport> {
    let capabilities = body.get("capabilities")?.as_array()?;
    Some(ToolSupport::answer(
        capabilities.iter().any(|c| c == "tools"),
        "Ollama's /api/show: its capabilities do not include tools",
    ))
}

/// LM Studio's v1 list: `{"models": [{"key": …, "capabilities": {"trained_for_tool_use": …}}]}`.
fn from_lm_studio_v1(body: &Value, model: &str) -> Option<ToolSupport> {
    let entry = body
        .get("models")?
        .as_array()?
        .iter()
        .find(|m| m.get("key").and_then(Value::as_str) == Some(model))?;
    let trained = entry.pointer("/capabilities/trained_for_tool_use")?.as_bool()?;
    Some(ToolSupport::answer(
        trained,
        "LM Studio's model list: trained_for_tool_use is false",
    ))
}

/// LM Studio's v0 list: `{"data": [{"id": …, "capabilities": ["tool_use"]}]}`.
fn from_lm_studio_v0(body: &Value, model: &str) -> Option<ToolSupport> {
    let entry = body
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))?;
    let capabilities = entry.get("capabilities")?.as_array()?;
    Some(ToolSupport::answer(
        capabilities.iter().any(|c| c == "tool_use"),
        "LM Studio's model list: its capabilities do not include tool_use",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_says_it_its_own_way() {
        let no = |s: Option<ToolSupport>| matches!(s, Some(ToolSupport::No { .. }));
        assert!(no(from_llama_props(
            &json!({"chat_template_caps": {"supports_tools": false}})
        )));
        assert_eq!(
            from_llama_props(&json!({"chat_template_caps": {"supports_tools": true}})),
            Some(ToolSupport::Yes)
        );
        assert_eq!(
            from_llama_props(&json!({"chat_template": "…"})),
            None,
            "an older llama.cpp"
        );
        assert!(no(from_ollama_show(&json!({"capabilities": ["completion"]}))));
        assert_eq!(
            from_ollama_show(&json!({"capabilities": ["completion", "tools"]})),
            Some(ToolSupport::Yes)
        );
        let v1 = json!({"models": [
            {"key": "gemma-3-270m-it-qat", "capabilities": {"vision": false, "trained_for_tool_use": false}},
            {"key": "qwen3-4b", "capabilities": {"vision": false, "trained_for_tool_use": true}}
        ]});
        assert!(no(from_lm_studio_v1(&v1, "gemma-3-270m-it-qat")));
        assert_eq!(from_lm_studio_v1(&v1, "qwen3-4b"), Some(ToolSupport::Yes));
        assert_eq!(from_lm_studio_v1(&v1, "other"), None);
        let v0 = json!({"data": [{"id": "a", "capabilities": []}, {"id": "b", "capabilities": ["tool_use"]}]});
        assert!(no(from_lm_studio_v0(&v0, "a")));
        assert_eq!(from_lm_studio_v0(&v0, "b"), Some(ToolSupport::Yes));
    }

    #[test]
    fn sizes_are_read_and_small_models_want_the_compact_prompt() {
        assert_eq!(parameter_count("1.5B"), Some(1_500_000_000));
        assert_eq!(parameter_count("494.03M"), Some(494_030_000));
        assert_eq!(parameter_count("big"), None);
        let facts = |params, context| ServerFacts {
            params,
            context,
            ..ServerFacts::unknown()
        };
        assert!(facts(Some(1_543_714_304), None).wants_compact());
        assert!(facts(None, Some(4096)).wants_compact());
        assert!(!facts(Some(8_000_000_000), Some(32_768)).wants_compact());
        assert!(!ServerFacts::unknown().wants_compact());
    }

    #[test]
    fn the_root_is_the_base_url_without_v1() {
        assert_eq!(server_root("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
        assert_eq!(server_root("http://h:1234"), "http://h:1234");
    }
}
