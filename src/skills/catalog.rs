//! The set of loaded skills: lookup by name, and the catalog the model routes on — every skill
//! when it fits the byte budget, else the most relevant ones.

use std::borrow::Cow;
use std::fmt::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use super::Skill;
use super::load::fields::MAX_DESCRIPTION_CHARS;
use super::retrieval::search::{Hit, Preloaded, SkillIndex};
use crate::support::cache_file::CacheDir;
use crate::support::terminal_text::is_hidden;

/// Loaded skills in precedence order, unique by name, with a search index built on first use.
#[derive(Clone, Default)]
pub struct SkillSet {
    skills: Vec<Skill>,
    index: Arc<OnceLock<SkillIndex>>,
    /// Where the index is kept between runs (`None`: built every run).
    cache: Option<CacheDir>,
    /// An index being read from the cache folder while the skills were found, taken on first
    /// use if it is theirs.
    preloaded: Arc<Mutex<Option<IndexPreload>>>,
}

/// A search index being read on a thread of its own ([`SkillIndex::preload_latest`]).
pub(crate) type IndexPreload = JoinHandle<Option<Preloaded>>;

/// Start reading the most recently used search index of the cache folder `cache` on a thread
/// of its own; `None` without a cache folder or when no thread can be started.
pub(crate) fn preload_index(cache: Option<&CacheDir>) -> Option<IndexPreload> {
    let cache = cache?.clone();
    std::thread::Builder::new()
        .name("index-preload".into())
        .spawn(move || SkillIndex::preload_latest(&cache))
        .ok()
}

impl std::fmt::Debug for SkillSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillSet").field("skills", &self.skills.len()).finish()
    }
}

/// A catalog as sent in one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    pub(crate) text: String,
    pub(crate) listed: usize,
    /// Skills left out to stay within the budget.
    pub(crate) omitted: usize,
}

/// A skill's name and description as the model sees them: third-party text on one line, with
/// control and invisible characters removed (they could forge a catalog line or hide words).
pub(crate) fn model_line(text: &str) -> Cow<'_, str> {
    if plain_ascii(text) || !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !is_hidden(*c)).collect())
}

/// Whether `text` is printable ASCII only: nothing hidden in it, and a byte per character. Most
/// descriptions are, and this is one pass over bytes instead of a character decode.
fn plain_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

fn line(skill: &Skill) -> String {
    let desc: String = model_line(&skill.description)
        .chars()
        .take(MAX_DESCRIPTION_CHARS)
        .collect();
    format!("- {}: {}\n", model_line(&skill.name), desc)
}

/// Bytes `skill` adds to every request's catalog: `line(skill).len()` without building the line
/// (nor copying clean text). The one measure of a catalog line (the budget, `skills check`).
pub(crate) fn line_len(skill: &Skill) -> usize {
    let desc = &skill.description;
    if plain_ascii(desc) && plain_ascii(&skill.name) {
        // One byte per character, none of them hidden.
        return "- ".len() + skill.name.len() + ": ".len() + desc.len().min(MAX_DESCRIPTION_CHARS) + "\n".len();
    }
    let desc = model_line(desc);
    let desc_len = desc
        .char_indices()
        .nth(MAX_DESCRIPTION_CHARS)
        .map_or(desc.len(), |(i, _)| i);
    "- ".len() + model_line(&skill.name).len() + ": ".len() + desc_len + "\n".len()
}

impl SkillSet {
    pub fn new(skills: Vec<Skill>) -> Self {
        Self::with_cache(skills, None)
    }

    /// The set of `skills`, its search index loaded from (or stored in) the cache folder `cache`.
    pub(crate) fn with_cache(skills: Vec<Skill>, cache: Option<CacheDir>) -> Self {
        Self {
            skills,
            index: Arc::default(),
            cache,
            preloaded: Arc::default(),
        }
    }

    /// This set, with an index read on another thread meanwhile ([`SkillIndex::preload_latest`]).
    pub(crate) fn with_preloaded(self, preloaded: Option<IndexPreload>) -> Self {
        *self.preloaded.lock().unwrap_or_else(|p| p.into_inner()) = preloaded;
        self
    }

    pub(crate) fn all(&self) -> &[Skill] {
        &self.skills
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Find a skill by exact name, else case-insensitively (models often re-case names).
    pub(crate) fn get(&self, name: &str) -> Option<&Skill> {
        let name = name.trim();
        self.skills
            .iter()
            .find(|s| s.name == name)
            .or_else(|| self.skills.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
    }

    /// The skills the model may pick on its own: all but those marked
    /// `disable-model-invocation` (or Codex's `allow_implicit_invocation: false`), which only a
    /// person invokes. The catalog, the `activate_skill` enum and searches hold these alone.
    pub(crate) fn routable(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| s.offered_to_model())
    }

    /// The names of the [`routable`](Self::routable) skills.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.routable().map(|s| s.name.as_str()).collect()
    }

    /// The BM25 index over these skills, built once (or read from the cache folder).
    pub(crate) fn index(&self) -> &SkillIndex {
        self.index.get_or_init(|| {
            let handle = self.preloaded.lock().unwrap_or_else(|p| p.into_inner()).take();
            let preloaded = handle.and_then(|h| h.join().ok()).flatten();
            SkillIndex::cached_or_preloaded(&self.skills, self.cache.as_ref(), preloaded)
        })
    }

