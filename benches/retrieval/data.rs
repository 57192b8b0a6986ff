//! The labelled sets and the ranker this work replaced, as the retrieval benchmark reads them.

use agent::skills::Skill;
use bm25::{Document, Language, SearchEngine, SearchEngineBuilder};
use serde_json::Value;

/// One labelled request.
pub struct Case {
    pub request: String,
    /// Indices of every acceptable skill; empty when nothing fits.
    pub expect: Vec<usize>,
    pub kind: String,
    /// `dev` or `held-out` where the set fixes its own split (`bench/metatool/`), else empty.
    pub split: String,
}

/// A catalog and the requests labelled against it.
pub struct Set {
    pub skills: Vec<Skill>,
    pub cases: Vec<Case>,
}

fn read(rel: &str) -> Value {
    let path = format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn skills(list: &Value) -> Vec<Skill> {
    list.as_array()
        .expect("a skill array")
        .iter()
        .map(|s| {
            Skill::synthetic(
                s["name"].as_str().unwrap_or_default(),
                s["description"].as_str().unwrap_or_default(),
            )
        })
        .collect()
}

fn position(skills: &[Skill], name: &str) -> usize {
    skills
        .iter()
        .position(|s| s.name == name)
        .unwrap_or_else(|| panic!("expected skill {name:?} is not in the catalog"))
}

/// `bench/routing/`: skills.json and cases.json.
pub fn routing() -> Set {
    labelled("bench/routing")
}

/// `bench/metatool/`: MetaTool's ToolE tools and a sample of its queries, split in halves.
pub fn metatool() -> Set {
    labelled("bench/metatool")
}

/// A folder with skills.json and cases.json in the shape of `bench/routing/`.
fn labelled(dir: &str) -> Set {
    let skills = skills(&read(&format!("{dir}/skills.json")));
    let cases = read(&format!("{dir}/cases.json"))
        .as_array()
        .expect("a case array")
        .iter()
        .map(|c| Case {
            request: c["request"].as_str().unwrap_or_default().to_string(),
            expect: c["expect"]
                .as_array()
                .expect("expect")
                .iter()
                .map(|n| position(&skills, n.as_str().unwrap_or_default()))
                .collect(),
            kind: c["kind"].as_str().unwrap_or_default().to_string(),
            split: c["split"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    Set { skills, cases }
}

/// `bench/retrieval.json`, the older set: one expected skill per request.
pub fn legacy() -> Set {
    let data = read("bench/retrieval.json");
    let skills = skills(&data["skills"]);
    let cases = data["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|q| Case {
            request: q["q"].as_str().unwrap_or_default().to_string(),
            expect: vec![position(&skills, q["expect"].as_str().unwrap_or_default())],
            kind: "legacy".into(),
            split: String::new(),
        })
        .collect();
    Set { skills, cases }
}

/// The ranker before this work: the `bm25` crate's English tokenizer over the name (as words,
/// twice) and the description.
pub struct Before(SearchEngine<usize>);

impl Before {
    pub fn new(skills: &[Skill]) -> Self {
        let docs: Vec<Document<usize>> = skills
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = s.name.replace(['-', '_'], " ");
                Document::new(i, format!("{name} {name} {}", s.description))
            })
            .collect();
        Self(SearchEngineBuilder::<usize>::with_documents(Language::English, docs).build())
    }

    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut hits: Vec<(usize, f32)> = self
            .0
            .search(query, limit)
            .into_iter()
            .filter(|r| r.score > 0.0)
            .map(|r| (r.document.id, r.score))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.into_iter().map(|h| h.0).collect()
    }
}
