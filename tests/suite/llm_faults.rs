//! Endpoint faults through the real binary: retries, timeouts, clear errors, malformed and quirky
//! responses. Each test checks the exit code, the number of requests and the message.

use std::time::Duration;

use crate::common::{run_outcome as run, *};
use serde_json::json;
use wiremock::ResponseTemplate;

fn sse(events: &[serde_json::Value], done: bool) -> String {
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body
}

fn raw_sse(body: String) -> Reply {
    Reply::Raw(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
}

async fn once(mock: &MockLlm, extra_env: &[(&str, &str)]) -> (i32, String, String) {
    let ws = Workspace::new();
    let mut cmd = ws.agent(mock);
    cmd.args(["--once", "hi"]);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    run(cmd).await
}

#[tokio::test]
async fn rate_limit_honours_retry_after_then_succeeds() {
    let limited = Reply::Raw(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "1")
            .set_body_raw(r#"{"error":{"message":"slow down"}}"#, "application/json"),
    );
    let mock = MockLlm::start(vec![limited, text("after the wait")]).await;
    let started = std::time::Instant::now();
    let (code, out, err) = once(&mock, &[("AGENT_RETRIES", "2")]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "after the wait\n");
    assert!(
        err.contains("HTTP 429") && err.contains("retry 1 of 2 in 1.0s"),
        "{err}"
    );
    assert_eq!(mock.requests().await.len(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After was not waited for"
    );
}

#[tokio::test]
async fn server_errors_are_retried_in_sequence() {
    let mock = MockLlm::start(vec![
        status(500, "oops"),
        status(502, "bad gateway"),
        status(503, ""),
        status(504, ""),
        text("finally"),
    ])
    .await;
    let (code, out, err) = once(&mock, &[("AGENT_RETRIES", "4")]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "finally\n");
    assert_eq!(err.matches("retry ").count(), 4, "{err}");
    assert_eq!(mock.requests().await.len(), 5);
}

#[tokio::test]
async fn retries_are_bounded_then_exit_4() {
    let mock = MockLlm::start(vec![
        status(503, "down"),
        status(503, "down"),
        status(503, "still down"),
    ])
    .await;
    let (code, _, err) = once(&mock, &[("AGENT_RETRIES", "1")]).await;
    assert_eq!(code, 4);
    assert!(err.contains("after 2 attempts") && err.contains("HTTP 503"), "{err}");
    assert_eq!(mock.requests().await.len(), 2);
}

#[tokio::test]
async fn status_errors_name_cause_and_next_step() {
    let cases = [
        (
            403,
            r#"{"error":{"message":"forbidden key"}}"#,
            vec!["AGENT_API_KEY", "forbidden key"],
        ),
        (
            404,
            r#"{"error":{"message":"model not found"}}"#,
            vec!["gpt-4.1-mini", "/v1", "AGENT_MODEL", "AGENT_BASE_URL"],
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
            vec!["refused the request", "maximum context length"],
        ),
    ];
    for (code, body, needles) in cases {
        let mock = MockLlm::start(vec![status(code, body)]).await;
        let (exit, _, err) = once(&mock, &[("AGENT_RETRIES", "3")]).await;
        assert_eq!(exit, 4, "{code}: {err}");
        for n in needles {
            assert!(err.contains(n), "{code}: missing {n:?} in {err}");
        }
        assert_eq!(mock.requests().await.len(), 1, "{code} must not be retried");
    }
}

#[tokio::test]
async fn connection_refused_is_retried_and_names_the_url() {
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_RETRIES", "1")
        .args(["--once", "hi", "--base-url", "http://127.0.0.1:9/v1"]);
    let (code, _, err) = run(cmd).await;
    assert_eq!(code, 4);
    assert!(
        err.contains("http://127.0.0.1:9/v1/chat/completions") && err.contains("after 2 attempts"),
        "{err}"
    );
    assert!(err.contains("Nothing is listening"), "{err}");
}

#[tokio::test]
async fn tls_to_a_plain_http_server_explains_the_scheme() {
    let mock = MockLlm::start(vec![text("never")]).await;
    let https = mock.base_url().replace("http://", "https://");
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.args(["--once", "hi", "--base-url", &https]);
    let (code, _, err) = run(cmd).await;
    assert_eq!(code, 4);
    assert!(err.contains("TLS") && err.contains("http://"), "{err}");
}

#[tokio::test]
async fn a_server_that_never_answers_hits_the_idle_timeout() {
    let slow = Reply::Raw(
        ResponseTemplate::new(200)
            .set_delay(Duration::from_secs(20))
            .set_body_raw(sse(&[], true), "text/event-stream"),
    );
    let mock = MockLlm::start(vec![slow]).await;
    let started = std::time::Instant::now();
    let (code, _, err) = once(&mock, &[("AGENT_IDLE_TIMEOUT", "1")]).await;
    assert_eq!(code, 4);
    assert!(err.contains("within 1s") && err.contains("AGENT_IDLE_TIMEOUT"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(mock.requests().await.len(), 1);
}

#[tokio::test]
async fn a_stream_that_stalls_midway_hits_the_idle_timeout() {
    let first = json!({"choices":[{"index":0,"delta":{"content":"partial "}}]});
    let base = raw_server(
        SSE_HEAD,
        vec![(Duration::ZERO, format!("data: {first}\n\n"))],
        Duration::from_secs(30),
    )
    .await;
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_IDLE_TIMEOUT", "1")
        .args(["--once", "hi", "--base-url", &base]);
    let (code, out, err) = run(cmd).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        out.starts_with("partial"),
        "the text that arrived is still shown: {out:?}"
    );
    assert!(err.contains("went silent") && err.contains("1s"), "{err}");
}

#[tokio::test]
async fn a_stream_cut_before_done_is_an_error() {
    let first = json!({"choices":[{"index":0,"delta":{"content":"Half an ans"}}]});
    let base = raw_server(
        SSE_HEAD,
        vec![(Duration::ZERO, format!("data: {first}\n\n"))],
        Duration::ZERO,
    )
    .await;
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.args(["--once", "hi", "--base-url", &base]);
    let (code, _, err) = run(cmd).await;
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("cut off") && err.contains("Half an ans"), "{err}");
}

#[tokio::test]
async fn quirky_but_valid_streams_are_accepted() {
    // finish_reason "", tool-call chunks without index, reasoning_content, no [DONE] after a finish.
    let quirky_tools = sse(
        &[
            json!({"choices":[{"delta":{"reasoning_content":"thinking…","tool_calls":[{"id":"c1","function":{"name":"activate_skill","arguments":"{\"name\":"}}]},"finish_reason":""}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"plain\"}"}}]},"finish_reason":"tool_calls"}]}),
        ],
        false,
    );
    let quirky_text = sse(
        &[
            json!({"id":"x","choices":[]}),
            json!({"choices":[{"delta":{"reasoning_content":"hmm","content":null}}]}),
            json!({"choices":[{"delta":{"content":"quirks ok"},"finish_reason":"stop"}]}),
        ],
        true,
    );
    let mock = MockLlm::start(vec![raw_sse(quirky_tools), raw_sse(quirky_text)]).await;
    let ws = Workspace::new();
    ws.skill(
        "plain",
        "---\nname: plain\ndescription: A plain skill for tests.\n---\nPLAIN-BODY\n",
        None,
    );
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hi"]);
    let (code, out, err) = run(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "quirks ok\n");
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 2);
    assert!(contents(&reqs[1], "tool")[0].contains("PLAIN-BODY"));
}

