//! `skills-lock.json`: what `agent skills add` installed into a skill root, from where, at which
//! commit, and the content hash it had then. It sits beside the skills it describes
//! (`~/.agents/skills/skills-lock.json`, or `.agents/skills/skills-lock.json` with `--project`).
//! docs/skills-lock.md is the field reference.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::support::fs::read_whole;

/// The lock file's name inside a skill root.
pub(crate) const LOCK_FILE: &str = "skills-lock.json";
/// The format version written.
pub(crate) const LOCK_VERSION: u32 = 1;
/// Most bytes of a lock file read.
const MAX_LOCK_BYTES: u64 = 8 * 1024 * 1024;

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LockEntry {
    /// The git URL, or the absolute folder it was copied from.
    pub(crate) source: String,
    /// The `@REF` asked for (branch, tag or commit), if any.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub(crate) reference: Option<String>,
    /// The commit that was installed (git sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) commit: Option<String>,
    /// The skill's folder inside the source (`skills/deploy`); absent when the source is the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subdir: Option<String>,
    /// When it was installed or last updated (RFC 3339, UTC).
    pub(crate) installed_at: String,
    /// The SHA-256 content hash of the installed folder, as folder trust computes it. The skill
    /// may run commands only while its content still has this hash.
    pub(crate) hash: String,
    /// The skill audit's verdict at install or update; absent in lock files written before
    /// audits existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) audit: Option<crate::audit::Verdict>,
    /// The deterministic directory digest (docs/skills-lock.md, "Digest") `skills verify`
    /// recomputes; absent in older lock files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) digest: Option<String>,
    /// The name the source gives the skill, when `skills add --as` installed it under the name
    /// of its folder here instead; `update` gives each new version that name too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) renamed_from: Option<String>,
}

/// A whole lock file: skills by the name of their folder in the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LockFile {
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) skills: BTreeMap<String, LockEntry>,
}

impl Default for LockFile {
    fn default() -> Self {
        Self {
            version: LOCK_VERSION,
            skills: BTreeMap::new(),
        }
    }
}

/// A lock file that exists but cannot be used: never overwritten, so no record is lost.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    #[error("cannot read {path}: {source}; fix or remove it (it records what `agent skills add` installed)")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a valid skills lock file ({source}); fix or remove it")]
    Invalid { path: PathBuf, source: serde_json::Error },
    /// A recorded skill name that would reach outside the root.
    #[error(
        "{path} is not a valid skills lock file ({name:?} is not a skill folder name in this root); fix or remove it"
    )]
    BadName { path: PathBuf, name: String },
    #[error("{path} was written by a newer agent (version {version}); update agent")]
    Newer { path: PathBuf, version: u32 },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

impl LockFile {
    /// Where the lock file of `root` is.
    pub(crate) fn path(root: &Path) -> PathBuf {
        root.join(LOCK_FILE)
    }

    /// The lock file of `root`; an empty one when there is none yet.
    pub(crate) fn read(root: &Path) -> Result<Self, LockError> {
        let path = Self::path(root);
        let read = match read_whole(&path, MAX_LOCK_BYTES) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(LockError::Read { path, source }),
        };
        let lock: Self = serde_json::from_slice(&read.bytes).map_err(|source| LockError::Invalid {
            path: path.clone(),
            source,
        })?;
        if lock.version > LOCK_VERSION {
            return Err(LockError::Newer {
                path,
                version: lock.version,
            });
        }
        // A project's lock file comes with the repository: a name such as `../../x` must not let
        // `update` or `remove` reach a folder outside the root.
        if let Some(bad) = lock.skills.keys().find(|n| super::install::check_name(n).is_err()) {
            return Err(LockError::BadName {
                path,
                name: bad.clone(),
            });
        }
        Ok(lock)
    }

    /// Write it to `root` through a temporary file and a rename, so a crash never leaves half.
    pub(crate) fn write(&self, root: &Path) -> Result<(), LockError> {
        let path = Self::path(root);
        let fail = |source| LockError::Write {
            path: path.clone(),
            source,
        };
        let mut text = serde_json::to_string_pretty(self).map_err(|e| fail(std::io::Error::other(e)))?;
        text.push('\n');
        let tmp = root.join(format!(".{LOCK_FILE}.{}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            fail(e)
        })
    }
}

/// An installed skill as the lock file beside it records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Installed {
    /// The skill root holding the skill and the lock file.
    pub(crate) root: PathBuf,
    /// The skill's folder name, its key in the lock file.
    pub(crate) name: String,
    pub(crate) entry: LockEntry,
}

impl Installed {
    /// The installed skill whose folder is `dir`, when the `skills-lock.json` of its root lists
    /// it; `None` for a skill `agent skills add` did not install (or an unreadable lock file).
    pub(crate) fn of(dir: &Path) -> Option<Self> {
        Locks::default().installed(dir)
    }

