//! Hooks in a skill's frontmatter (docs/hooks.md#hooks-in-a-skill), through the real binary: a
//! skill's `PreToolUse` guard blocks a command only while that skill is active (not before, not
//! under another skill, and inside its own `context: fork`); a project skill the folder's trust
//! does not cover gets no hooks (a canary); a hook the approval policy denies is a failure said
//! as one, and blocks when it fails closed; a skill's `Stop` hook runs only while it is active and
//! `once: true` runs once; `agent hooks list` names the skill; malformed `hooks` is a `skills
//! check` finding.

use crate::common::*;
use serde_json::{Value, json};

/// A guard that refuses any `Bash` command naming `forbidden-name`, written inline as a skill
/// author would (stdin is the event's JSON).
const GUARDED: &str = "---\nname: guarded\ndescription: Works on the project with a guard on commands.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"if grep -q forbidden-name; then echo 'guarded forbids forbidden-name' >&2; exit 2; fi\"\n---\nRun the commands asked for.\n";
const PLAIN: &str =
    "---\nname: plain\ndescription: Works on the project without any hook.\n---\nRun the commands asked for.\n";

fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn run(command: &str) -> Reply {
    tool("run_command", json!({ "command": command }))
}

#[tokio::test]
async fn a_skills_guard_blocks_only_while_that_skill_is_active() {
    let ws = Workspace::new();
    ws.skill("guarded", GUARDED, None);
    ws.skill("plain", PLAIN, None);
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "plain"})),
        run("touch forbidden-name-1"),
        tool("activate_skill", json!({"name": "guarded"})),
        run("touch forbidden-name-2"),
        run("touch allowed-2"),
        tool("activate_skill", json!({"name": "plain"})),
        run("touch forbidden-name-3"),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--json", "--once", "touch things"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "one command was denied: {err}");
    let work = ws.work();
    assert!(
        work.join("forbidden-name-1").exists(),
        "blocked before the skill was active"
    );
    assert!(
        !work.join("forbidden-name-2").exists(),
        "the active skill's guard did not hold"
    );
    assert!(
        work.join("allowed-2").exists(),
        "the guard blocked what it lets through"
    );
    assert!(work.join("forbidden-name-3").exists(), "blocked under another skill");
    let requests = mock.chat_requests().await;
    let blocked = last_tool_result(&requests[4]);
    assert!(
        blocked.starts_with("denied:") && blocked.contains("guarded forbids forbidden-name"),
        "{blocked}"
    );
    let denied: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "command_denied")
        .collect();
    assert_eq!(denied.len(), 1, "{out}");
    assert!(
        denied[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("a PreToolUse hook (skill guarded) blocked this call"),
        "{out}"
    );
    // The hook ran as the skill's own command, seen as such in the events.
    let hook_runs: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "command_started" && e["command"].as_str().is_some_and(|c| c.contains("grep -q")))
        .collect();
    assert_eq!(hook_runs.len(), 2, "{out}");
    assert!(hook_runs.iter().all(|e| e["skill"] == "guarded"), "{out}");
    // `agent hooks list` shows it under the skill.
    let listed = ws
        .bare_agent()
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["hooks", "list", "--json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&listed.stdout).unwrap();
    crate::common::events_doc::EventsDoc::read()
        .validate_document("hooks list", &list)
        .unwrap();
    let hook = list["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["source"] == "skill guarded")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(
        (hook["event"].as_str(), hook["matcher"].as_str()),
        (Some("PreToolUse"), Some("Bash"))
    );
    assert_eq!(hook["active"], true);
}

#[tokio::test]
async fn a_forked_skills_guard_holds_inside_its_fork() {
    let ws = Workspace::new();
    let forked = GUARDED.replacen("hooks:\n", "context: fork\nhooks:\n", 1);
    ws.skill("guarded", &forked, None);
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "guarded", "task": "touch"})),
        run("touch forbidden-name-f"),
        text("fork answer"),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--once", "touch things"]);
    let (_, _, err) = run_outcome(cmd).await;
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 4, "{err}");
    assert!(
        !ws.work().join("forbidden-name-f").exists(),
        "the fork's guard did not hold"
    );
    assert!(last_tool_result(&requests[2]).contains("guarded forbids forbidden-name"));
}

