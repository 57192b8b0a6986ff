use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::*;
use crate::llm::embeddings::stand_in;
use crate::skills::Skill;

struct StandIn;

impl Respond for StandIn {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        ResponseTemplate::new(200).set_body_json(stand_in::response(&body).unwrap())
    }
}

async fn server(ok: bool) -> MockServer {
    let server = MockServer::start().await;
    let answer = Mock::given(method("POST")).and(path("/v1/embeddings"));
    if ok {
        answer.respond_with(StandIn).mount(&server).await;
    } else {
        answer
            .respond_with(ResponseTemplate::new(404).set_body_string("no \u{1b}[31membeddings here"))
            .mount(&server)
            .await;
    }
    server
}

/// The inputs of every embeddings request received.
async fn inputs(server: &MockServer) -> Vec<Vec<String>> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            body["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

fn skills() -> SkillSet {
    SkillSet::new(vec![
        Skill::synthetic("currency", "Convert amounts of money between euros, dollars and yen."),
        Skill::synthetic("weather", "Current weather and forecast for a city."),
        Skill::synthetic("pdf", "Extract text and tables from PDF files."),
    ])
}

fn settings(server: &MockServer) -> EmbeddingsSettings {
    EmbeddingsSettings::new(format!("{}/v1", server.uri()), stand_in::MODEL)
}

#[tokio::test]
async fn words_alone_rank_without_a_model() {
    let r = Retriever::lexical();
    let ranking = r.rank(&skills(), "extract tables from a pdf", 3).await;
    assert_eq!(ranking.method, Method::Lexical);
    assert_eq!(ranking.ranked[0].index, 2);
    assert!(ranking.ranked.iter().all(|r| r.semantic.is_none()));
    assert!(ranking.warning.is_none());
}

#[tokio::test]
async fn skills_are_embedded_once_and_kept_in_the_cache() {
    let server = server(true).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = CacheDir::at(dir.path());
    let r = Retriever::new(Some(settings(&server)), Some(cache.clone()));
    let ranking = r.rank(&skills(), "euros in yen", 3).await;
    assert_eq!(
        ranking.method,
        Method::Fused {
            model: stand_in::MODEL.into()
        }
    );
    assert_eq!(ranking.ranked.len(), 3);
    assert!(ranking.ranked.iter().all(|r| r.semantic.is_some()));
    r.rank(&skills(), "weather in Oslo", 3).await;
    let sent = inputs(&server).await;
    let skill_batches: Vec<_> = sent.iter().filter(|i| i.len() == 3).collect();
    assert_eq!(skill_batches.len(), 1, "{sent:?}");
    assert_eq!(sent.len(), 3, "one skill batch and one request each: {sent:?}");

    // Another run: the skills come from the cache folder; only the request is sent.
    server.reset().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(StandIn)
        .mount(&server)
        .await;
    let again = Retriever::new(Some(settings(&server)), Some(cache));
    let ranking = again.rank(&skills(), "euros in yen", 3).await;
    assert!(matches!(ranking.method, Method::Fused { .. }));
    assert_eq!(inputs(&server).await, [["euros in yen"]]);
}

#[tokio::test]
async fn a_prefetch_and_a_ranking_share_one_fetch() {
    let server = server(true).await;
    let r = Retriever::new(Some(settings(&server)), None);
    let set = skills();
    tokio::join!(r.prefetch(&set), r.rank(&set, "pdf tables", 2));
    let sent = inputs(&server).await;
    assert_eq!(sent.iter().filter(|i| i.len() == 3).count(), 1, "{sent:?}");
}

#[tokio::test]
async fn a_failing_endpoint_falls_back_to_words_with_one_warning() {
    let server = server(false).await;
    let r = Retriever::new(Some(settings(&server)), None);
    let first = r.rank(&skills(), "extract tables from a pdf", 3).await;
    assert_eq!(first.method, Method::Lexical);
    assert_eq!(first.ranked[0].index, 2);
    let warning = first.warning.unwrap();
    assert!(warning.contains("404") && !warning.contains('\n'), "{warning}");
    let requests = inputs(&server).await.len();
    let second = r.rank(&skills(), "weather", 3).await;
    assert_eq!((second.method, second.warning), (Method::Lexical, None));
    assert_eq!(inputs(&server).await.len(), requests, "no more attempts this run");
    assert!(r.model().is_none());
}

#[tokio::test]
async fn skills_only_people_invoke_are_never_ranked() {
    let mut deploy = Skill::synthetic("deploy", "Deploy the service to production servers.");
    deploy.invocation.model = false;
    let rollout = Skill::synthetic("rollout", "Roll out a release of the service, like a deploy.");
    let skills = SkillSet::new(vec![deploy, rollout]);
    let server = server(true).await;
    for retriever in [Retriever::lexical(), Retriever::new(Some(settings(&server)), None)] {
        let ranking = retriever.rank(&skills, "deploy the service", 5).await;
        let names: Vec<&str> = ranking
            .ranked
            .iter()
            .map(|r| skills.all()[r.index].name.as_str())
            .collect();
        assert_eq!(names, ["rollout"], "{:?}", ranking.method);
    }
}
