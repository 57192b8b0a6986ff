//! Watching skill roots with file-system events (the `notify` crate). Each root, each folder in
//! it (through symlinks: a watch follows a link to its target, so edits there are seen under
//! the link's path) and each folder's `agents/` are watched on their own, not recursively: that
//! is everything loading reads, and a skill's `scripts/` or `node_modules/` cost nothing. A
//! root that does not exist yet is noticed through the nearest folder above it that does.
//! Events are handled on `notify`'s thread by marking what they concern; nothing is read there.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::barrier::{Barrier, Seen};
use super::{Changes, Concern, concern};
use crate::skills::roots::skill_dirs::is_ignored;

/// Why the roots cannot be watched with events (the chat then polls instead).
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    #[error("cannot watch the skill roots: {0}")]
    Start(#[source] notify::Error),
    #[error("cannot watch {}: {source}", path.display())]
    Path { path: PathBuf, source: notify::Error },
}

/// Watches over a set of roots, and what their events marked since the last look.
pub(crate) struct Events {
    watcher: RecommendedWatcher,
    roots: Vec<PathBuf>,
    marked: Arc<Mutex<Changes>>,
    watched: HashSet<PathBuf>,
    /// Marks in the event queue, so a look sees every edit made before it.
    barrier: Option<Barrier>,
    seen: Arc<Seen>,
}

impl Events {
    /// Watch `roots` and the folders in them; an error when watching is not possible here (no
    /// inotify, the limit on watches reached).
    pub(crate) fn start(roots: Vec<PathBuf>) -> Result<Self, WatchError> {
        let marked = Arc::new(Mutex::new(Changes::default()));
        let seen = Arc::new(Seen::default());
        let barrier = Barrier::new();
        let fence = barrier.as_ref().map(Barrier::dir);
        let (sink, known, noted) = (marked.clone(), roots.clone(), seen.clone());
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let (Some(fence), Ok(event)) = (&fence, &event)
                && event.paths.iter().any(|p| noted.note(fence, p))
            {
                return;
            }
            mark(&sink, &known, event);
        })
        .map_err(WatchError::Start)?;
        let mut events = Self {
            watcher,
            roots,
            marked,
            watched: HashSet::new(),
            barrier,
            seen,
        };
        if let Some(dir) = events.barrier.as_ref().map(Barrier::dir)
            && events.watcher.watch(&dir, RecursiveMode::NonRecursive).is_err()
        {
            events.barrier = None;
        }
        events.watch_roots()?;
        Ok(events)
    }

    /// What changed since the last look, including edits made just before it.
    pub(crate) fn take(&mut self) -> Option<Changes> {
        if let Some(barrier) = &mut self.barrier {
            barrier.pass(&self.seen);
        }
        self.marked.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// After a scan: watch the changed folders again (a re-pointed link watches its new target)
    /// and, when a root changed, whatever is not watched yet.
    pub(crate) fn follow(&mut self, changes: &Changes) -> Result<(), WatchError> {
        for folder in &changes.folders {
            for path in [folder.join("agents"), folder.clone()] {
                if self.watched.remove(&path) {
                    // Gone already when its folder was removed.
                    let _ = self.watcher.unwatch(&path);
                }
            }
            if !is_ignored(&folder.file_name().unwrap_or_default().to_string_lossy()) && folder.is_dir() {
                self.watch_folder(folder)?;
            }
        }
        if changes.roots {
            self.watch_roots()?;
        }
        Ok(())
    }

    /// Watch every root and every folder in it that is not watched yet; for a missing root, the
    /// nearest folder above it.
    fn watch_roots(&mut self) -> Result<(), WatchError> {
        for root in self.roots.clone() {
            if !root.is_dir() {
                if let Some(above) = root.ancestors().skip(1).find(|p| p.is_dir()) {
                    self.watch(above)?;
                }
                continue;
            }
            self.watch(&root)?;
            let Ok(entries) = std::fs::read_dir(&root) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let kind = entry.file_type().ok();
                if is_ignored(&entry.file_name().to_string_lossy()) || kind.is_some_and(|k| k.is_file()) {
                    continue;
                }
                let path = entry.path();
                if !self.watched.contains(&path) {
                    self.watch_folder(&path)?;
                }
            }
        }
        Ok(())
    }

    /// Watch a skill folder and its `agents/` when there is one. The folder is not stamped
    /// first: a link to a file is watched as that file (harmless), a broken one is skipped.
    fn watch_folder(&mut self, folder: &Path) -> Result<(), WatchError> {
        self.watch(folder)?;
        let agents = folder.join("agents");
        if agents.is_dir() {
            self.watch(&agents)?;
        }
        Ok(())
    }

    fn watch(&mut self, path: &Path) -> Result<(), WatchError> {
        if self.watched.contains(path) {
            return Ok(());
        }
        match self.watcher.watch(path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                self.watched.insert(path.to_path_buf());
                Ok(())
            }
            // Removed since it was listed, or not ours to read (loading will say so).
            Err(e) if skippable(&e) => Ok(()),
            Err(source) => Err(WatchError::Path {
                path: path.to_path_buf(),
                source,
            }),
        }
    }
}

fn skippable(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
        ),
        _ => false,
    }
}

