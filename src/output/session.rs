//! What the session commands report: `agent sessions …` documents and the chat's
//! `/sessions`, `/usage`, `/context`, `/compact`, `/export`, `/fork`, `/resume` answers, and the
//! session facts they carry (a session's summary, its usage per turn, the context's parts). The
//! `sessions` room computes those facts; they are defined here, in the one vocabulary renderers
//! read.

use std::path::PathBuf;

use crate::support::money::Usd;
use serde::Serialize;

/// Where the context window's size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WindowSource {
    /// The server's `/v1/models` listing.
    Server,
    /// `AGENT_CONTEXT_WINDOW`.
    Setting,
    /// Neither: unknown.
    Unknown,
}

/// One part of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ContextPart {
    /// `system`, `catalog`, `tools`, `skill`, `history` or `tool_outputs`.
    pub(crate) part: &'static str,
    /// The skill's name, for a `skill` part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    pub(crate) bytes: u64,
    /// `bytes` / 4, rounded up.
    pub(crate) tokens: u64,
}

/// The next request, broken down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ContextUse {
    pub(crate) parts: Vec<ContextPart>,
    pub(crate) bytes: u64,
    /// Estimated tokens of the whole request.
    pub(crate) tokens: u64,
    /// The model's context window in tokens, when known.
    pub(crate) window: Option<u64>,
    pub(crate) window_source: WindowSource,
    /// Estimated tokens at which the history is compacted automatically; `None`: it is not.
    pub(crate) compact_at: Option<u64>,
}

/// Tokens of one user turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TurnUsage {
    /// The user's message (as stored, secrets redacted).
    pub(crate) message: String,
    pub(crate) calls: u32,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    /// Of `prompt_tokens`, those written to the provider's prompt cache.
    pub(crate) cache_write_tokens: u64,
    /// Of `prompt_tokens`, those read from the provider's prompt cache.
    pub(crate) cache_read_tokens: u64,
    /// What the turn cost, where the model's prices are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cost_usd: Option<Usd>,
    /// Some call of the turn had no `usage` from the server: its counts are estimates.
    pub(crate) estimated: bool,
}

/// Tokens of a whole session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Totals {
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    /// Of `prompt_tokens`, those written to the provider's prompt cache.
    pub(crate) cache_write_tokens: u64,
    /// Of `prompt_tokens`, those read from the provider's prompt cache.
    pub(crate) cache_read_tokens: u64,
    /// What the session cost, where the model's prices are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cost_usd: Option<Usd>,
    /// Some call sent no `usage`: the counts are partly estimated.
    pub(crate) estimated: bool,
}

impl Totals {
    /// The sum of `turns`.
    pub(crate) fn of(turns: &[TurnUsage]) -> Self {
        Self {
            prompt_tokens: turns.iter().map(|t| t.prompt_tokens).sum(),
            completion_tokens: turns.iter().map(|t| t.completion_tokens).sum(),
            cache_write_tokens: turns.iter().map(|t| t.cache_write_tokens).sum(),
            cache_read_tokens: turns.iter().map(|t| t.cache_read_tokens).sum(),
            cost_usd: turns.iter().fold(None, |sum, t| Usd::sum(sum, t.cost_usd)),
            estimated: turns.iter().any(|t| t.estimated),
        }
    }
}

/// A session's vital facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SessionSummary {
    pub(crate) id: String,
    /// When it started: RFC 3339, UTC.
    pub(crate) started: String,
    /// Seconds since the Unix epoch, for sorting and ages.
    pub(crate) started_at: u64,
    /// The working directory it ran in.
    pub(crate) cwd: String,
    /// The model in use at its end.
    pub(crate) model: String,
    pub(crate) base_url: String,
    /// The user's first message, on one line and cut short (secrets were redacted when stored).
    pub(crate) first_message: Option<String>,
    /// Messages the user sent.
    pub(crate) turns: usize,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    /// Some model call sent no `usage`; its counts are estimated from bytes.
    pub(crate) estimated: bool,
    /// The session it was forked from.
    pub(crate) parent: Option<String>,
}

/// How long ago `then` was, in the largest unit that fits: `just now`, `5m ago`, `3h ago`, `2d ago`.
pub(crate) fn age(then: u64, now: u64) -> String {
    let secs = now.saturating_sub(then);
    match secs {
        0..60 => "just now".into(),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// `agent sessions list` (and `/sessions`): stored sessions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SessionList {
    /// The folder they are stored in.
    pub(crate) dir: PathBuf,
    pub(crate) sessions: Vec<SessionSummary>,
    /// Files in it that could not be read as sessions, one line each.
    pub(crate) problems: Vec<String>,
    /// Seconds since the Unix epoch when listed (for "2h ago"; not in the JSON).
    #[serde(skip)]
    pub(crate) now: u64,
}

/// `agent sessions export ID -o FILE` (and `/export FILE`): where a session was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SessionExported {
    pub(crate) id: String,
    /// `md`, `html` or `json`.
    pub(crate) format: &'static str,
    pub(crate) path: PathBuf,
}

/// `agent sessions rm ID`: the session deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SessionRemoved {
    pub(crate) removed: String,
    pub(crate) path: PathBuf,
}

/// A session taken up (`-c`, `--resume`, `/resume`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SessionResumed {
    /// The session taken up.
    pub(crate) resumed: String,
    /// Where this run stores what follows: the same id, a fork of it (another agent holds it),
    /// or `null` when sessions are not stored.
    pub(crate) session_id: Option<String>,
    /// User turns it held.
    pub(crate) turns: usize,
    /// Its last turn had been left unfinished (the agent was stopped) and was closed.
    pub(crate) lost_turn: bool,
    /// Skills whose `SKILL.md` changed since: sent again as they are now.
    pub(crate) changed: Vec<String>,
    /// Skills that no longer exist: withdrawn.
    pub(crate) vanished: Vec<String>,
    /// The model in use now.
    pub(crate) model: String,
}

/// `/usage`: tokens per turn and for the whole session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct UsageReport {
    pub(crate) turns: Vec<TurnUsage>,
    #[serde(flatten)]
    pub(crate) totals: Totals,
    /// Estimated tokens the next request would hold (`/context` breaks them down).
    pub(crate) context_tokens: u64,
    /// The context window in tokens, when known.
    pub(crate) window: Option<u64>,
}

/// `/compact`: what compaction did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CompactReport {
    /// Messages of the request the summary replaced.
    pub(crate) replaced: usize,
    pub(crate) tokens_before: u64,
    pub(crate) tokens_after: u64,
    /// Skills whose instructions were sent again.
    pub(crate) skills: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_are_short() {
        assert_eq!(age(100, 100), "just now");
        assert_eq!(age(0, 150), "2m ago");
        assert_eq!(age(0, 7200), "2h ago");
        assert_eq!(age(0, 3 * 86_400), "3d ago");
        assert_eq!(age(10, 0), "just now");
    }
}
