//! The conversation with the model: its messages (secrets redacted on the way in), which skills'
//! instructions it holds and which one is active, the marker an interrupted answer leaves, and
//! keeping it within its byte budget.

use std::sync::{Arc, Mutex};

use crate::llm::types::AGENT_NOTE;
use crate::llm::types::FunctionCall;
use crate::llm::{ChatMessage, ToolCall};
use crate::output::chat::HistoryEntry;
use crate::sessions::compact::{SUMMARY_ACK, SUMMARY_HEADING};
use crate::sessions::{Interruption, Journal, Record};
use crate::support::redact::Redactor;

use super::outcome::ToolOutcome;

mod stored;

/// Prefix of a tool output that was cut to keep the conversation within budget.
const SHORTENED: &str = "[shortened to save context]";
/// How much of a shortened tool output is kept.
const SHORTENED_KEEP_CHARS: usize = 200;
/// Bytes each message counts for besides its text (role, ids, framing).
const MESSAGE_OVERHEAD: usize = 64;

/// A skill whose instructions are in the conversation, and where.
#[derive(Debug, Clone)]
struct Held {
    skill: String,
    /// Index of the tool message that carries them.
    message: usize,
    /// The hash of the `SKILL.md` text they are (`sessions::freshness::body_hash`).
    hash: String,
}

/// Messages and what they hold; `messages[0]` is always the system prompt.
#[derive(Debug)]
pub(crate) struct Conversation {
    messages: Vec<ChatMessage>,
    redactor: Redactor,
    /// Bytes of conversation kept before old tool outputs are shortened.
    budget: usize,
    /// Skills whose instructions are in the conversation, in activation order.
    held: Vec<Held>,
    /// The most recently activated skill: where commands run.
    current: Option<String>,
    /// Text of the answer streaming right now, kept for marking an interrupted turn.
    partial: Arc<Mutex<String>>,
    /// Whether the user was told the history is being shortened.
    budget_noticed: bool,
    /// Where every message and activation is stored as it happens (docs/sessions.md); off when
    /// sessions are not stored.
    journal: Journal,
}

impl Conversation {
    /// A conversation that starts with `system`; everything added is redacted with `redactor`.
    pub(crate) fn new(system: String, budget: usize, redactor: Redactor) -> Self {
        Self {
            messages: vec![ChatMessage::system(system)],
            redactor,
            budget,
            held: Vec::new(),
            current: None,
            partial: Arc::default(),
            budget_noticed: false,
            journal: Journal::off(),
        }
    }

    /// Every message, the system prompt first: what the next request sends.
    pub(crate) fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Replace the system prompt (a new catalog, a re-scan).
    pub(crate) fn set_system(&mut self, system: String) {
        self.messages[0] = ChatMessage::system(system);
    }

    /// Add a message, with secrets redacted: everything the model sees passes through here.
    /// Tool-call arguments included: they are sent back with every later request.
    pub(crate) fn remember(&mut self, mut message: ChatMessage) {
        for text in [message.content.as_mut(), message.note.as_mut()].into_iter().flatten() {
            if let std::borrow::Cow::Owned(clean) = self.redactor.redact(text) {
                *text = clean;
            }
        }
        for call in &mut message.tool_calls {
            if let std::borrow::Cow::Owned(clean) = self.redactor.redact(&call.function.arguments) {
                call.function.arguments = clean;
            }
        }
        self.journal.record(&Record::Message(message.clone()));
        self.messages.push(message);
    }

    /// Answer tool call `id` with `outcome`; a skill it activated becomes the active one.
    pub(crate) fn tool_result(&mut self, id: String, outcome: &ToolOutcome) {
        self.answer(id, outcome, false);
    }

    fn answer(&mut self, id: String, outcome: &ToolOutcome, by_hand: bool) {
        let activated = match outcome {
            ToolOutcome::Ok { activated: Some(a), .. } => Some(a.clone()),
            _ => None,
        };
        if let Some(a) = &activated {
            self.current = Some(a.skill.clone());
            if let Some(hash) = &a.hash {
                self.held.push(Held {
                    skill: a.skill.clone(),
                    message: self.messages.len(),
                    hash: hash.clone(),
                });
            }
        }
        self.remember(ChatMessage::tool(id, outcome.for_model()));
        if let Some(a) = activated {
            self.journal.record(&Record::Activation {
                skill: a.skill,
                dir: a.dir,
                hash: a.hash,
                by_hand,
            });
        }
    }

