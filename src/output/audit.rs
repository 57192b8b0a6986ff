//! The result of `agent skills audit` as a typed value: per skill, the findings of the
//! static audit (`audit`) and, with `--llm`, the model's second opinion, kept apart.

use std::path::PathBuf;

use serde::Serialize;

use crate::audit::{Counts, Finding, Level};

/// One audited skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditedSkill {
    pub name: String,
    pub dir: PathBuf,
    /// Files read.
    pub files: usize,
    /// Files read only in part (too large, or over the count cap).
    pub partial: usize,
    /// The worst severity found; `null` when nothing was.
    pub worst: Option<Level>,
    pub counts: Counts,
    pub findings: Vec<Finding>,
    /// The deterministic directory digest (docs/skills-lock.md); `null` when it could not be
    /// computed.
    pub digest: Option<String>,
    /// With `--llm`: the model's opinion, labelled as such; never changes `findings` or the exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_opinion: Option<String>,
}

/// `skills audit [PATH|SOURCE]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillAudit {
    /// The rules version (code and indicator data) that judged.
    pub rules: String,
    /// What was audited: the folder or source given, or `configured roots`.
    pub target: String,
    pub skills: Vec<AuditedSkill>,
    /// Findings of all skills per severity.
    pub counts: Counts,
}

/// One installed skill as `skills verify` found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifiedSkill {
    pub name: String,
    pub dir: PathBuf,
    /// The digest `skills-lock.json` recorded at install; `null` in lock files from before digests.
    pub recorded: Option<String>,
    /// The digest computed now; `null` when the folder cannot be read.
    pub digest: Option<String>,
    /// `recorded` equals `digest`.
    pub matches: bool,
    /// `SKILL.sig` against the user's keys.
    pub signature: crate::audit::signature::Status,
}

/// `skills verify [NAME]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillsVerified {
    pub skills: Vec<VerifiedSkill>,
}

/// `skills keys add KEY`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyAdded {
    /// The keys file written.
    pub path: PathBuf,
    pub key: String,
    /// Source prefixes that now require a signature by this key.
    pub require_for: Vec<String>,
}
