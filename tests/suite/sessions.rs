//! Sessions (docs/sessions.md) through the real binary: stored as they happen, continued after
//! `kill -9` mid-stream and mid-command, resumed by prefix or picked from a list, torn last lines,
//! storage off, an unwritable state folder, two agents at once, skills that changed since. Exports
//! are in `session_export`, compaction in `compaction`.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use crate::common::pty::type_line;
use crate::common::sessions::*;
use crate::common::*;
use rexpect::process::Signal;
use rexpect::session::spawn_command;
use serde_json::{Value, json};

/// A chat whose third turn was killed with `kill -9` once `wait_for` showed (`third`: the mock's
/// replies for that turn), then `agent -c --once "go on"`: returns the continued run's first
/// request and the session file as the killed agent left it.
async fn kill_during_third_turn(ws: Arc<Workspace>, third: Vec<Reply>, wait_for: &'static str) -> (Value, Vec<Value>) {
    let mut replies = vec![text("First answer."), text("Second answer.")];
    replies.extend(third);
    let mock = Arc::new(MockLlm::start(replies).await);
    let (w, m) = (ws.clone(), mock.clone());
    tokio::task::spawn_blocking(move || {
        let mut p = pty_chat(&w, &m, &[]);
        type_line(&mut p, &format!("first question, key {SECRET}"));
        p.exp_string("First answer.").unwrap();
        type_line(&mut p, "second question");
        p.exp_string("Second answer.").unwrap();
        type_line(&mut p, "third question");
        p.exp_string(wait_for).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        p.process_mut().signal(Signal::SIGKILL).unwrap();
        let _ = p.process().wait();
    })
    .await
    .unwrap();
    let files = ws.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let stored = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!stored.contains(SECRET), "secrets are redacted before they are written");
    let next = MockLlm::start(vec![text("Going on.")]).await;
    let mut cmd = ws.agent(&next);
    cmd.args(["-c", "--once", "go on", "--approve", "yes"]);
    let out = run_output(cmd).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Going on."));
    assert_eq!(ws.session_files().len(), 1, "continued in the same file");
    (next.chat_requests().await.remove(0), records(&files[0]))
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_mid_stream_then_continued_the_turns_and_the_interruption_come_back_in_order() {
    let ws = Arc::new(Workspace::new());
    let slow = too_late();
    let (request, stored) = kill_during_third_turn(ws.clone(), vec![slow], "third question").await;
    let users = users(&request);
    assert_eq!(users.len(), 4, "{users:?}");
    assert!(users[0].starts_with("first question, key [REDACTED"), "{}", users[0]);
    assert_eq!(&users[1..], ["second question", "third question", "go on"]);
    let h = history(&request);
    let roles: Vec<&str> = h.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    );
    assert_eq!(h[1].1, "First answer.");
    assert_eq!(h[3].1, "Second answer.");
    assert!(h[5].1.contains("interrupted"), "the lost turn is marked: {:?}", h[5]);
    assert!(!all_text(&request).contains(SECRET));
    // The file says what happened: the header, the turns, then the lost turn closed on resume.
    assert_eq!(stored[0]["type"], "session");
    assert!(stored.iter().any(|r| r["type"] == "interrupted" && r["by"] == "lost"));
    assert!(stored.iter().any(|r| r["type"] == "resumed"));
    for r in &stored {
        assert!(!r.to_string().contains(SECRET));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_mid_command_then_continued_the_open_call_is_answered_as_interrupted() {
    let ws = Arc::new(Workspace::new());
    ws.skill(
        "weather",
        WEATHER,
        Some("#!/bin/sh\necho started\nsleep 30\necho done\n"),
    );
    let third = vec![
        tool("activate_skill", json!({"name": "weather"})),
        tool("run_command", json!({"command": "./run.sh Tokyo"})),
    ];
    let (request, stored) = kill_during_third_turn(ws.clone(), third, "run.sh Tokyo").await;
    let h = history(&request);
    let roles: Vec<&str> = h.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "user"
        ]
    );
    assert!(
        h[6].1.contains("WEATHER-BODY"),
        "the active skill's body is kept: {:?}",
        h[6]
    );
    assert!(h[7].1.contains("run.sh Tokyo"));
    assert!(h[8].1.contains("interrupted"), "the open call got a result: {:?}", h[8]);
    assert!(h[9].1.contains("interrupted"), "the turn is marked: {:?}", h[9]);
    assert_eq!(h[10].1, "go on");
    assert!(
        stored
            .iter()
            .any(|r| r["type"] == "activation" && r["skill"] == "weather")
    );
}

