//! `agent acp` driven by a real ACP client: the protocol's official TypeScript SDK
//! (`@agentclientprotocol/sdk`, which `.ci/run` installs into `$AGENT_TEST_ACP_DIR`), scripted as
//! an editor by `tests/fixtures/acp/editor.mjs`, against the real binary and a scripted model:
//! a skill's command with its tool calls, permission answered reject and allow, a cancel
//! mid-command, a session loaded after a restart, the editor's MCP server, a malformed frame, and
//! an editor that goes away.

use std::path::PathBuf;

use crate::common::*;
use serde_json::{Value, json};

/// Where `.ci/run` installs the SDK: `AGENT_TEST_ACP_DIR`, else `~/.cache/agent-ci/acp`.
fn sdk_dir() -> PathBuf {
    match std::env::var_os("AGENT_TEST_ACP_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/agent-ci/acp"),
    }
}

/// Whether node and the SDK are here; when not, the test is reported skipped (a failure under
/// `AGENT_TEST_NO_SKIP=1`, as `.ci/run` sets).
fn client_available() -> bool {
    let sdk = sdk_dir().join("node_modules/@agentclientprotocol/sdk/package.json");
    let reason = if !on_path("node") {
        "node is not on PATH (.ci/run installs it)".to_string()
    } else if !sdk.is_file() {
        format!(
            "the ACP SDK is not installed at {} (.ci/run installs it)",
            sdk.display()
        )
    } else {
        return true;
    };
    kernel::skipped(&reason);
    false
}

/// A skill whose `run.sh` prints a forecast.
fn weather(ws: &Workspace) {
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Weather forecasts for a city.\n---\nRun ./run.sh CITY and report what it prints.\n",
        Some("#!/bin/sh\necho \"sunny, 21 C in $1\"\n"),
    );
}

/// Play `steps` as an editor against `agent acp` in `ws`, the model `mock`; `permissions` answer
/// the permission requests in order. Returns the editor's transcript.
async fn editor(ws: &Workspace, mock: &MockLlm, permissions: &[&str], steps: Value) -> Value {
    editor_with(ws, mock, &[], permissions, steps).await
}

/// [`editor`] with the editor holding `buffers` (path to unsaved text), which it reads files from.
async fn editor_holding(ws: &Workspace, mock: &MockLlm, buffers: Value, steps: Value) -> Value {
    scenario_run(ws, mock, &[], &[], steps, buffers).await
}

/// [`editor`] with `flags` before `acp` on the agent's command line.
async fn editor_with(ws: &Workspace, mock: &MockLlm, flags: &[&str], permissions: &[&str], steps: Value) -> Value {
    scenario_run(ws, mock, flags, permissions, steps, Value::Null).await
}

/// The editor `tests/fixtures/acp/editor.mjs` playing `steps`, with the agent given `flags`
/// (those after an `"acp"` among them go after the subcommand), answering permissions with `permissions` and holding `buffers` (null: none).
async fn scenario_run(
    ws: &Workspace,
    mock: &MockLlm,
    flags: &[&str],
    permissions: &[&str],
    steps: Value,
    buffers: Value,
) -> Value {
    // Flags of the run before `acp`; the ones `acp` takes itself after it, as an editor's
    // `"args": ["acp", "--approve", "no"]` gives them.
    let (before, after) = match flags.iter().position(|f| *f == "acp") {
        Some(at) => (&flags[..at], &flags[at + 1..]),
        None => (flags, &[][..]),
    };
    let mut args: Vec<Value> = before.iter().map(|f| json!(f)).collect();
    args.extend([json!("acp"), json!("--skills-dir"), json!(ws.skills())]);
    args.extend(after.iter().map(|f| json!(f)));
    // The editor starts the agent elsewhere (in HOME): the session's folder is the one it names.
    let scenario = json!({
        "cwd": ws.work(),
        "agentCwd": ws.home(),
        "args": args,
        "permissions": permissions,
        "steps": steps,
        "buffers": buffers,
    });
    let mut cmd = ws.clean_command("node");
    cmd.arg(repo_path("tests/fixtures/acp/editor.mjs"))
        .arg(scenario.to_string())
        .envs(mock.env())
        .env("AGENT_MODEL", TEST_MODEL)
        .env("AGENT_BUNDLED_SKILLS", "0")
        .env("ACP_SDK_DIR", sdk_dir())
        .env("ACP_AGENT", env!("CARGO_BIN_EXE_agent"));
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the editor failed: {stdout}\n{stderr}");
    let transcript: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not a transcript: {e}: {stdout}\n{stderr}"));
    // The editor went away at the end of every scenario: the agent ended with 0.
    assert_eq!(transcript["exit"]["code"], 0, "{transcript:#}\n{stderr}");
    transcript
}

