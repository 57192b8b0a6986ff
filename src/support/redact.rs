//! Secret redaction (docs/design.md#secrets): the one place secret values are replaced before text
//! leaves the agent.
//!
//! A secret is matched in every form it is likely to leave in: as written, JSON-escaped, and
//! base64-encoded (standard and URL-safe alphabets, padded or not, and inside a longer base64 blob
//! at each of the three byte alignments). Streamed text is redacted with `StreamRedactor`, which
//! holds back a tail that could be the start of a secret until the next piece shows it is not.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

const SECRET_WORDS: [&str; 5] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"];
const MIN_SECRET_LEN: usize = 8;

/// Replaces the values of secret-looking environment variables with `[REDACTED:NAME]`.
/// Cheap to clone: the matcher is shared.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    inner: Option<Arc<Matcher>>,
}

#[derive(Debug)]
struct Matcher {
    automaton: Option<AhoCorasick>,
    /// Every form of every secret, in pattern-id order.
    patterns: Vec<String>,
    /// The replacement for each pattern: `[REDACTED:NAME]`.
    markers: Vec<Arc<str>>,
    /// Bytes of the longest pattern.
    longest: usize,
}

impl Matcher {
    /// Non-overlapping occurrences, leftmost first and longest at each position:
    /// (start, end, pattern index).
    fn matches(&self, text: &str) -> Vec<(usize, usize, usize)> {
        if let Some(automaton) = &self.automaton {
            return automaton
                .find_iter(text)
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
        }
        let mut found = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let best = self
                .patterns
                .iter()
                .enumerate()
                .filter_map(|(i, p)| text[at..].find(p.as_str()).map(|pos| (at + pos, i, p.len())))
                .min_by_key(|(pos, _, len)| (*pos, std::cmp::Reverse(*len)));
            let Some((pos, i, len)) = best else { break };
            found.push((pos, pos + len, i));
            at = pos + len;
        }
        found
    }
}

/// Whether a variable's name marks its value as secret.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
}

/// Every form of `value` that redaction looks for.
fn forms(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    // serde_json escapes `"`, `\` and controls; a JSON line carries the escaped form.
    if let Ok(quoted) = serde_json::to_string(value) {
        out.push(quoted[1..quoted.len() - 1].to_string());
    }
    let bytes = value.as_bytes();
    for engine in [&STANDARD, &URL_SAFE, &STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        out.push(engine.encode(bytes));
    }
    for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        out.extend((0..3).filter_map(|prefix| base64_middle(engine, bytes, prefix)));
    }
    out.retain(|f| f.len() >= MIN_SECRET_LEN);
    out
}

/// The characters of the base64 encoding of `bytes` that stay the same whatever `prefix` bytes come
/// before them and whatever comes after: what a secret looks like inside a longer base64 blob.
fn base64_middle(engine: &base64::engine::GeneralPurpose, bytes: &[u8], prefix: usize) -> Option<String> {
    let mut input = vec![0u8; prefix];
    input.extend_from_slice(bytes);
    let encoded = engine.encode(&input);
    // Character i carries bits [6i, 6i + 6); the secret's bits are [8·prefix, 8·(prefix + len)).
    let first = (8 * prefix).div_ceil(6);
    let end = (8 * (prefix + bytes.len())) / 6;
    encoded.get(first..end).map(str::to_string)
}

impl Redactor {
    /// A redactor with no secrets: text passes unchanged.
    pub const NONE: Redactor = Redactor { inner: None };

    /// Collect every secret from an environment.
    pub(crate) fn from_env(vars: &BTreeMap<String, String>) -> Self {
        let mut secrets: Vec<(&str, &str)> = vars
            .iter()
            .filter(|(name, value)| is_secret_name(name) && value.chars().count() >= MIN_SECRET_LEN)
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        if secrets.is_empty() {
            return Self::default();
        }
        // One name per value: the first in name order, so the marker is stable.
        secrets.sort_by(|a, b| a.1.cmp(b.1).then_with(|| a.0.cmp(b.0)));
        secrets.dedup_by(|a, b| a.1 == b.1);
        let mut patterns = Vec::new();
        let mut markers = Vec::new();
        for (name, value) in secrets {
            let marker: Arc<str> = Arc::from(format!("[REDACTED:{name}]"));
            for form in forms(value) {
                if !patterns.contains(&form) {
                    patterns.push(form);
                    markers.push(marker.clone());
                }
            }
        }
        let longest = patterns.iter().map(String::len).max().unwrap_or(0);
        // Building fails only past the automaton's size limits (megabytes of secrets); then the
        // slower literal search below takes over, so nothing is ever left unredacted.
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .map_err(|e| tracing::warn!("secret matcher falls back to plain search: {e}"))
            .ok();
        Self {
            inner: Some(Arc::new(Matcher {
                automaton,
                patterns,
                markers,
                longest,
            })),
        }
    }