/// Run `agent --once MESSAGE` with `args`: (exit code, stdout, stderr).
#[tokio::test]
async fn once_runs_are_stored_privately_and_resume_takes_a_prefix() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("One."), text("Two."), text("Three.")]).await;
    assert_eq!(once(&ws, &mock, "alpha", &[]).await.0, 0);
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(once(&ws, &mock, "beta", &[]).await.0, 0);
    let files = ws.session_files();
    assert_eq!(files.len(), 2);
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&files[0]), 0o600);
    assert_eq!(mode(&ws.sessions_dir()), 0o700);
    let first = records(&files[0]);
    let id = first[0]["id"].as_str().unwrap().to_string();
    assert_eq!(first[0]["cwd"], ws.work().display().to_string());
    // A prefix that names only the first session resumes it, not the newer one.
    let prefix = unique_prefix(&id, records(&files[1])[0]["id"].as_str().unwrap());
    let (code, out, err) = once(&ws, &mock, "gamma", &["--resume", &prefix]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Three."));
    let requests = mock.requests().await;
    assert_eq!(users(&requests[2]), ["alpha", "gamma"]);
    // Ambiguous and unknown ids are usage errors (exit 2) that say what to do.
    let (code, _, err) = once(&ws, &mock, "x", &["--resume", "2"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("matches several sessions") && err.contains(&id), "{err}");
    let (code, _, err) = once(&ws, &mock, "x", &["--resume", "19990101"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no session matches"), "{err}");
}

/// The shortest prefix of `a` that `b` does not share.
fn unique_prefix(a: &str, b: &str) -> String {
    let same = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    a[..=same].to_string()
}

#[tokio::test]
async fn storage_off_stores_nothing() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("One."), text("Two.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_SESSIONS", "0").args(["--once", "hi"]);
    assert!(run_output(cmd).await.status.success());
    assert_eq!(once(&ws, &mock, "hi", &["--no-session"]).await.0, 0);
    assert!(ws.session_files().is_empty());
    assert!(!ws.sessions_dir().exists());
    // Nothing to continue is a usage error that says what to do; so is a picker without a terminal.
    let (code, _, err) = once(&ws, &mock, "x", &["-c"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no stored session was started in") && err.contains("sessions list"),
        "{err}"
    );
    let (code, _, err) = once(&ws, &mock, "x", &["--resume"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[tokio::test]
async fn an_unwritable_state_folder_is_one_warning_never_a_lost_answer() {
    let ws = Workspace::new();
    let blocker = ws.dir.path().join("not-a-folder");
    std::fs::write(&blocker, "a file").unwrap();
    let mock = MockLlm::start(vec![text("Still answered.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("XDG_STATE_HOME", blocker.join("state"))
        .args(["--once", "hi", "--json"]);
    let out = run_output(cmd).await;
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let warnings: Vec<&Value> = lines.iter().filter(|l| l["type"] == "warning").collect();
    assert_eq!(warnings.len(), 1, "{lines:?}");
    assert!(
        warnings[0]["message"].as_str().unwrap().contains("not-a-folder"),
        "{warnings:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "message" && l["text"] == "Still answered.")
    );
    let done = lines.last().unwrap();
    assert_eq!(done["type"], "done");
    assert!(done.get("session_id").is_none());
}

#[tokio::test]
async fn a_torn_last_line_is_ignored_with_a_warning_and_cut_before_appending() {
    let ws = Workspace::new();
    let path = ws.write_session(
        "20261130-101010-abcd",
        &[
            json!({"type":"message","role":"user","content":"earlier question"}),
            json!({"type":"message","role":"assistant","content":"earlier answer"}),
        ],
    );
    let mut torn = std::fs::read_to_string(&path).unwrap();
    torn.push_str(r#"{"type":"message","role":"user","content":"half a li"#);
    std::fs::write(&path, torn).unwrap();
    let mock = MockLlm::start(vec![text("Later answer.")]).await;
    let (code, out, err) = once(&ws, &mock, "later question", &["--resume", "20261130"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Later answer."));
    assert!(err.contains("cut off"), "{err}");
    assert_eq!(users(&mock.requests().await[0]), ["earlier question", "later question"]);
    let stored = records(&path);
    assert!(stored.iter().all(|r| r["content"] != "half a li"));
    assert!(stored.iter().any(|r| r["content"] == "Later answer."));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_another_agent_holds_is_forked_never_written_by_two() {
    let ws = Arc::new(Workspace::new());
    let mock = Arc::new(MockLlm::start(vec![text("First answer."), text("From the second agent.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let chat = tokio::task::spawn_blocking(move || {
        let mut p = pty_chat(&w, &m, &[]);
        type_line(&mut p, "hello");
        p.exp_string("First answer.").unwrap();
        ready_tx.send(()).unwrap();
        done_rx.recv().unwrap();
        type_line(&mut p, "/exit");
        p.exp_eof().unwrap();
    });
    ready_rx.recv().unwrap();
    let held = ws.session_files()[0].clone();
    let before = std::fs::read_to_string(&held).unwrap();
    let (code, out, err) = once(&ws, &mock, "me too", &["-c"]).await;
    let held_id = records(&held)[0]["id"].as_str().unwrap().to_string();
    let mut rm = ws.bare_agent();
    rm.args(["sessions", "rm", &held_id]);
    let removed = rm.output().unwrap();
    done_tx.send(()).unwrap();
    assert_eq!(removed.status.code(), Some(3), "a held session is not removed");
    assert!(String::from_utf8_lossy(&removed.stderr).contains("in use by another running agent"));
    chat.await.unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("From the second agent."));
    assert!(err.contains("in use by another running agent"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&held).unwrap(),
        before,
        "the held file was not written"
    );
    let files = ws.session_files();
    assert_eq!(files.len(), 2);
    // Both may start in the same second, so the fork is the other file, not the later name.
    let fork = records(files.iter().find(|f| **f != held).unwrap());
    assert_eq!(fork[0]["parent"], records(&held)[0]["id"]);
    assert!(fork.iter().any(|r| r["content"] == "hello") && fork.iter().any(|r| r["content"] == "me too"));
}

#[tokio::test]
async fn a_skill_that_changed_since_is_sent_again_and_said() {
    let ws = Workspace::new();
    let dir = ws.skill("weather", WEATHER, Some("#!/bin/sh\necho sunny\n"));
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "weather"})),
        text("Sunny."),
        text("Rain."),
    ])
    .await;
    assert_eq!(once(&ws, &mock, "weather in Tokyo", &[]).await.0, 0);
    std::fs::write(dir.join("SKILL.md"), WEATHER.replace("WEATHER-BODY", "NEW-BODY")).unwrap();
    let (code, _, err) = once(&ws, &mock, "and Oslo?", &["-c"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skill weather changed"), "{err}");
    let request = mock.chat_requests().await.remove(2);
    let text = all_text(&request);
    assert!(text.contains("NEW-BODY"), "the current instructions were sent");
    assert!(
        !text.contains("WEATHER-BODY"),
        "the stale ones are gone from the request"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_without_an_id_picks_from_a_numbered_list_on_a_terminal() {
    let ws = Arc::new(Workspace::new());
    for (id, question) in [
        ("20261129-090000-aaaa", "older question"),
        ("20261130-090000-bbbb", "newer question"),
    ] {
        ws.write_session(
            id,
            &[
                json!({"type":"message","role":"user","content":question}),
                json!({"type":"message","role":"assistant","content":"an answer"}),
            ],
        );
    }
    let mock = Arc::new(MockLlm::start(vec![text("Picked.")]).await);
    let cmd = stored_chat_command(&ws, &mock, &["--resume", "--once", "go on"]);
    tokio::task::spawn_blocking(move || {
        let mut p = spawn_command(cmd, Some(15_000)).unwrap();
        p.exp_string("newer question").unwrap();
        p.exp_string("Resume which session?").unwrap();
        type_line(&mut p, "2");
        p.exp_string("Picked.").unwrap();
        p.exp_eof().unwrap();
    })
    .await
    .unwrap();
    assert_eq!(users(&mock.requests().await[0]), ["older question", "go on"]);
}

#[tokio::test]
async fn runs_that_never_reached_the_model_are_not_kept_and_continue_skips_them() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![
        text("Kept."),
        status(500, r#"{"error":{"message":"upstream exploded"}}"#),
        text("Continued."),
    ])
    .await;
    // Nothing to continue yet: said at once (exit 2), before the server is asked anything, not
    // even for its models.
    let mut cmd = ws.agent(&mock);
    cmd.env_remove("AGENT_MODEL").args(["-c", "--once", "go on"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no stored session was started in"), "{err}");
    assert!(mock.requests().await.is_empty(), "the server was reached");

    assert_eq!(once(&ws, &mock, "first question", &[]).await.0, 0);
    assert_eq!(ws.session_files().len(), 1);
    // A server error (exit 4) and a missing key (exit 3) leave no session behind.
    let (code, _, err) = once(&ws, &mock, "fails", &[]).await;
    assert_eq!(code, 4, "{err}");
    let mut cmd = ws.bare_agent();
    cmd.args(["--once", "no key"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{err}");
    // It names what to do with what an installed binary has, not a file of the source tree.
    assert!(
        err.contains("AGENT_API_KEY=") && err.contains(".config/agent/.env") && !err.contains(".env.example"),
        "{err}"
    );
    assert_eq!(ws.session_files().len(), 1, "only the run that got an answer is kept");

    let (code, out, err) = once(&ws, &mock, "go on", &["-c"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Continued."), "{out}");
    let requests = mock.requests().await;
    let last = history(requests.last().unwrap());
    assert_eq!(
        last,
        [
            ("user".to_string(), "first question".to_string()),
            ("assistant".to_string(), "Kept.".to_string()),
            ("user".to_string(), "go on".to_string()),
        ],
        "the failed run is not what was continued, and nothing says a turn was interrupted"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn export_without_a_file_writes_beside_the_sessions_not_into_the_working_folder() {
    let ws = Arc::new(Workspace::new());
    let mock = Arc::new(MockLlm::start(vec![text("An answer.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    crate::common::pty::blocking(move || {
        let mut p = pty_chat(&w, &m, &[]);
        type_line(&mut p, "a question");
        p.exp_string("An answer.").unwrap();
        type_line(&mut p, "/export");
        p.exp_string("as md to ").unwrap();
        p.exp_string(".local/state/agent/exports/session-").unwrap();
        crate::common::pty::ctrl_d_exits_zero(p);
    })
    .await;
    let exports: Vec<_> = std::fs::read_dir(ws.home().join(".local/state/agent/exports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(exports.len(), 1);
    assert!(std::fs::read_to_string(&exports[0]).unwrap().contains("a question"));
    let work: Vec<_> = std::fs::read_dir(ws.work())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !work.iter().any(|n| n.to_string_lossy().starts_with("session-")),
        "{work:?}"
    );
}

/// `agent sessions` alone lists them, as `agent sessions list` does (issue 39, item 6).
#[tokio::test]
async fn sessions_alone_lists_them() {
    let ws = Workspace::new();
    let mock = MockLlm::start(vec![text("One.")]).await;
    assert_eq!(once(&ws, &mock, "alpha", &[]).await.0, 0);
    let mut cmd = ws.bare_agent();
    cmd.args(["sessions"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("alpha"), "{out}");
}
