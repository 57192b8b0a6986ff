//! The install gate (SPEC §12): `skills add` and `skills update` audit the staged copy before it
//! is moved into place. Findings of high or critical severity are shown on a terminal and need a
//! yes (critical ones the word `install`); without a terminal they refuse unless `--force`. What
//! was accepted, and how, is the verdict `skills-lock.json` records.

use std::path::Path;

use crate::exit::{AppError, ExitCode};
use crate::output::library::LibraryAsker;
use crate::skills::audit::{Acceptance, Finding, Level, Verdict, audit_dir};

/// Audit `staged` (the copy of skill `name` about to be installed) and decide.
pub fn check(staged: &Path, name: &str, force: bool, asker: &dyn LibraryAsker) -> Result<Verdict, AppError> {
    let audit = audit_dir(staged);
    let mut verdict = Verdict::of(&audit);
    let serious: Vec<Finding> = audit.at_least(Level::High).cloned().collect();
    let Some(worst) = serious.iter().map(|f| f.severity).max() else {
        return Ok(verdict);
    };
    let how = if force {
        Acceptance::Forced
    } else if asker.can_ask() {
        if !asker.confirm_findings(name, &serious, worst) {
            return Err(refused(name, &serious, worst, "you declined"));
        }
        Acceptance::Confirmed
    } else {
        return Err(refused(name, &serious, worst, "there is no terminal to ask on"));
    };
    verdict.accepted = serious.iter().map(Finding::key).collect();
    verdict.accepted_by = Some(how);
    Ok(verdict)
}

/// The refusal: what was found, why nothing was installed, and what to do.
fn refused(name: &str, serious: &[Finding], worst: Level, why: &str) -> AppError {
    let first = serious
        .iter()
        .find(|f| f.severity == worst)
        .map(|f| format!("{} in {}:{}", f.rule, f.file.display(), f.line))
        .unwrap_or_default();
    let code = if worst == Level::Critical {
        ExitCode::AuditCritical
    } else {
        ExitCode::AuditFindings
    };
    AppError::new(
        code,
        format!(
            "{}: the audit found {} finding(s) of high or critical severity (worst: {} {first}) and {why}, so nothing \
             was installed; read them with `agent skills audit SOURCE`, and install anyway only if you trust the \
             source, with --force",
            crate::support::terminal_text::visible(name),
            serious.len(),
            worst.name()
        ),
    )
}
