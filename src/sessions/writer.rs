//! Appending records to the session file this agent holds: one line per record, written whole
//! with one `write` as it happens (no buffering a whole turn), secrets redacted first. The file is
//! locked (`flock`, exclusive) for as long as the writer lives, so no second agent appends to it.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::SessionError;
use super::id::SessionId;
use super::record::Record;
use crate::support::redact::Redactor;

/// The open, locked session file of this run.
#[derive(Debug)]
pub struct SessionWriter {
    id: SessionId,
    path: PathBuf,
    file: File,
    /// Bytes of whole lines written so far: a failed write is cut back to this.
    len: u64,
    redactor: Redactor,
}

impl SessionWriter {
    /// Wrap `file` (opened for writing, locked, `len` bytes of whole lines long).
    pub(super) fn new(id: SessionId, path: PathBuf, file: File, len: u64, redactor: Redactor) -> Self {
        Self {
            id,
            path,
            file,
            len,
            redactor,
        }
    }

    pub fn id(&self) -> &SessionId {
        &self.id
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write one record as one line. On failure nothing of it stays in the file.
    pub fn append(&mut self, record: &Record) -> Result<(), SessionError> {
        let line = self.line(record)?;
        self.write_lines(&line)
    }

    /// Write several records at once (copying a session into a fork).
    pub fn append_all(&mut self, records: &[Record]) -> Result<(), SessionError> {
        let mut text = String::new();
        for record in records {
            text.push_str(&self.line(record)?);
        }
        self.write_lines(&text)
    }

    /// The JSON line for `record`, secrets redacted. Redaction matches a secret's JSON-escaped
    /// form too, and its marker holds no character JSON escapes, so the line stays valid JSON.
    fn line(&self, record: &Record) -> Result<String, SessionError> {
        let json = serde_json::to_string(record).map_err(|e| SessionError::Io {
            path: self.path.clone(),
            action: "encode a record for",
            source: std::io::Error::other(e),
        })?;
        let mut line = self.redactor.redact(&json).into_owned();
        line.push('\n');
        Ok(line)
    }

    fn write_lines(&mut self, text: &str) -> Result<(), SessionError> {
        match self.file.write_all(text.as_bytes()) {
            Ok(()) => {
                self.len += text.len() as u64;
                Ok(())
            }
            Err(source) => {
                // A full disk can take half a line: cut it off so the file stays whole lines.
                let _ = self.file.set_len(self.len);
                Err(SessionError::Io {
                    path: self.path.clone(),
                    action: "write to",
                    source,
                })
            }
        }
    }
}

/// A run's session log that never fails the run: the first write that fails turns it off and
/// leaves one warning to show ([`Journal::take_warning`]); later records are dropped. Off from the
/// start when sessions are not stored (`AGENT_SESSIONS=0`, `--no-session`, `--replay`) or could
/// not be opened.
#[derive(Debug, Default)]
pub struct Journal {
    writer: Option<SessionWriter>,
    warning: Option<String>,
}

impl Journal {
    /// A journal that stores nothing.
    pub fn off() -> Self {
        Self::default()
    }

    pub fn new(writer: SessionWriter) -> Self {
        Self {
            writer: Some(writer),
            warning: None,
        }
    }

    /// The session being written, while it is.
    pub fn id(&self) -> Option<&SessionId> {
        self.writer.as_ref().map(SessionWriter::id)
    }

    /// Store `record`. The first failure turns storing off and leaves a warning.
    pub fn record(&mut self, record: &Record) {
        let Some(writer) = self.writer.as_mut() else {
            return;
        };
        if let Err(err) = writer.append(record) {
            self.writer = None;
            self.warning = Some(format!(
                "{err}; the rest of this session is not saved (the conversation goes on). Free some space, or set \
                 AGENT_SESSIONS=0 to stop saving sessions"
            ));
        }
    }

    /// The warning of a failed write, once.
    pub fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ChatMessage;
    use std::collections::BTreeMap;

    fn writer_on(file: File, path: &Path, redactor: Redactor) -> SessionWriter {
        let id = SessionId::parse("20261201-112233-k3f9").unwrap();
        SessionWriter::new(id, path.to_path_buf(), file, 0, redactor)
    }

    #[test]
    fn records_are_redacted_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let file = File::create(&path).unwrap();
        let env = BTreeMap::from([("GITHUB_TOKEN".to_string(), "ghp_\"quoted\"secret".to_string())]);
        let mut writer = writer_on(file, &path, Redactor::from_env(&env));
        writer
            .append(&Record::Message(ChatMessage::user("token is ghp_\"quoted\"secret")))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "{\"type\":\"message\",\"role\":\"user\",\"content\":\"token is [REDACTED:GITHUB_TOKEN]\"}\n"
        );
    }

    #[test]
    fn a_failing_disk_is_one_warning_then_silence() {
        // /dev/full fails every write with ENOSPC, as a full disk does.
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let mut journal = Journal::new(writer_on(full, Path::new("/dev/full"), Redactor::NONE));
        journal.record(&Record::Reset);
        let first = journal.take_warning().expect("a warning");
        assert!(first.contains("cannot write to /dev/full"), "{first}");
        assert!(first.contains("AGENT_SESSIONS=0"), "{first}");
        journal.record(&Record::Reset);
        assert_eq!(journal.take_warning(), None);
        assert!(journal.id().is_none());
        let mut off = Journal::off();
        off.record(&Record::Reset);
        assert_eq!(off.take_warning(), None);
    }
}
