//! Putting a skill folder into a skill root atomically: the files are copied into a hidden
//! temporary folder beside the target (discovery skips hidden folders), which is then renamed into
//! place, so an agent starting meanwhile sees the old skill or the new one, never half of one.
//! Nothing is run: files are copied as bytes with their modes, symbolic links only when they stay
//! inside the skill, and anything else (FIFOs, devices, sockets) is left out.

use std::path::{Component, Path, PathBuf};

use crate::skills::load::parse::{FolderLoad, load_skill};
use crate::skills::roots::skill_dirs::find_skill_file;

/// Most files copied for one skill.
const MAX_FILES: usize = 5000;
/// Most bytes copied for one skill.
const MAX_BYTES: u64 = 200 * 1024 * 1024;
/// How deep a repository is searched for skill folders.
const MAX_SEARCH_DEPTH: usize = 4;
/// Hidden folders that hold skills in other tools' layouts; every other hidden folder is skipped.
const SKILL_HOLDERS: [&str; 5] = [".agents", ".claude", ".codex", ".gemini", ".opencode"];

/// A skill found in a fetched source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// Its name (frontmatter, `skill.json`, else its folder's).
    pub(crate) name: String,
    pub(crate) description: String,
    /// Its folder.
    pub(crate) dir: PathBuf,
    /// Its folder relative to the source's root, `None` when it is the root.
    pub(crate) subdir: Option<String>,
}

/// What went wrong putting files in place.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InstallError {
    #[error(
        "{0} already exists; remove it first (`agent skills remove NAME`) or update it (`agent skills update NAME`)"
    )]
    Exists(PathBuf),
    #[error("the skill in {dir} is too large to install ({why})")]
    TooLarge { dir: PathBuf, why: String },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0:?} cannot be a skill folder name: use lowercase letters, digits and hyphens")]
    BadName(String),
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> InstallError + 'a {
    move |source| InstallError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// Every skill folder in `tree` (the source's root, or its `#SUBDIR`): `tree` itself when it is
/// one, else skill folders below it, `MAX_SEARCH_DEPTH` levels deep, sorted by path. Hidden
/// folders are skipped except other tools' skill folders (`SKILL_HOLDERS`) and category folders
/// inside a `skills` folder (`skills/.curated`, `skills/.system`). Folders whose skill
/// file has no usable description are left out, as discovery would leave them out.
pub(crate) fn find_candidates(tree: &Path) -> Vec<Candidate> {
    let mut dirs = Vec::new();
    search(tree, 0, &mut dirs);
    dirs.sort();
    dirs.into_iter()
        .filter_map(|dir| match load_skill(&dir, tree) {
            FolderLoad::Skill(skill) => Some(Candidate {
                name: skill.name.clone(),
                description: skill.description.clone(),
                subdir: dir
                    .strip_prefix(tree)
                    .ok()
                    .map(|p| p.display().to_string())
                    .filter(|p| !p.is_empty()),
                dir,
            }),
            _ => None,
        })
        .collect()
}

fn search(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if find_skill_file(dir).is_some() {
        found.push(dir.to_path_buf());
        return;
    }
    if depth >= MAX_SEARCH_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // openai/skills keeps its skills in hidden category folders: `skills/.curated/NAME`.
    let categories = dir.file_name().is_some_and(|n| n == "skills");
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let hidden =
            name.starts_with('.') && !SKILL_HOLDERS.contains(&name.as_str()) && !(categories && name != ".git");
        // Symlinked folders are not entered: a fetched repository decides nothing outside itself.
        if hidden || name == "node_modules" || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        search(&entry.path(), depth + 1, found);
    }
}

/// Whether `name` can be a folder in a skill root: one plain path component, not hidden, and
/// not the lock file's name (the lock could not be written beside a folder taking it).
pub(crate) fn check_name(name: &str) -> Result<(), InstallError> {
    let plain = matches!(
        Path::new(name).components().collect::<Vec<_>>().as_slice(),
        [Component::Normal(_)]
    );
    if plain
        && !name.starts_with('.')
        && name != super::lock::LOCK_FILE
        && !name.contains(['/', '\\'])
        && name.chars().all(|c| !c.is_control())
    {
        Ok(())
    } else {
        Err(InstallError::BadName(name.to_string()))
    }
}

