//! The chat in a pseudo-terminal (rexpect): conversation, slash commands, completion, multi-line
//! paste, Ctrl-C, history across sessions, Ctrl-D.

use std::time::Duration;

use crate::common::pty::*;
use crate::common::*;
use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_two_turn_conversation_keeps_context_and_ctrl_d_exits_0() {
    let ws = std::sync::Arc::new(Workspace::new());
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("First answer."), text("Second answer.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "my name is Ada");
        p.exp_string("First answer.").unwrap();
        type_line(&mut p, "what is my name?");
        p.exp_string("Second answer.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(contents(&reqs[1], "user"), ["my name is Ada", "what is my name?"]);
    assert_eq!(contents(&reqs[1], "assistant"), ["First answer."]);
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_commands_completion_and_reset() {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city.\n---\nWEATHER-BODY\n",
        None,
    );
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("one"), text("two")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "/help");
        p.exp_string("/reload").unwrap();
        p.exp_string("Ctrl-D leaves").unwrap();
        // Tab completes `/sk` to `/skill`; an `s` and Enter make it `/skills`.
        p.send("/sk\t").unwrap();
        p.flush().unwrap();
        p.exp_string("ill").unwrap();
        type_line(&mut p, "s");
        p.exp_string("NAME     DIALECT       STATUS  ROOT").unwrap();
        p.exp_string("weather  agent-skills  ok").unwrap();
        p.exp_string(w.skills().to_str().unwrap()).unwrap();
        p.exp_string("Current weather for a city.").unwrap();
        type_line(&mut p, "/frobnicate");
        p.exp_string("unknown command /frobnicate").unwrap();
        type_line(&mut p, "/skill wea\t");
        p.exp_string("skill weather").unwrap();
        type_line(&mut p, "hello");
        p.exp_string("one").unwrap();
        type_line(&mut p, "/reset");
        p.exp_string("conversation cleared").unwrap();
        type_line(&mut p, "again");
        p.exp_string("two").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.chat_requests().await;
    assert!(
        contents(&reqs[0], "tool")[0].contains("WEATHER-BODY"),
        "/skill activated it by hand"
    );
    assert_eq!(contents(&reqs[1], "user"), ["again"], "/reset forgot the first turn");
    assert!(contents(&reqs[1], "tool").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pasted_block_and_continuations_are_one_message() {
    let ws = std::sync::Arc::new(Workspace::new());
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("got the paste"), text("got the block")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "\x1b[200~line one\nline two\x1b[201~");
        p.exp_string("got the paste").unwrap();
        type_line(&mut p, "first \\");
        // The next line is asked for under a continuation prompt.
        p.exp_string(&pty_text("… ")).unwrap();
        type_line(&mut p, "second");
        p.exp_string("got the block").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.requests().await;
    assert_eq!(contents(&reqs[0], "user"), ["line one\nline two"]);
    assert_eq!(contents(&reqs[1], "user")[1], "first \nsecond");
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_cancels_a_slow_response_and_the_next_turn_works() {
    let ws = std::sync::Arc::new(Workspace::new());
    let slow = too_late();
    let mock = std::sync::Arc::new(MockLlm::start(vec![slow, text("fresh answer")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "take your time");
        thinking_about(&mut p, &m, 1);
        let pressed = std::time::Instant::now();
        p.send_control('c').unwrap();
        p.exp_string("interrupted").unwrap();
        assert!(
            pressed.elapsed() < Duration::from_secs(1),
            "prompt came back in {:?}",
            pressed.elapsed()
        );
        type_line(&mut p, "are you there?");
        p.exp_string("fresh answer").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.requests().await;
    assert_eq!(contents(&reqs[1], "user"), ["take your time", "are you there?"]);
    // The interrupted request is answered by a marker, so roles still alternate.
    let roles: Vec<&str> = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(contents(&reqs[1], "assistant"), ["[interrupted by the user]"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_a_command_leaves_no_process() {
    let ws = std::sync::Arc::new(Workspace::new());
    let marker = marker(21);
    ws.skill(
        "sleepy",
        "# Sleepy\n\nSleeps for a long time.\n",
        Some(&format!("#!/bin/sh\nsleep 1005.{marker} &\nsleep 1006.{marker}\n")),
    );
    let mock = std::sync::Arc::new(MockLlm::start(activate_run_answer("sleepy", "./run.sh", "after")).await);
    let (w, m, mk) = (ws.clone(), mock.clone(), marker.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &["--yes"]);
        type_line(&mut p, "sleep please");
        p.exp_string("run [sleepy] ./run.sh").unwrap();
        wait_until("the command's two sleeps", || processes_with(&mk).len() == 2);
        p.send_control('c').unwrap();
        p.exp_string("interrupted").unwrap();
        wait_until("every process of the command to end", || processes_with(&mk).is_empty());
        type_line(&mut p, "still there?");
        p.exp_string("after").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.chat_requests().await;
    assert!(
        contents(&reqs[2], "tool").last().unwrap().contains("interrupted"),
        "the open call was answered"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn history_is_written_without_secrets_and_recalled_next_session() {
    let ws = std::sync::Arc::new(Workspace::new());
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("noted"), text("noted again"), text("recalled")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "remember the number 4711");
        p.exp_string("noted").unwrap();
        type_line(&mut p, "my key is sk-test-key-0123456789");
        p.exp_string("noted again").unwrap();
        ctrl_d_exits_zero(p);

        let history = std::fs::read_to_string(w.home().join(".local/state/agent/history")).unwrap();
        assert!(history.contains("remember the number 4711"), "{history}");
        assert!(
            !history.contains("sk-test-key-0123456789") && history.contains("[REDACTED:AGENT_API_KEY]"),
            "{history}"
        );

        let mut p = chat(&w, &m, &[]);
        p.send("\x1b[A\x1b[A").unwrap();
        p.flush().unwrap();
        p.exp_string("remember the number 4711").unwrap();
        type_line(&mut p, "");
        p.exp_string("recalled").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let reqs = mock.requests().await;
    assert_eq!(contents(&reqs[2], "user"), ["remember the number 4711"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_chat_survives_a_failed_turn() {
    let ws = std::sync::Arc::new(Workspace::new());
    let mock = std::sync::Arc::new(
        MockLlm::start(vec![
            status(500, r#"{"error":{"message":"upstream exploded"}}"#),
            text("back to normal"),
        ])
        .await,
    );
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "first try");
        p.exp_string("upstream exploded").unwrap();
        type_line(&mut p, "second try");
        p.exp_string("back to normal").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_in_once_mode_exits_130_leaving_nothing_running() {
    let ws = std::sync::Arc::new(Workspace::new());
    let marker = marker(22);
    ws.skill(
        "sleepy",
        "# Sleepy\n\nSleeps for a long time.\n",
        Some(&format!("#!/bin/sh\nsleep 1005.{marker}\n")),
    );
    let mock = std::sync::Arc::new(
        MockLlm::start(vec![
            tool("activate_skill", json!({"name": "sleepy"})),
            tool("run_command", json!({"command": "./run.sh"})),
        ])
        .await,
    );
    let (w, m, mk) = (ws.clone(), mock.clone(), marker.clone());
    blocking(move || {
        let mut cmd = pty_command(&w);
        talking_to(&mut cmd, &m)
            .arg("--skills-dir")
            .arg(w.skills())
            .args(["--yes", "--once", "sleep please"]);
        let mut p = spawn_command(cmd, Some(10_000)).unwrap();
        p.exp_string("run [sleepy] ./run.sh").unwrap();
        wait_until("the command's sleep", || processes_with(&mk).len() == 1);
        p.send_control('c').unwrap();
        p.exp_eof().unwrap();
        assert!(matches!(p.process().wait().unwrap(), WaitStatus::Exited(_, 130)));
        wait_until("the command to end", || processes_with(&mk).is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn history_shows_whole_multi_line_messages() {
    let ws = std::sync::Arc::new(Workspace::new());
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("got both lines")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        for line in ["\"\"\"", "line one", "line two"] {
            type_line(&mut p, line);
            p.exp_string(&pty_text("… ")).unwrap();
        }
        type_line(&mut p, "\"\"\"");
        p.exp_string("got both lines").unwrap();
        type_line(&mut p, "/history");
        p.exp_string("you:   line one\r\n       line two").unwrap();
        p.exp_string("agent: got both lines").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    assert_eq!(contents(&mock.requests().await[0], "user"), ["line one\nline two"]);
}

/// `agent skills list` in a pseudo-terminal `columns` wide; returns everything it printed.
fn list_on_a_terminal(ws: &Workspace, columns: &str) -> String {
    let mut cmd = pty_agent(ws);
    cmd.env("COLUMNS", columns).args(["skills", "list"]);
    let mut p = spawn_command(cmd, Some(10_000)).unwrap();
    let out = p.exp_eof().unwrap();
    assert!(matches!(p.process().wait().unwrap(), WaitStatus::Exited(_, 0)));
    from_pty(&out)
}

#[test]
fn skills_list_is_a_table_that_fits_the_terminal() {
    let ws = Workspace::new();
    let long = "Look up GitHub repositories, open issues, pull requests and users through the GitHub API, \
                with rate limits handled and pagination followed. Use for anything about GitHub.";
    ws.skill(
        "github-lookup",
        &format!("---\nname: github-lookup\ndescription: {long}\n---\n"),
        None,
    );
    ws.skill(
        "time",
        "---\nname: time\ndescription: Local time in a city.\n---\n",
        None,
    );
    for columns in ["120", "60"] {
        let out = list_on_a_terminal(&ws, columns);
        let width: usize = columns.parse().unwrap();
        let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(lines[0].starts_with("NAME           DIALECT       STATUS"), "{out}");
        assert!(lines[0].ends_with("DESCRIPTION"), "{out}");
        for line in &lines {
            assert!(line.chars().count() <= width, "{columns} columns, yet: {line:?}");
        }
        let github = lines.iter().find(|l| l.starts_with("github-lookup")).unwrap();
        assert!(github.ends_with('…'), "{github}");
        // Cut after a whole word of the description.
        let shown = github.rsplit("  ").next().unwrap().trim_end_matches('…');
        assert!(long.starts_with(shown), "{shown:?}");
        let next = long[shown.len()..].chars().next().unwrap();
        assert!(next == ' ' || next == ',', "cut mid-word: {shown:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("time ") && l.ends_with("Local time in a city."))
        );
        // Wide enough for the ROOT column, or it gives way to the description.
        assert_eq!(lines[0].contains("ROOT"), columns == "120", "{out}");
    }
}

/// Every JSON object in terminal output (the chat draws its prompt around them).
fn json_lines(out: &str) -> Vec<serde_json::Value> {
    from_pty(out)
        .lines()
        .filter_map(|l| {
            let start = l.find("{\"v\":1")?;
            let end = l.rfind('}')?;
            serde_json::from_str(&l[start..=end]).ok()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn with_json_every_chat_command_answers_a_documented_line() {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city.\n---\nWEATHER-BODY\n",
        None,
    );
    // A stored session for /resume; the one reply is the summary /compact asks for.
    ws.write_session(
        "20261130-101010-abcd",
        &[
            json!({"type":"message","role":"user","content":"earlier question"}),
            json!({"type":"message","role":"assistant","content":"earlier answer"}),
        ],
    );
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("SUMMARY")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = pty_agent(&w);
        talking_to(&mut cmd, &m)
            .env("AGENT_CONTEXT_WINDOW", "32768")
            .arg("--json");
        let mut p = spawn_command(cmd, Some(10_000)).unwrap();
        let mut all = String::new();
        let mut until = |p: &mut PtySession, needle: &str| {
            all.push_str(&p.exp_string(needle).unwrap());
            all.push_str(needle);
        };
        until(&mut p, "\"type\":\"chat_started\"");
        for (line, answer) in [
            ("/help", "help"),
            ("/skills", "skills"),
            ("/skill weather", "skill_activated"),
            ("/skill", "command_error"),
            ("/model other-model", "model"),
            ("/approve", "approval"),
            ("/history", "history"),
            ("/reload", "reloaded"),
            ("/mcp", "mcp"),
            ("/usage", "usage"),
            ("/context", "context"),
            ("/sessions", "sessions"),
            ("/export", "exported"),
            ("/fork", "forked"),
            ("/resume 20261130", "resumed"),
            ("/compact", "compacted"),
            ("/frobnicate", "unknown_command"),
            ("/reset", "reset"),
        ] {
            type_line(&mut p, line);
            until(&mut p, &format!("\"type\":\"{answer}\""));
        }
        type_line(&mut p, "/exit");
        all.push_str(&p.exp_eof().unwrap());
        all
    })
    .await
    .unwrap();
    let doc = crate::common::events_doc::EventsDoc::read();
    let lines = json_lines(&out);
    let kinds: Vec<String> = lines
        .iter()
        .map(|l| doc.validate_typed(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let chat_types = doc.sections(crate::common::events_doc::Part::Chat);
    // `command`, `skill command` and `history entry` are items of `help` and `history`, not
    // types of their own.
    for kind in chat_types
        .iter()
        .filter(|k| !matches!(**k, "command" | "skill command" | "history entry"))
    {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} line in {kinds:?}");
    }
    assert_eq!(kinds.first().map(String::as_str), Some("session"));
    assert_eq!(kinds.last().map(String::as_str), Some("done"));
    let model = lines.iter().find(|l| l["type"] == "model").unwrap();
    assert_eq!(
        (model["model"].as_str(), model["changed"].as_bool()),
        (Some("other-model"), Some(true))
    );
    let error = lines.iter().find(|l| l["type"] == "command_error").unwrap();
    assert_eq!(error["message"], "usage: /skill NAME [arguments]");
    assert!(
        !from_pty(&out).contains("/help for commands"),
        "no human banner in JSON mode"
    );
    let asked = mock.requests().await;
    assert_eq!(asked.len(), 1, "only /compact talked to the model");
    assert!(
        all_text(&asked[0]).contains("earlier answer"),
        "it summarized the resumed session"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn lines_typed_while_the_agent_is_busy_all_run_in_order() {
    let ws = std::sync::Arc::new(Workspace::new());
    let slow = Reply::Raw(
        wiremock::ResponseTemplate::new(200)
            .set_delay(Duration::from_millis(800))
            .set_body_raw(sse_body(&text("slow answer")), "text/event-stream"),
    );
    let mock = std::sync::Arc::new(MockLlm::start(vec![slow]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "take your time");
        // Three lines at once while the turn runs, as a fast typist or a paste without brackets.
        p.send("/model\r/approve\r/usage\r").unwrap();
        p.flush().unwrap();
        p.exp_string("slow answer").unwrap();
        p.exp_string("model: gpt-4.1-mini").unwrap();
        p.exp_string("approval policy: ask").unwrap();
        p.exp_string("session: ").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_turn_counts_in_usage_shows_in_history_and_is_exported_once() {
    let ws = std::sync::Arc::new(Workspace::new());
    let slow = too_late();
    let mock = std::sync::Arc::new(MockLlm::start(vec![slow, text("fresh answer")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    let export = ws.work().join("out.md");
    let path = export.clone();
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "take your time");
        thinking_about(&mut p, &m, 1);
        p.send_control('c').unwrap();
        p.exp_string("interrupted").unwrap();
        type_line(&mut p, "/usage");
        // The request was sent: it counts as one call, its tokens estimated from its bytes.
        let usage = p.exp_string("session: ").unwrap();
        let line = usage.lines().find(|l| l.contains("take your time")).unwrap_or_default();
        let prompt: Vec<&str> = line.split_whitespace().take(3).collect();
        assert!(
            prompt.len() == 3 && prompt[1].starts_with('~') && prompt[1] != "~0" && prompt[2] == "in",
            "{usage}"
        );
        assert!(!line.contains("calls)"), "one call: {usage}");
        type_line(&mut p, "are you there?");
        p.exp_string("fresh answer").unwrap();
        type_line(&mut p, "/history");
        p.exp_string("you:   take your time").unwrap();
        p.exp_string("agent: [interrupted by the user]").unwrap();
        p.exp_string("you:   are you there?").unwrap();
        p.exp_string("agent: fresh answer").unwrap();
        type_line(&mut p, &format!("/export {}", path.display()));
        p.exp_string("out.md").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let md = std::fs::read_to_string(&export).unwrap();
    assert_eq!(md.matches("nterrupted by the user").count(), 1, "{md}");
    assert!(md.contains("*Interrupted by the user.*"), "{md}");
}

/// A skill whose description is longer than any terminal line.
const LONG: &str = "Look up GitHub repositories, open issues, pull requests and users through the GitHub API, \
                    with rate limits handled and pagination followed. Use for anything about GitHub.";

/// Lines of `out` that say something.
fn said(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// The line showing `name` fits `width` and ends in a description cut after a whole word.
fn cut_at_a_word(lines: &[String], name: &str, width: usize) {
    for line in lines {
        assert!(line.chars().count() <= width, "{width} columns, yet: {line:?}");
    }
    let line = lines.iter().find(|l| l.contains(name)).unwrap();
    assert!(line.ends_with('…'), "{line}");
    let shown = line.rsplit("  ").next().unwrap().trim_end_matches('…');
    assert!(LONG.starts_with(shown), "{shown:?}");
    let next = LONG[shown.len()..].chars().next().unwrap();
    assert!(next == ' ' || next == ',', "cut mid-word: {shown:?}");
}

#[test]
fn skills_search_fits_the_terminal_and_cuts_at_a_word() {
    let ws = Workspace::new();
    ws.skill(
        "github-lookup",
        &format!("---\nname: github-lookup\ndescription: {LONG}\n---\n"),
        None,
    );
    let mut cmd = pty_agent(&ws);
    cmd.env("COLUMNS", "60").args(["skills", "search", "github issues"]);
    let mut p = spawn_command(cmd, Some(10_000)).unwrap();
    let out = from_pty(&p.exp_eof().unwrap());
    assert!(matches!(p.process().wait().unwrap(), WaitStatus::Exited(_, 0)));
    let lines = said(&out);
    assert!(
        lines[0].starts_with("#  SKILL") && lines[0].ends_with("DESCRIPTION"),
        "{out}"
    );
    cut_at_a_word(&lines, "github-lookup", 60);
}

#[tokio::test(flavor = "multi_thread")]
async fn help_fits_the_terminal_and_cuts_descriptions_at_a_word() {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill(
        "github-lookup",
        &format!("---\nname: github-lookup\ndescription: {LONG}\n---\n"),
        None,
    );
    let mock = std::sync::Arc::new(MockLlm::start(vec![]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut cmd = pty_agent(&w);
        talking_to(&mut cmd, &m).env("COLUMNS", "70");
        let mut p = spawn_command(cmd, Some(10_000)).unwrap();
        p.exp_string("/help for commands").unwrap();
        type_line(&mut p, "/help");
        let out = from_pty(&p.exp_string("Ctrl-D leaves").unwrap());
        let lines: Vec<String> = said(&out).into_iter().skip_while(|l| !l.contains("/help ")).collect();
        cut_at_a_word(&lines, "/github-lookup", 70);
        assert!(
            lines.iter().any(|l| l.starts_with("  /export") && l.ends_with('…')),
            "{out}"
        );
        ctrl_d_exits_zero(p);
    })
    .await;
}
