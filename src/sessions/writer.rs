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
/// yields one warning; later records are dropped silently. Off from the start when sessions are
/// disabled (`AGENT_SESSIONS=0`, `--no-session`, `--replay`) or could not be opened.
#[derive(Debug, Default)]
pub struct Journal {
    writer: Option<SessionWriter>,
}

impl Journal {
    /// A journal that stores nothing.
    pub fn off() -> Self {
        Self::default()
    }

    pub fn new(writer: SessionWriter) -> Self {
        Self { writer: Some(writer) }
    }

    /// The session being written, while it is.
    pub fn id(&self) -> Option<&SessionId> {
        self.writer.as_ref().map(SessionWriter::id)
    }

    /// Store `record`; `Some(warning)` the first time that fails.
    pub fn write(&mut self, record: &Record) -> Option<String> {
        let writer = self.writer.as_mut()?;
        let err = writer.append(record).err()?;
        self.writer = None;
        Some(format!(
            "{err}; the rest of this session is not saved (the conversation goes on). Free some space, or set \
             AGENT_SESSIONS=0 to stop saving sessions"
        ))
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
        let first = journal.write(&Record::Reset).expect("a warning");
        assert!(first.contains("cannot write to /dev/full"), "{first}");
        assert!(first.contains("AGENT_SESSIONS=0"), "{first}");
        assert_eq!(journal.write(&Record::Reset), None);
        assert!(journal.id().is_none());
        assert_eq!(Journal::off().write(&Record::Reset), None);
    }
}