/// The response of the `n`th step named `op`.
fn response<'a>(t: &'a Value, op: &str, n: usize) -> &'a Value {
    t["responses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["op"] == op)
        .nth(n)
        .unwrap_or_else(|| panic!("no response {n} to {op}: {t:#}"))
}

/// The updates of the transcript (what `session/update` carried), in order.
fn updates(t: &Value) -> Vec<&Value> {
    t["updates"].as_array().unwrap().iter().map(|u| &u["update"]).collect()
}

/// The text of every chunk of `kind` (`agent_message_chunk`, `user_message_chunk`), joined.
fn chunks(t: &Value, kind: &str) -> String {
    updates(t)
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .map(|u| u["content"]["text"].as_str().unwrap_or_default())
        .collect()
}

/// Every update of tool call `id`, first (`tool_call`) to last.
fn call_updates<'a>(t: &'a Value, id: &Value) -> Vec<&'a Value> {
    updates(t).into_iter().filter(|u| &u["toolCallId"] == id).collect()
}

/// A field with a default the protocol leaves out: `kind` (`other`), `status` (`pending`).
fn or_default<'a>(update: &'a Value, field: &str) -> &'a str {
    update[field].as_str().unwrap_or(match field {
        "kind" => "other",
        _ => "pending",
    })
}

/// The first tool call (announced with `tool_call`) of `kind`.
fn first_call<'a>(t: &'a Value, kind: &str) -> &'a Value {
    updates(t)
        .into_iter()
        .find(|u| u["sessionUpdate"] == "tool_call" && or_default(u, "kind") == kind)
        .unwrap_or_else(|| panic!("no {kind} tool call: {t:#}"))
}

/// The status a tool call ended with, and the text of its last content.
fn ended(t: &Value, id: &Value) -> (String, String) {
    let all = call_updates(t, id);
    let status = all.iter().rev().find_map(|u| u["status"].as_str()).unwrap_or_default();
    let content = all
        .iter()
        .rev()
        .find_map(|u| u["content"].as_array().filter(|c| !c.is_empty()))
        .map(|c| {
            c.iter()
                .map(|c| c["content"]["text"].as_str().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    (status.to_string(), content)
}

#[tokio::test]
async fn an_editor_runs_a_skill_command_asked_in_the_editor_and_sees_each_tool_call() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let mock = MockLlm::start(activate_run_answer(
        "weather",
        "./run.sh Tokyo",
        "It is sunny in Tokyo.",
    ))
    .await;
    let t = editor(
        &ws,
        &mock,
        &["allow_once"],
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "weather in Tokyo?"}, {"op": "close"}]),
    )
    .await;
    let init = &response(&t, "initialize", 0)["result"];
    assert_eq!(init["agentCapabilities"]["loadSession"], true, "{init}");
    assert_eq!(init["agentCapabilities"]["mcpCapabilities"]["http"], true, "{init}");
    assert_eq!(
        init["agentCapabilities"]["promptCapabilities"]["image"], false,
        "{init}"
    );
    assert_eq!(response(&t, "prompt", 0)["result"]["stopReason"], "end_turn", "{t:#}");
    assert_eq!(chunks(&t, "agent_message_chunk"), "It is sunny in Tokyo.");
    // The activation, then the command: asked first (pending), run, completed with its output.
    let activation = first_call(&t, "think");
    assert_eq!(activation["title"], "Activate skill weather", "{activation}");
    assert_eq!(activation["status"], "completed", "{activation}");
    let command = first_call(&t, "execute");
    assert_eq!(or_default(command, "status"), "pending", "{command}");
    let asked = &t["permissions"][0];
    assert_eq!(asked["toolCall"]["toolCallId"], command["toolCallId"], "{asked}");
    let options: Vec<&str> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["allow_once", "allow_always", "reject_once"], "{asked}");
    let statuses: Vec<&str> = call_updates(&t, &command["toolCallId"])
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call" || u.get("status").is_some())
        .map(|u| or_default(u, "status"))
        .collect();
    assert_eq!(statuses, ["pending", "in_progress", "completed"], "{t:#}");
    let (_, output) = ended(&t, &command["toolCallId"]);
    assert!(output.contains("sunny, 21 C in Tokyo"), "{output}");
    assert_eq!(command["rawInput"]["cwd"], json!(ws.work()), "{command}");
    let stored = std::fs::read_to_string(&ws.session_files()[0]).unwrap();
    let header: Value = serde_json::from_str(stored.lines().next().unwrap()).unwrap();
    assert_eq!(header["cwd"], json!(ws.work()), "{header}");
    // The command ran for real: the model read its output.
    let requests = mock.requests().await;
    assert!(
        all_text(&requests[2]).contains("sunny, 21 C in Tokyo"),
        "{}",
        requests[2]
    );
}

