//! `agent hooks list` (docs/hooks.md#agent-hooks-list): what is configured, from where, and how it
//! last failed.

use serde::Serialize;

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HookEntry {
    pub(crate) event: String,
    /// As written (`""`: every tool).
    pub(crate) matcher: String,
    pub(crate) command: String,
    pub(crate) timeout_secs: f64,
    /// `block` when it fails closed (its own `onFailure` or `AGENT_HOOKS_FAIL=closed`), else `pass`.
    pub(crate) on_failure: &'static str,
    /// The settings file it comes from.
    pub(crate) source: String,
    /// Whether it runs in this folder: a project's hooks only once the folder is trusted with them,
    /// none at all with `--no-hooks` or `AGENT_HOOKS=0`.
    pub(crate) active: bool,
    /// Its last failure, in any run: when (seconds since the epoch) and what.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_failure: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_failure_at: Option<u64>,
}

/// `agent hooks list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HookList {
    pub(crate) hooks: Vec<HookEntry>,
    /// What in the settings files could not be used, and why nothing runs (untrusted, turned off).
    pub(crate) notes: Vec<String>,
}
