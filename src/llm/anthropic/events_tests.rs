use serde_json::json;

use super::*;

fn fold(events: &[(&str, Value)]) -> Result<Reply, LlmError> {
    let mut fold = Fold::default();
    let mut shown = String::new();
    for (name, data) in events {
        fold.push(name, &data.to_string(), &mut |t| shown.push_str(t))?;
    }
    let reply = fold.finish()?;
    assert_eq!(shown, reply.content, "every text delta is shown once");
    Ok(reply)
}

fn start(usage: Value) -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-5-5", "stop_reason": null, "usage": usage}}),
    )
}

#[test]
fn text_tool_use_and_thinking_fold_into_one_reply() {
    let reply = fold(&[
        start(json!({"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 1})),
        ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the user wants "}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "weather"}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAh"}})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ("ping", json!({"type": "ping"})),
        ("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me check."}})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        ("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "run_command", "input": {}}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"comm"}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "and\": \"./run.sh Tokyo\"}"}})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 42}})),
        ("message_stop", json!({"type": "message_stop"})),
    ])
    .unwrap();
    assert_eq!(reply.content, "Let me check.");
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].id, "toolu_01");
    assert_eq!(
        reply.tool_calls[0].function.arguments,
        r#"{"command": "./run.sh Tokyo"}"#
    );
    assert_eq!(
        reply.thinking,
        vec![json!({"type": "thinking", "thinking": "the user wants weather", "signature": "EqQBCgIYAh"})]
    );
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_use"));
    let usage = reply.usage.unwrap();
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cache_write_tokens,
            usage.cache_read_tokens
        ),
        (3210, 42, 200, 3000)
    );
}

#[test]
fn unknown_events_and_blocks_are_skipped() {
    let reply = fold(&[
        start(json!({"input_tokens": 5, "output_tokens": 1})),
        ("future_event", json!({"type": "future_event", "whatever": 1})),
        ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}})),
        ("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "opaque"}})),
        ("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "Hi"}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": {}}})),
        ("content_block_start", json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "t", "name": "Glob", "input": {"pattern": "*.rs"}}})),
        ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}})),
        ("message_stop", json!({"type": "message_stop"})),
    ])
    .unwrap();
    assert_eq!(reply.content, "Hi");
    assert_eq!(
        reply.thinking,
        vec![json!({"type": "redacted_thinking", "data": "opaque"})]
    );
    assert_eq!(
        reply.tool_calls[0].function.arguments, r#"{"pattern":"*.rs"}"#,
        "whole input at start"
    );
}

#[test]
fn errors_mid_stream_and_broken_streams_say_what_happened() {
    let overloaded = fold(&[
        start(json!({"input_tokens": 5})),
        (
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ])
    .unwrap_err();
    assert!(overloaded.cut_off, "asked again");
    assert!(
        overloaded.message.contains("overloaded_error: Overloaded"),
        "{}",
        overloaded.message
    );
    let invalid = fold(&[(
        "error",
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}),
    )])
    .unwrap_err();
    assert!(!invalid.cut_off && invalid.message.contains("bad"));
    let cut = fold(&[start(json!({"input_tokens": 5}))]).unwrap_err();
    assert!(
        cut.cut_off && cut.message.contains("before `message_stop`"),
        "{}",
        cut.message
    );
    let mut f = Fold::default();
    let err = f.push("message_start", "{not json", &mut |_| {}).unwrap_err();
    assert!(
        err.message.contains("`message_start` event whose data is not JSON"),
        "{}",
        err.message
    );
    let empty = fold(&[
        start(json!({"input_tokens": 5})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "refusal"}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
    .unwrap_err();
    assert!(
        empty.empty_reply && empty.message.contains("refusal"),
        "{}",
        empty.message
    );
}

#[test]
fn a_whole_message_reads_like_a_stream() {
    let mut f = Fold::default();
    let message = json!({"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Sunny."},
        {"type": "tool_use", "id": "toolu_9", "name": "activate_skill", "input": {"name": "weather"}}
    ], "stop_reason": "tool_use", "usage": {"input_tokens": 7, "cache_read_input_tokens": 100, "output_tokens": 9}});
    let mut shown = String::new();
    f.push_message(&message, &mut |t| shown.push_str(t)).unwrap();
    let reply = f.finish().unwrap();
    assert_eq!((reply.content.as_str(), shown.as_str()), ("Sunny.", "Sunny."));
    assert_eq!(reply.tool_calls[0].function.arguments, r#"{"name":"weather"}"#);
    assert_eq!(reply.usage.unwrap().prompt_tokens, 107);
    let err = Fold::default()
        .push_message(&json!({"choices": []}), &mut |_| {})
        .unwrap_err();
    assert!(err.message.contains("not a Messages API message"), "{}", err.message);
}
