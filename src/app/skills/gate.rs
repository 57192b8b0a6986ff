//! The install gate (docs/design.md#audit): `skills add` and `skills update` audit the staged copy
//! before it is moved into place. Findings of high or critical severity are shown on a terminal and
//! need a yes (critical ones the word `install`); without a terminal they refuse unless `--force`.
//! What was accepted, and how, is the verdict `skills-lock.json` records. `agent trust --skill`
//! passes the same gate before it records an edited skill's content as trusted ([`Gate::Trust`]).

use std::path::Path;

use crate::audit::{Acceptance, Finding, Level, Verdict, audit_dir};
use crate::exit::{AppError, ExitCode};
use crate::output::library::LibraryAsker;

/// What the gate stands before: the refusal says what did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// `skills add`, `skills update`: nothing is installed.
    Install,
    /// `agent trust --skill`: the content is not recorded as trusted.
    Trust,
    /// `agent trust [DIR]`: the folder (its `.env` and project skills) is not trusted.
    Folder,
}

/// Audit `staged` (the copy of skill `name` about to be installed) and decide.
pub(crate) fn check(staged: &Path, name: &str, force: bool, asker: &dyn LibraryAsker) -> Result<Verdict, AppError> {
    check_for(Gate::Install, staged, name, force, asker)
}

/// Audit `dir` (skill `name`, about to be installed or trusted as `gate` says) and decide:
/// findings of high or critical severity need a yes on a terminal, else `force`.
pub(crate) fn check_for(
    gate: Gate,
    dir: &Path,
    name: &str,
    force: bool,
    asker: &dyn LibraryAsker,
) -> Result<Verdict, AppError> {
    let audit = audit_dir(dir);
    let mut verdict = Verdict::of(&audit);
    let serious: Vec<Finding> = audit.at_least(Level::High).cloned().collect();
    if let Some(how) = decide(gate, name, &serious, force, asker)? {
        verdict.accepted = serious.iter().map(Finding::key).collect();
        verdict.accepted_by = Some(how);
    }
    Ok(verdict)
}

/// The gate's rule on `findings` (of `name`, before `gate`): nothing of high or critical
/// severity passes; else a yes on a terminal (critical ones need the word `install`), else
/// `force`, else a refusal naming the worst findings. How they were accepted, if there were any.
pub(crate) fn decide(
    gate: Gate,
    name: &str,
    findings: &[Finding],
    force: bool,
    asker: &dyn LibraryAsker,
) -> Result<Option<Acceptance>, AppError> {
    let serious: Vec<Finding> = findings.iter().filter(|f| f.severity >= Level::High).cloned().collect();
    let Some(worst) = serious.iter().map(|f| f.severity).max() else {
        return Ok(None);
    };
    if force {
        return Ok(Some(Acceptance::Forced));
    }
    if !asker.can_ask() {
        return Err(refused(gate, name, &serious, worst, "there is no terminal to ask on"));
    }
    if !asker.confirm_findings(name, &serious, worst) {
        return Err(refused(gate, name, &serious, worst, "you declined"));
    }
    Ok(Some(Acceptance::Confirmed))
}

/// The refusal: what was found (the worst findings, by rule and place), why nothing was
/// installed or trusted, and what to do.
fn refused(gate: Gate, name: &str, serious: &[Finding], worst: Level, why: &str) -> AppError {
    let mut shown: Vec<&Finding> = serious.iter().collect();
    shown.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let named: Vec<String> = shown
        .iter()
        .take(3)
        .map(|f| format!("{} {} in {}:{}", f.severity.name(), f.rule, f.file.display(), f.line))
        .collect();
    let code = if worst == Level::Critical {
        ExitCode::AuditCritical
    } else {
        ExitCode::AuditFindings
    };
    let (outcome, command, anyway) = match gate {
        Gate::Install => ("nothing was installed", "agent skills audit SOURCE", "install anyway"),
        Gate::Trust | Gate::Folder => ("it was not trusted", "agent skills audit DIR", "trust it anyway"),
    };
    AppError::new(
        code,
        format!(
            "{}: the audit found {} finding(s) of high or critical severity (worst: {}; {}) and {why}, so {outcome}; \
             read them with `{command}`, and {anyway} only if you trust the source, with --force",
            crate::support::terminal_text::visible(name),
            serious.len(),
            worst.name(),
            crate::support::terminal_text::visible(&named.join("; "))
        ),
    )
}
