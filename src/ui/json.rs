//! `--json`: one JSON object per line on stdout, `{"v":1,…}`, secrets redacted: a turn's events
//! and chat replies (`"type"` says which), and each subcommand's document (docs/events.md).
//! JSON escapes C0 controls itself; the C1 controls (an 8-bit CSI or OSC) and invisible formatting
//! characters it would leave raw are escaped here too, so a line shown on a terminal is inert.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::Mutex;

use serde::Serialize;

use crate::output::report::{SkillList, SkillSummary};
use crate::output::{Event, EventSink, Output, Report};
use crate::support::redact::Redactor;

/// Writes each event and report as JSON lines.
pub(crate) struct JsonWriter {
    redactor: Redactor,
    /// The command's stdout is one JSON document (a listing): warnings go to stderr as text.
    document: bool,
    lock: Mutex<()>,
}

impl JsonWriter {
    /// `document`: stdout holds the command's one document, so warnings go to stderr instead.
    pub(crate) fn new(redactor: Redactor, document: bool) -> Self {
        Self {
            redactor,
            document,
            lock: Mutex::new(()),
        }
    }

    /// Write lines on stdout, redacted and escaped, together (events of other threads wait).
    fn write_lines(&self, lines: &[String]) {
        let lines: Vec<&[String]> = lines.iter().map(std::slice::from_ref).collect();
        self.write_parted(&lines);
    }

