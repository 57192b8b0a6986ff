//! The conversation and its stored session: where it is written, taking up a stored one,
//! closing the turn a killed agent left open, skills that changed or vanished since, and
//! compaction. Messages are recorded as they are remembered (`Conversation::remember`); what is
//! done here to the request alone (restoring, withdrawing) is not recorded again.

use super::{Conversation, Held};
use crate::sessions::compact::summary_message;
use crate::sessions::freshness::{superseded_note, vanished_note};
use crate::sessions::replay::Replayed;
use crate::sessions::{Interruption, Journal, Record, SessionId};

impl Conversation {
    /// Store everything from now on in `journal` (replacing, and so closing, the one before).
    pub(crate) fn set_journal(&mut self, journal: Journal) {
        self.journal = journal;
    }

    /// The session being written, when one is.
    pub(crate) fn session_id(&self) -> Option<&SessionId> {
        self.journal.id()
    }

    /// The file the session is written to, when it is.
    pub(crate) fn transcript_path(&self) -> Option<&std::path::Path> {
        self.journal.path()
    }

    /// Store a record that is not a message (usage, a model switch, a grant).
    pub(crate) fn record(&mut self, record: &Record) {
        self.journal.record(record);
    }

    /// The warning of a failed session write, once.
    pub(crate) fn take_journal_warning(&mut self) -> Option<String> {
        self.journal.take_warning()
    }

    /// The skills whose instructions the conversation holds, with the index of the message that
    /// carries them, in activation order.
    pub(crate) fn held(&self) -> Vec<(String, usize)> {
        self.held.iter().map(|h| (h.skill.clone(), h.message)).collect()
    }

    /// (skill, hash of its instructions) for each held skill.
    pub(crate) fn held_hashes(&self) -> Vec<(String, String)> {
        self.held.iter().map(|h| (h.skill.clone(), h.hash.clone())).collect()
    }

    /// Bytes of history kept before old tool outputs are shortened (a known context window
    /// raises it).
    pub(crate) fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes;
    }

    /// Take up a stored conversation: its messages after the system prompt, the skills they hold
    /// and the active one. Nothing is recorded: it is all stored already.
    pub(crate) fn restore(&mut self, state: &Replayed) {
        self.messages.truncate(1);
        self.messages.extend(state.messages.iter().cloned());
        self.held = state
            .held
            .iter()
            .map(|h| Held {
                skill: h.skill.clone(),
                message: h.message + 1,
                hash: h.hash.clone(),
            })
            .collect();
        self.current.clone_from(&state.current);
        self.budget_noticed = false;
    }

    /// Close the turn a stored session left open (the agent was killed mid-answer or
    /// mid-command), recorded like an interruption. Returns whether there was one.
    pub(crate) fn close_lost_turn(&mut self) -> bool {
        self.end_unfinished("", Interruption::Lost)
    }

    /// `skill`'s instructions changed since they entered the conversation: its copy is replaced
    /// by a note and it is no longer held, so activating it sends the current ones.
    pub(crate) fn supersede(&mut self, skill: &str) {
        self.replace_held(skill, superseded_note(skill));
    }

    /// `skill` no longer exists: its instructions are withdrawn and commands no longer run in it.
    pub(crate) fn withdraw(&mut self, skill: &str) {
        self.replace_held(skill, vanished_note(skill));
        if self.current.as_deref() == Some(skill) {
            self.current = None;
        }
    }

    fn replace_held(&mut self, skill: &str, note: String) {
        let Some(pos) = self.held.iter().position(|h| h.skill == skill) else {
            return;
        };
        let held = self.held.remove(pos);
        if let Some(m) = self.messages.get_mut(held.message) {
            m.content = Some(note);
        }
    }

    /// Replace the history by `summary` (recorded as a compaction; the stored session keeps every
    /// message). Returns the skills to send again, the active one last, so it stays active.
    pub(crate) fn compact(&mut self, summary: &str, focus: Option<&str>, auto: bool) -> Vec<String> {
        let mut skills: Vec<String> = self.held.iter().map(|h| h.skill.clone()).collect();
        if let Some(current) = self.current.take() {
            skills.retain(|s| *s != current);
            skills.push(current);
        }
        let summary = self.redactor.redact(summary).into_owned();
        self.journal.record(&Record::Compaction {
            summary: summary.clone(),
            replaced: self.messages.len() - 1,
            focus: focus.map(str::to_string),
            auto,
            skills: skills.clone(),
        });
        self.messages.truncate(1);
        self.messages.push(summary_message(&summary));
        self.held.clear();
        self.budget_noticed = false;
        skills
    }
}

