//! Which files of a skill folder the audit reads: every regular file below it, `.git` skipped,
//! symlinks not followed (a link out of the folder must not make the audit read `~/.ssh`), in a
//! stable order, with caps so a hostile folder cannot make the audit slow.

use std::path::{Path, PathBuf};

/// Most bytes of one file read; a lure or payload marker sits near the top of what it is in.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most files of one folder read.
const MAX_FILES: usize = 5000;
/// Most folders entered, so a deep or wide tree ends.
const MAX_DIRS: usize = 2000;

/// One file to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct File {
    /// Relative to the audited folder.
    pub rel: PathBuf,
    pub path: PathBuf,
}

/// The files of a folder, and how many were left out by the caps.
#[derive(Debug, Default)]
pub struct Listing {
    pub files: Vec<File>,
    pub skipped: usize,
}

/// The regular files below `dir`, sorted by relative path.
pub fn files(dir: &Path) -> Listing {
    let mut listing = Listing::default();
    let mut stack = vec![PathBuf::new()];
    let mut dirs = 0usize;
    while let Some(rel) = stack.pop() {
        dirs += 1;
        if dirs > MAX_DIRS {
            listing.skipped += 1;
            continue;
        }
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else { continue };
            let rel_path = rel.join(&name);
            if kind.is_dir() {
                if name != ".git" {
                    stack.push(rel_path);
                }
            } else if kind.is_file() {
                if listing.files.len() >= MAX_FILES {
                    listing.skipped += 1;
                    continue;
                }
                listing.files.push(File {
                    path: dir.join(&rel_path),
                    rel: rel_path,
                });
            }
        }
    }
    listing.files.sort();
    listing
}

/// Whether `rel` is the skill's own `SKILL.md` (the file whose frontmatter names and grants).
pub fn is_skill_file(rel: &Path) -> bool {
    rel.as_os_str().eq_ignore_ascii_case("SKILL.md")
}

/// Whether `rel` is prose (markdown, text) rather than code: HTML comments matter only there.
pub fn is_prose(rel: &Path) -> bool {
    rel.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "md" | "markdown" | "txt" | "mdx"))
}