    /// Record a skill activated on the user's say-so as if the model had called
    /// `activate_skill`, so it is never injected twice.
    pub(crate) fn activated_by_hand(&mut self, skill: &str, outcome: &ToolOutcome) {
        let id = self.call_for_the_model("manual", "activate_skill", serde_json::json!({ "name": skill }));
        self.answer(id, outcome, true);
    }

    /// Record a call of `tool` with `arguments` the agent made on the model's behalf (its id begins
    /// with `prefix`); returns the id its result answers.
    fn call_for_the_model(&mut self, prefix: &str, tool: &str, arguments: serde_json::Value) -> String {
        let id = format!("{prefix}_{}", self.messages.len());
        let call = ToolCall {
            id: id.clone(),
            kind: "function",
            function: FunctionCall {
                name: tool.into(),
                arguments: arguments.to_string(),
            },
        };
        self.remember(ChatMessage::assistant(None, vec![call]));
        id
    }

    /// Whether `skill`'s instructions are in the conversation.
    pub(crate) fn holds(&self, skill: &str) -> bool {
        self.held.iter().any(|h| h.skill == skill)
    }

    /// The active skill, where commands run.
    pub(crate) fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Forget skills `keep` says no longer exist (after a re-scan).
    pub(crate) fn keep_skills(&mut self, keep: impl Fn(&str) -> bool) {
        self.held.retain(|h| keep(&h.skill));
        if self.current.as_deref().is_some_and(|c| !keep(c)) {
            self.current = None;
        }
    }

    /// Forget everything but the system prompt.
    pub(crate) fn reset(&mut self) {
        self.messages.truncate(1);
        self.held.clear();
        self.current = None;
        self.budget_noticed = false;
        self.journal.record(&Record::Reset);
    }

