//! Lexical ranking of skills for a request: BM25F over two fields, the name (split into words,
//! weighted above the rest) and the description, with English stems, a short stop list,
//! compound names (`pdftotext` is also found by "pdf" and "text") and typo-tolerant matching of
//! words the catalog does not contain.
//!
//! Our own implementation rather than the `bm25` crate: field weights, the split of compound
//! names and the typo fallback all need the vocabulary and per-field statistics, which that
//! crate keeps private, and its stop list (the ISO list, 1,298 words) drops words such as
//! "date", "open", "test" and "web" that name skills.

mod persist;
pub(crate) use persist::Preloaded;
mod tokenize;

use std::collections::{HashMap, HashSet};

use tokenize::{Analyzer, is_content, words};

use crate::skills::Skill;

/// A skill and how well it matches a query; higher is better.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index into the skill list the index was built from.
    pub(crate) index: usize,
    pub(crate) score: f32,
}

/// Query words the catalog lacks that are looked up as typos or abbreviations, per query.
const MAX_NEAR_MISS_WORDS: usize = 24;

/// Lexical scores of every skill for one query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LexicalScores {
    /// BM25F score per skill, in catalog order; 0 where no word matches.
    pub scores: Vec<f32>,
    /// The score of a skill that matched every content word of the query at saturation
    /// (words the catalog lacks included): what a score is measured against when it is fused
    /// with another signal. 0 for a query without content words.
    pub ceiling: f32,
}

impl LexicalScores {
    /// `score / ceiling` of skill `index`, in 0..=1: how much of the request its words explain.
    pub(crate) fn coverage(&self, index: usize) -> f32 {
        match self.scores.get(index) {
            Some(s) if self.ceiling > 0.0 => (s / self.ceiling).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }
}

/// The knobs of the ranking. The development-set sweep in `benches/retrieval.rs` cannot tell
/// the defaults from their neighbours (all within one request); they follow common BM25
/// practice and weight names above descriptions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Weight of a word in the name relative to one in the description.
    pub name_weight: f32,
    /// Length normalisation of the name field (0 = none, 1 = full).
    pub name_b: f32,
    /// Length normalisation of the description field.
    pub desc_b: f32,
    /// How much a near miss (a typo, or a prefix of a catalog word) counts against an exact match.
    pub fuzzy_weight: f32,
    /// Index the words of compound names (`pdftotext` → pdf, text).
    pub split_compounds: bool,
    /// A catalog stem that begins a request word the catalog lacks counts as a near miss:
    /// up to 3 letters shorter for derived words the stemmer leaves whole ("rental" → rent,
    /// "financial" → financ), any length shorter for a word of a skill's name, where
    /// abbreviations live ("repositories" → repo, "calculation" → calc).
    pub stem_prefix: bool,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            k1: 1.2,
            name_weight: 3.0,
            name_b: 0.3,
            desc_b: 0.75,
            fuzzy_weight: 0.5,
            split_compounds: true,
            stem_prefix: true,
        }
    }
}

/// How often a term occurs in each field of one skill.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Posting {
    doc: u32,
    name_tf: u16,
    desc_tf: u16,
}

/// A BM25F index over a set of skills, built once per session.
#[derive(Debug)]
pub struct SkillIndex {
    analyzer: Analyzer,
    params: Params,
    /// Stem → id, and each id's stem and postings.
    ids: HashMap<String, u32>,
    stems: Vec<String>,
    postings: Vec<Vec<Posting>>,
    /// Lowercase content word seen anywhere → its stem's id: each distinct word is stemmed
    /// once, and compound words are split against these.
    known: HashMap<String, u32>,
    name_len: Vec<f32>,
    desc_len: Vec<f32>,
    avg_name: f32,
    avg_desc: f32,
}

/// Term ids of one skill's fields, repeats kept.
struct Fields {
    name: Vec<u32>,
    desc: Vec<u32>,
}

impl SkillIndex {
    /// Index `skills` with the default parameters.
    pub fn build(skills: &[Skill]) -> Self {
        Self::with_params(skills, Params::default())
    }

