//! `Glob` and `Grep` under a folder of the working folder (or the active skill's): paths in
//! name order, and matching lines as `path:line:text`, each capped. Version-control folders,
//! dependency and cache folders are not walked, nor links (a link out of the folder is never
//! followed), nor binary or huge files for `Grep`.

use std::path::{Path, PathBuf};

use super::{ToolRunner, looks_binary};
use crate::agent::outcome::ToolOutcome;

/// Most paths `Glob` returns.
const MAX_PATHS: usize = 200;
/// Most matching lines `Grep` returns (unless the call asks for fewer).
const MAX_MATCHES: usize = 200;
/// Most files looked at by one call.
const MAX_FILES: usize = 50_000;
/// Largest file `Grep` reads.
const MAX_GREP_BYTES: u64 = 4 * 1024 * 1024;
/// Characters of a matching line kept; a longer line (XML on one line) is shown around the match.
const MAX_LINE_CHARS: usize = 300;
/// Folders no search walks into: version control, dependencies, caches (whatever the pattern).
const NOISE: [&str; 9] = [
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "__pycache__",
    ".venv",
    ".mypy_cache",
    ".pytest_cache",
    ".tox",
];

/// What `Grep` was asked for, beyond the pattern.
#[derive(Debug, Default)]
pub(super) struct GrepOptions<'a> {
    /// The folder or file to search (the working folder when absent).
    pub(crate) path: Option<&'a str>,
    /// Only files whose name (or path below `path`) matches this glob.
    pub(crate) glob: Option<&'a str>,
    /// Case-insensitive (`-i`).
    pub(crate) ignore_case: bool,
    /// `files_with_matches` or `count` instead of the lines (Claude Code's `output_mode`).
    pub(crate) mode: Option<&'a str>,
    /// Most results to return (`head_limit`).
    pub(crate) head_limit: Option<usize>,
}

impl ToolRunner {
    /// `Glob` `pattern` under `path` (the working folder when absent).
    pub(super) fn glob(&self, current: Option<&str>, pattern: &str, path: Option<&str>) -> ToolOutcome {
        let root = match self.places(current).for_reading(path.unwrap_or(".")) {
            Ok(root) => root,
            Err(why) => return ToolOutcome::refused(why),
        };
        let matcher = match globset::GlobBuilder::new(pattern.trim_start_matches("./"))
            .literal_separator(true)
            .build()
        {
            Ok(glob) => glob.compile_matcher(),
            Err(e) => return ToolOutcome::refused(format!("{pattern:?} is not a glob pattern: {e}")),
        };
        let mut found: Vec<String> = files_under(&root.real)
            .filter(|file| file.strip_prefix(&root.real).is_ok_and(|rel| matcher.is_match(rel)))
            .map(|file| self.shown(&file))
            .collect();
        self.file_event("Glob", &root.shown, found.len() as u64);
        if found.is_empty() {
            let deeper = if pattern.contains('/') {
                ""
            } else {
                " (a pattern without / looks only in that folder; **/ looks below it too)"
            };
            return ToolOutcome::ok(format!(
                "no file under {} matches {pattern}{deeper}",
                shown_root(&root.shown)
            ));
        }
        found.sort();
        let total = found.len();
        let mut text: String = found.into_iter().take(MAX_PATHS).map(|p| p + "\n").collect();
        if total > MAX_PATHS {
            text.push_str(&format!(
                "({} more not listed; narrow the pattern)\n",
                total - MAX_PATHS
            ));
        }
        ToolOutcome::ok(self.settings.redactor.redact(&text).into_owned())
    }

