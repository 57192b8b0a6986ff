//! Protected places beneath writable places (docs/sandbox.md, "Protected places inside a writable
//! folder"). Landlock grants a whole folder, so a working folder of `~/.config` (or `~/.local`,
//! `~/.agents`, a folder the user `--allow-write`s) would open the agent's own `.env`, its trust
//! records, skill roots and the lock with it. Every protected place ([`super::protected`]) lying
//! beneath a writable place is therefore kept read-only in the command's mount namespace, as `.git`
//! is ([`super::readonly`]):
//!
//! - one that exists is bound onto itself read-only;
//! - every folder between the writable place and it is bound onto itself (writable), so it is a
//!   mount point, which cannot be renamed or removed: `mv ~/.config/x ~/.config/y` cannot carry a
//!   kept place away and put a fresh, writable one in its stead;
//! - a missing *folder* place (`~/.config/agent` before any configuration) is created empty before
//!   the command, then kept like the others: a mount needs something to mount on, and the folders
//!   are the agent's own or empty ones nothing reads differently;
//! - a missing *file* place (`~/.bash_profile` under a `--allow-write ~`), a place that is itself a
//!   symlink inside the writable place (it could be replaced), or any of them where the machine
//!   gives commands no mount namespace, cannot be kept: such a command is not run without asking
//!   ([`Guard::unguarded`]).
//!
//! Only the user's `--allow-write` of exactly that place opens it.

use std::path::{Path, PathBuf};

use super::Mode;
use super::policy::{Grant, Settings, Writable};
use super::protected::{Kind, Place, Protected};

/// What keeps the protected places beneath the writable ones out of a command's reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Guard {
    /// Places to keep read-only, with what they are (`~/.ssh: your SSH keys`).
    pub(crate) kept: Vec<(PathBuf, String)>,
    /// Folders between a writable place and a kept one, bound onto themselves so they cannot be
    /// renamed away; parents first.
    pub(crate) pinned: Vec<PathBuf>,
    /// Missing folder places to create (empty, mode 0700) before the command, then keep.
    pub(crate) create: Vec<PathBuf>,
    /// Places that cannot be kept read-only, in words: commands are then asked about.
    pub(crate) unguarded: Vec<String>,
    /// Protected files beneath a writable place that do not exist yet (summed up in `unguarded`).
    missing_files: Vec<PathBuf>,
}

/// The guard for these writable places: every protected place strictly beneath one of them,
/// unless the user's `--allow-write` names exactly that place. `namespaces` says whether this
/// machine gives commands a mount namespace of their own.
pub(crate) fn beneath(write: &[Writable], protected: &Protected, namespaces: bool) -> Guard {
    let mut guard = Guard::default();
    let opened: Vec<&Path> = write
        .iter()
        .filter(|w| w.grant == Grant::AllowWrite)
        .map(|w| w.real.as_path())
        .collect();
    for w in write.iter().filter(|w| !w.file) {
        for place in protected.places() {
            judge(&mut guard, &w.real, place, &opened);
        }
    }
    if !namespaces {
        let why = "this machine gives commands no mount namespace, so it cannot be kept read-only";
        let kept = std::mem::take(&mut guard.kept);
        guard
            .unguarded
            .extend(kept.into_iter().map(|(_, what)| format!("{what} ({why})")));
        guard.pinned.clear();
        guard.create.clear();
    }
    if !guard.missing_files.is_empty() {
        let files: Vec<String> = guard.missing_files.iter().map(|p| p.display().to_string()).collect();
        guard.unguarded.push(format!(
            "startup and configuration files that do not exist yet ({}: a file cannot be kept read-only before it exists)",
            files.join(", ")
        ));
    }
    guard.pinned.sort_by_key(|p| p.components().count());
    guard
}

/// Add what keeps `place` out of the writable folder `dir`, if it lies beneath it.
fn judge(guard: &mut Guard, dir: &Path, place: &Place, opened: &[&Path]) {
    let inside = |p: &Path| p != dir && p.starts_with(dir);
    let is_opened = |p: &Path| opened.contains(&p) || opened.contains(&place.path.as_path());
    // The entry itself is beneath and is a link: it could be removed and replaced by a real
    // folder; a mount cannot be put on a link.
    let link = std::fs::symlink_metadata(&place.entry).is_ok_and(|m| m.file_type().is_symlink());
    if inside(&place.entry) && link && !is_opened(&place.entry) {
        if !matches!(place.kind, Kind::ProjectRoot | Kind::Work) {
            push(
                &mut guard.unguarded,
                format!("{} (a symlink, which a command could replace)", place.describe()),
            );
        }
        return;
    }
    let target = &place.real;
    if !inside(target) || is_opened(target) {
        return;
    }
    let exists = std::fs::symlink_metadata(target).is_ok();
    match (exists, place.kind) {
        (true, _) => {}
        (false, Kind::Folder) => push(&mut guard.create, target.clone()),
        (false, Kind::File) => {
            push(&mut guard.missing_files, target.clone());
            return;
        }
        // Guarded by folder trust, and by the sweep after each command.
        (false, Kind::ProjectRoot | Kind::Work) => return,
    }
    if !guard.kept.iter().any(|(p, _)| p == target) {
        guard.kept.push((target.clone(), place.describe()));
    }
    for folder in target.ancestors().skip(1).take_while(|a| inside(a)) {
        push(&mut guard.pinned, folder.to_path_buf());
    }
}

fn push<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Create the missing folder places of `guard` (empty, mode 0700), so they can be kept.
pub(crate) fn create_missing(guard: &Guard) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    for path in &guard.create {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path)?;
    }
    Ok(())
}

impl Settings {
    /// Said once when the run starts: the working folder is inside a protected place, or holds
    /// some (the agent's own configuration, a skill root, `~/.ssh` …), and what commands may do
    /// there. `None` for an ordinary folder (`.git` and project skills are not news).
    pub(crate) fn protected_warning(&self) -> Option<String> {
        if self.mode == Mode::Off || !self.kernel.filesystem() {
            return None;
        }
        let (write, skipped) = self.grants(None, &[]);
        if let Some(s) = skipped.iter().find(|s| s.grant == Grant::WorkingDir) {
            return (s.reason != "does not exist").then(|| format!("the working folder {} {}", s.path, s.reason));
        }
        let own: Vec<Writable> = write.into_iter().filter(|w| w.grant == Grant::WorkingDir).collect();
        let dir = own.first()?.real.clone();
        let held: Vec<String> = self
            .protected
            .places()
            .iter()
            .filter(|p| matches!(p.kind, Kind::Folder | Kind::File))
            .filter(|p| [&p.real, &p.entry].iter().any(|t| *t != &dir && t.starts_with(&dir)))
            .map(Place::describe)
            .collect();
        if held.is_empty() {
            return None;
        }
        let guard = beneath(&own, &self.protected, super::readonly::available().is_ok());
        let mut text = format!(
            "the working folder {} holds protected places ({}): commands may write the folder but not them",
            self.cwd.display(),
            held.join("; ")
        );
        if !guard.unguarded.is_empty() {
            text.push_str(&format!(
                "; {} cannot be kept read-only here, so commands are asked about first (not run without a terminal)",
                guard.unguarded.join("; ")
            ));
        }
        Some(text)
    }
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
