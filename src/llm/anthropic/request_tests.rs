use serde_json::json;

use super::*;
use crate::llm::types::{FunctionCall, ToolCall};

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

fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "activate_skill", "description": "Activate", "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "run_command", "parameters": {"type": "object"}}}
    ])
}

/// Where `cache_control` sits: ("tools"|"system"|"messages", index, block index).
fn breakpoints(body: &Value) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
        if t.get("cache_control").is_some() {
            out.push(("tools".into(), i, 0));
        }
    }
    for (i, b) in body["system"].as_array().into_iter().flatten().enumerate() {
        if b.get("cache_control").is_some() {
            out.push(("system".into(), i, 0));
        }
    }
    for (i, m) in body["messages"].as_array().into_iter().flatten().enumerate() {
        for (j, b) in m["content"].as_array().into_iter().flatten().enumerate() {
            if b.get("cache_control").is_some() {
                out.push(("messages".into(), i, j));
            }
        }
    }
    out
}

#[test]
fn system_tools_calls_and_parallel_results_take_the_messages_shape() {
    let thinking = json!({"type": "thinking", "thinking": "hmm", "signature": "sig"});
    let messages = [
        ChatMessage::system("rules and catalog"),
        ChatMessage::user("weather in Tokyo and Paris"),
        ChatMessage::assistant(
            Some("Checking both.".into()),
            vec![
                call("toolu_1", "run_command", r#"{"command":"./w Tokyo"}"#),
                call("call:2", "run_command", "not json"),
            ],
        )
        .with_thinking(vec![thinking.clone()]),
        ChatMessage::tool("toolu_1", "sunny"),
        ChatMessage::tool("call:2", ""),
    ];
    let body = body("claude-sonnet-5-5", 1024, true, &messages, &tools());
    assert_eq!(body["model"], "claude-sonnet-5-5");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["stream"], true);
    assert_eq!(body["system"][0]["text"], "rules and catalog");
    assert_eq!(body["tools"][0]["input_schema"]["properties"]["name"]["type"], "string");
    assert_eq!(
        body["tools"][1],
        json!({"name": "run_command", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}})
    );
    let wire = body["messages"].as_array().unwrap();
    assert_eq!(wire.len(), 3, "{wire:#?}");
    assert_eq!(wire[1]["role"], "assistant");
    assert_eq!(
        wire[1]["content"][0], thinking,
        "thinking comes back first and unchanged"
    );
    assert_eq!(wire[1]["content"][1]["text"], "Checking both.");
    assert_eq!(wire[1]["content"][2]["input"], json!({"command": "./w Tokyo"}));
    assert_eq!(wire[1]["content"][3]["id"], "call_2", "ids made valid");
    assert_eq!(
        wire[1]["content"][3]["input"],
        json!({}),
        "malformed arguments sent as none"
    );
    let results = wire[2]["content"].as_array().unwrap();
    assert_eq!(wire[2]["role"], "user");
    assert_eq!(results.len(), 2, "both results in one user message");
    assert_eq!(
        (results[0]["tool_use_id"].as_str(), results[0]["content"].as_str()),
        (Some("toolu_1"), Some("sunny"))
    );
    assert_eq!(results[1]["tool_use_id"], "call_2");
    assert!(results[1].get("content").is_none());
}

#[test]
fn breakpoints_cover_tools_system_where_the_last_request_ended_and_the_last_message() {
    let mut messages = vec![ChatMessage::system("s"), ChatMessage::user("one")];
    let first = body("m", 1, true, &messages, &tools());
    assert_eq!(
        breakpoints(&first),
        [
            ("tools".into(), 1, 0),
            ("system".into(), 0, 0),
            ("messages".into(), 0, 0)
        ]
    );
    messages.push(ChatMessage::assistant(Some("answer one".into()), Vec::new()));
    messages.push(ChatMessage::user("two").noted(Some("[agent: also pdf]".into())));
    let second = body("m", 1, true, &messages, &tools());
    let marks = breakpoints(&second);
    assert_eq!(marks.len(), MAX_BREAKPOINTS);
    assert_eq!(
        marks[2],
        ("messages".into(), 0, 0),
        "where the first turn's request ended"
    );
    assert_eq!(
        marks[3],
        ("messages".into(), 2, 0),
        "the user's words, not the note after them"
    );
    assert_eq!(
        second["messages"][2]["content"][1],
        json!({"type": "text", "text": "[agent: also pdf]"})
    );
    // Within the turn: a call and its result; the mark follows where the last request ended.
    messages.push(ChatMessage::assistant(None, vec![call("t1", "run_command", "{}")]));
    messages.push(ChatMessage::tool("t1", "ok"));
    let third = body("m", 1, true, &messages, &Value::Null);
    let marks = breakpoints(&third);
    assert_eq!(
        marks,
        [
            ("system".into(), 0, 0),
            ("messages".into(), 2, 0),
            ("messages".into(), 4, 0)
        ]
    );
}

/// `body` without its `cache_control` markers.
fn unmarked(mut body: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("cache_control");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut body);
    body
}

#[test]
fn the_next_turn_reads_an_unchanged_prefix_where_the_last_one_wrote() {
    let mut messages = vec![ChatMessage::system("s"), ChatMessage::user("one")];
    messages.push(ChatMessage::assistant(Some("a1".into()), Vec::new()));
    messages.push(ChatMessage::user("two"));
    let second = build("m", 1, true, &messages, &tools());
    messages.push(ChatMessage::assistant(Some("a2".into()), Vec::new()));
    messages.push(ChatMessage::user("three"));
    let third = build("m", 1, true, &messages, &tools());
    let bytes = |v: &dyn erased::Ser| v.bytes();
    assert_eq!(bytes(&second.tools), bytes(&third.tools), "tools with their mark");
    assert_eq!(bytes(&second.system), bytes(&third.system), "system with its mark");
    let (second, third) = (
        serde_json::to_value(&second).unwrap(),
        serde_json::to_value(&third).unwrap(),
    );
    // The second request wrote through its last message; the third marks that same message.
    assert_eq!(second["messages"][2], third["messages"][2]);
    assert!(third["messages"][2]["content"][0].get("cache_control").is_some());
    let (second, third) = (unmarked(second), unmarked(third));
    assert_eq!(
        serde_json::to_vec(&second["messages"]).unwrap(),
        serde_json::to_vec(&third["messages"].as_array().unwrap()[..3]).unwrap()
    );
}

mod erased {
    /// Serialised bytes of anything serialisable, for comparing.
    pub(super) trait Ser {
        fn bytes(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn bytes(&self) -> Vec<u8> {
            serde_json::to_vec(self).unwrap()
        }
    }
}

#[test]
fn a_history_that_opens_with_an_answer_gets_a_user_message_first() {
    let messages = [
        ChatMessage::system("s"),
        ChatMessage::assistant(Some("summary ack".into()), Vec::new()),
        ChatMessage::user("go on"),
    ];
    let body = body("m", 1, false, &messages, &Value::Null);
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(body["messages"][1]["role"], "assistant");
    assert!(body.get("tools").is_none());
    assert_eq!(tool_id(""), "call");
    let blank = self::body(
        "m",
        1,
        false,
        &[ChatMessage::system(" "), ChatMessage::user("hi")],
        &Value::Null,
    );
    assert!(blank.get("system").is_none(), "no empty system block: {blank}");
}
