//! Skill roots, all in one place (docs/design.md#skill-roots): which folders are roots — ours in the
//! working folder and its parents up to the repository root, the user's, the other agents' project
//! and user folders — and their precedence (`in_order`); what makes a folder below one a skill
//! folder (`skill_dirs`). Discovery, the folder-trust snapshot, the sandbox's protected paths and
//! the modification-time check all ask this module, so a skill that can be found is always a skill
//! that trust covers. Reading the settings that choose the roots is `config`'s business.

mod order;
pub(crate) mod skill_dirs;

pub(crate) use order::{Given, in_order};

use std::fmt;
use std::path::{Path, PathBuf};

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
    /// The skills shipped inside the binary (`skills::bundled`), last of all.
    Bundled,
}

/// A folder whose direct subfolders are skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRoot {
    pub(crate) path: PathBuf,
    pub(crate) kind: RootKind,
    /// Whose folder convention it is (ours, or another agent's such as `.claude/skills`).
    pub(crate) tool: Tool,
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
    pub(crate) fn of(mut self, tool: Tool) -> Self {
        self.tool = tool;
        self
    }
}

/// Whose folder convention a skill root follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tool {
    /// Ours: `.agents/skills`, `skills`, `~/.agents/skills`, `~/.skills`, flags, `AGENT_SKILLS_PATH`.
    Agent,
    /// Claude Code: `.claude/skills`, `~/.claude/skills`.
    Claude,
    /// Codex: `.codex/skills`, `~/.codex/skills`.
    Codex,
    /// Gemini CLI: `.gemini/skills`, `~/.gemini/skills`.
    Gemini,
    /// opencode: `.opencode/skills`, `~/.config/opencode/skills`.
    Opencode,
}

/// The other agents in their default order (`AGENT_OTHER_AGENTS` unset).
pub(crate) const OTHER_AGENTS: [Tool; 4] = [Tool::Claude, Tool::Codex, Tool::Gemini, Tool::Opencode];

impl Tool {
    /// The name used in `AGENT_OTHER_AGENTS` and in listings.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Agent => "agent",
            Tool::Claude => "claude",
            Tool::Codex => "codex",
            Tool::Gemini => "gemini",
            Tool::Opencode => "opencode",
        }
    }

    /// The project skill root of this tool inside a folder (`.claude/skills`).
    pub(crate) fn project_dir(self) -> &'static str {
        match self {
            Tool::Agent => ".agents/skills",
            Tool::Claude => ".claude/skills",
            Tool::Codex => ".codex/skills",
            Tool::Gemini => ".gemini/skills",
            Tool::Opencode => ".opencode/skills",
        }
    }

    /// The user skill root of this tool below the home folder (`.claude/skills`).
    pub(crate) fn user_dir(self) -> &'static str {
        match self {
            Tool::Agent => ".agents/skills",
            Tool::Opencode => ".config/opencode/skills",
            other => other.project_dir(),
        }
    }

    fn parse(name: &str) -> Option<Self> {
        OTHER_AGENTS.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `AGENT_OTHER_AGENTS` named something that is not one of the other agents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "AGENT_OTHER_AGENTS={value:?}: {unknown:?} is not one of claude, codex, gemini, opencode; \
     list some of them separated by commas, or say none"
)]
pub(crate) struct UnknownAgent {
    pub(crate) value: String,
    pub(crate) unknown: String,
}

/// The other agents whose folders are searched, in the order given: `AGENT_OTHER_AGENTS`
/// (`claude,codex,gemini,opencode` when unset or empty; `none` for no other agent).
pub(crate) fn other_agents(setting: Option<&str>) -> Result<Vec<Tool>, UnknownAgent> {
    let Some(value) = setting.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(OTHER_AGENTS.to_vec());
    };
    if value.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let mut tools = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let tool = Tool::parse(&part.to_ascii_lowercase()).ok_or_else(|| UnknownAgent {
            value: value.to_string(),
            unknown: part.to_string(),
        })?;
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    Ok(tools)
}

/// A project or user skill root and whose convention it follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RootDir {
    pub(crate) path: PathBuf,
    pub(crate) tool: Tool,
}

