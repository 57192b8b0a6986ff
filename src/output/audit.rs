//! The result of `agent skills audit` as a typed value: per skill, the findings of the
//! static audit (`audit`) and, with `--llm`, the model's second opinion, kept apart.

use std::path::PathBuf;

use serde::Serialize;

use crate::audit::{Counts, Finding, Level};

/// One audited skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct AuditedSkill {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    /// Files read.
    pub(crate) files: usize,
    /// Files read only in part (too large, or over the count cap).
    pub(crate) partial: usize,
    /// The worst severity found; `null` when nothing was.
    pub(crate) worst: Option<Level>,
    pub(crate) counts: Counts,
    pub(crate) findings: Vec<Finding>,
    /// The deterministic directory digest (docs/skills-lock.md); `null` when it could not be
    /// computed.
    pub(crate) digest: Option<String>,
    /// With `--llm`: the model's opinion, labelled as such; never changes `findings` or the exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) llm_opinion: Option<String>,
}

/// `skills audit [PATH|SOURCE]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillAudit {
    /// The rules version (code and indicator data) that judged.
    pub(crate) rules: String,
    /// What was audited: the folder or source given, or `configured roots`.
    pub(crate) target: String,
    pub(crate) skills: Vec<AuditedSkill>,
    /// Findings of all skills per severity.
    pub(crate) counts: Counts,
}

/// One installed skill as `skills verify` found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct VerifiedSkill {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    /// The digest `skills-lock.json` recorded at install; `null` in lock files from before digests.
    pub(crate) recorded: Option<String>,
    /// The digest computed now; `null` when the folder cannot be read.
    pub(crate) digest: Option<String>,
    /// `recorded` equals `digest`.
    pub(crate) matches: bool,
    /// `SKILL.sig` against the user's keys.
    pub(crate) signature: crate::audit::signature::Status,
}

/// `skills verify [NAME]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillsVerified {
    pub(crate) skills: Vec<VerifiedSkill>,
}

/// `skills keys add KEY`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct KeyAdded {
    /// The keys file written.
    pub(crate) path: PathBuf,
    pub(crate) key: String,
    /// Source prefixes that now require a signature by this key.
    pub(crate) require_for: Vec<String>,
}
