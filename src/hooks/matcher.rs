//! Which tools a hook applies to, as Claude Code reads a `matcher`: empty or `*` is every tool, a
//! plain name is that tool (case-sensitive), `A|B` is either, anything else a regular expression
//! over the whole name (`Edit|Write`, `Notebook.*`, `mcp__github__.*`). `mcp__server__*` is
//! written so often for "every tool of that server" that a `*` after plain name characters is
//! read that way too.

/// A tool-name matcher.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    written: String,
    how: How,
}

#[derive(Debug, Clone)]
enum How {
    Any,
    Names(Vec<String>),
    Pattern(regex::Regex),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.written == other.written
    }
}

impl Eq for Matcher {}

impl Matcher {
    /// Every tool.
    pub(crate) fn any() -> Self {
        Self {
            written: String::new(),
            how: How::Any,
        }
    }

    /// The matcher `written` in a settings file; the error says why the pattern is not one.
    pub(crate) fn parse(written: &str) -> Result<Self, String> {
        let trimmed = written.trim();
        let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let how = if trimmed.is_empty() || trimmed == "*" {
            How::Any
        } else if trimmed.split('|').all(|n| !n.is_empty() && plain(n)) {
            How::Names(trimmed.split('|').map(str::to_string).collect())
        } else {
            let pattern = match trimmed.strip_suffix('*') {
                // `mcp__github__*`: the prefix, then anything.
                Some(prefix) if plain(prefix) && !prefix.ends_with('.') => format!("{}.*", regex::escape(prefix)),
                _ => trimmed.to_string(),
            };
            let regex = regex::Regex::new(&format!("^(?:{pattern})$"))
                .map_err(|e| format!("the matcher {trimmed:?} is not a name, `A|B` or a regular expression: {e}"))?;
            How::Pattern(regex)
        };
        Ok(Self {
            written: written.to_string(),
            how,
        })
    }

    /// The matcher as the settings file wrote it (`""` when it had none).
    pub(crate) fn as_written(&self) -> &str {
        &self.written
    }

    /// Whether the tool `name` is one this matcher takes.
    pub(crate) fn matches(&self, name: &str) -> bool {
        match &self.how {
            How::Any => true,
            How::Names(names) => names.iter().any(|n| n == name),
            How::Pattern(regex) => regex.is_match(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Matcher {
        Matcher::parse(s).unwrap()
    }

    #[test]
    fn names_alternatives_patterns_and_wildcards_match_as_claude_code_reads_them() {
        assert!(m("").matches("Bash") && m("*").matches("mcp__x__y"));
        assert!(m("Bash").matches("Bash"));
        assert!(!m("Bash").matches("bash") && !m("Bash").matches("BashOutput"));
        assert!(m("Edit|Write").matches("Write") && !m("Edit|Write").matches("Read"));
        assert!(m("Notebook.*").matches("NotebookEdit") && !m("Notebook.*").matches("XNotebook"));
        assert!(m("mcp__github__*").matches("mcp__github__create_issue"));
        assert!(!m("mcp__github__*").matches("mcp__gitlab__create_issue"));
        assert!(m("mcp__.*__write.*").matches("mcp__fs__write_file"));
        assert!(Matcher::parse("(unclosed").unwrap_err().contains("(unclosed"));
    }
}
