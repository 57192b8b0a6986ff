//! What changed between the installed copy of a skill and a new one, for `skills update` to show
//! before it asks: files added, removed and changed, with lines added and removed for text files
//! and the changed lines themselves for `SKILL.md` and scripts (what the user is asked to trust).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::Digest;
use similar::{ChangeTag, TextDiff};

use crate::support::fs::read_regular;

/// Bytes of one file compared at most; larger files are compared by size and the hash of that
/// much of their start.
const MAX_COMPARED_BYTES: u64 = 1024 * 1024;
/// Changed lines shown at most, over every file.
const MAX_SHOWN_LINES: usize = 400;
/// Files looked at in one folder at most.
const MAX_FILES: usize = 5000;

/// How one file differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Change {
    Added,
    Removed,
    Changed,
}

/// One file that differs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FileChange {
    /// Relative to the skill folder.
    pub(crate) path: String,
    pub(crate) change: Change,
    /// Lines added and removed (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lines_added: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lines_removed: Option<usize>,
    /// The changed lines, `+`/`-` prefixed (SKILL.md and scripts).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) lines: Vec<String>,
}

/// Every file that differs between two copies of a skill, by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FolderDiff {
    pub(crate) files: Vec<FileChange>,
    /// Changed lines not shown to stay within the limit.
    pub(crate) lines_not_shown: usize,
}

impl FolderDiff {
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Compare the folder `old` with `new`.
    pub(crate) fn between(old: &Path, new: &Path) -> Self {
        let before = files(old);
        let after = files(new);
        let mut out = Self::default();
        let mut budget = MAX_SHOWN_LINES;
        let paths: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
        for rel in paths {
            let old_bytes = before.get(rel).map(|p| read(p));
            let new_bytes = after.get(rel).map(|p| read(p));
            let change = match (&old_bytes, &new_bytes) {
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (Some(a), Some(b)) if a != b => Change::Changed,
                _ => continue,
            };
            let old_text = old_bytes.as_ref().map_or(Some(String::new()), |b| text(b));
            let new_text = new_bytes.as_ref().map_or(Some(String::new()), |b| text(b));
            let mut file = FileChange {
                path: rel.clone(),
                change,
                lines_added: None,
                lines_removed: None,
                lines: Vec::new(),
            };
            if let (Some(a), Some(b)) = (old_text, new_text) {
                let shown = is_instructions_or_script(rel, &b) || is_instructions_or_script(rel, &a);
                let (added, removed, lines) = line_changes(&a, &b, if shown { budget } else { 0 });
                out.lines_not_shown += if shown { added + removed - lines.len() } else { 0 };
                budget -= lines.len();
                file.lines_added = Some(added);
                file.lines_removed = Some(removed);
                file.lines = lines;
            }
            out.files.push(file);
        }
        out
    }
}

/// Whether a file is what a person should read before trusting: the skill file or a script.
fn is_instructions_or_script(rel: &str, text: &str) -> bool {
    rel.eq_ignore_ascii_case("SKILL.md") || rel.starts_with("scripts/") || text.starts_with("#!")
}

/// Lines added and removed, and up to `show` of them prefixed with `+`/`-`.
fn line_changes(old: &str, new: &str, show: usize) -> (usize, usize, Vec<String>) {
    let diff = TextDiff::from_lines(old, new);
    let (mut added, mut removed, mut lines) = (0, 0, Vec::new());
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Insert => {
                added += 1;
                '+'
            }
            ChangeTag::Delete => {
                removed += 1;
                '-'
            }
            ChangeTag::Equal => continue,
        };
        if lines.len() < show {
            lines.push(format!("{sign}{}", change.value().trim_end_matches(['\n', '\r'])));
        }
    }
    (added, removed, lines)
}

/// The bytes of a file to compare: its content, or for a large or unreadable one a marker with
/// its size (so a change of size still shows).
fn read(path: &Path) -> Vec<u8> {
    match read_regular(path, MAX_COMPARED_BYTES) {
        Ok(read) if !read.truncated() => read.bytes,
        Ok(read) => {
            let digest = sha2::Sha256::digest(&read.bytes);
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            format!("\0large file of {} bytes starting with sha256 {hex}", read.size).into_bytes()
        }
        Err(e) => format!("\0unreadable: {}", e.kind()).into_bytes(),
    }
}

fn text(bytes: &[u8]) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

/// The files of a skill folder by relative path; `.git` and other hidden folders are skipped.
fn files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if out.len() >= MAX_FILES {
                return out;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    stack.push(path);
                }
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.insert(rel.display().to_string(), path);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_lines_that_changed() {
        let old = tempfile::tempdir().unwrap();
        let new = tempfile::tempdir().unwrap();
        let put = |root: &Path, rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        put(old.path(), "SKILL.md", "a\nb\nc\n");
        put(new.path(), "SKILL.md", "a\nB\nc\nd\n");
        put(old.path(), "scripts/gone.sh", "#!/bin/sh\n");
        put(new.path(), "scripts/new.sh", "#!/bin/sh\necho\n");
        put(old.path(), "same.txt", "x");
        put(new.path(), "same.txt", "x");
        put(new.path(), "logo.png", "\0\x01");
        put(new.path(), ".git/HEAD", "ref");
        let diff = FolderDiff::between(old.path(), new.path());
        let summary: Vec<(String, Change, Option<usize>, Option<usize>)> = diff
            .files
            .iter()
            .map(|f| (f.path.clone(), f.change, f.lines_added, f.lines_removed))
            .collect();
        assert_eq!(
            summary,
            [
                ("SKILL.md".into(), Change::Changed, Some(2), Some(1)),
                ("logo.png".into(), Change::Added, None, None),
                ("scripts/gone.sh".into(), Change::Removed, Some(0), Some(1)),
                ("scripts/new.sh".into(), Change::Added, Some(2), Some(0)),
            ]
        );
        assert_eq!(diff.files[0].lines, ["-b", "+B", "+d"]);
        assert!(FolderDiff::between(old.path(), old.path()).is_empty());
    }
}
