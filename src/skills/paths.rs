//! `paths:` (Claude Code, docs/skills.md#paths): a skill with globs is offered to the model only
//! when the working folder holds a file one of them matches. Globs are relative to the working
//! folder, `*` stays within one folder and `**` crosses folders (`*.md` is the top level only,
//! `**/*.md` anywhere), `{a,b}` alternates. The folder is walked once a run, bounded; a walk cut
//! short hides nothing, since a file past the bound could match.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::Skill;

/// Most entries of the working folder looked at.
const MAX_ENTRIES: usize = 20_000;
/// Deepest folder level entered.
const MAX_DEPTH: usize = 16;
/// Folders never entered: version control, dependencies and caches, which no skill is about.
const SKIPPED: [&str; 7] = [".git", "node_modules", "target", "__pycache__", ".venv", ".hg", ".svn"];

/// The files of one working folder, relative, with `/` between folders.
#[derive(Debug)]
struct Walk {
    files: Vec<String>,
    /// The walk stopped at its bound before seeing everything.
    cut_short: bool,
}

/// Mark each skill of `skills` whose `paths:` match no file of `workdir` (see
/// [`Skill::paths_unmatched`]). The folder is walked only when some skill has globs, and at
/// most once a run for each folder.
pub(crate) fn mark_unmatched(skills: &mut [Skill], workdir: &Path) {
    if skills.iter().all(|s| s.invocation.paths.is_empty()) {
        return;
    }
    let walk = walked(workdir);
    for skill in skills.iter_mut().filter(|s| !s.invocation.paths.is_empty()) {
        skill.paths_unmatched = !walk.cut_short && !matches_any(&skill.invocation.paths, &walk.files);
    }
}

/// Whether any of `files` matches any of `globs`. A glob that does not parse matches nothing; one
/// that is all invalid hides the skill (`skills check` names the bad glob).
fn matches_any(globs: &[String], files: &[String]) -> bool {
    let Some(set) = glob_set(globs) else {
        return false;
    };
    files.iter().any(|f| set.is_match(f))
}

/// The globs that parse, as one set; `None` when none does.
fn glob_set(globs: &[String]) -> Option<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    let mut any = false;
    for glob in globs {
        let glob = glob.trim_start_matches("./");
        if let Ok(g) = GlobBuilder::new(glob).literal_separator(true).build() {
            builder.add(g);
            any = true;
        }
    }
    any.then(|| builder.build().ok()).flatten()
}

/// Globs of `globs` that do not parse, each with why (for `skills check`).
pub(crate) fn invalid_globs(globs: &[String]) -> Vec<String> {
    globs
        .iter()
        .filter_map(|g| {
            GlobBuilder::new(g.trim_start_matches("./"))
                .literal_separator(true)
                .build()
                .err()
                .map(|e| format!("{g}: {e}"))
        })
        .collect()
}

/// The walk of `workdir`, made on first use in this run.
fn walked(workdir: &Path) -> Arc<Walk> {
    static WALKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Walk>>>> = OnceLock::new();
    let walks = WALKS.get_or_init(Mutex::default);
    let mut walks = walks.lock().unwrap_or_else(|p| p.into_inner());
    walks
        .entry(workdir.to_path_buf())
        .or_insert_with(|| Arc::new(walk(workdir)))
        .clone()
}

/// The files below `workdir` (links not followed), at most [`MAX_ENTRIES`] entries.
fn walk(workdir: &Path) -> Walk {
    let mut files = Vec::new();
    let mut seen = 0usize;
    let mut cut_short = false;
    let entries = walkdir::WalkDir::new(workdir)
        .min_depth(1)
        .max_depth(MAX_DEPTH)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && SKIPPED.iter().any(|s| e.file_name() == *s)));
    for entry in entries.filter_map(Result::ok) {
        seen += 1;
        if seen > MAX_ENTRIES {
            cut_short = true;
            break;
        }
        if entry.file_type().is_dir() {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(workdir) {
            files.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Walk { files, cut_short }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn globs(list: &[&str]) -> Vec<String> {
        files(list)
    }

    #[test]
    fn globs_follow_claude_code_semantics() {
        let tree = files(&["README.md", "src/lib.rs", "src/api/handler.ts", "docs/guide.md"]);
        assert!(matches_any(&globs(&["*.md"]), &tree));
        assert!(!matches_any(&globs(&["*.rs"]), &tree), "* stays within the top folder");
        assert!(matches_any(&globs(&["**/*.rs"]), &tree));
        assert!(matches_any(&globs(&["src/**/*.{ts,tsx}"]), &tree));
        assert!(matches_any(&globs(&["./docs/*.md"]), &tree));
        assert!(!matches_any(&globs(&["*.py", "tests/**"]), &tree));
        assert!(!matches_any(&globs(&["src/[unclosed"]), &tree));
        assert_eq!(invalid_globs(&globs(&["ok/*", "src/[unclosed"])).len(), 1);
    }

    #[test]
    fn the_walk_skips_dependency_folders() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a/b.py", "node_modules/x/y.py", ".git/HEAD", ".github/workflows/ci.yml"] {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let mut found = walk(dir.path()).files;
        found.sort();
        assert_eq!(found, [".github/workflows/ci.yml", "a/b.py"]);
    }

    #[test]
    fn skills_without_a_matching_file_are_marked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        let mut rust = Skill::synthetic("rust", "Rust help.");
        rust.invocation.paths = globs(&["Cargo.toml"]);
        let mut python = Skill::synthetic("python", "Python help.");
        python.invocation.paths = globs(&["**/*.py", "pyproject.toml"]);
        let plain = Skill::synthetic("plain", "Always.");
        let mut skills = vec![rust, python, plain];
        mark_unmatched(&mut skills, dir.path());
        let hidden: Vec<bool> = skills.iter().map(|s| s.paths_unmatched).collect();
        assert_eq!(hidden, [false, true, false]);
        assert!(!skills[1].offered_to_model() && skills[0].offered_to_model());
    }
}
