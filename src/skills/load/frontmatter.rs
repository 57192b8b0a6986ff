//! Splitting `SKILL.md` into YAML frontmatter and body, leniently: BOM, CRLF, blank lines before
//! `---`, unclosed blocks, missing delimiters and YAML that real authors write but YAML rejects.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::skills::{Severity, code};
use lines::Lines;

mod lines;
pub(super) mod scan;
use crate::support::yaml::{first_line as first_line_of, kind_of, to_json};

/// A finding about the file's text, located by 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    /// A [`crate::skills::code`] constant.
    pub(crate) code: &'static str,
    pub(crate) line: Option<usize>,
    pub(crate) message: String,
}

fn finding(code: &'static str, severity: Severity, line: Option<usize>, message: impl Into<String>) -> Finding {
    Finding {
        severity,
        code,
        line,
        message: message.into(),
    }
}

/// File text with encoding quirks removed.
#[derive(Debug)]
pub(crate) struct Normalized<'a> {
    /// Borrowed from the bytes when they needed no change (valid UTF-8, no BOM, no `\r`).
    pub(crate) text: Cow<'a, str>,
    pub(crate) findings: Vec<Finding>,
}

/// Decode bytes as UTF-8 (lossily), drop a BOM and turn CRLF into LF.
pub(crate) fn normalize(raw: &[u8]) -> Normalized<'_> {
    let mut findings = Vec::new();
    let decoded = match std::str::from_utf8(raw) {
        Ok(s) => Cow::Borrowed(s),
        Err(e) => {
            findings.push(finding(
                code::INVALID_UTF8,
                Severity::Warning,
                None,
                format!(
                    "not valid UTF-8 (first bad byte at offset {}); invalid bytes replaced",
                    e.valid_up_to()
                ),
            ));
            String::from_utf8_lossy(raw)
        }
    };
    let text = if decoded.starts_with('\u{feff}') {
        findings.push(finding(
            code::BYTE_ORDER_MARK,
            Severity::Warning,
            Some(1),
            "starts with a byte-order mark (BOM); ignored it",
        ));
        let bom = '\u{feff}'.len_utf8();
        match decoded {
            Cow::Borrowed(s) => Cow::Borrowed(&s[bom..]),
            Cow::Owned(mut s) => {
                s.drain(..bom);
                Cow::Owned(s)
            }
        }
    } else {
        decoded
    };
    if !scan::any_byte(text.as_bytes(), |b| b == b'\r') {
        return Normalized { text, findings };
    }
    findings.push(finding(
        code::CRLF_LINE_ENDINGS,
        Severity::Info,
        None,
        "uses CRLF line endings; read as LF",
    ));
    Normalized {
        text: Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n")),
        findings,
    }
}

/// [`Parts`] copied out of the text, which the tests compare with it.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Split {
    /// Raw YAML text of the frontmatter, when there is one.
    pub(crate) yaml: Option<String>,
    /// 1-based line of the first YAML line.
    pub(crate) yaml_line: usize,
    pub(crate) body: String,
    pub(crate) findings: Vec<Finding>,
}

/// The frontmatter block (if any), the body, and what was odd about them, borrowed from the text
/// they were cut from: routing never needs the body copied.
#[derive(Debug, Default)]
pub(crate) struct Parts<'a> {
    /// Raw YAML text of the frontmatter, when there is one.
    pub(crate) yaml: Option<&'a str>,
    /// 1-based line of the first YAML line.
    pub(crate) yaml_line: usize,
    pub(crate) body: &'a str,
    pub(crate) findings: Vec<Finding>,
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

fn looks_like_yaml_key(line: &str) -> bool {
    // The key is what comes before the first `:`; stop at the first character it cannot hold.
    for (idx, c) in line.char_indices() {
        if c == ':' {
            return idx > 0;
        }
        if !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')) {
            return false;
        }
    }
    false
}