/// Copy `from` into a new hidden folder beside `root/name` and return it; [`commit`] puts it in
/// place. The caller removes it if it does not commit.
pub(crate) fn stage(from: &Path, root: &Path, name: &str) -> Result<PathBuf, InstallError> {
    check_name(name)?;
    std::fs::create_dir_all(root).map_err(io("cannot create", root))?;
    let staged = root.join(format!(".{name}.staged-{}", std::process::id()));
    if staged.exists() {
        std::fs::remove_dir_all(&staged).map_err(io("cannot clear", &staged))?;
    }
    let mut budget = Budget::default();
    copy_tree(from, &staged, from, &mut budget).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&staged);
    })?;
    Ok(staged)
}

/// Remove what an interrupted install left in `root`: `.NAME.staged-PID` and `.NAME.old-PID`
/// folders of processes that no longer run (a live one may be installing right now). Hidden, so
/// discovery never saw them, but they stayed forever.
pub(crate) fn clear_leftovers(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = [".staged-", ".old-"]
            .iter()
            .find_map(|marker| Some(name.rsplit_once(marker)?.1.to_string()))
            .filter(|_| name.starts_with('.'))
            .and_then(|pid| pid.parse::<u32>().ok());
        let Some(pid) = pid else {
            continue;
        };
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        if !alive && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Put a staged folder in place as `root/name`. With `replace`, an existing folder is swapped out
/// (and removed); without, an existing folder is an error and nothing changes.
pub(crate) fn commit(staged: &Path, root: &Path, name: &str, replace: bool) -> Result<PathBuf, InstallError> {
    let target = root.join(name);
    let exists = std::fs::symlink_metadata(&target).is_ok();
    if exists && !replace {
        return Err(InstallError::Exists(target));
    }
    if !exists {
        std::fs::rename(staged, &target).map_err(io("cannot move the new skill to", &target))?;
        return Ok(target);
    }
    let old = root.join(format!(".{name}.old-{}", std::process::id()));
    std::fs::rename(&target, &old).map_err(io("cannot move aside", &target))?;
    if let Err(e) = std::fs::rename(staged, &target) {
        // Put the old one back: better the old skill than none.
        let _ = std::fs::rename(&old, &target);
        return Err(io("cannot move the new skill to", &target)(e));
    }
    remove(&old)?;
    Ok(target)
}

/// Remove an installed skill folder (or a symlink to one, not what it points at).
pub(crate) fn remove(dir: &Path) -> Result<(), InstallError> {
    let meta = std::fs::symlink_metadata(dir).map_err(io("cannot find", dir))?;
    if meta.is_dir() {
        std::fs::remove_dir_all(dir).map_err(io("cannot remove", dir))
    } else {
        std::fs::remove_file(dir).map_err(io("cannot remove", dir))
    }
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

fn copy_tree(from: &Path, to: &Path, top: &Path, budget: &mut Budget) -> Result<(), InstallError> {
    std::fs::create_dir(to).map_err(io("cannot create", to))?;
    let entries = std::fs::read_dir(from).map_err(io("cannot list", from))?;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().map_err(io("cannot inspect", &src))?;
        budget.files += 1;
        if budget.files > MAX_FILES {
            return Err(InstallError::TooLarge {
                dir: top.to_path_buf(),
                why: format!("more than {MAX_FILES} files"),
            });
        }
        if kind.is_dir() {
            copy_tree(&src, &dst, top, budget)?;
        } else if kind.is_file() {
            let meta = entry.metadata().map_err(io("cannot inspect", &src))?;
            budget.bytes += meta.len();
            if budget.bytes > MAX_BYTES {
                return Err(InstallError::TooLarge {
                    dir: top.to_path_buf(),
                    why: format!("more than {} MB", MAX_BYTES / 1024 / 1024),
                });
            }
            std::fs::copy(&src, &dst).map_err(io("cannot copy", &src))?;
        } else if kind.is_symlink() {
            copy_link(&src, &dst, top)?;
        }
    }
    Ok(())
}

/// Recreate a symbolic link whose target stays inside the skill; others are left out.
fn copy_link(src: &Path, dst: &Path, top: &Path) -> Result<(), InstallError> {
    let target = std::fs::read_link(src).map_err(io("cannot read link", src))?;
    let parent = src.parent().unwrap_or(top);
    let inside = !target.is_absolute() && normalize(&parent.join(&target)).is_some_and(|p| p.starts_with(top));
    if inside {
        std::os::unix::fs::symlink(&target, dst).map_err(io("cannot create link", dst))?;
    } else {
        tracing::debug!("left out {}: it links outside the skill", src.display());
    }
    Ok(())
}

/// `path` with `.` and `..` resolved lexically; `None` when `..` climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn skill(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: does {name} things for tests\n---\nbody\n"),
        )
        .unwrap();
    }

    #[test]
    fn skills_are_found_in_common_layouts() {
        let repo = tempfile::tempdir().unwrap();
        skill(&repo.path().join("skills/deploy"), "deploy");
        skill(&repo.path().join(".claude/skills/review"), "review");
        skill(&repo.path().join(".github/skills/hidden"), "hidden");
        skill(&repo.path().join("skills/.curated/gh-fix-ci"), "gh-fix-ci");
        skill(&repo.path().join("skills/.git/x"), "in-git");
        skill(&repo.path().join("a/b/c/d/e/too-deep"), "too-deep");
        std::fs::create_dir_all(repo.path().join("empty")).unwrap();
        let names: Vec<(String, Option<String>)> = find_candidates(repo.path())
            .into_iter()
            .map(|c| (c.name, c.subdir))
            .collect();
        assert_eq!(
            names,
            [
                ("review".into(), Some(".claude/skills/review".into())),
                ("gh-fix-ci".into(), Some("skills/.curated/gh-fix-ci".into())),
                ("deploy".into(), Some("skills/deploy".into())),
            ]
        );
        let one = find_candidates(&repo.path().join("skills/deploy"));
        assert_eq!((one[0].name.as_str(), one[0].subdir.as_deref()), ("deploy", None));
    }

    #[test]
    fn staged_copies_keep_modes_and_inside_links_only() {
        let src = tempfile::tempdir().unwrap();
        skill(src.path(), "x");
        let script = src.path().join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("run.sh", src.path().join("inside")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.path().join("outside")).unwrap();
        std::os::unix::fs::symlink("../../x", src.path().join("climbing")).unwrap();
        std::fs::create_dir(src.path().join(".git")).unwrap();
        let root = tempfile::tempdir().unwrap();
        let staged = stage(src.path(), root.path(), "x").unwrap();
        assert!(staged.file_name().unwrap().to_string_lossy().starts_with('.'));
        let target = commit(&staged, root.path(), "x", false).unwrap();
        let mode = std::fs::metadata(target.join("run.sh")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        assert!(target.join("inside").exists());
        for gone in ["outside", "climbing", ".git"] {
            assert!(std::fs::symlink_metadata(target.join(gone)).is_err(), "{gone}");
        }
        let again = stage(src.path(), root.path(), "x").unwrap();
        assert!(matches!(
            commit(&again, root.path(), "x", false),
            Err(InstallError::Exists(_))
        ));
        std::fs::write(again.join("new.txt"), "n").unwrap();
        commit(&again, root.path(), "x", true).unwrap();
        assert!(target.join("new.txt").exists());
        let left: Vec<String> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["x"], "no staged or old folder left behind");
    }

    #[test]
    fn names_must_be_plain_folders() {
        assert!(check_name("deploy").is_ok());
        for bad in ["", ".", "..", ".hidden", "a/b", "/abs", "skills-lock.json"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
