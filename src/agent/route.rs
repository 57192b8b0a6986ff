//! Routing only: which skill the model would activate for a request, without running anything.
//! The request is the one a real turn would send (the same catalog budget, the same ranking, the
//! same search tool when the catalog is over budget), so a routing eval measures what users get.

use crate::llm::types::Reply;
use crate::llm::{ChatMessage, LlmError};

use super::outcome::ToolOutcome;
use super::prompt;
use super::tools::{ToolRequest, decode_call};
use super::turn::Agent;

/// Most model responses one routing asks for: the first, and answers to `search_skills` calls.
const MAX_ROUTING_STEPS: usize = 3;

/// What the model did with a request on its first response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// It called `activate_skill` with this name (first such call).
    Skill(String),
    /// It answered, or called another tool, without activating a skill.
    None,
}

/// One routing of a request: the model's choice and what it was shown to choose from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Routed {
    pub(crate) route: Route,
    /// The catalog's skills in the order the model saw them.
    pub(crate) shown: Vec<String>,
    /// Skills the model found with `search_skills` before choosing.
    pub(crate) searched: Vec<String>,
    /// Model calls made, with the bytes each request carried and the reply (for usage).
    pub(crate) calls: Vec<(u64, Option<Reply>)>,
}

impl Routed {
    /// Where `skill` stood in the catalog (1-based), if it was listed.
    pub(crate) fn position(&self, skill: &str) -> Option<usize> {
        self.shown.iter().position(|s| s == skill).map(|i| i + 1)
    }
}

impl Agent {
    /// Count the model calls of a routing done with [`Self::route_shown`].
    pub(crate) fn count_routed(&mut self, routed: &Routed) {
        for (sent, reply) in &routed.calls {
            self.count_call(reply.as_ref(), *sent);
        }
    }

    /// Route `request` as a real turn would present it, without touching this agent's state (so
    /// several routings can run at once); the caller counts the calls.
    pub(crate) async fn route_shown(&self, request: &str) -> Result<Routed, LlmError> {
        let budgeted = !self.skills().fits(self.catalog_budget);
        let catalog = if budgeted {
            let ranking = self
                .tools
                .retriever()
                .rank(self.skills(), request, super::turn::CATALOG_RANKED)
                .await;
            self.skills()
                .render_ranked(self.catalog_budget, ranking.ranked.iter().map(|r| r.index))
        } else {
            self.skills().render_all()
        };
        let shown = listed_names(&catalog.text);
        let mut messages = vec![
            ChatMessage::system(prompt::system_prompt_with(
                self.skills(),
                &catalog,
                prompt::PromptMode::Full,
            )),
            ChatMessage::user(self.redactor.redact(request).into_owned()),
        ];
        let tools = prompt::tools(self.skills(), budgeted);
        let mut routed = Routed {
            route: Route::None,
            shown,
            searched: Vec::new(),
            calls: Vec::new(),
        };
        for _ in 0..MAX_ROUTING_STEPS {
            let sent = super::turn::request_bytes(&messages, &tools);
            let reply = self.llm.complete(&messages, &tools, &mut |_| {}).await?;
            let mut searches = Vec::new();
            for call in &reply.tool_calls {
                match decode_call(&call.function.name, &call.function.arguments) {
                    Ok(ToolRequest::Activate { name }) => {
                        routed.route = Route::Skill(name);
                        routed.calls.push((sent, Some(reply)));
                        return Ok(routed);
                    }
                    Ok(ToolRequest::Search { query }) => searches.push((call.id.clone(), query)),
                    _ => {}
                }
            }
            if searches.is_empty() {
                routed.calls.push((sent, Some(reply)));
                return Ok(routed);
            }
            messages.push(ChatMessage::assistant(None, reply.tool_calls.clone()));
            routed.calls.push((sent, Some(reply)));
            for (id, query) in searches {
                let found = self.tools.search_skills(&query).await;
                if let ToolOutcome::Ok { text, .. } = &found {
                    routed.searched.extend(listed_names(text));
                }
                messages.push(ChatMessage::tool(id, found.message().to_string()));
            }
        }
        Ok(routed)
    }
}

impl Agent {
    /// One request outside any conversation and without tools (drafting eval cases, proposing a
    /// description): the model's text, its call counted.
    pub(crate) async fn ask(&mut self, system: &str, user: &str) -> Result<String, LlmError> {
        let messages = [ChatMessage::system(system), ChatMessage::user(user)];
        let tools = serde_json::Value::Null;
        let sent = super::turn::request_bytes(&messages, &tools);
        let reply = self.llm.complete(&messages, &tools, &mut |_| {}).await;
        self.count_call(reply.as_ref().ok(), sent);
        Ok(reply?.content)
    }
}

/// The skill names of `- name: description` lines, in order.
pub(super) fn listed_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(':').map(|(name, _)| name.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_back_from_catalog_lines() {
        let text = "- weather: Current weather: now.\n- time: Local time.\n";
        assert_eq!(listed_names(text), ["weather", "time"]);
        let routed = Routed {
            route: Route::None,
            shown: listed_names(text),
            searched: Vec::new(),
            calls: Vec::new(),
        };
        assert_eq!(routed.position("time"), Some(2));
        assert_eq!(routed.position("nope"), None);
    }
}
