//! Text a person does not see but a model reads: zero-width and bidirectional control characters
//! (which also make a command look like another), and instructions inside HTML comments, which
//! a rendered SKILL.md hides and the model gets in full.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Class, Finding, Level, evidence, walk};

/// Words that make an HTML comment an instruction rather than an author's note.
static ORDERS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:ignore|disregard|assistant|the agent|the model|ai agent|you must|system prompt|do not (?:tell|mention|show|reveal)|secretly|silently)\b",
    )
    .ok()
});

/// Report invisible characters and commented instructions in `text`, the content of `rel`.
pub(crate) fn scan(rel: &Path, text: &str, findings: &mut Vec<Finding>) {
    invisible(rel, text, findings);
    if walk::is_prose(rel) {
        comments(rel, text, findings);
    }
}

/// Zero-width and bidi characters; a byte-order mark at the very start is only an encoding mark.
fn invisible(rel: &Path, text: &str, findings: &mut Vec<Finding>) {
    let mut lines_seen = 0;
    let mut last_line = 0;
    // Every character looked for is encoded starting with 0xE2 or 0xEF: look only there.
    for offset in memchr::memchr2_iter(0xE2, 0xEF, text.as_bytes()) {
        let Some(c) = text.get(offset..).and_then(|rest| rest.chars().next()) else {
            continue;
        };
        if !is_sneaky(c) || (offset == 0 && c == '\u{FEFF}') {
            continue;
        }
        let line = evidence::line_of(text, offset);
        if line == last_line {
            continue;
        }
        last_line = line;
        let bidi = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
        findings.push(Finding {
            rule: if bidi { "bidi-control" } else { "zero-width" }.to_string(),
            class: Class::Hidden,
            severity: Level::High,
            file: rel.to_path_buf(),
            line,
            evidence: evidence::around(text, offset, offset + c.len_utf8()),
            why: if bidi {
                "a bidirectional control character makes the text display in another order than it is read"
            } else {
                "a zero-width character hides text from a person while the model reads it"
            }
            .to_string(),
            advice: "look at the file with the characters shown (`cat -A`); do not install unless they are harmless"
                .to_string(),
        });
        lines_seen += 1;
        if lines_seen >= 3 {
            return;
        }
    }
}

/// Zero-width spaces, word joiners, invisible operators, the BOM inside text, and bidi embeddings,
/// overrides and isolates. The joiners and direction marks (U+200C–U+200F) are left alone:
/// emoji sequences and right-to-left text need them, and they cannot hide a word.
fn is_sneaky(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// HTML comments (`<!-- … -->`) that read like orders.
fn comments(rel: &Path, text: &str, findings: &mut Vec<Finding>) {
    let Some(orders) = ORDERS.as_ref() else { return };
    let mut from = 0;
    let mut reported = 0;
    while let Some(open) = text[from..].find("<!--").map(|i| from + i) {
        let close = text[open..].find("-->").map_or(text.len(), |i| open + i + 3);
        let body = &text[open..close];
        if let Some(m) = orders.find(body) {
            let at = open + m.start();
            findings.push(Finding {
                rule: "hidden-comment-instructions".to_string(),
                class: Class::Hidden,
                severity: Level::High,
                file: rel.to_path_buf(),
                line: evidence::line_of(text, at),
                evidence: evidence::around(text, at, open + m.end()),
                why: "an HTML comment is invisible when the file is shown, but the model reads it as instructions"
                    .to_string(),
                advice: "read the comment; do not install unless it is a harmless note".to_string(),
            });
            reported += 1;
            if reported >= 3 {
                return;
            }
        }
        from = close;
    }
}
