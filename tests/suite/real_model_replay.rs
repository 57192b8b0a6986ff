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
        .args(["--once", request]);
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
