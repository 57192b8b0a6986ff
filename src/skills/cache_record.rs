//! What the catalog cache stores for one skill folder ([`super::cache`]): the skill as loaded,
//! without what its place supplies (folder, root), or the finding that skipped it. Kept apart
//! from the cache's keys and files because it changes whenever a skill gains a field.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::load::invocation::Invocation;
use super::load::parse::FolderLoad;
use super::roots::RootKind;
use super::{Diagnostic, Dialect, Requires, Severity, Skill, code};
use crate::skills::roots::Tool;

/// A finding as stored: its code as text, checked against the known codes when read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct DiagRecord {
    severity: Severity,
    code: String,
    file: PathBuf,
    line: Option<usize>,
    message: String,
}

impl DiagRecord {
    fn of(d: &Diagnostic) -> Self {
        let Diagnostic {
            severity,
            code,
            file,
            line,
            message,
        } = d;
        Self {
            severity: *severity,
            code: (*code).to_string(),
            file: file.clone(),
            line: *line,
            message: message.clone(),
        }
    }

    /// `None` when the code is not one this build knows (the entry is then read again).
    fn into_diagnostic(self) -> Option<Diagnostic> {
        Some(Diagnostic {
            severity: self.severity,
            code: code::known(&self.code)?,
            file: self.file,
            line: self.line,
            message: self.message,
        })
    }
}

/// What a skill folder loaded as, without what its place supplies (folder, root).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct SkillRecord {
    name: String,
    description: String,
    dialect: Dialect,
    entry: Option<String>,
    allowed_tools: Vec<String>,
    version: Option<String>,
    license: Option<String>,
    compatibility: Option<String>,
    requires: Requires,
    invocation: InvocationRecord,
    diagnostics: Vec<DiagRecord>,
    /// Whether the folder's listing showed a `SKILL.sig`: its appearance changes the folder's stamp.
    may_be_signed: bool,
}

/// [`Invocation`] with every field written: postcard is not self-describing, so the fields its
/// JSON form leaves out when empty must be here in every record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct InvocationRecord {
    model: bool,
    user: bool,
    argument_hint: Option<String>,
    arguments: Vec<String>,
    fork: bool,
    wants_model: Option<String>,
    agent: Option<String>,
    paths: Vec<String>,
    /// `hooks:` as JSON text: postcard cannot hold a free-form value.
    hooks: Option<String>,
}

impl From<&Invocation> for InvocationRecord {
    fn from(i: &Invocation) -> Self {
        Self {
            model: i.model,
            user: i.user,
            argument_hint: i.argument_hint.clone(),
            arguments: i.arguments.clone(),
            fork: i.fork,
            wants_model: i.wants_model.clone(),
            agent: i.agent.clone(),
            paths: i.paths.clone(),
            hooks: i.hooks.as_ref().map(ToString::to_string),
        }
    }
}

/// A folder's [`FolderLoad`] as the cache keeps it (a folder that is not a skill is not kept).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) enum CachedLoad {
    Skill(Box<SkillRecord>),
    Skipped(DiagRecord),
}

impl CachedLoad {
    /// `None` for folders that are not skills: those are not cached.
    pub(super) fn of(loaded: &FolderLoad) -> Option<Self> {
        match loaded {
            FolderLoad::Skill(skill) => {
                // Every field named, so a new one cannot be forgotten here.
                let Skill {
                    name,
                    description,
                    dir: _,
                    skill_file: _,
                    root: _,
                    root_kind: _,
                    tool: _,
                    dialect,
                    entry,
                    allowed_tools,
                    version,
                    license,
                    compatibility,
                    requires,
                    invocation,
                    diagnostics,
                    may_be_signed,
                    paths_unmatched: _,
                } = skill.as_ref();
                Some(Self::Skill(Box::new(SkillRecord {
                    name: name.clone(),
                    description: description.clone(),
                    dialect: *dialect,
                    entry: entry.clone(),
                    allowed_tools: allowed_tools.clone(),
                    version: version.clone(),
                    license: license.clone(),
                    compatibility: compatibility.clone(),
                    requires: requires.clone(),
                    invocation: invocation.into(),
                    diagnostics: diagnostics.iter().map(DiagRecord::of).collect(),
                    may_be_signed: *may_be_signed,
                })))
            }
            FolderLoad::Skipped(d) => Some(Self::Skipped(DiagRecord::of(d))),
            FolderLoad::NotASkill => None,
        }
    }

    /// The folder's result again; `None` when something stored is not understood any more.
    /// The record is decoded for this one use, so its fields move into the skill uncopied.
    pub(super) fn into_loaded(self, dir: &Path, file_name: &str, root: &Path) -> Option<FolderLoad> {
        let record = match self {
            Self::Skipped(d) => return d.into_diagnostic().map(FolderLoad::Skipped),
            Self::Skill(r) => *r,
        };
        let SkillRecord {
            name,
            description,
            dialect,
            entry,
            allowed_tools,
            version,
            license,
            compatibility,
            requires,
            invocation,
            diagnostics,
            may_be_signed,
        } = record;
        let diagnostics = diagnostics
            .into_iter()
            .map(DiagRecord::into_diagnostic)
            .collect::<Option<Vec<_>>>()?;
        Some(FolderLoad::Skill(Box::new(Skill {
            name,
            description,
            dir: dir.to_path_buf(),
            skill_file: dir.join(file_name),
            root: root.to_path_buf(),
            root_kind: RootKind::Flag,
            tool: Tool::Agent,
            dialect,
            entry,
            allowed_tools,
            version,
            license,
            compatibility,
            requires,
            invocation: Invocation {
                model: invocation.model,
                user: invocation.user,
                argument_hint: invocation.argument_hint,
                arguments: invocation.arguments,
                fork: invocation.fork,
                wants_model: invocation.wants_model,
                agent: invocation.agent,
                paths: invocation.paths,
                hooks: invocation.hooks.and_then(|h| serde_json::from_str(&h).ok()),
            },
            diagnostics,
            may_be_signed,
            paths_unmatched: false,
        })))
    }
}