/// Lines that can continue a YAML mapping: keys, indented values, list items, comments.
fn looks_like_yaml_line(line: &str) -> bool {
    line.starts_with(char::is_whitespace)
        || looks_like_yaml_key(line)
        || line.starts_with("- ")
        || line.starts_with('#') && !line.starts_with("# ") && !line.starts_with("##")
}

/// Separate frontmatter from body, copying both out of `text` (the tests' reference).
#[cfg(test)]
pub(crate) fn split(text: &str) -> Split {
    let parts = split_parts(text);
    Split {
        yaml: parts.yaml.map(str::to_string),
        yaml_line: parts.yaml_line,
        body: parts.body.to_string(),
        findings: parts.findings,
    }
}

/// Separate frontmatter from body. Lines are looked at only as far as the frontmatter reaches;
/// the body is the rest of the text.
pub(crate) fn split_parts(text: &str) -> Parts<'_> {
    let mut lines = Lines::new(text);
    let Some(first) = lines.position(0, |l| !l.trim().is_empty()) else {
        return Parts::default();
    };
    let first_line = lines.get(first).unwrap_or_default();
    if is_fence(first_line) {
        return split_fenced(&mut lines, first);
    }
    if first_line.starts_with("name:") || first_line.starts_with("description:") {
        return split_unfenced(&mut lines, first);
    }
    Parts {
        body: text,
        ..Parts::default()
    }
}

/// The first line at or after `from` that cannot continue a YAML block, else the line count.
fn yaml_end(lines: &mut Lines<'_>, from: usize) -> usize {
    match lines.position(from, |l| l.trim().is_empty() || !looks_like_yaml_line(l)) {
        Some(end) => end,
        None => lines.count(),
    }
}

fn is_close(line: &str) -> bool {
    is_fence(line) || line.trim_end() == "..."
}

fn blank_or_yaml(line: &str) -> bool {
    line.trim().is_empty() || looks_like_yaml_line(line)
}

/// Frontmatter that opens with `---` on line `open` (0-based): closed by `---` or `...`, or
/// salvaged up to the first line that cannot be YAML when it is not closed (or its "closing"
/// fence is really a markdown rule further down).
fn split_fenced<'a>(lines: &mut Lines<'a>, open: usize) -> Parts<'a> {
    let mut out = Parts::default();
    if open > 0 {
        out.findings.push(finding(
            code::FRONTMATTER_NOT_FIRST,
            Severity::Warning,
            Some(open + 1),
            format!("{open} blank line(s) before the opening `---`; frontmatter must start on line 1"),
        ));
    }
    let close = lines.position(open + 1, is_close);
    out.yaml_line = open + 2;
    if let Some(close) = close
        && lines.all(open + 1, close, blank_or_yaml)
    {
        out.yaml = Some(lines.join(open + 1, close));
        out.body = lines.rest(close + 1);
        return out;
    }
    let salvage_end = yaml_end(lines, open + 1);
    let message = match close {
        Some(close) => format!(
            "frontmatter opened on line {} is not closed before the markdown starts on line {}; \
             the `---` on line {} looks like a markdown rule — add a closing `---` after the YAML",
            open + 1,
            salvage_end + 1,
            close + 1
        ),
        None => format!(
            "frontmatter opened on line {} is never closed; read lines {}-{} as YAML — add a closing `---`",
            open + 1,
            open + 2,
            salvage_end
        ),
    };
    out.findings.push(finding(
        code::UNCLOSED_FRONTMATTER,
        Severity::Warning,
        Some(open + 1),
        message,
    ));
    out.yaml = Some(lines.join(open + 1, salvage_end));
    out.body = lines.rest(salvage_end);
    out
}

/// `name:`/`description:` lines at the top without `---` around them.
fn split_unfenced<'a>(lines: &mut Lines<'a>, first: usize) -> Parts<'a> {
    let end = yaml_end(lines, first);
    Parts {
        yaml: Some(lines.join(first, end)),
        yaml_line: first + 1,
        body: lines.rest(end),
        findings: vec![finding(
            code::MISSING_DELIMITERS,
            Severity::Warning,
            Some(first + 1),
            "frontmatter fields without `---` delimiters; wrap them in `---` lines",
        )],
    }
}

