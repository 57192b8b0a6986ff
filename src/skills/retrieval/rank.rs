//! Ranking skills by a weighted fusion of embedding similarity and lexical (BM25F) score, and
//! by lexical score alone when there are no embeddings.
//!
//! Why a weighted score fusion and not reciprocal-rank fusion: RRF gives a skill that words
//! alone rank highly a full second vote even when that match is a distractor ("ping me at 9"
//! is not `ping-traceroute`); on our labelled set it is worse than embeddings alone (recall@1
//! 0.63 against 0.73). Scores keep the strength of each signal. The cosine is scaled from the
//! catalog's lowest to highest for the request, so one weight serves models whose cosines sit
//! in different ranges; the lexical score is measured against the request's ceiling (what a
//! skill matching every word would score), so a single distractor word adds little while a
//! request the skill's words explain wholly counts in full. `benches/retrieval.rs` shows the
//! numbers and the development-set sweep that chose the weight.

use super::search::{LexicalScores, words_of_name};
use crate::skills::Skill;

/// The semantic share of the fused score, chosen on the development sets with all-MiniLM-L6-v2
/// and kept with all-mpnet-base-v2: with either model every weight from 0.3 to 0.5 is within 0.01
/// of the best mean recall on each development set (own and ToolE), so the peak is not worth chasing.
pub const SEMANTIC_WEIGHT: f32 = 0.4;

/// The text a skill is embedded as: its name as words, then its description.
pub fn embedding_text(skill: &Skill) -> String {
    format!("{}: {}", words_of_name(&skill.name), skill.description)
}

/// Unit-length embedding vectors of a skill list, in catalog order; a skill may have none.
#[derive(Debug, Clone, Default)]
pub struct SkillVectors {
    dims: usize,
    rows: Vec<Option<Vec<f32>>>,
}

/// `v` scaled to unit length, or `None` when it is all zeros or not finite.
fn unit(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

impl SkillVectors {
    /// Normalise `vectors` (one per skill, in catalog order). Vectors whose length differs
    /// from the first one's, or that are zero, are dropped: those skills rank by words only.
    pub fn new(vectors: Vec<Option<Vec<f32>>>) -> Self {
        let dims = vectors.iter().flatten().map(Vec::len).next().unwrap_or(0);
        let rows = vectors
            .into_iter()
            .map(|v| v.filter(|v| v.len() == dims).and_then(unit))
            .collect();
        Self { dims, rows }
    }

    #[cfg(test)]
    /// How many skills (with or without a vector).
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Cosine similarity of `query` to every skill; `None` for skills without a vector, and
    /// for all when the query's length does not match or it is zero.
    pub fn cosines(&self, query: &[f32]) -> Vec<Option<f32>> {
        let query = (query.len() == self.dims).then(|| unit(query.to_vec())).flatten();
        self.rows
            .iter()
            .map(|row| {
                let (row, q) = (row.as_ref()?, query.as_ref()?);
                Some(row.iter().zip(q).map(|(a, b)| a * b).sum())
            })
            .collect()
    }
}

/// Pre-activation (`AGENT_PREACTIVATE`) fires when the best skill's words explain at least this
/// share of the request (`LexicalScores::coverage`) ...
pub const PREACTIVATE_MIN_COVERAGE: f32 = 0.3;
/// ... and its lexical score is at least this many times the runner-up's. Both chosen on the
/// development set of `benches/retrieval.rs` ("Pre-activation"): the pair that fires most often
/// without a single wrong activation (76 of 258 requests, none on a `none` request).
pub const PREACTIVATE_MARGIN: f32 = 2.0;

/// The skill whose words are a clear winner for the request scored in `lexical`: coverage of
/// at least `min_coverage` and a score `margin` times the runner-up's. Lexical, not fused: it
/// runs before the first request, where waiting for embeddings would cost the round trip it
/// saves.
pub fn clear_winner(lexical: &LexicalScores, min_coverage: f32, margin: f32) -> Option<usize> {
    let (mut best, mut second): (Option<usize>, f32) = (None, 0.0);
    for (i, score) in lexical.scores.iter().enumerate() {
        match best {
            Some(b) if *score > lexical.scores[b] => {
                second = lexical.scores[b];
                best = Some(i);
            }
            Some(_) => second = second.max(*score),
            None if *score > 0.0 => best = Some(i),
            None => {}
        }
    }
    let best = best?;
    (lexical.coverage(best) >= min_coverage && lexical.scores[best] >= second * margin).then_some(best)
}

/// One ranked skill with the signals behind its place.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Index into the skill list.
    pub index: usize,
    /// What the order is by: the fused score, or the lexical score without embeddings.
    pub(crate) score: f32,
    /// The BM25F score (0 when no word matches).
    pub(crate) lexical: f32,
    /// Cosine similarity to the request, when both have a vector.
    pub(crate) semantic: Option<f32>,
}

/// The best `limit` skills, best first, ties in catalog order. `lexical` holds every skill's
/// lexical score; `semantic` every skill's cosine, or `None` when embeddings are unavailable,
/// in which case the order is the lexical one and skills no word matches are left out.
/// `weight` is the semantic share of the fused score (see [`SEMANTIC_WEIGHT`]).
pub fn rank(lexical: &LexicalScores, semantic: Option<&[Option<f32>]>, weight: f32, limit: usize) -> Vec<Ranked> {
    let semantic = semantic.filter(|s| s.len() == lexical.scores.len() && s.iter().any(Option::is_some));
    let mut ranked: Vec<Ranked> = match semantic {
        None => lexical
            .scores
            .iter()
            .enumerate()
            .filter(|(_, l)| **l > 0.0)
            .map(|(index, l)| Ranked {
                index,
                score: *l,
                lexical: *l,
                semantic: None,
            })
            .collect(),
        Some(cosines) => fuse(lexical, cosines, weight),
    };
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    ranked.truncate(limit);
    ranked
}

/// `weight` × cosine scaled from the catalog's lowest to highest + (1 − `weight`) × lexical
/// coverage (the share of the request the skill's words explain); a skill without a vector
/// gets the semantic part of the lowest.
fn fuse(lexical: &LexicalScores, cosines: &[Option<f32>], weight: f32) -> Vec<Ranked> {
    let weight = weight.clamp(0.0, 1.0);
    let (low, high) = cosines
        .iter()
        .flatten()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
            (lo.min(*c), hi.max(*c))
        });
    let spread = high - low;
    lexical
        .scores
        .iter()
        .zip(cosines)
        .enumerate()
        .map(|(index, (l, c))| {
            let sem = match c {
                Some(c) if spread > 0.0 => (c - low) / spread,
                _ => 0.0,
            };
            Ranked {
                index,
                score: weight * sem + (1.0 - weight) * lexical.coverage(index),
                lexical: *l,
                semantic: *c,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
