//! The catalog of each turn. Under its budget every skill is listed and nothing changes between
//! turns. Over it, the first turn lists the skills most relevant to its request, and that list is
//! kept for the rest of the session (until the skills change): the system message, the tool
//! schemas and every earlier message stay byte-identical from turn to turn, so the prefix a
//! provider caches (OpenAI from 1,024 tokens, others at breakpoints) keeps hitting. Relevant skills
//! a later request needs that the kept list leaves out are appended after that request, as the
//! result of a `search_skills` call the agent makes on the model's behalf.

use crate::output::Event;
use crate::skills::catalog::model_line;

use super::prompt;
use super::turn::{Agent, CATALOG_RANKED};

/// Most skills suggested after a request. Each suggestion stays in every later request: a
/// few short lines keep the part that repeats (and that a provider caches) near the whole.
const SUGGESTED: usize = 3;
/// Characters of a description in a suggestion; `search_skills` and activation say more.
const SUGGESTION_CHARS: usize = 200;
/// A skill is suggested only when it ranks at least this share of the request's best score: a
/// weak match is noise the model pays for in every later request.
const SUGGESTION_MIN_SHARE: f32 = 0.5;

impl Agent {
    /// Put the catalog in the system prompt: all skills, or within the budget the ones most
    /// relevant to the session's first request, kept after that. Returns whether skills were
    /// left out.
    pub(super) async fn refresh_catalog(&mut self, request: &str) -> bool {
        self.suggestion = None;
        // A kept catalog means the skills did not fit and have not changed since (a scan
        // unfreezes it): no need to measure all of them again every turn.
        if self.frozen_catalog.is_none() && self.skills().fits(self.catalog_budget) {
            self.frozen_catalog = None;
            let catalog = self.skills().render_all();
            self.session.catalog_bytes = catalog.text.len() as u64;
            self.conversation
                .set_system(prompt::system_prompt_with(self.skills(), &catalog));
            return false;
        }
        let ranking = self
            .tools
            .retriever()
            .rank(self.skills(), request, CATALOG_RANKED)
            .await;
        if let Some(message) = ranking.warning {
            self.emit(Event::Warning { message });
        }
        if let Some(listed) = &self.frozen_catalog {
            let best = ranking.ranked.first().map_or(0.0, |r| r.score);
            let strong = ranking
                .ranked
                .iter()
                .take_while(|r| r.score > 0.0 && r.score >= best * SUGGESTION_MIN_SHARE)
                .map(|r| r.index);
            self.suggestion = suggestion(self, listed, strong);
            return true;
        }
        let catalog = self
            .skills()
            .render_ranked(self.catalog_budget, ranking.ranked.iter().map(|r| r.index));
        self.notice_budget(catalog.listed, catalog.omitted);
        self.frozen_catalog = Some(super::route::listed_names(&catalog.text));
        self.session.catalog_bytes = catalog.text.len() as u64;
        self.conversation
            .set_system(prompt::system_prompt_with(self.skills(), &catalog));
        true
    }

    /// Tell the user once that the library is over the catalog budget.
    fn notice_budget(&mut self, listed: usize, omitted: usize) {
        if omitted == 0 || self.catalog_noticed {
            return;
        }
        self.catalog_noticed = true;
        self.emit(Event::Warning {
            message: format!(
                "{} skills do not fit the catalog budget of {} bytes (AGENT_CATALOG_BUDGET): the session's catalog \
                 lists the {listed} most relevant to its first request, later requests get the relevant others \
                 appended, and the model can search_skills for all {omitted} not listed",
                self.skills().all().len(),
                self.catalog_budget,
            ),
        });
    }

    /// After the user's message: the relevant skills the kept catalog leaves out, as a
    /// `search_skills` result, so the model sees them without the system message changing.
    pub(super) fn suggest_skills(&mut self, request: &str) {
        if let Some(found) = self.suggestion.take() {
            self.conversation.searched_for_the_model(request, found);
        }
    }

    /// Forget the kept catalog (the skills changed): the next turn ranks anew.
    pub(super) fn unfreeze_catalog(&mut self) {
        self.frozen_catalog = None;
    }
}

/// The `search_skills`-style lines of the best-ranked skills not in `listed`, if any.
fn suggestion(agent: &Agent, listed: &[String], ranked: impl Iterator<Item = usize>) -> Option<String> {
    let all = agent.skills().all();
    let lines: Vec<String> = ranked
        .take(SUGGESTED)
        .filter_map(|i| all.get(i))
        .filter(|s| s.invocation.model && !listed.iter().any(|l| *l == model_line(&s.name)))
        .map(|s| {
            let desc: String = model_line(&s.description).chars().take(SUGGESTION_CHARS).collect();
            format!("- {}: {desc}\n", model_line(&s.name))
        })
        .collect();
    (!lines.is_empty()).then(|| lines.concat())
}
