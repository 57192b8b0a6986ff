use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::*;

/// Answers like an OpenAI server, with stand-in vectors.
struct StandIn;

impl Respond for StandIn {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        ResponseTemplate::new(200).set_body_json(stand_in::response(&body).unwrap())
    }
}

/// Answers with the stand-in's vectors, reshaped by `edit` (drop `index`, shuffle, …).
struct Edited(fn(&mut Vec<Value>));

impl Respond for Edited {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let mut answer = stand_in::response(&body).unwrap();
        let data = answer["data"].as_array_mut().unwrap();
        (self.0)(data);
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

async fn server(responder: impl Respond + 'static) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(responder)
        .mount(&server)
        .await;
    server
}

fn client(server: &MockServer) -> EmbeddingsClient {
    let mut settings = EmbeddingsSettings::new(format!("{}/v1/", server.uri()), "mini");
    settings.batch_size = 4;
    EmbeddingsClient::new(settings).unwrap()
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text number {i}")).collect()
}

fn expected(inputs: &[String]) -> Vec<Vec<f32>> {
    inputs.iter().map(|t| stand_in::embed(t)).collect()
}

#[tokio::test]
async fn batches_and_keeps_input_order() {
    let server = server(StandIn).await;
    let inputs = texts(10);
    assert_eq!(client(&server).embed(&inputs).await.unwrap(), expected(&inputs));
    let requests = server.received_requests().await.unwrap();
    let mut sizes: Vec<usize> = requests
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            assert_eq!(body["model"], "mini");
            body["input"].as_array().unwrap().len()
        })
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [2, 4, 4]);
    assert!(client(&server).embed(&[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn missing_index_means_order_sent_and_present_index_wins() {
    let inputs = texts(4);
    let bare = server(Edited(|data| {
        for item in data.iter_mut() {
            item.as_object_mut().unwrap().remove("index");
        }
    }))
    .await;
    assert_eq!(client(&bare).embed(&inputs).await.unwrap(), expected(&inputs));
    let shuffled = server(Edited(|data| data.reverse())).await;
    assert_eq!(client(&shuffled).embed(&inputs).await.unwrap(), expected(&inputs));
}

#[tokio::test]
async fn sends_the_key_only_when_there_is_one() {
    let keyed = MockServer::start().await;
    Mock::given(header("authorization", "Bearer sk-test"))
        .respond_with(StandIn)
        .mount(&keyed)
        .await;
    let mut settings = EmbeddingsSettings::new(format!("{}/v1", keyed.uri()), "m");
    settings.api_key = Some("sk-test".into());
    assert!(EmbeddingsClient::new(settings).unwrap().embed(&texts(1)).await.is_ok());
    let bare = server(StandIn).await;
    client(&bare).embed(&texts(1)).await.unwrap();
    let sent = &bare.received_requests().await.unwrap()[0];
    assert!(!sent.headers.contains_key("authorization"));
}

async fn error_for(template: ResponseTemplate) -> EmbeddingsError {
    let server = server(template).await;
    client(&server).embed(&texts(3)).await.unwrap_err()
}

#[tokio::test]
async fn http_errors_carry_status_and_the_servers_message() {
    let err = error_for(ResponseTemplate::new(404).set_body_json(
        json!({"error": {"message": "model \"mini\" not found,\ntry pulling it first", "type": "not_found"}}),
    ))
    .await;
    match &err {
        EmbeddingsError::Status { status, message, url } => {
            assert_eq!(*status, 404);
            assert_eq!(message, "model \"mini\" not found, try pulling it first");
            assert!(url.ends_with("/v1/embeddings"), "{url}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!err.to_string().contains('\n'));
    let err = error_for(ResponseTemplate::new(500).set_body_string("x".repeat(5000))).await;
    let text = err.to_string();
    assert!(text.contains("HTTP 500") && text.len() < 400, "{text}");
}

#[tokio::test]
async fn malformed_answers_are_rejected_with_the_reason() {
    let cases: Vec<(ResponseTemplate, &str)> = vec![
        (ResponseTemplate::new(200).set_body_string("{not json"), "body starts {not json"),
        (ResponseTemplate::new(200).set_body_json(json!({"data": "no"})), "expected"),
        (
            ResponseTemplate::new(200).set_body_json(json!({"data": [{"embedding": "AAAA"}]})),
            "expected",
        ),
        (
            ResponseTemplate::new(200).set_body_json(json!({"data": [{"index": 0, "embedding": [1.0]}]})),
            "1 vectors for 3 inputs",
        ),
        (
            ResponseTemplate::new(200).set_body_json(json!({"data": [
                {"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}, {"index": 2, "embedding": [1.0]}]})),
            "index 0 appears twice",
        ),
        (
            ResponseTemplate::new(200).set_body_json(json!({"data": [
                {"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0]}, {"index": 7, "embedding": [1.0]}]})),
            "out of range",
        ),
        (
            ResponseTemplate::new(200).set_body_json(json!({"data": [
                {"embedding": [1.0]}, {"embedding": [1.0, 2.0]}, {"embedding": [1.0]}]})),
            "different lengths",
        ),
        (
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": [{"embedding": []}, {"embedding": []}, {"embedding": []}]})),
            "empty vectors",
        ),
    ];
    for (template, reason) in cases {
        let err = error_for(template).await;
        assert!(
            matches!(&err, EmbeddingsError::Malformed { .. }) && err.to_string().contains(reason),
            "{reason}: {err}"
        );
    }
}

#[tokio::test]
async fn a_silent_server_times_out_and_a_closed_port_is_unreachable() {
    let server = server(ResponseTemplate::new(200).set_delay(Duration::from_secs(30))).await;
    let mut settings = EmbeddingsSettings::new(format!("{}/v1", server.uri()), "m");
    settings.timeout = Duration::from_millis(300);
    let err = EmbeddingsClient::new(settings)
        .unwrap()
        .embed(&texts(1))
        .await
        .unwrap_err();
    assert!(matches!(err, EmbeddingsError::Timeout { .. }), "{err}");

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = EmbeddingsSettings::new(format!("http://127.0.0.1:{port}/v1"), "m");
    let err = EmbeddingsClient::new(settings)
        .unwrap()
        .embed(&texts(1))
        .await
        .unwrap_err();
    assert!(matches!(err, EmbeddingsError::Unreachable { .. }), "{err}");
    assert!(!err.to_string().contains('\n'));
}
