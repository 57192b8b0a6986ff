//! Sessions (SPEC §9) through the real binary: stored as they happen, continued after `kill -9`
//! mid-stream and mid-command, resumed by prefix, exported, compacted without forgetting the
//! active skill, torn last lines, storage off, an unwritable state folder, two agents at once.

use std::os::unix::fs::PermissionsExt;
use std::process::Command as StdCommand;
use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use rexpect::process::Signal;
use rexpect::session::{PtySession, spawn_command};
use serde_json::{Value, json};

const WEATHER: &str =
    "---\nname: weather\ndescription: Current weather for a city.\n---\nWEATHER-BODY: run ./run.sh CITY\n";
const SECRET: &str = "sk-test-key-0123456789";

/// The records of a session file, the header first.
fn records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// `(role, content)` of every message of a request after the system prompt.
fn history(request: &Value) -> Vec<(String, String)> {
    request["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| {
            let content = match m["content"].as_str() {
                Some(c) => c.to_string(),
                None => m["tool_calls"].to_string(),
            };
            (m["role"].as_str().unwrap().to_string(), content)
        })
        .collect()
}

/// The real binary for a pty (`repl::pty_agent`), talking to `mock`, with `args`.
fn pty_command(ws: &Workspace, mock: &MockLlm, args: &[&str]) -> StdCommand {
    let mut cmd = super::repl::pty_agent(ws);
    cmd.env("AGENT_RETRIES", "0")
        .env("AGENT_BASE_URL", mock.base_url())
        .env("AGENT_API_KEY", SECRET)
        .env("AGENT_MODEL", "gpt-4.1-mini")
        .env("AGENT_PROBE_PORTS", "")
        .args(args);
    cmd
}

/// The chat in a pty, talking to `mock`, approving commands by itself.
fn pty_chat(ws: &Workspace, mock: &MockLlm, extra: &[&str]) -> PtySession {
    let mut cmd = pty_command(ws, mock, &["--approve", "yes"]);
    cmd.args(extra);
    let mut p = spawn_command(cmd, Some(15_000)).unwrap();
    p.exp_string("/help for commands").unwrap();
    p
}

fn say(p: &mut PtySession, line: &str) {
    p.send(line).unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
}

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
        say(&mut p, &format!("first question, key {SECRET}"));
        p.exp_string("First answer.").unwrap();
        say(&mut p, "second question");
        p.exp_string("Second answer.").unwrap();
        say(&mut p, "third question");
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
    (next.requests().await.remove(0), records(&files[0]))
}