    /// Write each line, made of parts redacted and escaped one by one, then a newline; all
    /// together, under the lock.
    fn write_parted(&self, lines: &[&[String]]) {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = std::io::stdout().lock();
        for parts in lines {
            for part in *parts {
                let part = self.redactor.redact(part);
                // Written as bytes: a `skills list` line can be megabytes, and formatting it
                // would copy it once more.
                let _ = out.write_all(escape_invisible(&part).as_bytes());
            }
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
    }

    /// A remark for a person, on stderr: never mixed into the JSON on stdout.
    fn remark(&self, prefix: &str, text: &str) {
        let text = crate::support::terminal_text::for_terminal(&self.redactor.redact(text)).into_owned();
        let _ = writeln!(std::io::stderr().lock(), "{prefix}: {text}");
    }
}

/// A JSON object with `"v":1` put first; `value` must serialise to an object.
pub(crate) fn versioned(value: &impl Serialize) -> String {
    // `{"v":1` is written first and the object's `{` becomes the `,` after it: one buffer, no
    // copy of a document that can be megabytes (`skills list` of thousands of skills).
    const PREFIX: &[u8] = b"{\"v\":1";
    let mut buf = PREFIX.to_vec();
    match serde_json::to_writer(&mut buf, value) {
        Ok(()) => {
            match buf.get(PREFIX.len()..) {
                // An empty object: `{"v":1}`.
                Some(b"{}") => {
                    buf.truncate(PREFIX.len());
                    buf.push(b'}');
                }
                Some([b'{', ..]) => buf[PREFIX.len()] = b',',
                // Not an object: the value as it is.
                _ => drop(buf.drain(..PREFIX.len())),
            }
            // serde_json writes UTF-8 only; the lossy branch is never taken.
            String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
        Err(e) => format!(
            "{{\"v\":1,\"type\":\"error\",\"message\":{:?},\"code\":1}}",
            e.to_string()
        ),
    }
}

/// The JSON line for an event, without redaction.
pub(crate) fn event_line(event: &Event) -> String {
    versioned(event)
}

/// The JSON lines of a report, without redaction: one document, one per trusted folder, or none
/// (progress that the final document repeats).
pub(crate) fn report_lines(report: &Report) -> Vec<String> {
    match report {
        Report::SkillList(r) => vec![skill_list_parts(r).concat()],
        Report::SkillShow(r) => vec![versioned(r)],
        Report::SkillSearch(r) => vec![versioned(r)],
        Report::SkillCheck(r) => vec![versioned(r)],
        Report::SkillAudit(r) => vec![versioned(r)],
        Report::SkillsVerified(r) => vec![versioned(r)],
        Report::KeyAdded(r) => vec![versioned(r)],
        Report::SkillNew(r) => vec![versioned(r)],
        Report::Eval(r) => vec![versioned(r)],
        Report::EvalDraft(r) => vec![versioned(r)],
        Report::Tune(r) => vec![versioned(r)],
        Report::Trusted(r) => r.folders.iter().map(versioned).collect(),
        Report::SkillsAdded(r) => vec![versioned(r)],
        Report::SkillsOutdated(r) => vec![versioned(r)],
        Report::SkillsUpdated(r) => vec![versioned(r)],
        Report::SkillRemoved(r) => vec![versioned(r)],
        Report::SkillTrusted(r) => vec![versioned(r)],
        Report::ManPages(r) => vec![versioned(r)],
        Report::SandboxStatus(r) => vec![versioned(r)],
        Report::Chat(r) => vec![versioned(r)],
        Report::SessionList(r) => vec![versioned(r)],
        Report::SessionExported(r) => vec![versioned(r)],
        Report::SessionRemoved(r) => vec![versioned(r)],
        Report::McpServers(r) => vec![versioned(r)],
        Report::Hooks(r) => vec![versioned(r)],
        Report::McpTools(r) => vec![versioned(r)],
        Report::McpChanged(r) => vec![versioned(r)],
        Report::EvalCase(_) | Report::Text(_) | Report::Note(_) => Vec::new(),
    }
}

/// Listings at least this long are written by two threads, each taking half the skills.
const SPLIT_LISTING_AT: usize = 512;

/// The document of a `skills list` ([`versioned`]) in the parts it is made of, written one after
/// the other: the skills of a long listing (thousands of skills make megabytes of JSON) are
/// written by two threads at once, and joining the parts would copy them once more. Parts end
/// between two skills' objects, never inside a string, so each can be redacted and escaped on its
/// own. The text is the same.
fn skill_list_parts(list: &SkillList) -> Vec<String> {
    if list.skills.len() < SPLIT_LISTING_AT {
        return vec![versioned(list)];
    }
    let (first, second) = list.skills.split_at(list.skills.len() / 2);
    const HEAD: &str = "{\"v\":1,\"skills\":[";
    // The skills of a part, comma-separated, after `head`, without the brackets of an array.
    let write = |part: &[SkillSummary], head: &str| -> Option<String> {
        let mut buf = head.as_bytes().to_vec();
        for (i, skill) in part.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            serde_json::to_writer(&mut buf, skill).ok()?;
        }
        String::from_utf8(buf).ok()
    };
    let (first, second) = std::thread::scope(|scope| {
        let other = scope.spawn(|| write(second, ","));
        // A panic there is a bug; the listing is then written on this thread alone.
        (write(first, HEAD), other.join().ok().flatten())
    });
    // The document without its skills, `{"v":1,"skills":[],…}`, takes them in at its `[]`.
    let empty = SkillList {
        skills: Vec::new(),
        problems: list.problems.clone(),
        findings: list.findings.clone(),
        catalog_budget: list.catalog_budget,
    };
    let shell = versioned(&empty);
    match (
        first,
        second,
        shell.strip_prefix(HEAD).and_then(|rest| rest.strip_prefix(']')),
    ) {
        (Some(first), Some(second), Some(rest)) => vec![first, second, format!("]{rest}")],
        _ => vec![versioned(list)],
    }
}

/// A JSON text with every C1 control and invisible formatting character written as `\uXXXX`
/// (they can only occur inside strings, where that escape means the same character).
pub(crate) fn escape_invisible(json: &str) -> Cow<'_, str> {
    let needs = crate::support::terminal_text::is_hidden;
    if !has_hidden(json) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if needs(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `json` holds a character that [`crate::support::terminal_text::is_hidden`] flags. Only a
/// byte outside printable ASCII can start one, so only those characters are decoded: a `skills
/// list` of thousands of skills is megabytes, nearly all of it ASCII.
fn has_hidden(json: &str) -> bool {
    let bytes = json.as_bytes();
    let mut at = 0;
    while let Some(skip) = bytes[at..].iter().position(|b| !(0x20..0x7f).contains(b)) {
        // Everything before `at` was ASCII or whole characters, so `at + skip` starts one.
        let Some(c) = json.get(at + skip..).and_then(|rest| rest.chars().next()) else {
            return false;
        };
        if crate::support::terminal_text::is_hidden(c) {
            return true;
        }
        at += skip + c.len_utf8();
    }
    false
}

impl EventSink for JsonWriter {
    fn emit(&self, event: Event) {
        match event {
            Event::Warning { message } if self.document => self.remark("warning", &message),
            // A live view's pieces are for a person; the JSON format stays as documented.
            Event::CommandOutput { .. } => {}
            event => self.write_lines(&[event_line(&event)]),
        }
    }
}

impl Output for JsonWriter {
    fn report(&self, report: Report) {
        match &report {
            Report::Text(text) => {
                let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            Report::Note(text) => self.remark("note", text),
            Report::SkillList(list) => self.write_parted(&[&skill_list_parts(list)]),
            _ => self.write_lines(&report_lines(&report)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_found_among_plain_and_other_text() {
        let hidden = crate::support::terminal_text::is_hidden;
        for text in [
            "",
            "plain",
            "é ü — ok",
            "a\u{202e}b",
            "é\u{9b}",
            "x\u{7f}",
            "\u{feff}",
            "日本語\u{200b}",
        ] {
            assert_eq!(has_hidden(text), text.chars().any(hidden), "{text:?}");
        }
    }

    #[test]
    fn a_long_listing_written_in_halves_is_the_same_document() {
        let summary = |i: usize| SkillSummary {
            name: format!("skill-{i}"),
            description: format!("does \"thing\" {i} — é\u{202e}"),
            dir: format!("/s/skill-{i}").into(),
            root: "/s".into(),
            root_kind: crate::skills::roots::RootKind::Flag,
            tool: crate::skills::roots::Tool::Agent,
            dialect: crate::skills::Dialect::AgentSkills,
            entry: i.is_multiple_of(3).then(|| "run.sh".into()),
            allowed_tools: vec!["Bash".into()],
            warnings: i % 2,
            codes: Vec::new(),
            trusted: !i.is_multiple_of(5),
            blocked: None,
            catalog_bytes: i,
            hidden_by_paths: false,
            accepted_findings: None,
            signature: None,
        };
        for n in [0, 3, SPLIT_LISTING_AT, SPLIT_LISTING_AT + 1, 1500] {
            let list = SkillList {
                skills: (0..n).map(summary).collect(),
                problems: vec!["a \"problem\"".into()],
                findings: Vec::new(),
                catalog_budget: 8192,
            };
            assert_eq!(skill_list_parts(&list).concat(), versioned(&list), "{n} skills");
        }
    }

    #[test]
    fn invisible_characters_are_escaped_and_the_line_stays_json() {
        let line = event_line(&Event::Message {
            text: "a\x1b]0;t\x07 \u{9b}2J \u{202e}x\n".into(),
        });
        let safe = escape_invisible(&line);
        assert!(!safe.chars().any(|c| c.is_control() || c == '\u{202e}'), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["text"], "a\x1b]0;t\x07 \u{9b}2J \u{202e}x\n");
    }

    #[test]
    fn versioned_puts_v_first_in_objects_only() {
        assert_eq!(versioned(&serde_json::json!({})), r#"{"v":1}"#);
        assert_eq!(versioned(&serde_json::json!({"a": [1, "x"]})), r#"{"v":1,"a":[1,"x"]}"#);
        assert_eq!(versioned(&serde_json::json!([1])), "[1]");
        assert_eq!(versioned(&"{}"), r#""{}""#);
    }

    #[test]
    fn lines_carry_version_and_type() {
        let line = event_line(&Event::Message { text: "hi".into() });
        assert_eq!(line, r#"{"v":1,"type":"message","text":"hi"}"#);
    }
}