/// Whether every text that starts with `text` (whole lines, each ending in `\n`) splits where
/// `text` alone does: the first line of the body when that is decided (0 without frontmatter),
/// `None` while later lines could still change it (a block not yet closed, only blank lines so
/// far). Discovery reads only the front of a file and reads on while this is `None`; it follows
/// [`split_parts`] case by case.
pub(crate) fn decided_body_line(text: &str) -> Option<usize> {
    let mut lines = Lines::new(text.strip_suffix('\n').unwrap_or(text));
    let first = lines.position(0, |l| !l.trim().is_empty())?;
    let first_line = lines.get(first)?;
    if is_fence(first_line) {
        // A closing line decides everything; without one, only the end of the file does (an
        // unclosed block's message names the last YAML line, a late `---` line is named too).
        let close = lines.position(first + 1, is_close)?;
        if lines.all(first + 1, close, blank_or_yaml) {
            return Some(close + 1);
        }
        return lines.position(first + 1, |l| l.trim().is_empty() || !looks_like_yaml_line(l));
    }
    if first_line.starts_with("name:") || first_line.starts_with("description:") {
        return lines.position(first, |l| l.trim().is_empty() || !looks_like_yaml_line(l));
    }
    Some(0)
}

/// Parsed frontmatter as a JSON-like map, or `None` when it is not a mapping at all. A key's line
/// is found by [`key_line`] when a finding needs it.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    pub(crate) map: Option<Map<String, Value>>,
    pub(crate) findings: Vec<Finding>,
}

/// Parse the YAML of a frontmatter block, retrying the common author mistakes.
pub(crate) fn parse_yaml(yaml: &str, first_line: usize) -> Fields {
    let mut out = Fields::default();
    if yaml.trim().is_empty() {
        out.findings.push(finding(
            code::EMPTY_FRONTMATTER,
            Severity::Warning,
            Some(first_line),
            "frontmatter is empty",
        ));
        return out;
    }
    if let Some(idx) = first_control(yaml) {
        let line = first_line + yaml[..idx].matches('\n').count();
        out.findings.push(finding(
            code::CONTROL_CHARACTER,
            Severity::Warning,
            Some(line),
            "control character in frontmatter; removed it",
        ));
        let cleaned: String = yaml
            .chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
            .collect();
        let mut rest = parse_yaml(&cleaned, first_line);
        out.findings.append(&mut rest.findings);
        out.map = rest.map;
        return out;
    }
    if let Some(map) = super::yaml_subset::read(yaml) {
        out.map = Some(map);
        return out;
    }
    match to_json(yaml) {
        Ok(Value::Object(map)) => out.map = Some(map),
        Ok(Value::Null) => out.findings.push(finding(
            code::EMPTY_FRONTMATTER,
            Severity::Warning,
            Some(first_line),
            "frontmatter is empty",
        )),
        Ok(other) => out.findings.push(finding(
            code::FRONTMATTER_NOT_MAPPING,
            Severity::Warning,
            Some(first_line),
            format!(
                "frontmatter is a {} rather than a `key: value` mapping; ignored it",
                kind_of(&other)
            ),
        )),
        Err(err) => recover(yaml, &err, first_line, &mut out),
    }
    out
}

/// Byte offset of the first control character other than `\n` and `\t`.
fn first_control(yaml: &str) -> Option<usize> {
    // Control characters are U+0000-U+001F, U+007F and U+0080-U+009F (`0xC2 0x80..0x9F` in
    // UTF-8): a byte scan rules most frontmatter out without decoding it.
    let suspect = |b: u8| (b < 0x20) & (b != b'\n') & (b != b'\t') | (b == 0x7f) | (b == 0xc2);
    if !scan::any_byte(yaml.as_bytes(), suspect) {
        return None;
    }
    yaml.char_indices()
        .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\t'))
        .map(|(idx, _)| idx)
}