#[tokio::test]
async fn a_rejected_command_ends_failed_with_the_denial_and_allow_always_asks_once_for_the_skill() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let mut replies = activate_run_answer("weather", "./run.sh Oslo", "I was not allowed to look.");
    replies.extend([
        tool("run_command", json!({"command": "./run.sh Paris"})),
        tool("run_command", json!({"command": "./run.sh Rome"})),
        text("Sunny in both."),
    ]);
    let mock = MockLlm::start(replies).await;
    let t = editor(
        &ws,
        &mock,
        &["reject_once", "allow_always"],
        json!([{"op": "initialize"}, {"op": "new"},
               {"op": "prompt", "text": "weather in Oslo?"},
               {"op": "prompt", "text": "and Paris, and Rome?"}, {"op": "close"}]),
    )
    .await;
    assert_eq!(response(&t, "prompt", 0)["result"]["stopReason"], "end_turn", "{t:#}");
    let rejected = first_call(&t, "execute");
    let (status, reason) = ended(&t, &rejected["toolCallId"]);
    assert_eq!(status, "failed", "{t:#}");
    assert!(reason.contains("denied"), "the denial reaches the editor: {reason}");
    let requests = mock.requests().await;
    assert!(
        all_text(&requests[2]).contains("denied"),
        "the model is told: {}",
        requests[2]
    );
    // Allowed always for the skill: the second command of the skill is not asked about.
    assert_eq!(response(&t, "prompt", 1)["result"]["stopReason"], "end_turn", "{t:#}");
    assert_eq!(t["permissions"].as_array().unwrap().len(), 2, "{t:#}");
    let later = all_text(requests.last().unwrap());
    assert!(later.contains("in Paris") && later.contains("in Rome"), "{later}");
}

#[tokio::test]
async fn a_cancel_mid_command_kills_its_process_tree_and_the_turn_ends_cancelled() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let marker = marker(38);
    let sleep = format!("sleep 1005.{marker}");
    let mock = MockLlm::start(activate_run_answer("weather", &sleep, "never")).await;
    let t = editor(
        &ws,
        &mock,
        &["allow_once"],
        json!([{"op": "initialize"}, {"op": "new"},
               {"op": "prompt", "text": "wait a while", "wait": false},
               {"op": "until", "kind": "execute", "status": "in_progress"},
               {"op": "processes", "marker": marker, "atLeast": 1},
               {"op": "cancel"}, {"op": "settle"},
               {"op": "processes", "marker": marker}, {"op": "close"}]),
    )
    .await;
    assert_eq!(response(&t, "prompt", 0)["result"]["stopReason"], "cancelled", "{t:#}");
    assert!(
        t["processes"][0]["count"].as_u64().unwrap() >= 1,
        "the command ran: {t:#}"
    );
    assert_eq!(
        t["processes"][1]["count"], 0,
        "its processes are gone once the prompt answered: {t:#}"
    );
    let command = first_call(&t, "execute");
    assert_eq!(ended(&t, &command["toolCallId"]).0, "failed", "{t:#}");
}