#[tokio::test]
async fn broken_responses_exit_4_with_the_raw_snippet_under_v() {
    let cases: Vec<(Reply, &str)> = vec![
        (
            Reply::Raw(ResponseTemplate::new(200).set_body_raw("<html>502 Bad Gateway</html>", "text/html")),
            "not JSON",
        ),
        (
            raw_sse("data: {this is not json}\n\ndata: [DONE]\n\n".into()),
            "not a chat completion",
        ),
        (
            raw_sse(sse(&[json!({"error":{"message":"upstream overloaded"}})], false)),
            "upstream overloaded",
        ),
        (raw_sse(sse(&[json!({"choices":[]})], true)), "empty response"),
        (raw_sse(String::new()), "empty response"),
    ];
    for (reply, needle) in cases {
        let mock = MockLlm::start(vec![reply]).await;
        let (code, _, err) = once(&mock, &[("RUST_LOG", "agent=debug")]).await;
        assert_eq!(code, 4, "{needle}: {err}");
        assert!(err.contains(needle), "missing {needle:?} in {err}");
        assert_eq!(mock.requests().await.len(), 1);
    }
    let mock = MockLlm::start(vec![raw_sse("data: {this is not json}\n\n".into())]).await;
    let ws = Workspace::new();
    let mut cmd = ws.agent(&mock);
    cmd.args(["-v", "--once", "hi"]);
    let (code, _, err) = run(cmd).await;
    assert_eq!(code, 4);
    assert!(err.contains("{this is not json}"), "-v shows the raw snippet: {err}");
}

#[tokio::test]
async fn the_same_failing_call_repeated_stops_at_the_step_limit() {
    let mock = MockLlm::repeating(vec![tool("activate_skill", json!({"name": "ghost"}))]).await;
    let (code, _, err) = once(&mock, &[("AGENT_MAX_STEPS", "3")]).await;
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("3 tool steps") && err.contains("ghost") && err.contains("3 times"),
        "{err}"
    );
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 4);
    assert!(contents(&reqs[1], "tool")[0].contains("no skill named \"ghost\""));
}

