//! Places that run code later, created by a command inside a writable folder
//! (docs/design.md#sandbox). Those that exist are kept read-only with a mount
//! ([`super::readonly`]), but a mount needs something to mount on: a command could still create a
//! new `.envrc` (direnv runs it when the user enters the folder), `.vscode` or `.idea` (editors run
//! their tasks), `.githooks` or `.husky` (hook folders), or a nested repository's `.git` (its hooks
//! and `core.fsmonitor` run at the user's next `git status` there).
//!
//! Creation cannot be prevented without making the whole folder read-only, so such entries are
//! removed after the command ends (all its processes are gone by then), and the user and model
//! are told, naming each. What was there before is never touched: the writable folders are walked
//! before the command and after it, and only an entry that was not there before is removed.
//!
//! The walk is bounded ([`MAX_ENTRIES`] entries, [`MAX_DEPTH`] levels): a folder beyond that was
//! not listed before, so nothing in it is judged new or removed (docs/sandbox.md says so). It
//! never follows a symlink, never enters a place kept read-only, and removal takes a symlink
//! itself, never what it points to. A place the user's `--allow-write` opened is left alone.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use super::policy::{Grant, Policy};
use super::readonly::KEPT_READ_ONLY;

/// At most this many entries are looked at per walk, over all writable folders.
pub(crate) const MAX_ENTRIES: usize = 20_000;
/// Folders deeper than this below a writable folder are not looked into.
pub(crate) const MAX_DEPTH: usize = 8;

/// What to watch for one command: the writable folders and what to leave alone.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watch {
    roots: Vec<PathBuf>,
    /// Places kept read-only (nothing can appear there) and places the user opened.
    skip: Vec<PathBuf>,
}

impl Watch {
    /// The writable folders of `policy` (not the temp folders, not single files), minus its kept
    /// places and any `--allow-write` place inside or holding a name of [`KEPT_READ_ONLY`].
    pub(crate) fn of(policy: &Policy) -> Self {
        let roots = policy
            .write
            .iter()
            .filter(|w| !w.file && !matches!(w.grant, Grant::Temp | Grant::ToolCache))
            .map(|w| w.real.clone())
            .collect();
        let mut skip = policy.read_only.clone();
        skip.extend(
            policy
                .write
                .iter()
                .filter(|w| w.grant == Grant::AllowWrite && w.real.iter().any(|c| is_kept(c.as_encoded_bytes())))
                .map(|w| w.real.clone()),
        );
        Self { roots, skip }
    }
}

/// The writable folders as they were before a command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    watch: Watch,
    /// Folders whose every entry was seen.
    listed: HashSet<PathBuf>,
    /// Every entry of those folders.
    entries: HashSet<PathBuf>,
}

/// One entry removed after a command, and why it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Removed {
    /// The entry the command created.
    pub(crate) path: PathBuf,
    /// Why it may not stay (what would run it).
    pub(crate) why: &'static str,
    /// Why it could not be removed, if it could not.
    pub(crate) failed: Option<String>,
}

impl Removed {
    /// A line for the user and the model.
    pub(crate) fn message(&self) -> String {
        match &self.failed {
            None => format!(
                "removed {}: the command created it, and {}; new ones are not kept inside the folders commands may write",
                self.path.display(),
                self.why
            ),
            Some(e) => format!(
                "the command created {}, and {}; it could not be removed ({e}): remove it before using that folder",
                self.path.display(),
                self.why
            ),
        }
    }
}

/// What a sweep removed, and whether it looked at everything it meant to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Swept {
    /// What was removed (or could not be).
    pub(crate) removed: Vec<Removed>,
    /// The command made more entries than the walk looks at: some new folders were not checked.
    pub(crate) incomplete: bool,
}

impl Swept {
    fn take_out(&mut self, path: PathBuf) {
        let name = path
            .file_name()
            .map(|n| n.as_encoded_bytes().to_vec())
            .unwrap_or_default();
        let failed = remove(&path).err().map(|e| e.to_string());
        self.removed.push(Removed {
            why: why(&name),
            path,
            failed,
        });
    }

    /// Lines for the user and the model: each removal, and a walk cut short.
    pub(crate) fn messages(&self) -> Vec<String> {
        let mut out: Vec<String> = self.removed.iter().map(Removed::message).collect();
        if self.incomplete {
            out.push(format!(
                "the command made more than {MAX_ENTRIES} entries in the folders it may write, so not all of them were checked \
                 for a new .git, .envrc, .vscode, .idea, .githooks or .husky (which run later); look before using them"
            ));
        }
        out
    }
}

