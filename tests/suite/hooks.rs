//! Hooks in Claude Code's format (docs/hooks.md), through the real binary and real hook scripts:
//! a `PreToolUse` guard written as Claude Code's documentation writes one blocks `rm -rf
//! ../outside` and the model reads why; JSON `deny`; an `allow` that answers the policy's question
//! but never lifts `--approve no`; a crashing hook passes, said on stderr and in `--json`, and
//! blocks when set to fail closed; a project's hooks do nothing until the folder is trusted with
//! them; a `PostToolUse` formatter sees `tool_response`; `UserPromptSubmit` refuses a prompt; a
//! hook that hangs is killed at its timeout; `Stop` sends the model back; `agent hooks list`;
//! `--no-hooks`.

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::{Value, json};

const TIDY: &str = "---\nname: tidy\ndescription: Tidies the folder.\n---\nRun commands to tidy.\n";

fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Write the user's own settings file with `hooks`.
fn user_hooks(ws: &Workspace, hooks: Value) -> PathBuf {
    let file = ws.home().join(".config/agent/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, json!({ "hooks": hooks }).to_string()).unwrap();
    file
}

/// An executable hook script in the workspace (outside the working folder).
fn hook_script(ws: &Workspace, name: &str, body: &str) -> String {
    let path = ws.dir.path().join(name);
    write_script(&path, body);
    path.display().to_string()
}

/// The shell words that print the JSON field `path` (`.tool_input.command`) of stdin: `jq` where
/// it is installed, as hook scripts usually read it, else Python.
fn read_field(path: &str) -> String {
    if on_path("jq") {
        format!("jq -r '{path} // empty'")
    } else {
        let keys: String = path
            .split('.')
            .filter(|k| !k.is_empty())
            .map(|k| format!(".get({k:?}, {{}})"))
            .collect();
        format!("python3 -c 'import json,sys; v=json.load(sys.stdin){keys}; print(v if isinstance(v, str) else \"\")'")
    }
}

/// The guard of Claude Code's hook documentation, in shell: no `rm -rf` of a folder outside.
fn guard(ws: &Workspace) -> String {
    let body = format!(
        "#!/bin/sh\ncommand=$({})\ncase \"$command\" in\n  *'rm -rf ../outside'*)\n    echo 'Blocked: rm -rf outside the project is not allowed' >&2\n    exit 2;;\nesac\nexit 0\n",
        read_field(".tool_input.command")
    );
    hook_script(ws, "guard.sh", &body)
}

fn pre_bash(command: &str, extra: Value) -> Value {
    let mut hook = json!({"type": "command", "command": command});
    if let (Some(h), Some(e)) = (hook.as_object_mut(), extra.as_object()) {
        h.extend(e.clone());
    }
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]})
}

/// A one-shot that activates `tidy` and runs `command`; (exit code, stdout, stderr, the result
/// the model got for the command).
async fn run_once(ws: &Workspace, command: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String, String) {
    ws.skill("tidy", TIDY, None);
    let mock = MockLlm::start(activate_run_answer("tidy", command, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "tidy up", "--sandbox", "off"])
        .args(args)
        .envs(env.iter().copied());
    let (code, out, err) = run_outcome(cmd).await;
    let requests = mock.chat_requests().await;
    let result = requests.get(2).map(last_tool_result).unwrap_or_default();
    (code, out, err, result)
}

#[tokio::test]
async fn a_claude_code_guard_blocks_rm_outside_and_the_model_reads_why() {
    let ws = Workspace::new();
    let outside = ws.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "precious").unwrap();
    user_hooks(&ws, pre_bash(&guard(&ws), json!({})));
    let (code, _, err, result) = run_once(&ws, "rm -rf ../outside", &["--yes"], &[]).await;
    assert!(outside.join("keep.txt").exists(), "the guard did not hold: {result}");
    assert_eq!(code, 6, "{err}");
    assert!(result.starts_with("denied:"), "{result}");
    assert!(
        result.contains("Blocked: rm -rf outside the project is not allowed"),
        "{result}"
    );
    assert!(err.contains("PreToolUse hook"), "{err}");
    // A command the guard lets through runs.
    let canary = ws.work().join("CANARY");
    let (code, _, err, _) = run_once(&ws, &format!("touch {}", canary.display()), &["--yes"], &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists());
}

