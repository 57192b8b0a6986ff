//! The evidence a finding shows: the line around the match, short, with control and invisible
//! characters escaped (the text is hostile by assumption), long encoded runs collapsed (the
//! payload itself is never repeated) and secret-looking values redacted.

use std::sync::LazyLock;

use regex::Regex;

use crate::support::terminal_text::visible;

/// Most characters of evidence.
const MAX_CHARS: usize = 160;

/// Runs of base64 or hex long enough to be a payload or a key.
static BLOB: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/=_-]{48,}").ok());
/// `password=…`, `token: …` and the like.
static SECRET: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(password|passwd|passphrase|secret|token|api[_-]?key)(\s*[:=]\s*|\s+)["']?([^\s"']{4,})"#).ok()
});

/// 1-based line number of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..end]).count() + 1
}

/// The evidence for a match at `start..end` of `text`.
pub(crate) fn around(text: &str, start: usize, end: usize) -> String {
    let line_start = text[..start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| end.min(text.len()) + i);
    let line = text.get(line_start..line_end).unwrap_or("");
    clean(line, start.saturating_sub(line_start))
}

/// `line` made short and safe; `focus` is the byte offset the window keeps in view.
pub(crate) fn clean(line: &str, focus: usize) -> String {
    let mut text = line.trim().to_string();
    if let Some(blob) = BLOB.as_ref() {
        text = blob
            .replace_all(&text, |c: &regex::Captures<'_>| {
                format!("[{} encoded chars]", c[0].len())
            })
            .into_owned();
    }
    if let Some(secret) = SECRET.as_ref() {
        text = secret.replace_all(&text, "$1$2[REDACTED]").into_owned();
    }
    let text = visible(&text).into_owned();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= MAX_CHARS {
        return text;
    }
    // Keep the match in view: start a little before where it was on the raw line.
    let focus_chars = line.get(..focus.min(line.len())).map_or(0, |s| s.chars().count());
    let from = focus_chars.saturating_sub(40).min(chars.len() - MAX_CHARS);
    let mut out: String = chars[from..from + MAX_CHARS].iter().collect();
    if from > 0 {
        out.insert(0, '…');
    }
    if from + MAX_CHARS < chars.len() {
        out.push('…');
    }
    out
}
