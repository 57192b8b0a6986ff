//! Semantic retrieval through the real binary: with `AGENT_EMBED_MODEL` set, an over-budget
//! catalog and `skills search` rank by words fused with embedding similarity (stand-in vectors
//! from the mock); a catalog that fits asks for no embeddings; any embeddings failure is one
//! warning and words rank instead.

use crate::common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The request misspells the target's words beyond what lexical typo tolerance forgives
/// ("deplymnts", "podz"): words alone cannot find it, the stand-in embeddings (character
/// trigrams) can. Named to sort last, so the catalog order that
/// follows the ranked skills never reaches it.
const TARGET: &str = "zeta-cluster";
const REQUEST: &str = "restart deplymnts podz";

fn skills(ws: &Workspace) {
    ws.skill(
        TARGET,
        &format!("---\nname: {TARGET}\ndescription: Manage kubernetes clusters, deployments and pods.\n---\nbody\n"),
        None,
    );
    let topics = [
        "csv tables",
        "calendar events",
        "audio clips",
        "invoices",
        "photos",
        "recipes",
    ];
    for (i, topic) in topics.iter().cycle().take(24).enumerate() {
        let name = format!("helper-{i:02}");
        ws.skill(
            &name,
            &format!("---\nname: {name}\ndescription: Works with {topic} for everyday tasks.\n---\nbody\n"),
            None,
        );
    }
}

fn system_prompt(request: &Value) -> String {
    contents(request, "system").join("\n")
}

/// A one-shot run of `REQUEST` with embeddings from the model `stand-in`, within `budget` bytes
/// of catalog when given; (exit code, stdout, stderr).
async fn once(mock: &MockLlm, budget: Option<&str>) -> (i32, String, String) {
    let ws = Workspace::new();
    skills(&ws);
    let mut cmd = ws.agent(mock);
    cmd.env("AGENT_EMBED_MODEL", "stand-in").args(["--once", REQUEST]);
    if let Some(budget) = budget {
        cmd.env("AGENT_CATALOG_BUDGET", budget);
    }
    run_outcome(cmd).await
}

#[tokio::test]
async fn an_over_budget_catalog_lists_what_embeddings_find_first() {
    let mock = MockLlm::start(vec![text("done")]).await.with_embeddings().await;
    let (code, _, stderr) = once(&mock, Some("400")).await;
    assert_eq!(code, 0, "{stderr}");
    let requests = mock.chat_requests().await;
    assert!(
        system_prompt(&requests[0]).contains(&format!("- {TARGET}:")),
        "{}",
        system_prompt(&requests[0])
    );
    let embedded = mock.embedding_requests().await;
    assert!(!embedded.is_empty());
    assert!(embedded.iter().all(|r| r["model"] == "stand-in"), "{embedded:?}");
    assert!(!stderr.contains("semantic"), "{stderr}");
}

#[tokio::test]
async fn a_catalog_that_fits_asks_for_no_embeddings() {
    let mock = MockLlm::start(vec![text("done")]).await.with_embeddings().await;
    let (code, _, stderr) = once(&mock, None).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(mock.embedding_requests().await.is_empty());
    assert!(system_prompt(&mock.chat_requests().await[0]).contains(&format!("- {TARGET}:")));
}

#[tokio::test]
async fn an_embeddings_failure_is_one_warning_and_words_rank() {
    // No /embeddings route: the mock answers 404.
    let mock = MockLlm::start(vec![text("done")]).await;
    let (code, stdout, stderr) = once(&mock, Some("400")).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("done"));
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("semantic skill ranking is off"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("404"), "{stderr}");
    assert!(!system_prompt(&mock.chat_requests().await[0]).contains(TARGET));
}

async fn search(ws: &Workspace, base_url: &str, model: Option<&str>) -> (Value, String) {
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_BASE_URL", base_url)
        .env("AGENT_API_KEY", "sk-test-key-0123456789")
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "search", "--json", "--limit", "5", REQUEST]);
    if let Some(model) = model {
        cmd.env("AGENT_EMBED_MODEL", model);
    }
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    (serde_json::from_str(&stdout).unwrap(), stderr)
}

#[tokio::test]
async fn skills_search_shows_each_signal_and_ranks_like_the_catalog() {
    let mock = MockLlm::start(vec![]).await.with_embeddings().await;
    let ws = Workspace::new();
    skills(&ws);
    let (fused, stderr) = search(&ws, &mock.base_url(), Some("stand-in")).await;
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(fused["ranking"], "fused");
    assert_eq!(fused["model"], "stand-in");
    let results = fused["results"].as_array().unwrap();
    assert_eq!(results[0]["name"], TARGET, "{fused}");
    assert_eq!(results[0]["lexical"], json!(0.0));
    assert!(results.iter().all(|r| r["semantic"].is_number()), "{fused}");
    let scores: Vec<f64> = results.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    // Off (the default on any server but api.openai.com): words only, nothing matches.
    let (lexical, stderr) = search(&ws, &mock.base_url(), None).await;
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(lexical["ranking"], "lexical");
    assert_eq!(lexical["model"], Value::Null);
    assert!(lexical["results"].as_array().unwrap().is_empty(), "{lexical}");
    let (off, _) = search(&ws, &mock.base_url(), Some("off")).await;
    assert_eq!(off["ranking"], "lexical");
}

#[tokio::test]
async fn skills_search_falls_back_to_words_with_an_escaped_warning() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(ResponseTemplate::new(500).set_body_string("model \u{1b}[31mnot loaded\nsecond line"))
        .mount(&server)
        .await;
    let ws = Workspace::new();
    skills(&ws);
    ws.skill(
        "restarter",
        "---\nname: restarter\ndescription: Restart a service and wait until it is up.\n---\nbody\n",
        None,
    );
    let (result, stderr) = search(&ws, &format!("{}/v1", server.uri()), Some("stand-in")).await;
    assert_eq!(result["ranking"], "lexical");
    assert_eq!(result["results"][0]["name"], "restarter", "{result}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].contains("semantic skill ranking is off") && lines[0].contains("500"),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "escaped for the terminal: {stderr:?}");
}