    /// `Grep` for the regular expression `pattern` in files under the options' path.
    pub(super) fn grep(&self, current: Option<&str>, pattern: &str, options: &GrepOptions<'_>) -> ToolOutcome {
        let root = match self.places(current).for_reading(options.path.unwrap_or(".")) {
            Ok(root) => root,
            Err(why) => return ToolOutcome::refused(why),
        };
        let regex = match regex::RegexBuilder::new(pattern)
            .case_insensitive(options.ignore_case)
            .size_limit(1 << 22)
            .build()
        {
            Ok(regex) => regex,
            Err(e) => return ToolOutcome::refused(format!("{pattern:?} is not a regular expression: {e}")),
        };
        let filter = match options.glob.map(globset::Glob::new).transpose() {
            Ok(glob) => glob.map(|g| g.compile_matcher()),
            Err(e) => return ToolOutcome::refused(format!("{:?} is not a glob pattern: {e}", options.glob)),
        };
        let mut files: Vec<PathBuf> = if root.real.is_file() {
            vec![root.real.clone()]
        } else {
            files_under(&root.real).collect()
        };
        files.sort();
        let limit = options.head_limit.unwrap_or(MAX_MATCHES).clamp(1, MAX_MATCHES);
        let mut found = Found::default();
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
            found.file(
                &self.shown(&file),
                &String::from_utf8_lossy(&bytes),
                &regex,
                options.mode,
                limit,
            );
        }
        self.file_event("Grep", &root.shown, found.count as u64);
        if found.lines.is_empty() {
            return ToolOutcome::ok(format!("no line under {} matches {pattern}", shown_root(&root.shown)));
        }
        let mut text = self
            .settings
            .redactor
            .redact(&(found.lines.join("\n") + "\n"))
            .into_owned();
        if found.more > 0 {
            text.push_str(&format!(
                "({} more not listed; narrow the pattern or the path)\n",
                found.more
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

/// What `Grep` found so far: the result lines, how many matches in all, and how many left out.
#[derive(Default)]
struct Found {
    lines: Vec<String>,
    count: usize,
    more: usize,
}

impl Found {
    /// Look through one file's `text` (shown as `name`), as `mode` asks, keeping at most `limit`
    /// result lines.
    fn file(&mut self, name: &str, text: &str, regex: &regex::Regex, mode: Option<&str>, limit: usize) {
        let mut matched = text.lines().enumerate().filter(|(_, l)| regex.is_match(l)).peekable();
        if matched.peek().is_none() {
            return;
        }
        let entry = match mode {
            Some("files_with_matches" | "files") => Some(name.to_string()),
            Some("count") => Some(format!("{name}:{}", matched.by_ref().count())),
            _ => None,
        };
        if let Some(entry) = entry {
            self.count += 1;
            self.push(entry, limit);
            return;
        }
        for (i, line) in matched {
            self.count += 1;
            self.push(format!("{name}:{}:{}", i + 1, around_match(line, regex)), limit);
        }
    }

    fn push(&mut self, line: String, limit: usize) {
        if self.lines.len() < limit {
            self.lines.push(line);
        } else {
            self.more += 1;
        }
    }
}

/// `line`, or when it is long, the part around its first match, with `…` where it was cut.
fn around_match(line: &str, regex: &regex::Regex) -> String {
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let at = regex.find(line).map_or(0, |m| m.start());
    let before: Vec<char> = line[..at].chars().rev().take(MAX_LINE_CHARS / 3).collect();
    let start = at - before.iter().map(|c| c.len_utf8()).sum::<usize>();
    let shown: String = line[start..].chars().take(MAX_LINE_CHARS).collect();
    let end = start + shown.len();
    format!(
        "{}{shown}{}",
        if start > 0 { "…" } else { "" },
        if end < line.len() { "…" } else { "" }
    )
}

/// "the working folder" for the working folder itself.
fn shown_root(shown: &str) -> &str {
    if shown.is_empty() || shown == "." {
        "the working folder"
    } else {
        shown
    }
}

/// Regular files under `root`, not following links, skipping [`NOISE`] folders below it, at
/// most [`MAX_FILES`] of them.
fn files_under(root: &Path) -> impl Iterator<Item = PathBuf> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_str().is_some_and(|n| NOISE.contains(&n)))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .take(MAX_FILES)
        .map(walkdir::DirEntry::into_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_shown_around_its_match() {
        let regex = regex::Regex::new("NEEDLE").unwrap();
        let line = format!("{}NEEDLE{}", "a".repeat(5000), "b".repeat(5000));
        let shown = around_match(&line, &regex);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("NEEDLE"));
        assert!(shown.chars().count() <= MAX_LINE_CHARS + 2);
        assert_eq!(around_match("short NEEDLE", &regex), "short NEEDLE");
        let tail = format!("{}é NEEDLE", "é".repeat(400));
        assert!(around_match(&tail, &regex).ends_with("NEEDLE"));
    }

    #[test]
    fn modes_list_files_or_counts_and_stop_at_the_limit() {
        let regex = regex::Regex::new("x").unwrap();
        let mut found = Found::default();
        found.file("a.txt", "x\ny\nx\n", &regex, Some("count"), 10);
        found.file("b.txt", "x\n", &regex, Some("files_with_matches"), 10);
        assert_eq!(found.lines, ["a.txt:2", "b.txt"]);
        let mut lines = Found::default();
        lines.file("a.txt", "x1\nx2\nx3\n", &regex, None, 2);
        assert_eq!(lines.lines, ["a.txt:1:x1", "a.txt:2:x2"]);
        assert_eq!((lines.count, lines.more), (3, 1));
    }
}
