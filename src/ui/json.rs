//! `--json`: one event object per line on stdout, `{"v":1,"type":…}`, secrets redacted.
//! JSON escapes C0 controls itself; the C1 controls (an 8-bit CSI or OSC) and invisible formatting
//! characters it would leave raw are escaped here too, so a line shown on a terminal is inert.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::Mutex;

use crate::agent::{Event, EventSink};
use crate::support::redact::Redactor;

/// Writes each event as one JSON line.
pub struct JsonWriter {
    redactor: Redactor,
    lock: Mutex<()>,
}

impl JsonWriter {
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            lock: Mutex::new(()),
        }
    }
}

/// The JSON line for an event, without redaction.
pub fn event_line(event: &Event) -> String {
    // Event serialises to an object beginning with `{"type":`; put the version first.
    match serde_json::to_string(event) {
        Ok(body) if body.starts_with('{') => format!("{{\"v\":1,{}", &body[1..]),
        Ok(body) => body,
        Err(e) => format!(
            "{{\"v\":1,\"type\":\"error\",\"message\":{:?},\"code\":1}}",
            e.to_string()
        ),
    }
}

/// A JSON text with every C1 control and invisible formatting character written as `\uXXXX`
/// (they can only occur inside strings, where that escape means the same character).
pub fn escape_invisible(json: &str) -> Cow<'_, str> {
    let needs = crate::support::terminal_text::is_hidden;
    if !json.chars().any(needs) {
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

impl EventSink for JsonWriter {
    fn emit(&self, event: Event) {
        let line = event_line(&event);
        let line = self.redactor.redact(&line);
        let line = escape_invisible(&line);
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn lines_carry_version_and_type() {
        let line = event_line(&Event::Message { text: "hi".into() });
        assert_eq!(line, r#"{"v":1,"type":"message","text":"hi"}"#);
    }
}
