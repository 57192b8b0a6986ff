//! The catalog of each turn. Under its budget every skill is listed and nothing changes between
//! turns. Over it, the first turn lists the skills most relevant to its request, and that list is
//! kept for the rest of the session (until the skills change): the system message, the tool
//! schemas and every earlier message stay byte-identical from turn to turn, so the prefix a
//! provider caches (OpenAI from 1,024 tokens, others at breakpoints) keeps hitting. Relevant skills
//! a later request needs that the kept list leaves out are noted at the end of that request's
//! user message: a few short lines, since each stays in every later request (a synthetic
//! `search_skills` call and result cost twice the bytes, and every byte past the shared prefix is
//! paid at the full price each turn).

use crate::output::Event;
use crate::skills::catalog::model_line;

use super::prompt::{self, PromptMode};
use super::turn::{Agent, CATALOG_RANKED};

/// Most skills suggested after a request. Each suggestion stays in every later request: a
/// few short lines keep the part that repeats (and that a provider caches) near the whole.
const SUGGESTED: usize = 3;
/// Characters of a description in a suggestion (its first sentence when shorter);
/// `search_skills` and activation say more.
const SUGGESTION_CHARS: usize = 100;
/// What introduces the suggestions after the user's words.
const SUGGESTED_NOTE: &str = include_str!("../../prompts/suggested.md");
/// A skill is suggested only when it ranks at least this share of the request's best score: a
/// weak match is noise the model pays for in every later request.
const SUGGESTION_MIN_SHARE: f32 = 0.5;

/// What a turn's catalog means for its request.
pub(super) struct CatalogTurn {
    /// Skills were left out of the catalog (the budget's tools are offered).
    pub(crate) budgeted: bool,
    /// The note for the user's message: the relevant skills a kept catalog leaves out, so the
    /// model sees them without the system message changing.
    pub(crate) note: Option<String>,
}

impl Agent {
    /// Put the catalog in the system prompt: all skills, or within the budget the ones most
    /// relevant to the session's first request, kept after that.
    pub(super) async fn refresh_catalog(&mut self, request: &str) -> CatalogTurn {
        // A kept catalog means the skills did not fit and have not changed since (a scan
        // unfreezes it): no need to measure all of them again every turn.
        if self.frozen_catalog.is_none() && self.skills().fits(self.catalog_budget) {
            let catalog = self.skills().render_all();
            self.session.catalog_bytes = catalog.text.len() as u64;
            self.conversation
                .set_system(prompt::system_prompt_with(self.skills(), &catalog, self.prompt_mode));
            return CatalogTurn {
                budgeted: false,
                note: None,
            };
        }
        if self.frozen_catalog.is_some() {
            return CatalogTurn {
                budgeted: true,
                note: self.suggestions(request).await,
            };
        }
        // A catalog not kept yet (a new process) is ranked for the session's first request, not
        // this one: a resumed session (`-c`) then lists what its first turn listed, and the
        // prefix a server caches (llama.cpp's prompt cache, a provider's) is the same bytes.
        let first = self.conversation.user_turns().first().map(|t| t.to_string());
        let ranking = self
            .tools
            .retriever()
            .rank(self.skills(), first.as_deref().unwrap_or(request), CATALOG_RANKED)
            .await;
        if let Some(message) = ranking.warning {
            self.emit(Event::Warning { message });
        }
        let catalog = self
            .skills()
            .render_ranked(self.catalog_budget, ranking.ranked.iter().map(|r| r.index));
        self.notice_budget(catalog.listed, catalog.omitted);
        self.frozen_catalog = Some(super::route::listed_names(&catalog.text));
        self.session.catalog_bytes = catalog.text.len() as u64;
        self.conversation
            .set_system(prompt::system_prompt_with(self.skills(), &catalog, self.prompt_mode));
        // Resumed: this request may need what the first one's list leaves out.
        let note = match first {
            Some(_) => self.suggestions(request).await,
            None => None,
        };
        CatalogTurn { budgeted: true, note }
    }

