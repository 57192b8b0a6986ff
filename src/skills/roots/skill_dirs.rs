//! What makes a folder a skill folder, agreed on by everything that looks for one (discovery,
//! loading, folder trust): it holds a `SKILL.md` (in any letter case), it is not hidden and not
//! `node_modules`, and a project keeps its skills in [`PROJECT_SKILL_ROOTS`].

use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Our project skill roots inside a folder (docs/design.md#skill-roots), in precedence order.
/// Parents' roots and other agents' project folders are added by [`super::own_project_roots`] and [`super::other_project_roots`].
pub(crate) const PROJECT_SKILL_ROOTS: [&str; 2] = [".agents/skills", "skills"];

/// The skill file of a folder: `SKILL.md`, else `skill.md`, else any other spelling of it in
/// another letter case (`Skill.md`, the first in byte order). Whatever kind of file it is: one
/// that cannot be read (a FIFO, a device) makes the folder a skipped skill with a reason, not a
/// non-skill.
pub(crate) fn find_skill_file(dir: &Path) -> Option<PathBuf> {
    find_skill_file_seen(dir).map(|(path, _)| path)
}

/// [`find_skill_file`], with what `stat` said about the file (symlinks followed), so that a
/// caller about to open it need not ask again.
pub(crate) fn find_skill_file_seen(dir: &Path) -> Option<(PathBuf, Metadata)> {
    let file = |p: PathBuf| match std::fs::metadata(&p) {
        Ok(m) if !m.is_dir() => Some((p, m)),
        _ => None,
    };
    if let Some(found) = ["SKILL.md", "skill.md"].iter().find_map(|n| file(dir.join(n))) {
        return Some(found);
    }
    // Only folders without the usual names pay for listing their entries.
    let mut other: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("skill.md"))
        })
        .map(|e| e.path())
        .collect();
    other.sort();
    other.into_iter().find_map(file)
}

/// Whether `file` is named exactly `SKILL.md`.
pub(crate) fn has_usual_name(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "SKILL.md")
}

/// Whether an entry of a skill root is never a skill: hidden entries and `node_modules`.
pub(crate) fn is_ignored(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

/// The entries below skill folder `dir` that are not folders (files, and links to anything:
/// links are not entered, so a link loop cannot trap the walk), unsorted. Hidden entries,
/// `node_modules` and `__pycache__` are left out. The walk stops after the folder in which more
/// than `enough` were gathered.
pub(crate) fn files_below(dir: &Path, enough: usize) -> Vec<(PathBuf, std::fs::FileType)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if is_ignored(&name) || name == "__pycache__" {
                continue;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(entry.path()),
                Ok(kind) => found.push((entry.path(), kind)),
                Err(_) => {}
            }
        }
        if found.len() > enough {
            break;
        }
    }
    found
}

/// The one file among `files` (paths relative to a skill folder) whose name is the last part of
/// `rel`, in any letter case: where a path an instruction gives (`references/api.md`) leads when
/// the file sits elsewhere in the skill (`api.md`). `None` when no file, or several, have that
/// name. Reading a skill file and `skills check` both resolve a path this way, so a file the
/// model can read is never reported missing.
pub(crate) fn unique_by_name<'a>(files: &'a [String], rel: &str) -> Option<&'a str> {
    let name = rel.trim_end_matches('/').rsplit('/').next()?.to_lowercase();
    let mut matching = files
        .iter()
        .filter(|f| f.rsplit('/').next().is_some_and(|n| n.to_lowercase() == name));
    let found = matching.next()?;
    matching.next().is_none().then_some(found.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_resolves_by_its_name_only_when_one_file_has_it() {
        let files: Vec<String> = ["api.md", "scripts/fill.py", "a/x.md", "b/X.md"]
            .map(String::from)
            .into();
        assert_eq!(unique_by_name(&files, "references/api.md"), Some("api.md"));
        assert_eq!(unique_by_name(&files, "FILL.py"), Some("scripts/fill.py"));
        assert_eq!(unique_by_name(&files, "refs/x.md"), None, "two files have it");
        assert_eq!(unique_by_name(&files, "none.md"), None);
    }

    #[test]
    fn the_skill_file_in_any_letter_case() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_skill_file(dir.path()), None);
        std::fs::write(dir.path().join("Skill.md"), "x").unwrap();
        std::fs::write(dir.path().join("SKILL.MD"), "x").unwrap();
        assert_eq!(find_skill_file(dir.path()), Some(dir.path().join("SKILL.MD")));
        std::fs::write(dir.path().join("skill.md"), "x").unwrap();
        assert_eq!(find_skill_file(dir.path()), Some(dir.path().join("skill.md")));
        std::fs::write(dir.path().join("SKILL.md"), "x").unwrap();
        assert_eq!(find_skill_file(dir.path()), Some(dir.path().join("SKILL.md")));
        let sub = dir.path().join("sub");
        std::fs::create_dir_all(sub.join("skill.MD")).unwrap();
        assert_eq!(find_skill_file(&sub), None, "a folder is not a skill file");
    }

    #[test]
    fn files_below_skip_hidden_and_dependency_folders_and_do_not_follow_links() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "SKILL.md",
            "scripts/run.sh",
            ".git/config",
            "node_modules/x/i.js",
            "a/__pycache__/m.pyc",
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink(d, d.join("scripts/loop")).unwrap();
        let mut found: Vec<String> = files_below(d, 100)
            .into_iter()
            .map(|(p, _)| p.strip_prefix(d).unwrap().display().to_string())
            .collect();
        found.sort();
        assert_eq!(found, ["SKILL.md", "scripts/loop", "scripts/run.sh"]);
        assert!(files_below(d, 0).len() < 3, "stops once enough are gathered");
    }
}
