//! Polling skill roots where file-system events cannot be had: before each turn, the catalog
//! cache's [`Stamp`] (size, modification time, inode, mode) of each root, of each folder in it and
//! of the files loading reads, each stamped below its open root. A file that appears or vanishes
//! changes its folder's stamp, so only what existed is stamped again: a plain skill costs two
//! `statx` a turn (its folder and its skill file).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use super::Changes;
use crate::skills::cache::{Stamp, open_folder};
use crate::skills::roots::skill_dirs::{find_skill_file, is_ignored};

/// Files of a skill folder loading reads besides the skill file; stamped when they exist.
const LOADED: [&str; 4] = ["skill.json", "run.sh", "agents", "agents/openai.yaml"];

/// The stamps of every root, as last seen.
pub(crate) struct Poll {
    roots: Vec<Root>,
}

struct Root {
    path: PathBuf,
    /// The root, open, so each stamp walks only the path below it.
    fd: Option<OwnedFd>,
    stamp: Option<Stamp>,
    /// Each folder's name (`.` for the root itself) and the stamps of what in it was there.
    folders: Vec<(String, Vec<(String, Stamp)>)>,
}

impl Poll {
    /// Stamp every root and everything in it loading reads.
    pub(crate) fn stamped(roots: &[PathBuf]) -> Self {
        Self {
            roots: roots.iter().map(|r| Root::stamped(r)).collect(),
        }
    }

    /// What changed since the stamps were taken.
    pub(crate) fn check(&self) -> Option<Changes> {
        let mut changes = Changes::default();
        for root in &self.roots {
            if Stamp::at(&root.path) != root.stamp {
                changes.roots = true;
            }
            let Some(fd) = &root.fd else {
                continue;
            };
            for (name, stamps) in &root.folders {
                let held = stamps
                    .iter()
                    .all(|(path, stamp)| Stamp::in_folder(fd, Path::new(path)).ok().as_ref() == Some(stamp));
                match (held, name.as_str()) {
                    (true, _) => {}
                    // The root is itself a skill folder.
                    (false, ".") => changes.roots = true,
                    (false, _) => {
                        changes.folders.insert(root.path.join(name));
                    }
                }
            }
        }
        (!changes.is_empty()).then_some(changes)
    }
}

impl Root {
    /// Stamp the root `path` and, in it, everything loading reads.
    fn stamped(path: &Path) -> Self {
        let stamp = Stamp::at(path);
        let fd = stamp.filter(Stamp::is_dir).and_then(|_| open_folder(path));
        let mut folders = Vec::new();
        if let Some(fd) = &fd {
            let names = std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !is_ignored(n));
            for name in std::iter::once(".".to_string()).chain(names) {
                if let Some(stamps) = folder_stamps(fd, path, &name) {
                    folders.push((name, stamps));
                }
            }
        }
        Self {
            path: path.to_path_buf(),
            fd,
            stamp,
            folders,
        }
    }
}

/// The stamps of the folder `name` below `root` and of the files in it loading reads; `None`
/// when it is not a folder.
fn folder_stamps(fd: &OwnedFd, root: &Path, name: &str) -> Option<Vec<(String, Stamp)>> {
    let at = |rel: &str| Stamp::in_folder(fd, Path::new(&format!("{name}/{rel}"))).ok();
    let own = Stamp::in_folder(fd, Path::new(name)).ok().filter(Stamp::is_dir)?;
    // The root's own stamp is kept beside the root.
    let mut stamps: Vec<(String, Stamp)> = (name != ".").then(|| (name.to_string(), own)).into_iter().collect();
    let skill_file =
        find_skill_file(&root.join(name)).and_then(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()));
    for rel in skill_file.iter().map(String::as_str).chain(LOADED) {
        if let Some(stamp) = at(rel) {
            stamps.push((format!("{name}/{rel}"), stamp));
        }
    }
    Some(stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch_later(path: &Path) {
        // Some file systems keep whole seconds: move the time itself rather than wait.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::open(path).unwrap().set_modified(later).unwrap();
    }

    fn folders(changes: Option<Changes>) -> Vec<String> {
        let changes = changes.expect("a change");
        changes
            .folders
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn edits_additions_removals_and_relinks_are_noticed() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("skills");
        let elsewhere = base.path().join("elsewhere");
        for dir in [root.join("a"), elsewhere.join("b1"), elsewhere.join("b2")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), "---\nname: x\n---\n").unwrap();
        }
        std::os::unix::fs::symlink(elsewhere.join("b1"), root.join("b")).unwrap();
        let later = base.path().join("later");
        let roots = vec![root.clone(), later.clone()];
        let poll = Poll::stamped(&roots);
        assert_eq!(poll.check(), None, "nothing changed");

        touch_later(&root.join("a/SKILL.md"));
        assert_eq!(folders(poll.check()), ["a"], "an edit in place");
        let poll = Poll::stamped(&roots);
        touch_later(&elsewhere.join("b1/SKILL.md"));
        assert_eq!(folders(poll.check()), ["b"], "an edit of a linked skill's target");
        let poll = Poll::stamped(&roots);
        std::fs::write(root.join("a/skill.json"), "{}").unwrap();
        touch_later(&root.join("a"));
        assert_eq!(folders(poll.check()), ["a"], "a manifest added");

        let poll = Poll::stamped(&roots);
        std::fs::remove_file(root.join("b")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("b2"), root.join("b")).unwrap();
        assert_eq!(folders(poll.check()), ["b"], "a link re-pointed");

        let poll = Poll::stamped(&roots);
        std::fs::create_dir(&later).unwrap();
        assert!(poll.check().is_some_and(|c| c.roots), "a root that appeared");
        let poll = Poll::stamped(&roots);
        std::fs::remove_dir_all(root.join("a")).unwrap();
        assert_eq!(folders(poll.check()), ["a"], "a skill removed");
    }

    #[test]
    fn scripts_and_notes_do_not_count() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("a");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "x").unwrap();
        let poll = Poll::stamped(&[root.path().to_path_buf()]);
        std::fs::write(skill.join("scripts/run.py"), "print()").unwrap();
        touch_later(&skill.join("scripts/run.py"));
        assert_eq!(poll.check(), None);
    }
}
