//! `Write` and `Edit`: a whole file written, or one exact string replaced (every one with
//! `replace_all`), atomically, after approval. An `old_string` that is absent or not unique is an
//! error that says so, never a guess.

use super::{ToolRunner, write_atomically};
use crate::agent::outcome::Refusal;
use crate::agent::outcome::ToolOutcome;

/// Largest file `Edit` rewrites.
const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

impl ToolRunner {
    /// `Write` `content` to `path`.
    pub(super) async fn write_file(&self, current: Option<&str>, path: &str, content: &str) -> ToolOutcome {
        let target = match self.writable(current, "Write", path) {
            Ok(target) => target,
            Err(outcome) => return outcome,
        };
        if target.real.is_dir() {
            return ToolOutcome::refused(format!("{} is a folder", target.shown));
        }
        let existed = target.real.exists();
        let summary = format!(
            "{} {} bytes",
            if existed { "replaces it with" } else { "creates it with" },
            content.len()
        );
        if let Err(reason) = self.approve_write(current, "Write", &target, &summary).await {
            return ToolOutcome::denied(reason);
        }
        match write_atomically(&target.real, content.as_bytes()) {
            Ok(()) => {
                self.file_event("Write", &target.shown, content.len() as u64);
                ToolOutcome::ok(format!(
                    "{} {} ({} bytes)",
                    if existed { "replaced" } else { "created" },
                    target.shown,
                    content.len()
                ))
            }
            Err(e) => ToolOutcome::failed(format!("cannot write {}: {e}", target.shown)),
        }
    }

    /// `Edit` `path`: `old` replaced by `new` (once, where it is unique; everywhere with `all`).
    pub(super) async fn edit_file(
        &self,
        current: Option<&str>,
        path: &str,
        old: &str,
        new: &str,
        all: bool,
    ) -> ToolOutcome {
        let target = match self.writable(current, "Edit", path) {
            Ok(target) => target,
            Err(outcome) => return outcome,
        };
        let text = match read_text(&target.real) {
            Ok(text) => text,
            Err(why) => return ToolOutcome::failed(format!("cannot edit {}: {why}", target.shown)),
        };
        if old.is_empty() {
            return ToolOutcome::refused(
                "old_string is empty; give the exact text to replace, or use Write for a new file",
            );
        }
        if old == new {
            return ToolOutcome::refused("old_string and new_string are the same: nothing to change");
        }
        let found = text.matches(old).count();
        match (found, all) {
            (0, _) => {
                return ToolOutcome::refused(format!(
                    "old_string was not found in {}; Read the file and copy the exact text, white space included",
                    target.shown
                ));
            }
            (n, false) if n > 1 => {
                return ToolOutcome::refused(format!(
                    "old_string occurs {n} times in {}; give more surrounding text so it is unique, or set replace_all",
                    target.shown
                ));
            }
            _ => {}
        }
        let changed = if all {
            text.replace(old, new)
        } else {
            text.replacen(old, new, 1)
        };
        let summary = format!("replaces {found} occurrence(s) of {} bytes", old.len());
        if let Err(reason) = self.approve_write(current, "Edit", &target, &summary).await {
            return ToolOutcome::denied(reason);
        }
        match write_atomically(&target.real, changed.as_bytes()) {
            Ok(()) => {
                self.file_event("Edit", &target.shown, changed.len() as u64);
                ToolOutcome::ok(format!("edited {}: {found} replacement(s)", target.shown))
            }
            Err(e) => ToolOutcome::failed(format!("cannot write {}: {e}", target.shown)),
        }
    }
}

/// A file's text, refusing what is too big, not a file, or not UTF-8.
fn read_text(path: &std::path::Path) -> Result<String, Refusal> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(format!("it is {} bytes, over the limit an edit rewrites", meta.len()));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}
