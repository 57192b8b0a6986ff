//! Tool dispatch edge cases, approvals, the child environment, timeouts and redaction,
//! through the real binary.

use crate::common::{run_output as run, *};
use serde_json::json;

const SKILL_MD: &str = "---\nname: probe\ndescription: Probe the environment.\n---\nRun ./run.sh\n";
const RUN_SH: &str = "#!/bin/sh\necho \"dir=$SKILL_DIR name=$SKILL_NAME pwd=$(pwd)\"\necho \"workdir=$AGENT_WORKDIR bytecode=$PYTHONDONTWRITEBYTECODE\"\necho \"roots=$AGENT_SKILLS_PATH\"\necho \"agent_key=${AGENT_API_KEY:-unset} openai_key=${OPENAI_API_KEY:-unset}\"\necho \"token=$MY_SERVICE_TOKEN\"\n";

fn probe_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill("probe", SKILL_MD, Some(RUN_SH));
    std::fs::write(ws.skills().join("probe/notes.txt"), "inside file").unwrap();
    ws
}

#[tokio::test]
async fn child_env_drops_agent_keys_adds_skill_vars_and_redacts_secrets() {
    let ws = probe_workspace();
    let mock = MockLlm::start(activate_run_answer("probe", "./run.sh", "ok")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("OPENAI_API_KEY", "sk-openai-should-not-leak")
        .env("MY_SERVICE_TOKEN", "tok-secret-value-42")
        .args(["--once", "probe", "--yes"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let result = last_tool_result(&mock.requests().await[2]);
    // Commands run in the user's working folder; SKILL_DIR names the skill's.
    let work = std::fs::canonicalize(ws.work()).unwrap();
    assert!(
        result.contains(&format!("name=probe pwd={}", work.display())),
        "{result}"
    );
    assert!(
        result.contains(&format!("dir={}", ws.skills().join("probe").display())),
        "{result}"
    );
    assert!(
        result.contains(&format!("workdir={} bytecode=1", ws.work().display())),
        "{result}"
    );
    assert!(result.contains(&format!("roots={}", ws.skills().display())), "{result}");
    assert!(result.contains("agent_key=unset openai_key=unset"), "{result}");
    assert!(result.contains("token=[REDACTED:MY_SERVICE_TOKEN]"), "{result}");
    for req in mock.raw_requests().await {
        let body = String::from_utf8_lossy(&req.body);
        assert!(!body.contains("tok-secret-value-42") && !body.contains("sk-openai-should-not-leak"));
    }
}

#[tokio::test]
async fn without_terminal_unapproved_commands_are_denied_with_a_hint() {
    // The classic rule, where the sandbox cannot contain a command (tests/suite/auto_contained.rs
    // has the rule with it on).
    let ws = probe_workspace();
    let canary = ws.work().join("canary");
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "probe"})),
        tool(
            "run_command",
            json!({"command": format!("touch {} && echo ran", canary.display())}),
        ),
        text("could not run it"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--sandbox", "off"]);
    let out = run(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(6),
        "answered, but a command was denied: {stderr}"
    );
    // Never `--yes` for a command the agent would not run by itself: a yes on a terminal.
    assert!(
        stderr.contains("on a terminal") && !stderr.contains("--yes") && !stderr.contains("--approve auto"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("could not run it"));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.starts_with("denied:") && result.contains("on a terminal"),
        "{result}"
    );
    assert!(result.contains("operator"), "the model is told why: {result}");
    assert!(!canary.exists());
}

#[tokio::test]
async fn a_denied_own_script_recommends_approve_auto_and_done_says_6() {
    let ws = probe_workspace();
    let mock = MockLlm::start(activate_run_answer("probe", "./run.sh", "could not run it")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--approve", "ask", "--json"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(6));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let denied = events.iter().find(|e| e["type"] == "command_denied").unwrap();
    let reason = denied["reason"].as_str().unwrap();
    assert!(
        reason.contains("--approve auto") && !reason.contains("--yes"),
        "{reason}"
    );
    let done = events.last().unwrap();
    assert_eq!(
        (done["type"].as_str(), done["exit_code"].as_i64()),
        (Some("done"), Some(6))
    );
}

#[tokio::test]
async fn auto_policy_runs_the_skills_own_script() {
    let ws = probe_workspace();
    let mock = MockLlm::start(activate_run_answer("probe", "./run.sh", "ok")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--approve", "auto"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(last_tool_result(&mock.requests().await[2]).contains("exit code: 0"));
}

#[tokio::test]
async fn approve_no_runs_nothing() {
    let ws = probe_workspace();
    let marker = ws.work().join("marker");
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "probe"})),
        tool(
            "run_command",
            json!({"command": format!("./run.sh; touch {}", marker.display())}),
        ),
        text("denied"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--approve", "no"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(6));
    assert!(!marker.exists());
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.contains("denied by policy") && result.contains("on a terminal") && !result.contains("--yes"),
        "{result}"
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let ws = probe_workspace();
    let marker = format!("agent-timeout-marker-{}", std::process::id());
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "probe"})),
        tool(
            "run_command",
            json!({"command": format!("sh -c 'sleep 300; echo {marker}' & sleep 300")}),
        ),
        text("it timed out"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--yes", "--timeout", "2"]);
    let started = std::time::Instant::now();
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed().as_secs() < 30);
    assert!(last_tool_result(&mock.requests().await[2]).contains("timed out after 2s"));
    let ps = std::process::Command::new("ps").args(["-eo", "args"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&ps.stdout).contains(&marker),
        "a process of the timed-out command survived"
    );
}

