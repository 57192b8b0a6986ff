//! Local servers with zero configuration (SPEC §3): the model a server's `/v1/models` lists, a
//! local server found on a probed port, and which key is sent where.

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
