//! Settings of sessions (docs/sessions.md): whether runs are stored, the model's context window
//! when the server does not say, and when the history is compacted by itself.

use super::Environment;
use crate::exit::AppError;
use crate::sessions::compact::CompactAt;

/// How sessions are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SessionSettings {
    /// Store this run as a session (`AGENT_SESSIONS`, `--no-session`; never for `--replay`).
    pub(crate) store: bool,
    /// `AGENT_CONTEXT_WINDOW`: the model's window in tokens, when set.
    pub(crate) context_window: Option<u64>,
    /// `AGENT_COMPACT_AT`: when the history is compacted automatically.
    pub(crate) compact_at: CompactAt,
}

impl SessionSettings {
    /// Read the settings; `no_session` is `--no-session`, `replaying` is `--replay`.
    pub(crate) fn resolve(env: &Environment, no_session: bool, replaying: bool) -> Result<Self, AppError> {
        // A plain match, not an `if let` guard: those need a newer Rust than `rust-version`.
        let store = match env.get("AGENT_SESSIONS").map(|v| v.trim().to_ascii_lowercase()) {
            None => true,
            Some(v) => match super::switch(Some(&v)) {
                Some(on) => on,
                None => {
                    return Err(AppError::config(format!(
                        "AGENT_SESSIONS={v:?} is neither on (1) nor off (0)"
                    )));
                }
            },
        };
        let context_window = match env.get("AGENT_CONTEXT_WINDOW") {
            None => None,
            Some(raw) => match raw.trim().parse::<u64>() {
                Ok(tokens) if tokens > 0 => Some(tokens),
                _ => {
                    return Err(AppError::config(format!(
                        "AGENT_CONTEXT_WINDOW={raw:?} is not a number of tokens (e.g. 32768)"
                    )));
                }
            },
        };
        let compact_at = match env.get("AGENT_COMPACT_AT") {
            None => CompactAt::default(),
            Some(raw) => CompactAt::parse(raw).map_err(AppError::config)?,
        };
        Ok(Self {
            store: store && !no_session && !replaying,
            context_window,
            compact_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)], no_session: bool, replaying: bool) -> Result<SessionSettings, AppError> {
        SessionSettings::resolve(&Environment::from_maps(vars, &[], &[]), no_session, replaying)
    }

    #[test]
    fn sessions_are_stored_unless_turned_off() {
        assert!(settings(&[], false, false).unwrap().store);
        assert!(!settings(&[("AGENT_SESSIONS", "0")], false, false).unwrap().store);
        assert!(!settings(&[("AGENT_SESSIONS", "off")], false, false).unwrap().store);
        assert!(!settings(&[], true, false).unwrap().store);
        assert!(!settings(&[("AGENT_SESSIONS", "1")], false, true).unwrap().store);
        let err = settings(&[("AGENT_SESSIONS", "maybe")], false, false).unwrap_err();
        assert!(err.message.contains("AGENT_SESSIONS=\"maybe\""), "{}", err.message);
    }

    #[test]
    fn window_and_threshold_are_checked() {
        let s = settings(
            &[("AGENT_CONTEXT_WINDOW", "32768"), ("AGENT_COMPACT_AT", "20000")],
            false,
            false,
        )
        .unwrap();
        assert_eq!(s.context_window, Some(32768));
        assert_eq!(s.compact_at, CompactAt::Tokens(20000));
        assert_eq!(settings(&[], false, false).unwrap().compact_at, CompactAt::Percent(80));
        assert!(settings(&[("AGENT_CONTEXT_WINDOW", "big")], false, false).is_err());
        assert!(settings(&[("AGENT_CONTEXT_WINDOW", "0")], false, false).is_err());
        assert!(settings(&[("AGENT_COMPACT_AT", "150%")], false, false).is_err());
    }
}