#[tokio::test]
async fn a_json_deny_blocks_and_an_allow_answers_only_a_question_the_policy_asks() {
    let ws = Workspace::new();
    let canary = ws.work().join("CANARY");
    let touch = format!("touch {}", canary.display());
    let deny = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on Fridays"}}'"#;
    user_hooks(&ws, pre_bash(deny, json!({})));
    let (code, _, _, result) = run_once(&ws, &touch, &["--yes"], &[]).await;
    assert_eq!(code, 6);
    assert!(result.contains("not on Fridays"), "{result}");
    assert!(!canary.exists());
    // `ask` puts the call to a person even under --yes; with nobody to ask, it is denied.
    let ask = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}'"#;
    user_hooks(&ws, pre_bash(ask, json!({})));
    let (code, _, _, result) = run_once(&ws, &touch, &["--yes"], &[]).await;
    assert_eq!(code, 6, "{result}");
    assert!(result.contains("asked for a person's approval (sure?)"), "{result}");
    assert!(!canary.exists());
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}'"#;
    user_hooks(&ws, pre_bash(allow, json!({})));
    // `--approve no` denies before anything is asked: no hook lifts that.
    let (code, _, _, result) = run_once(&ws, &touch, &["--approve", "no"], &[]).await;
    assert_eq!(code, 6, "{result}");
    assert!(result.starts_with("denied:"), "{result}");
    assert!(!canary.exists(), "an allow overrode --approve no");
    // `ask` with nobody to ask would deny; the hook's allow answers that question.
    let (code, _, err, result) = run_once(&ws, &touch, &["--approve", "ask"], &[]).await;
    assert_eq!(code, 0, "{err}\n{result}");
    assert!(canary.exists());
}

