//! Deciding whether a proposed command may run without asking (SPEC §3 `approve`).

use super::cmdline;
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
    /// The name `parse` reads back (and `--approve` takes).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Auto => "auto",
            Self::Yes => "yes",
            Self::No => "no",
        }
    }

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
        ApprovalPolicy::Auto if preapproved(command, skill) => Verdict::Run,
        ApprovalPolicy::Auto => Verdict::AskUser,
    }
}

const INTERPRETERS: [&str; 7] = ["sh", "bash", "python3", "python", "node", "ruby", "perl"];

/// What one `allowed-tools` entry lets run: `Bash`, `Bash(git:*)`, `Bash(git log *)`,
/// `Bash(curl -s wttr.in/*)` (`*` and `?` match inside a word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Any command (`Bash`, `Bash(*)`).
    Any,
    /// These leading words, then any arguments (`Bash(git:*)`, `Bash(git log *)`).
    Prefix(Vec<String>),
    /// Exactly these words (`Bash(npm run test)`).
    Exact(Vec<String>),
}

/// Read one `allowed-tools` entry; entries for other tools (Read, Grep …) grant no commands.
pub fn parse_grant(entry: &str) -> Option<Grant> {
    let entry = entry.trim();
    let (tool, spec) = match entry.split_once('(') {
        Some((tool, rest)) => (tool.trim(), Some(rest.strip_suffix(')')?.trim())),
        None => (entry, None),
    };
    if !tool.eq_ignore_ascii_case("bash") && !tool.eq_ignore_ascii_case("shell") {
        return None;
    }
    let Some(spec) = spec.filter(|s| !s.is_empty() && *s != "*" && *s != ":*") else {
        return Some(Grant::Any);
    };
    if let Some(prefix) = spec.strip_suffix(":*") {
        return Some(Grant::Prefix(shell_words::split(prefix).ok()?));
    }
    let mut words = shell_words::split(spec).ok()?;
    if words.last().is_some_and(|w| w == "*") {
        words.pop();
        return Some(Grant::Prefix(words));
    }
    Some(Grant::Exact(words))
}

impl Grant {
    fn allows(&self, words: &[String]) -> bool {
        let matches = |pattern: &[String]| {
            pattern.iter().zip(words).enumerate().all(
                |(i, (p, w))| {
                    if i == 0 { same_program(p, w) } else { glob_match(p, w) }
                },
            )
        };
        match self {
            Grant::Any => true,
            Grant::Prefix(p) => words.len() >= p.len() && !p.is_empty() && matches(p),
            Grant::Exact(p) => words.len() == p.len() && !p.is_empty() && matches(p),
        }
    }
}

fn same_program(pattern: &str, word: &str) -> bool {
    if glob_match(pattern, word) {
        return true;
    }
    match (normalize_relative(pattern), normalize_relative(word)) {
        (Some(a), Some(b)) if pattern.contains('/') || word.contains('/') => glob_match(&a, &b),
        _ => false,
    }
}

/// `*` matches any run of characters, `?` one character; everything else literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// True when every part of `command` is the skill's own script or granted by its `allowed-tools`.
pub fn preapproved(command: &str, skill: &Skill) -> bool {
    let dir = skill.dir.display().to_string();
    let expanded = command
        .replace("\"$SKILL_DIR\"/", "./")
        .replace("\"${SKILL_DIR}\"/", "./")
        .replace("$SKILL_DIR/", "./")
        .replace("${SKILL_DIR}/", "./")
        .replace(&format!("{dir}/"), "./");
    let Ok(line) = cmdline::parse(&expanded) else {
        return false;
    };
    let grants: Vec<Grant> = skill.allowed_tools.iter().filter_map(|t| parse_grant(t)).collect();
    line.parts
        .iter()
        .all(|words| runs_own_script(words, skill) || grants.iter().any(|g| g.allows(words)))
}

/// A call of the skill's entry script or a file under its `scripts/`, optionally via an interpreter.
fn runs_own_script(words: &[String], skill: &Skill) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::{Dialect, Skill};
    use std::path::PathBuf;

    fn skill() -> Skill {
        let mut s = Skill::synthetic("weather", "d");
        s.dir = PathBuf::from("/skills/weather");
        s.skill_file = PathBuf::from("/skills/weather/SKILL.md");
        s.root = PathBuf::from("/skills");
        s.dialect = Dialect::Scp;
        s.entry = Some("run.sh".into());
        s
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
    fn grants_in_real_world_spellings() {
        let mut s = skill();
        let check = |s: &Skill, cmd: &str| evaluate(ApprovalPolicy::Auto, cmd, s) == Verdict::Run;
        s.allowed_tools = vec![
            "Bash(git:*)".into(),
            "Read".into(),
            "Bash(curl -s wttr.in/*)".into(),
            "Bash(npm run test)".into(),
            "Bash(ls *)".into(),
        ];
        assert!(check(&s, "git log --oneline -5"));
        assert!(check(&s, "git status && git diff"));
        assert!(check(&s, "curl -s wttr.in/Tokyo?format=3"));
        assert!(check(&s, "npm run test"));
        assert!(check(&s, "ls -la"));
        assert!(check(&s, "./run.sh x | git hash-object --stdin"));
        assert!(!check(&s, "curl -s evil.example/x"));
        assert!(!check(&s, "curl -s wttr.in/x -o /etc/passwd"));
        assert!(!check(&s, "npm run test -- --evil"));
        assert!(!check(&s, "gitx status"));
        assert!(!check(&s, "git status; rm -rf ~"));
        s.allowed_tools = vec!["Bash".into()];
        assert!(check(&s, "rm -rf /tmp/whatever"));
        assert!(!check(&s, "echo $(id)"));
    }

    #[test]
    fn grant_parsing() {
        assert_eq!(parse_grant("Bash"), Some(Grant::Any));
        assert_eq!(parse_grant("Bash(*)"), Some(Grant::Any));
        assert_eq!(
            parse_grant("Bash(git log:*)"),
            Some(Grant::Prefix(vec!["git".into(), "log".into()]))
        );
        assert_eq!(
            parse_grant("Bash(./run.sh)"),
            Some(Grant::Exact(vec!["./run.sh".into()]))
        );
        assert_eq!(parse_grant("Read"), None);
        assert_eq!(parse_grant("Bash(unclosed"), None);
        assert!(glob_match("wttr.in/*", "wttr.in/Oslo"));
        assert!(!glob_match("wttr.in/*", "wttr.inx/Oslo"));
        assert!(glob_match("a?c*", "abcdef"));
        assert!(same_program("./run.sh", "run.sh") && same_program("scripts/q.sh", "./scripts/q.sh"));
    }

    #[test]
    fn names_round_trip() {
        for p in [
            ApprovalPolicy::Ask,
            ApprovalPolicy::Auto,
            ApprovalPolicy::Yes,
            ApprovalPolicy::No,
        ] {
            assert_eq!(ApprovalPolicy::parse(p.as_str()), Some(p));
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
