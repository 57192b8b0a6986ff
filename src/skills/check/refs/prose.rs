//! File names written as plain words of prose ("fill in FORMS.md"): checked only for letter case,
//! never reported missing, since a word of a sentence may name no file at all.

use super::{SkillFiles, usage};
use crate::skills::{Diagnostic, Severity, Skill, code};

/// Extensions that make a word of prose a file name (`see FORMS.md`).
const PROSE_EXTENSIONS: [&str; 11] = [
    ".md", ".py", ".sh", ".js", ".ts", ".txt", ".json", ".yaml", ".yml", ".csv", ".html",
];

/// File names written as plain words of prose (outside code and links), with their lines: real
/// skills name their files in sentences ("fill in FORMS.md"). Only a name that exists in another
/// letter case is reported of these ([`case_only`]): a word of prose is never called missing.
pub(super) fn plain_mentions(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (idx, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || usage::is_tree_line(line) {
            continue;
        }
        let prose = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for word in prose.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '"' | '\'' | ',')) {
            let word = word.trim_end_matches(['.', ':', ';', '!', '?']);
            let lower = word.to_lowercase();
            let looks_like_file = PROSE_EXTENSIONS
                .iter()
                .any(|e| lower.ends_with(e) && lower.len() > e.len())
                && word
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
                && !word.starts_with('/')
                && !word.contains("..");
            if looks_like_file {
                out.push((word.to_string(), idx + 1));
            }
        }
    }
    out
}

/// The finding for a name of prose that is the skill's file in other letter case, if it is.
pub(super) fn case_only(skill: &Skill, files: &SkillFiles, name: &str, line: usize) -> Option<Diagnostic> {
    let relative = usage::clean(name);
    if skill.dir.join(relative).exists() {
        return None;
    }
    let bare = !relative.contains('/');
    if bare && files.has_name(relative) {
        return None;
    }
    let actual = files.in_other_case(relative, bare)?;
    Some(Diagnostic::new(
        code::FILE_NAME_CASE,
        Severity::Warning,
        &skill.skill_file,
        Some(line),
        format!(
            "names `{name}`, but the skill's file is `{actual}`: names are case-sensitive here, so the path fails; write `{actual}`"
        ),
    ))
}
