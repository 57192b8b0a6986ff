//! Claude Code's skill features through the real binary (docs/skills.md#claude-code-features):
//! `` !`command` `` dynamic context runs on activation as the skill's command (its output in the
//! body the model gets; a fenced example never runs; a denied or failing one is marked), and
//! `paths:` keeps a skill out of the catalog of a folder without matching files.

use crate::common::*;
use serde_json::{Value, json};

/// A skill whose body holds a marker to run, one that fails, a fenced example that would delete
/// the canary, and the syntax explained inside a larger code span.
const DYNAMIC: &str = "---\nname: status\ndescription: Reports the project status with live context.\n---\n\
Greeting: !`echo hello-dyn`\n\
Broken: !`sh -c 'echo oops-dyn >&2; exit 3'`\n\
Example, not to run:\n\
```sh\n!`rm canary.txt`\n```\n\
Write `` !`rm canary.txt` `` in a skill to inject output.\n";

fn dynamic_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill("status", DYNAMIC, None);
    std::fs::write(ws.work().join("canary.txt"), "still here").unwrap();
    ws
}

/// The JSON events of a `--json` run.
fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[tokio::test]
async fn dynamic_context_fills_the_body_and_never_runs_fenced_examples() {
    let ws = dynamic_workspace();
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "status"})),
        text("All good."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--json", "--once", "status please"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    let body = last_tool_result(&requests[1]);
    assert!(body.contains("Greeting: hello-dyn\n"), "{body}");
    assert!(!body.contains("!`echo hello-dyn`"), "{body}");
    assert!(
        body.contains("Broken: [dynamic context `sh -c 'echo oops-dyn >&2; exit 3'` failed (exit code 3): oops-dyn]"),
        "{body}"
    );
    // The fenced example and the explained syntax stay as written, and nothing deleted the canary.
    assert!(body.contains("```sh\n!`rm canary.txt`\n```"), "{body}");
    assert!(body.contains("Write `` !`rm canary.txt` `` in a skill"), "{body}");
    assert!(ws.work().join("canary.txt").exists(), "a fenced example ran");
    // The runs are events like any command of the skill, after the skill was selected.
    let events = events(&out);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let selected = kinds.iter().position(|k| *k == "skill_selected").unwrap();
    let started: Vec<&Value> = events.iter().filter(|e| e["type"] == "command_started").collect();
    assert_eq!(started.len(), 2, "{out}");
    assert_eq!(started[0]["command"], "echo hello-dyn");
    assert_eq!(started[0]["skill"], "status");
    assert!(kinds.iter().position(|k| *k == "command_started").unwrap() > selected);
    assert_eq!(kinds.iter().filter(|k| **k == "skill_selected").count(), 1, "{out}");
}

#[tokio::test]
async fn a_dynamic_command_the_policy_denies_is_marked_in_the_body() {
    let ws = dynamic_workspace();
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "status"})),
        text("Could not."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args([
        "--approve",
        "no",
        "--sandbox",
        "off",
        "--json",
        "--once",
        "status please",
    ]);
    let (_, out, err) = run_outcome(cmd).await;
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 2, "{err}");
    let body = last_tool_result(&requests[1]);
    assert!(
        body.contains("Greeting: [dynamic context `echo hello-dyn` not run: "),
        "{body}"
    );
    assert!(!body.contains("hello-dyn\n"), "{body}");
    let denied: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "command_denied")
        .collect();
    assert_eq!(denied.len(), 2, "{out}");
    assert_eq!(denied[0]["command"], "echo hello-dyn");
    assert!(ws.work().join("canary.txt").exists());
}

