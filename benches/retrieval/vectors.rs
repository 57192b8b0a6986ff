//! Embeddings for the retrieval benchmark: from a local OpenAI-compatible server through the
//! agent's own client, cached under `target/retrieval-embeddings/`, or the deterministic
//! stand-in when no model is at hand.

use std::collections::HashMap;
use std::path::PathBuf;

use agent::llm::embeddings::{EmbeddingsClient, EmbeddingsSettings, stand_in};
use agent::skills::Skill;
use agent::skills::retrieval::rank::{SkillVectors, embedding_text};

use super::data::Set;

/// Vectors for every text the benchmark needs, and where they came from.
pub struct Embedded {
    label: String,
    vectors: HashMap<String, Vec<f32>>,
}

fn cache_path(model: &str) -> PathBuf {
    let slug: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/retrieval-embeddings/{slug}.json"))
}

fn fetch(url: &str, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
    let client = EmbeddingsClient::new(EmbeddingsSettings::new(url, model)).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    // Servers cap the inputs of one request (bench/embed_server.py at 2,048): ask in batches.
    let mut out = Vec::with_capacity(texts.len());
    for batch in texts.chunks(512) {
        out.extend(runtime.block_on(client.embed(batch)).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// The model `bench/run.sh` measures with, unless `BENCH_EMBED_MODEL` names another.
pub const DEFAULT_MODEL: &str = "all-mpnet-base-v2";

/// Every text of `sets` that gets a vector: skill texts and requests, sorted, once each.
fn texts_of(sets: &[&Set]) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for set in sets {
        texts.extend(set.skills.iter().map(embedding_text));
        texts.extend(set.cases.iter().map(|c| c.request.clone()));
    }
    texts.sort();
    texts.dedup();
    texts
}

fn read_cache(model: &str) -> HashMap<String, Vec<f32>> {
    std::fs::read(cache_path(model))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

impl Embedded {
    /// `model`'s cached vectors, when the cache holds every text of `sets`.
    pub fn cached(model: &str, sets: &[&Set]) -> Option<Self> {
        let vectors = read_cache(model);
        texts_of(sets).iter().all(|t| vectors.contains_key(t)).then(|| Self {
            label: format!("{model} via an OpenAI-compatible server (vectors cached in target/retrieval-embeddings/)"),
            vectors,
        })
    }

    /// Vectors for the skills and requests of `sets`.
    pub fn load(sets: &[&Set]) -> Self {
        let model = std::env::var("BENCH_EMBED_MODEL").unwrap_or_else(|_| DEFAULT_MODEL.into());
        if let Some(cached) = Self::cached(&model, sets) {
            return cached;
        }
        let texts = texts_of(sets);
        let path = cache_path(&model);
        let mut vectors = read_cache(&model);
        let missing: Vec<String> = texts.iter().filter(|t| !vectors.contains_key(*t)).cloned().collect();
        let Ok(url) = std::env::var("BENCH_EMBED_URL") else {
            return Self::stand_in(&texts, "BENCH_EMBED_URL is not set");
        };
        eprintln!("embedding {} texts with {model} at {url}", missing.len());
        match fetch(&url, &model, &missing) {
            Ok(fresh) => {
                vectors.extend(missing.into_iter().zip(fresh));
                if let Some(dir) = path.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                if let Ok(json) = serde_json::to_vec(&vectors) {
                    let _ = std::fs::write(&path, json);
                }
                Self {
                    label: format!("{model} via the OpenAI-compatible server at {url}"),
                    vectors,
                }
            }
            Err(e) => Self::stand_in(&texts, &e),
        }
    }

    fn stand_in(texts: &[String], why: &str) -> Self {
        eprintln!("no model embeddings ({why}); using the deterministic stand-in");
        Self {
            label: format!(
                "the deterministic stand-in `{}` — NOT a model, so embedding and fused numbers say nothing about \
                 semantic retrieval (no model: {why})",
                stand_in::MODEL
            ),
            vectors: texts.iter().map(|t| (t.clone(), stand_in::embed(t))).collect(),
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// The vector of `text`, empty when it was not loaded (it then matches nothing).
    pub fn get(&self, text: &str) -> Vec<f32> {
        self.vectors.get(text).cloned().unwrap_or_default()
    }

    pub fn skills(&self, skills: &[Skill]) -> SkillVectors {
        SkillVectors::new(
            skills
                .iter()
                .map(|s| self.vectors.get(&embedding_text(s)).cloned())
                .collect(),
        )
    }
}
