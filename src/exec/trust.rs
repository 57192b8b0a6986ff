//! Which project skill folders the user has trusted to run commands, remembered across sessions.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Most bytes of the store that are read (thousands of folders).
const MAX_STORE_BYTES: u64 = 4 * 1024 * 1024;

/// Trusted folders, one canonical path per line in `<config dir>/agent/trusted-folders`.
#[derive(Debug)]
pub struct TrustStore {
    file: Option<PathBuf>,
    folders: Mutex<BTreeSet<PathBuf>>,
}

impl TrustStore {
    /// Read the store from the user's config dir (`$XDG_CONFIG_HOME/agent`, else `~/.config/agent`).
    pub fn load() -> Self {
        let file = directories::ProjectDirs::from("", "", "agent").map(|d| d.config_dir().join("trusted-folders"));
        Self::at(file)
    }

    /// A store kept in `file` (`None`: in memory only).
    pub fn at(file: Option<PathBuf>) -> Self {
        let folders = file
            .as_ref()
            .and_then(|f| crate::support::fs::read_regular(f, MAX_STORE_BYTES).ok())
            .map(|read| read.text())
            .map(|text| {
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        Self {
            file,
            folders: Mutex::new(folders),
        }
    }

    fn key(folder: &Path) -> PathBuf {
        std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
    }

    pub fn is_trusted(&self, folder: &Path) -> bool {
        let key = Self::key(folder);
        self.folders.lock().unwrap_or_else(|p| p.into_inner()).contains(&key)
    }

    /// Trust `folder` from now on; the error says why it could not be remembered.
    pub fn trust(&self, folder: &Path) -> Result<PathBuf, String> {
        let key = Self::key(folder);
        let mut folders = self.folders.lock().unwrap_or_else(|p| p.into_inner());
        if !folders.insert(key.clone()) {
            return Ok(key);
        }
        let Some(file) = &self.file else {
            return Err("no config directory to remember it in (is HOME set?)".into());
        };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(file)?;
            writeln!(f, "{}", key.display())
        };
        write().map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cfg/trusted-folders");
        let project = dir.path().join("skills");
        std::fs::create_dir_all(&project).unwrap();
        let store = TrustStore::at(Some(file.clone()));
        assert!(!store.is_trusted(&project));
        store.trust(&project).unwrap();
        assert!(store.is_trusted(&project));
        assert!(TrustStore::at(Some(file)).is_trusted(&project.join("../skills")));
    }
}
