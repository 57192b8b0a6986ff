//! The content of a skill folder as trust and `skills-lock.json` record it: a manifest of every
//! file the skill holds (path, kind, executable bit, SHA-256 of all its bytes) and one hash of
//! that manifest. Everything a command could run is covered: files are hashed in full (streamed,
//! never capped), symlinked files by their target's bytes, and symlinked folders by what they
//! hold, entered like folders (a loop is recorded, not followed). A folder too large to hash in
//! reasonable time is not verified at all: [`Unverifiable`] says why, and nothing compares equal
//! to it.
//!
//! Python's bytecode caches (`__pycache__/`) are left out, so a script importing a sibling module
//! does not change its own skill; commands get `PYTHONPYCACHEPREFIX` pointing elsewhere, so Python
//! never reads a cache from the skill's folder either (a `.pyc` outside `__pycache__` is code
//! Python imports directly, and is hashed).

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::support::fs::open_regular_seen;

/// How a manifest hash starts; hashes recorded before manifests existed are bare hex.
pub(crate) const HASH_PREFIX: &str = "v2-";
/// Most entries (files, links, special files) of one skill that are verified.
pub(crate) const MAX_ENTRIES: usize = 20_000;
/// Most bytes of one skill that are verified.
pub(crate) const MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Deepest folder nesting that is verified.
const MAX_DEPTH: usize = 64;
/// Folders left out of the hash: caches a run writes by itself.
const CACHE_DIRS: &[&str] = &["__pycache__"];

/// Why a skill folder cannot be verified; such a skill is never treated as unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unverifiable(pub String);

/// Every file of a skill by its path relative to the skill folder (`scripts/x.sh`), with what it
/// is: `file <sha256>`, `exec <sha256>` (executable), `loop`, `dangling`, `special` or
/// `unreadable <why>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Manifest {
    pub(crate) files: BTreeMap<String, String>,
}

impl Manifest {
    /// Read `dir` in full; an error when it is too large to verify.
    pub(crate) fn of(dir: &Path) -> Result<Self, Unverifiable> {
        let mut walk = Walk::default();
        let top = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        walk.folder(dir, Path::new(""), &mut vec![top])?;
        Ok(Self { files: walk.files })
    }

    /// The one hash that stands for the whole manifest (`v2-` and 64 hex digits).
    pub(crate) fn hash(&self) -> String {
        let mut hasher = Sha256::new();
        for (path, what) in &self.files {
            hasher.update(path.as_bytes());
            hasher.update([0]);
            hasher.update(what.as_bytes());
            hasher.update([b'\n']);
        }
        format!("{HASH_PREFIX}{}", hex(&hasher.finalize()))
    }

    /// What changed from `before` to `self`: files added, removed and modified, by path.
    pub(crate) fn changes_since(&self, before: &Manifest) -> FileChanges {
        let mut out = FileChanges::default();
        for (path, what) in &self.files {
            match before.files.get(path) {
                None => out.added.push(path.clone()),
                Some(old) if old != what => out.modified.push(path.clone()),
                Some(_) => {}
            }
        }
        out.removed = before
            .files
            .keys()
            .filter(|p| !self.files.contains_key(*p))
            .cloned()
            .collect();
        out
    }
}

/// Files that differ between two manifests, each list in path order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileChanges {
    pub(crate) added: Vec<String>,
    pub(crate) removed: Vec<String>,
    pub(crate) modified: Vec<String>,
}

impl std::fmt::Display for FileChanges {
    /// `modified: run.sh; added: x.py` (at most a few names per kind, then a count).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 5;
        let mut parts = Vec::new();
        for (label, list) in [
            ("modified", &self.modified),
            ("added", &self.added),
            ("removed", &self.removed),
        ] {
            if list.is_empty() {
                continue;
            }
            let mut names: Vec<&str> = list.iter().take(SHOWN).map(String::as_str).collect();
            let more = list.len().saturating_sub(SHOWN);
            let tail = format!("and {more} more");
            if more > 0 {
                names.push(&tail);
            }
            parts.push(format!("{label}: {}", names.join(", ")));
        }
        if parts.is_empty() {
            return f.write_str("no file differs (only how it was recorded)");
        }
        f.write_str(&parts.join("; "))
    }
}

/// The content hash of a skill folder (see [`Manifest::hash`]), or why it cannot be verified.
pub(crate) fn hash_skill_dir(dir: &Path) -> Result<String, Unverifiable> {
    Manifest::of(dir).map(|m| m.hash())
}

/// Whether the skill in `dir` still has exactly the content recorded as `recorded` (a skill too
/// large to verify never has).
pub(crate) fn is_unchanged(dir: &Path, recorded: &str) -> bool {
    hash_skill_dir(dir).is_ok_and(|now| now == recorded)
}

/// What a record keeps for a skill that cannot be verified: never a hash, so never equal to one.
pub(crate) const UNVERIFIABLE: &str = "unverifiable: ";

/// The hex SHA-256 of some bytes.
pub(crate) fn hash_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a walk saw of one file without reading it: enough to tell that it was not written since
/// (a write always moves `ctime`, which no unprivileged program can set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileStamp {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    pub(crate) ctime_ns: i64,
    pub(crate) ino: u64,
    pub(crate) dev: u64,
    pub(crate) mode: u32,
}

