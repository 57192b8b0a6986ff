//! What reaches the terminal (docs/design.md#terminal-output) and the questions asked there:
//! outside text never arrives with raw control characters, the approval prompt shows exactly what
//! would run, and a folder is asked about once (and again after a change). Prompts run in a
//! pseudo-terminal (rexpect).

use std::sync::Arc;

use crate::common::pty::{blocking, pty_command, type_line};
use crate::common::*;
use rexpect::session::{PtySession, spawn_command};
use serde_json::json;

/// The real binary in a pty in the work folder, talking to `mock`.
fn pty(ws: &Workspace, mock: &MockLlm, args: &[&str], color: bool) -> PtySession {
    let mut cmd = pty_command(ws);
    cmd.envs(mock.env()).args(args);
    if !color {
        cmd.env("NO_COLOR", "1");
    }
    // The mock lists no models, so the model is named; a test that writes the user's own .env
    // names it there instead (the environment would win over every .env).
    if !ws.home().join(".config/agent/.env").exists() {
        cmd.env("AGENT_MODEL", "gpt-4.1-mini");
    }
    spawn_command(cmd, Some(15_000)).unwrap()
}

/// Nothing the terminal would obey: no escape character in either stream.
fn assert_inert(stdout: &str, stderr: &str) {
    assert!(
        !stdout.contains('\x1b') && !stderr.contains('\x1b'),
        "{stdout:?} {stderr:?}"
    );
}

const HOSTILE_TEXT: &str = "Title\x1b]0;pwned\x07 clear\x1b[2J clip\x1b]52;c;cm0gLXJmIH4=\x07 end";

#[tokio::test(flavor = "multi_thread")]
async fn the_approval_prompt_shows_hidden_characters_and_long_commands_in_full() {
    let ws = Arc::new(Workspace::new());
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Weather for a city.\n---\nRun ./run.sh CITY\n",
        Some("#!/bin/sh\necho sunny\n"),
    );
    let canary = ws.work().join("touched");
    let disguised = format!("touch {} #\r\x1b[2KRun ./run.sh Tokyo", canary.display());
    let long = format!("echo {} long-command-end", "x".repeat(400));
    let mock = Arc::new(
        MockLlm::start(vec![
            tool("activate_skill", json!({"name": "weather"})),
            tool("run_command", json!({ "command": disguised })),
            tool("run_command", json!({ "command": long })),
            text("ok"),
        ])
        .await,
    );
    let (w, m, l) = (ws.clone(), mock.clone(), long.clone());
    blocking(move || {
        let skills = w.skills().display().to_string();
        let mut p = pty(&w, &m, &["--skills-dir", &skills, "--once", "weather in Tokyo"], false);
        p.exp_string("#\\r\\x1b[2KRun ./run.sh Tokyo`").unwrap();
        // The second wall is shown with the first: where the command could write.
        if kernel::offers(kernel::landlock(1)) {
            p.exp_string("sandbox: may write only to its folder, the working directory")
                .unwrap();
        }
        p.exp_string("[y]es / [n]o").unwrap();
        type_line(&mut p, "n");
        p.exp_string(&format!("Run `{l}`")).unwrap();
        type_line(&mut p, "n");
        p.exp_string("ok").unwrap();
        p.exp_eof().unwrap();
    })
    .await;
    assert!(!canary.exists(), "the disguised command ran");
    let results = contents(&mock.requests().await[3], "tool").join("\n");
    assert_eq!(results.matches("denied by the user").count(), 2, "{results}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_with_escape_sequences_is_shown_escaped_and_markdown_still_styled() {
    let ws = Arc::new(Workspace::new());
    let mock = Arc::new(MockLlm::start(vec![text(&format!("**bold** {HOSTILE_TEXT}\n"))]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = pty(&w, &m, &["--once", "hi"], true);
        let seen = p.exp_eof().unwrap();
        assert!(seen.contains("\x1b[1mbold\x1b[0m"), "styling kept: {seen:?}");
        assert!(seen.contains("\\x1b]0;pwned\\x07"), "{seen:?}");
        assert!(seen.contains("\\x1b[2J") && seen.contains("\\x1b]52;c;"), "{seen:?}");
        assert!(!seen.contains("\x1b]") && !seen.contains("\x1b[2J"), "{seen:?}");
    })
    .await;
}

