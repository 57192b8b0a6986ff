//! `agent hooks list` as text: one line a hook (event, matcher, command) with where it comes
//! from, whether it runs here and its last failure; notes on stderr. Outside text is made inert
//! for the terminal.

use super::report_text::{Text, one};
use crate::output::hooks::HookList;

/// Lines of `hooks list`.
pub(crate) fn list(list: &HookList) -> Text {
    let mut err: Vec<String> = list.notes.iter().map(|n| one(n)).collect();
    if list.hooks.is_empty() {
        err.push(
            "no hooks configured; add them to ~/.config/agent/settings.json in Claude Code's format (docs/hooks.md)"
                .into(),
        );
    }
    let out = list
        .hooks
        .iter()
        .map(|h| {
            let matcher = if h.matcher.is_empty() { "*" } else { h.matcher.as_str() };
            let state = if h.active { "runs" } else { "not used here" };
            let mut line = format!(
                "{} {}  {}  ({}; {state}; timeout {} s; on failure: {})",
                h.event,
                one(matcher),
                one(&h.command),
                one(&h.source),
                h.timeout_secs,
                h.on_failure
            );
            if let Some(failure) = &h.last_failure {
                let when = h
                    .last_failure_at
                    .map(|at| {
                        humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(at))
                    })
                    .map(|t| format!(" at {t}"))
                    .unwrap_or_default();
                line.push_str(&format!("\n    last failure{when}: {}", one(failure)));
            }
            line
        })
        .collect();
    Text { out, err }
}
