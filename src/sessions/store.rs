//! The folder of session files, `$XDG_STATE_HOME/agent/sessions/` (default
//! `~/.local/state/agent/sessions/`, mode 0700, files 0600): creating a session, finding one by id
//! prefix or working directory, opening one to go on with it, and removing one.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rustix::fs::{FlockOperation, flock};

use super::SessionError;
use super::id::{self, SessionId};
use super::load::{self, SessionFile};
use super::record::{FORMAT_VERSION, Header, Record};
use super::writer::SessionWriter;
use crate::support::redact::Redactor;

/// Most bytes of a session file that are read.
const MAX_SESSION_BYTES: u64 = 256 * 1024 * 1024;
/// Most bytes of a header line.
const MAX_HEADER_BYTES: u64 = 64 * 1024;
/// Ambiguous prefixes list at most this many candidates.
const MAX_CANDIDATES: usize = 10;

/// What a new session file's header says besides its id and start time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    pub model: String,
    pub base_url: String,
    /// The wire dialect spoken (see `Header::provider`).
    pub provider: Option<String>,
    pub skill_roots: Vec<String>,
    pub cwd: String,
    pub parent: Option<SessionId>,
    /// A chat, not a one-shot run.
    pub chat: bool,
}

/// A session opened to go on with it.
#[derive(Debug)]
pub struct Opened {
    /// Where this run appends: the session itself, or a fork of it.
    pub(crate) writer: SessionWriter,
    /// What the session held.
    pub loaded: SessionFile,
    /// Set when another agent holds the session, so this run writes to a fork of it instead.
    pub(crate) forked_from: Option<SessionId>,
}

/// The session folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `$XDG_STATE_HOME/agent/sessions` (default `~/.local/state/agent/sessions`); `None` without
    /// a home folder.
    pub(crate) fn default_dir() -> Option<PathBuf> {
        let dirs = directories::ProjectDirs::from("", "", "agent")?;
        let state = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir());
        Some(state.join("sessions"))
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn path_of(&self, id: &SessionId) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    /// Start a new session file holding only its header.
    pub fn create(&self, start: NewSession, redactor: Redactor) -> Result<SessionWriter, SessionError> {
        self.ensure_dir()?;
        let now = SystemTime::now();
        // A clash needs two agents in the same second drawing the same tail: try again.
        let mut attempts = 0;
        let (id, path, file) = loop {
            let id = SessionId::new(now);
            let path = self.path_of(&id);
            let opened = OpenOptions::new().append(true).create_new(true).mode(0o600).open(&path);
            match opened {
                Ok(file) => break (id, path, file),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 16 => attempts += 1,
                Err(source) => return Err(io_error(&path, "create", source)),
            }
        };
        if !lock(&file, &path)? {
            return Err(SessionError::InUse(id.to_string()));
        }
        let header = Header {
            v: FORMAT_VERSION,
            id: id.to_string(),
            agent_version: env!("CARGO_PKG_VERSION").to_string(),
            model: start.model,
            base_url: start.base_url,
            provider: start.provider,
            skill_roots: start.skill_roots,
            cwd: start.cwd,
            started_at: unix_seconds(now),
            parent: start.parent.map(|p| p.to_string()),
            chat: start.chat,
        };
        let mut writer = SessionWriter::new(id, path, file, 0, redactor);
        writer.append(&Record::Session(header))?;
        Ok(writer)
    }

    /// A new session that starts with every record of `from` (a fork: `/fork`, or a session
    /// another agent holds).
    pub(crate) fn fork(
        &self,
        from: &SessionFile,
        mut start: NewSession,
        redactor: Redactor,
    ) -> Result<SessionWriter, SessionError> {
        start.parent = SessionId::parse(&from.header.id);
        let mut writer = self.create(start, redactor)?;
        writer.append_all(&from.records)?;
        Ok(writer)
    }

    /// Open session `id` to append to it; when another agent holds it, a fork of it instead.
    /// A torn last line is cut off first, so new records start on a line of their own.
    pub fn open(&self, id: &SessionId, start: NewSession, redactor: Redactor) -> Result<Opened, SessionError> {
        let path = self.path_of(id);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| not_found_or(id, &path, "open", e))?;
        if !lock(&file, &path)? {
            let loaded = self.load(id)?;
            let writer = self.fork(&loaded, start, redactor)?;
            return Ok(Opened {
                writer,
                loaded,
                forked_from: Some(id.clone()),
            });
        }
        let loaded = read_locked(&file, &path)?;
        if file.metadata().map(|m| m.len()).unwrap_or(0) > loaded.complete_len {
            file.set_len(loaded.complete_len)
                .map_err(|e| io_error(&path, "cut the torn last line of", e))?;
        }
        let writer = SessionWriter::new(id.clone(), path, file, loaded.complete_len, redactor);
        Ok(Opened {
            writer,
            loaded,
            forked_from: None,
        })
    }

    /// Read session `id` (without writing to it).
    pub fn load(&self, id: &SessionId) -> Result<SessionFile, SessionError> {
        let path = self.path_of(id);
        let read =
            crate::support::fs::read_whole(&path, MAX_SESSION_BYTES).map_err(|e| not_found_or(id, &path, "read", e))?;
        load::parse(&read.bytes).map_err(|reason| SessionError::Invalid { path, reason })
    }

    /// Only the header of session `id`: enough to list it or match its working directory.
    pub(crate) fn header(&self, id: &SessionId) -> Result<Header, SessionError> {
        let path = self.path_of(id);
        let file = File::open(&path).map_err(|e| not_found_or(id, &path, "open", e))?;
        let mut line = Vec::new();
        BufReader::new(file.take(MAX_HEADER_BYTES))
            .read_until(b'\n', &mut line)
            .map_err(|e| io_error(&path, "read", e))?;
        if line.last() != Some(&b'\n') {
            line.clear();
        }
        load::parse(&line)
            .map(|l| l.header)
            .map_err(|reason| SessionError::Invalid { path, reason })
    }

    /// Every session id, newest first. No folder yet means no sessions.
    pub(crate) fn ids(&self) -> Result<Vec<SessionId>, SessionError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&self.dir, "list", e)),
        };
        let mut ids: Vec<SessionId> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                SessionId::parse(name.to_str()?.strip_suffix(".jsonl")?)
            })
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        Ok(ids)
    }

    /// The session `prefix` names: the id itself, or the only id that starts with it.
    pub(crate) fn find(&self, prefix: &str) -> Result<SessionId, SessionError> {
        if !id::is_prefix(prefix) {
            return Err(SessionError::NotFound(prefix.to_string()));
        }
        let matching: Vec<SessionId> = self
            .ids()?
            .into_iter()
            .filter(|id| id.as_str().starts_with(prefix))
            .collect();
        match matching.as_slice() {
            [] => Err(SessionError::NotFound(prefix.to_string())),
            [one] => Ok(one.clone()),
            many => match many.iter().find(|id| id.as_str() == prefix) {
                Some(exact) => Ok(exact.clone()),
                None => Err(SessionError::Ambiguous {
                    prefix: prefix.to_string(),
                    candidates: many.iter().take(MAX_CANDIDATES).map(ToString::to_string).collect(),
                    more: many.len().saturating_sub(MAX_CANDIDATES),
                }),
            },
        }
    }

    /// The newest session started in `cwd` that holds an exchange with the model, if any. Ids
    /// order sessions by the second they started; of several started in the same second, the
    /// one written to last. `chat_only`: only a chat's session.
    pub(crate) fn latest_in(&self, cwd: &str, chat_only: bool) -> Result<Option<SessionId>, SessionError> {
        let mut matching = self.ids()?.into_iter().filter(|id| {
            self.header(id).is_ok_and(|h| h.cwd == cwd && (h.chat || !chat_only))
                && self.load(id).is_ok_and(|l| l.records.iter().any(Record::is_exchange))
        });
        let Some(newest) = matching.next() else {
            return Ok(None);
        };
        let second = newest.as_str().get(..id::SECOND_LEN).unwrap_or_default().to_string();
        let modified = |id: &SessionId| {
            std::fs::metadata(self.path_of(id))
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH)
        };
        let same_second = std::iter::once(newest).chain(matching.take_while(|id| id.as_str().starts_with(&second)));
        Ok(same_second.max_by_key(modified))
    }

    /// Delete session `id`; refused while another agent holds it.
    pub(crate) fn remove(&self, id: &SessionId) -> Result<PathBuf, SessionError> {
        let path = self.path_of(id);
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| not_found_or(id, &path, "open", e))?;
        if !lock(&file, &path)? {
            return Err(SessionError::InUse(id.to_string()));
        }
        std::fs::remove_file(&path).map_err(|e| io_error(&path, "remove", e))?;
        Ok(path)
    }

    /// Create the folder (0700) if needed, and make sure it is private.
    fn ensure_dir(&self) -> Result<(), SessionError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|e| io_error(&self.dir, "create the session folder", e))?;
        let private = std::fs::Permissions::from_mode(0o700);
        std::fs::set_permissions(&self.dir, private).map_err(|e| io_error(&self.dir, "make private", e))
    }
}