/// The 1-based line of top-level key `key` (its first occurrence) in a frontmatter block whose
/// first line is `first_line`.
pub(crate) fn key_line(yaml: &str, first_line: usize, key: &str) -> Option<usize> {
    scan::split_lines(yaml)
        .position(|line| looks_like_yaml_key(line) && line.split_once(':').is_some_and(|(k, _)| k.trim() == key))
        .map(|idx| first_line + idx)
}

/// YAML that does not parse: retried with colon values quoted, else read line by line.
fn recover(yaml: &str, err: &str, first_line: usize, out: &mut Fields) {
    let line = yaml_error_line(err).map(|l| l + first_line - 1);
    let quoted = quote_colon_values(yaml);
    if quoted != yaml
        && let Ok(Value::Object(map)) = to_json(&quoted)
    {
        out.findings.push(finding(
            code::UNQUOTED_COLON,
            Severity::Warning,
            line,
            "value contains an unquoted `: `; read it as a string — quote the value",
        ));
        out.map = Some(map);
        return;
    }
    out.findings.push(finding(
        code::INVALID_YAML,
        Severity::Warning,
        line,
        format!(
            "frontmatter is not valid YAML ({}); read `key: value` lines as plain text",
            first_line_of(err)
        ),
    ));
    out.map = Some(scan_lines(yaml));
}

/// yaml-rust reports "... at byte N line L column C"; pull out L.
fn yaml_error_line(message: &str) -> Option<usize> {
    let rest = &message[message.find(" line ")? + 6..];
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Put single quotes around top-level plain values that contain `: ` (a frequent mistake).
fn quote_colon_values(yaml: &str) -> String {
    yaml.split('\n')
        .map(|line| {
            if !looks_like_yaml_key(line) {
                return line.to_string();
            }
            let Some((key, value)) = line.split_once(':') else {
                return line.to_string();
            };
            let v = value.trim();
            let plain = !v.is_empty() && !v.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!']);
            if plain && (v.contains(": ") || v.contains(" #") || v.starts_with(['%', '@', '`'])) {
                format!("{key}: '{}'", v.replace('\'', "''"))
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Last resort for broken YAML: top-level `key: value` lines, with indented lines continuing the
/// previous value (a `- item` run becomes a list).
fn scan_lines(yaml: &str) -> Map<String, Value> {
    let mut map = Map::new();
    let mut current: Option<(String, Vec<String>)> = None;
    let flush = |map: &mut Map<String, Value>, current: Option<(String, Vec<String>)>| {
        if let Some((key, parts)) = current {
            let items: Vec<&str> = parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect();
            let value = if items.len() > 1 && items[1..].iter().all(|p| p.starts_with("- ")) && items[0].is_empty() {
                Value::Array(items.iter().map(|p| Value::String(unquote(&p[2..]))).collect())
            } else if !items.is_empty() && items.iter().all(|p| p.starts_with("- ")) {
                Value::Array(items.iter().map(|p| Value::String(unquote(&p[2..]))).collect())
            } else {
                let joined = items
                    .iter()
                    .filter(|p| !matches!(**p, "|" | ">" | "|-" | ">-"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                Value::String(unquote(&joined))
            };
            map.insert(key, value);
        }
    };
    for line in yaml.split('\n') {
        if looks_like_yaml_key(line) {
            flush(&mut map, current.take());
            if let Some((key, value)) = line.split_once(':') {
                current = Some((key.trim().to_string(), vec![value.to_string()]));
            }
        } else if let Some((_, parts)) = current.as_mut() {
            parts.push(line.to_string());
        }
    }
    flush(&mut map, current);
    map
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

#[cfg(test)]
#[path = "frontmatter_tests.rs"]
mod tests;
