//! `agent skills eval CASES`: how reliably the model picks the right skill. Each case runs `runs`
//! times (concurrently, `jobs` at once) with the catalog a real request would get; the report
//! separates being shown from being chosen, gives trigger rates per case and per skill, and the
//! pass rates of the stable train/validation split. `--draft SKILL` proposes cases instead.

mod draft;
mod score;

use std::path::Path;

use futures::StreamExt;

use crate::agent::Agent;
use crate::agent::route::{Route, Routed};
use crate::exit::{AppError, ExitCode};
use crate::output::{Output, Report};
use crate::skills::routing_cases::{self, Case, Half};
use crate::support::yaml::document as yaml_document;

pub(super) use draft::draft;
pub(crate) use score::{score_case, summarize};

/// Largest cases file that is read.
const MAX_CASES_BYTES: u64 = 16 * 1024 * 1024;

/// How `skills eval` runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EvalOptions {
    /// Runs per case.
    pub(crate) runs: u32,
    /// Routings in flight at once.
    pub(crate) jobs: usize,
    /// `--min-rate`, overriding the file's `threshold`.
    pub(crate) min_rate: Option<f64>,
}

/// Read a cases file (any shape `routing_cases` knows); `default_skill` names the skill of
/// skill-creator cases that do not say.
pub(crate) fn read_cases(path: &Path, default_skill: Option<&str>) -> Result<(Vec<Case>, Option<f64>), AppError> {
    let text = crate::support::fs::read_whole(path, MAX_CASES_BYTES)
        .map(|read| read.text())
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot read {}", path.display()), e))?;
    let doc = yaml_document(&text)
        .map_err(|e| AppError::context(ExitCode::Config, format!("{}: not valid YAML", path.display()), e))?;
    routing_cases::parse(&doc, default_skill).map_err(|why| AppError::context(ExitCode::Config, path.display(), why))
}

/// Every routing of `cases` × `runs`, `jobs` at a time, in case order; the calls are counted.
pub(crate) async fn route_all(
    agent: &mut Agent,
    cases: &[Case],
    runs: u32,
    jobs: usize,
) -> Result<Vec<Vec<Routed>>, AppError> {
    let shared: &Agent = agent;
    let work: Vec<(usize, &str)> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, c)| (0..runs).map(move |_| (i, c.prompt.as_str())))
        .collect();
    let results: Vec<(usize, Result<Routed, _>)> = futures::stream::iter(work)
        .map(|(i, prompt)| async move { (i, shared.route_shown(prompt).await) })
        .buffered(jobs.max(1))
        .collect()
        .await;
    let mut out: Vec<Vec<Routed>> = vec![Vec::new(); cases.len()];
    for (i, routed) in results {
        let routed = routed.map_err(|e| AppError::context(ExitCode::Llm, format!("case {:?}", cases[i].prompt), e))?;
        out[i].push(routed);
    }
    for routed in out.iter().flatten() {
        agent.count_routed(routed);
    }
    Ok(out)
}

/// Run every case, report each and then the summary; exit 1 when the pass rate is under the
/// threshold, 4 when the model fails.
pub(super) async fn run(
    mut agent: Agent,
    path: &Path,
    options: EvalOptions,
    output: &dyn Output,
) -> Result<ExitCode, AppError> {
    let (cases, file_threshold) = read_cases(path, None)?;
    let threshold = options.min_rate.or(file_threshold).unwrap_or(1.0);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(AppError::usage(format!(
            "--min-rate {threshold} is not between 0 and 1"
        )));
    }
    if options.runs == 0 {
        return Err(AppError::usage("--runs must be at least 1"));
    }
    let halves = routing_cases::split(&cases);
    let routed = route_all(&mut agent, &cases, options.runs, options.jobs).await?;
    let results: Vec<_> = cases
        .iter()
        .zip(&halves)
        .zip(&routed)
        .map(|((case, half), runs)| score_case(case, *half, runs))
        .collect();
    for result in &results {
        output.report(Report::EvalCase(result.clone()));
    }
    let summary = score::summarize(results, threshold, options.runs, agent.llm_calls());
    let ok = summary.ok;
    output.report(Report::Eval(summary));
    // 1 is the documented "check failed" code for `skills check` and `skills eval`.
    Ok(if ok { ExitCode::Answered } else { ExitCode::Internal })
}

/// The name a routing chose, or `none`.
fn chosen(route: &Route) -> &str {
    match route {
        Route::Skill(s) => s,
        Route::None => "none",
    }
}

/// The half's name in reports.
fn half_name(half: Half) -> &'static str {
    match half {
        Half::Train => "train",
        Half::Validation => "validation",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::routing_cases::{CaseError, CasesError};

    #[test]
    fn a_wrong_case_exits_3_naming_the_file_with_the_case_error_beneath() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cases.yaml");
        std::fs::write(&file, "- prompt: hello\n").unwrap();
        let err = read_cases(&file, None).unwrap_err();
        assert_eq!(err.code, ExitCode::Config);
        assert_eq!(
            err.message,
            format!(
                "{}: case 1: needs `expect_skill: NAME`, `expect: none`, or `should_trigger: true|false`",
                file.display()
            )
        );
        let kept = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<CasesError>());
        assert_eq!(
            kept,
            Some(&CasesError::Case {
                number: 1,
                source: CaseError::NoExpectation
            })
        );
        assert!(err.causes().is_empty(), "{:?}", err.causes());
    }
}
