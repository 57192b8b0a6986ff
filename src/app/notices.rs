//! Warnings that would be the same on every run (a skill shadowed by another of its name, skills
//! loaded with problems, a library over the catalog budget): said once, then again only when they
//! change. What was last said is kept in the user's state folder (`$XDG_STATE_HOME/agent/shadowed`,
//! `…/problems`, `…/catalog`); `agent skills list`, `skills check` and `-v` always show them.

use std::path::PathBuf;

use crate::skills::{Diagnostic, code};

/// The file holding what was last said on `topic`.
fn said_path(topic: &str) -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "agent")?;
    let state = dirs
        .state_dir()
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs.data_local_dir().to_path_buf());
    Some(state.join(topic))
}

/// Whether `warnings` are news: the shadowing among them differs from what was last said (and
/// is now remembered as said). Without a state folder, or when it cannot be written, every run
/// says them, as before.
pub(super) fn shadowing_is_news(warnings: &[Diagnostic]) -> bool {
    let lines: Vec<String> = warnings
        .iter()
        .filter(|w| w.code == code::SHADOWED)
        .map(ToString::to_string)
        .collect();
    is_news("shadowed", lines)
}

/// Whether `lines` on `topic` differ from what was last said (and are now remembered as said),
/// in any order. Without a state folder, or when it cannot be written, every run says them.
pub(super) fn is_news(topic: &str, mut lines: Vec<String>) -> bool {
    lines.sort();
    let now = lines.join("\n");
    let Some(path) = said_path(topic) else {
        return true;
    };
    let before = crate::support::fs::read_regular(&path, 1 << 20)
        .map(|c| c.text())
        .unwrap_or_default();
    if before == now {
        return false;
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(&path, &now) {
        tracing::debug!("{} not written: {e}", path.display());
    }
    true
}