/// The user messages of a request, in order.
fn users(request: &Value) -> Vec<String> {
    contents(request, "user")
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_mid_stream_then_continued_the_turns_and_the_interruption_come_back_in_order() {
    let ws = Arc::new(Workspace::new());
    let slow = Reply::Raw(
        wiremock::ResponseTemplate::new(200)
            .set_delay(Duration::from_secs(30))
            .set_body_raw(sse_body(&text("too late")), "text/event-stream"),
    );
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
async fn once(ws: &Workspace, mock: &MockLlm, message: &str, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ws.agent(mock);
    cmd.args(["--once", message, "--approve", "yes"]).args(args);
    run_outcome(cmd).await
}

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

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)></details>";

/// A once run that activates weather, runs a command whose output is hostile markup, and answers
/// with more of it; returns the session's id.
async fn session_with_tool_calls(ws: &Workspace) -> String {
    ws.skill("weather", WEATHER, Some(&format!("#!/bin/sh\necho '{HOSTILE}'\n")));
    let mock = MockLlm::start(activate_run_answer(
        "weather",
        "./run.sh Tokyo",
        &format!("Sunny {HOSTILE}"),
    ))
    .await;
    let (code, _, err) = once(ws, &mock, "weather in Tokyo", &[]).await;
    assert_eq!(code, 0, "{err}");
    records(&ws.session_files()[0])[0]["id"].as_str().unwrap().to_string()
}

/// A strict little check of an HTML document: every non-void element is closed in order, no
/// `<script`, no event-handler attributes, no outside resources, no bare `<` in text.
fn check_html(html: &str) -> Result<(), String> {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if name.is_empty() {
            return Err(format!("a bare '<' in text: <{tag}>"));
        }
        let attributes = tag.to_ascii_lowercase();
        let handler = attributes.split_whitespace().skip(1).any(|a| a.starts_with("on"));
        if ["script", "iframe", "object", "embed", "link", "img"].contains(&name.as_str())
            || handler
            || attributes.contains("src=")
            || attributes.contains("href=")
        {
            return Err(format!("active or outside content: <{tag}>"));
        }
        if tag.starts_with('/') {
            match open.pop() {
                Some(o) if o == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else if !VOID.contains(&name.as_str()) && !tag.ends_with('/') {
            open.push(name);
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("never closed: {open:?}"))
    }
}

#[tokio::test]
async fn exports_show_tool_calls_and_html_is_self_contained_and_escaped() {
    let ws = Workspace::new();
    let id = session_with_tool_calls(&ws).await;
    let export = |format: &str, file: &str| {
        let path = ws.dir.path().join(file);
        let mut cmd = ws.bare_agent();
        cmd.args(["sessions", "export", &id[..15], "--format", format, "-o"])
            .arg(&path);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let md = export("md", "s.md");
    for needle in ["weather in Tokyo", "./run.sh Tokyo", "Sunny", "weather"] {
        assert!(md.contains(needle), "md lacks {needle}:\n{md}");
    }
    let html = export("html", "s.html");
    check_html(&html).unwrap_or_else(|e| panic!("{e}:\n{html}"));
    assert!(html.contains("<details"), "commands and outputs fold");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "hostile text is escaped"
    );
    assert!(html.contains("./run.sh Tokyo") && html.contains("<style"));
    let json: Value = serde_json::from_str(&export("json", "s.json")).unwrap();
    assert_eq!(json["session"]["id"], id);
    let records = json["records"].as_array().unwrap();
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "activation" && r["skill"] == "weather")
    );
    assert!(
        records
            .iter()
            .any(|r| r["role"] == "tool" && r["content"].as_str().unwrap().contains("alert(2)"))
    );
    // `show` prints the Markdown; `rm` deletes; `list` shows what is left.
    let mut show = ws.bare_agent();
    show.args(["sessions", "show", &id]);
    assert_eq!(String::from_utf8_lossy(&show.output().unwrap().stdout), md);
    let mut list = ws.bare_agent();
    list.args(["sessions", "list"]);
    let listed = String::from_utf8_lossy(&list.output().unwrap().stdout).into_owned();
    assert!(listed.contains(&id) && listed.contains("weather in Tokyo"), "{listed}");
    let mut rm = ws.bare_agent();
    rm.args(["sessions", "rm", &id]);
    assert!(rm.output().unwrap().status.success());
    assert!(ws.session_files().is_empty());
}

#[test]
fn the_html_checker_can_fail() {
    assert!(check_html("<p><details>x</p>").is_err());
    assert!(check_html("<p>a < b</p>").is_err());
    assert!(check_html("<p><script>x</script></p>").is_err());
    assert!(check_html("<p onclick=x>a</p>").is_err());
    assert!(check_html("<p>a &lt; b<br></p>").is_ok());
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
        say(&mut p, "hello");
        p.exp_string("First answer.").unwrap();
        ready_tx.send(()).unwrap();
        done_rx.recv().unwrap();
        say(&mut p, "/exit");
        p.exp_eof().unwrap();
    });
    ready_rx.recv().unwrap();
    let held = ws.session_files()[0].clone();
    let before = std::fs::read_to_string(&held).unwrap();
    let (code, out, err) = once(&ws, &mock, "me too", &["-c"]).await;
    done_tx.send(()).unwrap();
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
    let request = mock.requests().await.remove(2);
    let text = all_text(&request);
    assert!(text.contains("NEW-BODY"), "the current instructions were sent");
    assert!(
        !text.contains("WEATHER-BODY"),
        "the stale ones are gone from the request"
    );
}

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
    let requests = mock.requests().await;
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
            ("/usage", "session"),
        ] {
            say(&mut p, line);
            p.exp_string(shows).unwrap();
        }
        say(&mut p, "/exit");
        p.exp_eof().unwrap();
    })
    .await
    .unwrap();
    let requests = mock.requests().await;
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
    let cmd = pty_command(&ws, &mock, &["--resume", "--once", "go on"]);
    tokio::task::spawn_blocking(move || {
        let mut p = spawn_command(cmd, Some(15_000)).unwrap();
        p.exp_string("newer question").unwrap();
        p.exp_string("Resume which session?").unwrap();
        say(&mut p, "2");
        p.exp_string("Picked.").unwrap();
        p.exp_eof().unwrap();
    })
    .await
    .unwrap();
    assert_eq!(users(&mock.requests().await[0]), ["older question", "go on"]);
}
