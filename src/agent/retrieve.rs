//! Ranking skills for a request: by their words always, fused with embedding similarity when an
//! embeddings model is configured. The catalog budget, the `search_skills` tool and
//! `agent skills search` all rank through here, so they agree.
//!
//! Skills are embedded at most once per run (and once per text and model across runs, through
//! the cache folder): the first ranking that needs them fetches whatever the cache lacks, in
//! batches, while the request itself is embedded at the same time. Any embeddings failure
//! turns semantic ranking off for the rest of the run, with one warning; words still rank.

use std::sync::{Arc, Mutex};

use xxhash_rust::xxh3::Xxh3;

use crate::llm::embeddings::{EmbeddingsClient, EmbeddingsError, EmbeddingsSettings};
use crate::skills::SkillSet;
use crate::skills::retrieval::embed_cache::EmbeddingStore;
use crate::skills::retrieval::rank::{self, Ranked, SEMANTIC_WEIGHT, SkillVectors, embedding_text};
use crate::support::cache_file::CacheDir;

/// How a ranking was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Method {
    /// Lexical (BM25F) scores only.
    Lexical,
    /// Weighted fusion with the similarity of this model's embeddings.
    Fused { model: String },
}

/// Skills ranked for one request, and anything the user should be told about it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranking {
    pub(crate) ranked: Vec<Ranked>,
    pub(crate) method: Method,
    /// One line, when embeddings failed just now and words ranked instead.
    pub(crate) warning: Option<String>,
}

/// The first `limit` of `ranked` that the model may pick on its own: skills only a person
/// invokes (`disable-model-invocation`) are never offered by a ranking.
fn routable(skills: &SkillSet, mut ranked: Vec<Ranked>, limit: usize) -> Vec<Ranked> {
    ranked.retain(|r| skills.all().get(r.index).is_some_and(|s| s.offered_to_model()));
    ranked.truncate(limit);
    ranked
}

/// Skill vectors of one catalog, by a fingerprint of its texts.
struct Vectors {
    fingerprint: u64,
    vectors: Arc<SkillVectors>,
}

/// The ranking state of a run: the embeddings client (built on first use, since setting up
/// TLS has a cost a run under budget never needs to pay) and the skill vectors fetched so far.
pub(crate) struct Retriever {
    settings: Option<EmbeddingsSettings>,
    client: tokio::sync::OnceCell<Result<EmbeddingsClient, EmbeddingsError>>,
    cache: Option<CacheDir>,
    vectors: tokio::sync::Mutex<Option<Vectors>>,
    /// Set once embeddings failed: semantic ranking stays off for the run.
    failed: Mutex<bool>,
}

impl std::fmt::Debug for Retriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retriever")
            .field("model", &self.model())
            .finish_non_exhaustive()
    }
}

fn fingerprint(texts: &[String]) -> u64 {
    let mut h = Xxh3::new();
    for t in texts {
        h.update(t.as_bytes());
        h.update(b"\0");
    }
    h.digest()
}

impl Retriever {
    #[cfg(test)]
    /// Ranking by words only.
    pub(crate) fn lexical() -> Self {
        Self::new(None, None)
    }

    /// Ranking fused with embeddings from `settings` (when given), skill vectors kept in
    /// `cache` (when given).
    pub(crate) fn new(settings: Option<EmbeddingsSettings>, cache: Option<CacheDir>) -> Self {
        Self {
            settings,
            client: tokio::sync::OnceCell::new(),
            cache,
            vectors: tokio::sync::Mutex::new(None),
            failed: Mutex::new(false),
        }
    }

    /// The embeddings model in use, while semantic ranking is on.
    pub(crate) fn model(&self) -> Option<&str> {
        let failed = *self.failed.lock().unwrap_or_else(|p| p.into_inner());
        self.settings.as_ref().filter(|_| !failed).map(|s| s.model.as_str())
    }

