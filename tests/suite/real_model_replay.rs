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

/// Qwen2.5-Coder-1.5B activated csv-stats with a call in a ```json fence, then ran its script
/// with a bare JSON object: both are recovered, the skill's own script runs pre-approved
/// (without a shell) on the real sales.csv, and the answer rests on its output.
#[tokio::test]
async fn calls_written_as_text_by_the_1_5b_model_run_the_skills_script() {
    let (code, events) = replay(
        "qwen1.5b-csv-mean-recovered-calls.jsonl",
        "What is the average amount in sales.csv?",
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["csv-stats"]);
    let recovered = of_type(&events, "tool_call_recovered");
    assert_eq!(recovered.len(), 2, "{events:?}");
    assert_eq!(
        (&recovered[0]["tool"], &recovered[0]["shape"]),
        (&"activate_skill".into(), &"fenced json".into())
    );
    assert_eq!(
        (&recovered[1]["tool"], &recovered[1]["shape"]),
        (&"run_command".into(), &"json".into())
    );
    let started = of_type(&events, "command_started");
    assert_eq!(started.len(), 1, "{events:?}");
    assert!(
        started[0]["argv"].is_array(),
        "the skill's own script, without a shell: {started:?}"
    );
    assert_eq!(of_type(&events, "command_finished")[0]["exit_code"], 0);
    assert!(of_type(&events, "answer_unverified").is_empty(), "{events:?}");
    assert!(of_type(&events, "answer_retried").is_empty(), "{events:?}");
}

/// The agent pre-activated json-query; the 1.5B model answered "5000" with nothing run. That
/// reply is set aside (never shown) and the model told to run the command; it apologised
/// instead, and that second answer is marked.
#[tokio::test]
async fn an_invented_value_gets_a_second_chance_and_the_second_answer_is_marked() {
    let (code, events) = replay(
        "qwen1.5b-json-invented-then-second-chance.jsonl",
        "What port does the server in config.json listen on?",
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["json-query"]);
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    let shown: String = field(&events, "message_delta", "text").concat();
    assert!(
        !shown.contains("5000"),
        "the invented value never reached the user: {shown}"
    );
    let messages = field(&events, "message", "text");
    assert_eq!(messages.len(), 1, "{events:?}");
    assert!(!messages[0].contains("5000"), "{messages:?}");
    let marked = of_type(&events, "answer_unverified");
    assert_eq!(marked.len(), 1, "{events:?}");
    assert_eq!(marked[0]["skill"], "json-query");
}

/// After activating report (a call in a fence), the 1.5B model wrote prose that names the
/// command in a ```bash block: text that mentions a command never runs. It gets its second
/// chance, answers without running anything, and is marked.
#[tokio::test]
async fn a_command_named_in_prose_never_runs_and_the_answer_is_marked() {
    let (code, events) = replay(
        "qwen1.5b-report-command-in-prose.jsonl",
        "Give me a briefing for Tokyo.",
    )
    .await;
    assert_eq!(code, 0, "{events:?}");
    assert_eq!(field(&events, "skill_selected", "skill"), ["report"]);
    assert_eq!(of_type(&events, "tool_call_recovered").len(), 1, "{events:?}");
    assert!(of_type(&events, "command_started").is_empty(), "{events:?}");
    assert_eq!(of_type(&events, "answer_retried").len(), 1, "{events:?}");
    assert_eq!(of_type(&events, "answer_unverified").len(), 1, "{events:?}");
}
