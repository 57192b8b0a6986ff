//! Dispatch of `agent skills add|outdated|update|remove`: which skill roots they work on (the
//! user's `~/.agents/skills`, or the project's `./.agents/skills` with `--project`), and who is
//! asked.

use std::path::{Path, PathBuf};

use super::Run;
use super::{add, outdated, update};
use crate::cli::{KeysCommand, SkillsCommand};
use crate::exec::trust::Standing;
use crate::exit::{AppError, ExitCode};
use crate::output::library::{self as library_report, UpdateOutcome};
use crate::output::{Event, Report};
use crate::skills::library::lock::LockFile;
use crate::skills::roots::RootKind;
use crate::skills::roots::Tool;

/// The report of one library subcommand and the exit code it ends with; `None` when `action` is
/// not one. An update that found changes but had nobody to ask and no `--yes` ends with 2.
pub(super) async fn run(action: &SkillsCommand, run: &Run<'_>) -> Option<Result<(Report, ExitCode), AppError>> {
    let asker = run.front.library_asker(run.config.interactive);
    let result = match action {
        SkillsCommand::Add {
            source,
            skills,
            project,
            fix,
            all,
            force,
            new_name,
        } => {
            let request = add::AddRequest {
                source: source.clone(),
                skills: skills.clone(),
                fix: *fix,
                all: *all,
                force: *force,
                new_name: new_name.clone(),
            };
            match (cwd(), root(run, *project)) {
                (Ok(cwd), Ok(root)) => add::add(&request, &cwd, &root, *project, &asker)
                    .await
                    .map(Report::SkillsAdded),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }
        SkillsCommand::Outdated => match roots(run) {
            Ok(roots) => outdated::outdated(&refs(&roots)).await.map(Report::SkillsOutdated),
            Err(e) => Err(e),
        },
        SkillsCommand::Update { name, yes, force } => match roots(run) {
            Ok(roots) => update::update(&refs(&roots), name.as_deref(), (*yes, *force), &asker)
                .await
                .map(Report::SkillsUpdated),
            Err(e) => Err(e),
        },
        SkillsCommand::Verify { name } => match roots(run) {
            Ok(roots) => match super::verify::verify(&refs(&roots), name.as_deref()) {
                Ok((report, code)) => return Some(Ok((Report::SkillsVerified(report), code))),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        },
        SkillsCommand::Keys {
            action:
                KeysCommand::Add {
                    key,
                    comment,
                    require_for,
                },
        } => super::verify::add_key(key, comment.as_deref(), require_for.as_deref()).map(Report::KeyAdded),
        SkillsCommand::Remove { name, project } => {
            root(run, *project).and_then(|root| add::remove(name, &root).map(Report::SkillRemoved))
        }
        _ => return None,
    };
    let unconfirmed = |r: &Report| matches!(r, Report::SkillsUpdated(u) if u.skills.iter().any(|s| s.outcome == UpdateOutcome::NotConfirmed));
    let outdated = |r: &Report| matches!(r, Report::SkillsOutdated(o) if o.skills.iter().any(|s| s.standing == library_report::Standing::Outdated));
    let refused = |r: &Report| match r {
        Report::SkillsAdded(a) if a.refused.iter().any(|s| s.critical) => Some(ExitCode::AuditCritical),
        Report::SkillsAdded(a) if !a.refused.is_empty() => Some(ExitCode::AuditFindings),
        _ => None,
    };
    Some(result.map(|r| {
        let code = if let Some(code) = refused(&r) {
            code
        } else if unconfirmed(&r) {
            ExitCode::Usage
        } else if outdated(&r) {
            // Like a failed `skills check`: CI can fail on it (`skills outdated || …`).
            ExitCode::Internal
        } else {
            ExitCode::Answered
        };
        (r, code)
    }))
}

fn refs(roots: &[PathBuf]) -> Vec<&Path> {
    roots.iter().map(PathBuf::as_path).collect()
}

fn cwd() -> Result<PathBuf, AppError> {
    std::env::current_dir()
        .map_err(|e| AppError::context(ExitCode::Config, "cannot determine the working directory", e))
}

/// The root installs go to: `./.agents/skills` with `project`, else `~/.agents/skills`.
fn root(run: &Run<'_>, project: bool) -> Result<PathBuf, AppError> {
    if project {
        return Ok(cwd()?.join(Tool::Agent.project_dir()));
    }
    run.config
        .skill_roots
        .iter()
        .find(|r| r.kind == RootKind::User)
        .map(|r| r.path.clone())
        .ok_or_else(|| AppError::config("no home folder to install into (HOME is unset); use --project"))
}

/// Every root whose lock file `outdated` and `update` follow: the project's, then the user's.
/// A project lock counts only in a folder the user trusts: a cloned repository's lock chooses
/// the sources, and one naming `~/.ssh` would otherwise copy it into the project on a yes.
fn roots(run: &Run<'_>) -> Result<Vec<PathBuf>, AppError> {
    let project = root(run, true)?;
    let user = root(run, false).ok();
    let mut roots = Vec::new();
    if user.as_ref() == Some(&project) {
        // Run from the home folder, the project's `.agents/skills` is the user's own root.
    } else if run.trust.standing() == Standing::Trusted {
        roots.push(project);
    } else if LockFile::path(&project).exists() {
        run.front.output.emit(Event::Warning {
            message: format!(
                "{} is not used: this folder is not trusted (run `agent trust` after checking its sources)",
                LockFile::path(&project).display()
            ),
        });
    }
    roots.extend(user);
    Ok(roots)
}