#[tokio::test]
async fn a_crashing_hook_passes_and_is_said_and_blocks_when_it_fails_closed() {
    let ws = Workspace::new();
    let canary = ws.work().join("CANARY");
    let touch = format!("touch {}", canary.display());
    // A guard whose `jq` is missing: exit 127, as in the trap Claude Code users fall into.
    let crash = "no-such-jq-here -r .tool_input.command";
    user_hooks(&ws, pre_bash(crash, json!({})));
    let (code, _, err, _) = run_once(&ws, &touch, &["--yes"], &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists(), "a crashing hook blocked by default");
    let line: Vec<&str> = err.lines().filter(|l| l.contains("no-such-jq-here")).collect();
    assert_eq!(line.len(), 1, "{err}");
    assert!(line[0].contains("failed") && line[0].contains("exit 127"), "{err}");
    std::fs::remove_file(&canary).unwrap();
    let (_, out, _, _) = run_once(&ws, &touch, &["--yes", "--json"], &[]).await;
    let failed: Vec<Value> = events(&out)
        .into_iter()
        .filter(|e| e["type"] == "hook_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{out}");
    assert_eq!(failed[0]["event"], "PreToolUse");
    assert_eq!(failed[0]["blocked"], false);
    let doc = crate::common::events_doc::EventsDoc::read();
    doc.validate_typed(&failed[0]).unwrap();
    std::fs::remove_file(&canary).unwrap();
    // Fail closed: per hook, and for every hook.
    user_hooks(&ws, pre_bash(crash, json!({"onFailure": "block"})));
    let (code, _, err, result) = run_once(&ws, &touch, &["--yes"], &[]).await;
    assert_eq!(code, 6, "{err}");
    assert!(result.contains("fail closed"), "{result}");
    assert!(!canary.exists());
    user_hooks(&ws, pre_bash(crash, json!({})));
    let (code, _, _, result) = run_once(&ws, &touch, &["--yes"], &[("AGENT_HOOKS_FAIL", "closed")]).await;
    assert_eq!(code, 6, "{result}");
    assert!(!canary.exists());
    // The last failure is kept for `agent hooks list`.
    let listed = ws.bare_agent().args(["hooks", "list", "--json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&listed.stdout).unwrap();
    doc.validate_document("hooks list", &list).unwrap();
    let hook = &list["hooks"][0];
    assert_eq!(hook["command"], crash);
    assert_eq!(hook["event"], "PreToolUse");
    assert_eq!(hook["matcher"], "Bash");
    assert!(
        hook["source"]
            .as_str()
            .unwrap()
            .ends_with(".config/agent/settings.json")
    );
    assert!(hook["last_failure"].as_str().unwrap().contains("exit 127"), "{list}");
    let text = ws.bare_agent().args(["hooks", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("PreToolUse Bash") && text.contains("last failure"),
        "{text}"
    );
}

#[tokio::test]
async fn a_hook_that_hangs_is_killed_at_its_timeout() {
    let ws = Workspace::new();
    let mark = marker(7);
    let hang = format!("sleep 1005.{mark}");
    user_hooks(&ws, pre_bash(&hang, json!({"timeout": 1})));
    let canary = ws.work().join("CANARY");
    let (code, _, err, _) = run_once(&ws, &format!("touch {}", canary.display()), &["--yes"], &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("timeout of 1 s"), "{err}");
    assert!(canary.exists(), "a hook that timed out blocked by default");
    assert!(processes_with(&mark).is_empty(), "the hook was left running");
}

#[tokio::test]
async fn no_hooks_and_agent_hooks_zero_turn_them_off() {
    let ws = Workspace::new();
    let canary = ws.work().join("CANARY");
    user_hooks(&ws, pre_bash("echo blocked >&2; exit 2", json!({})));
    let touch = format!("touch {}", canary.display());
    let (code, _, err, _) = run_once(&ws, &touch, &["--yes", "--no-hooks"], &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists());
    std::fs::remove_file(&canary).unwrap();
    let (code, _, _, _) = run_once(&ws, &touch, &["--yes"], &[("AGENT_HOOKS", "0")]).await;
    assert_eq!(code, 0);
    assert!(canary.exists());
    std::fs::remove_file(&canary).unwrap();
    let (code, _, _, _) = run_once(&ws, &touch, &["--yes"], &[]).await;
    assert_eq!(code, 6);
    assert!(!canary.exists());
}

#[tokio::test]
async fn a_post_tool_use_formatter_sees_the_response_and_the_model_its_context() {
    let ws = Workspace::new();
    ws.skill("tidy", TIDY, None);
    let seen = ws.dir.path().join("post.json");
    let formatter = format!(
        "#!/bin/sh\ninput=$(cat)\nprintf '%s' \"$input\" > {seen}\nfile=$(printf '%s' \"$input\" | {})\ntr a-z A-Z < \"$file\" > \"$file.tmp\" && mv \"$file.tmp\" \"$file\"\necho '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"formatted by the hook\"}}}}'\n",
        read_field(".tool_input.file_path"),
        seen = seen.display()
    );
    let formatter = hook_script(&ws, "format.sh", &formatter);
    user_hooks(
        &ws,
        json!({"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": formatter}]}]}),
    );
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "tidy"})),
        tool("Write", json!({"file_path": "notes.txt", "content": "hello\n"})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "write notes", "--yes"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    let file = ws.work().join("notes.txt");
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(input["tool_input"]["file_path"], file.display().to_string());
    assert_eq!(input["tool_input"]["content"], "hello\n");
    assert_eq!(input["tool_response"]["success"], true);
    assert_eq!(input["tool_response"]["filePath"], file.display().to_string());
    assert_eq!(input["cwd"], ws.work().display().to_string());
    assert_eq!(input["permission_mode"], "bypassPermissions");
    assert!(!input["session_id"].as_str().unwrap().is_empty(), "{input}");
    assert!(
        Path::new(input["transcript_path"].as_str().unwrap()).is_file(),
        "{input}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "HELLO\n");
    let requests = mock.chat_requests().await;
    assert!(last_tool_result(&requests[2]).contains("formatted by the hook"));
}

#[tokio::test]
async fn a_user_prompt_submit_hook_refuses_a_prompt_before_it_is_sent() {
    let ws = Workspace::new();
    let check = format!(
        "#!/bin/sh\nprompt=$({})\ncase \"$prompt\" in *password*) echo 'Prompts must not hold passwords' >&2; exit 2;; esac\n",
        read_field(".prompt")
    );
    let check = hook_script(&ws, "prompt.sh", &check);
    user_hooks(
        &ws,
        json!({"UserPromptSubmit": [{"hooks": [{"type": "command", "command": check}]}]}),
    );
    let mock = MockLlm::start(vec![text("hi")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "my password is hunter2"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("Prompts must not hold passwords"), "{err}");
    assert!(mock.chat_requests().await.is_empty(), "the refused prompt was sent");
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
}

#[tokio::test]
async fn a_stop_hook_sends_the_model_back_once_with_its_reason() {
    let ws = Workspace::new();
    let flag = ws.dir.path().join("stopped-once");
    let check = format!(
        "#!/bin/sh\nif [ -e {f} ]; then exit 0; fi\ntouch {f}\necho 'Run the tests before you stop' >&2\nexit 2\n",
        f = flag.display()
    );
    let check = hook_script(&ws, "stop.sh", &check);
    user_hooks(
        &ws,
        json!({"Stop": [{"hooks": [{"type": "command", "command": check}]}]}),
    );
    let mock = MockLlm::start(vec![text("finished"), text("tests pass, finished")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "do it"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tests pass, finished"), "{out}");
    let requests = mock.chat_requests().await;
    assert_eq!(requests.len(), 2);
    assert!(all_text(&requests[1]).contains("Run the tests before you stop"));
}

/// The project's settings file with a `UserPromptSubmit` hook that creates `canary`.
fn project_hooks(ws: &Workspace, canary: &Path) {
    let file = ws.work().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let hooks = json!({
        "permissions": {"allow": []},
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": format!("touch {}", canary.display())}]}]}
    });
    std::fs::write(file, hooks.to_string()).unwrap();
}

#[tokio::test]
async fn a_projects_hooks_run_only_once_the_folder_is_trusted_with_them() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("CANARY");
    project_hooks(&ws, &canary);
    let mock = MockLlm::repeating(vec![text("hi")]).await;
    let once = |ws: &Workspace| {
        let mut cmd = ws.agent(&mock);
        cmd.args(["--once", "hello"]);
        cmd
    };
    let (code, _, err) = run_outcome(once(&ws)).await;
    assert_eq!(code, 0, "{err}");
    assert!(!canary.exists(), "an untrusted project's hook ran");
    assert!(
        err.contains(".claude/settings.json") && err.contains("agent trust"),
        "{err}"
    );
    let trusted = ws.bare_agent().arg("trust").output().unwrap();
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let (code, _, err) = run_outcome(once(&ws)).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists(), "a trusted project's hook did not run: {err}");
    // An edit to its hooks needs trust again; an edit elsewhere in the file does not.
    let other = ws.dir.path().join("OTHER");
    project_hooks(&ws, &other);
    let (_, _, err) = run_outcome(once(&ws)).await;
    assert!(!other.exists(), "an edited project hook ran without new trust");
    assert!(err.contains("not trusted with them"), "{err}");
    let listed = ws.bare_agent().args(["hooks", "list", "--json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(list["hooks"][0]["active"], false, "{list}");
}

#[tokio::test]
async fn settings_files_with_hooks_cannot_be_written_by_file_tools_or_commands() {
    require_kernel!(kernel::landlock(3), kernel::namespaces());
    let ws = Workspace::new();
    ws.skill("tidy", TIDY, None);
    let files = [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".agents/settings.json",
    ];
    for rel in files {
        let path = ws.work().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
    }
    let canary = ws.dir.path().join("CANARY");
    let planted = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": format!("touch {}", canary.display())}]}]}})
        .to_string();
    let mut replies = vec![tool("activate_skill", json!({"name": "tidy"}))];
    for rel in files {
        replies.push(tool("Write", json!({"file_path": rel, "content": planted})));
        replies.push(tool(
            "Edit",
            json!({"file_path": rel, "old_string": "{}", "new_string": planted}),
        ));
        replies.push(tool(
            "run_command",
            json!({"command": format!("printf '%s' '{planted}' > {rel}")}),
        ));
    }
    replies.push(text("done"));
    let mock = MockLlm::start(replies).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "plant a hook", "--yes"]);
    let (_, _, err) = run_outcome(cmd).await;
    for rel in files {
        assert_eq!(
            std::fs::read_to_string(ws.work().join(rel)).unwrap(),
            "{}\n",
            "{rel} was written: {err}"
        );
    }
    let results: Vec<String> = mock
        .chat_requests()
        .await
        .iter()
        .skip(2)
        .map(last_tool_result)
        .collect();
    for (i, result) in results.iter().enumerate() {
        match i % 3 {
            0 | 1 => assert!(result.starts_with("denied:") && result.contains("hooks"), "{result}"),
            _ => assert!(!result.starts_with("exit code: 0"), "{result}"),
        }
    }
    // One a command creates where there was none is a change of the folder: its hooks do not run
    // before the folder is trusted with them.
    std::fs::remove_dir_all(ws.work().join(".agents")).unwrap();
    let mock = MockLlm::start(activate_run_answer(
        "tidy",
        &format!("mkdir -p .agents && printf '%s' '{planted}' > .agents/settings.json"),
        "done",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "plant a hook", "--yes"]);
    let (_, _, err) = run_outcome(cmd).await;
    assert!(
        ws.work().join(".agents/settings.json").exists(),
        "the plant was not made: {err}"
    );
    let mock = MockLlm::start(vec![text("hi")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(!canary.exists(), "a planted hook ran");
}

#[tokio::test]
async fn session_start_context_reaches_the_model_and_session_end_runs_last() {
    let ws = Workspace::new();
    let ended = ws.dir.path().join("ended.json");
    user_hooks(
        &ws,
        json!({
            "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'The build command is make ci.'"}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": format!("cat > {}", ended.display())}]}]
        }),
    );
    let mock = MockLlm::start(vec![text("hi")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "how do I build?"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    let users = contents(&requests[0], "user");
    assert!(
        users.last().unwrap().contains("The build command is make ci."),
        "{users:?}"
    );
    let end: Value = serde_json::from_str(&std::fs::read_to_string(&ended).unwrap()).unwrap();
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "other");
}

/// One `--once hello` in a pty, answering `reply` when `expect` (in order) has been shown.
fn pty_once(ws: &Workspace, mock: &MockLlm, expect: &[&str], reply: &str) -> String {
    let mut cmd = crate::common::pty::pty_agent(ws);
    crate::common::pty::talking_to(&mut cmd, mock).args(["--once", "hello"]);
    let mut p = rexpect::session::spawn_command(cmd, Some(15_000)).unwrap();
    let mut seen = String::new();
    for e in expect {
        seen.push_str(&p.exp_string(e).unwrap());
        seen.push_str(e);
    }
    crate::common::pty::type_line(&mut p, reply);
    seen + &p.exp_eof().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_trust_question_lists_a_projects_hooks_and_asks_again_when_they_change() {
    let ws = std::sync::Arc::new(Workspace::new());
    let canary = ws.dir.path().join("CANARY");
    project_hooks(&ws, &canary);
    let mock = std::sync::Arc::new(MockLlm::repeating(vec![text("hi")]).await);
    let (w, m, c) = (ws.clone(), mock.clone(), canary.clone());
    crate::common::pty::blocking(move || {
        let command = format!("UserPromptSubmit: touch {}", c.display());
        pty_once(
            &w,
            &m,
            &["its .claude/settings.json has hooks", &command, "[y/N] "],
            "y",
        );
        assert!(c.exists(), "the trusted hook did not run");
        let other = w.dir.path().join("OTHER");
        project_hooks(&w, &other);
        let command = format!("UserPromptSubmit: touch {}", other.display());
        pty_once(
            &w,
            &m,
            &["its .claude/settings.json has changed hooks", &command, "[y/N] "],
            "n",
        );
        assert!(!other.exists(), "a hook ran after the answer no");
    })
    .await;
}
