//! Session storage costs, printed as markdown for BENCHMARKS.md: bytes a typical skill turn adds
//! to a session file, and the time to open and rebuild a session of 200 such turns (what
//! `--continue` does before its first request). Library level: no process start, no network.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use std::time::{Duration, Instant};

use agent::agent::prompt::activation;
use agent::llm::types::FunctionCall;
use agent::llm::{ChatMessage, ToolCall};
use agent::sessions::replay::replay;
use agent::sessions::{CallUsage, NewSession, Record, SessionStore};
use agent::support::redact::Redactor;

const TURNS: usize = 200;
const RUNS: usize = 30;

fn call(id: String, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id,
        kind: "function",
        function: FunctionCall {
            name: name.into(),
            arguments: args.to_string(),
        },
    }
}

fn usage(prompt_tokens: u64, completion_tokens: u64) -> Record {
    Record::Usage(CallUsage {
        prompt_tokens,
        completion_tokens,
        estimated: false,
        ..CallUsage::default()
    })
}

/// One typical skill turn as the agent records it: the question, the activation (the bundled
/// weather skill's real SKILL.md), one command with a short output, the answer, three calls' usage.
fn skill_turn(i: usize, body: &str) -> Vec<Record> {
    let (a, b) = (format!("call_{i}_a"), format!("call_{i}_b"));
    let skill_dir = "/home/me/.agents/skills/weather";
    vec![
        Record::Message(ChatMessage::user(format!("what's the weather in city number {i}?"))),
        Record::Message(ChatMessage::assistant(
            None,
            vec![call(
                a.clone(),
                "activate_skill",
                serde_json::json!({"name": "weather"}),
            )],
        )),
        usage(1200, 12),
        Record::Message(ChatMessage::tool(
            a,
            activation("weather", skill_dir, "/home/me/project", "run.sh", body),
        )),
        Record::Activation {
            skill: "weather".into(),
            dir: skill_dir.into(),
            hash: Some("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into()),
            by_hand: false,
        },
        Record::Message(ChatMessage::assistant(
            None,
            vec![call(
                b.clone(),
                "run_command",
                serde_json::json!({"command": format!("./run.sh 'City {i}'")}),
            )],
        )),
        usage(1500, 15),
        Record::Message(ChatMessage::tool(
            b,
            format!("exit code: 0\nstdout:\nCity {i}: ⛅️ +12°C ↙11km/h 64%\n"),
        )),
        Record::Message(ChatMessage::assistant(
            Some(format!(
                "In City {i} it is partly cloudy, 12 °C, with a light south-west wind and 64 % humidity."
            )),
            Vec::new(),
        )),
        usage(1600, 30),
    ]
}

fn start() -> NewSession {
    NewSession {
        model: "gpt-4.1-mini".into(),
        base_url: "https://api.openai.com/v1".into(),
        provider: Some("openai".into()),
        skill_roots: vec!["/home/me/.agents/skills".into(), "/home/me/project/skills".into()],
        cwd: "/home/me/project".into(),
        parent: None,
        chat: true,
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let body = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/skills/weather/SKILL.md"))
        .expect("the bundled weather skill");
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = SessionStore::at(dir.path().join("sessions"));

    let mut writer = store.create(start(), Redactor::NONE).expect("a session");
    let header = std::fs::metadata(writer.path()).expect("its file").len();
    for record in skill_turn(0, &body) {
        writer.append(&record).expect("a record");
    }
    let one_turn = std::fs::metadata(writer.path()).expect("its file").len() - header;
    let first_id = writer.id().clone();
    drop(writer);

    let mut writer = store.create(start(), Redactor::NONE).expect("a session");
    for i in 0..TURNS {
        for record in skill_turn(i, &body) {
            writer.append(&record).expect("a record");
        }
    }
    let id = writer.id().clone();
    let size = std::fs::metadata(writer.path()).expect("its file").len();
    drop(writer);
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let opened = store.open(&id, start(), Redactor::NONE).expect("the session opens");
        let state = replay(&opened.loaded.records);
        times.push(started.elapsed());
        assert_eq!(state.turns.len(), TURNS);
    }
    let resume = median(times);
    assert!(store.load(&first_id).is_ok());

    println!("| measure | value |\n|---|---|");
    println!("| header record | {header} bytes |");
    println!("| one skill turn (question, activation, one command, answer, 3 usage records) | {one_turn} bytes |");
    println!(
        "| of which the skill's instructions (activation result) | {} bytes |",
        activation(
            "weather",
            "/home/me/.agents/skills/weather",
            "/home/me/project",
            "run.sh",
            &body
        )
        .len()
    );
    println!("| session of {TURNS} such turns | {:.1} KB |", size as f64 / 1024.0);
    println!(
        "| open and rebuild it (lock, read, parse, replay; median of {RUNS}) | {:.2} ms |",
        resume.as_secs_f64() * 1000.0
    );
}
