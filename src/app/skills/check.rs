//! `agent skills check`: every finding per skill (loader findings and lint) and a tally.

use std::path::{Path, PathBuf};

use crate::exit::AppError;
use crate::output::report::{CheckedSkill, SkillCheck};
use crate::skills::catalog::line_len;
use crate::skills::check::lint::{Rules, lint};
use crate::skills::check::needs_met::{MCP_UNAVAILABLE, NeedKind, Needs, WHERE_TO_SET};
use crate::skills::discover::{Discovery, discover};
use crate::skills::roots::skill_dirs::find_skill_file;
use crate::skills::roots::{RootKind, SkillRoot};
use crate::skills::{Diagnostic, Severity, Skill, code};

/// Check the skills under `dirs` (every configured root when empty) under `rules`.
/// `needs` checks a skill's declared needs against the environment its commands would get: unmet
/// ones are info findings, since they say more about this machine than about the skill.
pub(super) fn check(
    dirs: &[PathBuf],
    rules: Rules,
    configured: &Discovery,
    needs: &dyn Fn(&Skill) -> Needs,
    catalog_budget: usize,
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
    if discovery.skills.is_empty() && discovery.skipped.is_empty() {
        report.problems.extend(checked_nothing(dirs));
    }
    for skill in &discovery.skills {
        let mut findings: Vec<Diagnostic> = skill.diagnostics.clone();
        findings.extend(lint(skill, rules));
        findings.extend(unmet(skill, &needs(skill)));
        findings.extend(catalog_cost(skill, catalog_budget));
        report.skills.push(CheckedSkill {
            name: skill.name.clone(),
            dir: skill.dir.clone(),
            dialect: skill.dialect,
            catalog_bytes: line_len(skill),
            ok: !findings.iter().any(|d| report.counts_as_error(d)),
            findings,
            portability: crate::skills::check::portable_fields::field_support(skill),
        });
    }
    let (errors, warnings) = tally(&report);
    report.errors = errors;
    report.warnings = warnings;
    Ok(report)
}

/// A check that found no skill at all passed vacuously (openai/skills' `skills/` holds only hidden
/// category folders): a warning, so `--strict` fails, naming the hidden folders that hold skills.
fn checked_nothing(dirs: &[PathBuf]) -> Vec<Diagnostic> {
    let what = if dirs.is_empty() {
        vec![(
            PathBuf::from("."),
            "no skill found in any configured skill root".to_string(),
        )]
    } else {
        dirs.iter()
            .map(|d| (d.clone(), "no skill found here".to_string()))
            .collect()
    };
    what.into_iter()
        .map(|(dir, found)| {
            let hidden = hidden_skill_folders(&dir);
            let hint = if hidden.is_empty() {
                "a skill is a folder directly below the checked one (or the checked folder itself) holding SKILL.md"
                    .to_string()
            } else {
                let shown: Vec<String> = hidden.iter().map(|h| h.display().to_string()).collect();
                format!(
                    "hidden folders are skipped, and these hold skills: check them by name (`agent skills check {}`)",
                    shown.join(" ")
                )
            };
            Diagnostic::new(
                code::NO_SKILLS,
                Severity::Warning,
                &dir,
                None,
                format!("{found}; {hint}"),
            )
        })
        .collect()
}

/// Hidden folders directly below `dir` that hold skill folders (`.curated/gh-fix-ci/SKILL.md`).
fn hidden_skill_folders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with('.') && e.file_name() != ".git")
        .map(|e| e.path())
        .filter(|hidden| {
            std::fs::read_dir(hidden)
                .is_ok_and(|mut inner| inner.any(|e| e.is_ok_and(|e| find_skill_file(&e.path()).is_some())))
        })
        .collect();
    found.sort();
    found
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

/// Bytes of catalog line above which a skill is told what it costs: a sixteenth of the budget
/// (512 B of the default 8 KB), where a library of a few dozen such skills no longer fits.
const COSTLY_SHARE: usize = 16;

/// An info finding for a skill whose catalog line costs much of every request's catalog: at
/// common library sizes (over the budget) it is listed only when ranked among the most relevant,
/// and it leaves less room for the others.
fn catalog_cost(skill: &Skill, budget: usize) -> Option<Diagnostic> {
    let bytes = line_len(skill);
    if bytes * COSTLY_SHARE <= budget {
        return None;
    }
    let fits = (budget / bytes.max(1)).max(1);
    Some(Diagnostic::new(
        code::CATALOG_COST,
        Severity::Info,
        &skill.skill_file,
        None,
        format!(
            "its catalog line costs {bytes} B of every request ({:.0}% of the {budget} B catalog budget): a \
             library of more than {} skills like it goes over the budget, where each request lists only the \
             best-ranked skills; a description of one or two sentences (under ~300 characters) says what and \
             when for less",
            bytes as f64 * 100.0 / budget as f64,
            fits
        ),
    ))
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