#[cfg(test)]
mod tests {
    use crate::agent::conversation::Conversation;
    use crate::llm::ChatMessage;
    use crate::sessions::replay::replay;
    use crate::sessions::{Record, SessionStore};
    use crate::support::redact::Redactor;

    #[test]
    fn a_lost_turn_is_closed_and_recorded_and_restores_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::at(dir.path());
        let start = crate::sessions::NewSession {
            provider: None,
            model: "m".into(),
            base_url: "u".into(),
            skill_roots: Vec::new(),
            cwd: "/w".into(),
            parent: None,
            chat: false,
        };
        let writer = store.create(start, Redactor::NONE).unwrap();
        let id = writer.id().clone();
        let mut c = Conversation::new("system".into(), 1 << 20, Redactor::NONE);
        c.set_journal(crate::sessions::Journal::new(writer));
        c.remember(ChatMessage::user("one"));
        c.remember(ChatMessage::assistant(Some("1".into()), Vec::new()));
        // The first answer was a real exchange, so the session is kept when `c` goes away.
        c.record(&Record::Usage(crate::sessions::CallUsage {
            prompt_tokens: 3,
            completion_tokens: 1,
            estimated: false,
            ..Default::default()
        }));
        c.remember(ChatMessage::user("two"));
        let loaded = store.load(&id).unwrap();
        let mut resumed = Conversation::new("system".into(), 1 << 20, Redactor::NONE);
        resumed.restore(&replay(&loaded.records));
        assert_eq!(resumed.messages(), c.messages());
        drop(c);
        let opened = store.open(&id, loaded_start(), Redactor::NONE).unwrap();
        resumed.set_journal(crate::sessions::Journal::new(opened.writer));
        assert!(resumed.close_lost_turn());
        assert!(!resumed.close_lost_turn(), "closed once");
        let last = resumed.messages().last().unwrap();
        assert_eq!(
            last.content.as_deref(),
            Some(crate::sessions::Interruption::Lost.marker())
        );
        let records = store.load(&id).unwrap().records;
        assert!(
            matches!(records.last(), Some(Record::Interrupted { .. })),
            "{records:?}"
        );
    }

    fn loaded_start() -> crate::sessions::NewSession {
        crate::sessions::NewSession {
            provider: None,
            model: "m".into(),
            base_url: "u".into(),
            skill_roots: Vec::new(),
            cwd: "/w".into(),
            parent: None,
            chat: false,
        }
    }

    #[test]
    fn compaction_keeps_the_active_skill_last_and_withdrawal_forgets_it() {
        let mut c = Conversation::new("system".into(), 1 << 20, Redactor::NONE);
        c.remember(ChatMessage::user("hi"));
        for skill in ["weather", "time"] {
            let outcome = crate::agent::outcome::ToolOutcome::Ok {
                text: format!("Skill {skill} activated."),
                activated: Some(crate::agent::outcome::Activation {
                    skill: skill.into(),
                    dir: format!("/s/{skill}"),
                    hash: Some("h".into()),
                }),
            };
            c.activated_by_hand(skill, &outcome);
        }
        let mut copy = Conversation::new("system".into(), 1 << 20, Redactor::NONE);
        copy.remember(ChatMessage::user("hi"));
        c.withdraw("time");
        assert_eq!(c.current(), None);
        assert!(c.messages()[5].content.as_deref().unwrap().contains("no longer exists"));
        let resend = c.compact("they asked", Some("cities"), false);
        assert_eq!(resend, ["weather"]);
        assert_eq!(c.messages().len(), 2);
        assert!(c.user_turns().is_empty(), "the summary is no user turn");
    }
}