#[tokio::test]
async fn dynamic_context_runs_for_a_skill_invoked_by_hand() {
    let ws = dynamic_workspace();
    let mock = MockLlm::start(vec![text("Done.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--skill", "status"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    let body = contents(&requests[0], "tool").join("\n");
    assert!(body.contains("Greeting: hello-dyn\n"), "{body}");
    assert!(ws.work().join("canary.txt").exists());
}

const RUSTY: &str = "---\nname: rusty\ndescription: Explains Rust compiler errors in this crate.\npaths:\n  - \"**/*.rs\"\n  - Cargo.toml\n---\nRead the error.\n";
const ALWAYS: &str = "---\nname: always\ndescription: Answers general questions about anything.\n---\nAnswer.\n";

/// The system message of the first request of a run in `dir` with the `rusty` and `always` skills.
async fn catalog_in(ws: &Workspace, dir: &std::path::Path) -> String {
    let mock = MockLlm::start(vec![text("Hi.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.current_dir(dir).args(["--once", "hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    contents(&mock.chat_requests().await[0], "system").join("\n")
}

#[tokio::test]
async fn paths_hide_a_skill_where_no_file_matches_and_show_it_where_one_does() {
    let ws = Workspace::new();
    ws.skill("rusty", RUSTY, None);
    ws.skill("always", ALWAYS, None);
    let plain = ws.work().join("notes");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("todo.txt"), "x").unwrap();
    let system = catalog_in(&ws, &plain).await;
    assert!(!system.contains("rusty") && system.contains("always"), "{system}");
    let crate_dir = ws.work().join("crate");
    std::fs::create_dir_all(crate_dir.join("src/deep")).unwrap();
    std::fs::write(crate_dir.join("src/deep/lib.rs"), "").unwrap();
    let system = catalog_in(&ws, &crate_dir).await;
    assert!(system.contains("rusty") && system.contains("always"), "{system}");
    // `skills list` still lists it where it is hidden, and says why.
    let mut cmd = ws.bare_agent();
    cmd.current_dir(&plain)
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["--json", "skills", "list"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let listing: Value = serde_json::from_str(out.lines().next().unwrap_or_default()).unwrap();
    let rusty = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "rusty")
        .cloned();
    assert_eq!(
        rusty.as_ref().map(|s| s["hidden_by_paths"].clone()),
        Some(json!(true)),
        "{listing}"
    );
    let always = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "always")
        .cloned();
    assert!(always.is_some_and(|s| s.get("hidden_by_paths").is_none()), "{listing}");
}

const FORKED: &str = "---\nname: tally\ndescription: Counts the files of the project in a separate context.\ncontext: fork\nmodel: fork-model\n---\nRun `ls` and count: FORK-BODY-MARK.\n";

#[tokio::test]
async fn a_forked_skill_answers_without_its_inner_messages_and_is_counted() {
    let ws = Workspace::new();
    ws.skill("tally", FORKED, None);
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "tally", "task": "count the files"})),
        tool("run_command", json!({"command": "echo inner-out"})),
        text("fork-final-answer: 3 files"),
        text("Main answer: 3 files."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--json", "--once", "how many files?"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 4, "{err}");
    // The main conversation offers `task` and asks the session's model; the fork asks its own.
    let props = &requests[0]["tools"][0]["function"]["parameters"]["properties"];
    assert!(props.get("task").is_some(), "{props}");
    let models: Vec<&str> = requests.iter().filter_map(|r| r["model"].as_str()).collect();
    assert_eq!(models, [TEST_MODEL, "fork-model", "fork-model", TEST_MODEL]);
    // The fork holds the skill's body and the task, and sees its own command's output.
    let fork_first = all_text(&requests[1]);
    assert!(
        fork_first.contains("FORK-BODY-MARK") && fork_first.contains("count the files"),
        "{fork_first}"
    );
    assert!(last_tool_result(&requests[2]).contains("inner-out"));
    // The main conversation gets the answer alone: no inner command, output or instructions.
    let main_next = all_text(&requests[3]);
    assert!(
        last_tool_result(&requests[3]).contains("fork-final-answer: 3 files"),
        "{main_next}"
    );
    for inner in ["inner-out", "FORK-BODY-MARK", "echo inner"] {
        assert!(!main_next.contains(inner), "{inner} leaked: {main_next}");
    }
    let events: Vec<Value> = out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let started = kinds.iter().position(|k| *k == "fork_started").unwrap();
    let command = kinds.iter().position(|k| *k == "command_started").unwrap();
    let finished = kinds.iter().position(|k| *k == "fork_finished").unwrap();
    assert!(started < command && command < finished, "{kinds:?}");
    assert_eq!(events[started]["model"], "fork-model");
    // Usage counts the fork's requests with the main ones.
    let done = events.iter().find(|e| e["type"] == "done").unwrap();
    assert_eq!(done["llm_calls"], 4, "{done}");
    let session = ws.session_files();
    let records = crate::common::sessions::records(&session[0]);
    let usage = records.iter().filter(|r| r["type"] == "usage").count();
    assert_eq!(usage, 4, "{records:?}");
    let stored = serde_json::to_string(&records).unwrap();
    assert!(
        !stored.contains("inner-out"),
        "the fork's messages are not stored as the main conversation's"
    );
}

#[tokio::test]
async fn a_fork_whose_model_the_endpoint_refuses_runs_with_the_session_model_said_once() {
    let ws = Workspace::new();
    ws.skill("tally", FORKED, None);
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "tally"})),
        status(404, r#"{"error":{"message":"model fork-model does not exist"}}"#),
        text("fork-final-answer"),
        text("Main answer."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--once", "how many files?"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Main answer."), "{out}");
    let requests = mock.chat_requests().await;
    let models: Vec<&str> = requests.iter().filter_map(|r| r["model"].as_str()).collect();
    assert_eq!(models, [TEST_MODEL, "fork-model", TEST_MODEL, TEST_MODEL]);
    assert_eq!(err.matches("asks for the model fork-model").count(), 1, "{err}");
    // Without a task the fork is given the user's request.
    assert!(all_text(&requests[2]).contains("how many files?"));
}