#[tokio::test]
async fn broken_tool_calls_get_correctable_errors() {
    let ws = probe_workspace();
    let mock = MockLlm::start(vec![
        tool("run_command", json!({"command": "./run.sh"})),
        tool("no_such_tool", json!({})),
        Reply::Tools(vec![("c1".into(), "activate_skill".into(), "{not json".into())]),
        tool("activate_skill", json!({"name": "nope"})),
        tool("activate_skill", json!({"name": "probe"})),
        tool("read_skill_file", json!({"skill": "probe", "path": "../../etc/passwd"})),
        tool("read_skill_file", json!({"skill": "probe", "path": "notes.txt"})),
        tool("activate_skill", json!({"name": "probe"})),
        text("recovered"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "probe", "--yes", "--max-steps", "20"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = mock.requests().await;
    let results: Vec<String> = reqs.iter().skip(1).map(last_tool_result).collect();
    assert!(results[0].contains("no skill is active"), "{}", results[0]);
    assert!(results[1].contains("no tool named"), "{}", results[1]);
    assert!(results[2].contains("not a JSON object"), "{}", results[2]);
    assert!(
        results[3].contains("no skill named \"nope\"") && results[3].contains("probe"),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("Run ./run.sh") && results[4].contains("notes.txt"),
        "{}",
        results[4]
    );
    assert!(results[5].contains("outside the skill folder"), "{}", results[5]);
    assert_eq!(results[6], "inside file");
    assert!(results[7].contains("already active"), "{}", results[7]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "recovered\n");
}

#[tokio::test]
async fn json_mode_emits_one_versioned_event_per_line() {
    let ws = probe_workspace();
    let mock = MockLlm::start(activate_run_answer("probe", "./run.sh", "all good")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("MY_SERVICE_TOKEN", "tok-secret-value-42")
        .args(["--once", "probe", "--yes", "--json", "--no-stream"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("tok-secret-value-42"));
    let events: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(events.iter().all(|e| e["v"] == 1));
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "session",
            "skill_selected",
            "command_started",
            "command_finished",
            "message_delta",
            "message",
            "done"
        ]
    );
    assert_eq!(events[3]["exit_code"], 0);
    assert_eq!(events[5]["text"], "all good");
    assert_eq!(events[6]["exit_code"], 0);
    assert_eq!(events[6]["llm_calls"], 3);
    assert_eq!(events[6]["usage"]["total_tokens"], 45);
}
