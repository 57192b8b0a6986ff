//! The remembered decisions: one record per folder in `$XDG_STATE_HOME/agent/trust.json`
//! (default `~/.local/state/agent/trust.json`), plus the folders trusted before folder trust
//! existed (`~/.config/agent/trusted-folders`, read only).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::support::fs::read_regular;

/// Why a trust decision could not be saved (it still holds for the session).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SaveError {
    #[error("there is no state folder to remember it in (is HOME set?)")]
    NoStateFolder,
    #[error("cannot encode the trust store: {0}")]
    Encode(#[source] serde_json::Error),
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Most bytes read of the store file.
const MAX_STORE_BYTES: u64 = 16 * 1024 * 1024;

/// What the user decided about one folder, and the content the decision was about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// `true`: trusted; `false`: the user said no.
    pub(crate) trusted: bool,
    /// The `.env` as it was then (`None`: there was none, or the record predates it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dotenv: Option<DotenvRecord>,
    /// The `.env` files of subfolders the decision was made in (a repository's record covers
    /// every folder below it), by path relative to the folder (`sub/dir`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) dotenvs: BTreeMap<String, DotenvRecord>,
    /// Project skills then, by key relative to the folder (`skills/weather`), with content hashes.
    #[serde(default)]
    pub(crate) skills: BTreeMap<String, String>,
    /// Seconds since the epoch.
    #[serde(default)]
    pub(crate) decided_at: u64,
}

impl TrustRecord {
    /// The `.env` of the folder `key` below the record's folder (`""`: the folder itself).
    pub(crate) fn dotenv_at(&self, key: &str) -> Option<&DotenvRecord> {
        if key.is_empty() {
            self.dotenv.as_ref()
        } else {
            self.dotenvs.get(key)
        }
    }

    /// Set (or clear) the `.env` of the folder `key`.
    pub(crate) fn set_dotenv(&mut self, key: &str, dotenv: Option<DotenvRecord>) {
        match (key.is_empty(), dotenv) {
            (true, d) => self.dotenv = d,
            (false, Some(d)) => {
                self.dotenvs.insert(key.to_string(), d);
            }
            (false, None) => {
                self.dotenvs.remove(key);
            }
        }
    }
}

/// A `.env` file as a record keeps it: its hash and the keys it set (never values).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DotenvRecord {
    pub(crate) hash: String,
    pub(crate) keys: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    v: u32,
    #[serde(default)]
    folders: BTreeMap<String, TrustRecord>,
}

/// Where decisions are kept.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrustStore {
    /// `None`: in memory only (no HOME).
    file: Option<PathBuf>,
    legacy: Option<PathBuf>,
}

impl TrustStore {
    /// The user's store (`$XDG_STATE_HOME/agent/trust.json`) and the old list
    /// (`$XDG_CONFIG_HOME/agent/trusted-folders`).
    pub(crate) fn load() -> Self {
        let dirs = directories::ProjectDirs::from("", "", "agent");
        let state = dirs.as_ref().map(|d| {
            d.state_dir()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| d.data_local_dir().to_path_buf())
        });
        Self {
            file: state.map(|s| s.join("trust.json")),
            legacy: dirs.map(|d| d.config_dir().join("trusted-folders")),
        }
    }

    #[cfg(test)]
    /// A store in explicit files (tests).
    pub(crate) fn at(file: Option<PathBuf>, legacy: Option<PathBuf>) -> Self {
        Self { file, legacy }
    }

    /// Where records are written, for messages.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    fn read(&self) -> StoreFile {
        self.file
            .as_deref()
            .and_then(|f| read_regular(f, MAX_STORE_BYTES).ok())
            .and_then(|read| serde_json::from_slice(&read.bytes).ok())
            .unwrap_or_default()
    }

    /// The record for `folder` (a canonical path), if any.
    pub(crate) fn get(&self, folder: &Path) -> Option<TrustRecord> {
        self.read().folders.remove(&folder.display().to_string())
    }

    /// Replace the record for `folder`; the error says why it could not be saved.
    pub(crate) fn put(&self, folder: &Path, record: TrustRecord) -> Result<(), SaveError> {
        let Some(file) = &self.file else {
            return Err(SaveError::NoStateFolder);
        };
        let mut store = self.read();
        store.v = 1;
        store.folders.insert(folder.display().to_string(), record);
        let text = serde_json::to_string_pretty(&store).map_err(SaveError::Encode)?;
        crate::support::fs::write_atomically(file, text.as_bytes()).map_err(|source| SaveError::Write {
            path: file.clone(),
            source,
        })
    }

    /// Skill roots trusted with `agent skills trust` before folder trust existed.
    pub(crate) fn legacy_roots(&self) -> BTreeSet<PathBuf> {
        self.legacy
            .as_deref()
            .and_then(|f| read_regular(f, MAX_STORE_BYTES).ok())
            .map(|read| {
                read.text()
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Seconds since the epoch, for records.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_legacy_lines_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let legacy = dir.path().join("trusted-folders");
        std::fs::write(&legacy, "/a/skills\n\n/b/.agents/skills\n").unwrap();
        let store = TrustStore::at(Some(dir.path().join("state/trust.json")), Some(legacy));
        assert!(store.get(Path::new("/p")).is_none());
        let record = TrustRecord {
            trusted: true,
            dotenv: Some(DotenvRecord {
                hash: "h".into(),
                keys: vec!["A".into()],
            }),
            dotenvs: BTreeMap::from([(
                "sub".into(),
                DotenvRecord {
                    hash: "h3".into(),
                    keys: vec!["B".into()],
                },
            )]),
            skills: BTreeMap::from([("skills/x".into(), "h2".into())]),
            decided_at: 1,
        };
        store.put(Path::new("/p"), record.clone()).unwrap();
        store.put(Path::new("/q"), TrustRecord::default()).unwrap();
        assert_eq!(store.get(Path::new("/p")), Some(record));
        assert_eq!(store.legacy_roots().len(), 2);
        let mode = std::fs::metadata(store.path().unwrap()).unwrap().permissions();
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o600);
    }
}