/// On `notify`'s thread: mark what an event concerns. Opening and reading files (discovery's own
/// reads among them) change nothing and are not marked.
fn mark(marked: &Mutex<Changes>, roots: &[PathBuf], event: notify::Result<notify::Event>) {
    let mut changes = marked.lock().unwrap_or_else(PoisonError::into_inner);
    let event = match event {
        Ok(event) => event,
        // Events may have been lost.
        Err(_) => {
            changes.roots = true;
            return;
        }
    };
    if event.need_rescan() {
        changes.roots = true;
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    for path in &event.paths {
        match concern(path, roots) {
            Concern::Folder(folder) => {
                changes.folders.insert(folder);
            }
            Concern::Root => changes.roots = true,
            Concern::Nothing => {}
        }
    }
}

/// Why events cannot be trusted for these roots, if so: a root on a network or user-space file
/// system, which may change without telling this machine's kernel.
pub(crate) fn unwatchable(roots: &[PathBuf]) -> Option<String> {
    roots
        .iter()
        .find_map(|root| remote(root).map(|fs| format!("{} is on {fs}", root.display())))
}

#[cfg(target_os = "linux")]
fn remote(path: &Path) -> Option<&'static str> {
    const KINDS: [(i64, &str); 8] = [
        (0x6969, "NFS"),
        (0x517B, "SMB"),
        (0xFF53_4D42, "CIFS"),
        (0xFE53_4D42, "SMB2"),
        (0x6573_5546, "FUSE"),
        (0x0102_1997, "9P"),
        (0x5346_414F, "AFS"),
        (0x00C3_6400, "Ceph"),
    ];
    let fs = rustix::fs::statfs(path).ok()?;
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    let kind = i64::from(fs.f_type as i64);
    KINDS.iter().find(|(magic, _)| *magic == kind).map(|(_, name)| *name)
}

#[cfg(not(target_os = "linux"))]
fn remote(_path: &Path) -> Option<&'static str> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events arrive on their own thread: look until what is expected was marked, for at most
    /// ten seconds.
    fn seen(events: &mut Events, expected: impl Fn(&Changes) -> bool) -> Changes {
        let mut all = Changes::default();
        for _ in 0..1000 {
            if let Some(changes) = events.take() {
                all.folders.extend(changes.folders);
                all.roots |= changes.roots;
                if expected(&all) {
                    return all;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("not seen; marked {all:?}");
    }

    #[test]
    fn edits_renames_links_and_new_roots_are_marked() {
        let base = tempfile::tempdir().unwrap();
        let (root, elsewhere, later) = (
            base.path().join("skills"),
            base.path().join("elsewhere"),
            base.path().join("later/skills"),
        );
        for dir in [root.join("a"), elsewhere.join("b1"), elsewhere.join("b2")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), "---\nname: x\n---\n").unwrap();
        }
        std::os::unix::fs::symlink(elsewhere.join("b1"), root.join("b")).unwrap();
        let mut events = Events::start(vec![root.clone(), later.clone()]).unwrap();
        let a = root.join("a");
        let b = root.join("b");

        // Reading (as a scan does) and a script or a note written change nothing.
        let _ = std::fs::read_to_string(a.join("SKILL.md")).unwrap();
        let _ = std::fs::read_dir(&a).unwrap().count();
        std::fs::write(a.join("notes.txt"), "a note").unwrap();
        std::fs::create_dir(a.join("scripts")).unwrap();
        std::fs::write(elsewhere.join("b1/SKILL.md"), "---\nname: b\n---\nedited").unwrap();
        let changes = seen(&mut events, |c| c.folders.contains(&b));
        assert_eq!(changes.folders.len(), 1, "{changes:?}");
        assert!(!changes.roots, "{changes:?}");

        std::fs::write(a.join("SKILL.md"), "---\nname: a\n---\nedited").unwrap();
        let changes = seen(&mut events, |c| c.folders.contains(&a));
        assert!(!changes.roots, "{changes:?}");

        std::fs::write(elsewhere.join("b1/SKILL.md.tmp"), "---\nname: b\n---\n").unwrap();
        std::fs::rename(elsewhere.join("b1/SKILL.md.tmp"), elsewhere.join("b1/SKILL.md")).unwrap();
        seen(&mut events, |c| c.folders.contains(&b));

        std::fs::remove_file(&b).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("b2"), &b).unwrap();
        let changes = seen(&mut events, |c| c.folders.contains(&b));
        events.follow(&changes).unwrap();
        std::fs::write(elsewhere.join("b2/SKILL.md"), "---\nname: b2\n---\n").unwrap();
        seen(&mut events, |c| c.folders.contains(&b));

        std::fs::create_dir_all(&later).unwrap();
        let changes = seen(&mut events, |c| c.roots);
        events.follow(&changes).unwrap();
        std::fs::create_dir(later.join("c")).unwrap();
        let changes = seen(&mut events, |c| c.folders.contains(&later.join("c")));
        events.follow(&changes).unwrap();
        std::fs::write(later.join("c/SKILL.md"), "---\nname: c\n---\n").unwrap();
        seen(&mut events, |c| c.folders.contains(&later.join("c")));

        std::fs::remove_dir_all(&a).unwrap();
        seen(&mut events, |c| c.folders.contains(&a));
    }

    #[test]
    fn a_look_right_after_an_edit_sees_it() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("skills");
        std::fs::create_dir_all(root.join("a")).unwrap();
        let mut events = Events::start(vec![root.clone()]).unwrap();
        assert!(events.barrier.is_some(), "marks are made on Linux");
        // Busy threads keep the watcher's thread waiting for a core, as a loaded machine does.
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy: Vec<_> = (0..8)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        for round in 0..200 {
            std::fs::write(root.join("a/SKILL.md"), format!("---\nname: a\n---\n{round}")).unwrap();
            let changes = events.take().unwrap_or_default();
            assert!(changes.folders.contains(&root.join("a")), "round {round}: {changes:?}");
            assert!(!changes.roots, "the marks are not skills' events: {changes:?}");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        busy.into_iter().for_each(|b| b.join().unwrap());
        assert_eq!(events.take(), None, "nothing left over");
    }
}
