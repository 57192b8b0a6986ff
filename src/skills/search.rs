//! Ranking skills by relevance to a request: BM25 over name and description, with English
//! stemming and stop-word removal (the `bm25` crate's tokenizer).

use bm25::{Document, Language, SearchEngine, SearchEngineBuilder};

use super::Skill;

/// A skill and how well it matches a query; higher is better.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index into the skill list the index was built from.
    pub index: usize,
    pub score: f32,
}

/// A BM25 index over a set of skills, built once per session.
pub struct SkillIndex {
    engine: SearchEngine<usize>,
}

/// The text a skill is found by: its name (as words, twice, since names are chosen to be
/// searched for) and its description.
fn searchable(skill: &Skill) -> String {
    let name = skill.name.replace(['-', '_'], " ");
    format!("{name} {name} {}", skill.description)
}

impl SkillIndex {
    pub fn build(skills: &[Skill]) -> Self {
        let docs: Vec<Document<usize>> = skills
            .iter()
            .enumerate()
            .map(|(i, s)| Document::new(i, searchable(s)))
            .collect();
        let engine = SearchEngineBuilder::<usize>::with_documents(Language::English, docs).build();
        Self { engine }
    }

    /// The best `limit` skills for `query`, best first; ties keep catalog order.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self
            .engine
            .search(query, limit)
            .into_iter()
            .filter(|r| r.score > 0.0)
            .map(|r| Hit {
                index: r.document.id,
                score: r.score,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, description: &str) -> Skill {
        Skill::synthetic(name, description)
    }

    #[test]
    fn stems_and_ranks() {
        let skills = vec![
            skill("weather", "Current weather for a city: temperature and conditions."),
            skill("pdf-tools", "Extract text and tables from PDF files."),
            skill("github", "Look up GitHub repositories, issues and pull requests."),
        ];
        let index = SkillIndex::build(&skills);
        assert_eq!(index.search("what's the temperature in Oslo", 3)[0].index, 0);
        assert_eq!(index.search("extracting tables from a pdf", 3)[0].index, 1);
        assert_eq!(index.search("open issues on my repository", 3)[0].index, 2);
        assert!(index.search("zzzz qqqq", 3).is_empty());
    }
}