#[tokio::test]
async fn an_editor_that_goes_away_mid_command_ends_agent_with_0_and_its_children() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let marker = marker(39);
    let sleep = format!("sleep 1006.{marker}");
    let mock = MockLlm::start(activate_run_answer("weather", &sleep, "never")).await;
    let t = editor(
        &ws,
        &mock,
        &["allow_once"],
        json!([{"op": "initialize"}, {"op": "new"},
               {"op": "prompt", "text": "wait a while", "wait": false},
               {"op": "until", "kind": "execute", "status": "in_progress"},
               {"op": "processes", "marker": marker, "atLeast": 1}, {"op": "close"}]),
    )
    .await;
    assert!(
        t["processes"][0]["count"].as_u64().unwrap() >= 1,
        "the command ran: {t:#}"
    );
    assert!(processes_with(&marker).is_empty(), "{:?}", processes_with(&marker));
}

#[tokio::test]
async fn a_session_is_loaded_after_a_restart_with_its_conversation_replayed() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("Hello, Ada."), text("You are Ada.")]).await;
    let first = editor(
        &ws,
        &mock,
        &[],
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "I am Ada"}, {"op": "close"}]),
    )
    .await;
    let id = response(&first, "new", 0)["result"]["sessionId"].clone();
    let second = editor(
        &ws,
        &mock,
        &[],
        json!([{"op": "initialize"}, {"op": "load", "sessionId": id},
               {"op": "prompt", "text": "who am I?"}, {"op": "close"}]),
    )
    .await;
    assert!(response(&second, "load", 0).get("result").is_some(), "{second:#}");
    let replayed = updates(&second);
    assert_eq!(replayed[0]["sessionUpdate"], "user_message_chunk", "{second:#}");
    assert_eq!(replayed[0]["content"]["text"], "I am Ada");
    assert_eq!(replayed[1]["sessionUpdate"], "agent_message_chunk");
    assert_eq!(replayed[1]["content"]["text"], "Hello, Ada.");
    assert!(
        second["updates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["sessionId"] == id)
    );
    assert_eq!(response(&second, "prompt", 0)["result"]["stopReason"], "end_turn");
    // The model hears the earlier turn again.
    let requests = mock.requests().await;
    assert!(all_text(&requests[1]).contains("I am Ada"), "{}", requests[1]);
}

#[tokio::test]
async fn the_editors_mcp_server_is_started_and_its_tool_called_once_allowed() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![tool("mcp__faults__ok", json!({})), text("The tool says fine.")]).await;
    // An argument the server ignores marks its process, to find it afterwards.
    let marker = marker(40);
    let server = json!({"name": "faults", "command": "python3",
                        "args": [repo_path("tests/fixtures/mcp/fault_server.py"), marker], "env": []});
    let t = editor(
        &ws,
        &mock,
        &["allow_once"],
        json!([{"op": "initialize"}, {"op": "new", "mcpServers": [server]},
               {"op": "prompt", "text": "call the ok tool"}, {"op": "close"}]),
    )
    .await;
    assert_eq!(response(&t, "prompt", 0)["result"]["stopReason"], "end_turn", "{t:#}");
    let requests = mock.requests().await;
    assert!(
        tool_names(&requests[0]).contains(&"mcp__faults__ok".to_string()),
        "{}",
        requests[0]["tools"]
    );
    assert_eq!(last_tool_result(&requests[1]), "fine");
    let call = first_call(&t, "other");
    let titles: Vec<&Value> = call_updates(&t, &call["toolCallId"])
        .iter()
        .map(|u| &u["title"])
        .collect();
    assert!(titles.iter().any(|t| *t == "faults: ok"), "{titles:?}");
    assert_eq!(
        t["permissions"].as_array().unwrap().len(),
        1,
        "the call was asked about: {t:#}"
    );
    // The editor went away: so did the server.
    wait_until("the MCP server to end", || processes_with(&marker).is_empty());
    assert_eq!(ended(&t, &call["toolCallId"]).0, "completed", "{t:#}");
}

#[tokio::test]
async fn a_malformed_frame_and_an_unknown_session_get_errors_and_the_server_goes_on() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("Still here.")]).await;
    let t = editor(
        &ws,
        &mock,
        &[],
        json!([{"op": "initialize"}, {"op": "raw", "line": "{this is not json"},
               {"op": "new"}, {"op": "load", "sessionId": "no-such-session"},
               {"op": "new"}, {"op": "prompt", "text": "are you there?"}, {"op": "close"}]),
    )
    .await;
    assert_eq!(t["raw"][0]["error"]["code"], -32700, "{t:#}");
    assert!(response(&t, "load", 0).get("error").is_some(), "{t:#}");
    assert_eq!(response(&t, "prompt", 0)["result"]["stopReason"], "end_turn", "{t:#}");
    assert_eq!(chunks(&t, "agent_message_chunk"), "Still here.");
}

