//! Anthropic's Messages API through the real binary, against a mock that answers in the
//! published stream format and refuses what the API refuses (tests/common/claude.rs): the skill
//! loop, parallel calls, thinking passed back, usage with cache counts, errors, provider choice.

use serde_json::{Value, json};

use crate::common::*;

const WEATHER_MD: &str =
    "---\nname: weather\ndescription: Current weather for a city.\n---\nWEATHER-BODY-7f3a: run `./run.sh CITY`.\n";
const WEATHER_SH: &str = "#!/bin/sh\necho \"sunny in $1\"\n";

fn weather_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER_MD, Some(WEATHER_SH));
    ws
}

/// The real binary pointed at `mock` as an Anthropic endpoint by `ANTHROPIC_API_KEY` alone.
fn claude_agent(ws: &Workspace, mock: &MockLlm) -> assert_cmd::Command {
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.claude_env()).arg("--skills-dir").arg(ws.skills());
    cmd
}

/// Every tool_use block of a request's assistant messages: (id, name, input).
fn tool_uses(request: &Value) -> Vec<(String, String, Value)> {
    blocks(request, "assistant")
        .into_iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| {
            (
                b["id"].as_str().unwrap().into(),
                b["name"].as_str().unwrap().into(),
                b["input"].clone(),
            )
        })
        .collect()
}

fn blocks(request: &Value, role: &str) -> Vec<Value> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == role)
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .collect()
}

async fn weather_loop(stream: bool) {
    let ws = weather_workspace();
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})),
        call("run_command", json!({"command": "./run.sh Tokyo"})),
        say("It is sunny in Tokyo."),
    ])
    .await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.args(["--once", "weather in Tokyo", "--yes"]);
    if !stream {
        cmd.arg("--no-stream");
    }
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "It is sunny in Tokyo.\n");
    let raw = mock.raw_requests().await;
    assert_eq!(raw.len(), 3, "{stderr}");
    for r in &raw {
        assert_eq!(r.url.path(), "/v1/messages");
        assert_eq!(r.headers.get("x-api-key").unwrap(), TEST_KEY);
        assert_eq!(r.headers.get("anthropic-version").unwrap(), "2023-06-01");
        assert!(
            r.headers.get("authorization").is_none(),
            "the key goes in x-api-key only"
        );
    }
    let reqs = mock.requests().await;
    let first = &reqs[0];
    assert_eq!(
        (first["model"].as_str(), first["stream"].as_bool()),
        (Some(CLAUDE_MODEL), Some(stream))
    );
    assert!(first["max_tokens"].as_u64().unwrap() > 0);
    assert!(
        first["system"][0]["text"]
            .as_str()
            .unwrap()
            .contains("weather: Current weather for a city.")
    );
    assert_eq!(first["tools"][0]["name"], "activate_skill");
    assert_eq!(
        first["tools"][0]["input_schema"]["properties"]["name"]["enum"],
        json!(["weather"])
    );
    assert_eq!(claude_texts(first, "user"), ["weather in Tokyo"]);
    // The call's JSON arrived in many pieces and went back whole, with its id, beside its result.
    let calls = tool_uses(&reqs[2]);
    assert_eq!(calls[0].1, "activate_skill");
    assert_eq!(calls[0].2, json!({"name": "weather"}));
    assert_eq!(calls[1].2, json!({"command": "./run.sh Tokyo"}));
    let results: Vec<Value> = blocks(&reqs[2], "user")
        .into_iter()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(results[0]["tool_use_id"].as_str().unwrap(), calls[0].0);
    assert!(results[0]["content"].as_str().unwrap().contains("WEATHER-BODY-7f3a"));
    assert!(
        results[1]["content"].as_str().unwrap().contains("sunny in Tokyo"),
        "{results:?}"
    );
}

#[tokio::test]
async fn the_weather_loop_runs_on_the_messages_api_streamed() {
    weather_loop(true).await;
}

#[tokio::test]
async fn the_weather_loop_runs_on_the_messages_api_unstreamed() {
    weather_loop(false).await;
}

