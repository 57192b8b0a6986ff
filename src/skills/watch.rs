//! Noticing that skills changed on disk, cheaply enough to ask before every turn: the
//! modification times of the roots, of the folders in them and of the files loading reads.
//! Adding or removing a skill changes its root's time; editing `SKILL.md` in place changes the
//! file's; an editor that saves by renaming changes the skill folder's. No file is read.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::support::skill_dirs::{find_skill_file, is_ignored};

/// Files of a skill folder whose content loading reads besides the skill file itself.
const LOADED_FILES: [&str; 2] = ["skill.json", "agents/openai.yaml"];

/// Most entries of one root that are looked at; a root larger than that is compared by its own
/// time only (a change to a skill deep inside a huge root waits for `/reload`).
const MAX_ENTRIES_PER_ROOT: usize = 20_000;

/// What one path looked like: kind, modification time and size, or absent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stamp {
    Missing,
    Present {
        modified: Option<SystemTime>,
        len: u64,
        dir: bool,
    },
}

fn stamp(path: &Path) -> Stamp {
    match std::fs::metadata(path) {
        Ok(m) => Stamp::Present {
            modified: m.modified().ok(),
            len: m.len(),
            dir: m.is_dir(),
        },
        Err(_) => Stamp::Missing,
    }
}

/// The state of a set of skill roots, to compare with a later one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fingerprint {
    stamps: Vec<(PathBuf, Stamp)>,
}

impl Fingerprint {
    /// Look at every root (in order) and what is in it.
    pub fn take(roots: &[PathBuf]) -> Self {
        let mut stamps = Vec::new();
        for root in roots {
            let root_stamp = stamp(root);
            let is_dir = matches!(root_stamp, Stamp::Present { dir: true, .. });
            stamps.push((root.clone(), root_stamp));
            if is_dir {
                skill_folders(root, &mut stamps);
            }
        }
        Self { stamps }
    }

    /// Whether anything differs from `earlier`.
    pub fn changed_since(&self, earlier: &Fingerprint) -> bool {
        self != earlier
    }
}

/// Stamps of the folders below `root` and of the files loading reads in each. A root that is
/// itself a skill folder (`--skills-dir path/to/skill`) is covered the same way.
fn skill_folders(root: &Path, stamps: &mut Vec<(PathBuf, Stamp)>) {
    skill_files(root, stamps);
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .take(MAX_ENTRIES_PER_ROOT)
        .filter(|e| !is_ignored(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let dir_stamp = stamp(&dir);
        let is_dir = matches!(dir_stamp, Stamp::Present { dir: true, .. });
        stamps.push((dir.clone(), dir_stamp));
        if is_dir {
            skill_files(&dir, stamps);
        }
    }
}

/// The skill file (any letter case) and the other files loading reads in one folder.
fn skill_files(dir: &Path, stamps: &mut Vec<(PathBuf, Stamp)>) {
    let loaded = LOADED_FILES.iter().map(|name| dir.join(name));
    for path in find_skill_file(dir).into_iter().chain(loaded) {
        let s = stamp(&path);
        if s != Stamp::Missing {
            stamps.push((path, s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch_later(path: &Path) {
        // Some file systems keep whole seconds: move the time itself rather than wait.
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        let file = std::fs::File::open(path).unwrap();
        file.set_modified(later).unwrap();
    }

    #[test]
    fn edits_additions_and_removals_are_noticed() {
        let root = tempfile::tempdir().unwrap();
        let missing_root = root.path().join("later");
        let roots = vec![root.path().to_path_buf(), missing_root.clone()];
        let skill = root.path().join("a");
        std::fs::create_dir(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: a\n---\n").unwrap();
        let first = Fingerprint::take(&roots);
        assert!(!Fingerprint::take(&roots).changed_since(&first), "stable");

        touch_later(&skill.join("SKILL.md"));
        let edited = Fingerprint::take(&roots);
        assert!(edited.changed_since(&first), "an edit in place");

        std::fs::write(skill.join("SKILL.md"), "---\nname: a\ndescription: longer now\n---\n").unwrap();
        let resized = Fingerprint::take(&roots);
        assert!(resized.changed_since(&edited), "a new size");

        std::fs::create_dir(&missing_root).unwrap();
        let created = Fingerprint::take(&roots);
        assert!(created.changed_since(&resized), "a root that appeared");

        std::fs::create_dir(missing_root.join("b")).unwrap();
        std::fs::write(missing_root.join("b/Skill.md"), "x").unwrap();
        touch_later(&missing_root);
        let added = Fingerprint::take(&roots);
        assert!(added.changed_since(&created), "a skill added");

        std::fs::remove_dir_all(&skill).unwrap();
        assert!(Fingerprint::take(&roots).changed_since(&added), "a skill removed");
    }

    #[test]
    fn scripts_and_hidden_folders_do_not_count() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("a");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "x").unwrap();
        let roots = vec![root.path().to_path_buf()];
        let first = Fingerprint::take(&roots);
        std::fs::write(skill.join("scripts/run.sh"), "echo").unwrap();
        touch_later(&skill.join("scripts/run.sh"));
        // The new script changed the `scripts` folder, not the skill folder's own entries.
        assert!(!Fingerprint::take(&roots).changed_since(&first));
    }
}
