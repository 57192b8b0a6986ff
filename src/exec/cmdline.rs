//! Reading a proposed command as ONE simple command of literal words
//! (docs/design.md#approval-boundary).
//!
//! This is deliberately not a shell parser. It accepts a small grammar whose meaning is the same in
//! every POSIX shell — plain characters, single-quoted strings, double-quoted strings without `$`,
//! backticks or backslashes, separated by spaces or tabs — and rejects everything else. A command
//! accepted here is then executed as the words it yields, without a shell, so no difference between
//! this reading and a shell's can ever matter: there is no second reading.
//!
//! The one expansion performed is the agent's own `$SKILL_DIR` / `${SKILL_DIR}` (quoted or not),
//! replaced by the skill folder as part of the surrounding word, never split.

use crate::support::terminal_text::is_invisible_format;

/// Why a command is not one simple command of literal words; shown to the user and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotLiteral(pub String);

impl std::fmt::Display for NotLiteral {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Characters that stand for themselves outside quotes in every POSIX shell, wherever they appear
/// in a word. (`=` is safe except in the first word, where it would make an assignment.) Letters
/// and digits of other scripts count (`./run.sh Zürich`): no shell gives them a meaning, and they
/// cannot pass for an operator the way a fullwidth `；` or `｜` could; other non-ASCII does not.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '_' | '-' | '.' | '/' | ',' | ':' | '@' | '%' | '+' | '=')
        || (!c.is_ascii() && c.is_alphanumeric())
}

/// Operators and redirections of two characters, named whole (`&&`, not `&`).
const PAIRS: [&str; 10] = ["&&", "||", ";;", "|&", "&>", ">>", "<<", ">&", "<&", "<>"];

/// What the rejected text at the start of `rest` is: a two-character operator or redirection
/// named whole, else its first character.
fn describe_at(rest: &str) -> String {
    let Some(c) = rest.chars().next() else {
        return String::new();
    };
    match PAIRS.iter().find(|p| rest.starts_with(**p)) {
        Some(pair) => format!("{} ({pair})", kind(c)),
        None => describe(c),
    }
}

/// What a rejected character is, in words a user and a model understand.
fn describe(c: char) -> String {
    format!("{} ({})", kind(c), c.escape_default())
}

/// The kind of thing a rejected character is.
fn kind(c: char) -> &'static str {
    match c {
        ';' | '&' | '|' => "an operator",
        '<' | '>' => "a redirection",
        '(' | ')' | '{' | '}' => "a subshell, group or brace",
        '$' => "an expansion",
        '`' => "command substitution",
        '\\' => "a backslash escape",
        '#' => "a comment",
        '~' => "a tilde expansion",
        '*' | '?' | '[' | ']' => "a glob",
        '!' => "a negation or history expansion",
        '\n' | '\r' => "a line break",
        c if c.is_control() => "a control character",
        c if !c.is_ascii() => "a non-ASCII symbol outside quotes",
        _ => "a shell metacharacter",
    }
}

/// The words of `command` with quotes removed and `$SKILL_DIR` replaced by `skill_dir`, if it is
/// one simple command of literal words; otherwise what makes it more than that.
pub fn literal_words(command: &str, skill_dir: &str) -> Result<Vec<String>, NotLiteral> {
    if let Some(c) = command
        .chars()
        .find(|&c| (c.is_control() && c != '\t') || is_invisible_format(c))
    {
        return Err(NotLiteral(format!("it contains {}", describe(c))));
    }
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut rest = command;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        rest = match c {
            ' ' | '\t' => {
                words.extend(word.take());
                after
            }
            '\'' => {
                let end = after
                    .find('\'')
                    .ok_or_else(|| NotLiteral("it has an unclosed single quote".into()))?;
                word.get_or_insert_with(String::new).push_str(no_tab(&after[..end])?);
                &after[end + 1..]
            }
            '"' => {
                let end = after
                    .find('"')
                    .ok_or_else(|| NotLiteral("it has an unclosed double quote".into()))?;
                let inner = substitute(no_tab(&after[..end])?, skill_dir)?;
                word.get_or_insert_with(String::new).push_str(&inner);
                &after[end + 1..]
            }
            '$' => {
                let (value, next) = skill_dir_reference(rest, skill_dir)
                    .ok_or_else(|| NotLiteral(format!("it contains {}", describe('$'))))?;
                word.get_or_insert_with(String::new).push_str(value);
                next
            }
            c if is_plain(c) => {
                word.get_or_insert_with(String::new).push(c);
                after
            }
            _ => return Err(NotLiteral(format!("it contains {}", describe_at(rest)))),
        };
    }
    words.extend(word);
    let Some(first) = words.first() else {
        return Err(NotLiteral("it is empty".into()));
    };
    if first.contains('=') {
        return Err(NotLiteral(format!(
            "its first word ({first}) would be read as a variable assignment"
        )));
    }
    Ok(words)
}

/// Quoted text, unless it holds a tab (which would look like a word break).
fn no_tab(quoted: &str) -> Result<&str, NotLiteral> {
    if quoted.contains('\t') {
        return Err(NotLiteral("it has a tab inside quotes".into()));
    }
    Ok(quoted)
}

