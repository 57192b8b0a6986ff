//! One session at a glance: what `sessions list` shows per line and what an export says at its
//! top.

use std::time::{Duration, SystemTime};

use super::load::SessionFile;
use super::replay::replay;
use crate::output::session::SessionSummary;

/// Most characters of the first message a listing shows.
const FIRST_MESSAGE_CHARS: usize = 120;

/// Sum up a loaded session.
pub(crate) fn summarize(loaded: &SessionFile) -> SessionSummary {
    let state = replay(&loaded.records);
    let h = &loaded.header;
    let started = SystemTime::UNIX_EPOCH + Duration::from_secs(h.started_at);
    let first_message = state
        .turns
        .iter()
        .find(|t| !t.message.trim().is_empty())
        .map(|t| one_line(&t.message, FIRST_MESSAGE_CHARS));
    SessionSummary {
        id: h.id.clone(),
        started: humantime::format_rfc3339_seconds(started).to_string(),
        started_at: h.started_at,
        cwd: h.cwd.clone(),
        model: state.model.unwrap_or_else(|| h.model.clone()),
        base_url: h.base_url.clone(),
        first_message,
        turns: state.turns.iter().filter(|t| !t.message.is_empty()).count(),
        prompt_tokens: state.turns.iter().map(|t| t.prompt_tokens).sum(),
        completion_tokens: state.turns.iter().map(|t| t.completion_tokens).sum(),
        estimated: state.turns.iter().any(|t| t.estimated),
        parent: h.parent.clone(),
    }
}

/// `text` on one line (whitespace runs as one space), at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ChatMessage;
    use crate::sessions::record::{CallUsage, FORMAT_VERSION, Header, Record};

    #[test]
    fn a_summary_counts_turns_and_tokens() {
        let header = Header {
            provider: None,
            v: FORMAT_VERSION,
            id: "20261201-112233-k3f9".into(),
            agent_version: "0.1.0".into(),
            model: "small".into(),
            base_url: "u".into(),
            skill_roots: Vec::new(),
            cwd: "/w".into(),
            started_at: 1_796_124_153,
            parent: None,
            chat: false,
        };
        let usage = |p, c| {
            Record::Usage(CallUsage {
                prompt_tokens: p,
                completion_tokens: c,
                estimated: false,
                ..Default::default()
            })
        };
        let records = vec![
            Record::Message(ChatMessage::user("  weather\n\nin   Tokyo ")),
            usage(10, 2),
            Record::Message(ChatMessage::assistant(Some("Sunny".into()), Vec::new())),
            Record::Model { model: "big".into() },
            Record::Message(ChatMessage::user("and Oslo?")),
            usage(20, 3),
            Record::Message(ChatMessage::assistant(Some("Rain".into()), Vec::new())),
        ];
        let loaded = SessionFile {
            header,
            records,
            warnings: Vec::new(),
            complete_len: 0,
        };
        let s = summarize(&loaded);
        assert_eq!(s.first_message.as_deref(), Some("weather in Tokyo"));
        assert_eq!((s.turns, s.prompt_tokens, s.completion_tokens), (2, 30, 5));
        assert_eq!(s.model, "big");
        assert_eq!(s.started, "2026-12-01T11:22:33Z");
        assert!(!s.estimated);
    }

    #[test]
    fn lines_are_short() {
        assert_eq!(one_line("a\nb", 10), "a b");
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
    }
}