#[tokio::test]
async fn an_untrusted_project_skills_hooks_do_nothing() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("HOOK-CANARY");
    let dir = project_skill_running(&ws, "local", "#!/bin/sh\necho ran\n");
    let hook = json!({"hooks": [{"type": "command", "command": format!("touch {}", canary.display())}]});
    let hooked = json!({"PreToolUse": [hook.clone()], "PostToolUse": [hook.clone()], "Stop": [hook]});
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: local\ndescription: A project skill named local.\nhooks: {hooked}\n---\nRun ./run.sh\n"),
    )
    .unwrap();
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "local"})),
        run("./run.sh"),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--once", "run local"]);
    let (_, _, err) = run_outcome(cmd).await;
    assert_eq!(mock.chat_requests().await.len(), 3, "{err}");
    assert!(!canary.exists(), "an untrusted project skill's hook ran");
    assert!(err.contains("the skill local's hooks do not run"), "{err}");
}

/// A skill whose hook runs before every `Read`; `extra` joins the hook's fields.
fn reading_skill(ws: &Workspace, extra: &str) {
    let skill = format!(
        "---\nname: reader\ndescription: Reads the project's notes file.\nhooks:\n  PreToolUse:\n    - matcher: Read\n      hooks:\n        - type: command\n          command: echo checked\n{extra}---\nRead notes.txt.\n"
    );
    ws.skill("reader", &skill, None);
    std::fs::write(ws.work().join("notes.txt"), "note-body").unwrap();
}

async fn read_under_approve_no(ws: &Workspace) -> (String, String, String) {
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "reader"})),
        tool("Read", json!({"file_path": "notes.txt"})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "no", "--sandbox", "off", "--json", "--once", "read notes"]);
    let (_, out, err) = run_outcome(cmd).await;
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 3, "{err}");
    (last_tool_result(&requests[2]), out, err)
}

#[tokio::test]
async fn a_skill_hook_the_policy_denies_is_a_failure_said_as_one() {
    let ws = Workspace::new();
    reading_skill(&ws, "");
    let (result, out, _) = read_under_approve_no(&ws).await;
    assert!(
        result.contains("note-body"),
        "a failed hook blocked by default: {result}"
    );
    let failed: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "hook_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{out}");
    assert_eq!(failed[0]["source"], "skill reader");
    assert_eq!(failed[0]["command"], "echo checked");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("not run as a command of the skill reader"),
        "{out}"
    );
    assert_eq!(failed[0]["blocked"], false);
    // Set to fail closed, the denied hook blocks the call.
    reading_skill(&ws, "          onFailure: block\n");
    let (result, out, _) = read_under_approve_no(&ws).await;
    assert!(
        result.starts_with("denied:") && !result.contains("note-body"),
        "{result}"
    );
    assert!(
        events(&out)
            .iter()
            .any(|e| e["type"] == "hook_failed" && e["blocked"] == true),
        "{out}"
    );
}

#[tokio::test]
async fn malformed_hooks_frontmatter_is_a_skills_check_finding() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "broken",
        "---\nname: broken\ndescription: Has hooks written the wrong way.\nhooks:\n  PreToolUse: guard.sh\n  SessionStart:\n    - hooks:\n        - command: hello.sh\n---\nBody.\n",
        None,
    );
    let mut cmd = ws.bare_agent();
    cmd.arg("--json").args(["skills", "check"]).arg(&dir);
    let (_, out, err) = run_outcome(cmd).await;
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let text = report.to_string();
    assert!(text.contains("malformed-hooks"), "{report}");
    assert!(text.contains("`hooks.PreToolUse` is a string"), "{report}");
    assert!(text.contains("`hooks.SessionStart` is not run for a skill"), "{report}");
    let hooks = report["skills"][0]["portability"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "hooks")
        .cloned()
        .unwrap_or_default();
    assert_eq!(hooks["agent"], "partly", "{report}");
}

#[tokio::test]
async fn a_skills_stop_hook_sends_the_model_back_while_it_is_active_and_once_runs_once() {
    let ws = Workspace::new();
    ws.skill(
        "checker",
        "---\nname: checker\ndescription: Checks the work before the answer stands.\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: \"echo 'Run the checks before you stop' >&2; exit 2\"\n          once: true\n---\nCheck.\n",
        None,
    );
    // Not active: its Stop hook does not run.
    let mock = MockLlm::start(vec![text("plain answer")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--once", "hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(mock.chat_requests().await.len(), 1);
    // Active: it sends the model back once; `once: true` lets the next answer stand.
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "checker"})),
        text("finished"),
        text("checked, finished"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--json", "--once", "do it"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("checked, finished"), "{out}");
    let blocked: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "hook_blocked")
        .collect();
    assert_eq!(blocked.len(), 1, "{out}");
    assert_eq!(
        (blocked[0]["event"].as_str(), blocked[0]["source"].as_str()),
        (Some("Stop"), Some("skill checker"))
    );
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 3, "{err}");
    assert!(all_text(&requests[2]).contains("Run the checks before you stop"));
}
