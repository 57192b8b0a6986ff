//! `agent skills search`: the obviously matching skill ranks first, with scores.

use crate::common::*;
use serde_json::Value;

fn search(ws: &Workspace, query: &str) -> Value {
    let bundled = repo_path("skills");
    let out = ws
        .bare_agent()
        .arg("--skills-dir")
        .arg(bundled)
        .args(["skills", "search", "--json", "--limit", "3", query])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn obvious_matches_rank_first() {
    let ws = Workspace::new();
    for (query, expected) in [
        ("is it raining in Paris right now", "weather"),
        ("what time is it in Tokyo", "time"),
        ("how many open pull requests does rust-lang/rust have", "github"),
        ("count the rows in the orders table of my sqlite database", "database"),
        ("give me a briefing for Lisbon", "report"),
    ] {
        let result = search(&ws, query);
        let results = result["results"].as_array().unwrap();
        assert_eq!(results[0]["name"], expected, "{query}: {result}");
        assert!(results.len() <= 3);
        let scores: Vec<f64> = results.iter().map(|r| r["score"].as_f64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "ranked by score: {scores:?}");
    }
}

#[test]
fn no_match_is_empty_not_an_error() {
    let ws = Workspace::new();
    assert!(
        search(&ws, "xylophone quartet")
            .get("results")
            .unwrap()
            .as_array()
            .unwrap()
            .is_empty()
    );
}