    /// Index `skills` with explicit parameters (benchmarks sweep them).
    pub fn with_params(skills: &[Skill], params: Params) -> Self {
        let mut index = Self {
            analyzer: Analyzer::default(),
            params,
            ids: HashMap::new(),
            stems: Vec::new(),
            postings: Vec::new(),
            known: HashMap::new(),
            name_len: Vec::with_capacity(skills.len()),
            desc_len: Vec::with_capacity(skills.len()),
            avg_name: 0.0,
            avg_desc: 0.0,
        };
        let mut fields = Vec::with_capacity(skills.len());
        let mut name_words = Vec::with_capacity(skills.len());
        for skill in skills {
            let name = words(&skill.name);
            let desc = words(&skill.description);
            fields.push(Fields {
                name: name.iter().filter_map(|w| index.intern(w)).collect(),
                desc: desc.iter().filter_map(|w| index.intern(w)).collect(),
            });
            name_words.push(name);
        }
        // Compounds split against every word of the catalog, so only once all are known.
        if index.params.split_compounds {
            for (f, name) in fields.iter_mut().zip(&name_words) {
                for w in name {
                    for part in index.split_compound(w) {
                        f.name.extend(index.intern(&part));
                    }
                }
            }
        }
        let mut counts: HashMap<u32, (u16, u16)> = HashMap::new();
        for (doc, f) in fields.iter().enumerate() {
            counts.clear();
            for id in &f.name {
                let c = counts.entry(*id).or_default();
                c.0 = c.0.saturating_add(1);
            }
            for id in &f.desc {
                let c = counts.entry(*id).or_default();
                c.1 = c.1.saturating_add(1);
            }
            for (id, (name_tf, desc_tf)) in &counts {
                index.postings[*id as usize].push(Posting {
                    doc: doc as u32,
                    name_tf: *name_tf,
                    desc_tf: *desc_tf,
                });
            }
            index.name_len.push(f.name.len() as f32);
            index.desc_len.push(f.desc.len() as f32);
        }
        // Postings in skill order, so equal scores keep catalog order wherever they are summed.
        for list in &mut index.postings {
            list.sort_unstable_by_key(|p| p.doc);
        }
        let n = skills.len().max(1) as f32;
        index.avg_name = (index.name_len.iter().sum::<f32>() / n).max(1.0);
        index.avg_desc = (index.desc_len.iter().sum::<f32>() / n).max(1.0);
        index
    }

    /// The term id of a lowercase word, stemming and adding it on first sight; `None` for
    /// words that carry no meaning.
    fn intern(&mut self, word: &str) -> Option<u32> {
        if let Some(id) = self.known.get(word) {
            return Some(*id);
        }
        if !is_content(word) {
            return None;
        }
        let stem = self.analyzer.stem(word);
        let id = match self.ids.get(&stem) {
            Some(id) => *id,
            None => {
                let id = self.stems.len() as u32;
                self.ids.insert(stem.clone(), id);
                self.stems.push(stem);
                self.postings.push(Vec::new());
                id
            }
        };
        self.known.insert(word.to_string(), id);
        Some(id)
    }

