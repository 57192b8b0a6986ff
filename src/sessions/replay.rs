//! Rebuilding a conversation from its records: the messages the next request would hold (after
//! the last compaction or reset), the skills whose instructions they carry, the model, the
//! approval grants and what each turn cost. A turn the agent never finished (it was killed) is
//! closed the way an interrupted one is, so the next request is valid and says what happened.

use std::collections::BTreeSet;

use super::record::{CallUsage, Interruption, Record};
use crate::llm::ChatMessage;

/// What stands in for the answer of a turn the agent did not live to finish.
pub const LOST_TURN: &str = "[interrupted: the agent stopped before finishing this turn]";
/// The result of a tool call that never finished.
pub const LOST_CALL: &str = "error: interrupted: the agent stopped before this call finished";

/// A skill whose instructions are in the rebuilt messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldSkill {
    pub skill: String,
    pub dir: String,
    /// SHA-256 of the `SKILL.md` text the messages carry.
    pub hash: String,
    /// Index in [`Replayed::messages`] of the tool result that carries them.
    pub message: usize,
    pub by_hand: bool,
}

/// Tokens of one user turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnUsage {
    /// The user's message (as stored, secrets redacted).
    pub message: String,
    pub calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Some call of the turn had no `usage` from the server: its counts are estimates.
    pub estimated: bool,
}

impl TurnUsage {
    pub fn add(&mut self, usage: &CallUsage) {
        self.calls += 1;
        self.prompt_tokens += usage.prompt_tokens;
        self.completion_tokens += usage.completion_tokens;
        self.estimated |= usage.estimated;
    }
}

/// A conversation rebuilt from records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// The history after the system prompt, as the next request holds it.
    pub messages: Vec<ChatMessage>,
    /// Skills whose instructions `messages` carries, in activation order.
    pub held: Vec<HeldSkill>,
    /// The most recently activated skill: where commands run.
    pub current: Option<String>,
    /// The model in use at the end (`None`: the header's).
    pub model: Option<String>,
    /// Skills the user answered "always" for.
    pub grants: BTreeSet<String>,
    /// Every user turn, oldest first (compacted ones included).
    pub turns: Vec<TurnUsage>,
    /// Records that close a turn left unfinished; append them before going on.
    pub repair: Vec<Record>,
}

/// Replay `records` in order.
pub fn replay(records: &[Record]) -> Replayed {
    let mut state = Replayed::default();
    for record in records {
        state.apply(record);
    }
    state.repair = close_lost_turn(&state.messages);
    for record in state.repair.clone() {
        state.apply(&record);
    }
    state
}

impl Replayed {
    fn apply(&mut self, record: &Record) {
        match record {
            Record::Message(m) => {
                if m.role == "user" {
                    self.turns.push(TurnUsage {
                        message: m.content.clone().unwrap_or_default(),
                        ..TurnUsage::default()
                    });
                }
                self.messages.push(m.clone());
            }
            Record::Activation {
                skill,
                dir,
                hash,
                by_hand,
            } => {
                self.current = Some(skill.clone());
                if let Some(hash) = hash.clone().filter(|_| !self.held.iter().any(|h| h.skill == *skill)) {
                    self.held.push(HeldSkill {
                        skill: skill.clone(),
                        dir: dir.clone(),
                        hash,
                        message: self.messages.len().saturating_sub(1),
                        by_hand: *by_hand,
                    });
                }
            }
            Record::Compaction { summary, .. } => {
                // The skills re-sent after the summary follow as records of their own.
                self.messages.clear();
                self.held.clear();
                self.messages.push(super::compact::summary_message(summary));
            }
            Record::Reset => {
                self.messages.clear();
                self.held.clear();
                self.current = None;
            }
            Record::Usage(usage) => {
                // A call before any user turn (none is made today) still counts, in a turn of its own.
                if self.turns.is_empty() {
                    self.turns.push(TurnUsage::default());
                }
                if let Some(turn) = self.turns.last_mut() {
                    turn.add(usage);
                }
            }
            Record::Model { model } => self.model = Some(model.clone()),
            Record::Grant { skill } => {
                self.grants.insert(skill.clone());
            }
            Record::Session(_) | Record::Interrupted { .. } | Record::Resumed { .. } | Record::Unknown => {}
        }
    }
}

/// The records that finish a turn the agent did not: a result for each tool call left without
/// one, then a marker answer, when the history does not end with an answer.
fn close_lost_turn(messages: &[ChatMessage]) -> Vec<Record> {
    let mut repair = Vec::new();
    if let Some(pos) = messages.iter().rposition(|m| m.role == "assistant") {
        let answered: BTreeSet<&str> = messages[pos + 1..]
            .iter()
            .filter_map(|m| m.tool_call_id.as_deref())
            .collect();
        for call in &messages[pos].tool_calls {
            if !answered.contains(call.id.as_str()) {
                repair.push(Record::Message(ChatMessage::tool(call.id.clone(), LOST_CALL)));
            }
        }
    }
    let answered = messages
        .last()
        .is_none_or(|m| m.role == "assistant" && m.tool_calls.is_empty());
    if !answered {
        repair.push(Record::Message(ChatMessage::assistant(
            Some(LOST_TURN.into()),
            Vec::new(),
        )));
        repair.push(Record::Interrupted { by: Interruption::Lost });
    }
    repair
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
