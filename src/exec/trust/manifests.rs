//! The file lists behind recorded skill hashes, so a refusal can name the files that changed
//! instead of only saying "changed". Trust records and `skills-lock.json` keep one hash per skill;
//! the manifest that hash stands for is kept here, one file per hash, in
//! `$XDG_STATE_HOME/agent/skill-files/` (default `~/.local/state/agent/skill-files/`). The hash is
//! the manifest's own content hash, so a file here can be checked before it is believed.

use std::path::{Path, PathBuf};

use super::digest::{FileChanges, HASH_PREFIX, Manifest, Stamps, UNVERIFIABLE, Unverifiable};
use crate::support::fs::read_regular;

/// Most bytes of one stored manifest read.
const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;
/// Most manifests kept; past it, the oldest half goes.
const MAX_KEPT: usize = 2000;

/// Where manifests are kept (`None`: nowhere, e.g. without a HOME).
#[derive(Debug, Clone, Default)]
pub(crate) struct ManifestStore {
    dir: Option<PathBuf>,
}

/// How a skill's content compares with a recorded hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Comparison {
    /// Exactly as recorded.
    Same,
    /// Different; the files that differ, when the recorded file list is known.
    Changed(Option<FileChanges>),
    /// Recorded by an older agent, which hashed skills another way: it cannot be compared.
    OldRecord,
    /// Too large to verify now.
    Unverifiable(Unverifiable),
}

impl Comparison {
    /// Words for a refusal: `run.sh modified`, or why the files cannot be named.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Same => "unchanged".into(),
            Self::Changed(Some(changes)) => changes.to_string(),
            Self::Changed(None) => {
                "its files differ from what was recorded (no file list was kept for that record)".into()
            }
            Self::OldRecord => {
                "it was recorded by an older agent that hashed skills another way, so it cannot be compared".into()
            }
            Self::Unverifiable(why) => format!("it cannot be verified: {why}"),
        }
    }
}

impl ManifestStore {
    /// The user's store, beside the trust records.
    pub(crate) fn load() -> Self {
        let dir = directories::ProjectDirs::from("", "", "agent").map(|d| {
            d.state_dir()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| d.data_local_dir().to_path_buf())
                .join("skill-files")
        });
        Self { dir }
    }

    /// A store in an explicit folder (tests, and a trust store's own folder).
    pub(crate) fn at(dir: Option<PathBuf>) -> Self {
        Self { dir }
    }

    fn file(&self, hash: &str) -> Option<PathBuf> {
        let valid = hash.strip_prefix(HASH_PREFIX)?;
        valid
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| self.dir.as_ref().map(|d| d.join(format!("{hash}.json"))))?
    }

    /// Keep `manifest` for later comparisons; failing to is not an error anyone needs to act on.
    pub(crate) fn remember(&self, manifest: &Manifest) {
        let Some(file) = self.file(&manifest.hash()) else {
            return;
        };
        if file.is_file() {
            return;
        }
        let saved = (|| -> std::io::Result<()> {
            let dir = file.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let text = serde_json::to_vec(manifest).map_err(std::io::Error::other)?;
            // Named by hash too: two threads keeping two manifests must not share a temp file.
            let tmp = dir.join(format!(".{}.{}.tmp", manifest.hash(), std::process::id()));
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &file)?;
            self.prune(dir)
        })();
        if let Err(e) = saved {
            tracing::debug!("could not keep the file list of a skill: {e}");
        }
    }

    /// The hash to record for the skill in `dir` now, its file list kept; a skill too large to
    /// verify gets `unverifiable: why`, which nothing ever equals.
    pub(crate) fn record(&self, dir: &Path) -> String {
        match Manifest::of(dir) {
            Ok(manifest) => {
                self.remember(&manifest);
                manifest.hash()
            }
            Err(why) => format!("{UNVERIFIABLE}{why}"),
        }
    }

    /// The manifest recorded under `hash`, if it was kept and still matches it.
    pub(crate) fn recall(&self, hash: &str) -> Option<Manifest> {
        let read = read_regular(&self.file(hash)?, MAX_MANIFEST_BYTES).ok()?;
        let manifest: Manifest = serde_json::from_slice(&read.bytes).ok()?;
        (manifest.hash() == hash).then_some(manifest)
    }

    /// Compare the skill in `dir` now with the content recorded as `recorded`.
    pub(crate) fn compare(&self, dir: &Path, recorded: &str) -> Comparison {
        match Manifest::of(dir) {
            Ok(now) => self.judge(&now, recorded),
            Err(why) => Comparison::Unverifiable(why),
        }
    }

    /// How the manifest of a skill as it is `now` compares with the hash `recorded` for it.
    fn judge(&self, now: &Manifest, recorded: &str) -> Comparison {
        if now.hash() == recorded {
            return Comparison::Same;
        }
        if !recorded.starts_with(HASH_PREFIX) {
            return Comparison::OldRecord;
        }
        Comparison::Changed(self.recall(recorded).map(|before| now.changes_since(&before)))
    }

    /// Drop the oldest half when more than `MAX_KEPT` are kept.
    /// [`Self::compare`] for listings: files whose stamps (size, times, inode, mode) are those of
    /// the last listing keep the digest it recorded instead of being read again; the stamps live
    /// in `stamps_dir` (the cache folder; `None`: read everything).
    pub(crate) fn compare_listed(&self, dir: &Path, recorded: &str, stamps_dir: Option<&Path>) -> Comparison {
        let Some(stamps_dir) = stamps_dir else {
            return self.compare(dir, recorded);
        };
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let file = stamps_dir.join(format!(
            "{:016x}.json",
            xxhash_rust::xxh3::xxh3_64(real.as_os_str().as_encoded_bytes())
        ));
        let known: Stamps = read_regular(&file, MAX_MANIFEST_BYTES)
            .ok()
            .and_then(|read| serde_json::from_slice(&read.bytes).ok())
            .unwrap_or_default();
        let (now, stamps) = match Manifest::of_stamped(dir, &known) {
            Ok(walked) => walked,
            Err(why) => return Comparison::Unverifiable(why),
        };
        if stamps != known {
            save_stamps(&file, &stamps);
        }
        self.judge(&now, recorded)
    }

    fn prune(&self, dir: &Path) -> std::io::Result<()> {
        let mut kept: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)?
            .filter_map(Result::ok)
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if kept.len() <= MAX_KEPT {
            return Ok(());
        }
        kept.sort();
        for (_, path) in kept.iter().take(kept.len() / 2) {
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }
}

/// Keep a listing's stamps (best effort: a failure only means reading the files next time).
fn save_stamps(file: &Path, stamps: &Stamps) {
    let saved = (|| -> std::io::Result<()> {
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let text = serde_json::to_vec(stamps).map_err(std::io::Error::other)?;
        let tmp = file.with_extension(format!("{}.tmp", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, file)
    })();
    if let Err(e) = saved {
        tracing::debug!("could not keep the stamps of a listed skill: {e}");
    }
}
