//! `Glob` and `Grep` under a folder of the working folder (or the active skill's): paths newest
//! first, and matching lines as `path:line:text`, each capped. `.git` and `node_modules` are not
//! walked, nor links out of the folder, nor binary or huge files for `Grep`.

use std::path::{Path, PathBuf};

use super::{ToolRunner, looks_binary};
use crate::agent::outcome::ToolOutcome;

/// Most paths `Glob` returns.
const MAX_PATHS: usize = 200;
/// Most matching lines `Grep` returns.
const MAX_MATCHES: usize = 200;
/// Most files looked at by one call.
const MAX_FILES: usize = 50_000;
/// Largest file `Grep` reads.
const MAX_GREP_BYTES: u64 = 4 * 1024 * 1024;
/// Characters of a matching line kept.
const MAX_LINE_CHARS: usize = 300;

impl ToolRunner {
    /// `Glob` `pattern` under `path` (the working folder when absent).
    pub(super) fn glob(&self, current: Option<&str>, pattern: &str, path: Option<&str>) -> ToolOutcome {
        let root = match self.places(current).for_reading(path.unwrap_or(".")) {
            Ok(root) => root,
            Err(why) => return ToolOutcome::refused(why),
        };
        let matcher = match globset::Glob::new(pattern) {
            Ok(glob) => glob.compile_matcher(),
            Err(e) => return ToolOutcome::refused(format!("{pattern:?} is not a glob pattern: {e}")),
        };
        let mut found: Vec<(std::time::SystemTime, String)> = files_under(&root.real)
            .filter_map(|file| {
                let rel = file.strip_prefix(&root.real).ok()?;
                matcher.is_match(rel).then(|| {
                    let modified = file
                        .metadata()
                        .and_then(|m| m.modified())
                        .unwrap_or(std::time::UNIX_EPOCH);
                    (modified, self.shown(&file))
                })
            })
            .collect();
        self.file_event("Glob", &root.shown, found.len() as u64);
        if found.is_empty() {
            return ToolOutcome::ok(format!("no file under {} matches {pattern}", shown_root(&root.shown)));
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        let total = found.len();
        let mut text: String = found.into_iter().take(MAX_PATHS).map(|(_, p)| p + "\n").collect();
        if total > MAX_PATHS {
            text.push_str(&format!(
                "({} more not listed; narrow the pattern)\n",
                total - MAX_PATHS
            ));
        }
        ToolOutcome::ok(text)
    }

    /// `Grep` for the regular expression `pattern` in files under `path`, only those matching
    /// `glob` when given.
    pub(super) fn grep(
        &self,
        current: Option<&str>,
        pattern: &str,
        path: Option<&str>,
        glob: Option<&str>,
    ) -> ToolOutcome {
        let root = match self.places(current).for_reading(path.unwrap_or(".")) {
            Ok(root) => root,
            Err(why) => return ToolOutcome::refused(why),
        };
        let regex = match regex::Regex::new(pattern) {
            Ok(regex) => regex,
            Err(e) => return ToolOutcome::refused(format!("{pattern:?} is not a regular expression: {e}")),
        };
        let filter = match glob.map(globset::Glob::new).transpose() {
            Ok(glob) => glob.map(|g| g.compile_matcher()),
            Err(e) => return ToolOutcome::refused(format!("{glob:?} is not a glob pattern: {e}")),
        };
        let files: Vec<PathBuf> = if root.real.is_file() {
            vec![root.real.clone()]
        } else {
            files_under(&root.real).collect()
        };
        let mut lines = Vec::new();
        let mut more = 0usize;
        for file in files {
            let name_ok = filter.as_ref().is_none_or(|f| {
                f.is_match(file.file_name().map(Path::new).unwrap_or(&file))
                    || file.strip_prefix(&root.real).is_ok_and(|rel| f.is_match(rel))
            });
            if !name_ok || file.metadata().map_or(true, |m| m.len() > MAX_GREP_BYTES) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&file) else { continue };
            if looks_binary(&bytes) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            for (i, line) in text.lines().enumerate().filter(|(_, l)| regex.is_match(l)) {
                if lines.len() >= MAX_MATCHES {
                    more += 1;
                    continue;
                }
                let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
                lines.push(format!("{}:{}:{cut}", self.shown(&file), i + 1));
            }
        }
        self.file_event("Grep", &root.shown, lines.len() as u64);
        if lines.is_empty() {
            return ToolOutcome::ok(format!("no line under {} matches {pattern}", shown_root(&root.shown)));
        }
        let mut text = self.settings.redactor.redact(&(lines.join("\n") + "\n")).into_owned();
        if more > 0 {
            text.push_str(&format!(
                "({more} more matching lines not listed; narrow the pattern or the path)\n"
            ));
        }
        ToolOutcome::ok(text)
    }

    /// A found path as the model should name it: relative to the working folder when inside.
    fn shown(&self, file: &Path) -> String {
        let root = std::fs::canonicalize(&self.settings.workdir).unwrap_or_else(|_| self.settings.workdir.clone());
        file.strip_prefix(&root)
            .map_or_else(|_| file.display().to_string(), |rel| rel.display().to_string())
    }
}

/// "the working folder" for an empty shown root.
fn shown_root(shown: &str) -> &str {
    if shown.is_empty() { "the working folder" } else { shown }
}

/// Regular files under `root`, not following links, skipping `.git` and `node_modules`, at most
/// [`MAX_FILES`] of them.
fn files_under(root: &Path) -> impl Iterator<Item = PathBuf> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some(".git" | "node_modules")))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .take(MAX_FILES)
        .map(walkdir::DirEntry::into_path)
}
