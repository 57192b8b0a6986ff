//! Managing a conversation across turns: reset, model and skill changes, skills activated by
//! hand, interrupted turns, and keeping the history within its budget.

use crate::llm::types::FunctionCall;
use crate::llm::{ChatMessage, ToolCall};
use crate::skills::SkillSet;

use super::prompt;
use super::turn::Agent;
use crate::output::Event;

/// Prefix of a tool output that was cut to keep the conversation within budget.
const SHORTENED: &str = "[shortened to save context]";
/// What stands in the conversation for an answer the user cut short.
const INTERRUPTED: &str = "[interrupted by the user]";
/// How much of a shortened tool output is kept.
const SHORTENED_KEEP_CHARS: usize = 200;

impl Agent {
    /// Forget the conversation; keep skills, model and settings.
    pub fn reset(&mut self) {
        self.messages.truncate(1);
        self.activated.clear();
        self.current = None;
        self.budget_noticed = false;
    }

    pub fn model(&self) -> &str {
        self.llm.model()
    }

    pub fn set_model(&mut self, model: &str) {
        self.llm.set_model(model.to_string());
    }

    pub fn skills(&self) -> &SkillSet {
        &self.skills
    }

    /// Replace the skill set (after a re-scan) and the catalog in the system prompt.
    pub fn set_skills(&mut self, skills: SkillSet) {
        self.activated.retain(|name| skills.get(name).is_some());
        if self.current.as_deref().is_some_and(|c| skills.get(c).is_none()) {
            self.current = None;
        }
        self.skills = skills;
        self.messages[0] = ChatMessage::system(prompt::system_prompt(&self.skills));
    }

    /// The user's messages so far, oldest first.
    pub fn user_turns(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|m| m.role == "user")
            .filter_map(|m| m.content.as_deref())
            .collect()
    }

    /// Activate a skill on the user's say-so: recorded as if the model had called
    /// `activate_skill`, so it is never injected twice. Returns the skill's folder.
    pub fn activate_by_hand(&mut self, name: &str) -> Result<String, String> {
        let skill = self
            .skills
            .get(name)
            .ok_or_else(|| format!("no skill named {name:?}; /skills lists them"))?;
        let name = skill.name.clone();
        let dir = skill.dir.display().to_string();
        let id = format!("manual_{}", self.messages.len());
        let call = ToolCall {
            id: id.clone(),
            kind: "function",
            function: FunctionCall {
                name: "activate_skill".into(),
                arguments: serde_json::json!({ "name": name }).to_string(),
            },
        };
        let result = self.activate(&name);
        if result.starts_with("error:") {
            return Err(result);
        }
        self.remember(ChatMessage::assistant(None, vec![call]));
        self.remember(ChatMessage::tool(id, result));
        Ok(dir)
    }

    /// After a turn was cancelled: answer its open tool calls, and record in the model's place
    /// what it had said (if anything), marked as interrupted. The next request is then valid, and
    /// never carries two user messages in a row with nothing said between them: servers whose
    /// chat templates insist on alternating roles reject that, and the model could not tell the
    /// first request was abandoned.
    pub fn interrupted(&mut self) {
        let partial = std::mem::take(&mut *self.partial.lock().unwrap_or_else(|p| p.into_inner()));
        self.close_open_tool_calls("interrupted by the user");
        let unanswered = self
            .messages
            .last()
            .is_some_and(|m| m.role == "user" || m.role == "tool");
        if unanswered || !partial.is_empty() {
            let text = if partial.is_empty() {
                INTERRUPTED.to_string()
            } else {
                format!("{partial} {INTERRUPTED}")
            };
            self.remember(ChatMessage::assistant(Some(text), Vec::new()));
        }
    }

    /// Shorten the oldest tool outputs until the conversation fits its byte budget.
    pub(super) fn keep_within_budget(&mut self) {
        let budget = self.options.history_budget;
        let size = |m: &ChatMessage| m.content.as_ref().map_or(0, String::len) + 64;
        let mut total: usize = self.messages.iter().map(size).sum();
        if total <= budget {
            return;
        }
        for i in 1..self.messages.len() {
            if total <= budget {
                break;
            }
            let message = &mut self.messages[i];
            let Some(content) = message.content.as_mut() else {
                continue;
            };
            if message.role != "tool" || content.starts_with(SHORTENED) || content.len() <= SHORTENED_KEEP_CHARS * 2 {
                continue;
            }
            // A shortened activation no longer carries the skill's instructions.
            if let Some(rest) = content.strip_prefix("Skill ")
                && let Some((name, _)) = rest.split_once(" activated.")
            {
                let name = name.to_string();
                self.activated.retain(|a| *a != name);
            }
            let kept: String = content.chars().take(SHORTENED_KEEP_CHARS).collect();
            let before = content.len();
            *content = format!("{SHORTENED} {kept} [… {} bytes dropped]", before - kept.len());
            total = total - before + content.len();
        }
        if !self.budget_noticed {
            self.budget_noticed = true;
            self.emit(Event::Warning {
                message: format!(
                    "the conversation passed its budget of {budget} bytes (AGENT_HISTORY_BUDGET): older command \
                     outputs are being shortened; /reset starts afresh"
                ),
            });
        }
    }
}