#[tokio::test]
async fn piped_human_output_and_progress_lines_are_escaped() {
    let ws = Workspace::new();
    ws.skill(
        "plain",
        "---\nname: plain\ndescription: A plain skill.\n---\nbody\n",
        None,
    );
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "plain"})),
        tool("run_command", json!({"command": "printf ok #\x1b]0;cmd-title\x07"})),
        text(HOSTILE_TEXT),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x", "--yes"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert_inert(&stdout, &stderr);
    assert!(stdout.contains("Title\\x1b]0;pwned\\x07 clear\\x1b[2J"), "{stdout}");
    assert!(
        stderr.contains("▸ run [plain] printf ok #\\x1b]0;cmd-title\\x07"),
        "{stderr}"
    );
}

#[tokio::test]
async fn json_events_escape_control_characters() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text(&format!("{HOSTILE_TEXT} \u{9b}31m c1"))]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x", "--json"]);
    let (code, stdout, _) = run_outcome(cmd).await;
    assert_eq!(code, 0);
    assert!(!stdout.chars().any(|c| c.is_control() && c != '\n'), "{stdout:?}");
    let message = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "message")
        .unwrap();
    assert_eq!(
        message["text"],
        format!("{HOSTILE_TEXT} \u{9b}31m c1"),
        "JSON keeps the text exact"
    );
}

#[tokio::test]
async fn an_error_quoting_the_server_is_escaped() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![status(
        400,
        "{\"error\":{\"message\":\"bad \\u001b[2J\\u001b]0;t\\u0007 request\"}}",
    )])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 4);
    assert!(
        stderr.contains("bad \\x1b[2J\\x1b]0;t\\x07 request") && !stderr.contains('\x1b'),
        "{stderr:?}"
    );
}

#[tokio::test]
async fn skill_names_descriptions_and_folders_are_escaped_in_listings() {
    let ws = Workspace::new();
    let dir = ws.skills().join("evil\x1b]0;folder\x07");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), "# Evil\n\nSee skill.json.\n").unwrap();
    std::fs::write(
        dir.join("skill.json"),
        json!({"name": "evil\u{1b}[2J", "version": "1", "description": "Looks \u{1b}]52;c;cm0=\u{7} harmless \u{1b}]0;t\u{7} here"})
            .to_string(),
    )
    .unwrap();
    for args in [
        &["skills", "list"][..],
        &["skills", "show", "evil\x1b[2J"],
        &["skills", "search", "harmless"],
    ] {
        let mut cmd = ws.bare_agent();
        cmd.arg("--skills-dir").arg(ws.skills()).args(args);
        let (code, stdout, stderr) = run_outcome(cmd).await;
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_inert(&stdout, &stderr);
        assert!(stdout.contains("evil\\x1b[2J"), "{args:?}: {stdout}");
        assert!(
            stdout.contains("Looks \\x1b]52;c;cm0=\\x07 harmless"),
            "{args:?}: {stdout}"
        );
    }
    let mut cmd = ws.bare_agent();
    cmd.arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "list", "--json"]);
    let (_, stdout, _) = run_outcome(cmd).await;
    assert!(!stdout.contains('\x1b'));
    let listing: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "evil\u{1b}[2J");
}

/// A project folder with a `.env` and one project skill.
fn project(ws: &Workspace, dotenv: &str) {
    std::fs::write(ws.work().join(".env"), dotenv).unwrap();
    let dir = ws.work().join("skills/weather");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: weather\ndescription: Weather for a city.\n---\nRun ./run.sh\n",
    )
    .unwrap();
}

