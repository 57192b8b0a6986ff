//! `agent skills audit [NAME|PATH|SOURCE]` (docs/design.md#audit): audit an installed or discovered
//! skill by its name or its folder's, a skill folder, every skill below a folder,
//! a git source fetched into a temporary folder (nothing of it runs), or, without a target, every
//! skill the configured roots hold. Exit 0 when nothing of medium severity or worse was found,
//! 7 for findings, 8 for a critical one.

use std::path::{Path, PathBuf};

use crate::audit::{Audit, Counts, Level, audit_dir, digest, rules_version};
use crate::exit::{AppError, ExitCode};
use crate::llm::LlmClient;
use crate::llm::types::ChatMessage;
use crate::output::audit::{AuditedSkill, SkillAudit};
use crate::skills::discover::Discovery;
use crate::skills::library::install::find_candidates;
use crate::skills::library::source::{Source, SourceError};
use crate::skills::roots::skill_dirs::find_skill_file;

/// Audit `target` (or every discovered skill) and say which exit code the findings give. With
/// `llm`, each skill's SKILL.md also goes to the model for a second opinion, kept beside the
/// findings and never changing them or the exit code.
pub(crate) async fn run(
    target: Option<&str>,
    discovery: &Discovery,
    cwd: &Path,
    llm: Option<&LlmClient>,
) -> Result<(SkillAudit, ExitCode), AppError> {
    let (label, skills) = match target {
        None => {
            let skills: Vec<(String, PathBuf)> = discovery
                .skills
                .iter()
                .map(|s| (s.name.clone(), s.dir.clone()))
                .collect();
            ("configured roots".to_string(), skills)
        }
        Some(target)
            if !looks_like_source(target) && super::super::skill_once::find_skill(target, discovery).is_ok() =>
        {
            let skill = super::super::skill_once::find_skill(target, discovery).map_err(AppError::usage)?;
            (target.to_string(), vec![(skill.name.clone(), skill.dir.clone())])
        }
        Some(target) => {
            let source = Source::parse(target, cwd).map_err(|e| match e {
                // A bare word that is neither a skill nor a folder here: most likely a skill's name.
                SourceError::Unrecognised(_) => AppError::usage(format!(
                    "{}, and no folder or source either (give a path such as ./{target} or owner/repo)",
                    super::super::skill_once::unknown_skill(target, discovery)
                )),
                e => AppError::from_source(ExitCode::Usage, e),
            })?;
            let fetched = super::add::fetch(&source).await?;
            let skills = skills_in(&fetched.tree);
            if skills.is_empty() {
                return Err(AppError::usage(format!(
                    "{target} holds no skill (a folder with a SKILL.md); name a skill folder or a source holding one"
                )));
            }
            // The fetched tree (a temporary clone) lives until the audit is done.
            let mut audited = audit_all(&skills);
            if let Some(client) = llm {
                second_opinions(client, &mut audited).await?;
            }
            drop(fetched);
            return Ok(finish(target.to_string(), audited));
        }
    };
    let mut audited = audit_all(&skills);
    if let Some(client) = llm {
        second_opinions(client, &mut audited).await?;
    }
    Ok(finish(label, audited))
}

/// The system prompt of the second opinion.
const SECOND_OPINION: &str = include_str!("../../../prompts/audit_llm.md");
/// Most bytes of a SKILL.md sent for a second opinion.
const MAX_OPINION_BYTES: u64 = 24 * 1024;

/// Ask the model about each skill's SKILL.md, quoted as data with the static findings beside it.
async fn second_opinions(client: &LlmClient, skills: &mut [AuditedSkill]) -> Result<(), AppError> {
    for skill in skills.iter_mut() {
        let Some(file) = find_skill_file(&skill.dir) else {
            continue;
        };
        let Ok(read) = crate::support::fs::read_regular(&file, MAX_OPINION_BYTES) else {
            continue;
        };
        let findings: Vec<String> = skill
            .findings
            .iter()
            .map(|f| format!("- {} {} at {}:{}", f.severity.name(), f.rule, f.file.display(), f.line))
            .collect();
        let findings = if findings.is_empty() {
            "none".to_string()
        } else {
            findings.join("\n")
        };
        let text = crate::support::terminal_text::strip_controls(&read.text()).into_owned();
        let message = format!(
            "Skill {:?}. Static audit findings:\n{findings}\n\n<skill_file path=\"SKILL.md\">\n{}\n</skill_file>",
            skill.name,
            text.replace("</skill_file>", "</skill_file_>")
        );
        let messages = [ChatMessage::system(SECOND_OPINION), ChatMessage::user(message)];
        let reply = client
            .complete(&messages, &serde_json::Value::Null, &mut |_| {})
            .await
            .map_err(|e| AppError::from_source(ExitCode::Llm, e))?;
        skill.llm_opinion = Some(reply.content.trim().to_string());
    }
    Ok(())
}

/// Whether an audit target is a path or a source rather than a skill's name: a name has no `/`
/// and does not start with `.` or `~` (a skill folder in the working folder is `./NAME`).
fn looks_like_source(target: &str) -> bool {
    target.contains('/') || target.starts_with('.') || target.starts_with('~')
}

/// The skill folders of `tree`: itself when it is one, else every skill below it.
fn skills_in(tree: &Path) -> Vec<(String, PathBuf)> {
    if find_skill_file(tree).is_some() {
        let name = tree
            .file_name()
            .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned());
        let name = find_candidates(tree).into_iter().next().map_or(name, |c| c.name);
        return vec![(name, tree.to_path_buf())];
    }
    find_candidates(tree).into_iter().map(|c| (c.name, c.dir)).collect()
}

/// Audit every skill, on two threads when there are many (the audit reads and matches; a
/// thousand skills should take well under a second).
pub(crate) fn audit_all(skills: &[(String, PathBuf)]) -> Vec<AuditedSkill> {
    let one = |(name, dir): &(String, PathBuf)| audited(name, audit_dir(dir));
    if skills.len() < 64 {
        return skills.iter().map(one).collect();
    }
    let (first, second) = skills.split_at(skills.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| second.iter().map(one).collect::<Vec<_>>());
        let mut done: Vec<AuditedSkill> = first.iter().map(one).collect();
        // A panic there is a bug; its half is then audited here.
        let rest = other.join().unwrap_or_else(|_| second.iter().map(one).collect());
        done.extend(rest);
        done
    })
}

/// One skill's audit as reported.
pub(crate) fn audited(name: &str, audit: Audit) -> AuditedSkill {
    AuditedSkill {
        name: name.to_string(),
        digest: digest::digest_dir(&audit.dir).ok(),
        dir: audit.dir.clone(),
        files: audit.files,
        partial: audit.partial,
        worst: audit.worst(),
        counts: audit.counts(),
        findings: audit.findings,
        llm_opinion: None,
    }
}

/// The report and its exit code.
fn finish(target: String, skills: Vec<AuditedSkill>) -> (SkillAudit, ExitCode) {
    let all: Vec<_> = skills.iter().flat_map(|s| s.findings.iter().cloned()).collect();
    let counts = Counts::of(&all);
    let worst = skills.iter().filter_map(|s| s.worst).max();
    let code = match worst {
        Some(Level::Critical) => ExitCode::AuditCritical,
        Some(Level::High | Level::Medium) => ExitCode::AuditFindings,
        Some(Level::Low) | None => ExitCode::Answered,
    };
    let report = SkillAudit {
        rules: rules_version(),
        target,
        skills,
        counts,
    };
    (report, code)
}
