//! `agent skills eval CASES.yaml`: does the model still pick the right skill for each request?

use std::path::Path;

use serde_json::Value;

use crate::agent::Agent;
use crate::agent::route::Route;
use crate::exit::{AppError, ExitCode};
use crate::output::report::{EvalCase, EvalSummary};
use crate::output::{Output, Report};
use crate::support::yaml::document as yaml_document;

/// One routing case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub prompt: String,
    /// `None`: no skill should be activated.
    pub expect: Option<String>,
}

/// Largest cases file that is read.
const MAX_CASES_BYTES: u64 = 16 * 1024 * 1024;

/// Read the cases file: a list of cases, or `{cases: [...], threshold: 0.9}`.
pub fn read_cases(path: &Path) -> Result<(Vec<Case>, Option<f64>), AppError> {
    let text = crate::support::fs::read_whole(path, MAX_CASES_BYTES)
        .map(|read| read.text())
        .map_err(|e| AppError::config(format!("cannot read {}: {e}", path.display())))?;
    let doc = yaml_document(&text).map_err(|e| AppError::config(format!("{}: not valid YAML: {e}", path.display())))?;
    let (list, threshold) = match &doc {
        Value::Array(items) => (items.clone(), None),
        Value::Object(map) => (
            map.get("cases").and_then(Value::as_array).cloned().unwrap_or_default(),
            map.get("threshold").and_then(Value::as_f64),
        ),
        _ => (Vec::new(), None),
    };
    let mut cases = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let bad = |why: &str| AppError::config(format!("{}: case {}: {why}", path.display(), i + 1));
        let prompt = item
            .get("prompt")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("needs `prompt`"))?;
        let expect = match (item.get("expect_skill"), item.get("expect")) {
            (Some(Value::String(s)), _) => Some(s.clone()),
            (_, Some(Value::String(s))) if s == "none" => None,
            (_, Some(Value::Null)) => None,
            (_, Some(Value::String(s))) => Some(s.clone()),
            _ => return Err(bad("needs `expect_skill: NAME` or `expect: none`")),
        };
        cases.push(Case {
            prompt: prompt.to_string(),
            expect,
        });
    }
    if cases.is_empty() {
        return Err(AppError::config(format!(
            "{}: no cases; write a list of `- prompt: …` with `expect_skill: NAME` or `expect: none`",
            path.display()
        )));
    }
    Ok((cases, threshold))
}

fn shown(route: &Route) -> &str {
    match route {
        Route::Skill(s) => s,
        Route::None => "none",
    }
}

/// Run every case, reporting each as it is decided and then the tally; exit 1 when the pass
/// rate is under the threshold, 4 when the model fails.
pub(super) async fn run(
    mut agent: Agent,
    path: &Path,
    threshold: Option<f64>,
    output: &dyn Output,
) -> Result<ExitCode, AppError> {
    let (cases, file_threshold) = read_cases(path)?;
    let threshold = threshold.or(file_threshold).unwrap_or(1.0);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(AppError::usage(format!("threshold {threshold} is not between 0 and 1")));
    }
    let mut results = Vec::new();
    for case in &cases {
        let route = agent
            .route(&case.prompt)
            .await
            .map_err(|e| AppError::new(ExitCode::Llm, format!("case {:?}: {e}", case.prompt)))?;
        let pass = match (&route, &case.expect) {
            (Route::Skill(got), Some(want)) => got == want,
            (Route::None, None) => true,
            _ => false,
        };
        let result = EvalCase {
            prompt: case.prompt.clone(),
            expected: case.expect.as_deref().unwrap_or("none").to_string(),
            activated: shown(&route).to_string(),
            pass,
        };
        output.report(Report::EvalCase(result.clone()));
        results.push(result);
    }
    let passed = results.iter().filter(|c| c.pass).count();
    let pass_rate = passed as f64 / cases.len() as f64;
    let ok = pass_rate + 1e-9 >= threshold;
    output.report(Report::Eval(EvalSummary {
        passed,
        total: cases.len(),
        pass_rate,
        threshold,
        ok,
        llm_calls: agent.llm_calls(),
        cases: results,
    }));
    // 1 is the documented "check failed" code for `skills check` and `skills eval`.
    Ok(if ok { ExitCode::Answered } else { ExitCode::Internal })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_file_shapes_parse() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("a.yaml");
        std::fs::write(
            &list,
            "- prompt: weather in Tokyo\n  expect_skill: weather\n- prompt: tell a joke\n  expect: none\n",
        )
        .unwrap();
        let (cases, t) = read_cases(&list).unwrap();
        assert_eq!(
            cases[1],
            Case {
                prompt: "tell a joke".into(),
                expect: None
            }
        );
        assert_eq!(t, None);
        let map = dir.path().join("b.yaml");
        std::fs::write(&map, "threshold: 0.5\ncases:\n  - prompt: x\n    expect_skill: y\n").unwrap();
        assert_eq!(read_cases(&map).unwrap().1, Some(0.5));
        std::fs::write(&map, "cases:\n  - prompt: x\n").unwrap();
        assert!(read_cases(&map).unwrap_err().message.contains("case 1"));
    }
}
