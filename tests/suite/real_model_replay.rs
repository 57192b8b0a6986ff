//! Exchanges recorded from a real small model (Qwen2.5-Coder on llama.cpp, bench/real_model/,
//! issue 33), replayed through the real binary: no server, no key; the skills' scripts run for
//! real, so each replay checks what the agent made of what that model actually wrote (a native
//! call, a call written as text, an answer with nothing run). The assertions are on the events,
//! never on the answer's wording.
//!
//! The cassettes were recorded by `bench/real_model/run.py --record-dir` with the catalog a user
//! has there: the bench's skills (`tests/fixtures/real_model/skills`, copies of
//! bench/real_model/skills) and the bundled ones (`tests/fixtures/real_model/bundled`, copies of
//! this checkout's skills/ as they were then), named in that order. A replay must offer the same
//! catalog, so these are copies: editing a bundled skill does not break them.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    repo_path("tests/fixtures/real_model").join(rel)
}

/// Copy `from` into `to`, files with their permission bits (scripts stay executable).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn events(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn field(events: &[Value], kind: &str, name: &str) -> Vec<String> {
    of_type(events, kind)
        .iter()
        .map(|e| e[name].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Replay `cassette` for `request` in a fresh workspace holding a copy of the fixture inputs:
/// exit code and events; `preactivated` when the agent pre-activated a skill in the recording.
/// A departure from the recording is exit 4 with the call named on stderr.
async fn replay(cassette: &str, request: &str, preactivated: bool) -> (i32, Vec<Value>) {
    replay_with(cassette, request, preactivated, &[]).await
}

/// [`replay`] of an exchange recorded with guided calls, as llama.cpp got them (at temperature 0,
/// where the compact prompt asks for it).
async fn replay_guided(cassette: &str, request: &str, preactivated: bool) -> (i32, Vec<Value>) {
    let env = [("AGENT_GUIDED_CALLS", "on"), ("AGENT_TEMPERATURE", "auto")];
    replay_with(cassette, request, preactivated, &env).await
}

/// [`replay`] with `env` set last.
async fn replay_with(cassette: &str, request: &str, preactivated: bool, env: &[(&str, &str)]) -> (i32, Vec<Value>) {
    let ws = Workspace::new();
    copy_dir(&fixture("inputs"), &ws.work());
    let mut cmd = ws.bare_agent();
    // The recording server (llama.cpp with a small model) made the agent choose its compact
    // prompt; a replay has no server to ask, so it is named. Pre-activation is as it was when
    // the exchange was recorded: where it did not fire then, a wider rule for it since must not
    // change the first request.
    // They were recorded at llama.cpp's own sampling, before the compact prompt asked for
    // temperature 0: none is sent, so the requests are the recorded ones.
    cmd.env("AGENT_PROMPT", "compact")
        .env("AGENT_TEMPERATURE", "default")
        .env("AGENT_PREACTIVATE", if preactivated { "1" } else { "0" })
        .args(["--json", "--approve", "auto", "--skills-dir"])
        .arg(fixture("skills"))
        .arg("--skills-dir")
        .arg(fixture("bundled"))
        .arg("--replay")
        .arg(fixture(cassette))
        .args(["--once", request])
        .envs(env.iter().copied());
    let (code, out, err) = run_outcome(cmd).await;
    // With --json the error is an event on stdout; look at both.
    let said = format!("{out}{err}");
    assert!(
        !said.contains("departs from the cassette") && !said.contains("but the cassette"),
        "the replay departed from the recording (re-record with bench/real_model/run.py --record-dir): {said}"
    );
    assert!(!out.is_empty(), "{err}");
    (code, events(&out))
}

/// The agent pre-activated json-query; the 1.5B model answered "5000" with nothing run. Told to
/// run the command, it wrote the call in call syntax, `Run_command("scripts/json_get.py …")`: the
/// call is recovered, the skill's own script runs pre-approved (without a shell) on the real
/// config.json, and the answer carries the port it printed (8443), unmarked.
#[tokio::test]
async fn a_call_in_call_syntax_by_the_1_5b_model_runs_the_skills_script() {
    let (code, events) = replay(
        "qwen1.5b-json-call-syntax.jsonl",
        "What port does the server in config.json listen on?",
        true,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["json-query"]);
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(
        field(&events, "tool_call_recovered", "shape"),
        ["call syntax"],
        "{events:?}"
    );
    let started = of_type(&events, "command_started");
    assert_eq!(started.len(), 1, "{events:?}");
    assert!(
        started[0]["argv"].is_array(),
        "the skill's own script, without a shell: {started:?}"
    );
    assert_eq!(of_type(&events, "command_finished")[0]["exit_code"], 0, "{events:?}");
    let shown = format!(
        "{}{}",
        field(&events, "message_delta", "text").concat(),
        field(&events, "message", "text").concat()
    );
    assert!(shown.contains("8443") && !shown.contains("5000"), "{shown}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
}

/// The 1.5B model answered "MCMXVII" for 1987 with nothing run (wrong: it is MCMLXXXVII). The
/// reply is set aside, never shown; told to run the command, the model ran the skill's script and
/// answered from its output.
#[tokio::test]
async fn a_second_chance_turns_an_invented_answer_into_the_scripts_output() {
    let (code, events) = replay(
        "qwen1.5b-roman-invented-then-run.jsonl",
        "What is 1987 in Roman numerals?",
        true,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "command_finished").len(), 1, "{events:?}");
    let shown = format!(
        "{}{}",
        field(&events, "message_delta", "text").concat(),
        field(&events, "message", "text").concat()
    );
    assert!(
        !shown.contains("MCMXVII"),
        "the invented answer never reached the user: {shown}"
    );
    assert!(shown.contains("MCMLXXXVII"), "{shown}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
}

/// The agent pre-activated json-query; the 1.5B model answered "5000" with nothing run. That
/// reply is set aside and the model told to run the command; it apologised instead, and that
/// second answer is marked.
#[tokio::test]
async fn an_invented_value_gets_a_second_chance_and_the_second_answer_is_marked() {
    let (code, events) = replay(
        "qwen1.5b-json-invented-then-apology.jsonl",
        "What port does the server in config.json listen on?",
        true,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["json-query"]);
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    let shown = format!(
        "{}{}",
        field(&events, "message_delta", "text").concat(),
        field(&events, "message", "text").concat()
    );
    assert!(
        !shown.contains("5000"),
        "the invented value never reached the user: {shown}"
    );
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    assert_eq!(marked[0]["skill"], "json-query");
}

/// After activating file-hash, the 1.5B model twice wrote a `<tool_response>` of its own (the
/// activation text, echoed) instead of running the script: nothing runs, and the answer is
/// marked as dressed as output no command printed.
#[tokio::test]
async fn an_imitated_tool_result_runs_nothing_and_is_marked() {
    let (code, events) = replay(
        "qwen1.5b-hash-imitated-tool-result.jsonl",
        "What is the SHA-256 of fox.txt?",
        false,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["file-hash"]);
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    assert!(
        marked[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no command of this turn printed"),
        "{marked:?}"
    );
}

/// All the text that reached the screen: what streamed and the final message.
fn shown(events: &[Value]) -> String {
    format!(
        "{}{}",
        field(events, "message_delta", "text").concat(),
        field(events, "message", "text").concat()
    )
}

/// Pre-activated, the 1.5B model answered "1984" for MCMXCIV with nothing run (wrong: 1994). On
/// the second chance the request was held to a run of the skill's own script (a guided call, as
/// llama.cpp held it), the reply ran as that call, and the answer is what the script printed.
#[tokio::test]
async fn a_guided_second_chance_runs_the_skills_script() {
    let (code, events) = replay_guided(
        "qwen1.5b-roman-guided-second-chance.jsonl",
        "What number is the Roman numeral MCMXCIV?",
        true,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(field(&events, "tool_call_recovered", "shape"), ["guided"], "{events:?}");
    assert_eq!(of_type(&events, "command_finished")[0]["exit_code"], 0, "{events:?}");
    let shown = shown(&events);
    assert!(shown.contains("1994") && !shown.contains("1984"), "{shown}");
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
}

/// Pre-activated, the model ran word-count on the example's `essay.md` for a request about
/// `essay.txt`, as `python scripts/count.py essay.md`. The command was held back before it ran,
/// the model was told the request's value, and the guided retry counted the right file.
#[tokio::test]
async fn a_value_copied_from_the_example_is_held_back_and_the_right_file_counted() {
    // The recording machine had a `python` on its PATH; where there is none, the command is held
    // back for that first (no program), and the replay departs. Give every machine one.
    let bin = tempfile::tempdir().unwrap();
    write_script(&bin.path().join("python"), "#!/bin/sh\nexec python3 \"$@\"\n");
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let env = [
        ("AGENT_GUIDED_CALLS", "on"),
        ("AGENT_TEMPERATURE", "auto"),
        ("PATH", path.as_str()),
    ];
    let (code, events) = replay_with(
        "qwen1.5b-wc-example-value-held-back.jsonl",
        "How many characters does essay.txt have?",
        true,
        &env,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    let denied = of_type(&events, "command_denied");
    assert_eq!(denied.len(), 1, "{events:?}");
    assert!(
        denied[0]["command"].as_str().unwrap().contains("essay.md"),
        "{denied:?}"
    );
    let finished = of_type(&events, "command_finished");
    assert_eq!(finished.len(), 1, "{events:?}");
    assert!(
        finished[0]["command"].as_str().unwrap().ends_with("essay.txt"),
        "{finished:?}"
    );
    // The real count the script printed for the fixture's essay.txt.
    assert!(shown(&events).contains("620"), "{events:?}");
}

/// The log skill's summary failed before the log was parsed; the model explained both steps to
/// the user instead. Told to run it, guided, it parsed the log, then wrote the same explanation
/// again: a stuck model, asked once more and guided to the step not yet done, ran the summary and
/// answered with its count.
#[tokio::test]
async fn told_to_the_user_then_stuck_the_model_is_guided_through_both_steps() {
    let (code, events) = replay_guided(
        "qwen1.5b-log-told-user-guided.jsonl",
        "How many ERROR lines are in app.log?",
        true,
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    let reasons = field(&events, "answer_retried", "reason");
    assert_eq!(reasons.len(), 2, "{events:?}");
    assert!(
        reasons[0].contains("tells the user to run") && reasons[1].contains("repeats"),
        "{reasons:?}"
    );
    // Its first call was plain JSON text; the two after the retries were guided.
    assert_eq!(
        field(&events, "tool_call_recovered", "shape"),
        ["json", "guided", "guided"],
        "{events:?}"
    );
    let exits: Vec<i64> = of_type(&events, "command_finished")
        .iter()
        .map(|e| e["exit_code"].as_i64().unwrap())
        .collect();
    assert_eq!(exits, [1, 0, 0], "{events:?}");
    let shown = shown(&events);
    assert!(shown.contains("13") && !shown.contains("Here are the steps"), "{shown}");
}