/// The text of a double-quoted string: nothing may be special in it but `$SKILL_DIR`.
fn substitute(quoted: &str, skill_dir: &str) -> Result<String, NotLiteral> {
    let mut out = String::with_capacity(quoted.len());
    let mut rest = quoted;
    while let Some(c) = rest.chars().next() {
        match c {
            '$' => {
                let (value, next) = skill_dir_reference(rest, skill_dir)
                    .ok_or_else(|| NotLiteral(format!("it contains {} inside double quotes", describe('$'))))?;
                out.push_str(value);
                rest = next;
            }
            '`' | '\\' => {
                return Err(NotLiteral(format!("it contains {} inside double quotes", describe(c))));
            }
            c => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Ok(out)
}

/// `$SKILL_DIR` (not followed by a name character) or `${SKILL_DIR}` at the start of `text`:
/// the folder and the text after the reference.
fn skill_dir_reference<'a, 'b>(text: &'a str, skill_dir: &'b str) -> Option<(&'b str, &'a str)> {
    if let Some(after) = text.strip_prefix("${SKILL_DIR}") {
        return Some((skill_dir, after));
    }
    let after = text.strip_prefix("$SKILL_DIR")?;
    let continues_name = after
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    (!continues_name).then_some((skill_dir, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(cmd: &str) -> Vec<String> {
        literal_words(cmd, "/skills/my dir").unwrap()
    }

    #[test]
    fn quotes_join_into_words() {
        assert_eq!(words("./run.sh Tokyo"), ["./run.sh", "Tokyo"]);
        assert_eq!(words("  ./run.sh\t'New York'  "), ["./run.sh", "New York"]);
        assert_eq!(
            words("./run.sh \"New York\" a'b'\"c\"d ''"),
            ["./run.sh", "New York", "abcd", ""]
        );
        assert_eq!(words("printf 'granted %s\\n' ok"), ["printf", "granted %s\\n", "ok"]);
        assert_eq!(
            words("./run.sh '$(id) `id` ; | & > #'"),
            ["./run.sh", "$(id) `id` ; | & > #"]
        );
        assert_eq!(
            words("./run.sh \"東京 ; #\" key=value -x,y:z@h%+"),
            ["./run.sh", "東京 ; #", "key=value", "-x,y:z@h%+"]
        );
        assert_eq!(
            words("./run.sh Zürich 東京 São_Paulo ４２"),
            ["./run.sh", "Zürich", "東京", "São_Paulo", "４２"]
        );
    }

    #[test]
    fn skill_dir_becomes_part_of_one_word() {
        assert_eq!(words("$SKILL_DIR/run.sh x"), ["/skills/my dir/run.sh", "x"]);
        assert_eq!(words("\"$SKILL_DIR\"/run.sh"), ["/skills/my dir/run.sh"]);
        assert_eq!(
            words("${SKILL_DIR}/scripts/a.py \"${SKILL_DIR}x\""),
            ["/skills/my dir/scripts/a.py", "/skills/my dirx"]
        );
        assert_eq!(words("./run.sh '$SKILL_DIR'"), ["./run.sh", "$SKILL_DIR"]);
        for other in [
            "$SKILL_DIRX/run.sh",
            "$HOME/x",
            "${SKILL_DIR:-/}/x",
            "\"$SKILL_NAME\"",
            "$1",
            "$",
        ] {
            assert!(literal_words(other, "/s").is_err(), "{other}");
        }
    }

    #[test]
    fn anything_beyond_literal_words_is_refused() {
        for cmd in [
            "./run.sh x; rm -rf ~",
            "./run.sh && id",
            "./run.sh || id",
            "./run.sh | sh",
            "./run.sh & id",
            "./run.sh $(id)",
            "./run.sh \"$(id)\"",
            "./run.sh `id`",
            "./run.sh \"`id`\"",
            "./run.sh x\nid",
            "./run.sh x\r",
            "./run.sh #'\ntouch CANARY #'",
            "./run.sh # comment",
            "./run.sh &>/dev/null touch CANARY",
            ">/dev/null X=/../run.sh touch CANARY",
            "./run.sh 2>&1",
            "./run.sh >/dev/null",
            "./run.sh </dev/null",
            "cat <<EOF",
            "X=1 ./run.sh",
            "PATH=/tmp ./run.sh",
            "(./run.sh)",
            "{ ./run.sh; }",
            "./run.sh ~",
            "./run.sh ~/x",
            "./run.sh *",
            "./run.sh x?",
            "./run.sh [ab]",
            "./run.sh {a,b}",
            "! ./run.sh",
            "./run.sh \\; id",
            "./run.sh \"a\\\"b\"",
            "./run.sh x；id",
            "./run.sh ｜ id",
            "./run.sh\u{a0}x",
            "./run.sh x＆id",
            "./run.sh Zu\u{308}rich",
            "./run.sh 'a\u{202e}b'",
            "./run.sh 'a\u{1b}[2Kb'",
            "./run.sh 'a\tb'",
            "./run.sh 'open",
            "./run.sh \"open",
            "",
            "   ",
        ] {
            assert!(literal_words(cmd, "/s").is_err(), "{cmd:?} was accepted");
        }
    }

    #[test]
    fn reasons_name_the_construct() {
        let reason = |c: &str| literal_words(c, "/s").unwrap_err().0;
        assert!(reason("a | b").contains("operator"));
        assert!(reason("a && b").contains("an operator (&&)"), "{}", reason("a && b"));
        assert!(reason("a || b").contains("an operator (||)"));
        assert!(reason("a & b").contains("an operator (&)"));
        assert!(reason("a >> f").contains("a redirection (>>)"));
        assert!(reason("a 2>&1").contains("redirection"));
        assert!(reason("a # b").contains("comment"));
        assert!(reason("a\nb").contains("line break"));
        assert!(reason("a\u{7}b").contains("control"));
        assert!(reason("a；b").contains("non-ASCII"));
        assert!(reason("X=1 a").contains("assignment"));
    }
}