#[tokio::test]
async fn parallel_calls_are_answered_in_one_user_message() {
    let ws = weather_workspace();
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})),
        calls(&[
            ("run_command", json!({"command": "./run.sh Tokyo"})),
            ("run_command", json!({"command": "./run.sh Paris"})),
        ]),
        say("Sunny in both."),
    ])
    .await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.args(["--once", "weather in Tokyo and Paris", "--yes"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!((code, stdout.as_str()), (0, "Sunny in both.\n"), "{stderr}");
    let last = mock.requests().await.pop().unwrap();
    let messages = last["messages"].as_array().unwrap();
    let answer = messages.last().unwrap();
    assert_eq!(answer["role"], "user");
    let results = answer["content"].as_array().unwrap();
    assert_eq!(
        results.len(),
        2,
        "both results in the one message after the calls: {answer}"
    );
    let ids: Vec<&str> = results.iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect();
    let called: Vec<String> = tool_uses(&last).into_iter().skip(1).map(|c| c.0).collect();
    assert_eq!(ids, called);
    assert!(results[0]["content"].as_str().unwrap().contains("sunny in Tokyo"));
    assert!(results[1]["content"].as_str().unwrap().contains("sunny in Paris"));
}

#[tokio::test]
async fn thinking_is_sent_back_unchanged_with_its_signature() {
    let ws = weather_workspace();
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"}))
            .thinking("The user wants weather; activate it.", "EqQBsig+/=="),
        say("Done."),
    ])
    .await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.args(["--once", "weather please", "--yes"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let second = &mock.requests().await[1];
    let first_block = &blocks(second, "assistant")[0];
    assert_eq!(
        first_block,
        &json!({"type": "thinking", "thinking": "The user wants weather; activate it.", "signature": "EqQBsig+/=="})
    );
    assert!(!stderr.contains("activate it."), "thinking is not shown: {stderr}");
}

#[tokio::test]
async fn usage_with_cache_counts_and_cost_is_in_the_json_events() {
    let ws = weather_workspace();
    let mock = MockLlm::claude(vec![say("Hi.").usage((12, 2_000, 30_000, 50))]).await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.args(["--once", "hello", "--json"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    // Every line is one docs/events.md documents, the same as on the other dialect.
    let doc = crate::common::events_doc::EventsDoc::read();
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        doc.validate_typed(&event).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let done: Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "done")
        .unwrap();
    let usage = &done["usage"];
    assert_eq!(
        usage["prompt_tokens"], 32_012,
        "input with cache reads and writes: {usage}"
    );
    assert_eq!(usage["completion_tokens"], 50);
    assert_eq!(usage["cache_write_tokens"], 2_000);
    assert_eq!(usage["cache_read_tokens"], 30_000);
    // Sonnet 5.5's published prices: $2 in, $10 out, $2.50 to write the cache, $0.10 to read it.
    let expected = (12.0 * 2.0 + 50.0 * 10.0 + 2_000.0 * 2.5 + 30_000.0 * 0.10) / 1e6;
    assert!((usage["cost_usd"].as_f64().unwrap() - expected).abs() < 1e-6, "{usage}");
    let session = &done["session_usage"];
    assert_eq!(
        (
            session["cache_read_tokens"].as_u64(),
            session["cache_write_tokens"].as_u64()
        ),
        (Some(30_000), Some(2_000))
    );
    assert_eq!(session["cost_usd"], usage["cost_usd"]);
}

#[tokio::test]
async fn an_overloaded_error_mid_stream_is_asked_again_then_reported() {
    let overloaded = || {
        let body = [
            stream(&[Block::Text("Hal".into())], "end_turn", (5, 0, 0, 1)).split("event: content_block_stop").next().unwrap().to_string(),
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into(),
        ]
        .concat();
        Claude::Raw(wiremock::ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
    };
    let ws = weather_workspace();
    let mock = MockLlm::claude(vec![overloaded(), say("Hello again.")]).await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.env("AGENT_RETRIES", "1").args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Hello again."), "{stdout}");
    assert!(stderr.contains("retry 1 of 1"), "{stderr}");
    let mock = MockLlm::claude(vec![overloaded()]).await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("overloaded_error: Overloaded"), "{stderr}");
}

#[tokio::test]
async fn http_errors_map_to_the_same_exit_codes_and_messages() {
    let ws = weather_workspace();
    let limited = api_error(
        429,
        "rate_limit_error",
        "Number of requests has exceeded your rate limit",
    )
    .insert_header("retry-after", "0");
    let mock = MockLlm::claude(vec![Claude::Raw(limited), say("Fine now.")]).await;
    let mut cmd = claude_agent(&ws, &mock);
    cmd.env("AGENT_RETRIES", "1").args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!((code, stdout.as_str()), (0, "Fine now.\n"), "{stderr}");
    assert!(
        stderr.contains("HTTP 429") && stderr.contains("retry 1 of 1"),
        "{stderr}"
    );
    for (status, kind, message, expect) in [
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "Check the key in ANTHROPIC_API_KEY",
        ),
        (
            404,
            "not_found_error",
            "model: claude-nope",
            "Check AGENT_MODEL/--model",
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
            "too large",
        ),
        (529, "overloaded_error", "Overloaded", "Overloaded"),
        (500, "api_error", "Internal server error", "HTTP 500"),
    ] {
        let mock = MockLlm::claude(vec![Claude::Raw(api_error(status, kind, message))]).await;
        let mut cmd = claude_agent(&ws, &mock);
        cmd.args(["--once", "hello"]);
        let (code, _, stderr) = run_outcome(cmd).await;
        assert_eq!(code, 4, "HTTP {status}: {stderr}");
        assert!(
            stderr.contains(expect) && stderr.contains(message),
            "HTTP {status}: {stderr}"
        );
    }
}

#[tokio::test]
async fn without_a_key_the_message_names_both_providers_variables() {
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("ANTHROPIC_API_KEY") && stderr.contains("OPENAI_API_KEY"),
        "{stderr}"
    );
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_PROVIDER", "anthropic").args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("no API key for https://api.anthropic.com"), "{stderr}");
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_PROVIDER", "gemini").args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("AGENT_PROVIDER"), "{stderr}");
}

