//! Finding skill folders below the roots of SPEC §2, first name wins.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::parse::{Loaded, load_skill};
use super::{Diagnostic, Severity, Skill, code};
use crate::support::skill_dirs::{find_skill_file, is_ignored};
use crate::support::skill_roots::Tool;

/// Where a root came from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RootKind {
    /// `--skills-dir`
    Flag,
    /// `AGENT_SKILLS_PATH`
    EnvPath,
    /// `./.agents/skills`, `./skills`, `.agents/skills` of parents up to the repository root, and
    /// the other agents' project folders (`.claude/skills` …): the working folder's trust covers them.
    Project,
    /// `~/.agents/skills`, `~/.skills`, and the other agents' user folders (`~/.claude/skills` …)
    User,
}

/// A folder whose direct subfolders are skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRoot {
    pub path: PathBuf,
    pub kind: RootKind,
    /// Whose folder convention it is (ours, or another agent's such as `.claude/skills`).
    pub tool: Tool,
}

impl SkillRoot {
    /// A root of ours.
    pub fn new(path: PathBuf, kind: RootKind) -> Self {
        Self {
            path,
            kind,
            tool: Tool::Agent,
        }
    }

    /// The same root, as another tool's folder.
    pub fn of(mut self, tool: Tool) -> Self {
        self.tool = tool;
        self
    }
}

/// Everything a scan found: the winning skills and every finding along the way.
#[derive(Debug, Default)]
pub struct Discovery {
    pub skills: Vec<Skill>,
    /// Folders that have a skill file but could not be loaded, with the reason.
    pub skipped: Vec<Diagnostic>,
    /// Problems that belong to no single skill (unreadable roots, shadowed names).
    pub warnings: Vec<Diagnostic>,
}

/// Scan every root in order.
pub fn discover(roots: &[SkillRoot]) -> Discovery {
    let mut out = Discovery::default();
    let mut seen_roots = HashSet::new();
    let mut by_name: HashMap<String, PathBuf> = HashMap::new();
    for root in roots {
        let canonical = match std::fs::canonicalize(&root.path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if root.kind == RootKind::EnvPath {
                    out.warnings.push(Diagnostic::new(
                        code::MISSING_ROOT,
                        Severity::Warning,
                        &root.path,
                        None,
                        "AGENT_SKILLS_PATH names a folder that does not exist",
                    ));
                }
                continue;
            }
            Err(e) => {
                out.warnings.push(Diagnostic::new(
                    code::UNREADABLE_ROOT,
                    Severity::Warning,
                    &root.path,
                    None,
                    format!("cannot open skill root: {e}"),
                ));
                continue;
            }
        };
        if !seen_roots.insert(canonical) {
            continue;
        }
        let dirs = skill_dirs(&root.path, &mut out.warnings);
        for loaded in load_all(&dirs, &root.path) {
            match loaded {
                Loaded::Skill(mut skill) => match by_name.get(&skill.name) {
                    Some(winner) => out.warnings.push(Diagnostic::new(
                        code::SHADOWED,
                        Severity::Warning,
                        &skill.skill_file,
                        Some(1),
                        format!(
                            "skill `{}` is shadowed by {} (first match wins)",
                            skill.name,
                            winner.display()
                        ),
                    )),
                    None => {
                        skill.root_kind = root.kind;
                        skill.tool = root.tool;
                        by_name.insert(skill.name.clone(), skill.dir.clone());
                        out.skills.push(*skill);
                    }
                },
                Loaded::Skipped(reason) => out.skipped.push(reason),
                Loaded::NotASkill => {}
            }
        }
    }
    out
}

/// Load every folder, in parallel on large roots, keeping the folders' order in the result.
fn load_all(dirs: &[PathBuf], root: &Path) -> Vec<Loaded> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    // Threads cost more than they save on small roots.
    if threads < 2 || dirs.len() < 64 {
        return dirs.iter().map(|d| load_skill(d, root)).collect();
    }
    let chunk = dirs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(|d| load_skill(d, root)).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join().unwrap_or_else(|_| {
                    // A panic in the loader is a bug; report the folders as skipped, don't lose the rest.
                    vec![Loaded::Skipped(Diagnostic::new(
                        code::INTERNAL_ERROR,
                        Severity::Error,
                        root,
                        None,
                        "internal error while loading",
                    ))]
                })
            })
            .collect()
    })
}

/// Direct subfolders of `root` (symlinks followed), sorted by name for a stable order. A root that
/// is itself a skill folder counts as one skill, since that is what people point `--skills-dir` at.
fn skill_dirs(root: &Path, warnings: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    if find_skill_file(root).is_some() {
        return vec![root.to_path_buf()];
    }
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(Diagnostic::new(
                code::UNREADABLE_ROOT,
                Severity::Warning,
                root,
                None,
                format!("cannot list skill root: {e}"),
            ));
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !is_ignored(&e.file_name().to_string_lossy()))
        .filter_map(|e| {
            let path = e.path();
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => Some(path),
                Ok(_) => None,
                Err(err) => {
                    warnings.push(Diagnostic::new(
                        code::BROKEN_LINK,
                        Severity::Warning,
                        &path,
                        None,
                        format!("skipped: {err} (broken or looping symlink?)"),
                    ));
                    None
                }
            }
        })
        .collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn skill(root: &Path, folder: &str, name: &str) {
        let dir = root.join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: does {name} things\n---\nbody"),
        )
        .unwrap();
    }

    #[test]
    fn first_root_wins_and_shadowed_are_warned() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        skill(a.path(), "x", "x");
        skill(b.path(), "x", "x");
        skill(b.path(), "y", "y");
        let d = discover(&[
            SkillRoot::new(a.path().into(), RootKind::Flag),
            SkillRoot::new(b.path().into(), RootKind::User),
        ]);
        let names: Vec<_> = d.skills.iter().map(|s| (s.name.as_str(), s.root.clone())).collect();
        assert_eq!(names, [("x", a.path().to_path_buf()), ("y", b.path().to_path_buf())]);
        assert_eq!(d.warnings[0].code, code::SHADOWED);
    }

    #[test]
    fn hidden_and_node_modules_skipped_symlinks_followed() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        skill(root.path(), ".hidden", "hidden");
        skill(root.path(), "node_modules", "nm");
        skill(elsewhere.path(), "linked", "linked");
        std::os::unix::fs::symlink(elsewhere.path().join("linked"), root.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(root.path().join("loop"), root.path().join("loop")).unwrap();
        let d = discover(&[SkillRoot::new(root.path().into(), RootKind::Flag)]);
        let names: Vec<_> = d.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["linked"]);
        assert!(d.warnings.iter().any(|w| w.file.ends_with("loop")));
    }

    #[test]
    fn same_root_twice_is_scanned_once() {
        let root = tempfile::tempdir().unwrap();
        skill(root.path(), "x", "x");
        let r = SkillRoot::new(root.path().into(), RootKind::Flag);
        let d = discover(&[r.clone(), SkillRoot::new(root.path().into(), RootKind::Project)]);
        assert_eq!(d.skills.len(), 1);
        assert!(d.warnings.is_empty());
    }
}
