//! Skills: discovery across roots, lenient parsing of both dialects, and the loaded catalog.

pub(crate) mod arguments;
pub(crate) mod bundled;
pub mod cache;
mod cache_record;
pub(crate) mod catalog;
pub(crate) mod check;
pub(crate) mod code;
pub(crate) mod commands;
pub mod discover;
pub(crate) mod dynamic;
pub(crate) mod examples;
pub mod library;
pub mod load;
pub(crate) mod paths;
pub(crate) mod resolve;
pub mod retrieval;
pub mod roots;
pub(crate) mod routing_cases;
pub(crate) mod skeleton;
pub mod watch;

use std::fmt;
use std::path::{Path, PathBuf};

pub use catalog::SkillSet;
pub(crate) use load::requires::Requires;

/// Which convention a skill folder follows (docs/design.md#what-the-program-is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// `SKILL.md` with YAML frontmatter.
    AgentSkills,
    /// Plain-markdown `SKILL.md`, optional `run.sh` and `skill.json`.
    Scp,
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::AgentSkills => "agent-skills",
            Dialect::Scp => "scp",
        })
    }
}

/// How serious a loader finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing is wrong for `agent`.
    Info,
    /// The file breaks a rule; `agent` worked around it.
    Warning,
    /// The skill could not be loaded.
    Error,
}

/// One finding about a skill file, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// What it is about, stable across rewordings (a [`code`] constant).
    pub(crate) code: &'static str,
    pub file: PathBuf,
    /// 1-based line, when the finding is about one line.
    pub line: Option<usize>,
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(
        code: &'static str,
        severity: Severity,
        file: &Path,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            code,
            file: file.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file.display(), line, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// A loaded skill: what the catalog shows and what activation and execution need.
/// The body is not kept: it is read again from `skill_file` on activation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// Absolute path of the skill folder (symlinks kept as the user laid them out).
    pub dir: PathBuf,
    /// The `SKILL.md` file (in whatever letter case it was found).
    pub skill_file: PathBuf,
    /// The root this skill was found under.
    pub(crate) root: PathBuf,
    /// Which kind of root that is (project skills need the user's trust to run commands).
    pub(crate) root_kind: roots::RootKind,
    /// Whose folder the root is: ours, or another agent's (`.claude/skills` …).
    pub(crate) tool: crate::skills::roots::Tool,
    pub dialect: Dialect,
    /// Entry script relative to `dir` (`run.sh` or `skill.json`'s `entry`), when it exists.
    pub(crate) entry: Option<String>,
    pub allowed_tools: Vec<String>,
    pub version: Option<String>,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<String>,
    /// What its commands need: environment variables, programs, places to write, network.
    pub(crate) requires: Requires,
    /// Who may invoke it: the model (catalog, `activate_skill`), people (`/NAME`, `--skill`).
    pub(crate) invocation: load::invocation::Invocation,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the folder may hold a publisher signature (`SKILL.sig`): `false` only when
    /// discovery's listing of the folder showed none, so a listing need not look in every folder.
    #[serde(skip)]
    pub(crate) may_be_signed: bool,
    /// Its `paths:` globs match no file of the working folder: it is kept out of the catalog
    /// (`skills::paths`). Set per run, never cached.
    #[serde(skip)]
    pub(crate) paths_unmatched: bool,
}

impl Skill {
    /// A skill that exists only in memory, for tests and benchmarks of routing and catalogs.
    pub fn synthetic(name: &str, description: &str) -> Self {
        Self {
            name: name.to_string(),
            description: description.to_string(),
            dir: PathBuf::new(),
            skill_file: PathBuf::new(),
            root: PathBuf::new(),
            root_kind: roots::RootKind::Flag,
            tool: crate::skills::roots::Tool::Agent,
            dialect: Dialect::AgentSkills,
            entry: None,
            allowed_tools: Vec::new(),
            version: None,
            license: None,
            compatibility: None,
            requires: Requires::default(),
            invocation: load::invocation::Invocation::default(),
            diagnostics: Vec::new(),
            may_be_signed: false,
            paths_unmatched: false,
        }
    }

    /// Whether the model is offered it: in the catalog, `activate_skill`'s enum and searches.
    /// Not when only people may invoke it, nor when its `paths:` match nothing here.
    pub(crate) fn offered_to_model(&self) -> bool {
        self.invocation.model && !self.paths_unmatched
    }

    /// Relative paths of the files bundled with the skill (not `SKILL.md`), sorted, at most
    /// `limit`. Hidden entries, `node_modules` and `__pycache__` are skipped and symlinked folders
    /// are not entered, so a link loop cannot trap the walk.
    pub(crate) fn bundled_files(&self, limit: usize) -> Vec<String> {
        // Enough to fill the list: more than `limit` gathered, sorted below, cut to `limit`.
        let mut files: Vec<String> = crate::skills::roots::skill_dirs::files_below(&self.dir, limit * 4)
            .into_iter()
            .filter(|(path, _)| *path != self.skill_file)
            .filter_map(|(path, _)| path.strip_prefix(&self.dir).ok().map(|r| r.display().to_string()))
            .collect();
        files.sort();
        files.truncate(limit);
        files
    }

    /// The markdown instructions (everything after the frontmatter), read fresh from disk.
    pub(crate) fn read_body(&self) -> std::io::Result<String> {
        let raw = load::parse::read_capped(&self.skill_file)?;
        let text = load::frontmatter::normalize(&raw).text;
        Ok(load::frontmatter::split_parts(&text).body.to_string())
    }
}
