//! The catalog cache: what discovery found in each skill folder, kept per skill root under
//! `catalog/` in the cache folder, so that a run over an unchanged tree costs a `stat` per skill
//! file and one read per root instead of reading and parsing every `SKILL.md`.
//!
//! Each folder's entry is keyed by [`Stamp`]s — size, modification time, inode and permission
//! bits — of the folder itself (a `skill.json` or `run.sh` added or removed changes it), of its
//! skill file, and of its `skill.json` and entry script. A content change that keeps all of those
//! (the same size, and the modification time set back by hand) is not seen: that is the contract,
//! as for `make` and `git status`. Files changed in the last `RACY_SECS` seconds are not cached
//! at all, since a second change within the file system's timestamp granularity would be missed.
//!
//! The payload is postcard (a compact binary serde format with a stable, documented wire
//! format): for 4,000 skills it is about a third smaller than JSON and decodes several times faster;
//! `benches/discovery.rs` (`cache/…`) has the numbers. Each entry is encoded on its own: opening
//! the cache only finds where each one is, and an entry is decoded when its folder is looked up,
//! on the discovery thread that looks, so a warm run decodes in parallel and copies nothing twice.

use std::fs::Metadata;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags, StatxFlags};

use serde::{Deserialize, Serialize};

use super::cache_record::CachedLoad;
use super::load::parse::FolderLoad;
use crate::support::cache_file::{self, CacheDir, Kind};

/// Bump `version` whenever [`Entry`] or anything in it changes shape (the fingerprint test
/// below fails until it is).
const KIND: Kind = Kind {
    magic: *b"AGTSKCAT",
    version: 7,
};

/// Entries whose files changed this recently are not kept.
pub(crate) const RACY_SECS: i64 = 2;

