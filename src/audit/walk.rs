//! Which files of a skill folder the audit reads: every regular file below it, `.git` skipped,
//! symlinks not followed (a link out of the folder must not make the audit read `~/.ssh`), in a
//! stable order, with caps so a hostile folder cannot make the audit slow. What is not read is
//! listed with the reason ([`Listing::unread`]), so the audit reports it instead of passing it
//! over in silence.

use std::path::{Path, PathBuf};

/// Most bytes of one file read; a lure or payload marker sits near the top of what it is in.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most files of one folder read.
const MAX_FILES: usize = 5000;
/// Most folders entered, so a deep or wide tree ends.
const MAX_DIRS: usize = 2000;

/// One file to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct File {
    /// Relative to the audited folder.
    pub(crate) rel: PathBuf,
    pub(crate) path: PathBuf,
}

/// The files of a folder, and what was left out.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub(crate) files: Vec<File>,
    /// How many entries the caps left out.
    pub(crate) skipped: usize,
    /// Entries not read, relative to the folder, with why: a link out of the folder, a pipe or
    /// device, a folder that could not be listed.
    pub(crate) unread: Vec<(PathBuf, String)>,
}

/// The regular files below `dir`, sorted by relative path.
pub(crate) fn files(dir: &Path) -> Listing {
    let mut listing = Listing::default();
    let mut stack = vec![PathBuf::new()];
    let mut dirs = 0usize;
    while let Some(rel) = stack.pop() {
        dirs += 1;
        if dirs > MAX_DIRS {
            listing.skipped += 1;
            continue;
        }
        let entries = match std::fs::read_dir(dir.join(&rel)) {
            Ok(entries) => entries,
            Err(e) => {
                listing.unread.push((rel, format!("the folder cannot be listed ({e})")));
                continue;
            }
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let rel_path = rel.join(&name);
            let Ok(kind) = entry.file_type() else {
                listing.unread.push((rel_path, "its type cannot be read".to_string()));
                continue;
            };
            if kind.is_symlink() {
                if let Some(why) = link_out(dir, &dir.join(&rel_path)) {
                    listing.unread.push((rel_path, why));
                }
            } else if !kind.is_dir() && !kind.is_file() {
                listing.unread.push((
                    rel_path,
                    "it is not a regular file (a pipe, socket or device)".to_string(),
                ));
            } else if kind.is_dir() {
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

/// Why the symlink `link` (in the folder `dir`) is not audited, or `None` when it points at
/// something inside the folder, which the walk reads where it is.
fn link_out(dir: &Path, link: &Path) -> Option<String> {
    let target = std::fs::read_link(link).map_or_else(|e| format!("? ({e})"), |t| t.display().to_string());
    let (Ok(root), Ok(resolved)) = (std::fs::canonicalize(dir), std::fs::canonicalize(link)) else {
        return Some(format!("it is a symlink to {target}, which does not resolve"));
    };
    (!resolved.starts_with(&root)).then(|| format!("it is a symlink out of the skill folder, to {target}"))
}

/// Whether `rel` is the skill's own `SKILL.md` (the file whose frontmatter names and grants).
pub(crate) fn is_skill_file(rel: &Path) -> bool {
    rel.as_os_str().eq_ignore_ascii_case("SKILL.md")
}

/// Whether `rel` is prose (markdown, text) rather than code: HTML comments matter only there.
pub(crate) fn is_prose(rel: &Path) -> bool {
    rel.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "md" | "markdown" | "txt" | "mdx"))
}
