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
    /// Whether the file holds an exchange with the model (a counted call): a session without one
    /// (the key was missing, the server down) is not worth keeping or continuing.
    exchanged: bool,
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
            // A file that already held lines is a stored session opened to go on with.
            exchanged: len > 0,
        }
    }

    /// Whether the session holds an exchange with the model.
    pub(crate) fn has_exchange(&self) -> bool {
        self.exchanged
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
        self.write_lines(&line)?;
        self.exchanged |= record.is_exchange();
        Ok(())
    }

    /// Write several records at once (copying a session into a fork).
    pub(crate) fn append_all(&mut self, records: &[Record]) -> Result<(), SessionError> {
        let mut text = String::new();
        for record in records {
            text.push_str(&self.line(record)?);
        }
        self.write_lines(&text)?;
        self.exchanged |= records.iter().any(Record::is_exchange);
        Ok(())
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
/// not be opened. A new session that ends without any exchange with the model (no key, the
/// server down, only slash commands) is removed when its journal is dropped: `-c` must never
/// take up a run that never reached the model.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    writer: Option<SessionWriter>,
    warning: Option<String>,
}

impl Journal {
    /// A journal that stores nothing.
    pub(crate) fn off() -> Self {
        Self::default()
    }

    pub(crate) fn new(writer: SessionWriter) -> Self {
        Self {
            writer: Some(writer),
            warning: None,
        }
    }

    /// The session being written, while it is.
    pub(crate) fn id(&self) -> Option<&SessionId> {
        self.writer.as_ref().map(SessionWriter::id)
    }

    /// The file being written, while it is (hooks get it as `transcript_path`).
    pub(crate) fn path(&self) -> Option<&Path> {
        self.writer.as_ref().map(SessionWriter::path)
    }

    /// Store `record`. The first failure turns storing off and leaves a warning.
    pub(crate) fn record(&mut self, record: &Record) {
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
    pub(crate) fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        if let Some(writer) = self.writer.take().filter(|w| !w.has_exchange()) {
            // Removed while still locked, so no other agent opens it in between.
            if let Err(e) = std::fs::remove_file(writer.path()) {
                tracing::debug!("empty session {} not removed: {e}", writer.path().display());
            }
        }
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
    fn a_new_session_without_an_exchange_is_removed_with_its_journal() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, records: &[Record]| {
            let path = dir.path().join(name);
            let mut journal = Journal::new(writer_on(File::create(&path).unwrap(), &path, Redactor::NONE));
            for r in records {
                journal.record(r);
            }
            drop(journal);
            path.exists()
        };
        let usage = Record::Usage(crate::sessions::CallUsage {
            prompt_tokens: 10,
            completion_tokens: 2,
            estimated: false,
            ..Default::default()
        });
        assert!(!write("none.jsonl", &[Record::Message(ChatMessage::user("hi"))]));
        assert!(write("one.jsonl", &[Record::Message(ChatMessage::user("hi")), usage]));
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
