//! The other half of portability (docs/skills.md#skills-from-other-tools): per skill, which of
//! the frontmatter fields other tools define (and the `` !`command` `` body syntax) `agent`
//! honours or ignores, and how the other agents a skill may target treat them. The table is
//! dated and conservative: `unknown` where a tool's own documentation did not say.

use serde::Serialize;

use crate::skills::Skill;

/// When the table below was last checked against each tool's documentation.
pub(crate) const AS_OF: &str = "2026-12-03";

/// How a tool treats a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Support {
    /// Read and acted on.
    Honoured,
    /// Acted on in part; the note says which part.
    Partly,
    /// Read past without effect.
    Ignored,
    /// Not documented either way.
    Unknown,
}

impl Support {
    /// The word a person reads.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Self::Honoured => "honoured",
            Self::Partly => "partly",
            Self::Ignored => "ignored",
            Self::Unknown => "unknown",
        }
    }
}

/// One field a skill uses, and who honours it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FieldSupport {
    /// The frontmatter key, or `` !`command` `` for dynamic context in the body.
    pub(crate) field: &'static str,
    pub(crate) agent: Support,
    /// What `agent` does with it, when that needs saying.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) note: &'static str,
    pub(crate) claude_code: Support,
    pub(crate) codex: Support,
    pub(crate) copilot_cli: Support,
    pub(crate) opencode: Support,
    pub(crate) gemini_cli: Support,
}

/// The pseudo-field for `` !`command` `` markers in a body.
pub(crate) const DYNAMIC_CONTEXT: &str = "!`command`";

use Support::{Honoured as H, Ignored as I, Partly as P, Unknown as U};

/// Field, `agent`, note, then Claude Code, Codex, Copilot CLI, opencode, Gemini CLI. Claude Code
/// defines every key here; opencode documents that it reads only the Agent Skills fields and
/// ignores the rest; Codex and Copilot CLI users asked their tools for dynamic context and forks,
/// which neither offered when this table was dated.
const TABLE: [(&str, Support, &str, [Support; 5]); 14] = [
    (
        "allowed-tools",
        H,
        "grants pre-approve commands (Bash(…)) and MCP tools",
        [H, U, U, I, U],
    ),
    ("argument-hint", H, "", [H, U, U, I, U]),
    ("arguments", H, "", [H, U, U, I, U]),
    ("disable-model-invocation", H, "", [H, U, U, I, U]),
    ("user-invocable", H, "", [H, U, U, I, U]),
    ("when_to_use", I, "routing reads the description alone", [H, U, U, I, U]),
    (
        "context",
        H,
        "`fork` runs the skill as a sub-conversation",
        [H, I, I, I, U],
    ),
    (
        "model",
        P,
        "switched to only for a skill with context: fork",
        [H, U, U, I, U],
    ),
    (
        "agent",
        P,
        "no agent types; a name that is no Claude Code type is tried as the fork's model",
        [H, I, I, I, U],
    ),
    ("paths", H, "", [H, U, U, I, U]),
    (
        "hooks",
        P,
        "PreToolUse, PostToolUse and Stop, while the skill is active, run as the skill's commands",
        [H, U, U, I, U],
    ),
    ("effort", I, "", [H, U, U, I, U]),
    ("shell", I, "markers run with sh", [H, U, U, I, U]),
    (
        DYNAMIC_CONTEXT,
        H,
        "runs as the skill's command, never inside code",
        [H, I, I, I, U],
    ),
];

/// The row of `field`, if the table has one.
fn row(field: &str) -> Option<FieldSupport> {
    TABLE
        .iter()
        .find(|(f, ..)| *f == field)
        .map(|&(field, agent, note, o)| FieldSupport {
            field,
            agent,
            note,
            claude_code: o[0],
            codex: o[1],
            copilot_cli: o[2],
            opencode: o[3],
            gemini_cli: o[4],
        })
}

/// The fields of the table `skill` uses: its frontmatter keys, and its body's dynamic context.
pub(crate) fn field_support(skill: &Skill) -> Vec<FieldSupport> {
    let Ok(raw) = crate::skills::load::parse::read_capped(&skill.skill_file) else {
        return Vec::new();
    };
    let text = crate::skills::load::frontmatter::normalize(&raw).text;
    let parts = crate::skills::load::frontmatter::split_parts(&text);
    let keys: Vec<String> = parts
        .yaml
        .and_then(|y| crate::support::yaml::document(y).ok())
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default();
    let dynamic = !crate::skills::dynamic::markers(parts.body).is_empty();
    TABLE
        .iter()
        .filter(|(f, ..)| keys.iter().any(|k| k == f) || (*f == DYNAMIC_CONTEXT && dynamic))
        .filter_map(|(f, ..)| row(f))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_s_fields_are_looked_up_in_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("SKILL.md");
        std::fs::write(
            &file,
            "---\nname: x\ndescription: Does x.\ncontext: fork\nhooks: {}\ncolour: red\n---\nNow: !`date`\n",
        )
        .unwrap();
        let mut skill = Skill::synthetic("x", "Does x.");
        skill.skill_file = file;
        let found = field_support(&skill);
        let fields: Vec<&str> = found.iter().map(|f| f.field).collect();
        assert_eq!(fields, ["context", "hooks", DYNAMIC_CONTEXT]);
        assert_eq!(found[0].agent, Support::Honoured);
        assert_eq!(found[1].agent, Support::Partly);
        assert_eq!(found[2].codex, Support::Ignored);
    }

    #[test]
    fn every_other_tool_key_has_a_row() {
        for (key, _) in crate::skills::load::invocation::OTHER_TOOL_KEYS {
            assert!(row(key).is_some(), "{key}");
        }
    }
}