    /// The text with every secret form replaced.
    pub(crate) fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(m) = &self.inner else {
            return Cow::Borrowed(text);
        };
        let found = m.matches(text);
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end, pattern) in found {
            out.push_str(&text[last..start]);
            out.push_str(&m.markers[pattern]);
            last = end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// Bytes of the longest form of any secret (0 without secrets): how far past a cut a capture
    /// must read so that a secret straddling the cut is still seen whole.
    pub(crate) fn longest(&self) -> usize {
        self.inner.as_ref().map_or(0, |m| m.longest)
    }

    /// Whether there is anything to redact at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.is_none()
    }

    /// Where in `text` a secret may be starting without being complete yet: the first position
    /// whose suffix is a proper prefix of a secret form, or which lies inside a whole form that a
    /// longer one might still extend.
    fn hold_from(&self, text: &str) -> usize {
        let Some(m) = &self.inner else {
            return text.len();
        };
        let window = text.len().saturating_sub(m.longest.saturating_sub(1));
        let mut hold = text.len();
        for (i, _) in text.char_indices().filter(|(i, _)| *i >= window) {
            let rest = &text[i..];
            if m.patterns.iter().any(|p| p.len() > rest.len() && p.starts_with(rest)) {
                hold = i;
                break;
            }
        }
        // Never split a complete occurrence between what is emitted and what is held.
        for (start, end, _) in m.matches(text) {
            if start < hold && end > hold {
                hold = start;
            }
        }
        hold
    }

    /// Redact `text` and cut it to at most `keep` bytes, keeping its start or its end (`end`). A cut
    /// never splits a `[REDACTED:NAME]` marker: the marker is kept whole instead.
    pub(crate) fn redact_and_cut(&self, text: &str, keep: usize, end: End) -> String {
        let clean = self.redact(text);
        if clean.len() <= keep {
            return clean.into_owned();
        }
        let markers = self.marker_spans(&clean);
        if end == End::Last {
            let mut cut = floor_char(&clean, clean.len() - keep);
            if let Some((start, _)) = markers.iter().find(|(s, e)| *s < cut && *e > cut) {
                cut = *start;
            }
            clean[cut..].to_string()
        } else {
            let mut cut = floor_char(&clean, keep);
            if let Some((_, end)) = markers.iter().find(|(s, e)| *s < cut && *e > cut) {
                cut = *end;
            }
            clean[..cut].to_string()
        }
    }

    /// Byte spans of the markers in redacted text.
    fn marker_spans(&self, text: &str) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        let mut from = 0;
        while let Some(pos) = text[from..].find("[REDACTED:") {
            let start = from + pos;
            let end = text[start..].find(']').map_or(text.len(), |e| start + e + 1);
            spans.push((start, end));
            from = end;
        }
        spans
    }
}

/// Which end of a text [`Redactor::redact_and_cut`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// The first bytes (a command's output head).
    First,
    /// The last bytes (its tail).
    Last,
}

/// The largest char boundary at or below `at`.
fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Safe text shown before a held tail once it is this long (else it waits with the tail).
const READY_BYTES: usize = 32;

/// Redacts text that arrives in pieces (a streamed answer): a secret split across two pieces is
/// still caught, because a tail that could begin one is held back until it is decided.
#[derive(Debug)]
pub(crate) struct StreamRedactor {
    redactor: Redactor,
    held: String,
}

impl StreamRedactor {
    pub(crate) fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            held: String::new(),
        }
    }

    /// Take the next piece; returns what may be shown now (possibly empty). Text that is safe
    /// but sits before a held tail waits with it until it is `READY_BYTES` long, so an answer
    /// that arrives in one piece is still shown as one piece.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        if self.redactor.is_empty() {
            return piece.to_string();
        }
        self.held.push_str(piece);
        let hold = self.redactor.hold_from(&self.held);
        if hold < self.held.len() && hold < READY_BYTES {
            return String::new();
        }
        let rest = self.held.split_off(hold);
        let ready = std::mem::replace(&mut self.held, rest);
        self.redactor.redact(&ready).into_owned()
    }

    /// The end of the stream: whatever was held, redacted.
    pub(crate) fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        self.redactor.redact(&held).into_owned()
    }
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