#[tokio::test]
async fn skills_check_says_who_honours_each_field_a_skill_uses() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "tally",
        "---\nname: tally\ndescription: Counts the files of the project in a separate context.\ncontext: fork\neffort: high\n---\nFiles: !`ls | wc -l`\n",
        None,
    );
    let mut cmd = ws.bare_agent();
    cmd.arg("--json").args(["skills", "check"]).arg(&dir);
    let (_, out, err) = run_outcome(cmd).await;
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let fields = &report["skills"][0]["portability"];
    let names: Vec<&str> = fields
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["field"].as_str())
        .collect();
    assert_eq!(names, ["context", "effort", "!`command`"], "{report}");
    assert_eq!(fields[0]["agent"], "honoured");
    assert_eq!(fields[0]["claude_code"], "honoured");
    assert_eq!(fields[1]["agent"], "ignored");
    assert_eq!(fields[2]["codex"], "ignored");
    // The terminal report says the same in words, with the table's date.
    let mut cmd = ws.bare_agent();
    cmd.args(["skills", "check"]).arg(&dir);
    let (_, out, _) = run_outcome(cmd).await;
    assert!(
        out.contains(
            "field context: agent honoured (`fork` runs the skill as a sub-conversation); Claude Code honoured"
        ),
        "{out}"
    );
    assert!(out.contains("as their documentation said on 20"), "{out}");
}

#[tokio::test]
async fn a_forked_skill_invoked_by_hand_runs_on_its_own_with_the_arguments_as_its_task() {
    let ws = Workspace::new();
    ws.skill("tally", FORKED, None);
    let mock = MockLlm::start(vec![text("fork-answer-by-hand"), text("Main: 3 files.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--sandbox", "off", "--skill", "tally", "count the rust files"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Main: 3 files."), "{out}");
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 2, "{err}");
    assert_eq!(requests[0]["model"], "fork-model");
    let fork = all_text(&requests[0]);
    assert!(
        fork.contains("count the rust files") && fork.contains("FORK-BODY-MARK"),
        "{fork}"
    );
    let main = all_text(&requests[1]);
    assert_eq!(requests[1]["model"], TEST_MODEL);
    assert!(last_tool_result(&requests[1]).contains("fork-answer-by-hand"), "{main}");
    assert!(!main.contains("FORK-BODY-MARK"), "{main}");
    assert!(
        contents(&requests[1], "user")
            .iter()
            .any(|u| u.contains("ran on its own")),
        "{main}"
    );
}