/// One `--once` run in a pty: `before` checks what was printed up to the answer.
fn once(ws: &Workspace, mock: &MockLlm, reply: Option<&str>, expect: &[&str]) -> String {
    let mut p = pty(ws, mock, &["--once", "hi"], false);
    let mut seen = String::new();
    for e in expect {
        seen.push_str(&p.exp_string(e).unwrap());
        seen.push_str(e);
    }
    if let Some(r) = reply {
        type_line(&mut p, r);
    }
    seen + &p.exp_eof().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_is_asked_about_once_and_again_after_a_change() {
    let ws = Arc::new(Workspace::new());
    project(&ws, "AGENT_MODEL=folder-model\nAGENT_BASE_URL=http://127.0.0.1:9/v1\n");
    // The user's own model, which the trusted folder's .env overrides.
    let user_config = ws.home().join(".config/agent");
    std::fs::create_dir_all(&user_config).unwrap();
    std::fs::write(user_config.join(".env"), "AGENT_MODEL=gpt-4.1-mini\n").unwrap();
    let mock = Arc::new(MockLlm::start(vec![text("one"), text("two"), text("three"), text("four")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let first = once(
            &w,
            &m,
            Some("y"),
            &[
                "This folder is not trusted yet",
                "its .env sets: AGENT_MODEL, AGENT_BASE_URL (where your API key is sent)",
                "skills it adds (they can run commands): skills/weather",
                "[y/N] ",
            ],
        );
        assert!(
            first.contains("one") && !first.contains("http://127.0.0.1:9"),
            "values are not shown: {first}"
        );
        let second = once(&w, &m, None, &["two"]);
        assert!(!second.contains("trust"), "asked twice: {second}");
        std::fs::write(
            w.work().join(".env"),
            "AGENT_MODEL=folder-model\nAGENT_BASE_URL=http://127.0.0.1:9/v1\nNEW_KEY=1\n",
        )
        .unwrap();
        let extra = w.work().join("skills/extra");
        std::fs::create_dir_all(&extra).unwrap();
        std::fs::write(
            extra.join("SKILL.md"),
            "---\nname: extra\ndescription: More.\n---\nbody\n",
        )
        .unwrap();
        let third = once(
            &w,
            &m,
            Some("n"),
            &[
                "This folder changed since you trusted it",
                "NEW_KEY [new]",
                "new skills (they can run commands): skills/extra",
                "[y/N] ",
            ],
        );
        assert!(third.contains("ignoring") && third.contains("agent trust"), "{third}");
        let fourth = once(&w, &m, None, &["four"]);
        assert!(!fourth.contains("[y/N]"), "a no is remembered: {fourth}");
        assert!(fourth.contains("you chose not to trust this folder"), "{fourth}");
    })
    .await;
    let models: Vec<String> = mock
        .requests()
        .await
        .iter()
        .map(|r| r["model"].as_str().unwrap().to_string())
        .collect();
    // The environment's AGENT_BASE_URL wins over the .env's; its AGENT_MODEL applies while trusted.
    assert_eq!(models, ["folder-model", "folder-model", "gpt-4.1-mini", "gpt-4.1-mini"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_edited_mid_session_is_asked_about_before_it_runs() {
    let ws = Arc::new(Workspace::new());
    project(&ws, "AGENT_MODEL=folder-model\n");
    let canary = ws.work().join("ran");
    write_script(
        &ws.work().join("skills/weather/run.sh"),
        &format!("#!/bin/sh\ntouch '{}'\necho sunny\n", canary.display()),
    );
    let mock = Arc::new(
        MockLlm::start(vec![
            text("first"),
            tool("activate_skill", json!({"name": "weather"})),
            tool("run_command", json!({"command": "./run.sh"})),
            text("done"),
        ])
        .await,
    );
    let (w, m, c) = (ws.clone(), mock.clone(), canary.clone());
    blocking(move || {
        let mut p = pty(&w, &m, &["--approve", "auto"], false);
        p.exp_string("[y/N] ").unwrap();
        type_line(&mut p, "y");
        p.exp_string("/help for commands").unwrap();
        type_line(&mut p, "hi");
        p.exp_string("first").unwrap();
        std::fs::write(w.work().join("skills/weather/notes.md"), "added while running").unwrap();
        type_line(&mut p, "weather please");
        p.exp_string("This folder changed since you trusted it").unwrap();
        p.exp_string("skills changed since: skills/weather").unwrap();
        p.exp_string("[y/N] ").unwrap();
        assert!(!c.exists(), "it ran before the question was answered");
        type_line(&mut p, "y");
        p.exp_string("done").unwrap();
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
    })
    .await;
    assert!(canary.exists(), "trusted again, it ran");
}
