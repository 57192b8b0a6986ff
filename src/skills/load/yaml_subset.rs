//! The YAML subset most frontmatter is written in, read without the YAML parser: top-level
//! `key: value` lines whose values are plain, single-quoted or double-quoted one-line strings,
//! one-line lists of words (`[a, b]`), folded or literal blocks (`>`, `|`, `>-`, `|-`) of lines
//! at one indentation, and keys followed by an indented block of such `key: value` lines (a
//! mapping) or `- value` items (a list). Discovery parses thousands of frontmatter blocks per
//! start, and the parser costs far more than reading them.
//!
//! Anything outside the subset — numbers, booleans, nulls, escapes, comments, flow mappings,
//! blocks with blank or more-indented lines, anchors, deeper nesting, tabs — returns `None` and
//! goes through the YAML parser, so a result never differs from the parser's (a property test
//! holds the two together).

use serde_json::{Map, Value};

use super::frontmatter::scan::{any_byte, any_pair, split_lines};

/// The mapping `yaml` holds, when it is entirely within the subset; `None` otherwise.
pub(crate) fn read(yaml: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut lines = split_lines(yaml).peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(' ') {
            return None;
        }
        let (key, value) = match split_key(line) {
            Some((key, value)) => (key, value),
            None => (line.strip_suffix(':')?, ""),
        };
        if !top_key(key) || map.contains_key(key) {
            return None;
        }
        let mut block = Vec::new();
        while let Some(next) = lines.next_if(|l| l.starts_with(' ') || l.trim().is_empty()) {
            block.push(next);
        }
        // Blank lines after the block belong to what follows. (The parser counts lines of
        // spaces, and blank lines at the end of the text, into a folded or literal block:
        // those are left to it.)
        let mut clean_end = true;
        while let Some(blank) = block.last().filter(|l| l.trim().is_empty()) {
            clean_end &= blank.is_empty() && lines.peek().is_some();
            block.pop();
        }
        let value = match value.trim_end_matches(' ') {
            "" => nested(&block)?,
            style @ (">" | "|" | ">-" | "|-") if clean_end => block_scalar(style, &block)?,
            _ if !block.is_empty() => return None,
            value => scalar(value)?,
        };
        map.insert(key.to_string(), value);
    }
    (!map.is_empty()).then_some(map)
}

/// The lines of a block at one indentation, without it; `None` when they are indented
/// differently or hold blank lines.
fn dedent<'a>(block: &[&'a str]) -> Option<Vec<&'a str>> {
    let first = block.first()?;
    let indent = first.len() - first.trim_start_matches(' ').len();
    if indent == 0 {
        return None;
    }
    block
        .iter()
        .map(|line| {
            let rest = line.get(indent..)?;
            let ok = line[..indent].bytes().all(|b| b == b' ') && !rest.starts_with(' ') && !rest.trim().is_empty();
            ok.then_some(rest)
        })
        .collect()
}

/// A `>` (folded) or `|` (literal) block, optionally `-` (no final line break), of lines at one
/// indentation without blank lines or trailing spaces.
fn block_scalar(style: &str, block: &[&str]) -> Option<Value> {
    let lines = dedent(block)?;
    if lines.iter().any(|l| l.ends_with(' ') || !all_printable(l)) {
        return None;
    }
    let mut text = lines.join(if style.starts_with('>') { " " } else { "\n" });
    if !style.ends_with('-') {
        text.push('\n');
    }
    Some(Value::String(text))
}

/// `line` split at its first `: ` (what `split_once(": ")` does, without a substring searcher
/// for a needle found a few bytes in).
fn split_key(line: &str) -> Option<(&str, &str)> {
    let at = line.as_bytes().windows(2).position(|w| w == b": ")?;
    Some((&line[..at], &line[at + 2..]))
}

/// Top-level keys: lowercase letters, `-` and `_`.
fn top_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
}

