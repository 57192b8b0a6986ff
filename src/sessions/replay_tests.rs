use super::*;
use crate::llm::ToolCall;
use crate::llm::types::FunctionCall;
use crate::sessions::record::CallUsage;

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        kind: "function",
        function: FunctionCall {
            name: name.into(),
            arguments: args.into(),
        },
    }
}

fn msg(m: ChatMessage) -> Record {
    Record::Message(m)
}

fn usage(p: u64, c: u64, estimated: bool) -> Record {
    Record::Usage(CallUsage {
        prompt_tokens: p,
        completion_tokens: c,
        estimated,
        ..Default::default()
    })
}

/// One skill turn: the user asks, the model activates `weather`, runs a command, answers.
fn skill_turn(question: &str, answer: &str) -> Vec<Record> {
    vec![
        msg(ChatMessage::user(question)),
        msg(ChatMessage::assistant(
            None,
            vec![call("a", "activate_skill", r#"{"name":"weather"}"#)],
        )),
        usage(100, 5, false),
        msg(ChatMessage::tool("a", "Skill weather activated. …body…")),
        Record::Activation {
            skill: "weather".into(),
            dir: "/s/weather".into(),
            hash: Some("h1".into()),
            by_hand: false,
        },
        msg(ChatMessage::assistant(
            None,
            vec![call("b", "run_command", r#"{"command":"./run.sh"}"#)],
        )),
        usage(150, 5, false),
        msg(ChatMessage::tool("b", "exit code: 0\nsunny")),
        msg(ChatMessage::assistant(Some(answer.into()), Vec::new())),
        usage(200, 10, false),
    ]
}

#[test]
fn a_finished_session_replays_as_it_was() {
    let records = skill_turn("weather in Tokyo", "Sunny.");
    let state = replay(&records);
    assert_eq!(state.messages.len(), 6);
    assert_eq!(state.current.as_deref(), Some("weather"));
    assert_eq!(state.held.len(), 1);
    assert_eq!(state.held[0].message, 2);
    assert_eq!(
        state.messages[2].content.as_deref(),
        Some("Skill weather activated. …body…")
    );
    assert_eq!(state.turns.len(), 1);
    assert_eq!(state.turns[0].calls, 3);
    assert_eq!(state.turns[0].prompt_tokens, 450);
    assert_eq!(state.turns[0].completion_tokens, 20);
    assert!(!state.turns[0].estimated);
}

#[test]
fn a_skill_sent_again_replaces_its_earlier_copy() {
    let mut records = skill_turn("weather in Tokyo", "Sunny.");
    records.extend([
        msg(ChatMessage::assistant(
            None,
            vec![call("m", "activate_skill", r#"{"name":"weather"}"#)],
        )),
        msg(ChatMessage::tool("m", "Skill weather activated. …new body…")),
        Record::Activation {
            skill: "weather".into(),
            dir: "/s/weather".into(),
            hash: Some("h2".into()),
            by_hand: true,
        },
    ]);
    let state = replay(&records);
    assert_eq!(state.held.len(), 1);
    assert_eq!((state.held[0].hash.as_str(), state.held[0].message), ("h2", 7));
    assert_eq!(
        state.messages[2].content.as_deref(),
        Some(crate::sessions::freshness::superseded_note("weather").as_str())
    );
}

#[test]
fn an_unfinished_turn_is_left_as_it_was() {
    let mut records = skill_turn("weather in Tokyo", "Sunny.");
    records.extend(skill_turn("and Oslo?", "Rain.").into_iter().take(7));
    let state = replay(&records);
    assert_eq!(state.messages.len(), 10);
    assert_eq!(state.messages.last().unwrap().tool_calls.len(), 1);
    assert_eq!(state.turns.len(), 2);
    assert_eq!(state.held.len(), 1, "re-activating a held skill adds no second copy");
}

#[test]
fn compaction_and_reset_start_the_request_afresh_but_keep_the_turns() {
    let mut records = skill_turn("one", "1");
    records.push(Record::Compaction {
        summary: "asked for weather".into(),
        replaced: 6,
        focus: None,
        auto: false,
        skills: vec!["weather".into()],
    });
    records.push(usage(30, 3, true));
    records.push(msg(ChatMessage::assistant(
        Some(crate::sessions::compact::SUMMARY_ACK.into()),
        Vec::new(),
    )));
    let state = replay(&records);
    assert_eq!(state.messages.len(), 2);
    assert!(
        state.messages[0]
            .content
            .as_deref()
            .unwrap()
            .ends_with("asked for weather")
    );
    assert_eq!(state.turns.len(), 1, "the summary is no turn of the user's");
    assert!(state.held.is_empty());
    assert_eq!(state.current.as_deref(), Some("weather"));
    assert!(state.turns.last().unwrap().estimated);
    let mut reset = records.clone();
    reset.extend([Record::Reset, Record::Model { model: "big".into() }]);
    reset.push(Record::Grant {
        skill: "weather".into(),
    });
    let state = replay(&reset);
    assert!(state.messages.is_empty() && state.current.is_none());
    assert_eq!(state.model.as_deref(), Some("big"));
    assert!(state.grants.contains("weather"));
}