    /// The user's messages so far, oldest first (a compaction's summary is none of them).
    pub(crate) fn user_turns(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|m| m.role == "user")
            .filter_map(|m| m.content.as_deref())
            .filter(|c| !c.starts_with(SUMMARY_HEADING) && !c.starts_with(AGENT_NOTE))
            .collect()
    }

    /// Both sides of the conversation, oldest first, for `/history`: the user's messages and the
    /// model's answers; an answer that called tools says which (with their arguments), since
    /// that is what the model did in reply. Tool outputs and a compaction's exchange are left out.
    pub(crate) fn history(&self) -> Vec<HistoryEntry> {
        let mut entries = Vec::new();
        for m in &self.messages[1..] {
            let text = m.content.as_deref().unwrap_or_default().trim();
            match m.role {
                "user" if !text.starts_with(SUMMARY_HEADING) && !text.starts_with(AGENT_NOTE) => {
                    entries.push(HistoryEntry {
                        role: "user",
                        text: text.to_string(),
                    })
                }
                "assistant" if text != SUMMARY_ACK => {
                    let calls = m
                        .tool_calls
                        .iter()
                        .map(|c| format!("{} {}", c.function.name, c.function.arguments));
                    let text: Vec<String> = (!text.is_empty())
                        .then(|| text.to_string())
                        .into_iter()
                        .chain(calls)
                        .collect();
                    if !text.is_empty() {
                        entries.push(HistoryEntry {
                            role: "assistant",
                            text: text.join("\n"),
                        });
                    }
                }
                _ => {}
            }
        }
        entries
    }

    /// Where the streaming answer is collected while it arrives.
    pub(crate) fn partial(&self) -> Arc<Mutex<String>> {
        self.partial.clone()
    }

    /// After a turn was cancelled: answer its open tool calls, and record in the model's place
    /// what it had said (if anything), marked as interrupted. The next request is then valid, and
    /// never carries two user messages in a row with nothing said between them: servers whose
    /// chat templates insist on alternating roles reject that, and the model could not tell the
    /// first request was abandoned.
    pub(crate) fn interrupted(&mut self) {
        let partial = std::mem::take(&mut *self.partial.lock().unwrap_or_else(|p| p.into_inner()));
        self.end_unfinished(&partial, Interruption::User);
    }

    /// Close a turn that ended without its answer (`by` the user, or `Lost` when a stored session
    /// shows the agent died mid-turn): every open tool call answered, then the answer so far
    /// (`partial`) marked as interrupted, in the model's place. Returns whether anything was open.
    fn end_unfinished(&mut self, partial: &str, by: Interruption) -> bool {
        let (reason, marker) = match by {
            Interruption::User => ("interrupted by the user", by.marker()),
            Interruption::Lost => ("interrupted: the agent stopped before this call finished", by.marker()),
        };
        let closed = self.close_open_tool_calls(reason);
        let unanswered = self
            .messages
            .last()
            .is_some_and(|m| m.role == "user" || m.role == "tool");
        if !unanswered && partial.is_empty() && !closed {
            return false;
        }
        if unanswered || !partial.is_empty() {
            let text = if partial.is_empty() {
                marker.to_string()
            } else {
                format!("{partial} {marker}")
            };
            self.remember(ChatMessage::assistant(Some(text), Vec::new()));
        }
        self.journal.record(&Record::Interrupted { by });
        true
    }

    /// After a cancelled or failed turn, answer tool calls that got no result so the
    /// conversation stays valid for the next request. Returns whether there were any.
    pub(crate) fn close_open_tool_calls(&mut self, reason: &str) -> bool {
        let Some(pos) = self.messages.iter().rposition(|m| m.role == "assistant") else {
            return false;
        };
        let answered: Vec<String> = self.messages[pos + 1..]
            .iter()
            .filter_map(|m| m.tool_call_id.clone())
            .collect();
        let missing: Vec<String> = self.messages[pos]
            .tool_calls
            .iter()
            .map(|c| c.id.clone())
            .filter(|id| !answered.contains(id))
            .collect();
        let any = !missing.is_empty();
        for id in missing {
            self.tool_result(id, &ToolOutcome::failed(reason));
        }
        any
    }

    /// Shorten the oldest tool outputs until the conversation fits its byte budget. Returns the
    /// warning to show the first time it does.
    pub(crate) fn keep_within_budget(&mut self) -> Option<String> {
        let size = |m: &ChatMessage| m.sent_len() + MESSAGE_OVERHEAD;
        let mut total: usize = self.messages.iter().map(size).sum();
        if total <= self.budget {
            return None;
        }
        for i in 1..self.messages.len() {
            if total <= self.budget {
                break;
            }
            let message = &mut self.messages[i];
            let Some(content) = message.content.as_mut() else {
                continue;
            };
            if message.role != "tool" || content.starts_with(SHORTENED) || content.len() <= SHORTENED_KEEP_CHARS * 2 {
                continue;
            }
            let kept: String = content.chars().take(SHORTENED_KEEP_CHARS).collect();
            let before = content.len();
            *content = format!("{SHORTENED} {kept} [… {} bytes dropped]", before - kept.len());
            total = total - before + content.len();
            // A shortened activation no longer carries the skill's instructions.
            self.held.retain(|h| h.message != i);
        }
        if self.budget_noticed {
            return None;
        }
        self.budget_noticed = true;
        Some(format!(
            "the conversation passed its budget of {} bytes (AGENT_HISTORY_BUDGET): older command \
             outputs are being shortened; /reset starts afresh",
            self.budget
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::outcome::Activation;

    fn activation(skill: &str, text: &str) -> ToolOutcome {
        ToolOutcome::Ok {
            text: text.to_string(),
            activated: Some(Activation {
                skill: skill.to_string(),
                dir: format!("/s/{skill}"),
                hash: Some("h".into()),
            }),
        }
    }

    #[test]
    fn a_shortened_activation_is_no_longer_held() {
        let mut c = Conversation::new("system".into(), 600, Redactor::NONE);
        c.remember(ChatMessage::user("hi"));
        c.activated_by_hand("weather", &activation("weather", &"instructions ".repeat(100)));
        assert!(c.holds("weather") && c.current() == Some("weather"));
        let warning = c.keep_within_budget();
        assert!(warning.is_some_and(|w| w.contains("AGENT_HISTORY_BUDGET")));
        assert!(!c.holds("weather"), "its instructions were cut");
        assert_eq!(c.current(), Some("weather"), "commands still run there");
        assert_eq!(c.keep_within_budget(), None, "said once");
    }

    #[test]
    fn open_calls_are_closed_as_failures_and_an_interruption_is_marked() {
        let mut c = Conversation::new("system".into(), 1 << 20, Redactor::NONE);
        c.remember(ChatMessage::user("go"));
        let call = ToolCall {
            id: "c1".into(),
            kind: "function",
            function: FunctionCall {
                name: "run_command".into(),
                arguments: "{}".into(),
            },
        };
        c.remember(ChatMessage::assistant(None, vec![call]));
        c.interrupted();
        let roles: Vec<&str> = c.messages().iter().map(|m| m.role).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
        assert_eq!(
            c.messages()[3].content.as_deref(),
            Some("error: interrupted by the user")
        );
        assert_eq!(c.messages()[4].content.as_deref(), Some(Interruption::User.marker()));
    }
}