/// Why a cache file of the skills room (the catalog, the search index, the skill vectors) was not
/// written. Only logged: a cache that is not saved costs the next run speed, nothing else.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SaveError {
    #[error(transparent)]
    Encode(#[from] postcard::Error),
    #[error("{}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    /// Vectors longer than the file format counts (`u32`).
    #[error(transparent)]
    Dimensions(#[from] std::num::TryFromIntError),
}

/// Encode `value` and replace the cache file `path` of `kind` with it.
pub(crate) fn write_file<T: Serialize>(path: &Path, kind: Kind, value: &T) -> Result<(), SaveError> {
    let bytes = postcard::to_stdvec(value)?;
    cache_file::write(path, kind, &bytes).map_err(|source| SaveError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// What a folder entry's cache key holds about one file or folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub(crate) size: u64,
    pub(crate) mtime: i64,
    pub(crate) mtime_nsec: i64,
    pub(crate) ino: u64,
    pub(crate) mode: u32,
}

impl Stamp {
    pub(crate) fn of(meta: &Metadata) -> Self {
        Self {
            size: meta.len(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }

    /// The stamp in what `statx` said: the same numbers [`Self::of`] takes from [`Metadata`].
    pub(crate) fn of_statx(st: &rustix::fs::Statx) -> Self {
        Self {
            size: st.stx_size,
            mtime: st.stx_mtime.tv_sec,
            mtime_nsec: i64::from(st.stx_mtime.tv_nsec),
            ino: st.stx_ino,
            mode: u32::from(st.stx_mode),
        }
    }

    /// The stamp of the file at `path` (symlinks followed), `None` when it does not exist.
    pub fn at(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().map(|m| Self::of(&m))
    }

    /// The stamp of `path` below the open folder `dir` (symlinks followed): the kernel walks only
    /// `path`, not the folder's whole path again, which is most of a `stat` over thousands of skills.
    pub(crate) fn in_folder(dir: impl AsFd, path: &Path) -> std::io::Result<Self> {
        rustix::fs::statx(dir, path, AtFlags::empty(), StatxFlags::BASIC_STATS)
            .map(|st| Self::of_statx(&st))
            .map_err(std::io::Error::from)
    }

    /// The stamp of the open file or folder `fd`: nothing is walked.
    pub(crate) fn of_open(fd: impl AsFd) -> std::io::Result<Self> {
        rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, StatxFlags::BASIC_STATS)
            .map(|st| Self::of_statx(&st))
            .map_err(std::io::Error::from)
    }

    /// Whether it is the stamp of a folder.
    pub(crate) fn is_dir(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFDIR
    }

    fn same(&self, other: &Self) -> bool {
        self == other
    }

    fn recent(&self, now: i64) -> bool {
        now - self.mtime < RACY_SECS
    }
}

/// Everything a skill folder's parse depended on, stamped before it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FolderStamp {
    pub dir: Stamp,
    /// The skill file's name in the folder (`SKILL.md`, `skill.md`, …).
    pub file_name: String,
    pub file: Stamp,
    /// `skill.json`, when it existed.
    pub manifest: Option<Stamp>,
    /// The entry script's path relative to the folder and its stamp, when a `skill.json` names
    /// one or the default exists; its appearance elsewhere would not change the folder's stamp.
    pub entry: Option<(String, Option<Stamp>)>,
}

impl FolderStamp {
    #[cfg(test)]
    /// Stamps taken before a folder is read: the folder (`dir_meta`), its skill file and its
    /// `skill.json`. `None` when the skill file is gone already.
    pub(crate) fn before_reading(dir: &Path, dir_meta: &Metadata, skill_file: &Path) -> Option<Self> {
        let file_meta = std::fs::metadata(skill_file).ok()?;
        let manifest = Stamp::at(&dir.join("skill.json"));
        Self::before_reading_seen(Stamp::of(dir_meta), skill_file, &file_meta, manifest)
    }

    /// [`Self::before_reading`] when the stamps of the folder and of its `skill.json`
    /// (`manifest`, `None` when there is none) and the skill file's metadata (`file_meta`) were
    /// just read.
    pub(crate) fn before_reading_seen(
        dir_stamp: Stamp,
        skill_file: &Path,
        file_meta: &Metadata,
        manifest: Option<Stamp>,
    ) -> Option<Self> {
        Some(Self {
            dir: dir_stamp,
            file_name: skill_file.file_name()?.to_string_lossy().into_owned(),
            file: Stamp::of(file_meta),
            manifest,
            entry: None,
        })
    }

    /// Add the entry script's stamp, once the manifest said which it is (`declared`), before it
    /// is looked at. The default `run.sh` is stamped only when it exists: the folder's own stamp
    /// tells when it appears. `stamp_of` stamps a file by its path inside the folder.
    pub(crate) fn stamp_entry(&mut self, declared: Option<&str>, stamp_of: impl Fn(&str) -> Option<Stamp>) {
        let path = declared.unwrap_or("run.sh").trim_start_matches("./");
        let stamp = stamp_of(path);
        if declared.is_some() || stamp.is_some() {
            self.entry = Some((path.to_string(), stamp));
        }
    }

    /// Whether the folder whose stamp is now `dir` is still as stamped; `stamp_of` stamps a file
    /// by its path inside the folder.
    fn holds(&self, dir: &Stamp, stamp_of: impl Fn(&str) -> Option<Stamp>) -> bool {
        let same = |stamp: Option<&Stamp>, path: &str| match (stamp, stamp_of(path)) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same(&b),
            _ => false,
        };
        self.dir.same(dir)
            && same(Some(&self.file), &self.file_name)
            && (self.manifest.is_none() || same(self.manifest.as_ref(), "skill.json"))
            && self
                .entry
                .as_ref()
                .is_none_or(|(path, stamp)| same(stamp.as_ref(), path))
    }

    fn recent(&self, now: i64) -> bool {
        let entry = self.entry.as_ref().and_then(|(_, s)| s.as_ref());
        [Some(&self.dir), Some(&self.file), self.manifest.as_ref(), entry]
            .into_iter()
            .flatten()
            .any(|s| s.recent(now))
    }
}

/// One folder's cached result and what it depended on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    stamp: FolderStamp,
    record: CachedLoad,
}

impl Entry {
    /// The entry for a folder just loaded; `None` for a folder that is not a skill.
    pub fn new(stamp: FolderStamp, loaded: &FolderLoad) -> Option<Self> {
        CachedLoad::of(loaded).map(|record| Self { stamp, record })
    }
}

/// What this run found for one folder, for [`RootCache::save`].
#[derive(Debug)]
pub(crate) enum Found {
    /// The cached entry held: it is kept as it is, without a copy.
    Kept,
    /// The folder was read; its new entry.
    New(Box<Entry>),
}

/// The cache file's payload: the root it belongs to, then each folder's key with its [`Entry`]
/// encoded on its own, so that a run decodes only the entries it looks up, each on the thread
/// that looks it up, and writes back the ones that held as the bytes they were.
#[derive(Serialize, Deserialize)]
struct Payload<'a> {
    /// The root the entries belong to (file names are hashes; this rules out a collision).
    #[serde(borrow, with = "serde_bytes")]
    root: &'a [u8],
    #[serde(borrow)]
    entries: Vec<(&'a str, &'a serde_bytes::Bytes)>,
}

/// Where one folder's key and encoded entry are in the stored payload.
#[derive(Debug, Clone)]
struct Slot {
    key: std::ops::Range<usize>,
    entry: std::ops::Range<usize>,
}