#[tokio::test]
async fn secrets_echoed_in_error_bodies_are_redacted_in_messages_and_logs() {
    let mock = MockLlm::start(vec![status(
        400,
        r#"{"error":{"message":"invalid header value tok-secret-abcdef12"}}"#,
    )])
    .await;
    let (code, _, err) = once(
        &mock,
        &[("MY_SERVICE_TOKEN", "tok-secret-abcdef12"), ("RUST_LOG", "agent=debug")],
    )
    .await;
    assert_eq!(code, 4);
    assert!(!err.contains("tok-secret-abcdef12"), "{err}");
    assert!(err.contains("[REDACTED:MY_SERVICE_TOKEN]"), "{err}");
}

fn cut_text(text: &str) -> Reply {
    let events: Vec<serde_json::Value> = text
        .as_bytes()
        .chunks(4)
        .map(|c| json!({"choices":[{"index":0,"delta":{"content":String::from_utf8_lossy(c)}}]}))
        .collect();
    raw_sse(sse(&events, false))
}

#[tokio::test]
async fn a_stream_cut_before_anything_was_shown_is_retried() {
    let cut = sse(
        &[
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"activate_skill","arguments":"{\"na"}}]}}]}),
        ],
        false,
    );
    let mock = MockLlm::start(vec![raw_sse(cut), text("whole answer")]).await;
    let (code, out, err) = once(&mock, &[("AGENT_RETRIES", "1")]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "whole answer\n");
    assert_eq!(mock.requests().await.len(), 2);
    assert!(err.contains("broke off") && err.contains("retry 1 of 1"), "{err}");
    assert!(!err.contains("not repeated"), "nothing had been shown: {err}");
}

#[tokio::test]
async fn a_stream_cut_after_text_was_shown_is_retried_without_showing_it_twice() {
    let mock = MockLlm::start(vec![cut_text("Hello wor"), text("Hello world, all of it.")]).await;
    let (code, out, err) = once(&mock, &[("AGENT_RETRIES", "2")]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Hello world, all of it.\n");
    assert!(
        err.contains("retry 1 of 2") && err.contains("the part already shown is not repeated"),
        "{err}"
    );
}

#[tokio::test]
async fn a_retry_that_says_something_else_is_shown_in_full_and_announced() {
    let mock = MockLlm::start(vec![cut_text("Hello wor"), text("Goodbye instead.")]).await;
    let ws = Workspace::new();
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_RETRIES", "1").args(["--once", "hi", "--json"]);
    let (code, out, err) = run(cmd).await;
    assert_eq!(code, 0, "{err}");
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let shown: String = events
        .iter()
        .filter(|e| e["type"] == "message_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(shown, "Hello wor\nGoodbye instead.");
    let message = events.iter().find(|e| e["type"] == "message").unwrap();
    assert_eq!(message["text"], "Goodbye instead.", "the final message is the retry's");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "warning" && e["message"].as_str().unwrap().contains("differs")),
        "{out}"
    );
}

#[tokio::test]
async fn retries_of_cut_streams_are_bounded() {
    let mock = MockLlm::start(vec![cut_text("Half"), cut_text("Half"), text("never")]).await;
    let (code, _, err) = once(&mock, &[("AGENT_RETRIES", "1")]).await;
    assert_eq!(code, 4, "{err}");
    assert_eq!(mock.requests().await.len(), 2);
    assert!(err.contains("cut off") && err.contains("after 2 attempts"), "{err}");
}

#[tokio::test]
async fn json_that_is_not_a_completion_says_what_it_got() {
    let listing = r#"{"object":"list","data":[{"id":"some-model"}]}"#;
    let mock = MockLlm::start(vec![status(200, listing)]).await;
    let ws = Workspace::new();
    let mut cmd = ws.agent(&mock);
    cmd.args(["-v", "--once", "hi"]);
    let (code, _, err) = run(cmd).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("not a chat completion (no `choices`; it sent an object with `data`, `object`)"),
        "{err}"
    );
    assert!(!err.contains("empty response"), "{err}");
    assert!(err.contains("some-model"), "-v shows the raw snippet: {err}");

    let mock = MockLlm::start(vec![raw_sse(sse(&[json!({"status":"ok"})], true))]).await;
    let (code, _, err) = once(&mock, &[]).await;
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("none of its 1 event(s) has `choices`"), "{err}");
}

#[tokio::test]
async fn an_https_endpoint_that_refuses_is_an_llm_error_not_a_crash() {
    // TLS is set up (rustls with the ring provider) before the connection fails: exit 4, a reason.
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_BASE_URL", "https://127.0.0.1:9/v1")
        .env("AGENT_API_KEY", "sk-test-key-0123456789")
        .args(["--once", "hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 4, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