/// Take the exclusive lock without waiting: `Ok(false)` when another process holds it.
fn lock(file: &File, path: &Path) -> Result<bool, SessionError> {
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(io_error(path, "lock", e.into())),
    }
}

/// The whole of a file this process has open and locked.
fn read_locked(file: &File, path: &Path) -> Result<SessionFile, SessionError> {
    let meta = file.metadata().map_err(|e| io_error(path, "read", e))?;
    if !meta.is_file() {
        let reason = std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file");
        return Err(io_error(path, "read", reason));
    }
    let flags = rustix::fs::fcntl_getfl(file).map_err(|e| io_error(path, "read", e.into()))?;
    rustix::fs::fcntl_setfl(file, flags - rustix::fs::OFlags::NONBLOCK)
        .map_err(|e| io_error(path, "read", e.into()))?;
    let mut reader = file;
    reader.rewind().map_err(|e| io_error(path, "read", e))?;
    let mut bytes = Vec::new();
    reader
        .take(MAX_SESSION_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, "read", e))?;
    load::parse(&bytes).map_err(|reason| SessionError::Invalid {
        path: path.to_path_buf(),
        reason,
    })
}

fn io_error(path: &Path, action: &'static str, source: std::io::Error) -> SessionError {
    SessionError::Io {
        path: path.to_path_buf(),
        action,
        source,
    }
}

fn not_found_or(id: &SessionId, path: &Path, action: &'static str, e: std::io::Error) -> SessionError {
    if e.kind() == std::io::ErrorKind::NotFound {
        SessionError::NotFound(id.to_string())
    } else {
        io_error(path, action, e)
    }
}

/// Seconds since the Unix epoch (0 for a clock before it).
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