/// The cached entries of one skill root.
#[derive(Debug, Default)]
pub(crate) struct RootCache {
    file: Option<PathBuf>,
    root: PathBuf,
    /// The root, open, so that files below it are stamped without walking its path each time.
    root_fd: Option<OwnedFd>,
    /// The cache file's payload as read.
    stored: Vec<u8>,
    /// The entries in `stored`, in the file's order: discovery's order, so the folder found
    /// `n`th is usually the `n`th entry, found without a search.
    slots: Vec<Slot>,
    /// Each slot's key hash and place in `slots`, sorted, for folders found elsewhere: built the
    /// first time a folder is not where its place says, which an unchanged root never needs.
    by_hash: std::sync::OnceLock<Vec<(u64, usize)>>,
}

/// A folder below a cached root, and the key its entry is kept under.
#[derive(Debug)]
pub(crate) struct Place<'a> {
    pub(crate) dir: &'a Path,
    pub(crate) key: String,
    /// Where among the root's folders it is: where its entry usually is in the file.
    pub(crate) at: usize,
}

/// The folder `dir`, open only to look things up below it (`O_PATH`: never blocks, reads nothing).
pub(crate) fn open_folder(dir: &Path) -> Option<OwnedFd> {
    rustix::fs::open(dir, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok()
}

/// The name a folder's entry is kept under: its name below the root, `.` for a root that is
/// itself a skill folder.
pub(crate) fn key_of(dir: &Path, root: &Path) -> String {
    // Discovery's folders are `root.join(name)`: their key is `name`, found without comparing
    // path components (a measurable part of a warm run over thousands of skills).
    let name = dir
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(root.as_os_str().as_encoded_bytes())
        .and_then(|rest| rest.strip_prefix(b"/"))
        .filter(|name| !name.is_empty() && !name.contains(&b'/') && *name != b"." && *name != b"..");
    if let Some(name) = name {
        return String::from_utf8_lossy(name).into_owned();
    }
    match dir.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => dir.to_string_lossy().into_owned(),
    }
}

impl RootCache {
    /// The file the cache of `root` is kept in.
    fn file_of(cache: &CacheDir, root: &Path) -> PathBuf {
        let name = format!(
            "{:016x}.bin",
            xxhash_rust::xxh3::xxh3_64(root.as_os_str().as_encoded_bytes())
        );
        cache.file("catalog", &name)
    }

    /// Whether the cache file of `root` is larger than `bytes` (reading it is worth a thread).
    pub(crate) fn larger_than(cache: Option<&CacheDir>, root: &Path, bytes: u64) -> bool {
        cache.is_some_and(|cache| std::fs::metadata(Self::file_of(cache, root)).is_ok_and(|m| m.len() > bytes))
    }

    /// The cache of `root`, empty when caching is off (`cache` is `None`) or the file is
    /// missing, damaged or foreign.
    pub(crate) fn open(cache: Option<&CacheDir>, root: &Path) -> Self {
        let Some(cache) = cache else {
            return Self::default();
        };
        let file = Self::file_of(cache, root);
        let stored = cache_file::read(&file, KIND).unwrap_or_default();
        let slots = index(&stored, root).unwrap_or_default();
        Self {
            file: Some(file),
            root: root.to_path_buf(),
            root_fd: open_folder(root),
            stored: if slots.is_empty() { Vec::new() } else { stored },
            slots,
            by_hash: std::sync::OnceLock::new(),
        }
    }

    /// Whether caching is on for this root.
    pub(crate) fn enabled(&self) -> bool {
        self.file.is_some()
    }