    /// The content words a compound like `pdftotext` or `qrcode` is made of, when it splits
    /// wholly into two or three words seen elsewhere in the catalog (a middle "to" or "2" may
    /// join them); empty when it does not split.
    fn split_compound(&self, word: &str) -> Vec<String> {
        if word.len() < 6 || !word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
            return Vec::new();
        }
        let joins = ["to", "2", "and", "n"];
        let usable = |part: &str| part.len() >= 3 && self.known.contains_key(part);
        for i in 3..=word.len() - 3 {
            let (head, tail) = word.split_at(i);
            if !usable(head) {
                continue;
            }
            if usable(tail) {
                return vec![head.to_string(), tail.to_string()];
            }
            for join in joins {
                if let Some(rest) = tail.strip_prefix(join)
                    && usable(rest)
                {
                    return vec![head.to_string(), rest.to_string()];
                }
            }
        }
        Vec::new()
    }

    /// Index ids and weights a query word stands for: its own stem when the catalog has it,
    /// else the parts of a compound, else near misses (one or two edits, or a prefix) at
    /// `fuzzy_weight`.
    fn expand(&self, word: &str, near_miss_budget: &mut usize) -> Vec<(u32, f32)> {
        if let Some(id) = self.known.get(word) {
            return vec![(*id, 1.0)];
        }
        let stem = self.analyzer.stem(word);
        if let Some(id) = self.ids.get(&stem) {
            return vec![(*id, 1.0)];
        }
        let parts: Vec<(u32, f32)> = self
            .split_compound(word)
            .iter()
            .filter_map(|p| self.ids.get(&self.analyzer.stem(p)).map(|id| (*id, 1.0)))
            .collect();
        if !parts.is_empty() || *near_miss_budget == 0 {
            return parts;
        }
        *near_miss_budget -= 1;
        self.near_misses(&stem)
    }

    /// Catalog stems within a typo of `stem` (one edit from 5 letters, two from 8), that
    /// start with it when it has at least 4 letters (an abbreviation: "repo", "config"), or that
    /// it starts with, up to 3 letters shorter (a derived word: "rental" → rent) or, when it is
    /// a word of a skill's name, any length shorter (an abbreviation: "repositories" → repo);
    /// same first letter, so a city name does not turn into some other word. Shorter words
    /// have too many neighbours ("morn" is one edit from "moon").
    fn near_misses(&self, stem: &str) -> Vec<(u32, f32)> {
        let len = stem.chars().count();
        let w = self.params.fuzzy_weight;
        if len < 4 || w <= 0.0 || stem.bytes().any(|b| b.is_ascii_digit()) {
            return Vec::new();
        }
        let max_edits = if len >= 8 { 2 } else { 1 };
        let first = stem.chars().next();
        let mut out = Vec::new();
        for (i, cand) in self.stems.iter().enumerate() {
            let clen = cand.chars().count();
            if cand.chars().next() != first || clen < 4 {
                continue;
            }
            let derived = self.params.stem_prefix
                && clen < len
                && stem.starts_with(cand.as_str())
                && (len - clen <= 3 || self.in_a_name(i));
            let prefix = cand.starts_with(stem) || derived;
            let close = len >= 5 && clen.abs_diff(len) <= max_edits && strsim::osa_distance(stem, cand) <= max_edits;
            if prefix || close {
                out.push((i as u32, w));
            }
        }
        out
    }

    /// Whether term `id` occurs in some skill's name.
    fn in_a_name(&self, id: usize) -> bool {
        self.postings
            .get(id)
            .is_some_and(|list| list.iter().any(|p| p.name_tf > 0))
    }

    /// Inverse document frequency of a term in `df` skills.
    fn idf(&self, df: usize) -> f32 {
        let n = self.name_len.len() as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Scores of every skill for `query`, and what a skill matching every word would score.
    pub fn score(&self, query: &str) -> LexicalScores {
        let mut scores = vec![0.0f32; self.name_len.len()];
        let mut ceiling = 0.0f32;
        let mut seen: HashSet<&str> = HashSet::new();
        // Each near-miss lookup scans the vocabulary: a pasted log must not make that quadratic.
        let mut near_miss_budget = MAX_NEAR_MISS_WORDS;
        let query_words = words(query);
        for word in &query_words {
            if !is_content(word) || !seen.insert(word) {
                continue;
            }
            // A word may stand for several index terms (parts, near misses): per skill, the best
            // of them counts, so one typo cannot outweigh a real match.
            let mut best: HashMap<u32, f32> = HashMap::new();
            // A word the catalog lacks counts as if one skill had it: it is part of what the
            // request asks for, and no skill's words explain it.
            let mut word_idf: Option<f32> = None;
            for (id, weight) in self.expand(word, &mut near_miss_budget) {
                let postings = &self.postings[id as usize];
                let idf = weight * self.idf(postings.len());
                word_idf = Some(word_idf.map_or(idf, |w| w.max(idf)));
                for p in postings {
                    let e = best.entry(p.doc).or_default();
                    *e = e.max(idf * self.saturate(p));
                }
            }
            ceiling += word_idf.unwrap_or_else(|| self.idf(1)) * (self.params.k1 + 1.0);
            for (doc, s) in best {
                scores[doc as usize] += s;
            }
        }
        LexicalScores { scores, ceiling }
    }

    /// BM25F: field frequencies, each normalised by its field's length, weighted, summed, and
    /// then saturated once.
    fn saturate(&self, p: &Posting) -> f32 {
        let d = p.doc as usize;
        let pr = &self.params;
        let norm = |tf: u16, len: f32, avg: f32, b: f32| f32::from(tf) / (1.0 - b + b * len / avg);
        let tf = pr.name_weight * norm(p.name_tf, self.name_len[d], self.avg_name, pr.name_b)
            + norm(p.desc_tf, self.desc_len[d], self.avg_desc, pr.desc_b);
        tf * (pr.k1 + 1.0) / (tf + pr.k1)
    }

    /// The best `limit` skills for `query`, best first; ties keep catalog order.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        top(&self.score(query).scores, limit)
    }
}

/// A skill name as space-separated lowercase words (`PdfToText` → "pdf to text").
pub(crate) fn words_of_name(name: &str) -> String {
    words(name).join(" ")
}

/// The `limit` highest positive scores, best first; ties keep catalog order.
pub(crate) fn top(scores: &[f32], limit: usize) -> Vec<Hit> {
    let mut hits: Vec<Hit> = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .map(|(index, score)| Hit { index, score: *score })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    hits.truncate(limit);
    hits
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
