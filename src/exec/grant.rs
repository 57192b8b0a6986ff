//! `allowed-tools` grants: which literal commands a skill's author lets run without asking.
//!
//! A grant is matched against the words of one literal simple command (see `cmdline`), never
//! against command text, so `Bash(git status:*)` approves `git status --short` and nothing joined
//! to it with `&&`, `|` or `;` (those are not literal commands at all).

/// What one `allowed-tools` entry lets run: `Bash`, `Bash(git:*)`, `Bash(git log *)`,
/// `Bash(curl -s wttr.in/*)` (`*` and `?` match inside a word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Grant {
    /// Any literal command (`Bash`, `Bash(*)`).
    Any,
    /// These leading words, then any arguments (`Bash(git:*)`, `Bash(git log *)`).
    Prefix(Vec<String>),
    /// Exactly these words (`Bash(npm run test)`).
    Exact(Vec<String>),
}

/// Read one `allowed-tools` entry; entries for other tools (Read, Grep …) grant no commands.
pub(crate) fn parse_grant(entry: &str) -> Option<Grant> {
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

/// Programs that run whatever command they are given: a grant of one of them with any arguments
/// lets anything run, like a bare `Bash`.
const RUNS_ANYTHING: [&str; 16] = [
    "sh", "bash", "zsh", "dash", "ksh", "fish", "sudo", "env", "xargs", "eval", "exec", "python", "python3", "node",
    "perl", "ruby",
];

impl Grant {
    /// Whether this grant lets any command at all run (`Bash`, `Bash(*)`, `Bash(sh:*)`,
    /// `Bash(python3:*)`): such a grant is honoured only inside the sandbox
    /// (docs/design.md#approval-boundary), where what it lets run is still walled in.
    pub(crate) fn runs_anything(&self) -> bool {
        match self {
            Grant::Any => true,
            Grant::Prefix(p) => p.len() == 1 && p.first().is_some_and(|w| RUNS_ANYTHING.contains(&program_name(w))),
            Grant::Exact(_) => false,
        }
    }

    /// Whether `words` (a literal command) is granted; `same_program` decides whether the
    /// pattern's first word names the program `words[0]` names.
    pub(crate) fn allows(&self, words: &[String], same_program: impl Fn(&str, &str) -> bool) -> bool {
        let matches = |pattern: &[String]| {
            pattern.iter().zip(words).enumerate().all(
                |(i, (p, w))| {
                    if i == 0 { same_program(p, w) } else { glob_match(p, w) }
                },
            )
        };
        match self {
            Grant::Any => !words.is_empty(),
            Grant::Prefix(p) => words.len() >= p.len() && !p.is_empty() && matches(p),
            Grant::Exact(p) => words.len() == p.len() && !p.is_empty() && matches(p),
        }
    }
}

/// The last path component of a program word (`/usr/bin/env` → `env`).
fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether a grant pattern has wildcards.
pub(crate) fn has_wildcards(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// `*` matches any run of characters, `?` one character; everything else literally.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
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

/// Whether one of a skill's `allowed-tools` `entries` lets the file tool `tool` (`Write`, `Edit`)
/// change `path` (relative to the working folder) without asking: the bare name or `Name(*)`
/// for any path the file tools may write, `Name(PATTERN)` for paths the pattern matches (a
/// pattern without `/` matches a file's name in any folder, as a `.gitignore` line does). One
/// tool's grant is not another's.
pub(crate) fn grants_file_tool(entries: &[String], tool: &str, path: &str) -> bool {
    entries.iter().any(|entry| {
        let entry = entry.trim();
        let (name, spec) = match entry.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(spec) => (name.trim(), Some(spec.trim())),
                None => return false,
            },
            None => (entry, None),
        };
        if name != tool {
            return false;
        }
        match spec {
            None | Some("" | "*" | "**" | "**/*") => true,
            Some(pattern) => {
                let pattern = pattern.trim_start_matches("./").trim_start_matches('/');
                let name = path.rsplit('/').next().unwrap_or(path);
                glob_match(pattern, path) || (!pattern.contains('/') && glob_match(pattern, name))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_parsing() {
        assert_eq!(parse_grant("Bash"), Some(Grant::Any));
        assert_eq!(parse_grant("Bash(*)"), Some(Grant::Any));
        assert_eq!(
            parse_grant("Bash(git log:*)"),
            Some(Grant::Prefix(vec!["git".into(), "log".into()]))
        );
        assert_eq!(
            parse_grant("Bash(git log *)"),
            Some(Grant::Prefix(vec!["git".into(), "log".into()]))
        );
        assert_eq!(
            parse_grant("Bash(./run.sh)"),
            Some(Grant::Exact(vec!["./run.sh".into()]))
        );
        assert_eq!(parse_grant("Read"), None);
        assert_eq!(parse_grant("Bash(unclosed"), None);
    }

    #[test]
    fn globs_match_within_a_word() {
        assert!(glob_match("wttr.in/*", "wttr.in/Oslo"));
        assert!(!glob_match("wttr.in/*", "wttr.inx/Oslo"));
        assert!(glob_match("a?c*", "abcdef"));
        assert!(!glob_match("a?c", "abcd"));
    }

    #[test]
    fn grants_match_word_by_word() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let eq = |p: &str, w: &str| p == w;
        let prefix = parse_grant("Bash(git status:*)").unwrap();
        assert!(prefix.allows(&w("git status --short"), eq));
        assert!(!prefix.allows(&w("git stash"), eq));
        let exact = parse_grant("Bash(npm run test)").unwrap();
        assert!(exact.allows(&w("npm run test"), eq));
        assert!(!exact.allows(&w("npm run test -- --evil"), eq));
        assert!(!Grant::Any.allows(&[], eq));
    }

    #[test]
    fn file_tool_grants_name_their_tool_and_paths() {
        let grants = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(grants_file_tool(&grants(&["Read", "Write"]), "Write", "a/b.json"));
        assert!(!grants_file_tool(&grants(&["Read", "Write"]), "Edit", "a/b.json"));
        assert!(!grants_file_tool(&grants(&["Bash", "write"]), "Write", "x"));
        assert!(grants_file_tool(&grants(&["Edit(*)"]), "Edit", "deep/x.xml"));
        let xml = grants(&["Edit(*.xml)", "Write(out/*)"]);
        assert!(grants_file_tool(&xml, "Edit", "unpacked/word/document.xml"));
        assert!(!grants_file_tool(&xml, "Edit", "notes.md"));
        assert!(grants_file_tool(&xml, "Write", "out/r.json"));
        assert!(!grants_file_tool(&xml, "Write", "r.json"));
        assert!(!grants_file_tool(&grants(&["Edit(*.xml"]), "Edit", "a.xml"));
    }
}
