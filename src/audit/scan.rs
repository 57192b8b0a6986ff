//! Running the text rules of [`super::rules`] over a file: one keyword automaton pass picks the
//! few lines each rule's pattern is then tried on, so the audit stays fast on large files; plus
//! the host indicators of the data file.

use std::path::Path;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind};
use regex::Regex;

use super::evidence;
use super::indicators::{HostKind, Indicators};
use super::rules::ALL as RULES;
use super::{Class, Finding, Level};

/// The rules compiled once: one keyword automaton over every rule's keys, and each rule's
/// pattern. A pattern that does not compile (a bug a unit test catches) is left out rather than
/// failing the audit.
struct Compiled {
    keys: AhoCorasick,
    /// The rules of each distinct key, by the key's index.
    key_rules: Vec<Vec<usize>>,
    patterns: Vec<Option<Regex>>,
}

static COMPILED: LazyLock<Option<Compiled>> = LazyLock::new(|| {
    let mut words: Vec<&str> = Vec::new();
    let mut key_rules: Vec<Vec<usize>> = Vec::new();
    for (index, rule) in RULES.iter().enumerate() {
        for key in rule.keys {
            match words.iter().position(|w| w == key) {
                Some(at) => key_rules[at].push(index),
                None => {
                    words.push(key);
                    key_rules.push(vec![index]);
                }
            }
        }
    }
    // A DFA: overlapping search (below) runs faster on it than on the default NFA, and a few
    // hundred short keys make a small one.
    let keys = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&words)
        .ok()?;
    let patterns = RULES
        .iter()
        .map(|r| super::flows::re(&format!("(?m){}", r.pattern)))
        .collect();
    Some(Compiled {
        keys,
        key_rules,
        patterns,
    })
});

/// Most matches of one rule reported per file.
const MAX_PER_RULE: usize = 3;
/// Lines at least this long are where keyword-less rules (encoded blobs) look.
const LONG_LINE: usize = 400;
/// Bytes either side of a keyword a pattern is tried on, when its line is longer (minified code):
/// every pattern's reach is bounded well below this.
const REACH: usize = 1024;

/// Run the text rules over `text`, the content of `rel`, plus the host indicators.
pub(crate) fn scan(rel: &Path, original: &str, data: &Indicators, findings: &mut Vec<Finding>) {
    hosts(rel, original, data, findings);
    let Some(compiled) = COMPILED.as_ref() else {
        return;
    };
    // A command split over lines with `\` continuations is one command: the patterns see it
    // joined (same byte offsets), the line numbers come from the original, so the first line of
    // the command is the one reported.
    let joined = join_continuations(original);
    let text = joined.as_str();
    for (rule_index, start, end) in candidates(compiled, text) {
        let (Some(rule), Some(Some(re))) = (RULES.get(rule_index), compiled.patterns.get(rule_index)) else {
            continue;
        };
        let Some(region) = text.get(start..end) else { continue };
        for m in re.find_iter(region) {
            let (at, to) = (start + m.start(), start + m.end());
            let line = line_text(text, at);
            let level = match rule.refine {
                Some(refine) => refine(m.as_str(), line, data, rule.level),
                None => Some(rule.level),
            };
            let Some(level) = level else { continue };
            let line_no = evidence::line_of(original, at);
            let same = |f: &Finding| f.rule == rule.id && f.file == rel;
            let reported = findings.iter().filter(|f| same(f)).count();
            if reported >= MAX_PER_RULE {
                break;
            }
            if findings.iter().any(|f| same(f) && f.line == line_no) {
                continue;
            }
            findings.push(Finding {
                rule: rule.id.to_string(),
                class: rule.class,
                severity: level,
                file: rel.to_path_buf(),
                line: line_no,
                evidence: evidence::around(text, at, to),
                why: rule.why.to_string(),
                advice: rule.advice.to_string(),
            });
        }
    }
}

/// `text` with every backslash-newline (`\\\n`, `\\\r\n`) replaced by as many spaces, so offsets
/// and lengths stay those of the original.
pub(super) fn join_continuations(text: &str) -> String {
    text.replace("\\\r\n", "   ").replace("\\\n", "  ")
}

/// (rule, region start, region end) to try, in rule order then text order, each once: the line
/// of every keyword hit (or a window around it in a very long line), and long lines for rules
/// without keywords.
fn candidates(compiled: &Compiled, text: &str) -> Vec<(usize, usize, usize)> {
    let mut found = std::collections::BTreeSet::new();
    // Overlapping, so a short key inside a longer one (`nc` in `launchagents`) hides neither.
    for m in compiled.keys.find_overlapping_iter(text) {
        let Some(rules) = compiled.key_rules.get(m.pattern().as_usize()) else {
            continue;
        };
        let (start, end) = region(text, m.start());
        for rule in rules {
            found.insert((*rule, start, end));
        }
    }
    let blob_rules: Vec<usize> = RULES
        .iter()
        .enumerate()
        .filter(|(_, r)| r.keys.is_empty())
        .map(|(i, _)| i)
        .collect();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.len() >= LONG_LINE {
            for rule in &blob_rules {
                found.insert((*rule, offset, offset + line.len()));
            }
        }
        offset += line.len();
    }
    found.into_iter().collect()
}

/// The line around byte `at`, cut to [`REACH`] bytes either side (on character boundaries).
fn region(text: &str, at: usize) -> (usize, usize) {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let mut start = line_start.max(at.saturating_sub(REACH));
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut end = line_end.min(at + REACH);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (start, end)
}

/// The line of `text` that holds byte `offset`.
fn line_text(text: &str, offset: usize) -> &str {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    &text[start..end]
}

/// Campaign hosts, paste sites and exfiltration endpoints named anywhere in the text.
fn hosts(rel: &Path, text: &str, data: &Indicators, findings: &mut Vec<Finding>) {
    let mut seen = std::collections::HashSet::new();
    for hit in data.hosts_in(text) {
        let (rule, class, level, why, advice) = match hit.kind {
            HostKind::Campaign => (
                "ioc-host",
                Class::Indicator,
                Level::Critical,
                "names an address or host of a known malicious campaign",
                "do not install the skill",
            ),
            HostKind::Paste => (
                "paste-host",
                Class::Payload,
                Level::High,
                "points at a paste site or file drop, where lures keep their real payload",
                "do not fetch or run anything from there",
            ),
            HostKind::Exfil => (
                "exfil-endpoint",
                Class::Exfiltration,
                Level::High,
                "names a webhook catcher, tunnel or bot API: a place data is sent to",
                "make sure nothing of yours is sent there; do not install unless you know why",
            ),
            HostKind::Installer => continue,
        };
        let line = evidence::line_of(text, hit.start);
        if !seen.insert((rule, line)) {
            continue;
        }
        findings.push(Finding {
            rule: rule.to_string(),
            class,
            severity: level,
            file: rel.to_path_buf(),
            line,
            evidence: evidence::around(text, hit.start, hit.start + hit.entry.len()),
            why: why.to_string(),
            advice: advice.to_string(),
        });
    }
}

/// How many text rules compiled (a unit test holds this to all of them).
#[cfg(test)]
pub(crate) fn compiled_count() -> usize {
    COMPILED.as_ref().map_or(0, |c| c.patterns.iter().flatten().count())
}
