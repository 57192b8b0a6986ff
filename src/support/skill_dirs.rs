//! What makes a folder a skill folder, agreed on by everything that looks for one (discovery,
//! loading, folder trust): it holds a `SKILL.md` (in any letter case), it is not hidden and not
//! `node_modules`, and a project keeps its skills in [`PROJECT_SKILL_ROOTS`].

use std::path::{Path, PathBuf};

/// Project skill roots inside a folder (SPEC §2 item 3), in precedence order. Later issues add
/// parents and other agents' project folders here; each becomes part of the same folder decision.
pub const PROJECT_SKILL_ROOTS: [&str; 2] = [".agents/skills", "skills"];

/// The skill file of a folder: `SKILL.md`, else `skill.md`, else any other spelling of it in
/// another letter case (`Skill.md`, the first in byte order). Whatever kind of file it is: one
/// that cannot be read (a FIFO, a device) makes the folder a skipped skill with a reason, not a
/// non-skill.
pub fn find_skill_file(dir: &Path) -> Option<PathBuf> {
    let is_file = |p: &Path| std::fs::metadata(p).is_ok_and(|m| !m.is_dir());
    if let Some(found) = ["SKILL.md", "skill.md"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| is_file(p))
    {
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
        .filter(|p| is_file(p))
        .collect();
    other.sort();
    other.into_iter().next()
}

/// Whether `file` is named exactly `SKILL.md`.
pub fn has_usual_name(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "SKILL.md")
}

/// Whether an entry of a skill root is never a skill: hidden entries and `node_modules`.
pub fn is_ignored(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
