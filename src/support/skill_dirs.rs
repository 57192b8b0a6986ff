//! What makes a folder a skill folder, agreed on by everything that looks for one (discovery,
//! loading, folder trust): it holds a `SKILL.md` (or `skill.md`), it is not hidden and not
//! `node_modules`, and a project keeps its skills in [`PROJECT_SKILL_ROOTS`].

use std::path::{Path, PathBuf};

/// Project skill roots inside a folder (SPEC §2 item 3), in precedence order. Later issues add
/// parents and other agents' project folders here; each becomes part of the same folder decision.
pub const PROJECT_SKILL_ROOTS: [&str; 2] = [".agents/skills", "skills"];

/// The skill file of a folder: `SKILL.md`, else `skill.md`. Whatever kind of file it is: one that
/// cannot be read (a FIFO, a device) makes the folder a skipped skill with a reason, not a non-skill.
pub fn find_skill_file(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_dir()))
}

/// Whether an entry of a skill root is never a skill: hidden entries and `node_modules`.
pub fn is_ignored(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}
