//! A built index kept in the cache folder (`index/`), so a run over an unchanged catalog loads
//! it instead of building it. The file is named by a fingerprint of everything the index is
//! built from — each skill's name and description, in order, and the parameters — so a changed
//! catalog simply finds no file; the most recently used [`KEEP`] indexes are kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use super::tokenize::Analyzer;
use super::{Params, Posting, SkillIndex};
use crate::skills::Skill;
use crate::skills::cache::{SaveError, write_file};
use crate::support::cache_file::{self, CacheDir, Kind};

/// Bump `version` whenever [`Stored`] or the way an index is built changes.
const KIND: Kind = Kind {
    magic: *b"AGTSKIDX",
    version: 2,
};

/// Index files kept: one per catalog recently used (projects differ in their skills).
const KEEP: usize = 8;

#[derive(Serialize, Deserialize)]
struct Stored {
    fingerprint: u64,
    params: Params,
    stems: Vec<String>,
    postings: Vec<Vec<Posting>>,
    known: Vec<(String, u32)>,
    name_len: Vec<f32>,
    desc_len: Vec<f32>,
}

/// What an index of `skills` with `params` is built from, as one number.
pub(super) fn fingerprint(skills: &[Skill], params: &Params) -> u64 {
    let mut h = Xxh3::new();
    h.update(&KIND.version.to_le_bytes());
    h.update(format!("{params:?}").as_bytes());
    for skill in skills {
        for part in [skill.name.as_bytes(), b"\0", skill.description.as_bytes(), b"\0"] {
            h.update(part);
        }
    }
    h.digest()
}

/// An index read from the cache folder before the skills it belongs to were known (see
/// [`SkillIndex::preload_latest`]), with the fingerprint it was stored under.
pub(crate) struct Preloaded {
    fingerprint: u64,
    file: PathBuf,
    index: SkillIndex,
}

impl SkillIndex {
    /// The index of `skills` with the default parameters: loaded from the cache folder when an
    /// index of the same catalog is there, else built (and stored, when `cache` is given).
    pub fn cached(skills: &[Skill], cache: Option<&CacheDir>) -> Self {
        Self::cached_or_preloaded(skills, cache, None)
    }

    /// As [`cached`](Self::cached), taking `preloaded` instead of reading the file when it was
    /// stored for exactly these skills.
    pub(crate) fn cached_or_preloaded(
        skills: &[Skill],
        cache: Option<&CacheDir>,
        preloaded: Option<Preloaded>,
    ) -> Self {
        let Some(cache) = cache else {
            return Self::build(skills);
        };
        let params = Params::default();
        let fingerprint = fingerprint(skills, &params);
        if let Some(p) = preloaded.filter(|p| p.fingerprint == fingerprint && p.index.name_len.len() == skills.len()) {
            mark_used(&p.file);
            return p.index;
        }
        let file = cache.file("index", &format!("{fingerprint:016x}.bin"));
        if let Some(index) = load(&file, fingerprint, skills.len()) {
            return index;
        }
        let index = Self::with_params(skills, params);
        if store(&index, &file, fingerprint).is_ok() {
            prune(file.parent().unwrap_or(cache.path()));
        }
        index
    }

    fn to_stored(&self, fingerprint: u64) -> Stored {
        let mut known: Vec<(String, u32)> = self.known.iter().map(|(w, id)| (w.clone(), *id)).collect();
        known.sort_unstable();
        Stored {
            fingerprint,
            params: self.params.clone(),
            stems: self.stems.clone(),
            postings: self.postings.clone(),
            known,
            name_len: self.name_len.clone(),
            desc_len: self.desc_len.clone(),
        }
    }

    /// The index a [`Stored`] holds, if it is whole: one posting list per stem, postings and
    /// word ids in range, one length per skill.
    fn from_stored(s: Stored, skills: usize) -> Option<Self> {
        let terms = s.stems.len();
        let docs_ok = s.name_len.len() == skills && s.desc_len.len() == skills;
        let postings_ok = s.postings.len() == terms && s.postings.iter().flatten().all(|p| (p.doc as usize) < skills);
        let known_ok = s.known.iter().all(|(_, id)| (*id as usize) < terms);
        if !(docs_ok && postings_ok && known_ok) {
            return None;
        }
        let ids: HashMap<String, u32> = s
            .stems
            .iter()
            .enumerate()
            .map(|(i, st)| (st.clone(), i as u32))
            .collect();
        let n = skills.max(1) as f32;
        let avg_name = (s.name_len.iter().sum::<f32>() / n).max(1.0);
        let avg_desc = (s.desc_len.iter().sum::<f32>() / n).max(1.0);
        Some(Self {
            analyzer: Analyzer::default(),
            params: s.params,
            ids,
            stems: s.stems,
            postings: s.postings,
            known: s.known.into_iter().collect(),
            name_len: s.name_len,
            desc_len: s.desc_len,
            avg_name,
            avg_desc,
        })
    }
}

/// The index stored in `file`, if it can be read and decoded.
fn read_stored(file: &Path) -> Option<Stored> {
    let bytes = cache_file::read(file, KIND).ok()?;
    postcard::from_bytes(&bytes).ok()
}

fn load(file: &Path, fingerprint: u64, skills: usize) -> Option<SkillIndex> {
    let stored = read_stored(file)?;
    if stored.fingerprint != fingerprint {
        return None;
    }
    let index = SkillIndex::from_stored(stored, skills)?;
    mark_used(file);
    Some(index)
}

/// Mark an index file used, for pruning; failing to is harmless.
fn mark_used(file: &Path) {
    let _ = std::fs::File::open(file).and_then(|f| f.set_modified(std::time::SystemTime::now()));
}

