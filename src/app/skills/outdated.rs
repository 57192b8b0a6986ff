//! `agent skills outdated`: each installed skill against its source now. Each source
//! (URL and ref) is asked once, however many of its skills are installed — a thousand skills from
//! four repositories make four `git ls-remote` calls, not a thousand — and a skill from a
//! repository of many is outdated only when its own folder changed: a source that moved on is
//! fetched once, and each of its skills is compared as `skills update` would compare it.

use std::collections::HashMap;
use std::path::Path;

use super::installed::entries;
use super::update::{as_installed, source_of};
use crate::exec::trust::is_unchanged;
use crate::exit::AppError;
use crate::output::library::{OutdatedSkill, SkillsOutdated, Standing};
use crate::skills::library::diff::FolderDiff;
use crate::skills::library::git;
use crate::skills::library::lock::LockEntry;
use crate::skills::library::source::Location;

/// A git source as asked: its URL and the ref its skills follow.
type SourceKey = (String, Option<String>);

/// What one run learnt of each git source: the commit its ref names now, and the tree at that
/// commit once fetched (`None` when the fetch failed).
#[derive(Default)]
struct Sources {
    latest: HashMap<SourceKey, Result<Option<String>, String>>,
    trees: HashMap<SourceKey, Option<tempfile::TempDir>>,
}

impl Sources {
    /// The commit `key`'s ref names now (`None` for a commit id: pinned), asked once per source.
    /// The error is text: it is kept for every skill of the source (so it must be `Clone`) and
    /// shown only as the reason in that skill's row.
    async fn latest(&mut self, key: &SourceKey) -> Result<Option<String>, String> {
        if let Some(known) = self.latest.get(key) {
            return known.clone();
        }
        let asked = git::remote_commit(&key.0, key.1.as_deref())
            .await
            .map_err(|e| e.to_string());
        self.latest.insert(key.clone(), asked.clone());
        asked
    }

    /// The source's files now, fetched once per source.
    async fn tree(&mut self, key: &SourceKey) -> Option<&Path> {
        if !self.trees.contains_key(key) {
            let dir = tempfile::Builder::new().prefix("agent-outdated-").tempdir().ok();
            let fetched = match &dir {
                Some(d) => git::fetch(&key.0, key.1.as_deref(), d.path()).await.is_ok(),
                None => false,
            };
            self.trees.insert(key.clone(), dir.filter(|_| fetched));
        }
        self.trees.get(key)?.as_ref().map(tempfile::TempDir::path)
    }
}

/// `skills outdated`: each installed skill against its source now.
pub(crate) async fn outdated(roots: &[&Path]) -> Result<SkillsOutdated, AppError> {
    let mut sources = Sources::default();
    let mut skills = Vec::new();
    for (root, name, entry) in entries(roots, None)? {
        let dir = root.join(&name);
        let edited = dir.is_dir() && !is_unchanged(&dir, &entry.hash);
        let (latest, standing) = standing(&entry, &name, &dir, &mut sources).await;
        skills.push(OutdatedSkill {
            name,
            dir,
            source: entry.source.clone(),
            reference: entry.reference.clone(),
            installed: entry.commit.clone(),
            latest,
            standing,
            edited,
        });
    }
    Ok(SkillsOutdated { skills })
}

/// Where the skill installed in `dir` from `entry` stands against its source now.
async fn standing(entry: &LockEntry, name: &str, dir: &Path, sources: &mut Sources) -> (Option<String>, Standing) {
    let url = match source_of(entry).location {
        Location::Local(folder) => return (None, local_standing(entry, name, &folder)),
        Location::Git(url) => url,
    };
    let key = (url, entry.reference.clone());
    let commit = match sources.latest(&key).await {
        Ok(None) => return (None, Standing::Pinned),
        Ok(Some(commit)) => commit,
        Err(reason) => return (None, Standing::Unknown { reason }),
    };
    if entry.commit.as_deref() == Some(commit.as_str()) {
        return (Some(commit), Standing::UpToDate);
    }
    let Some(subdir) = &entry.subdir else {
        // The whole repository is the skill: a new commit is a change to it.
        return (Some(commit), Standing::Outdated);
    };
    let standing = match sources.tree(&key).await {
        Some(tree) if tree.join(subdir).is_dir() => {
            let view = as_installed(&tree.join(subdir), entry, name);
            if view.is_ok_and(|v| FolderDiff::between(dir, v.path()).is_empty()) {
                Standing::UpToDate
            } else {
                Standing::Outdated
            }
        }
        Some(_) => Standing::Unknown {
            reason: format!("{subdir} is no longer in the source"),
        },
        // Cannot look inside: say what the commit says.
        None => Standing::Outdated,
    };
    (Some(commit), standing)
}

/// A skill copied from a local folder: outdated when the folder's content differs.
fn local_standing(entry: &LockEntry, name: &str, folder: &Path) -> Standing {
    let dir = match &entry.subdir {
        Some(sub) => folder.join(sub),
        None => folder.to_path_buf(),
    };
    if !dir.is_dir() {
        return Standing::Unknown {
            reason: format!("{} no longer exists", dir.display()),
        };
    }
    if as_installed(&dir, entry, name).is_ok_and(|v| is_unchanged(v.path(), &entry.hash)) {
        Standing::UpToDate
    } else {
        Standing::Outdated
    }
}
