//! Local servers with zero configuration (docs/configuration.md, "Local servers"): the model a
//! server's `/v1/models` lists, a local server found on a probed port, and which key is sent where.

use crate::common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

/// The mock model server, also answering `GET /v1/models` with `listing` (status, body).
async fn server_listing(replies: Vec<Reply>, status: u16, body: Value) -> MockLlm {
    let mock = MockLlm::start(replies).await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(status).set_body_json(body))
        .mount(&mock.server)
        .await;
    mock
}

fn models(ids: &[&str]) -> Value {
    json!({"object": "list", "data": ids.iter().map(|id| json!({"id": id, "object": "model"})).collect::<Vec<_>>()})
}

/// `agent --once hi` against `base_url` with no model and no key configured.
fn unconfigured(ws: &Workspace, base_url: Option<&str>) -> assert_cmd::Command {
    let mut cmd = ws.bare_agent();
    cmd.env_remove("AGENT_MODEL").args(["--once", "hi"]);
    if let Some(url) = base_url {
        cmd.env("AGENT_BASE_URL", url);
    }
    cmd
}

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Chat request bodies only (the mock also records the `GET /v1/models`).
async fn chat_bodies(mock: &MockLlm) -> Vec<Value> {
    mock.raw_requests()
        .await
        .iter()
        .filter(|r| r.url.path().ends_with("/chat/completions"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn the_one_model_a_server_lists_is_used_and_shown() {
    let ws = Workspace::new();
    let mock = server_listing(
        vec![text("hello from qwen"), text("again")],
        200,
        models(&["qwen2.5:7b"]),
    )
    .await;
    let mut cmd = unconfigured(&ws, Some(&mock.base_url()));
    cmd.arg("--json");
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let events = events(&stdout);
    assert_eq!(events[0]["type"], "session");
    assert_eq!(events[0]["model"], "qwen2.5:7b");
    assert_eq!(chat_bodies(&mock).await[0]["model"], "qwen2.5:7b");
    // The human banner of -v names it too.
    let mut cmd = unconfigured(&ws, Some(&mock.base_url()));
    cmd.arg("-v");
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!("· qwen2.5:7b at {}", mock.base_url())),
        "{stderr}"
    );
}

#[tokio::test]
async fn several_models_are_listed_with_how_to_choose() {
    let ws = Workspace::new();
    let mock = server_listing(vec![], 200, models(&["llama3.2:3b", "qwen2.5:7b", "mistral"])).await;
    let mut cmd = unconfigured(&ws, Some(&mock.base_url()));
    cmd.arg("--json");
    let (code, stdout, _) = run_outcome(cmd).await;
    assert_eq!(code, 3);
    let error = events(&stdout).pop().unwrap();
    let message = error["message"].as_str().unwrap();
    for want in [
        "serves 3 models",
        "llama3.2:3b, qwen2.5:7b, mistral",
        "--model",
        "AGENT_MODEL",
    ] {
        assert!(message.contains(want), "{want:?} missing from {message}");
    }
    assert!(chat_bodies(&mock).await.is_empty(), "no chat request without a model");
    // Naming one is all it takes.
    let mock = server_listing(vec![text("ok")], 200, models(&["llama3.2:3b", "mistral"])).await;
    let mut cmd = unconfigured(&ws, Some(&mock.base_url()));
    cmd.args(["--model", "mistral"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(chat_bodies(&mock).await[0]["model"], "mistral");
    assert_eq!(mock.raw_requests().await.len(), 1, "a named model needs no /v1/models");
}

#[tokio::test]
async fn a_server_without_a_model_list_or_with_an_empty_one_is_a_clear_error() {
    let ws = Workspace::new();
    let cases = [
        (404, json!({"error": {"message": "not found"}}), "HTTP 404"),
        (200, models(&[]), "serves no model yet"),
    ];
    for (status, body, want) in cases {
        let mock = server_listing(vec![], status, body).await;
        let (code, _, stderr) = run_outcome(unconfigured(&ws, Some(&mock.base_url()))).await;
        assert_eq!(code, 3, "{stderr}");
        assert!(stderr.contains(want) && stderr.contains("AGENT_MODEL"), "{stderr}");
    }
    // Nothing listening at the configured URL: the network error, exit 4.
    let closed = closed_port();
    let (code, _, stderr) = run_outcome(unconfigured(&ws, Some(&format!("http://127.0.0.1:{closed}/v1")))).await;
    assert_eq!(code, 4, "{stderr}");
}

#[tokio::test]
async fn with_nothing_configured_a_local_server_is_found_on_a_probed_port() {
    let ws = Workspace::new();
    let mock = server_listing(vec![text("found you")], 200, models(&["local-model"])).await;
    let port = mock.server.address().port();
    let mut cmd = unconfigured(&ws, None);
    cmd.arg("--json")
        .env("AGENT_PROBE_PORTS", format!("{},{port}", closed_port()));
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let session = &events(&stdout)[0];
    assert_eq!(session["base_url"], format!("http://127.0.0.1:{port}/v1"));
    assert_eq!(session["model"], "local-model");
    assert_eq!(chat_bodies(&mock).await.len(), 1);
}

#[tokio::test]
async fn with_nothing_configured_and_no_local_server_the_no_key_error_says_so() {
    let ws = Workspace::new();
    let mut cmd = unconfigured(&ws, None);
    cmd.env("AGENT_PROBE_PORTS", closed_port().to_string());
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{stderr}");
    for want in [
        "AGENT_API_KEY",
        "OPENAI_API_KEY",
        "no local server answered on 127.0.0.1",
    ] {
        assert!(stderr.contains(want), "{want:?} missing from {stderr}");
    }
}

#[tokio::test]
async fn a_key_that_is_set_is_sent_to_a_local_server_too() {
    let ws = Workspace::new();
    let mock = server_listing(vec![text("ok")], 200, models(&["served"])).await;
    let mut cmd = unconfigured(&ws, Some(&mock.base_url()));
    cmd.env("AGENT_API_KEY", "sk-vllm-api-key-123");
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let raw = mock.raw_requests().await;
    assert_eq!(raw.len(), 2, "GET /v1/models, then the chat request");
    for request in &raw {
        assert_eq!(
            request.headers.get("authorization").unwrap(),
            "Bearer sk-vllm-api-key-123",
            "{}",
            request.url
        );
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `agent --once hi --json` against `mock` with `model`, asking the server about tools (the
/// harness turns that off): (exit code, events, stderr).
async fn asked_about_tools(ws: &Workspace, mock: &MockLlm, model: &str) -> (i32, Vec<Value>, String) {
    let mut cmd = ws.agent(mock);
    cmd.env_remove("AGENT_TOOL_CHECK")
        .env("AGENT_MODEL", model)
        .args(["--once", "weather in Oslo?", "--json"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    (code, events(&stdout), stderr)
}

fn session_and_warnings(events: &[Value]) -> (Value, Vec<String>) {
    let session = events.iter().find(|e| e["type"] == "session").unwrap().clone();
    let warnings = events
        .iter()
        .filter(|e| e["type"] == "warning")
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect();
    (session, warnings)
}

/// Requests the mock got for `path`.
async fn asked(mock: &MockLlm, path: &str) -> usize {
    mock.raw_requests()
        .await
        .iter()
        .filter(|r| r.url.path() == path)
        .count()
}

fn weather(ws: &Workspace) {
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city.\n---\nRun ./run.sh CITY\n",
        None,
    );
}

#[tokio::test]
async fn a_llama_cpp_model_without_tools_is_warned_about_once_and_asked_about_once() {
    let ws = Workspace::new();
    weather(&ws);
    let mock = MockLlm::start(vec![text("It is sunny."), text("Still sunny.")]).await;
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "chat_template": "{{ messages }}",
            "chat_template_caps": {"supports_tools": false, "supports_tool_calls": false},
            "default_generation_settings": {"n_ctx": 4096}
        })))
        .mount(&mock.server)
        .await;
    for run in 0..2 {
        let (code, events, stderr) = asked_about_tools(&ws, &mock, "smollm-360m").await;
        assert_eq!(code, 0, "{stderr}");
        let (session, warnings) = session_and_warnings(&events);
        assert_eq!(session["model_calls_tools"], false, "run {run}: {session}");
        let warned: Vec<&String> = warnings.iter().filter(|w| w.contains("cannot call tools")).collect();
        assert_eq!(warned.len(), 1, "run {run}: once per run: {warnings:?}");
        assert!(
            warned[0].contains("smollm-360m") && warned[0].contains("llama.cpp") && warned[0].contains("--model"),
            "{}",
            warned[0]
        );
    }
    // The second run took the answer from the cache: no round trip.
    assert_eq!(asked(&mock, "/props").await, 1);
    assert_eq!(asked(&mock, "/v1/chat/completions").await, 2);
}

#[tokio::test]
async fn ollama_says_it_in_api_show_per_model() {
    let ws = Workspace::new();
    weather(&ws);
    let mock = MockLlm::start(vec![text("one"), text("two")]).await;
    for (model, capabilities) in [
        ("gemma3:1b", json!(["completion"])),
        ("qwen3:4b", json!(["completion", "tools", "thinking"])),
    ] {
        Mock::given(method("POST"))
            .and(path("/api/show"))
            .and(wiremock::matchers::body_json(json!({"model": model})))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "details": {"family": "gemma3"}, "capabilities": capabilities
            })))
            .mount(&mock.server)
            .await;
    }
    let (code, events, stderr) = asked_about_tools(&ws, &mock, "gemma3:1b").await;
    assert_eq!(code, 0, "{stderr}");
    let (session, warnings) = session_and_warnings(&events);
    assert_eq!(session["model_calls_tools"], false);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("cannot call tools") && w.contains("Ollama")),
        "{warnings:?}"
    );
    let (_, events, _) = asked_about_tools(&ws, &mock, "qwen3:4b").await;
    let (session, warnings) = session_and_warnings(&events);
    assert_eq!(session["model_calls_tools"], true);
    assert!(
        !warnings.iter().any(|w| w.contains("cannot call tools")),
        "{warnings:?}"
    );
    assert_eq!(asked(&mock, "/api/show").await, 2, "one question per model");
}

#[tokio::test]
async fn lm_studio_says_it_in_its_model_list_and_without_skills_nothing_is_said() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("one"), text("two")]).await;
    Mock::given(method("GET"))
        .and(path("/api/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"models": [{
            "type": "llm", "key": "gemma-3-270m-it-qat", "max_context_length": 32768,
            "capabilities": {"vision": false, "trained_for_tool_use": false}
        }]})))
        .mount(&mock.server)
        .await;
    // No skills: nothing to warn about, but the session event still says it.
    let (code, events, stderr) = asked_about_tools(&ws, &mock, "gemma-3-270m-it-qat").await;
    assert_eq!(code, 0, "{stderr}");
    let (session, warnings) = session_and_warnings(&events);
    assert_eq!(session["model_calls_tools"], false);
    assert!(
        !warnings.iter().any(|w| w.contains("cannot call tools")),
        "{warnings:?}"
    );
    weather(&ws);
    let (_, events, _) = asked_about_tools(&ws, &mock, "gemma-3-270m-it-qat").await;
    let (_, warnings) = session_and_warnings(&events);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("cannot call tools") && w.contains("LM Studio")),
        "{warnings:?}"
    );
    assert_eq!(asked(&mock, "/api/v1/models").await, 1);
}