impl Snapshot {
    /// List the watched folders (bounded) before the command.
    pub(crate) fn before(watch: Watch) -> Self {
        let mut snap = Self {
            watch,
            ..Self::default()
        };
        // Directly inside each writable folder, looked up by name whatever the walk reaches.
        for root in &snap.watch.roots {
            for name in KEPT_READ_ONLY {
                let path = root.join(name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    snap.entries.insert(path);
                }
            }
        }
        let mut budget = MAX_ENTRIES;
        let mut queue: VecDeque<(PathBuf, usize)> = snap.watch.roots.iter().map(|r| (r.clone(), 0)).collect();
        while let Some((dir, depth)) = queue.pop_front() {
            let Some(children) = list(&dir, &mut budget) else {
                break;
            };
            for (path, descend) in children {
                if descend && depth < MAX_DEPTH && !snap.skipped(&path) {
                    queue.push_back((path.clone(), depth + 1));
                }
                snap.entries.insert(path);
            }
            snap.listed.insert(dir);
        }
        snap
    }

    /// After the command: remove every entry named in [`KEPT_READ_ONLY`] that was not there
    /// before, and say which.
    pub(crate) fn sweep(&self) -> Swept {
        let mut swept = Swept::default();
        // Directly inside a writable folder, looked up by name (before and after): however many
        // entries a command makes there, these are never missed.
        for root in &self.watch.roots {
            for name in KEPT_READ_ONLY {
                let path = root.join(name);
                if std::fs::symlink_metadata(&path).is_ok() && !self.entries.contains(&path) && !self.skipped(&path) {
                    swept.take_out(path);
                }
            }
        }
        // Twice the budget of the listing before: a folder listed then is listed again.
        let mut budget = 2 * MAX_ENTRIES;
        // (folder, depth, whether it is new: everything in a new folder is new)
        let mut queue: VecDeque<(PathBuf, usize, bool)> = self
            .watch
            .roots
            .iter()
            .filter(|r| self.listed.contains(*r))
            .map(|r| (r.clone(), 0, false))
            .collect();
        while let Some((dir, depth, new_dir)) = queue.pop_front() {
            let Some(children) = list(&dir, &mut budget) else {
                swept.incomplete = true;
                break;
            };
            for (path, descend) in children {
                let new = new_dir || !self.entries.contains(&path);
                let kept_name = path.file_name().is_some_and(|n| is_kept(n.as_encoded_bytes()));
                if new && kept_name && !self.skipped(&path) {
                    swept.take_out(path);
                    continue;
                }
                let known = self.listed.contains(&path);
                if descend && depth < MAX_DEPTH && (new || known) && !self.skipped(&path) {
                    queue.push_back((path, depth + 1, new));
                }
            }
        }
        swept
    }

    /// The places of [`KEPT_READ_ONLY`] found deeper than directly inside a writable folder (a
    /// nested repository's `.git`), at most `max`: kept read-only for the command too.
    pub(crate) fn nested(&self, max: usize) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| is_kept(n.as_encoded_bytes())))
            .filter(|p| !p.parent().is_some_and(|d| self.watch.roots.iter().any(|r| r == d)))
            .filter(|p| !self.skipped(p))
            .cloned()
            .collect();
        found.sort();
        found.truncate(max);
        found
    }

    fn skipped(&self, path: &Path) -> bool {
        self.watch.skip.iter().any(|s| path.starts_with(s))
    }
}

/// The entries of `dir` and whether each is a folder to walk into (not a symlink, not a kept
/// name); `None` once the budget is spent, so a half-listed folder is never judged.
fn list(dir: &Path, budget: &mut usize) -> Option<Vec<(PathBuf, bool)>> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    for entry in read.flatten() {
        *budget = budget.checked_sub(1)?;
        // The entry's own type: a symlink is never followed.
        let folder = entry.file_type().is_ok_and(|t| t.is_dir());
        let kept = is_kept(entry.file_name().as_encoded_bytes());
        out.push((entry.path(), folder && !kept));
    }
    Some(out)
}

fn is_kept(name: &[u8]) -> bool {
    KEPT_READ_ONLY.iter().any(|k| k.as_bytes() == name)
}

/// Remove `path` without following a symlink (a link is removed itself; `remove_dir_all` does not
/// follow links inside).
fn remove(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// What runs an entry of this name later.
fn why(name: &[u8]) -> &'static str {
    match name {
        b".git" => "git runs a repository's hooks and configuration at the next git command there",
        b".envrc" => "direnv runs it when you enter the folder",
        b".githooks" | b".husky" => "git runs the hooks there once they are configured",
        _ => "editors run its tasks and settings when the folder is opened",
    }
}

#[cfg(test)]
#[path = "planted_tests.rs"]
mod tests;
