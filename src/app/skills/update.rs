//! `agent skills update [NAME]`, from `skills-lock.json`: fetch each source again,
//! show what an update would change, and replace only after a yes (or `--yes`).

use std::path::Path;

use super::add::{Flags, fetch, fix_decision, install_one, problems_of};
use super::installed::entries;
use crate::exec::trust::{ManifestStore, is_unchanged};
use crate::exit::{AppError, Cause, ExitCode};
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

/// `skills update [NAME]` (its own name or its folder's): fetch each source again, show the difference, replace after a yes.
pub(crate) async fn update(
    roots: &[&Path],
    only: Option<&str>,
    (yes, force): (bool, bool),
    asker: &dyn LibraryAsker,
) -> Result<SkillsUpdated, AppError> {
    let mut skills = Vec::new();
    for (root, name, entry) in entries(roots, only)? {
        let source = source_of(&entry);
        let fetched = fetch(&source).await?;
        let view = as_installed(&fetched.tree, &entry, &name)?;
        let tree = view.path();
        let dir = root.join(&name);
        let edited = dir.is_dir() && !is_unchanged(&dir, &entry.hash);
        let diff = FolderDiff::between(&dir, tree);
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
            super::verify::require_signature(tree, &entry.source)?;
        }
        if update.outcome == UpdateOutcome::Updated {
            let candidate = Candidate {
                name: name.clone(),
                description: String::new(),
                dir: tree.to_path_buf(),
                subdir: None,
            };
            let flags = Flags {
                fix: fix_decision(false, &problems_of(tree), 1, asker),
                force,
                rename: false,
            };
            let installed = install_one(&candidate, &name, &root, true, flags, asker)?;
            let new = (installed.hash, installed.audit, installed.digest);
            record(&root, &name, &entry, fetched.commit.clone(), new)?;
        }
        skills.push(update);
    }
    Ok(SkillsUpdated { skills })
}

/// A fetched skill as it would be installed: the tree itself, or for a skill installed under
/// another name (`--as`, `renamed_from` in the lock) a renamed copy in a temporary folder, so the
/// difference shown, the audit and the content hash are those of what gets installed.
pub(super) struct View {
    path: std::path::PathBuf,
    /// The temporary folder holding a renamed copy, removed when the view is dropped.
    _copy: Option<tempfile::TempDir>,
}

impl View {
    /// Where the skill is, as installed.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

/// [`View`] of `tree`, the source of the lock entry `name`.
pub(super) fn as_installed(tree: &Path, entry: &LockEntry, name: &str) -> Result<View, AppError> {
    if entry.renamed_from.is_none() {
        return Ok(View {
            path: tree.to_path_buf(),
            _copy: None,
        });
    }
    let fail = |e: Cause| AppError::context(ExitCode::Config, format!("cannot prepare {name} as it is installed"), e);
    let tmp = tempfile::Builder::new()
        .prefix("agent-renamed-")
        .tempdir()
        .map_err(|e| fail(e.into()))?;
    let staged = crate::skills::library::install::stage(tree, tmp.path(), name).map_err(|e| fail(e.into()))?;
    crate::skills::library::rename::rename(&staged, name).map_err(|e| fail(e.into()))?;
    Ok(View {
        path: staged,
        _copy: Some(tmp),
    })
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
type Recorded = (String, Option<crate::audit::Verdict>, Option<String>);

/// Write the new commit, time, hash, verdict and digest of `name` into the lock of `root`.
fn record(
    root: &Path,
    name: &str,
    old: &LockEntry,
    commit: Option<String>,
    (hash, audit, digest): Recorded,
) -> Result<(), AppError> {
    let mut lock = LockFile::read(root).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
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
    lock.write(root).map_err(|e| AppError::from_source(ExitCode::Config, e))
}
