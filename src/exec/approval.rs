//! Deciding whether a proposed command may run without asking (SPEC §3 `approve`).

use crate::skills::Skill;

/// The approval policy in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalPolicy {
    /// Every command needs a yes from the user.
    Ask,
    /// A skill's own scripts run; anything else needs a yes (denied without a terminal).
    Auto,
    /// Everything runs.
    Yes,
    /// Nothing runs.
    No,
}

impl ApprovalPolicy {
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ask" => Some(Self::Ask),
            "auto" => Some(Self::Auto),
            "yes" => Some(Self::Yes),
            "no" => Some(Self::No),
            _ => None,
        }
    }
}

/// What the policy says about one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Run,
    /// A person must decide.
    AskUser,
    /// Refused without asking, with the reason the model and user are told.
    Deny(String),
}

/// Apply `policy` to `command` proposed for `skill`.
pub fn evaluate(policy: ApprovalPolicy, command: &str, skill: &Skill) -> Verdict {
    match policy {
        ApprovalPolicy::Yes => Verdict::Run,
        ApprovalPolicy::No => Verdict::Deny("denied by policy: --approve no runs nothing".into()),
        ApprovalPolicy::Ask => Verdict::AskUser,
        ApprovalPolicy::Auto if runs_own_script(command, skill) => Verdict::Run,
        ApprovalPolicy::Auto => Verdict::AskUser,
    }
}

/// Characters that let one command line do more than run one program.
const SHELL_META: &[char] = &[
    ';', '&', '|', '<', '>', '$', '`', '(', ')', '{', '}', '*', '?', '[', ']', '~', '!', '#', '\n', '\\',
];
const INTERPRETERS: [&str; 6] = ["sh", "bash", "python3", "python", "node", "ruby"];

/// True when `command` is a plain call of the skill's entry script or a file under its `scripts/`,
/// optionally through an interpreter, with literal arguments only.
pub fn runs_own_script(command: &str, skill: &Skill) -> bool {
    let dir = skill.dir.display().to_string();
    let expanded = command
        .replace("\"$SKILL_DIR\"/", "./")
        .replace("\"${SKILL_DIR}\"/", "./")
        .replace("$SKILL_DIR/", "./")
        .replace("${SKILL_DIR}/", "./")
        .replace(&format!("{dir}/"), "./");
    let Ok(words) = shell_words::split(&expanded) else {
        return false;
    };
    // Quoted arguments may hold metacharacters harmlessly; only unquoted ones matter, so check the
    // words after removing quoted spans: a crude but conservative test is the raw text outside quotes.
    if unquoted_text(&expanded).contains(SHELL_META) {
        return false;
    }
    let mut words = words.iter().map(String::as_str);
    let Some(mut program) = words.next() else {
        return false;
    };
    if INTERPRETERS.contains(&program) {
        match words.next() {
            Some(script) if !script.starts_with('-') => program = script,
            _ => return false,
        }
    }
    let Some(relative) = normalize_relative(program) else {
        return false;
    };
    skill.entry.as_deref() == Some(relative.as_str())
        || (relative.starts_with("scripts/") && skill.dir.join(&relative).is_file())
}

/// `./run.sh`, `run.sh`, `scripts/../run.sh` → `run.sh`; anything escaping the folder → None.
fn normalize_relative(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The command text with single- and double-quoted spans removed.
fn unquoted_text(command: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some('"') if c == '$' || c == '`' || c == '\\' => out.push(c),
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::{Dialect, Skill};
    use std::path::PathBuf;

    fn skill() -> Skill {
        Skill {
            name: "weather".into(),
            description: "d".into(),
            dir: PathBuf::from("/skills/weather"),
            skill_file: PathBuf::from("/skills/weather/SKILL.md"),
            root: PathBuf::from("/skills"),
            dialect: Dialect::Scp,
            entry: Some("run.sh".into()),
            allowed_tools: vec![],
            version: None,
            license: None,
            compatibility: None,
            diagnostics: vec![],
        }
    }

    #[test]
    fn auto_runs_the_entry_script_with_plain_arguments() {
        let s = skill();
        for ok in [
            "./run.sh Tokyo",
            "run.sh 'New York'",
            "sh run.sh Paris",
            "\"$SKILL_DIR\"/run.sh Oslo",
            "/skills/weather/run.sh x",
        ] {
            assert_eq!(evaluate(ApprovalPolicy::Auto, ok, &s), Verdict::Run, "{ok}");
        }
        for ask in [
            "./run.sh x; rm -rf ~",
            "./run.sh $(whoami)",
            "rm -rf ~",
            "./other.sh",
            "../x/run.sh",
            "./run.sh x | sh",
            "./run.sh \"$(id)\"",
        ] {
            assert_eq!(evaluate(ApprovalPolicy::Auto, ask, &s), Verdict::AskUser, "{ask}");
        }
    }

    #[test]
    fn yes_and_no() {
        let s = skill();
        assert_eq!(evaluate(ApprovalPolicy::Yes, "rm -rf /tmp/x", &s), Verdict::Run);
        assert!(matches!(evaluate(ApprovalPolicy::No, "./run.sh", &s), Verdict::Deny(_)));
        assert_eq!(evaluate(ApprovalPolicy::Ask, "./run.sh", &s), Verdict::AskUser);
    }
}