impl FileStamp {
    fn of(meta: &Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            size: meta.len(),
            mtime_ns: meta
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.mtime_nsec()),
            ctime_ns: meta
                .ctime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
            mode: meta.mode(),
        }
    }
}

/// Each file's stamp and its recorded digest line, from an earlier walk of the same folder.
pub(crate) type Stamps = BTreeMap<String, (FileStamp, String)>;

impl Manifest {
    /// Like [`Manifest::of`], but a file whose stamp is the one `known` recorded keeps its
    /// recorded digest instead of being read again; returns the stamps of this walk too. For
    /// listings of many installed skills, where reading every byte of every skill each time is
    /// what costs; running a skill's command still hashes it in full.
    pub(crate) fn of_stamped(dir: &Path, known: &Stamps) -> Result<(Self, Stamps), Unverifiable> {
        let mut walk = Walk {
            known: Some(known),
            ..Walk::default()
        };
        let top = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        walk.folder(dir, Path::new(""), &mut vec![top])?;
        Ok((Self { files: walk.files }, walk.stamps))
    }
}

/// The state of one walk: what was found, and how much of the limits it used.
#[derive(Default)]
struct Walk<'a> {
    files: BTreeMap<String, String>,
    bytes: u64,
    /// Stamps of an earlier walk: files unchanged since are not read.
    known: Option<&'a Stamps>,
    /// Stamps of this walk's files (kept only when `known` is given).
    stamps: Stamps,
}

impl Walk<'_> {
    /// Record every entry below `dir` (shown as `rel`); `ancestors` are the real folders being
    /// walked, so a link back to one of them is recorded as a loop instead of entered.
    fn folder(&mut self, dir: &Path, rel: &Path, ancestors: &mut Vec<PathBuf>) -> Result<(), Unverifiable> {
        if ancestors.len() > MAX_DEPTH {
            return Err(Unverifiable(format!("it nests folders more than {MAX_DEPTH} deep")));
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return self.note(rel, format!("unreadable {:?}", e.kind())),
        };
        let mut names: Vec<_> = entries.filter_map(Result::ok).map(|e| e.file_name()).collect();
        names.sort();
        for name in names {
            let (path, rel) = (dir.join(&name), rel.join(&name));
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    if CACHE_DIRS.iter().any(|c| name == *c) {
                        continue;
                    }
                    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    if ancestors.contains(&real) {
                        self.note(&rel, "loop".into())?;
                        continue;
                    }
                    ancestors.push(real);
                    let walked = self.folder(&path, &rel, ancestors);
                    ancestors.pop();
                    walked?;
                }
                Ok(meta) if meta.is_file() => {
                    let what = self.file_stamped(&path, &rel, &meta)?;
                    self.note(&rel, what)?;
                }
                Ok(_) => self.note(&rel, "special".into())?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => self.note(&rel, "dangling".into())?,
                Err(e) => self.note(&rel, format!("unreadable {:?}", e.kind()))?,
            }
        }
        Ok(())
    }

    /// Count one more entry, refusing when there are too many.
    fn note(&mut self, rel: &Path, what: String) -> Result<(), Unverifiable> {
        if self.files.len() >= MAX_ENTRIES {
            return Err(Unverifiable(format!(
                "it holds more than {MAX_ENTRIES} files, too many to verify"
            )));
        }
        self.files.insert(rel.to_string_lossy().into_owned(), what);
        Ok(())
    }

    /// The digest line of a file: the recorded one when its stamp is unchanged, else read.
    fn file_stamped(&mut self, path: &Path, rel: &Path, meta: &Metadata) -> Result<String, Unverifiable> {
        let Some(known) = self.known else {
            return self.file(path, meta);
        };
        let key = rel.to_string_lossy().into_owned();
        let stamp = FileStamp::of(meta);
        let what = match known.get(&key) {
            Some((old, what)) if *old == stamp => {
                self.bytes = self.bytes.saturating_add(meta.len());
                what.clone()
            }
            _ => self.file(path, meta)?,
        };
        self.stamps.insert(key, (stamp, what.clone()));
        Ok(what)
    }

    /// `file <sha256>` or `exec <sha256>` of a regular file, every byte of it.
    fn file(&mut self, path: &Path, meta: &Metadata) -> Result<String, Unverifiable> {
        self.bytes = self.bytes.saturating_add(meta.len());
        if self.bytes > MAX_BYTES {
            return Err(Unverifiable(format!(
                "it holds more than {} MB, too much to verify",
                MAX_BYTES / 1024 / 1024
            )));
        }
        let kind = if meta.permissions().mode() & 0o111 != 0 {
            "exec"
        } else {
            "file"
        };
        match stream(path, meta) {
            Ok(digest) => Ok(format!("{kind} {digest}")),
            Err(e) => Ok(format!("unreadable {:?}", e.kind())),
        }
    }
}

/// The hex SHA-256 of a whole regular file, read in blocks.
fn stream(path: &Path, meta: &Metadata) -> std::io::Result<String> {
    let (mut file, _) = open_regular_seen(path, meta)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        // A file that grows while it is read must not make the walk endless.
        if total > MAX_BYTES {
            return Err(std::io::Error::other("grew past the limit while read"));
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
