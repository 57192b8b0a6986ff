//! One conversation model, two wire formats: a chat on the Messages API whose later requests
//! read their prefix back from the prompt cache, sessions resumed across providers, a recorded
//! Claude session replayed with no network, `skills eval` on Claude.

use serde_json::{Value, json};

use crate::common::sessions::WEATHER;
use crate::common::*;

/// `agent --once MESSAGE` on `mock` as an Anthropic endpoint, with `args` (`-c` to go on).
async fn claude_once(ws: &Workspace, mock: &MockLlm, message: &str, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.claude_env())
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(args)
        .args(["--once", message, "--approve", "yes"]);
    run_outcome(cmd).await
}

/// `value` without its `cache_control` markers, anywhere.
fn unmarked(mut value: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

/// (place, message index) of every breakpoint in a request body.
fn breakpoints(body: &Value) -> Vec<(String, Option<usize>)> {
    let mut out = Vec::new();
    for place in ["tools", "system"] {
        if body[place].to_string().contains("cache_control") {
            out.push((place.to_string(), None));
        }
    }
    for (i, m) in body["messages"].as_array().unwrap().iter().enumerate() {
        if m.to_string().contains("cache_control") {
            out.push(("messages".into(), Some(i)));
        }
    }
    out
}

#[tokio::test]
async fn a_three_turn_chat_marks_an_unchanged_prefix_where_the_turn_before_wrote() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny\n"));
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})),
        say("It is sunny."),
        say("Second answer."),
        say("Third answer."),
    ])
    .await;
    for (message, args) in [
        ("weather in Tokyo", &[][..]),
        ("and tomorrow?", &["-c"][..]),
        ("thanks", &["-c"][..]),
    ] {
        let (code, _, stderr) = claude_once(&ws, &mock, message, args).await;
        assert_eq!(code, 0, "{message}: {stderr}");
    }
    let raw = mock.raw_requests().await;
    assert_eq!(raw.len(), 4);
    let bodies: Vec<&[u8]> = raw.iter().map(|r| r.body.as_slice()).collect();
    // The front of every body, up to the messages, is the same bytes: model, limits, the system
    // prompt with the catalog and its breakpoint, the tools with theirs.
    let front = |b: &[u8]| {
        let text = String::from_utf8_lossy(b).into_owned();
        text[..text.find("\"messages\":").unwrap()].to_string()
    };
    assert!(front(bodies[1]).contains("cache_control"));
    assert_eq!(
        front(bodies[1]),
        front(bodies[2]),
        "turn 2 and turn 3 send the same prefix bytes"
    );
    assert_eq!(front(bodies[2]), front(bodies[3]));
    let parsed: Vec<Value> = bodies.iter().map(|b| serde_json::from_slice(b).unwrap()).collect();
    let (second, third) = (&parsed[2], &parsed[3]);
    let before = second["messages"].as_array().unwrap();
    let after = third["messages"].as_array().unwrap();
    // Where the second turn's request ended and wrote the cache, the third marks the same
    // message, byte for byte, breakpoint included; everything before it is unchanged.
    let wrote = before.len() - 1;
    assert!(before[wrote].to_string().contains("cache_control"));
    assert_eq!(
        serde_json::to_vec(&before[wrote]).unwrap(),
        serde_json::to_vec(&after[wrote]).unwrap()
    );
    assert_eq!(unmarked(json!(before)), unmarked(json!(after[..before.len()])));
    let marks = breakpoints(third);
    assert!(marks.len() <= 4, "{marks:?}");
    assert_eq!(
        marks,
        [
            ("tools".into(), None),
            ("system".into(), None),
            ("messages".into(), Some(wrote)),
            ("messages".into(), Some(after.len() - 1)),
        ]
    );
    // The second turn's request reads what the first turn's last request wrote, the same way.
    let (first_end, second) = (&parsed[1], &parsed[2]);
    let wrote = first_end["messages"].as_array().unwrap().len() - 1;
    assert_eq!(first_end["messages"][wrote], second["messages"][wrote]);
}

#[tokio::test]
async fn a_session_goes_on_across_providers_either_way() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny in \"$1\"\n"));
    // Started on OpenAI, with a skill and a command run.
    let openai = MockLlm::start(activate_run_answer("weather", "./run.sh Oslo", "Sunny in Oslo.")).await;
    let (code, _, stderr) = crate::common::sessions::once(&ws, &openai, "weather in Oslo", &[]).await;
    assert_eq!(code, 0, "{stderr}");
    // Continued on Anthropic: the whole history, calls and results in its shape.
    let claude = MockLlm::claude(vec![say("Still sunny.")]).await;
    let (code, stdout, stderr) = claude_once(&ws, &claude, "and now?", &["-c"]).await;
    assert_eq!((code, stdout.as_str()), (0, "Still sunny.\n"), "{stderr}");
    let request = &claude.requests().await[0];
    assert_eq!(
        request["model"], CLAUDE_MODEL,
        "this provider's model, not the stored one"
    );
    assert_eq!(claude_texts(request, "user")[0], "weather in Oslo");
    let texts = claude_texts(request, "user").join("\n");
    assert!(
        texts.contains("WEATHER-BODY") && texts.contains("sunny in Oslo"),
        "{texts}"
    );
    assert_eq!(claude_texts(request, "assistant"), ["Sunny in Oslo."]);
    assert_eq!(claude_texts(request, "user").last().unwrap(), "and now?");
    // And back to OpenAI: the Claude turn reads as chat messages again.
    let openai = MockLlm::start(vec![text("Back on OpenAI.")]).await;
    let (code, _, stderr) = crate::common::sessions::once(&ws, &openai, "once more", &["-c"]).await;
    assert_eq!(code, 0, "{stderr}");
    let request = &openai.chat_requests().await[0];
    assert_eq!(request["model"], TEST_MODEL);
    let assistants = contents(request, "assistant");
    assert!(assistants.contains(&"Still sunny.".to_string()), "{assistants:?}");
    assert_eq!(contents(request, "user"), ["weather in Oslo", "and now?", "once more"]);
}