    /// Record `hash` as this skill's trusted content (`agent trust --skill`, or a yes when asked).
    pub(crate) fn trust(&self, hash: &str) -> Result<(), LockError> {
        let mut lock = LockFile::read(&self.root)?;
        if let Some(entry) = lock.skills.get_mut(&self.name) {
            entry.hash = hash.to_string();
        }
        lock.write(&self.root)
    }
}

/// The lock files of the roots one run looks at, each read at most once: a listing of a thousand
/// installed skills asked the same lock once per skill (quadratic: seconds at that size).
#[derive(Debug, Default)]
pub(crate) struct Locks {
    by_root: HashMap<PathBuf, Option<LockFile>>,
}

impl Locks {
    /// [`Installed::of`], reading `dir`'s root's lock file only the first time that root is asked.
    pub(crate) fn installed(&mut self, dir: &Path) -> Option<Installed> {
        let root = dir.parent()?;
        let name = dir.file_name()?.to_str()?;
        let lock = self.by_root.entry(root.to_path_buf()).or_insert_with(|| {
            // Most roots have no lock file: a `stat` keeps the common case cheap.
            LockFile::path(root)
                .is_file()
                .then(|| LockFile::read(root).ok())
                .flatten()
        });
        let entry = lock.as_ref()?.skills.get(name)?.clone();
        Some(Installed {
            root: root.to_path_buf(),
            name: name.to_string(),
            entry,
        })
    }
}

/// Now, as the lock file writes times.
pub(crate) fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> LockEntry {
        LockEntry {
            source: "file:///srv/skills.git".into(),
            reference: Some("v1".into()),
            commit: Some("0123abcd".into()),
            subdir: Some("skills/deploy".into()),
            installed_at: now_rfc3339(),
            hash: "ff".into(),
            audit: None,
            digest: None,
            renamed_from: None,
        }
    }

    #[test]
    fn round_trip_with_ref_spelled_ref() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(LockFile::read(root.path()).unwrap(), LockFile::default());
        let mut lock = LockFile::default();
        lock.skills.insert("deploy".into(), entry());
        lock.write(root.path()).unwrap();
        let text = std::fs::read_to_string(LockFile::path(root.path())).unwrap();
        assert!(text.contains("\"ref\": \"v1\""), "{text}");
        assert!(text.contains("\"installed_at\": \"20"), "{text}");
        assert_eq!(LockFile::read(root.path()).unwrap(), lock);
        let leftovers: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left");
    }

    #[test]
    fn broken_or_newer_files_are_refused_not_replaced() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(LockFile::path(root.path()), "{not json").unwrap();
        let err = LockFile::read(root.path()).unwrap_err();
        assert!(matches!(err, LockError::Invalid { .. }), "{err}");
        // The JSON error is kept beneath, and the message already says it.
        let json = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<serde_json::Error>());
        assert!(json.is_some_and(|j| err.to_string().contains(&j.to_string())), "{err}");
        std::fs::write(LockFile::path(root.path()), r#"{"version": 9, "skills": {}}"#).unwrap();
        let err = LockFile::read(root.path()).unwrap_err();
        assert!(err.to_string().contains("newer"), "{err}");
        let outside = serde_json::json!({"version": 1, "skills": {"../../victim": entry()}});
        std::fs::write(LockFile::path(root.path()), outside.to_string()).unwrap();
        let err = LockFile::read(root.path()).unwrap_err();
        assert!(
            matches!(&err, LockError::BadName { name, .. } if name == "../../victim"),
            "{err}"
        );
        assert!(
            err.to_string().contains("\"../../victim\" is not a skill folder name"),
            "{err}"
        );
    }

    #[test]
    fn one_run_reads_each_roots_lock_once() {
        let root = tempfile::tempdir().unwrap();
        let mut lock = LockFile::default();
        lock.skills.insert("deploy".into(), entry());
        lock.skills.insert("notes".into(), entry());
        lock.write(root.path()).unwrap();
        let mut locks = Locks::default();
        assert_eq!(locks.installed(&root.path().join("deploy")).unwrap().entry.hash, "ff");
        // Gone from disk: the second skill is still answered from the one reading.
        std::fs::remove_file(LockFile::path(root.path())).unwrap();
        let notes = locks.installed(&root.path().join("notes")).unwrap();
        assert_eq!((notes.name.as_str(), notes.root.as_path()), ("notes", root.path()));
        assert!(locks.installed(&root.path().join("other")).is_none());
        assert!(
            Installed::of(&root.path().join("notes")).is_none(),
            "a new run reads it again"
        );
    }
}
