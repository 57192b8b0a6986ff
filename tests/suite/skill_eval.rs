//! `agent skills eval`: routing cases through the mock model and through a cassette.

use crate::common::*;
use serde_json::{Value, json};

const CASES: &str = "threshold: 1.0\ncases:\n  - prompt: weather in Tokyo\n    expect_skill: weather\n  - prompt: what time is it in Oslo\n    expect_skill: time\n  - prompt: tell me a joke\n    expect: none\n";

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city.\n---\n",
        None,
    );
    ws.skill(
        "time",
        "---\nname: time\ndescription: Local time in a city or zone.\n---\n",
        None,
    );
    std::fs::write(ws.dir.path().join("cases.yaml"), CASES).unwrap();
    ws
}

async fn eval(ws: &Workspace, mock: &MockLlm, extra: &[&str]) -> (i32, String) {
    let mut cmd = ws.agent(mock);
    cmd.args(["skills", "eval"])
        .arg(ws.dir.path().join("cases.yaml"))
        .args(["--runs", "1"])
        .args(extra);
    let out = run_output(cmd).await;
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[tokio::test]
async fn all_cases_routed_right_pass() {
    let ws = workspace();
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "weather"})),
        tool("activate_skill", json!({"name": "time"})),
        text("Why did the chicken…"),
    ])
    .await;
    let (code, out) = eval(&ws, &mock, &[]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3/3 passed (100%)"), "{out}");
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 3, "one model call per case");
    for (req, prompt) in reqs
        .iter()
        .zip(["weather in Tokyo", "what time is it in Oslo", "tell me a joke"])
    {
        assert_eq!(contents(req, "user"), [prompt], "each case is a fresh conversation");
    }
}

#[tokio::test]
async fn misrouted_cases_fail_under_the_threshold() {
    let ws = workspace();
    let replies = || {
        vec![
            tool("activate_skill", json!({"name": "time"})),
            tool("activate_skill", json!({"name": "time"})),
            tool("activate_skill", json!({"name": "weather"})),
        ]
    };
    let mock = MockLlm::start(replies()).await;
    let (code, out) = eval(&ws, &mock, &[]).await;
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL  0/1 weather") && out.contains("→ chose time"),
        "{out}"
    );
    assert!(out.contains("1/3 passed (33%)"), "{out}");

    let mock = MockLlm::start(replies()).await;
    let (code, out) = eval(&ws, &mock, &["--threshold", "0.3", "--json"]).await;
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(report["passed"], 1);
    assert_eq!(report["cases"][2]["activated"], "weather");
    assert_eq!(report["cases"][2]["expected"], "none");
}

#[tokio::test]
async fn eval_replays_from_a_cassette_and_catches_description_changes() {
    let ws = workspace();
    let cassette = ws.dir.path().join("eval.jsonl");
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "weather"})),
        tool("activate_skill", json!({"name": "time"})),
        text("no skill"),
    ])
    .await;
    let rec = cassette.to_str().unwrap().to_string();
    let (code, out) = eval(&ws, &mock, &["--record", &rec]).await;
    assert_eq!(code, 0, "{out}");
    drop(mock);

    let replay = |ws: &Workspace| {
        let mut cmd = ws.bare_agent();
        cmd.arg("--skills-dir")
            .arg(ws.skills())
            .args(["skills", "eval"])
            .arg(ws.dir.path().join("cases.yaml"))
            .args(["--runs", "1"])
            .arg("--replay")
            .arg(&cassette);
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, out) = replay(&ws);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3/3 passed"), "{out}");

    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Tells jokes about clouds.\n---\n",
        None,
    );
    let (code, out) = replay(&ws);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("departs") && out.contains("system prompt"), "{out}");
}
