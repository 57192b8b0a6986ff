//! What the session commands report (SPEC §9): `agent sessions …` documents and the chat's
//! `/sessions`, `/usage`, `/context`, `/compact`, `/export`, `/fork`, `/resume` answers. The
//! session types themselves live in `sessions`; they are re-exported here so renderers name one
//! vocabulary.

use std::path::PathBuf;

use serde::Serialize;

pub use crate::sessions::context::{ContextPart, ContextUse, WindowSource};
pub use crate::sessions::replay::{Totals, TurnUsage};
pub use crate::sessions::summary::{SessionSummary, age};

/// `agent sessions list` (and `/sessions`): stored sessions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionList {
    /// The folder they are stored in.
    pub dir: PathBuf,
    pub sessions: Vec<SessionSummary>,
    /// Files in it that could not be read as sessions, one line each.
    pub problems: Vec<String>,
    /// Seconds since the Unix epoch when listed (for "2h ago"; not in the JSON).
    #[serde(skip)]
    pub now: u64,
}

/// `agent sessions export ID -o FILE` (and `/export FILE`): where a session was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionExported {
    pub id: String,
    /// `md`, `html` or `json`.
    pub format: &'static str,
    pub path: PathBuf,
}

/// `agent sessions rm ID`: the session deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRemoved {
    pub removed: String,
    pub path: PathBuf,
}

/// A session taken up (`-c`, `--resume`, `/resume`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionResumed {
    /// The session taken up.
    pub resumed: String,
    /// Where this run stores what follows: the same id, a fork of it (another agent holds it),
    /// or `null` when sessions are not stored.
    pub session_id: Option<String>,
    /// User turns it held.
    pub turns: usize,
    /// Its last turn had been left unfinished (the agent was stopped) and was closed.
    pub lost_turn: bool,
    /// Skills whose `SKILL.md` changed since: sent again as they are now.
    pub changed: Vec<String>,
    /// Skills that no longer exist: withdrawn.
    pub vanished: Vec<String>,
    /// The model in use now.
    pub model: String,
}

/// `/usage`: tokens per turn and for the whole session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsageReport {
    pub turns: Vec<TurnUsage>,
    #[serde(flatten)]
    pub totals: Totals,
    /// Estimated tokens the next request would hold (`/context` breaks them down).
    pub context_tokens: u64,
    /// The context window in tokens, when known.
    pub window: Option<u64>,
}

/// `/compact`: what compaction did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactReport {
    /// Messages of the request the summary replaced.
    pub replaced: usize,
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// Skills whose instructions were sent again.
    pub skills: Vec<String>,
}
