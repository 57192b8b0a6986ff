//! The results of `agent skills add|outdated|update|remove` as typed values, and the
//! questions those commands ask a person. With `--json` each result is one JSON document.

use std::path::PathBuf;

use serde::Serialize;

use crate::skills::check::portable::ScriptProblem;
use crate::skills::library::diff::FolderDiff;

/// One skill `skills add` installed (or `skills update` replaced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct InstalledSkill {
    /// Its folder's name in the root: the folder it came in, as the lock file records it.
    pub(crate) name: String,
    /// The name its `SKILL.md` (or `skill.json`) gives, which may differ from the folder's.
    pub(crate) declared_name: String,
    pub(crate) dir: PathBuf,
    pub(crate) source: String,
    #[serde(rename = "ref")]
    pub(crate) reference: Option<String>,
    pub(crate) commit: Option<String>,
    pub(crate) subdir: Option<String>,
    /// The content hash recorded in the lock file.
    pub(crate) hash: String,
    /// Script problems that were fixed in the installed copy (`--fix`, or yes when asked).
    pub(crate) fixed: Vec<ScriptProblem>,
    /// Script problems left as they are, each with its fix command.
    pub(crate) unfixed: Vec<ScriptProblem>,
    /// The audit's verdict on the staged copy (also recorded in skills-lock.json).
    pub(crate) audit: Option<crate::audit::Verdict>,
    /// The deterministic directory digest of the installed folder.
    pub(crate) digest: Option<String>,
}

/// `skills add SOURCE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillsAdded {
    /// The skill root installed into.
    pub(crate) root: PathBuf,
    /// Its `skills-lock.json`.
    pub(crate) lock: PathBuf,
    pub(crate) installed: Vec<InstalledSkill>,
    /// Folder names of chosen skills already installed from this source, left as they are.
    pub(crate) already: Vec<String>,
    /// Chosen skills whose name another skill already uses, not installed (`--all` goes on
    /// past them; each says how to take it under another name).
    pub(crate) clashes: Vec<Clash>,
    /// Template skeletons `--all` left out (`src/skills/library/templates.rs`).
    pub(crate) templates: Vec<SkippedTemplate>,
    /// Skills `--all` did not install because the audit refused them (the command exits 7 or 8).
    pub(crate) refused: Vec<Refused>,
    /// Whether the root is a project's (`--project`): its folder must be trusted before the
    /// skills run commands.
    pub(crate) project: bool,
}

/// What already uses a clashing skill's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ClashKind {
    /// A folder of that name is in the root, from another source or not installed by `skills add`.
    FolderTaken,
    /// Another skill in the root gives itself that name: the catalog would show only one.
    NameTaken,
    /// An earlier skill of the same source takes that folder or name in this install.
    SameSource,
}

/// A chosen skill not installed because its name is taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Clash {
    /// Its folder's name in the source: what `--skill` takes.
    pub(crate) skill: String,
    /// The name it gives itself.
    pub(crate) name: String,
    /// Its folder inside the source.
    pub(crate) subdir: Option<String>,
    pub(crate) kind: ClashKind,
    /// The folder (or, for `same-source`, the source folder) that has the name.
    pub(crate) taken_by: PathBuf,
    /// The command that installs it under another name that is free.
    pub(crate) fix: String,
}

/// A skill `--all` did not install because the install gate refused it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Refused {
    /// The folder it would have had.
    pub(crate) name: String,
    pub(crate) subdir: Option<String>,
    /// Whether a finding was critical (exit 8) rather than high (exit 7).
    pub(crate) critical: bool,
    /// The gate's refusal: the findings and how to install it anyway.
    pub(crate) message: String,
}

/// A template skeleton `--all` left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkippedTemplate {
    pub(crate) name: String,
    pub(crate) subdir: Option<String>,
    /// Why it counts as one: `a template folder`, or `its description is a placeholder`.
    pub(crate) reason: &'static str,
}

/// Where an installed skill stands against its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub(crate) enum Standing {
    /// The source has nothing newer.
    UpToDate,
    /// The source has a newer commit (or, for a copied folder, other content).
    Outdated,
    /// Installed from a commit id: nothing newer to compare with.
    Pinned,
    /// The source could not be asked; `reason` says why.
    Unknown { reason: String },
}

/// One row of `skills outdated`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct OutdatedSkill {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) source: String,
    #[serde(rename = "ref")]
    pub(crate) reference: Option<String>,
    /// The commit installed.
    pub(crate) installed: Option<String>,
    /// The commit the source has now.
    pub(crate) latest: Option<String>,
    #[serde(flatten)]
    pub(crate) standing: Standing,
    /// Its files differ from what was installed (edited by hand): it needs trust again to run.
    pub(crate) edited: bool,
}

/// `skills outdated`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillsOutdated {
    pub(crate) skills: Vec<OutdatedSkill>,
}

/// What `skills update` did with one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum UpdateOutcome {
    /// Nothing changed at the source.
    UpToDate,
    /// Replaced with the new content.
    Updated,
    /// The person said no; nothing changed.
    Declined,
    /// No terminal to ask on and no `--yes`: nothing changed.
    NotConfirmed,
}

/// One skill of `skills update`: what would change, and what was done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillUpdate {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) from_commit: Option<String>,
    pub(crate) to_commit: Option<String>,
    /// The installed copy had been edited by hand: the update replaces those edits.
    pub(crate) edited: bool,
    pub(crate) diff: FolderDiff,
    pub(crate) outcome: UpdateOutcome,
}

/// `skills update [NAME]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillsUpdated {
    pub(crate) skills: Vec<SkillUpdate>,
}

/// `skills remove NAME`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillRemoved {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) lock: PathBuf,
}

/// `agent trust --skill NAME`: the content now trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillTrusted {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    /// The content hash now recorded.
    pub(crate) hash: String,
    /// The `skills-lock.json` it was recorded in.
    pub(crate) lock: PathBuf,
}

/// One skill a source holds, as offered for choosing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Choice {
    pub(crate) name: String,
    pub(crate) description: String,
    /// Where it is in the source.
    pub(crate) subdir: Option<String>,
}

/// The questions the library commands ask a person. Called on the main thread, before or
/// between file operations.
pub(crate) trait LibraryAsker {
    /// Whether a person is there to ask at all.
    fn can_ask(&self) -> bool;
    /// Which of `choices` to install (indices); empty for none.
    fn choose(&self, source: &str, choices: &[Choice]) -> Vec<usize>;
    /// A yes/no question (default no).
    fn confirm(&self, question: &str) -> bool;
    /// Show what an update would change and ask whether to replace the installed copy.
    fn confirm_update(&self, update: &SkillUpdate) -> bool;
    /// Show the audit's findings of high or critical severity (`worst` the worst of them) in the
    /// skill `name` about to be installed, and ask whether to install it anyway. Default: no.
    fn confirm_findings(&self, _name: &str, _findings: &[crate::audit::Finding], _worst: crate::audit::Level) -> bool {
        false
    }
}