#[tokio::test]
async fn an_untrusted_folders_skill_is_trusted_in_the_editor_before_its_first_command() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    project_skill_running(&ws, "deploy", "#!/bin/sh\necho deployed\n");
    let mock = MockLlm::start(activate_run_answer("deploy", "./run.sh", "Deployed.")).await;
    let t = editor(
        &ws,
        &mock,
        &["allow_once", "allow_once"],
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "deploy it"}, {"op": "close"}]),
    )
    .await;
    let titles: Vec<&str> = t["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["toolCall"]["title"].as_str().unwrap_or_default())
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("Trust the folder")),
        "the folder's trust is asked in the editor: {titles:?}"
    );
    let command = first_call(&t, "execute");
    let (status, output) = ended(&t, &command["toolCallId"]);
    assert_eq!((status.as_str(), output.trim()), ("completed", "deployed"), "{t:#}");
    // Recorded as `agent trust` records it: the next run need not ask.
    let state = std::fs::read_to_string(ws.home().join(".local/state/agent/trust.json")).unwrap();
    assert!(state.contains("deploy"), "{state}");
}

#[tokio::test]
async fn under_approve_no_a_command_is_refused_and_the_editor_is_never_asked() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let mock = MockLlm::start(activate_run_answer("weather", "./run.sh Lima", "Not allowed.")).await;
    let t = editor_with(
        &ws,
        &mock,
        &["acp", "--approve", "no"],
        &["allow_always"],
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "weather in Lima?"}, {"op": "close"}]),
    )
    .await;
    assert!(t["permissions"].as_array().unwrap().is_empty(), "{t:#}");
    let command = first_call(&t, "execute");
    assert_eq!(ended(&t, &command["toolCallId"]).0, "failed", "{t:#}");
    let requests = mock.requests().await;
    assert!(
        !all_text(&requests[2]).contains("sunny"),
        "it never ran: {}",
        requests[2]
    );
}

#[tokio::test]
async fn the_read_tool_reads_the_editors_unsaved_buffer_of_a_file_in_the_working_folder() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    let notes = ws.work().join("notes.txt");
    std::fs::write(&notes, "saved on disk\n").unwrap();
    let mock = MockLlm::start(vec![
        tool("Read", json!({"file_path": "notes.txt"})),
        text("Your notes say: not saved yet."),
    ])
    .await;
    let buffers = json!({ notes.canonicalize().unwrap().display().to_string(): "not saved yet\n" });
    let t = editor_holding(
        &ws,
        &mock,
        buffers,
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "what do my notes say?"}, {"op": "close"}]),
    )
    .await;
    assert_eq!(t["reads"].as_array().unwrap().len(), 1, "{t:#}");
    let requests = mock.requests().await;
    let result = last_tool_result(&requests[1]);
    assert!(
        result.contains("not saved yet") && !result.contains("saved on disk"),
        "{result}"
    );
    let read = first_call(&t, "read");
    assert_eq!(read["title"], "Read notes.txt", "{read}");
}

#[tokio::test]
async fn a_turn_over_its_step_limit_ends_with_max_turn_requests() {
    if !client_available() {
        return;
    }
    let ws = Workspace::new();
    weather(&ws);
    let mock = MockLlm::repeating(vec![tool("activate_skill", json!({"name": "weather"}))]).await;
    let t = editor_with(
        &ws,
        &mock,
        &["--max-steps", "2"],
        &[],
        json!([{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "loop"},
               {"op": "prompt", "text": "again"}, {"op": "close"}]),
    )
    .await;
    assert_eq!(
        response(&t, "prompt", 0)["result"]["stopReason"],
        "max_turn_requests",
        "{t:#}"
    );
    // The session goes on after it.
    assert_eq!(
        response(&t, "prompt", 1)["result"]["stopReason"],
        "max_turn_requests",
        "{t:#}"
    );
}
