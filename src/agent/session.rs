//! What the agent keeps for its stored session besides the messages the conversation
//! records: usage per turn, "always" grants, the catalog and tool sizes `/context` reports, and
//! taking up a stored session (skills that changed or vanished since are said, not used stale).

use std::collections::BTreeSet;

use super::outcome::ToolOutcome;
use super::turn::{Agent, AgentOptions, tools_bytes};
use crate::output::Event;
use crate::output::session::{Totals, TurnUsage};
use crate::sessions::compact::CompactAt;
use crate::sessions::freshness::{self, Freshness, changed_note};
use crate::sessions::replay::replay;
use crate::sessions::store::unix_seconds;
use crate::sessions::{CallUsage, Journal, Record, SessionFile};
use crate::skills::SkillSet;

/// The session side of an [`Agent`].
#[derive(Debug, Clone)]
pub(super) struct SessionState {
    /// What each user turn cost, resumed ones included (`/usage`).
    pub(crate) turns: Vec<TurnUsage>,
    /// Skills answered "always" for that are stored in the session.
    pub(crate) grants: BTreeSet<String>,
    /// `AGENT_CONTEXT_WINDOW`.
    pub(crate) context_window: Option<u64>,
    pub(crate) compact_at: CompactAt,
    /// `AGENT_HISTORY_BUDGET`, before a known window raises it.
    pub(crate) history_budget: usize,
    /// Bytes of the catalog in the system prompt now.
    pub(crate) catalog_bytes: u64,
    /// Bytes of the tool schemas the last request sent.
    pub(crate) tools_bytes: u64,
}

impl SessionState {
    pub(crate) fn new(options: &AgentOptions, skills: &SkillSet) -> Self {
        Self {
            turns: Vec::new(),
            grants: BTreeSet::new(),
            context_window: options.context_window,
            compact_at: options.compact_at,
            history_budget: options.history_budget,
            // Sizes of what the first request will send; over the budget, the whole catalog and
            // the enum of every name are never built.
            catalog_bytes: skills
                .catalog_len_upto(options.catalog_budget)
                .min(options.catalog_budget) as u64,
            tools_bytes: tools_bytes(&super::prompt::tools(skills, !skills.fits(options.catalog_budget))),
        }
    }

    /// A user turn starts with `message`.
    pub(crate) fn start_turn(&mut self, message: Option<&str>) {
        self.turns.push(TurnUsage {
            message: message.unwrap_or_default().to_string(),
            ..TurnUsage::default()
        });
    }

    /// A model call of the current turn took `call`.
    pub(crate) fn count(&mut self, call: &CallUsage) {
        if self.turns.is_empty() {
            self.start_turn(None);
        }
        if let Some(turn) = self.turns.last_mut() {
            turn.add(call);
        }
    }
}

/// How a stored session was taken up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resumption {
    /// User turns it held.
    pub(crate) turns: usize,
    /// Its last turn had been left unfinished (the agent was killed) and was closed.
    pub(crate) lost_turn: bool,
    /// Skills sent again because their `SKILL.md` changed since.
    pub(crate) changed: Vec<String>,
    /// Skills withdrawn because they no longer exist.
    pub(crate) vanished: Vec<String>,
}

impl Agent {
    /// Store the session in `journal` from now on (replacing, and closing, the one before).
    pub(crate) fn set_journal(&mut self, journal: Journal) {
        self.conversation.set_journal(journal);
    }

    /// The id of the session being stored, when one is.
    pub(crate) fn session_id(&self) -> Option<String> {
        self.conversation.session_id().map(ToString::to_string)
    }

    /// Show, once, that the session could not be written.
    pub(super) fn flush_journal_warning(&mut self) {
        if let Some(message) = self.conversation.take_journal_warning() {
            self.emit(Event::Warning { message });
        }
    }

    /// Store the "always" answers given since the last look.
    pub(super) fn record_grants(&mut self) {
        for skill in self.tools.always_granted() {
            if self.session.grants.insert(skill.clone()) {
                self.conversation.record(&Record::Grant { skill });
            }
        }
    }

    /// What each user turn of the session cost, oldest first.
    pub(crate) fn turn_usage(&self) -> &[TurnUsage] {
        &self.session.turns
    }

    /// What the whole session cost, resumed turns included.
    pub(crate) fn session_totals(&self) -> Totals {
        Totals::of(&self.session.turns)
    }

    /// Take up a stored session: its conversation, active skills, "always" grants and (unless
    /// `keep_model`: one was given for this run) its model. A turn left unfinished is closed; a
    /// skill whose `SKILL.md` changed since is sent again as it is now, one that vanished is
    /// withdrawn; both are said as warnings and, in the conversation, to the model.
    pub(crate) fn resume(&mut self, loaded: &SessionFile, keep_model: bool) -> Resumption {
        let state = replay(&loaded.records);
        if !keep_model {
            let model = state.model.clone().unwrap_or_else(|| loaded.header.model.clone());
            self.llm.resume_model(model, loaded.header.provider.as_deref());
        }
        self.conversation.restore(&state);
        self.session.turns.clone_from(&state.turns);
        self.session.grants.clone_from(&state.grants);
        self.tools.allow_always(&state.grants);
        let lost_turn = self.conversation.close_lost_turn();
        let mut resumption = Resumption {
            turns: state.turns.iter().filter(|t| !t.message.is_empty()).count(),
            lost_turn,
            changed: Vec::new(),
            vanished: Vec::new(),
        };
        let skills = self.skills().clone();
        let now = |name: &str| skills.get(name).and_then(|s| s.read_body().ok());
        for (held, fresh) in freshness::check(&state.held, now) {
            match fresh {
                Freshness::Same => {}
                Freshness::Changed => {
                    self.conversation.supersede(&held.skill);
                    self.send_again(&held.skill, true);
                    resumption.changed.push(held.skill);
                }
                Freshness::Vanished => {
                    self.conversation.withdraw(&held.skill);
                    resumption.vanished.push(held.skill);
                }
            }
        }
        self.say_stale(&resumption.changed, &resumption.vanished, "this session used");
        self.conversation.record(&Record::Resumed {
            at: unix_seconds(std::time::SystemTime::now()),
        });
        self.flush_journal_warning();
        resumption
    }

    /// Activate `skill` anew (its instructions read now), by hand; `changed` puts a note before
    /// them saying they replace an earlier version. Returns the new hash, if it was sent.
    pub(super) fn send_again(&mut self, skill: &str, changed: bool) -> Option<String> {
        let outcome = self.tools.activate(&self.conversation, skill);
        let ToolOutcome::Ok {
            text,
            activated: Some(activation),
        } = outcome
        else {
            return None;
        };
        let hash = activation.hash.clone();
        let text = if changed { changed_note(skill, &text) } else { text };
        let outcome = ToolOutcome::Ok {
            text,
            activated: Some(activation),
        };
        self.conversation.activated_by_hand(skill, &outcome);
        hash
    }

    /// Warn about skills that changed or vanished since `since` used them.
    pub(super) fn say_stale(&self, changed: &[String], vanished: &[String], since: &str) {
        for skill in changed {
            self.emit(Event::Warning {
                message: format!(
                    "skill {skill} changed since {since} it: its current instructions were sent to the model"
                ),
            });
        }
        for skill in vanished {
            self.emit(Event::Warning {
                message: format!(
                    "skill {skill} no longer exists (since {since} it): its instructions were withdrawn, and the \
                     model was told"
                ),
            });
        }
    }
}
