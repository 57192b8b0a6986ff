//! What the next request would hold, part by part, in bytes and estimated tokens, against the
//! model's context window: the numbers `/context` shows and automatic compaction goes by.

use crate::llm::ChatMessage;
use crate::output::session::ContextPart;

/// Bytes per token of the estimate: about right for English prose and code with the tokenizers
/// of current models, and always said to be an estimate.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;

/// Tokens `bytes` of text come to, estimated.
pub(crate) fn estimate_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

impl ContextPart {
    fn new(part: &'static str, name: Option<String>, bytes: u64) -> Self {
        Self {
            part,
            name,
            bytes,
            tokens: estimate_tokens(bytes),
        }
    }
}

/// What a request is made of, for [`breakdown`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RequestParts<'a> {
    /// The system prompt, catalog included.
    pub(crate) system: &'a str,
    /// Bytes of the system prompt that are the skill catalog.
    pub(crate) catalog_bytes: u64,
    /// Bytes of the tool schemas sent with it.
    pub(crate) tools_bytes: u64,
    /// The messages after the system prompt.
    pub(crate) history: &'a [ChatMessage],
    /// (skill, index in `history` of the tool result carrying its instructions).
    pub(crate) skills: &'a [(String, usize)],
}

/// The parts of a request: the system prompt (without the catalog), the catalog, the tool
/// schemas, each active skill's instructions, tool outputs, and the rest of the history.
pub(crate) fn breakdown(request: RequestParts<'_>) -> Vec<ContextPart> {
    let system = (request.system.len() as u64).saturating_sub(request.catalog_bytes);
    let mut parts = vec![
        ContextPart::new("system", None, system),
        ContextPart::new("catalog", None, request.catalog_bytes),
        ContextPart::new("tools", None, request.tools_bytes),
    ];
    for (skill, index) in request.skills {
        let bytes = request.history.get(*index).map_or(0, message_bytes);
        parts.push(ContextPart::new("skill", Some(skill.clone()), bytes));
    }
    let is_skill = |i: usize| request.skills.iter().any(|(_, at)| *at == i);
    let (mut outputs, mut history) = (0, 0);
    let rest = request.history.iter().enumerate().filter(|(i, _)| !is_skill(*i));
    for (_, m) in rest {
        if m.role == "tool" {
            outputs += message_bytes(m);
        } else {
            history += message_bytes(m);
        }
    }
    parts.push(ContextPart::new("history", None, history));
    parts.push(ContextPart::new("tool_outputs", None, outputs));
    parts
}

/// Bytes a message adds to a request: its text and its tool calls' names and arguments.
pub(crate) fn message_bytes(m: &ChatMessage) -> u64 {
    let text = m.sent_len();
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|c| c.id.len() + c.function.name.len() + c.function.arguments.len())
        .sum();
    (text + calls) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_is_counted_once() {
        let history = [
            ChatMessage::user("12345678"),
            ChatMessage::tool("a", "Skill weather activated. 0123456789"),
            ChatMessage::tool("b", "exit code: 0\n"),
            ChatMessage::assistant(Some("done".into()), Vec::new()),
        ];
        let skills = [("weather".to_string(), 1)];
        let parts = breakdown(RequestParts {
            system: &"s".repeat(100),
            catalog_bytes: 60,
            tools_bytes: 7,
            history: &history,
            skills: &skills,
        });
        let get = |p: &str| parts.iter().find(|x| x.part == p).unwrap().bytes;
        assert_eq!(get("system"), 40);
        assert_eq!(get("catalog"), 60);
        assert_eq!(get("tools"), 7);
        assert_eq!(get("skill"), 35);
        assert_eq!(get("history"), 12);
        assert_eq!(get("tool_outputs"), 13);
        assert_eq!(
            parts.iter().find(|x| x.part == "skill").unwrap().name.as_deref(),
            Some("weather")
        );
        assert_eq!(estimate_tokens(13), 4);
        assert_eq!(estimate_tokens(0), 0);
    }
}
