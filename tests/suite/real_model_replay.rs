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
/// exit code and events. A departure from the recording is exit 4 with the call named on stderr.
async fn replay(cassette: &str, request: &str) -> (i32, Vec<Value>) {
    let ws = Workspace::new();
    copy_dir(&fixture("inputs"), &ws.work());
    let mut cmd = ws.bare_agent();
    // The recording server (llama.cpp with a small model) made the agent choose its compact
    // prompt; a replay has no server to ask, so it is named.
    cmd.env("AGENT_PROMPT", "compact")
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

/// Qwen2.5-Coder-1.5B wrote every call as text: the skill named as if it were a tool, in a
/// ```json fence (`{"name": "word-count", "arguments": {"text": "essay.txt"}}`), then
/// run_command in a fence. Both are recovered, the skill's own script runs pre-approved, and the
/// model's last word (the skill activated again, then an empty reply) ends the turn without an
/// answer: a warning, not a crash.
#[tokio::test]
async fn fenced_text_calls_from_the_1_5b_model_run_the_skills_script() {
    let (code, events) = replay("qwen1.5b-words-fenced-calls.jsonl", "How many words are in essay.txt?").await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["word-count"]);
    let recovered = of_type(&events, "tool_call_recovered");
    assert!(recovered.len() >= 2, "{events:?}");
    assert_eq!(recovered[0]["tool"], "activate_skill");
    assert_eq!(recovered[0]["shape"], "fenced json");
    assert_eq!(recovered[1]["tool"], "run_command");
    let started = of_type(&events, "command_started");
    assert_eq!(started.len(), 1, "{events:?}");
    assert!(
        started[0]["command"].as_str().unwrap().contains("count.py essay.txt"),
        "{started:?}"
    );
    assert!(
        started[0]["argv"].is_array(),
        "the skill's own script runs pre-approved, without a shell: {started:?}"
    );
    let finished = of_type(&events, "command_finished");
    assert_eq!(finished[0]["exit_code"], 0, "{finished:?}");
    assert!(of_type(&events, "command_denied").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "done").len(), 1);
}

/// Qwen2.5-Coder-0.5B wrote its calls as bare JSON, two in one reply, counted the wrong file
/// (notes.txt), then asked three times for essay.md, which does not exist, activating the skill
/// again before each try, and ended with an empty reply. Every call is recovered and runs; the
/// failures are the script's own (exit 1), none is denied, and the turn ends.
#[tokio::test]
async fn the_0_5b_models_wrong_files_and_repeated_calls_end_the_turn() {
    let (code, events) = replay("qwen0.5b-words-wrong-files.jsonl", "How many words are in essay.txt?").await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["word-count"]);
    let recovered = of_type(&events, "tool_call_recovered");
    assert!(recovered.len() >= 6, "{events:?}");
    assert!(recovered.iter().all(|e| e["shape"] == "json"), "{recovered:?}");
    let commands = field(&events, "command_started", "command");
    assert_eq!(commands.len(), 4, "{events:?}");
    assert!(commands[0].contains("notes.txt"), "{commands:?}");
    assert!(commands[1..].iter().all(|c| c.contains("essay.md")), "{commands:?}");
    let exits: Vec<Value> = of_type(&events, "command_finished")
        .iter()
        .map(|e| e["exit_code"].clone())
        .collect();
    assert_eq!(exits, [0, 1, 1, 1]);
    assert!(of_type(&events, "command_denied").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "done").len(), 1);
}

/// The agent pre-activated the time skill (a clear winner for the request) and Qwen2.5-Coder-1.5B
/// answered at once in the format of the skill's usage line with a time it made up
/// ("Tokyo (Asia/Tokyo): 2023-07-21 10:30 JST, UTC+09:00, Friday"): nothing ran.
#[tokio::test]
async fn an_invented_time_after_a_pre_activation_runs_nothing() {
    let (code, events) = replay(
        "qwen1.5b-time-preactivated-invented.jsonl",
        "What time is it in Tokyo right now?",
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["time"]);
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert!(of_type(&events, "tool_call_recovered").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "message").len(), 1);
}

/// That answer is marked: a skill with commands was active and none ran, so the answer rests on
/// nothing (answer_unverified), whether the model or the agent activated the skill.
#[tokio::test]
async fn an_invented_time_after_a_pre_activation_is_marked() {
    let (_, events) = replay(
        "qwen1.5b-time-preactivated-invented.jsonl",
        "What time is it in Tokyo right now?",
    )
    .await;
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    assert_eq!(marked[0]["skill"], "time");
}
