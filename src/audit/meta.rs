//! What a skill's frontmatter claims: `allowed-tools` grants that pre-approve everything, and a
//! name that imitates a well-known skill or tool (`clawhub1`, `gihtub-pr`), as the ClawHavoc
//! skills did to be picked over the real ones.

use std::path::Path;

use super::indicators::Indicators;
use super::{Class, Finding, Level, evidence};

/// Report grants and names of the SKILL.md `text` of the skill folder `dir`.
pub(crate) fn scan(dir: &Path, text: &str, data: &Indicators, findings: &mut Vec<Finding>) {
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

/// `allowed-tools` grants that pre-approve far more than a skill needs: any shell command (`Bash`,
/// `Bash(*)`, `Bash(:*)`, a shell or interpreter with any arguments), every tool (`*`), every MCP
/// tool (`mcp__*`) or every tool of one MCP server (`mcp__github__*`). One named MCP tool or a
/// command with its own prefix (`Bash(git status:*)`) is what a grant should be.
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
            value.push(',');
            value.push_str(next.trim_start().trim_start_matches('-'));
            lines.next();
        }
        let mut worst: Option<(Level, &str, &str)> = None;
        for grant in split_grants(&value) {
            if let Some(found) = broad(&grant)
                && worst.is_none_or(|(level, _, _)| found.0 > level)
            {
                worst = Some(found);
            }
        }
        if let Some((severity, rule, why)) = worst {
            findings.push(Finding {
                rule: rule.to_string(),
                class: Class::Permissions,
                severity,
                file: "SKILL.md".into(),
                // The frontmatter starts after the first `---` line.
                line: index + 1,
                evidence: evidence::clean(line, 0),
                why: why.to_string(),
                advice: "narrow it to the skill's own scripts (`Bash(./scripts/run.sh:*)`) and the MCP tools it names \
                         (`mcp__server__tool`), or keep approvals on"
                    .to_string(),
            });
        }
    }
}

/// The grants of an `allowed-tools` value: split on commas, blanks and brackets outside
/// parentheses, quotes dropped.
fn split_grants(value: &str) -> Vec<String> {
    let mut grants = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let separator = depth == 0 && (c == ',' || c == '[' || c == ']' || c.is_whitespace());
        if separator {
            grants.push(std::mem::take(&mut current));
        } else if c != '"' && c != '\'' {
            current.push(c);
        }
    }
    grants.push(current);
    grants.into_iter().filter(|g| !g.is_empty()).collect()
}

/// Commands that run any other command given as their argument.
const ANY_COMMAND: [&str; 16] = [
    "sh", "bash", "zsh", "dash", "ksh", "fish", "sudo", "env", "xargs", "eval", "exec", "python", "python3", "node",
    "perl", "ruby",
];

/// Whether one grant is broad: (severity, rule, why).
fn broad(grant: &str) -> Option<(Level, &'static str, &'static str)> {
    let lower = grant.to_ascii_lowercase();
    if lower == "*" || lower.starts_with("mcp*") || lower.starts_with("mcp__*") {
        return Some((
            Level::High,
            "broad-mcp-grant",
            "`allowed-tools` pre-approves every tool, or every tool of every MCP server",
        ));
    }
    if let Some(rest) = lower.strip_prefix("mcp__") {
        let server_wide = rest.ends_with('*') || !rest.contains("__") || rest.ends_with("__");
        return server_wide.then_some((
            Level::Medium,
            "broad-mcp-grant",
            "`allowed-tools` pre-approves every tool of an MCP server, whatever it can do",
        ));
    }
    let shell = ["bash", "shell", "powershell"]
        .iter()
        .find_map(|tool| lower.strip_prefix(tool))?;
    let any = match shell.trim() {
        "" => true,
        inner => {
            let inner = inner.trim_start_matches('(').trim_end_matches(')').trim();
            let command = inner.split([':', ' ']).next().unwrap_or("");
            command.is_empty()
                || command.chars().all(|c| c == '*')
                || ANY_COMMAND.contains(&command.trim_start_matches("/usr/bin/").trim_start_matches("/bin/"))
        }
    };
    let parenthesised = shell.trim().is_empty() || shell.trim_start().starts_with('(');
    // Low: such a grant is honoured only where the kernel sandbox walls in what it lets run
    // (with the sandbox off its commands are asked about), so it is worth knowing, not a risk of
    // its own; public collections use it widely for honest skills.
    (any && parenthesised).then_some((
        Level::Low,
        "broad-allowed-tools",
        "`allowed-tools` pre-approves any shell command for this skill (honoured only inside the sandbox)",
    ))
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
    let bare = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_');
    if bare != lower && data.known_names.iter().any(|k| k == bare) {
        return Some(finding(
            Level::Medium,
            format!("the name is {bare:?} with something added"),
        ));
    }
    let parts = std::iter::once(lower.as_str()).chain(lower.split(['-', '_', ' ']));
    for part in parts {
        for known in &data.known_names {
            // A typo-squat is one edit away: skip other lengths cheaply.
            if part == known || known.len() < 5 || part.len() < 4 || part.len().abs_diff(known.len()) > 1 {
                continue;
            }
            if strsim::osa_distance(part, known) == 1 && typo_of(part, known) {
                return Some(finding(
                    Level::Medium,
                    format!("the name looks like {known:?} with a letter changed"),
                ));
            }
        }
    }
    None
}

/// Whether `part`, one edit from `known`, is the kind of edit a typo-squat makes rather than
/// another word (`gihtub`, `githuub`, `g1thub`, `clawhub1`, but not `email` or `stack` for
/// `gmail` or `slack`): two letters swapped, a look-alike letter, a letter doubled, a digit added.
fn typo_of(part: &str, known: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (part.chars().collect(), known.chars().collect());
    let lookalike = |x: char, y: char| {
        let pair = [x, y];
        [
            ['0', 'o'],
            ['1', 'l'],
            ['1', 'i'],
            ['l', 'i'],
            ['5', 's'],
            ['3', 'e'],
            ['4', 'a'],
        ]
        .iter()
        .any(|p| *p == pair || [p[1], p[0]] == pair)
    };
    if a.len() == b.len() {
        let differ: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        return match differ.as_slice() {
            [i] => lookalike(a[*i], b[*i]),
            [i, j] => *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i],
            _ => false,
        };
    }
    if a.len() != b.len() + 1 {
        return false;
    }
    // One letter added: where the two first differ (or at the end).
    let at = (0..b.len()).find(|&i| a[i] != b[i]).unwrap_or(b.len());
    let added = a.get(at).copied().unwrap_or(' ');
    added.is_ascii_digit() || at.checked_sub(1).and_then(|i| a.get(i)) == Some(&added) || a.get(at + 1) == Some(&added)
}