/// The nearest folder at or above `cwd` that holds `.git` (a folder, or the file of a worktree).
pub(crate) fn repository_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The folders whose project roots count: `cwd`, then each parent up to the repository root (none
/// outside a repository). The home folder is never one: its `.agents/skills` and `.claude/skills`
/// are the user's own, found as user roots (and trusted as such), also when `agent` runs there.
pub(crate) fn project_folders(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    if home.is_some_and(|h| same_place(h, cwd)) {
        return Vec::new();
    }
    let mut folders = vec![cwd.to_path_buf()];
    let Some(repo) = repository_root(cwd) else {
        return folders;
    };
    for dir in cwd.ancestors().skip(1) {
        if !dir.starts_with(&repo) {
            break;
        }
        if home.is_some_and(|h| same_place(h, dir)) {
            break;
        }
        folders.push(dir.to_path_buf());
    }
    folders
}

fn same_place(a: &Path, b: &Path) -> bool {
    a == b || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Our project roots, in precedence order: `.agents/skills` and `skills` in `cwd`, then
/// `.agents/skills` in each parent up to the repository root.
pub(crate) fn own_project_roots(cwd: &Path, home: Option<&Path>) -> Vec<RootDir> {
    let mut roots = Vec::new();
    for (depth, folder) in project_folders(cwd, home).into_iter().enumerate() {
        roots.push(RootDir {
            path: folder.join(Tool::Agent.project_dir()),
            tool: Tool::Agent,
        });
        if depth == 0 {
            roots.push(RootDir {
                path: folder.join("skills"),
                tool: Tool::Agent,
            });
        }
    }
    roots
}

/// The other agents' project roots: in `cwd` and each parent up to the repository root, nearest
/// folder first, and within one folder in the order of `tools`.
pub(crate) fn other_project_roots(cwd: &Path, home: Option<&Path>, tools: &[Tool]) -> Vec<RootDir> {
    project_folders(cwd, home)
        .into_iter()
        .flat_map(|folder| {
            tools.iter().map(move |tool| RootDir {
                path: folder.join(tool.project_dir()),
                tool: *tool,
            })
        })
        .collect()
}

/// Every project root, ours first (the precedence of docs/design.md#skill-roots).
pub(crate) fn project_roots(cwd: &Path, home: Option<&Path>, tools: &[Tool]) -> Vec<RootDir> {
    let mut roots = own_project_roots(cwd, home);
    roots.extend(other_project_roots(cwd, home, tools));
    roots
}

/// The user roots: ours (`~/.agents/skills`, `~/.skills`), then the other agents' in `tools` order.
pub(crate) fn user_roots(home: &Path, tools: &[Tool]) -> (Vec<RootDir>, Vec<RootDir>) {
    let own = vec![
        RootDir {
            path: home.join(Tool::Agent.user_dir()),
            tool: Tool::Agent,
        },
        RootDir {
            path: home.join(".skills"),
            tool: Tool::Agent,
        },
    ];
    let others = tools
        .iter()
        .map(|tool| RootDir {
            path: home.join(tool.user_dir()),
            tool: *tool,
        })
        .collect();
    (own, others)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(roots: &[RootDir], base: &Path) -> Vec<String> {
        roots
            .iter()
            .map(|r| format!("{}:{}", r.tool, r.path.strip_prefix(base).unwrap_or(&r.path).display()))
            .collect()
    }

    #[test]
    fn other_agents_setting() {
        assert_eq!(other_agents(None).unwrap(), OTHER_AGENTS);
        assert_eq!(other_agents(Some(" ")).unwrap(), OTHER_AGENTS);
        assert_eq!(other_agents(Some("none")).unwrap(), []);
        assert_eq!(
            other_agents(Some("Gemini, claude,,claude")).unwrap(),
            [Tool::Gemini, Tool::Claude]
        );
        let err = other_agents(Some("claude,cursor")).unwrap_err();
        assert_eq!(err.unknown, "cursor");
        assert!(err.to_string().contains("none"), "{err}");
        assert!(other_agents(Some("agent")).is_err(), "ours are not an other agent");
    }

    #[test]
    fn parents_count_up_to_the_repository_root_only() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        let deep = base.join("outer/repo/a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir(base.join("outer/repo/.git")).unwrap();
        let roots = project_roots(&deep, None, &[Tool::Claude]);
        assert_eq!(
            paths(&roots, base),
            [
                "agent:outer/repo/a/b/.agents/skills",
                "agent:outer/repo/a/b/skills",
                "agent:outer/repo/a/.agents/skills",
                "agent:outer/repo/.agents/skills",
                "claude:outer/repo/a/b/.claude/skills",
                "claude:outer/repo/a/.claude/skills",
                "claude:outer/repo/.claude/skills",
            ]
        );
    }

    #[test]
    fn outside_a_repository_only_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("x/y");
        std::fs::create_dir_all(&cwd).unwrap();
        // A temp folder could sit inside some repository; this test needs one that does not.
        if repository_root(&cwd).is_some() {
            return;
        }
        assert_eq!(project_folders(&cwd, None), [cwd]);
    }

    #[test]
    fn a_worktree_git_file_marks_the_root_and_home_is_never_a_project_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let cwd = home.join("work/project");
        std::fs::create_dir_all(&cwd).unwrap();
        // Dotfiles kept in git make the home folder a repository.
        std::fs::write(home.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(repository_root(&cwd).as_deref(), Some(home.as_path()));
        assert_eq!(project_folders(&cwd, Some(&home)), [cwd.clone(), home.join("work")]);
        assert!(project_folders(&home, Some(&home)).is_empty(), "run in the home folder");
    }

    #[test]
    fn user_roots_follow_each_tool() {
        let (own, others) = user_roots(Path::new("/h"), &[Tool::Opencode, Tool::Codex]);
        assert_eq!(paths(&own, Path::new("/h")), ["agent:.agents/skills", "agent:.skills"]);
        assert_eq!(
            paths(&others, Path::new("/h")),
            ["opencode:.config/opencode/skills", "codex:.codex/skills"]
        );
    }
}