/// Keys inside a block: a lowercase letter, then lowercase letters, digits, `-` and `_`.
fn inner_key(key: &str) -> bool {
    key.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Characters the subset accepts in a value: printable, no tab (YAML treats a tab before `#` as
/// the start of a comment).
fn printable(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// Whether every character of `s` is [`printable`]; ASCII is checked byte by byte.
fn all_printable(s: &str) -> bool {
    let bytes = s.as_bytes();
    if !any_byte(bytes, |b| !(0x20..0x7f).contains(&b)) {
        return true;
    }
    let ascii_end = bytes.iter().position(|b| !b.is_ascii()).unwrap_or(s.len());
    let (ascii, rest) = s.split_at(ascii_end);
    ascii.bytes().all(|b| b >= 0x20 && b != 0x7f) && rest.chars().all(printable)
}

/// An indented block under a key: a mapping of scalars or a list of scalars, every line at the
/// same indentation.
fn nested(block: &[&str]) -> Option<Value> {
    let lines: Vec<&str> = block.iter().copied().filter(|l| !l.trim().is_empty()).collect();
    let lines = dedent(&lines)?;
    if lines[0].starts_with("- ") {
        let items = lines.iter().map(|l| scalar(l.strip_prefix("- ")?));
        return items.collect::<Option<Vec<Value>>>().map(Value::Array);
    }
    let mut map = Map::new();
    for line in lines {
        let (key, value) = split_key(line)?;
        if !inner_key(key) || map.contains_key(key) {
            return None;
        }
        map.insert(key.to_string(), scalar(value)?);
    }
    Some(Value::Object(map))
}

/// A one-line string value: plain, `'single-quoted'` or `"double-quoted"` without escapes.
fn scalar(value: &str) -> Option<Value> {
    let value = value.trim_end_matches(' ');
    if !all_printable(value) {
        return None;
    }
    let text = match value.as_bytes().first()? {
        b'"' => double_quoted(value)?,
        b'\'' => single_quoted(value)?,
        b'[' => return flow_list(value),
        _ => plain(value)?,
    };
    Some(Value::String(text))
}

/// `[a, b c, d]`: a one-line list of words.
fn flow_list(value: &str) -> Option<Value> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return inner.is_empty().then(|| Value::Array(Vec::new()));
    }
    // Items are words of letters, digits, `-`, `_` and `.`, each starting with a letter or digit
    // (the first with a letter), one space apart.
    let word = |w: &str| {
        w.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let item = |item: &str| {
        let item = item.trim_matches(' ');
        let simple = item.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) && item.split(' ').all(word);
        (simple && plain(item).is_some()).then(|| Value::String(item.to_string()))
    };
    inner
        .split(',')
        .map(item)
        .collect::<Option<Vec<Value>>>()
        .map(Value::Array)
}

/// A plain scalar YAML reads as a string: it starts with a letter, holds no `: ` or ` #`, does
/// not end in `:`, and is not a word YAML gives another type.
fn plain(value: &str) -> Option<String> {
    let first_ok = value.chars().next().is_some_and(char::is_alphabetic);
    let plain = !any_pair(value.as_bytes(), |a, b| {
        (a == b':') & (b == b' ') | (a == b' ') & (b == b'#')
    }) && !value.ends_with(':');
    let typed = ["true", "false", "yes", "no", "on", "off", "null", "y", "n"]
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word));
    (first_ok && plain && !typed).then(|| value.to_string())
}

fn double_quoted(value: &str) -> Option<String> {
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then(|| inner.to_string())
}

fn single_quoted(value: &str) -> Option<String> {
    let inner = value.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\'' {
            // Inside single quotes a quote is written twice; a lone one would end the string.
            if chars.next() != Some('\'') {
                return None;
            }
        }
        out.push(c);
    }
    Some(out)
}

#[cfg(test)]
#[path = "yaml_subset_tests.rs"]
mod tests;
