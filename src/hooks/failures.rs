//! The last failure of each hook, kept in the user's state folder
//! (`$XDG_STATE_HOME/agent/hook-failures.json`) so `agent hooks list` can say which guard has been
//! failing, in a later run too: a hook that crashes in every session is a guard the user no longer
//! has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// Largest failures file read.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Most hooks remembered (the oldest failures go first).
const MAX_REMEMBERED: usize = 200;

/// A hook's last failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LastFailure {
    /// Seconds since the epoch.
    pub(crate) at: u64,
    pub(crate) message: String,
}

/// The file of last failures, by [`super::Hook::key`].
#[derive(Debug, Clone)]
pub(crate) struct FailureStore {
    file: PathBuf,
}

/// One writer at a time within this process (two hooks may fail in one turn).
static WRITING: Mutex<()> = Mutex::new(());

impl FailureStore {
    /// The user's store, when there is a state folder.
    pub(crate) fn user() -> Option<Self> {
        let dirs = directories::ProjectDirs::from("", "", "agent")?;
        let state = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir());
        Some(Self::at(&state.join("hook-failures.json")))
    }

    /// A store in `file`.
    pub(crate) fn at(file: &Path) -> Self {
        Self {
            file: file.to_path_buf(),
        }
    }

    /// Every hook's last failure.
    pub(crate) fn load(&self) -> BTreeMap<String, LastFailure> {
        crate::support::fs::read_regular(&self.file, MAX_FILE_BYTES)
            .ok()
            .and_then(|read| serde_json::from_slice(&read.bytes).ok())
            .unwrap_or_default()
    }

    /// Remember `message` as the last failure of the hook `key`. A store that cannot be written
    /// only loses the record: the failure itself was said already.
    pub(crate) fn record(&self, key: &str, message: &str) {
        let _one = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = self.load();
        all.insert(
            key.to_string(),
            LastFailure {
                at: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                message: message.to_string(),
            },
        );
        while all.len() > MAX_REMEMBERED {
            let oldest = all.iter().min_by_key(|(_, f)| f.at).map(|(k, _)| k.clone());
            match oldest {
                Some(k) => all.remove(&k),
                None => break,
            };
        }
        if let Ok(text) = serde_json::to_vec_pretty(&all)
            && let Err(e) = crate::support::fs::write_atomically(&self.file, &text)
        {
            tracing::debug!("cannot write {}: {e}", self.file.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_failure_of_each_hook_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = FailureStore::at(&dir.path().join("state/hook-failures.json"));
        assert!(store.load().is_empty());
        store.record("a", "exit 1");
        store.record("b", "timeout");
        store.record("a", "exit 127");
        let all = store.load();
        assert_eq!(all.len(), 2);
        assert_eq!(all["a"].message, "exit 127");
    }
}
