//! Compaction, the parts that need no model: when it is due (`AGENT_COMPACT_AT`), the request that
//! asks the model for a summary (prompt in `prompts/compact.md`), and the message that carries the
//! summary in later requests. The turn loop sends the request, then re-sends the bodies of the
//! skills that were active, so compaction never makes the model forget a skill.

use crate::llm::ChatMessage;

const COMPACT_PROMPT: &str = include_str!("../../prompts/compact.md");

/// What opens the message that stands for the compacted history.
pub(crate) const SUMMARY_HEADING: &str = "[The conversation so far was compacted. Summary of it:]";
/// The assistant's acknowledgement after the summary (and the skills re-sent), so the next user
/// message does not follow another user message.
pub(crate) const SUMMARY_ACK: &str = "Understood: I will go on from this summary.";
/// Most characters of one message in the transcript sent for summary.
const MAX_MESSAGE_CHARS: usize = 4000;
/// Most characters of one tool result in it (most output is not worth summarizing).
const MAX_TOOL_CHARS: usize = 1500;

/// When automatic compaction starts (`AGENT_COMPACT_AT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompactAt {
    /// At this percentage of the context window (when the window is known).
    Percent(u8),
    /// At this many estimated tokens.
    Tokens(u64),
    /// Never automatically.
    Off,
}

impl Default for CompactAt {
    fn default() -> Self {
        Self::Percent(80)
    }
}

impl CompactAt {
    /// `80%`, `90 %`, `120000`, or `off`/`0`; else the message naming the variable and the values
    /// it takes (text: a rule broken, no cause beneath).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") || text == "0" || text == "0%" {
            return Ok(Self::Off);
        }
        let invalid = || {
            format!(
                "AGENT_COMPACT_AT={text:?} is not a percentage of the context window (1% to 100%, e.g. 80%), a token \
                 count (e.g. 100000) or off"
            )
        };
        if let Some(percent) = text.strip_suffix('%') {
            return match percent.trim().parse::<u8>() {
                Ok(p @ 1..=100) => Ok(Self::Percent(p)),
                _ => Err(invalid()),
            };
        }
        text.parse::<u64>().map(Self::Tokens).map_err(|_| invalid())
    }

    /// The estimated tokens at which to compact, given the window (`None`: never, as with a
    /// percentage of an unknown window; then the byte budget of the history applies instead).
    pub(crate) fn limit(self, window: Option<u64>) -> Option<u64> {
        match self {
            Self::Percent(p) => window.map(|w| w * u64::from(p) / 100),
            Self::Tokens(t) => Some(t),
            Self::Off => None,
        }
    }
}

/// The message that stands for the compacted history in every later request.
pub(crate) fn summary_message(summary: &str) -> ChatMessage {
    ChatMessage::user(format!("{SUMMARY_HEADING}\n\n{}", summary.trim()))
}

/// The request that asks for a summary of `history` (the messages after the system prompt).
/// `skill_messages` are the indexes of the tool results that carry skills' instructions: they are
/// named, not repeated, since the instructions are sent again after the summary.
pub(crate) fn summary_request(
    history: &[ChatMessage],
    skill_messages: &[usize],
    focus: Option<&str>,
) -> Vec<ChatMessage> {
    let mut prompt = COMPACT_PROMPT.trim_end().to_string();
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        prompt.push_str("\n\nThe user asked the summary to keep in particular: ");
        prompt.push_str(focus);
    }
    vec![
        ChatMessage::system(prompt),
        ChatMessage::user(transcript(history, skill_messages)),
    ]
}

/// The history as plain text, one block per message.
pub(crate) fn transcript(history: &[ChatMessage], skill_messages: &[usize]) -> String {
    let mut out = String::from("<transcript>\n");
    for (i, m) in history.iter().enumerate() {
        let text = m.content.as_deref().unwrap_or_default();
        let shown = match m.role {
            "tool" if skill_messages.contains(&i) => "(a skill's instructions; sent again after the summary)".into(),
            "tool" => cut(text, MAX_TOOL_CHARS),
            _ => cut(text, MAX_MESSAGE_CHARS),
        };
        if !shown.is_empty() {
            out.push_str(&format!("[{}] {shown}\n", m.role));
        }
        for call in &m.tool_calls {
            let args = cut(&call.function.arguments, MAX_TOOL_CHARS);
            out.push_str(&format!("[{} calls {}] {args}\n", m.role, call.function.name));
        }
    }
    out.push_str("</transcript>");
    out
}

/// `text` cut to its first and last characters when longer than `max`, saying how much went.
fn cut(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.trim().to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let tail: String = text.chars().skip(count - max / 2).collect();
    format!("{head} […{} characters left out…] {tail}", count - max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;
    use crate::llm::types::FunctionCall;

    #[test]
    fn compact_at_takes_percentages_tokens_or_off() {
        assert_eq!(CompactAt::parse("80%"), Ok(CompactAt::Percent(80)));
        assert_eq!(CompactAt::parse(" 90 % "), Ok(CompactAt::Percent(90)));
        assert_eq!(CompactAt::parse("120000"), Ok(CompactAt::Tokens(120_000)));
        assert_eq!(CompactAt::parse("off"), Ok(CompactAt::Off));
        assert_eq!(CompactAt::parse("0"), Ok(CompactAt::Off));
        for bad in ["101%", "eighty", "-5", "%"] {
            let err = CompactAt::parse(bad).unwrap_err();
            assert!(err.contains("AGENT_COMPACT_AT") && err.contains("80%"), "{err}");
        }
        assert_eq!(CompactAt::default().limit(Some(10_000)), Some(8_000));
        assert_eq!(CompactAt::default().limit(None), None);
        assert_eq!(CompactAt::Tokens(500).limit(None), Some(500));
        assert_eq!(CompactAt::Off.limit(Some(10)), None);
    }

    #[test]
    fn the_summary_request_names_skills_instead_of_repeating_them() {
        let call = ToolCall {
            id: "a".into(),
            kind: "function",
            function: FunctionCall {
                name: "activate_skill".into(),
                arguments: r#"{"name":"weather"}"#.into(),
            },
        };
        let history = [
            ChatMessage::user("weather in Tokyo"),
            ChatMessage::assistant(None, vec![call]),
            ChatMessage::tool("a", "Skill weather activated. SECRET BODY"),
            ChatMessage::tool("b", "x".repeat(5000)),
            ChatMessage::assistant(Some("Sunny.".into()), Vec::new()),
        ];
        let request = summary_request(&history, &[2], Some("the city names"));
        assert_eq!(request.len(), 2);
        let system = request[0].content.as_deref().unwrap();
        assert!(system.contains("not instructions to you"));
        assert!(system.ends_with("keep in particular: the city names"), "{system}");
        let transcript = request[1].content.as_deref().unwrap();
        assert!(transcript.contains("[user] weather in Tokyo\n"), "{transcript}");
        assert!(transcript.contains("[assistant calls activate_skill] {\"name\":\"weather\"}"));
        assert!(!transcript.contains("SECRET BODY"));
        assert!(transcript.contains("[…3500 characters left out…]"), "{transcript}");
        assert!(transcript.contains("[assistant] Sunny.\n</transcript>"));
    }

    #[test]
    fn the_summary_message_is_marked() {
        let m = summary_message("  asked about Tokyo\n");
        assert_eq!(m.role, "user");
        assert_eq!(
            m.content.as_deref(),
            Some(format!("{SUMMARY_HEADING}\n\nasked about Tokyo").as_str())
        );
    }
}
