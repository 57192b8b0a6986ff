//! `agent skills check`: every finding per skill (loader findings and lint) and a tally.

use std::path::PathBuf;

use crate::exit::AppError;
use crate::output::report::{CheckedSkill, SkillCheck};
use crate::skills::catalog::line_len;
use crate::skills::discover::{Discovery, RootKind, SkillRoot, discover};
use crate::skills::lint::{Rules, lint};
use crate::skills::needs::{MCP_UNAVAILABLE, NeedKind, Needs, WHERE_TO_SET};
use crate::skills::{Diagnostic, Severity, Skill, code};

/// Check the skills under `dirs` (every configured root when empty) under `rules`.
/// `needs` checks a skill's declared needs against the environment its commands would get: unmet
/// ones are info findings, since they say more about this machine than about the skill.
pub(super) fn check(
    dirs: &[PathBuf],
    rules: Rules,
    configured: &Discovery,
    needs: &dyn Fn(&Skill) -> Needs,
) -> Result<SkillCheck, AppError> {
    let own;
    let discovery = if dirs.is_empty() {
        configured
    } else {
        for d in dirs {
            if !d.is_dir() {
                return Err(AppError::config(format!("{}: not a folder", d.display())));
            }
        }
        let roots: Vec<SkillRoot> = dirs.iter().map(|d| SkillRoot::new(d.clone(), RootKind::Flag)).collect();
        own = discover(&roots);
        &own
    };
    let mut report = SkillCheck {
        strict: rules.strict,
        spec: rules.agent_skills_everywhere.then_some("agent-skills"),
        errors: 0,
        warnings: 0,
        skipped: discovery.skipped.len(),
        skills: Vec::new(),
        problems: discovery.skipped.iter().chain(&discovery.warnings).cloned().collect(),
    };
    for skill in &discovery.skills {
        let mut findings: Vec<Diagnostic> = skill.diagnostics.clone();
        findings.extend(lint(skill, rules));
        findings.extend(unmet(skill, &needs(skill)));
        report.skills.push(CheckedSkill {
            name: skill.name.clone(),
            dir: skill.dir.clone(),
            dialect: skill.dialect,
            catalog_bytes: line_len(skill),
            ok: !findings.iter().any(|d| report.counts_as_error(d)),
            findings,
        });
    }
    let (errors, warnings) = tally(&report);
    report.errors = errors;
    report.warnings = warnings;
    Ok(report)
}

/// One info finding per declared need that is not met here, saying where to fix it.
fn unmet(skill: &Skill, needs: &Needs) -> Vec<Diagnostic> {
    needs
        .missing()
        .map(|n| {
            let what = match n.kind {
                NeedKind::Env => format!("needs the environment variable {} ({WHERE_TO_SET})", n.name),
                NeedKind::Bin => format!("needs the program {}, not found on PATH here", n.name),
                NeedKind::Mcp => format!(
                    "needs the MCP server {}, which is not configured ({MCP_UNAVAILABLE})",
                    n.name
                ),
            };
            Diagnostic::new(code::UNMET_REQUIREMENT, Severity::Info, &skill.skill_file, None, what)
        })
        .collect()
}

/// (errors, warnings) over every finding, by the report's rules.
fn tally(report: &SkillCheck) -> (usize, usize) {
    let all = report.skills.iter().flat_map(|s| &s.findings).chain(&report.problems);
    all.fold((0, 0), |(errors, warnings), d| {
        if report.counts_as_error(d) {
            (errors + 1, warnings)
        } else if d.severity == Severity::Warning {
            (errors, warnings + 1)
        } else {
            (errors, warnings)
        }
    })
}
