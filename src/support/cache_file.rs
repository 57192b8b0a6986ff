//! Files kept only to go faster, under `$XDG_CACHE_HOME/agent/` (default `~/.cache/agent/`).
//!
//! A cache file is never trusted blindly. It starts with a header — what it holds, the format
//! version, the agent build that wrote it, the payload's length and checksum — and a file whose
//! header or checksum does not match is a miss: the caller rebuilds and overwrites it, nothing is
//! reported as an error. Files are written whole to a temporary file and renamed into place, so
//! a reader never sees half a file and two agents writing at once leave one complete file.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use xxhash_rust::xxh3::xxh3_64;

/// Bytes before the payload: magic (8), format version (4), build (8), length (8), checksum (8).
const HEADER_LEN: usize = 36;
/// Largest cache file read back; anything larger is not ours.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// What one kind of cache file holds, and the version of its format. Bump the version whenever
/// the payload's layout changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kind {
    pub(crate) magic: [u8; 8],
    pub(crate) version: u32,
}

/// Why a cache file was not used. Each is a miss, not an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Miss {
    #[error("no cache file yet")]
    Absent,
    #[error("cannot read the cache file: {0}")]
    Unreadable(io::Error),
    #[error("the cache file was written by another agent build or format")]
    Foreign,
    #[error("the cache file is damaged (cut short, or its checksum does not match)")]
    Corrupt,
}

/// Whether a setting's value turns something off: `0`, `off`, `false` or `no`, any case.
pub(crate) fn is_off(value: &str) -> bool {
    matches!(value.trim().to_ascii_lowercase().as_str(), "0" | "off" | "false" | "no")
}

/// The cache folder of this user (`CacheDir::from_env` is `None` when caching is off or no
/// folder is known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheDir {
    root: PathBuf,
}

impl CacheDir {
    /// `dir` itself (tests, and callers that settled the folder elsewhere).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { root: dir.into() }
    }

    /// `$XDG_CACHE_HOME/agent`, else `$HOME/.cache/agent`; `None` when `AGENT_CACHE` is `0`
    /// (or `off`, `false`, `no`) or neither variable is set. `var` looks a variable up.
    pub(crate) fn from_env(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let off = var("AGENT_CACHE").is_some_and(|v| is_off(&v));
        if off {
            return None;
        }
        let xdg = var("XDG_CACHE_HOME").filter(|v| Path::new(v).is_absolute());
        let base = match xdg {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(var("HOME").filter(|h| !h.is_empty())?).join(".cache"),
        };
        Some(Self::at(base.join("agent")))
    }

    /// The folder itself.
    pub(crate) fn path(&self) -> &Path {
        &self.root
    }

    /// `file` in the subfolder `sub`.
    pub(crate) fn file(&self, sub: &str, file: &str) -> PathBuf {
        self.root.join(sub).join(file)
    }
}

/// Identifies the running agent build: its version and its executable's size and modification
/// time, so a rebuilt or upgraded agent never trusts what another one parsed.
fn build_id() -> u64 {
    static ID: OnceLock<u64> = OnceLock::new();
    *ID.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
        let stamp = exe.map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.len(), m.mtime(), m.mtime_nsec())
        });
        xxh3_64(format!("{}:{stamp:?}", env!("CARGO_PKG_VERSION")).as_bytes())
    })
}

/// The header written before `payload` in a cache file of `kind` (see [`HEADER_LEN`]).
fn header(kind: Kind, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&kind.magic);
    h[8..12].copy_from_slice(&kind.version.to_le_bytes());
    h[12..20].copy_from_slice(&build_id().to_le_bytes());
    h[20..28].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    h[28..36].copy_from_slice(&xxh3_64(payload).to_le_bytes());
    h
}

/// The payload of the cache file at `path`, if it is a complete file of `kind` written by this
/// agent build.
pub(crate) fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, Miss> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Miss::Absent),
        Err(e) => return Err(Miss::Unreadable(e)),
    };
    let meta = file.metadata().map_err(Miss::Unreadable)?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES || meta.len() < HEADER_LEN as u64 {
        return Err(Miss::Corrupt);
    }
    // The header first, then the payload into a buffer of its own size: no second copy of a
    // payload that is megabytes for thousands of skills.
    let mut head = [0u8; HEADER_LEN];
    file.read_exact(&mut head).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Miss::Corrupt,
        _ => Miss::Unreadable(e),
    })?;
    let field = |at: usize| -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&head[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if head[..8] != kind.magic || version != kind.version || field(12) != build_id() {
        return Err(Miss::Foreign);
    }
    let expected = usize::try_from(meta.len()).unwrap_or(0).saturating_sub(HEADER_LEN);
    let mut payload = Vec::with_capacity(expected);
    file.read_to_end(&mut payload).map_err(Miss::Unreadable)?;
    if field(20) != payload.len() as u64 || field(28) != xxh3_64(&payload) {
        return Err(Miss::Corrupt);
    }
    Ok(payload)
}

/// Replace the cache file at `path` with `payload`, atomically: written to a temporary file in
/// the same folder (created, private to the user, when missing) and renamed over it.
pub(crate) fn write(path: &Path, kind: Kind, payload: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a cache file needs a folder"))?;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per process and per write, so concurrent writers never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(&header(kind, payload))?;
        file.write_all(payload)?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
#[path = "cache_file_tests.rs"]
mod tests;