#[tokio::test]
async fn a_recorded_claude_session_replays_with_no_network_and_no_key() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny in \"$1\"\n"));
    let cassette = ws.dir.path().join("claude.jsonl");
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})).thinking("weather skill", "sig-1"),
        call("run_command", json!({"command": "./run.sh Rome"})),
        say("Sunny in Rome."),
    ])
    .await;
    let record = ["--record", cassette.to_str().unwrap()];
    let (code, recorded, stderr) = claude_once(&ws, &mock, "weather in Rome", &record).await;
    assert_eq!(code, 0, "{stderr}");
    let lines = std::fs::read_to_string(&cassette).unwrap();
    assert!(!lines.contains(TEST_KEY), "the key is not recorded");
    assert!(
        lines.contains("message_stop") && lines.contains("\"system\""),
        "{lines}"
    );
    drop(mock);
    // No base URL, no key, no provider named: the cassette says which dialect it speaks.
    let mut cmd = ws.bare_agent();
    cmd.arg("--skills-dir")
        .arg(ws.skills())
        .arg("--replay")
        .arg(&cassette)
        .args(["--once", "weather in Rome", "--approve", "yes"]);
    let (code, replayed, stderr) = run_outcome(cmd).await;
    assert_eq!((code, replayed.as_str()), (0, recorded.as_str()), "{stderr}");
    // A different request departs from the recording, and says where.
    let mut cmd = ws.bare_agent();
    cmd.arg("--skills-dir")
        .arg(ws.skills())
        .arg("--replay")
        .arg(&cassette)
        .args(["--once", "weather in Paris", "--approve", "yes"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("departs from the cassette") && stderr.contains("Paris"),
        "{stderr}"
    );
}

#[tokio::test]
async fn skills_eval_routes_on_claude() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, None);
    ws.skill(
        "time",
        "---\nname: time\ndescription: Local time in a city or zone.\n---\n",
        None,
    );
    let cases = ws.dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "threshold: 1.0\ncases:\n  - prompt: weather in Tokyo\n    expect_skill: weather\n  - prompt: time in Oslo\n    expect_skill: time\n",
    )
    .unwrap();
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})),
        call("activate_skill", json!({"name": "time"})),
    ])
    .await;
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.claude_env())
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "eval"])
        .arg(&cases)
        .args(["--runs", "1"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("2/2 passed"), "{stdout}");
    assert_eq!(mock.requests().await.len(), 2);
}

/// Every text a Messages API request carries, as one string.
fn request_text(request: &Value) -> String {
    let mut all = request["system"].to_string();
    all.push_str(&request["messages"].to_string());
    all
}

#[tokio::test]
async fn compaction_and_redaction_work_the_same_on_claude() {
    let ws = Workspace::new();
    ws.skill("weather", WEATHER, Some("#!/bin/sh\necho \"sunny, key $DEMO_TOKEN\"\n"));
    let mock = MockLlm::claude(vec![
        call("activate_skill", json!({"name": "weather"})),
        call("run_command", json!({"command": "./run.sh Tokyo"})),
        say("Sunny in Tokyo."),
        say("SUMMARY: they asked about Tokyo weather."),
        say("Rain in Oslo."),
    ])
    .await;
    let secret = "tok-demo-secret-98765";
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.claude_env())
        .env("DEMO_TOKEN", secret)
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["--once", "weather in Tokyo", "--approve", "yes"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.claude_env())
        .env("DEMO_TOKEN", secret)
        .env("AGENT_COMPACT_AT", "50")
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["-c", "--once", "and Oslo?", "--approve", "yes"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("replaced by a summary"), "{stderr}");
    let requests = mock.requests().await;
    assert_eq!(requests.len(), 5);
    let result = request_text(&requests[2]);
    assert!(result.contains("sunny, key [REDACTED:DEMO_TOKEN]"), "{result}");
    assert!(
        requests.iter().all(|r| !r.to_string().contains(secret)),
        "the secret never leaves"
    );
    assert!(
        request_text(&requests[3]).contains("Sunny in Tokyo."),
        "the summary request holds the history"
    );
    let after = request_text(&requests[4]);
    assert!(
        after.contains("SUMMARY: they asked about Tokyo weather.") && after.contains("WEATHER-BODY"),
        "{after}"
    );
    assert!(!after.contains("Sunny in Tokyo."), "the older turns left the request");
}
