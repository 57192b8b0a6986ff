//! Splitting a shell command line into its simple commands, so approval can judge each part.
//! Anything too dynamic to judge statically (command substitution, subshells, here-docs,
//! redirections into files, leading variable assignments) is reported as such.

/// Redirections that cannot change what a command does to files.
const HARMLESS_REDIRECTS: [&str; 6] = [
    "2>&1",
    ">/dev/null",
    "1>/dev/null",
    "2>/dev/null",
    "&>/dev/null",
    "</dev/null",
];

/// The simple commands of a command line, each as its words (quotes removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    pub parts: Vec<Vec<String>>,
}

/// Why a command line cannot be judged part by part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque(pub String);

/// Split `command` at `;`, `&&`, `||`, `|`, `&` and newlines outside quotes.
pub fn parse(command: &str) -> Result<CommandLine, Opaque> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some('\'') => {
                current.push(c);
                if c == '\'' {
                    quote = None;
                }
                continue;
            }
            Some(_) => {
                if c == '`' || (c == '$' && chars.peek() == Some(&'(')) {
                    return Err(Opaque("command substitution".into()));
                }
                current.push(c);
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        current.push(next);
                    }
                } else if c == '"' {
                    quote = None;
                }
                continue;
            }
            None => {}
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                current.push(c);
            }
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '`' => return Err(Opaque("command substitution".into())),
            '$' if chars.peek() == Some(&'(') => return Err(Opaque("command substitution".into())),
            '(' | ')' | '{' | '}' => return Err(Opaque("a subshell or group".into())),
            ';' | '\n' | '|' | '&' => {
                // `2>&1` and `&>` are redirections, not separators.
                if c == '&' && (current.ends_with('>') || chars.peek() == Some(&'>')) {
                    current.push(c);
                    continue;
                }
                if matches!(chars.peek(), Some('|' | '&')) {
                    chars.next();
                }
                parts.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    if quote.is_some() {
        return Err(Opaque("an unclosed quote".into()));
    }
    parts.push(current);
    let mut out = Vec::new();
    for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        out.push(words_of(part)?);
    }
    if out.is_empty() {
        return Err(Opaque("an empty command".into()));
    }
    Ok(CommandLine { parts: out })
}

fn words_of(part: &str) -> Result<Vec<String>, Opaque> {
    let raw = shell_words::split(part).map_err(|e| Opaque(format!("unparsable quoting ({e})")))?;
    let mut words = Vec::new();
    let mut pending_redirect = false;
    for (i, word) in raw.into_iter().enumerate() {
        if pending_redirect {
            if word != "/dev/null" && word != "&1" {
                return Err(Opaque(format!("a redirection to {word:?}")));
            }
            pending_redirect = false;
            continue;
        }
        if HARMLESS_REDIRECTS.contains(&word.as_str()) {
            continue;
        }
        if matches!(word.as_str(), ">" | "1>" | "2>" | "&>" | "<") {
            pending_redirect = true;
            continue;
        }
        if word.contains('>') || word.contains('<') {
            return Err(Opaque(format!("a redirection ({word})")));
        }
        if i == words.len() && words.is_empty() && is_assignment(&word) {
            return Err(Opaque(format!("a variable assignment before the command ({word})")));
        }
        words.push(word);
    }
    if pending_redirect {
        return Err(Opaque("a dangling redirection".into()));
    }
    Ok(words)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(cmd: &str) -> Vec<Vec<String>> {
        parse(cmd).unwrap().parts
    }

    #[test]
    fn splits_on_operators_outside_quotes() {
        assert_eq!(
            parts("git status && git log -1 | head -n 3; echo 'a; b'"),
            vec![
                vec!["git", "status"],
                vec!["git", "log", "-1"],
                vec!["head", "-n", "3"],
                vec!["echo", "a; b"],
            ]
        );
        assert_eq!(parts("./run.sh \"New York\" 2>&1"), vec![vec!["./run.sh", "New York"]]);
        assert_eq!(
            parts("./run.sh x 2> /dev/null || true"),
            vec![vec!["./run.sh", "x"], vec!["true"]]
        );
    }

    #[test]
    fn dynamic_constructs_are_opaque() {
        for cmd in [
            "echo $(id)",
            "echo `id`",
            "echo \"$(id)\"",
            "(cd /; ls)",
            "{ ls; }",
            "ls > out.txt",
            "cat <<EOF",
            "FOO=1 ./run.sh",
            "echo 'open",
        ] {
            assert!(parse(cmd).is_err(), "{cmd}");
        }
        assert!(parse("echo '$(not run)'").is_ok());
    }
}