    /// Whether every routable skill's catalog line fits in `budget` bytes (then nothing needs ranking).
    pub(crate) fn fits(&self, budget: usize) -> bool {
        self.catalog_len_upto(budget) <= budget
    }

    /// Bytes of the whole catalog, or the first count past `limit`: a big library is over its
    /// budget after a few dozen lines, so the other thousands are never measured.
    pub(crate) fn catalog_len_upto(&self, limit: usize) -> usize {
        let mut total = 0usize;
        for skill in self.routable() {
            total = total.saturating_add(line_len(skill));
            if total > limit {
                break;
            }
        }
        total
    }

    /// The skills most relevant to `query`, best first.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<(&Skill, f32)> {
        self.index()
            .search(query, limit)
            .into_iter()
            .filter_map(|Hit { index, score }| self.skills.get(index).map(|s| (s, score)))
            .filter(|(s, _)| s.offered_to_model())
            .collect()
    }

    /// Every routable skill, one `- name: description` line each, descriptions cut at the spec limit.
    pub(crate) fn render(&self) -> String {
        self.routable().map(line).collect()
    }

    /// The catalog within `budget` bytes: everything if it fits, else the skills most relevant to
    /// `query` by their words first, then others in catalog order while room remains.
    pub fn render_within(&self, budget: usize, query: &str) -> Catalog {
        // Size first: over budget, the full text (a megabyte at 10,000 skills) is never needed.
        if self.fits(budget) {
            return self.render_all();
        }
        let ranked: Vec<usize> = self.index().search(query, 200).into_iter().map(|h| h.index).collect();
        self.render_ranked(budget, ranked)
    }

    /// Every routable skill, as a catalog.
    pub(crate) fn render_all(&self) -> Catalog {
        Catalog {
            text: self.render(),
            listed: self.routable().count(),
            omitted: 0,
        }
    }

    /// The catalog within `budget` bytes: the skills at the indexes `ranked` first, in that
    /// order, then others in catalog order while room remains.
    pub(crate) fn render_ranked(&self, budget: usize, ranked: impl IntoIterator<Item = usize>) -> Catalog {
        let routable = self.routable().count();
        // Skills only a person invokes count as chosen already: never listed.
        let mut chosen: Vec<bool> = self.skills.iter().map(|s| !s.offered_to_model()).collect();
        let mut text = String::new();
        let mut listed = 0;
        for i in ranked.into_iter().chain(0..self.skills.len()) {
            if chosen.get(i).is_none_or(|c| *c) {
                continue;
            }
            // Measured before it is built: most lines of a big library never fit.
            if text.len() + line_len(&self.skills[i]) > budget {
                continue;
            }
            chosen[i] = true;
            // Writing to a String cannot fail.
            let _ = write!(text, "{}", line(&self.skills[i]));
            listed += 1;
            if budget - text.len() < 40 {
                break;
            }
        }
        Catalog {
            text,
            listed,
            omitted: routable - listed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(i: usize) -> Skill {
        let topics = [
            "pdf files",
            "kubernetes pods",
            "weather forecasts",
            "git history",
            "invoices",
        ];
        let description = format!(
            "Handles {} number {i} quickly and safely for the user.",
            topics[i % topics.len()]
        );
        Skill::synthetic(&format!("skill-{i}"), &description)
    }

    #[test]
    fn line_len_matches_the_line() {
        let long = Skill::synthetic("long", &"é".repeat(2000));
        let long_ascii = Skill::synthetic("long-ascii", &"a".repeat(2000));
        let hostile = Skill::synthetic("a\nb", "x\x1b[2J\u{202e}y");
        for s in [skill(3), long, long_ascii, hostile] {
            assert_eq!(line_len(&s), line(&s).len());
        }
    }

    #[test]
    fn skills_only_people_invoke_are_never_offered_to_the_model() {
        let mut hidden = Skill::synthetic("deploy", "Deploy the application to production servers.");
        hidden.invocation.model = false;
        let set = SkillSet::new(vec![skill(1), hidden, skill(2)]);
        assert_eq!(set.names(), ["skill-1", "skill-2"]);
        assert!(!set.render().contains("deploy"));
        assert!(set.search("deploy production", 5).is_empty());
        assert!(set.get("deploy").is_some(), "still found by name for a person");
        let c = set.render_within(60, "deploy production");
        assert!(!c.text.contains("deploy"), "{}", c.text);
        assert_eq!(c.listed + c.omitted, 2);
    }

    #[test]
    fn small_sets_are_listed_whole() {
        let set = SkillSet::new((0..5).map(skill).collect());
        let c = set.render_within(8192, "anything");
        assert_eq!((c.listed, c.omitted), (5, 0));
        assert_eq!(c.text, set.render());
    }

    #[test]
    fn ten_thousand_skills_stay_within_budget_and_relevant_ones_come_first() {
        let set = SkillSet::new((0..10_000).map(skill).collect());
        for budget in [1024, 8192, 32 * 1024] {
            let c = set.render_within(budget, "git history of my repository");
            assert!(c.text.len() <= budget, "{} > {budget}", c.text.len());
            assert_eq!(c.listed + c.omitted, 10_000);
            assert!(
                c.text.lines().next().unwrap().contains("git history"),
                "{}",
                c.text.lines().next().unwrap()
            );
        }
    }
}
