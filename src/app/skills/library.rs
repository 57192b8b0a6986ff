//! Dispatch of `agent skills add|outdated|update|remove`: which skill roots they work on (the
//! user's `~/.agents/skills`, or the project's `./.agents/skills` with `--project`), and who is
//! asked.

use std::path::{Path, PathBuf};

use super::Run;
use super::{add, update};
use crate::cli::SkillsCommand;
use crate::exit::{AppError, ExitCode};
use crate::output::Report;
use crate::output::library::UpdateOutcome;
use crate::skills::discover::RootKind;
use crate::support::skill_roots::Tool;

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
        } => {
            let request = add::AddRequest {
                source: source.clone(),
                skills: skills.clone(),
                fix: *fix,
            };
            match (cwd(), root(run, *project)) {
                (Ok(cwd), Ok(root)) => add::add(&request, &cwd, &root, *project, &asker)
                    .await
                    .map(Report::SkillsAdded),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }
        SkillsCommand::Outdated => match roots(run) {
            Ok(roots) => update::outdated(&refs(&roots)).await.map(Report::SkillsOutdated),
            Err(e) => Err(e),
        },
        SkillsCommand::Update { name, yes } => match roots(run) {
            Ok(roots) => update::update(&refs(&roots), name.as_deref(), *yes, &asker)
                .await
                .map(Report::SkillsUpdated),
            Err(e) => Err(e),
        },
        SkillsCommand::Remove { name, project } => {
            root(run, *project).and_then(|root| add::remove(name, &root).map(Report::SkillRemoved))
        }
        _ => return None,
    };
    let unconfirmed = |r: &Report| matches!(r, Report::SkillsUpdated(u) if u.skills.iter().any(|s| s.outcome == UpdateOutcome::NotConfirmed));
    Some(result.map(|r| {
        let code = if unconfirmed(&r) {
            ExitCode::Usage
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
    std::env::current_dir().map_err(|e| AppError::config(format!("cannot determine the working directory: {e}")))
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

/// Every root that can hold a lock file: the project's, then the user's.
fn roots(run: &Run<'_>) -> Result<Vec<PathBuf>, AppError> {
    let mut roots = vec![root(run, true)?];
    roots.extend(root(run, false).ok());
    Ok(roots)
}