#[tokio::test]
async fn an_openai_key_beside_the_anthropic_one_keeps_openai_unless_told() {
    let ws = weather_workspace();
    let openai = MockLlm::start(vec![text("From OpenAI.")]).await;
    let mut cmd = ws.agent(&openai);
    cmd.env("ANTHROPIC_API_KEY", "sk-ant-other-key-123")
        .args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!((code, stdout.as_str()), (0, "From OpenAI.\n"), "{stderr}");
    let claude = MockLlm::claude(vec![say("From Claude.")]).await;
    let mut cmd = ws.agent(&claude);
    cmd.env("AGENT_PROVIDER", "anthropic")
        .env("AGENT_MODEL", CLAUDE_MODEL)
        .args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(
        (code, stdout.as_str()),
        (0, "From Claude.\n"),
        "AGENT_API_KEY serves Anthropic too: {stderr}"
    );
}

/// The mock is only worth its passes if it refuses what the API refuses: a call without its
/// result, roles out of order, an empty text block, five breakpoints, a missing header.
#[tokio::test]
async fn the_mock_refuses_what_the_api_refuses() {
    let mock = MockLlm::claude(vec![say("never")]).await;
    agent::support::tls::install();
    let client = reqwest::Client::new();
    let url = format!("{}/v1/messages", mock.server.uri());
    let post = |body: Value, version: Option<&'static str>| {
        let mut request = client.post(&url).header("x-api-key", TEST_KEY).json(&body);
        if let Some(v) = version {
            request = request.header("anthropic-version", v);
        }
        request.send()
    };
    let user = |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text}]});
    let base = |messages: Value| json!({"model": CLAUDE_MODEL, "max_tokens": 16, "messages": messages});
    let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]});
    let mark = json!({"type": "ephemeral"});
    let five = json!([{"role": "user", "content": (0..5).map(|i| json!({"type": "text", "text": i.to_string(), "cache_control": mark})).collect::<Vec<_>>()}]);
    for (body, version, why) in [
        (base(json!([user("hi")])), None, "anthropic-version"),
        (
            base(json!([call.clone(), user("hi")])),
            Some("2023-06-01"),
            "first message",
        ),
        (base(json!([user("a"), user("b")])), Some("2023-06-01"), "alternate"),
        (base(json!([user("")])), Some("2023-06-01"), "non-empty"),
        (
            base(json!([user("a"), call, user("no result")])),
            Some("2023-06-01"),
            "tool_result",
        ),
        (base(five), Some("2023-06-01"), "maximum of 4"),
        (
            json!({"model": CLAUDE_MODEL, "messages": [user("a")]}),
            Some("2023-06-01"),
            "max_tokens",
        ),
    ] {
        let response = post(body.clone(), version).await.unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let text = response.text().await.unwrap();
        assert!(
            text.contains("invalid_request_error") && text.contains(why),
            "{why}: {text}"
        );
    }
}

#[tokio::test]
async fn nothing_local_is_looked_for_on_anthropic() {
    let ws = Workspace::new();
    // A local server answers on a probed port; with Anthropic named, it is never asked.
    let local = MockLlm::start(vec![text("from the local server")]).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/v1/models"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({"data": [{"id": "local-model"}]})))
        .mount(&local.server)
        .await;
    let port = local.server.address().port().to_string();
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_PROBE_PORTS", &port)
        .env("AGENT_PROVIDER", "anthropic")
        .args(["--once", "hello"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(local.raw_requests().await.is_empty(), "the local server was not probed");
    // The same port without a provider named is found, as before: the probe does reach it.
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_PROBE_PORTS", &port).args(["--once", "hello"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!((code, stdout.as_str()), (0, "from the local server\n"), "{stderr}");
}
