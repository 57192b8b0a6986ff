//! The lines of a session file. Each line is one [`Record`], a JSON object tagged by `type`; the
//! first is the [`Header`]. Messages are stored as the [`ChatMessage`]s the model was sent (the
//! same type, so what is stored is exactly what the conversation held), and the other records say
//! what the messages alone do not: which skill was activated and at what content, where the
//! history was compacted, what each model call cost.

use serde::{Deserialize, Serialize};

use crate::llm::ChatMessage;

/// Version of the record format, in the header. Readers skip record types they do not know, so
/// adding one does not change it; changing the meaning of a field does.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// The first line of a session file: where and how the session started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT_VERSION`] of the writer.
    pub(crate) v: u32,
    /// The session's id (also its file name).
    pub(crate) id: String,
    /// `agent`'s version.
    pub(crate) agent_version: String,
    /// The model at the start; `model` records say when it changed.
    pub(crate) model: String,
    /// The endpoint's base URL.
    pub(crate) base_url: String,
    /// The wire dialect spoken (`openai`, `anthropic`; absent in sessions written before there
    /// were two: `openai`). A model name belongs to its provider: resumed on the other, the
    /// session keeps the conversation and takes that provider's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) provider: Option<String>,
    /// Every skill root, in precedence order.
    pub(crate) skill_roots: Vec<String>,
    /// The working directory `agent` ran in: `--continue` picks the newest session of it.
    pub(crate) cwd: String,
    /// Seconds since the Unix epoch.
    pub(crate) started_at: u64,
    /// The session this one was forked from (`/fork`, or resuming one that another agent holds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<String>,
    /// The session of a chat (absent: a one-shot run, or a session written before this was
    /// recorded): `-c` in the chat goes on with the newest chat.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) chat: bool,
}

/// Tokens one model call took, from the server's `usage` or estimated from bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallUsage {
    /// Every input token, those written to and read from the prompt cache included.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Input tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// What the call cost, where the model's prices are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<crate::support::money::Usd>,
    /// `true`: the server sent no `usage`; both counts are bytes / 4.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a turn ended without an answer of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interruption {
    /// The user pressed Ctrl-C.
    User,
    /// The agent ended without finishing the turn (killed, crashed); found when the session was
    /// loaded again.
    Lost,
}

impl Record {
    /// Whether this record shows an exchange with the model: a call it answered (in full, or
    /// cut short by the user), counted as usage.
    pub(crate) fn is_exchange(&self) -> bool {
        matches!(self, Self::Usage(_))
    }
}

impl Interruption {
    /// What stands in the conversation, in the model's place, for the answer this cut short: the
    /// model must know, but an export says it once, as a note of its own, and strips this.
    pub(crate) fn marker(self) -> &'static str {
        match self {
            Self::User => "[interrupted by the user]",
            Self::Lost => "[interrupted: the agent stopped before finishing this turn]",
        }
    }
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first line.
    Session(Header),
    /// A message as the model was sent it: user, assistant (with its tool calls) or tool result.
    Message(ChatMessage),
    /// A tool result (the message before) made `skill` the active one. `hash` (the SHA-256 of
    /// the `SKILL.md` text sent) is set when that result carried its instructions; `None` when they
    /// were already in the conversation.
    Activation {
        skill: String,
        dir: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        by_hand: bool,
    },
    /// The history was replaced by a summary (in the request only: every earlier record stays).
    /// The summary message and the skills re-sent follow as records of their own.
    Compaction {
        summary: String,
        /// Messages of the request the summary replaced.
        replaced: usize,
        /// What the user asked the summary to keep (`/compact FOCUS`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        focus: Option<String>,
        /// Whether the context limit started it rather than `/compact`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        auto: bool,
        /// The skills whose instructions were sent again after the summary.
        #[serde(default)]
        skills: Vec<String>,
    },
    /// The turn in progress ended without an answer.
    Interrupted { by: Interruption },
    /// What one model call took.
    Usage(CallUsage),
    /// The user answered "always" for a skill's commands; a resumed session keeps it.
    Grant { skill: String },
    /// The model was switched (`/model`).
    Model { model: String },
    /// `/reset`: the conversation so far is forgotten.
    Reset,
    /// The session was taken up again (`--continue`, `--resume`) at this time.
    Resumed { at: u64 },
    /// A record of a newer version of `agent`; skipped.
    #[serde(other)]
    Unknown,
}

/// A header for tests: session `id`, started in `cwd`.
#[cfg(test)]
pub(crate) fn test_header(id: &str, cwd: &str) -> Header {
    Header {
        provider: None,
        v: FORMAT_VERSION,
        id: id.into(),
        agent_version: "0.1.0".into(),
        model: "m".into(),
        base_url: "http://127.0.0.1:1/v1".into(),
        skill_roots: vec!["/s".into()],
        cwd: cwd.into(),
        started_at: 1,
        parent: None,
        chat: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        test_header("20261201-112233-k3f9", "/w")
    }

    #[test]
    fn records_are_one_flat_object_each_and_read_back() {
        let records = [
            Record::Session(header()),
            Record::Message(ChatMessage::user("weather in Tokyo")),
            Record::Activation {
                skill: "weather".into(),
                dir: "/s/weather".into(),
                hash: Some("ab".into()),
                by_hand: false,
            },
            Record::Usage(CallUsage {
                prompt_tokens: 10,
                completion_tokens: 2,
                estimated: false,
                ..Default::default()
            }),
            Record::Interrupted { by: Interruption::Lost },
            Record::Reset,
        ];
        for record in records {
            let line = serde_json::to_string(&record).unwrap();
            assert!(!line.contains('\n'));
            assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record, "{line}");
        }
        let message = serde_json::to_string(&Record::Message(ChatMessage::user("hi"))).unwrap();
        assert_eq!(message, r#"{"type":"message","role":"user","content":"hi"}"#);
    }

    #[test]
    fn unknown_record_types_are_skipped_not_fatal() {
        let later: Record = serde_json::from_str(r#"{"type":"hologram","x":1}"#).unwrap();
        assert_eq!(later, Record::Unknown);
        assert!(serde_json::from_str::<Record>(r#"{"type":"message","role":"wizard"}"#).is_err());
    }
}
