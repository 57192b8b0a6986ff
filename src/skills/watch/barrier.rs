//! Knowing that every event queued before now has been handled. Events reach `notify`'s thread
//! a moment after the edit that caused them, so a skill saved just before Enter could otherwise
//! reach the turn after next. One watcher's events arrive in the order they happened (inotify
//! keeps one queue), so once a file created now in a private folder is seen, every edit made
//! before it has been marked too.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// How long a look waits for its own event before going on without it: far longer than an
/// idle machine takes (tens of microseconds), short enough that a stalled watcher costs little.
const PATIENCE: Duration = Duration::from_millis(250);

/// The private folder whose files mark points in the event queue.
pub(crate) struct Barrier {
    dir: tempfile::TempDir,
    next: u64,
}

/// The newest mark the watcher's thread has seen, shared with it.
#[derive(Default)]
pub(crate) struct Seen {
    upto: Mutex<u64>,
    arrived: Condvar,
}

impl Seen {
    /// On the watcher's thread: whether `path` is one of the barrier's marks in `dir` (noted,
    /// and not a skill's business), or anything else.
    pub(crate) fn note(&self, dir: &Path, path: &Path) -> bool {
        if path.parent() != Some(dir) {
            return false;
        }
        let mark = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(mark) = mark {
            let mut upto = self.upto.lock().unwrap_or_else(PoisonError::into_inner);
            *upto = (*upto).max(mark);
            self.arrived.notify_all();
        }
        true
    }
}

impl Barrier {
    /// A private folder for the marks, where the queue is known to keep order (Linux); `None`
    /// elsewhere or when no folder can be made, and looks then take what has arrived.
    pub(crate) fn new() -> Option<Self> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let dir = tempfile::Builder::new().prefix("agent-watch-").tempdir().ok()?;
        Some(Self { dir, next: 0 })
    }

    /// The folder to watch.
    pub(crate) fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Put a mark in the queue and wait until the watcher's thread has seen it, so every event
    /// queued before has been handled. When the mark cannot be made or does not arrive in time,
    /// a debug line says so and the look goes on: the events come with a later one.
    pub(crate) fn pass(&mut self, seen: &Seen) {
        self.next += 1;
        let mark = self.dir.path().join(self.next.to_string());
        if std::fs::File::create(&mark).is_err() {
            tracing::debug!("no mark made in {}", self.dir.path().display());
            return;
        }
        let _ = std::fs::remove_file(&mark);
        let upto = seen.upto.lock().unwrap_or_else(PoisonError::into_inner);
        let target = self.next;
        let (upto, waited) = seen
            .arrived
            .wait_timeout_while(upto, PATIENCE, |upto| *upto < target)
            .unwrap_or_else(PoisonError::into_inner);
        if waited.timed_out() && *upto < target {
            tracing::debug!("file-system events lag: looked without waiting for them");
        }
    }
}