    /// The note for `request` naming the relevant skills the kept catalog leaves out, if any.
    async fn suggestions(&mut self, request: &str) -> Option<String> {
        let ranking = self
            .tools
            .retriever()
            .rank(self.skills(), request, CATALOG_RANKED)
            .await;
        if let Some(message) = ranking.warning {
            self.emit(Event::Warning { message });
        }
        let listed = self.frozen_catalog.as_ref()?;
        let best = ranking.ranked.first().map_or(0.0, |r| r.score);
        let strong = ranking
            .ranked
            .iter()
            .take_while(|r| r.score > 0.0 && r.score >= best * SUGGESTION_MIN_SHARE)
            .map(|r| r.index);
        suggestion(self, listed, strong)
    }

    /// Tell the user once that the library is over the catalog budget.
    fn notice_budget(&mut self, listed: usize, omitted: usize) {
        if omitted == 0 || self.catalog_noticed {
            return;
        }
        self.catalog_noticed = true;
        // The compact prompt offers no search_skills: the notice must not promise it.
        let search = match self.prompt_mode {
            PromptMode::Full => format!(", and the model can search_skills for all {omitted} not listed"),
            PromptMode::Compact => format!(" ({omitted} not listed; the compact prompt offers no search)"),
        };
        self.emit(Event::Warning {
            message: format!(
                "{} skills do not fit the catalog budget of {} bytes (AGENT_CATALOG_BUDGET): the session's catalog \
                 lists the {listed} most relevant to its first request, later requests get the relevant others \
                 appended{search}. Said again when the library or the budget changes",
                // The skills the model may pick, as `skills list` counts them in its footer.
                listed + omitted,
                self.catalog_budget,
            ),
        });
    }

    /// Do not tell the user the library is over the catalog budget: an earlier run already did,
    /// for the same library and budget (the front end keeps track).
    pub(crate) fn catalog_notice_said(&mut self) {
        self.catalog_noticed = true;
    }

    /// Forget the kept catalog (the skills changed): the next turn ranks anew.
    pub(super) fn unfreeze_catalog(&mut self) {
        self.frozen_catalog = None;
    }
}

/// The note naming the best-ranked skills not in `listed`, if any.
fn suggestion(agent: &Agent, listed: &[String], ranked: impl Iterator<Item = usize>) -> Option<String> {
    let all = agent.skills().all();
    let lines: Vec<String> = ranked
        .filter_map(|i| all.get(i))
        .filter(|s| s.offered_to_model() && !listed.iter().any(|l| *l == model_line(&s.name)))
        .take(SUGGESTED)
        .map(|s| format!("- {}: {}", model_line(&s.name), gist(&model_line(&s.description))))
        .collect();
    (!lines.is_empty()).then(|| format!("{}\n{}", SUGGESTED_NOTE.trim_end(), lines.join("\n")))
}

/// The start of a description: its first sentence, or its first words up to
/// [`SUGGESTION_CHARS`] with an ellipsis.
fn gist(description: &str) -> String {
    let sentence = description
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .find(|&end| end >= 20)
        .map_or(description, |end| &description[..end]);
    if sentence.chars().count() <= SUGGESTION_CHARS {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(SUGGESTION_CHARS).collect();
    let words = cut
        .rfind(' ')
        .filter(|&i| i >= SUGGESTION_CHARS / 2)
        .map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}…", words.trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gist_is_the_first_sentence_or_whole_words_cut_short() {
        assert_eq!(
            gist("Convert PDF files to Word. Uses pdf2docx and keeps tables."),
            "Convert PDF files to Word."
        );
        assert_eq!(
            gist("Short. Then more text follows here."),
            "Short. Then more text follows here."
        );
        let long = "Automate Ambient Weather tasks via Rube MCP (Composio), listing stations, fetching readings, \
                    and exporting them";
        let g = gist(long);
        assert!(g.ends_with('…') && g.chars().count() <= SUGGESTION_CHARS + 1, "{g}");
        assert!(long.starts_with(g.trim_end_matches('…')), "{g}");
        assert_eq!(gist("Émoji ✓ only"), "Émoji ✓ only");
    }
}
