//! `--record` a real session against the mock, then `--replay` it with no server and no key.

use crate::common::{run_outcome as run, *};
use serde_json::Value;

const SKILL: &str = "# Echo\n\n## Description\nEchoes a greeting with the secret-free date.\n";
const RUN: &str = "#!/bin/sh\necho \"hello $1 from $SKILL_NAME token=$ECHO_TOKEN\"\n";

/// Events with run-dependent fields removed.
/// Events without timings and URLs, consecutive `message_delta`s joined: where deltas are split
/// depends on which secrets redaction holds back text for, and the replay has no API key.
fn stable_events(stdout: &str) -> Vec<Value> {
    let mut events: Vec<Value> = Vec::new();
    for line in stdout.lines() {
        let mut e: Value = serde_json::from_str(line).unwrap();
        if let Some(o) = e.as_object_mut() {
            o.remove("duration_ms");
            o.remove("base_url");
            // The recording run is stored as a session; a replay never is.
            o.remove("session_id");
        }
        if e["type"] == "message_delta"
            && let Some(last) = events.last_mut().filter(|l| l["type"] == "message_delta")
        {
            let joined = format!("{}{}", last["text"].as_str().unwrap(), e["text"].as_str().unwrap());
            last["text"] = Value::String(joined);
            continue;
        }
        events.push(e);
    }
    events
}

/// The agent replaying `cassette`: no base URL, no key, so any network use would fail.
fn replay_cmd(ws: &Workspace, cassette: &std::path::Path, message: &str, json: bool) -> assert_cmd::Command {
    let mut cmd = ws.bare_agent();
    cmd.env("ECHO_TOKEN", "tok-very-secret-123")
        .arg("--skills-dir")
        .arg(ws.skills())
        .arg("--replay")
        .arg(cassette)
        .args(["--once", message, "--yes"]);
    if json {
        cmd.arg("--json");
    }
    cmd
}

#[tokio::test]
async fn a_recorded_session_replays_without_server_or_key() {
    let ws = Workspace::new();
    ws.skill("echo", SKILL, Some(RUN));
    let cassette = ws.dir.path().join("session.jsonl");
    let mock = MockLlm::start(activate_run_answer(
        "echo",
        "./run.sh world",
        "The script said hello world.",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.env("ECHO_TOKEN", "tok-very-secret-123")
        .arg("--record")
        .arg(&cassette)
        .args(["--once", "greet the world", "--yes", "--json"]);
    let (code, recorded_out, err) = run(cmd).await;
    assert_eq!(code, 0, "{err}");
    drop(mock);

    let tape = std::fs::read_to_string(&cassette).unwrap();
    assert_eq!(tape.lines().count(), 3);
    assert!(!tape.contains("tok-very-secret-123") && tape.contains("[REDACTED:ECHO_TOKEN]"));
    assert!(
        !tape.contains("sk-test-key-0123456789"),
        "the API key never reaches a cassette"
    );
    assert!(tape.contains("<skill:echo>") && !tape.contains(ws.skills().to_str().unwrap()));

    let (code, replayed_out, err) = run(replay_cmd(&ws, &cassette, "greet the world", true)).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(stable_events(&replayed_out), stable_events(&recorded_out));
    let finished = stable_events(&replayed_out)
        .into_iter()
        .find(|e| e["type"] == "command_finished")
        .unwrap();
    assert_eq!(
        finished["exit_code"], 0,
        "the skill's script ran for real during the replay"
    );

    // Human mode gives the same answer too.
    let (code, out, err) = run(replay_cmd(&ws, &cassette, "greet the world", false)).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "The script said hello world.\n");
    assert_eq!(
        ws.session_files().len(),
        1,
        "only the recording run is stored, never a replay"
    );
}

#[tokio::test]
async fn departures_from_the_recording_are_reported() {
    let ws = Workspace::new();
    ws.skill("echo", SKILL, Some(RUN));
    let cassette = ws.dir.path().join("session.jsonl");
    let mock = MockLlm::start(activate_run_answer("echo", "./run.sh world", "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("ECHO_TOKEN", "tok-very-secret-123")
        .arg("--record")
        .arg(&cassette)
        .args(["--once", "greet the world", "--yes"]);
    assert_eq!(run(cmd).await.0, 0);
    drop(mock);

    // A different user message.
    let (code, _, err) = run(replay_cmd(&ws, &cassette, "greet the moon", false)).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("call 1 departs") && err.contains("the user message") && err.contains("greet the moon"),
        "{err}"
    );

    // A script whose output changed: the tool result of call 3 differs.
    write_script(&ws.skills().join("echo/run.sh"), "#!/bin/sh\necho \"goodbye $1\"\n");
    let (code, _, err) = run(replay_cmd(&ws, &cassette, "greet the world", false)).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("call 3 departs") && err.contains("a tool result") && err.contains("goodbye world"),
        "{err}"
    );

    // Running past the end of the cassette is an error, not a hang.
    write_script(&ws.skills().join("echo/run.sh"), RUN);
    let short = ws.dir.path().join("short.jsonl");
    let text = std::fs::read_to_string(&cassette).unwrap();
    std::fs::write(&short, text.lines().take(2).collect::<Vec<_>>().join("\n")).unwrap();
    let (code, _, err) = run(replay_cmd(&ws, &short, "greet the world", false)).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("call 3 but the cassette") && err.contains("holds only 2"),
        "{err}"
    );

    // A broken cassette file is a configuration error.
    std::fs::write(&short, "not json\n").unwrap();
    let (code, _, err) = run(replay_cmd(&ws, &short, "greet the world", false)).await;
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("short.jsonl:1"), "{err}");
}
