//! `skills eval` and `skills tune`: the commands that ask the model which skill it would pick,
//! built on an agent that reports nothing per event (results are reported per case).

use std::sync::Arc;

use super::{eval, tune};
use crate::app::{Run, build, endpoint};
use crate::cli::SkillsCommand;
use crate::exit::{AppError, ExitCode};
use crate::output::{Output, Quiet, Report};
use crate::skills::discover::Discovery;

/// Run `skills eval` (cases, or `--draft`) or `skills tune` over the skills `discovery` found.
pub(super) async fn run(
    action: &SkillsCommand,
    mut run: Run<'_>,
    discovery: Discovery,
    output: &dyn Output,
) -> Result<ExitCode, AppError> {
    // The skill `--draft` or `tune` names, by its own name or its folder's, as the catalog calls it.
    let named = match action {
        SkillsCommand::Eval { draft: Some(skill), .. } | SkillsCommand::Tune { skill, .. } => Some(
            crate::app::skill_once::find_skill(skill, &discovery)
                .map_err(AppError::usage)?
                .name
                .clone(),
        ),
        _ => None,
    };
    let named = named.unwrap_or_default();
    endpoint::discover(run.cli, &mut run.config).await?;
    let approver = run.front.approver(run.config.interactive);
    let asker = approver.clone();
    let mut agent = build::agent(&run, discovery, Arc::new(Quiet), approver)?;
    let report = match action {
        SkillsCommand::Eval {
            draft: Some(_), count, ..
        } => Report::EvalDraft(eval::draft(&mut agent, &named, *count).await?),
        SkillsCommand::Eval {
            cases,
            min_rate,
            runs,
            jobs,
            ..
        } => {
            let Some(cases) = cases else {
                return Err(AppError::usage("name a cases file, or --draft SKILL"));
            };
            let options = eval::EvalOptions {
                runs: *runs,
                jobs: *jobs,
                min_rate: *min_rate,
            };
            return eval::run(agent, cases, options, output).await;
        }
        SkillsCommand::Tune {
            cases,
            iterations,
            runs,
            jobs,
            budget,
            write,
            ..
        } => {
            let options = tune::TuneOptions {
                skill: named,
                cases: cases.clone(),
                iterations: *iterations,
                runs: *runs,
                jobs: *jobs,
                budget: *budget,
                write: *write,
            };
            let ask = move |question: &str| asker.can_ask().then(|| asker.ask_yes_no(question));
            Report::Tune(tune::tune(&mut agent, &options, &ask).await?)
        }
        _ => return Err(AppError::internal("only eval and tune are routed here")),
    };
    output.report(report);
    Ok(ExitCode::Answered)
}
