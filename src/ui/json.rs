//! `--json`: one event object per line on stdout, `{"v":1,"type":…}`, secrets redacted.

use std::io::Write;
use std::sync::Mutex;

use crate::agent::{Event, EventSink};
use crate::exec::redact::Redactor;

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

impl EventSink for JsonWriter {
    fn emit(&self, event: Event) {
        let line = event_line(&event);
        let line = self.redactor.redact(&line);
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
    fn lines_carry_version_and_type() {
        let line = event_line(&Event::Message { text: "hi".into() });
        assert_eq!(line, r#"{"v":1,"type":"message","text":"hi"}"#);
    }
}
