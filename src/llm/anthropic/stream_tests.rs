use std::time::Duration;

use super::*;

const STREAM: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: ping\ndata: {\"type\": \"ping\"}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello, \"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"world\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

async fn read(chunks: Vec<Vec<u8>>) -> Result<(Reply, String), LlmError> {
    let body = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    let mut shown = String::new();
    let reply = fold_stream(body, Duration::from_secs(5), &mut |t| shown.push_str(t)).await?;
    Ok((reply, shown))
}

#[tokio::test]
async fn events_split_anywhere_across_chunks_read_the_same() {
    let bytes = STREAM.as_bytes();
    let (whole, _) = read(vec![bytes.to_vec()]).await.unwrap();
    assert_eq!(whole.content, "Hello, world");
    for size in [1, 2, 7, 64] {
        let chunks: Vec<Vec<u8>> = bytes.chunks(size).map(<[u8]>::to_vec).collect();
        let (reply, shown) = read(chunks).await.unwrap();
        assert_eq!(reply, whole, "chunks of {size} bytes");
        assert_eq!(shown, "Hello, world");
    }
    let crlf = STREAM.replace('\n', "\r\n");
    assert_eq!(read(vec![crlf.into_bytes()]).await.unwrap().0, whole, "CRLF line ends");
}

#[tokio::test]
async fn unknown_event_types_are_ignored_and_malformed_json_is_named() {
    let with_unknown = STREAM.replace(
        "event: ping\n",
        "event: something_new\ndata: {\"type\":\"something_new\",\"x\":[1]}\n\n: a comment line\n\nevent: ping\n",
    );
    assert_eq!(
        read(vec![with_unknown.into_bytes()]).await.unwrap().0.content,
        "Hello, world"
    );
    let with_done = format!("{STREAM}data: [DONE]\n\n");
    let reply = read(vec![with_done.into_bytes()]).await.unwrap().0;
    assert_eq!(reply.content, "Hello, world", "a gateway's trailing [DONE] is skipped");
    let broken = STREAM.replace(
        "{\"type\":\"content_block_stop\",\"index\":0}",
        "{\"type\":\"content_block_stop\",",
    );
    let err = read(vec![broken.into_bytes()]).await.unwrap_err();
    assert!(
        err.message
            .contains("`content_block_stop` event whose data is not JSON"),
        "{}",
        err.message
    );
    let cut = STREAM.split("event: message_delta").next().unwrap().to_string();
    let err = read(vec![cut.into_bytes()]).await.unwrap_err();
    assert!(
        err.cut_off,
        "a stream without message_stop is asked again: {}",
        err.message
    );
}

#[test]
fn windows_are_known_for_claude_models_only() {
    assert_eq!(Messages::context_window("claude-sonnet-5-5"), Some(1_000_000));
    assert_eq!(Messages::context_window("claude-haiku-4-5-20251001"), Some(200_000));
    assert_eq!(
        Messages::context_window("gpt-4.1"),
        None,
        "a gateway's other models: asked of nobody"
    );
}

#[test]
fn the_messages_url_takes_a_base_with_or_without_v1() {
    assert_eq!(
        messages_url("https://api.anthropic.com"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        messages_url("http://127.0.0.1:4000/v1/"),
        "http://127.0.0.1:4000/v1/messages"
    );
    assert_eq!(
        messages_url("https://gw.example/anthropic"),
        "https://gw.example/anthropic/v1/messages"
    );
}
