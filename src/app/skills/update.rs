//! `agent skills update [NAME]`, from `skills-lock.json`: fetch each source again,
//! show what an update would change, and replace only after a yes (or `--yes`).

use std::path::Path;

use super::add::{fetch, fix_decision, install_one, problems_of};
use crate::exec::trust::{ManifestStore, is_unchanged};
use crate::exit::AppError;
use crate::output::library::{LibraryAsker, SkillUpdate, SkillsUpdated, UpdateOutcome};
use crate::skills::library::diff::FolderDiff;
use crate::skills::library::install::Candidate;
use crate::skills::library::lock::{LockEntry, LockFile, now_rfc3339};
use crate::skills::library::source::{Location, Source};

/// The source of a lock entry, to fetch again.
pub(super) fn source_of(entry: &LockEntry) -> Source {
    let local = Path::new(&entry.source);
    let location = if local.is_absolute() && entry.commit.is_none() {
        Location::Local(local.to_path_buf())
    } else {
        Location::Git(entry.source.clone())
    };
    Source {
        location,
        reference: entry.reference.clone(),
        subdir: entry.subdir.clone(),
    }
}

/// The lock entries of `roots` (in order), with their root; `only` limits them to one name.
pub(super) fn entries(
    roots: &[&Path],
    only: Option<&str>,
) -> Result<Vec<(std::path::PathBuf, String, LockEntry)>, AppError> {
    let mut found = Vec::new();
    for root in roots {
        let lock = LockFile::read(root).map_err(|e| AppError::config(e.to_string()))?;
        for (name, entry) in lock.skills {
            if only.is_none_or(|o| o == name) {
                found.push((root.to_path_buf(), name, entry));
            }
        }
    }
    if let Some(name) = only
        && found.is_empty()
    {
        return Err(AppError::usage(format!(
            "{name} was not installed with `agent skills add` (no skills-lock.json lists it); \
             `agent skills add SOURCE` installs and records a skill"
        )));
    }
    Ok(found)
}

/// `skills update [NAME]`: fetch each source again, show the difference, replace after a yes.
pub async fn update(
    roots: &[&Path],
    only: Option<&str>,
    (yes, force): (bool, bool),
    asker: &dyn LibraryAsker,
) -> Result<SkillsUpdated, AppError> {
    let mut skills = Vec::new();
    for (root, name, entry) in entries(roots, only)? {
        let source = source_of(&entry);
        let fetched = fetch(&source).await?;
        let dir = root.join(&name);
        let edited = dir.is_dir() && !is_unchanged(&dir, &entry.hash);
        let diff = FolderDiff::between(&dir, &fetched.tree);
        let mut update = SkillUpdate {
            name: name.clone(),
            dir: dir.clone(),
            from_commit: entry.commit.clone(),
            to_commit: fetched.commit.clone(),
            edited,
            diff,
            outcome: UpdateOutcome::UpToDate,
        };
        if update.diff.is_empty() {
            if fetched.commit != entry.commit {
                let kept = (
                    ManifestStore::load().record(&dir),
                    entry.audit.clone(),
                    entry.digest.clone(),
                );
                record(&root, &name, &entry, fetched.commit.clone(), kept)?;
            }
            skills.push(update);
            continue;
        }
        update.outcome = decide(&update, yes, asker);
        if update.outcome == UpdateOutcome::Updated {
            super::verify::require_signature(&fetched.tree, &entry.source)?;
        }
        if update.outcome == UpdateOutcome::Updated {
            let candidate = Candidate {
                name: name.clone(),
                description: String::new(),
                dir: fetched.tree.clone(),
                subdir: None,
            };
            let fix = fix_decision(false, &problems_of(&fetched.tree), 1, asker);
            let installed = install_one(&candidate, &name, &root, true, (fix, force), asker)?;
            let new = (installed.hash, installed.audit, installed.digest);
            record(&root, &name, &entry, fetched.commit.clone(), new)?;
        }
        skills.push(update);
    }
    Ok(SkillsUpdated { skills })
}

/// Take `--yes`, or show the pending change to a person and ask.
fn decide(update: &SkillUpdate, yes: bool, asker: &dyn LibraryAsker) -> UpdateOutcome {
    if yes {
        UpdateOutcome::Updated
    } else if !asker.can_ask() {
        UpdateOutcome::NotConfirmed
    } else if asker.confirm_update(update) {
        UpdateOutcome::Updated
    } else {
        UpdateOutcome::Declined
    }
}

/// The content hash, audit verdict and digest a lock entry records.
type Recorded = (String, Option<crate::skills::audit::Verdict>, Option<String>);

/// Write the new commit, time, hash, verdict and digest of `name` into the lock of `root`.
fn record(
    root: &Path,
    name: &str,
    old: &LockEntry,
    commit: Option<String>,
    (hash, audit, digest): Recorded,
) -> Result<(), AppError> {
    let mut lock = LockFile::read(root).map_err(|e| AppError::config(e.to_string()))?;
    lock.skills.insert(
        name.to_string(),
        LockEntry {
            commit,
            hash,
            audit,
            digest,
            installed_at: now_rfc3339(),
            ..old.clone()
        },
    );
    lock.write(root).map_err(|e| AppError::config(e.to_string()))
}
