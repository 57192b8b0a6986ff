//! Retrieval quality of the catalog's BM25 ranking on a small labelled set (`bench/retrieval.json`):
//! recall@1, @3 and @5 — how often the expected skill is among the first K results.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use agent::skills::{Skill, SkillSet};
use serde_json::Value;

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/retrieval.json");
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("bench/retrieval.json")).expect("valid JSON");
    let skills: Vec<Skill> = data["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            Skill::synthetic(
                s["name"].as_str().unwrap_or_default(),
                s["description"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let set = SkillSet::new(skills);
    let queries = data["queries"].as_array().expect("queries");
    let ks = [1usize, 3, 5];
    let mut hits = [0usize; 3];
    let mut misses = Vec::new();
    for q in queries {
        let query = q["q"].as_str().unwrap_or_default();
        let expect = q["expect"].as_str().unwrap_or_default();
        let ranked: Vec<&str> = set.search(query, 5).iter().map(|(s, _)| s.name.as_str()).collect();
        for (i, k) in ks.iter().enumerate() {
            if ranked.iter().take(*k).any(|n| *n == expect) {
                hits[i] += 1;
            }
        }
        if ranked.first() != Some(&expect) {
            misses.push(format!("| {query} | {expect} | {} |", ranked.first().unwrap_or(&"—")));
        }
    }
    let n = queries.len() as f64;
    println!("{} skills, {} labelled requests.\n", set.all().len(), queries.len());
    println!("| recall@1 | recall@3 | recall@5 |\n|---|---|---|");
    println!(
        "| {:.0}% | {:.0}% | {:.0}% |",
        100.0 * hits[0] as f64 / n,
        100.0 * hits[1] as f64 / n,
        100.0 * hits[2] as f64 / n
    );
    if !misses.is_empty() {
        println!(
            "\nRequests whose first result was not the expected skill:\n\n| request | expected | ranked first |\n|---|---|---|"
        );
        for m in misses {
            println!("{m}");
        }
    }
}
