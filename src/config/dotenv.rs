//! `.env` files: the user's own (`~/.config/agent/.env`) and a working folder's, read safely
//! (regular files only, capped) with a content hash for folder trust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::exec::trust::hash_bytes;
use crate::exit::AppError;
use crate::support::fs::read_regular;

/// Most bytes read of a `.env` file.
const MAX_DOTENV_BYTES: u64 = 1024 * 1024;

/// A `.env` file as read: its entries (or why they could not be read) and a content hash.
#[derive(Debug, Clone)]
pub(crate) struct Dotenv {
    pub(crate) path: PathBuf,
    /// The entries, or why not as text: the parser's message (it names the line) with the fix,
    /// kept with the file (`Clone`) and quoted in a warning or an error naming the file.
    pub(crate) entries: Result<Vec<(String, String)>, String>,
    pub(crate) hash: String,
}

impl Dotenv {
    /// Read `path`; `None` when there is no file there. Only a regular file is opened (a FIFO
    /// cannot hang start-up), at most 1 MiB of it.
    pub(crate) fn read(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        let Some(bytes) = meta
            .is_file()
            .then(|| read_regular(path, MAX_DOTENV_BYTES).ok())
            .flatten()
            .map(|read| read.bytes)
        else {
            return Some(Self {
                path: path.to_path_buf(),
                entries: Err("not a readable regular file".into()),
                hash: String::new(),
            });
        };
        let entries = dotenvy::from_read_iter(bytes.as_slice())
            .map(|entry| entry.map_err(|e| format!("{e}; fix or remove that line")))
            .collect();
        Some(Self {
            path: path.to_path_buf(),
            entries,
            hash: hash_bytes(&bytes),
        })
    }

    /// The keys it sets, in file order. A file that does not parse is scanned line by line for
    /// `KEY=` so the keys can still be shown.
    pub(crate) fn keys(&self) -> Vec<String> {
        if let Ok(entries) = &self.entries {
            return entries.iter().map(|(k, _)| k.clone()).collect();
        }
        let text = read_regular(&self.path, MAX_DOTENV_BYTES)
            .map(|read| read.text())
            .unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let line = line.trim_start();
                let line = line.strip_prefix("export ").unwrap_or(line);
                let (key, _) = line.split_once('=')?;
                let key = key.trim();
                let valid = !key.is_empty()
                    && !key.starts_with('#')
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'));
                valid.then(|| key.to_string())
            })
            .collect()
    }

    /// The entries, or a configuration error naming the file.
    pub(super) fn map(&self) -> Result<BTreeMap<String, String>, AppError> {
        match &self.entries {
            Ok(entries) => Ok(entries.iter().cloned().collect()),
            Err(e) => Err(AppError::config(format!(
                "{} is not a valid .env file: {e}",
                self.path.display()
            ))),
        }
    }
}

/// The user's own `.env`: `$XDG_CONFIG_HOME/agent/.env`, default `~/.config/agent/.env`.
pub(crate) fn user_dotenv_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "agent").map(|d| d.config_dir().join(".env"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotenv_that_is_not_a_regular_file_or_malformed_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Dotenv::read(&dir.path().join("none")).is_none());
        let bad = dir.path().join("bad.env");
        std::fs::write(&bad, "A=1\nB='unclosed\n").unwrap();
        let read = Dotenv::read(&bad).unwrap();
        assert!(read.entries.is_err() && read.map().is_err());
        assert_eq!(read.keys(), ["A", "B"], "keys are still shown");
        let fifo = std::ffi::CString::new(dir.path().join("fifo").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo only creates a file at a path we own.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(Dotenv::read(&dir.path().join("fifo")).unwrap().entries.is_err());
        let good = dir.path().join("good.env");
        std::fs::write(&good, "# c\nA=1\nexport B=\"two\"\n").unwrap();
        assert_eq!(Dotenv::read(&good).unwrap().keys(), ["A", "B"]);
    }
}