    /// The folder `dir` below this root, the `at`th of its folders, with its key worked out once
    /// for every question asked about it.
    pub(crate) fn place<'a>(&self, dir: &'a Path, at: usize) -> Place<'a> {
        Place {
            dir,
            key: key_of(dir, &self.root),
            at,
        }
    }

    /// The cached result for the folder at `place` (whose stamp is now `dir_stamp`), when nothing
    /// it depended on changed.
    pub(crate) fn lookup(&self, place: &Place<'_>, dir_stamp: &Stamp) -> Option<FolderLoad> {
        let entry: Entry = postcard::from_bytes(self.stored_entry(&place.key, place.at)?).ok()?;
        if !entry.stamp.holds(dir_stamp, |name| self.look_in(place, name).ok()) {
            return None;
        }
        entry.record.into_loaded(place.dir, &entry.stamp.file_name, &self.root)
    }

    /// Whether an entry is stored for the folder at `place`: when none is, the folder need not be
    /// stamped before it is read.
    pub(crate) fn has(&self, place: &Place<'_>) -> bool {
        self.stored_entry(&place.key, place.at).is_some()
    }

    /// The stamp of the folder at `place`, walking only its name when the root is open.
    pub(crate) fn stamp_folder(&self, place: &Place<'_>) -> Option<Stamp> {
        match &self.root_fd {
            Some(fd) => Stamp::in_folder(fd, Path::new(&place.key)).ok(),
            None => Stamp::at(place.dir),
        }
    }

    /// The stamp of `name` inside the folder at `place`, or why there is none.
    pub(crate) fn look_in(&self, place: &Place<'_>, name: &str) -> std::io::Result<Stamp> {
        match &self.root_fd {
            // The key is the folder's path below the root (or an absolute path, which the kernel
            // resolves as such).
            Some(fd) => Stamp::in_folder(fd, Path::new(&format!("{}/{name}", place.key))),
            None => std::fs::metadata(place.dir.join(name)).map(|m| Stamp::of(&m)),
        }
    }

    /// The encoded entry stored for `key`, looked for first at `at`.
    fn stored_entry(&self, key: &str, at: usize) -> Option<&[u8]> {
        let key_at = |at: usize| {
            self.slots
                .get(at)
                .filter(|slot| &self.stored[slot.key.clone()] == key.as_bytes())
        };
        let slot = key_at(at).or_else(|| {
            let by_hash = self.by_hash.get_or_init(|| {
                let mut by_hash: Vec<(u64, usize)> = (self.slots.iter().enumerate())
                    .map(|(at, slot)| (xxhash_rust::xxh3::xxh3_64(&self.stored[slot.key.clone()]), at))
                    .collect();
                by_hash.sort_unstable();
                by_hash
            });
            let hash = xxhash_rust::xxh3::xxh3_64(key.as_bytes());
            let first = by_hash.partition_point(|(h, _)| *h < hash);
            by_hash[first..]
                .iter()
                .take_while(|(h, _)| *h == hash)
                .find_map(|(_, at)| key_at(*at))
        })?;
        Some(&self.stored[slot.entry.clone()])
    }

    #[cfg(test)]
    /// [`Self::save_found`] with every entry new.
    pub(crate) fn save(&self, entries: Vec<(String, Entry)>) -> Result<bool, SaveError> {
        self.save_found(entries.into_iter().map(|(k, e)| (k, Found::New(Box::new(e)))).collect())
    }

    /// Replace the cache file with what this run `found` in each folder unless it is what the
    /// file already holds. Entries for files changed just now are left out. Failing to write only
    /// costs speed, so it is not an error; the reason is returned for logs.
    pub(crate) fn save_found(&self, found: Vec<(String, Found)>) -> Result<bool, SaveError> {
        let Some(file) = &self.file else {
            return Ok(false);
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let mut changed = false;
        // Stored entries found again: when fewer than were stored, some folder is gone.
        let mut found_again = 0;
        let mut entries: Vec<(String, std::borrow::Cow<'_, [u8]>)> = Vec::with_capacity(found.len());
        for (at, (key, found)) in found.into_iter().enumerate() {
            let old = self.stored_entry(&key, at);
            found_again += usize::from(old.is_some());
            let bytes = match found {
                // A kept entry was not recent when it was written, and its stamps held.
                Found::Kept => match old {
                    Some(old) => std::borrow::Cow::Borrowed(old),
                    None => continue,
                },
                Found::New(entry) => {
                    if entry.stamp.recent(now) {
                        // Left out: a change only when the file had an entry for the folder.
                        changed |= old.is_some();
                        continue;
                    }
                    let bytes = postcard::to_stdvec(&*entry)?;
                    changed |= old != Some(bytes.as_slice());
                    std::borrow::Cow::Owned(bytes)
                }
            };
            entries.push((key, bytes));
        }
        if !changed && found_again == self.slots.len() {
            return Ok(false);
        }
        let payload = Payload {
            root: self.root.as_os_str().as_encoded_bytes(),
            entries: entries
                .iter()
                .map(|(key, bytes)| (key.as_str(), serde_bytes::Bytes::new(bytes)))
                .collect(),
        };
        write_file(file, KIND, &payload)?;
        Ok(true)
    }
}

/// Where each entry of the payload `stored` is, in the file's order; `None` when it does not decode or
/// belongs to another root.
fn index(stored: &[u8], root: &Path) -> Option<Vec<Slot>> {
    let payload: Payload<'_> = postcard::from_bytes(stored).ok()?;
    if payload.root != root.as_os_str().as_encoded_bytes() {
        return None;
    }
    // Decoding borrows from `stored`: each field's place in it is its address less the start's.
    let base = stored.as_ptr() as usize;
    let range = |part: &[u8]| {
        let start = part.as_ptr() as usize - base;
        start..start + part.len()
    };
    let slots: Vec<Slot> = payload
        .entries
        .iter()
        .map(|(key, entry)| Slot {
            key: range(key.as_bytes()),
            entry: range(entry),
        })
        .collect();
    Some(slots)
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
