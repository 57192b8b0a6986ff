//! Rebuilding a conversation from its records: the messages the next request would hold (after
//! the last compaction or reset), the skills whose instructions they carry, the model, the
//! approval grants and what each turn cost. A turn the agent never finished (it was killed) is
//! left as it is here: the conversation closes it, recorded, when the session goes on.

use std::collections::BTreeSet;

use super::freshness::superseded_note;
use super::record::{CallUsage, Record};
use crate::llm::ChatMessage;
use crate::output::session::TurnUsage;

/// A skill whose instructions are in the rebuilt messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldSkill {
    pub(crate) skill: String,
    pub(crate) dir: String,
    /// SHA-256 of the `SKILL.md` text the messages carry.
    pub(crate) hash: String,
    /// Index in [`Replayed::messages`] of the tool result that carries them.
    pub(crate) message: usize,
    pub(crate) by_hand: bool,
}

impl TurnUsage {
    pub(crate) fn add(&mut self, usage: &CallUsage) {
        self.calls += 1;
        self.prompt_tokens += usage.prompt_tokens;
        self.completion_tokens += usage.completion_tokens;
        self.cache_write_tokens += usage.cache_write_tokens;
        self.cache_read_tokens += usage.cache_read_tokens;
        self.cost_usd = crate::support::money::Usd::sum(self.cost_usd, usage.cost_usd);
        self.estimated |= usage.estimated;
    }
}

/// A conversation rebuilt from records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// The history after the system prompt, as the next request holds it.
    pub(crate) messages: Vec<ChatMessage>,
    /// Skills whose instructions `messages` carries, in activation order.
    pub(crate) held: Vec<HeldSkill>,
    /// The most recently activated skill: where commands run.
    pub(crate) current: Option<String>,
    /// The model in use at the end (`None`: the header's).
    pub(crate) model: Option<String>,
    /// Skills the user answered "always" for.
    pub(crate) grants: BTreeSet<String>,
    /// Every user turn, oldest first (compacted ones included).
    pub turns: Vec<TurnUsage>,
}

/// Replay `records` in order.
pub fn replay(records: &[Record]) -> Replayed {
    let mut state = Replayed::default();
    for record in records {
        state.apply(record);
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
                if let Some(hash) = hash {
                    self.hold(skill, dir, hash, *by_hand);
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

    /// The last message carries `skill`'s instructions. An earlier copy of them (the skill
    /// changed and was sent again) is replaced by a note, as it was in the conversation.
    fn hold(&mut self, skill: &str, dir: &str, hash: &str, by_hand: bool) {
        let message = self.messages.len().saturating_sub(1);
        if let Some(old) = self.held.iter().position(|h| h.skill == skill) {
            let stale = self.held.remove(old).message;
            if let Some(m) = self.messages.get_mut(stale) {
                m.content = Some(superseded_note(skill));
            }
        }
        self.held.push(HeldSkill {
            skill: skill.to_string(),
            dir: dir.to_string(),
            hash: hash.to_string(),
            message,
            by_hand,
        });
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