    /// The best `limit` skills of `skills` for `query`, best first.
    pub(crate) async fn rank(&self, skills: &SkillSet, query: &str, limit: usize) -> Ranking {
        let lexical = skills.index().score(query);
        let mut warning = None;
        if let Some(model) = self.model().map(str::to_string) {
            match self.cosines(skills, query).await {
                Ok(cosines) => {
                    let all = rank::rank(&lexical, Some(&cosines), SEMANTIC_WEIGHT, usize::MAX);
                    return Ranking {
                        ranked: routable(skills, all, limit),
                        method: Method::Fused { model },
                        warning: None,
                    };
                }
                Err(e) => {
                    *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = true;
                    warning = Some(format!(
                        "semantic skill ranking is off for this run, skills are ranked by their words: {e} \
                         (AGENT_EMBED_MODEL chooses the model, `off` turns it off)"
                    ));
                }
            }
        }
        Ranking {
            ranked: routable(skills, rank::rank(&lexical, None, 0.0, usize::MAX), limit),
            method: Method::Lexical,
            warning,
        }
    }

    /// Fetch the skill vectors now (in the background of a chat), so the first ranking that
    /// needs them does not wait. A failure is reported by that ranking.
    pub(crate) async fn prefetch(&self, skills: &SkillSet) {
        if self.model().is_some() && self.skill_vectors(skills).await.is_err() {
            *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = true;
        }
    }

    async fn client(&self) -> Result<&EmbeddingsClient, EmbeddingsError> {
        let settings = self.settings.clone();
        let client = self
            .client
            .get_or_init(|| async move {
                match settings {
                    Some(s) => EmbeddingsClient::new(s),
                    None => Err(EmbeddingsError::Setup("no embeddings model is configured".into())),
                }
            })
            .await;
        client.as_ref().map_err(Clone::clone)
    }

    /// Cosine of the request to every skill; the request is embedded while the skills are.
    async fn cosines(&self, skills: &SkillSet, query: &str) -> Result<Vec<Option<f32>>, EmbeddingsError> {
        let client = self.client().await?;
        let request = [query.to_string()];
        let (vectors, query) = tokio::join!(self.skill_vectors(skills), client.embed(&request));
        let query = query?.into_iter().next().unwrap_or_default();
        Ok(vectors?.cosines(&query))
    }

    /// Every skill's vector: from this run's memory, else the cache folder, else the endpoint
    /// (only for what the cache lacks, and stored back).
    async fn skill_vectors(&self, skills: &SkillSet) -> Result<Arc<SkillVectors>, EmbeddingsError> {
        let texts: Vec<String> = skills.all().iter().map(embedding_text).collect();
        let fingerprint = fingerprint(&texts);
        // Held while fetching, so a prefetch and a ranking never embed the same skills twice.
        let mut held = self.vectors.lock().await;
        if let Some(v) = held.as_ref().filter(|v| v.fingerprint == fingerprint) {
            return Ok(v.vectors.clone());
        }
        let client = self.client().await?;
        let (cache, url, model) = (self.cache.clone(), base_url(client), client.model().to_string());
        let opened = tokio::task::spawn_blocking(move || EmbeddingStore::open(cache.as_ref(), &url, &model)).await;
        let mut store = opened.map_err(|e| EmbeddingsError::Setup(e.to_string()))?;
        let missing = store.missing(&texts);
        if !missing.is_empty() {
            let inputs: Vec<String> = missing.iter().map(|i| texts[*i].clone()).collect();
            let fetched = client.embed(&inputs).await?;
            for (i, vector) in missing.iter().zip(fetched) {
                store.insert(&texts[*i], vector);
            }
        }
        let vectors = Arc::new(SkillVectors::new(
            texts.iter().map(|t| store.get(t).map(<[f32]>::to_vec)).collect(),
        ));
        if !missing.is_empty() {
            // Storing only saves time next run; a failure to is not worth a warning.
            let _ = tokio::task::spawn_blocking(move || store.save(&texts)).await;
        }
        *held = Some(Vectors {
            fingerprint,
            vectors: vectors.clone(),
        });
        Ok(vectors)
    }
}

/// The base URL a client was made for (its embeddings URL without `/embeddings`).
fn base_url(client: &EmbeddingsClient) -> String {
    client.url().trim_end_matches("/embeddings").to_string()
}

#[cfg(test)]
#[path = "retrieve_tests.rs"]
mod tests;
