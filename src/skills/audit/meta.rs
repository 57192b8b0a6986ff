//! What a skill's frontmatter claims: `allowed-tools` grants that pre-approve everything, and a
//! name that imitates a well-known skill or tool (`clawhub1`, `gihtub-pr`), as the ClawHavoc
//! skills did to be picked over the real ones.

use std::path::Path;

use super::indicators::Indicators;
use super::{Class, Finding, Level, evidence};

/// Report grants and names of the SKILL.md `text` of the skill folder `dir`.
pub fn scan(dir: &Path, text: &str, data: &Indicators, findings: &mut Vec<Finding>) {
    let front = frontmatter(text);
    grants(front, findings);
    let declared = front.lines().find_map(|l| l.strip_prefix("name:")).map(unquote);
    let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut names: Vec<String> = declared.into_iter().map(str::to_string).chain(folder).collect();
    names.dedup();
    for name in names {
        if let Some(finding) = imitation(&name, data) {
            findings.push(finding);
            return;
        }
    }
}

/// The frontmatter between the opening and closing `---`, or nothing.
fn frontmatter(text: &str) -> &str {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---") else {
        return "";
    };
    let end = rest.find("\n---").unwrap_or(rest.len());
    &rest[..end]
}

fn unquote(value: &str) -> &str {
    value.trim().trim_matches(|c| c == '"' || c == '\'')
}

/// `allowed-tools` that pre-approves any command.
fn grants(front: &str, findings: &mut Vec<Finding>) {
    let mut lines = front.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let Some(value) = line.strip_prefix("allowed-tools:") else {
            continue;
        };
        let mut value = value.to_string();
        // A YAML list on the following lines.
        while let Some((_, next)) = lines.peek() {
            if !next.trim_start().starts_with('-') {
                break;
            }
            value.push(' ');
            value.push_str(next.trim_start().trim_start_matches('-'));
            lines.next();
        }
        let compact: String = value
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
            .collect();
        let words: Vec<&str> = compact.split([',', '[', ']']).filter(|w| !w.is_empty()).collect();
        let broad = compact.contains("Bash(*)")
            || compact.contains("Bash(*:*)")
            || words.iter().any(|w| *w == "*" || *w == "Bash" || *w == "Shell");
        let broad = broad
            || value
                .split_whitespace()
                .any(|w| w.trim_matches(|c| c == '"' || c == '\'' || c == ',') == "Bash");
        if broad {
            findings.push(Finding {
                rule: "broad-allowed-tools".to_string(),
                class: Class::Permissions,
                severity: Level::Medium,
                file: "SKILL.md".into(),
                // The frontmatter starts after the first `---` line.
                line: index + 1,
                evidence: evidence::clean(line, 0),
                why: "`allowed-tools` pre-approves any shell command for this skill".to_string(),
                advice: "narrow it to the skill's own scripts (`Bash(./scripts/run.sh:*)`), or keep approvals on"
                    .to_string(),
            });
        }
    }
}

/// A finding when `name` imitates a well-known name without being it.
fn imitation(name: &str, data: &Indicators) -> Option<Finding> {
    let lower = name.to_lowercase();
    let finding = |level, why: String| Finding {
        rule: "name-imitation".to_string(),
        class: Class::Impersonation,
        severity: level,
        file: "SKILL.md".into(),
        line: 0,
        evidence: evidence::clean(name, 0),
        why,
        advice: "check that the publisher is who the name suggests before installing".to_string(),
    };
    if lower.chars().any(|c| c.is_alphabetic() && !c.is_ascii()) {
        return Some(finding(
            Level::High,
            "the name has letters outside ASCII that can look like others (homoglyphs)".to_string(),
        ));
    }
    let parts = std::iter::once(lower.as_str()).chain(lower.split(['-', '_', ' ']));
    for part in parts {
        for known in &data.known_names {
            // An edit distance of 1 or 2 needs lengths within 2 of each other: skip the rest cheaply.
            if part == known || known.len() < 5 || part.len() < 4 || part.len().abs_diff(known.len()) > 2 {
                continue;
            }
            let distance = strsim::osa_distance(part, known);
            if distance == 1 || (known.len() >= 8 && distance == 2) {
                return Some(finding(
                    Level::Medium,
                    format!("the name looks like {known:?} with a letter changed"),
                ));
            }
        }
    }
    None
}