impl SkillIndex {
    /// The most recently used index in the cache folder, read and decoded without knowing whose
    /// it is. A run starts this on a thread of its own while discovery asks the file system
    /// about every skill (work for the kernel, on one core), so that with a big library the
    /// index is ready when the first request ranks; [`cached_or_preloaded`](Self::cached_or_preloaded)
    /// takes it only if its fingerprint is that of the skills found.
    pub(crate) fn preload_latest(cache: &CacheDir) -> Option<Preloaded> {
        let newest = index_files(&cache.path().join("index"))
            .into_iter()
            .max_by_key(|(used, _)| *used)?
            .1;
        let stored = read_stored(&newest)?;
        let fingerprint = stored.fingerprint;
        let skills = stored.name_len.len();
        let index = SkillIndex::from_stored(stored, skills)?;
        Some(Preloaded {
            fingerprint,
            file: newest,
            index,
        })
    }
}

fn store(index: &SkillIndex, file: &Path, fingerprint: u64) -> Result<(), SaveError> {
    write_file(file, KIND, &index.to_stored(fingerprint))
}

/// The index files in `dir`, each with when it was last used (its modification time); none
/// when the folder cannot be read.
fn index_files(dir: &Path) -> Vec<(std::time::SystemTime, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect()
}

/// Remove all but the [`KEEP`] most recently used index files.
fn prune(dir: &Path) {
    let mut files = index_files(dir);
    if files.len() <= KEEP {
        return;
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, path) in files.drain(KEEP..) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skills(n: usize, topic: &str) -> Vec<Skill> {
        (0..n)
            .map(|i| {
                Skill::synthetic(
                    &format!("{topic}-tool-{i}"),
                    &format!("Works with {topic} files, variant {i}."),
                )
            })
            .collect()
    }

    #[test]
    fn a_stored_index_ranks_like_a_built_one() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        let set = skills(50, "pdf");
        let built = SkillIndex::build(&set);
        let first = SkillIndex::cached(&set, Some(&cache));
        let files: Vec<_> = std::fs::read_dir(dir.path().join("index")).unwrap().collect();
        assert_eq!(files.len(), 1);
        let loaded = SkillIndex::cached(&set, Some(&cache));
        for q in ["pdf variant 7", "pdftool", "wroks with files", ""] {
            assert_eq!(loaded.score(q), built.score(q), "{q}");
            assert_eq!(first.score(q), built.score(q), "{q}");
        }
    }

    #[test]
    fn another_catalog_gets_its_own_file_and_old_ones_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        for i in 0..KEEP + 3 {
            let set = skills(3 + i, "csv");
            let index = SkillIndex::cached(&set, Some(&cache));
            assert_eq!(index.name_len.len(), 3 + i);
        }
        assert_eq!(std::fs::read_dir(dir.path().join("index")).unwrap().count(), KEEP);
    }

    #[test]
    fn a_damaged_or_mismatched_file_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        let set = skills(20, "git");
        SkillIndex::cached(&set, Some(&cache));
        let file = std::fs::read_dir(dir.path().join("index"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::write(&file, b"not an index").unwrap();
        let index = SkillIndex::cached(&set, Some(&cache));
        assert_eq!(index.score("git"), SkillIndex::build(&set).score("git"));
        // The rebuilt index was stored again.
        assert!(load(&file, fingerprint(&set, &Params::default()), set.len()).is_some());
        // A whole file whose postings point past the catalog is refused.
        let mut stored = SkillIndex::build(&set).to_stored(1);
        stored.postings[0].push(Posting {
            doc: 99,
            name_tf: 1,
            desc_tf: 0,
        });
        assert!(SkillIndex::from_stored(stored, set.len()).is_none());
    }

    #[test]
    fn a_preloaded_index_is_taken_only_for_the_skills_it_was_built_from() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::at(dir.path());
        assert!(SkillIndex::preload_latest(&cache).is_none(), "no index folder yet");
        let (old, newer) = (skills(30, "csv"), skills(40, "pdf"));
        SkillIndex::cached(&old, Some(&cache));
        SkillIndex::cached(&newer, Some(&cache));
        // The one used last is the one read ahead.
        let files: Vec<_> = std::fs::read_dir(dir.path().join("index")).unwrap().collect();
        assert_eq!(files.len(), 2);
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        let newest = cache.file(
            "index",
            &format!("{:016x}.bin", fingerprint(&newer, &Params::default())),
        );
        std::fs::File::open(&newest).unwrap().set_modified(later).unwrap();
        let preloaded = SkillIndex::preload_latest(&cache).unwrap();
        assert_eq!(preloaded.file, newest);
        let taken = SkillIndex::cached_or_preloaded(&newer, Some(&cache), Some(preloaded));
        assert_eq!(
            taken.score("pdf variant 7"),
            SkillIndex::build(&newer).score("pdf variant 7")
        );
        // Another library's index is not taken: the right one is loaded instead.
        let wrong = SkillIndex::preload_latest(&cache);
        let other = SkillIndex::cached_or_preloaded(&old, Some(&cache), wrong);
        assert_eq!(
            other.score("csv variant 3"),
            SkillIndex::build(&old).score("csv variant 3")
        );
        assert_eq!(other.name_len.len(), old.len());
        // A damaged newest file reads as nothing, never as an error.
        std::fs::write(&newest, b"not an index").unwrap();
        std::fs::File::open(&newest).unwrap().set_modified(later).unwrap();
        assert!(SkillIndex::preload_latest(&cache).is_none());
    }
}
