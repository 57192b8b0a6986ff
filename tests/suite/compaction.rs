//! Compaction and the context through the real binary: `/compact` and automatic compaction keep
//! the active skill's instructions, a failed compaction loses no turn, and listings say what each
//! skill costs the catalog.

use std::sync::Arc;

use crate::common::*;
use serde_json::{Value, json};

use crate::common::pty::type_line;
use crate::common::sessions::{WEATHER, once, pty_chat, records, users};

#[tokio::test]
async fn automatic_compaction_keeps_the_active_skill_and_the_file_keeps_everything() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny\n"));
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "weather"})),
        text("Sunny in Tokyo."),
        text("SUMMARY: they asked about Tokyo weather."),
        text("Rain in Oslo."),
    ])
    .await;
    assert_eq!(once(&ws, &mock, "weather in Tokyo", &[]).await.0, 0);
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_COMPACT_AT", "50")
        .args(["-c", "--once", "and Oslo?", "--approve", "yes"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("replaced by a summary"), "{err}");
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 4);
    assert!(
        all_text(&requests[2]).contains("Sunny in Tokyo."),
        "the summary request holds the history"
    );
    let after = all_text(&requests[3]);
    assert!(after.contains("SUMMARY: they asked about Tokyo weather."));
    assert!(after.contains("WEATHER-BODY"), "the active skill's body is sent again");
    assert!(!after.contains("Sunny in Tokyo."), "the older turns left the request");
    let stored = records(&ws.session_files()[0]);
    assert!(stored.iter().any(|r| r["content"] == "Sunny in Tokyo."));
    assert!(stored.iter().any(|r| r["type"] == "compaction" && r["auto"] == true));
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_in_the_chat_then_a_question_holds_the_summary_and_the_skill() {
    let ws = Arc::new(Workspace::new());
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny\n"));
    let mock = Arc::new(MockLlm::start(vec![text("Hello."), text("SUMMARY-OF-CHAT"), text("After compaction.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    tokio::task::spawn_blocking(move || {
        let mut p = pty_chat(&w, &m, &[]);
        for (line, shows) in [
            ("/skill weather hi there", "Hello."),
            ("/compact keep the city", "compacted"),
            ("what now?", "After compaction."),
            ("/usage", "the next request holds ~"),
        ] {
            type_line(&mut p, line);
            p.exp_string(shows).unwrap();
        }
        type_line(&mut p, "/exit");
        p.exp_eof().unwrap();
    })
    .await
    .unwrap();
    let requests = mock.chat_requests().await;
    assert!(
        all_text(&requests[1]).contains("keep the city"),
        "the focus is asked for"
    );
    let last = all_text(&requests[2]);
    assert!(last.contains("SUMMARY-OF-CHAT"));
    assert!(last.contains("WEATHER-BODY"));
    assert!(!last.contains("hi there"), "the compacted turn is not resent");
}

#[test]
fn skills_list_and_show_say_what_each_skill_costs_the_catalog() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, None);
    let long = "x".repeat(300);
    ws.skill(
        "big",
        &format!("---\nname: big\ndescription: {long}\n---\nbody\n"),
        None,
    );
    let mut list = ws.bare_agent();
    list.args(["--skills-dir"])
        .arg(ws.skills())
        .args(["skills", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&list.output().unwrap().stdout).unwrap();
    let cost = |name: &str| {
        listed["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["catalog_bytes"]
            .as_u64()
            .unwrap()
    };
    assert!(cost("big") > 300 && cost("weather") < 100, "{listed}");
    let mut show = ws.bare_agent();
    show.args(["--skills-dir"])
        .arg(ws.skills())
        .args(["skills", "show", "big"]);
    let shown = String::from_utf8_lossy(&show.output().unwrap().stdout).into_owned();
    assert!(
        shown.contains(&format!("catalog:     {} B in every request", cost("big"))),
        "{shown}"
    );
}

#[tokio::test]
async fn a_failed_compaction_is_a_warning_never_a_lost_turn() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![
        text("Sunny in Tokyo."),
        status(500, r#"{"error":{"message":"summary failed"}}"#),
        text("Rain in Oslo."),
    ])
    .await;
    assert_eq!(once(&ws, &mock, "weather in Tokyo", &[]).await.0, 0);
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_COMPACT_AT", "10").args(["-c", "--once", "and Oslo?"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Rain in Oslo."));
    assert!(
        err.contains("could not be compacted") && err.contains("summary failed"),
        "{err}"
    );
    let requests = mock.requests().await;
    assert_eq!(
        users(&requests[2]),
        ["weather in Tokyo", "and Oslo?"],
        "the history stayed as it was"
    );
}

#[tokio::test]
async fn the_window_from_the_servers_model_list_sets_when_history_is_compacted() {
    let ws = Workspace::new();
    let long = "word ".repeat(2400);
    let mock = MockLlm::start(vec![text(&long), text("SHORT SUMMARY"), text("Fits now.")]).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/v1/models"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(
            json!({"object":"list","data":[{"id":"gpt-4.1-mini","object":"model","context_length":3000}]}),
        ))
        .mount(&mock.server)
        .await;
    assert_eq!(once(&ws, &mock, "tell me a lot", &[]).await.0, 0);
    let (code, out, err) = once(&ws, &mock, "and now?", &["-c"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Fits now."));
    // 80 % of the server's 3000 tokens is 2400; ~12 KB of history is past it.
    assert!(err.contains("of 2400 tokens (AGENT_COMPACT_AT)"), "{err}");
    let requests = mock.requests().await;
    let last = requests.iter().rev().find(|r| r["messages"].is_array()).unwrap();
    assert!(all_text(last).contains("SHORT SUMMARY") && !all_text(last).contains(&long));
}
