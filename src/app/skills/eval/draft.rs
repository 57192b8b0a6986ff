//! `agent skills eval --draft SKILL`: the model proposes should / should-not requests for a skill
//! (near misses included), written to the skill's `tests/routing.yaml` for its author to review.
//! Cases already there are kept: new ones are added, never replacing an existing one.

use std::path::Path;

use serde_json::Value;

use crate::agent::Agent;
use crate::exit::{AppError, ExitCode};
use crate::output::report::EvalDraft;
use crate::skills::catalog::model_line;
use crate::skills::routing_cases::{self, Case};

const DRAFT_PROMPT: &str = include_str!("../../../../prompts/eval_draft.md");

/// Other skills named to the model, so near misses can point at them.
const NEIGHBOURS: usize = 20;

/// Ask for `count` cases about `skill` and add the new ones to its `tests/routing.yaml`.
pub(in crate::app::skills) async fn draft(agent: &mut Agent, skill: &str, count: usize) -> Result<EvalDraft, AppError> {
    let Some(found) = agent.skills().get(skill).cloned() else {
        return Err(AppError::config(format!(
            "there is no skill named {skill:?}; `agent skills list` shows the names"
        )));
    };
    let neighbours: Vec<String> = agent
        .skills()
        .search(&found.description, NEIGHBOURS + 1)
        .into_iter()
        .filter(|(s, _)| s.name != found.name)
        .take(NEIGHBOURS)
        .map(|(s, _)| format!("- {}: {}", model_line(&s.name), model_line(&s.description)))
        .collect();
    let body: String = found.read_body().unwrap_or_default().chars().take(4000).collect();
    let user = format!(
        "The skill:\nname: {}\ndescription: {}\n\nIts instructions begin:\n{}\n\nOther skills the agent knows:\n{}\n",
        model_line(&found.name),
        model_line(&found.description),
        body,
        if neighbours.is_empty() {
            "(none)".to_string()
        } else {
            neighbours.join("\n")
        }
    );
    let system = DRAFT_PROMPT.replace("{{count}}", &count.to_string());
    let text = agent
        .ask(&system, &user)
        .await
        .map_err(|e| AppError::from_source(ExitCode::Llm, e))?;
    let proposed = parse_proposals(&text, &found.name).ok_or_else(|| {
        AppError::new(
            ExitCode::Llm,
            "the model did not answer with a JSON array of {\"query\", \"should_trigger\"} cases; try again or another model",
        )
    })?;
    let file = found.dir.join("tests").join("routing.yaml");
    let (existing, threshold) = existing_cases(&file, &found.name)?;
    let added = merge(&existing, proposed);
    let mut all = existing;
    all.extend(added.iter().cloned());
    if !added.is_empty() {
        write(&file, &found.name, (&all, &added), threshold)?;
    }
    Ok(EvalDraft {
        skill: found.name.clone(),
        file,
        added: added.len(),
        kept: all.len() - added.len(),
        should_trigger: added.iter().filter(|c| c.should_trigger).count(),
    })
}

/// The cases of the model's answer: the first JSON array in it, entries with a query and a
/// boolean `should_trigger`.
fn parse_proposals(text: &str, skill: &str) -> Option<Vec<Case>> {
    let start = text.find('[')?;
    let end = text.rfind(']')?;
    let items: Vec<Value> = serde_json::from_str(text.get(start..=end)?).ok()?;
    let cases: Vec<Case> = items
        .iter()
        .filter_map(|item| {
            let query = item.get("query").or_else(|| item.get("prompt"))?.as_str()?.trim();
            let should = item.get("should_trigger")?.as_bool()?;
            (!query.is_empty()).then(|| Case {
                prompt: query.to_string(),
                skill: Some(skill.to_string()),
                should_trigger: should,
            })
        })
        .collect();
    (!cases.is_empty()).then_some(cases)
}

/// The cases `file` holds now (none when it does not exist).
fn existing_cases(file: &Path, skill: &str) -> Result<(Vec<Case>, Option<f64>), AppError> {
    if !file.exists() {
        return Ok((Vec::new(), None));
    }
    super::read_cases(file, Some(skill))
}

/// The proposals whose request is not already a case (compared without case or spacing).
fn merge(existing: &[Case], proposed: Vec<Case>) -> Vec<Case> {
    let key = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let mut seen: Vec<String> = existing.iter().map(|c| key(&c.prompt)).collect();
    let mut added = Vec::new();
    for case in proposed {
        let k = key(&case.prompt);
        if !seen.contains(&k) {
            seen.push(k);
            added.push(case);
        }
    }
    added
}

/// Write the file: the new cases appended to it in its own shape when it ends with its list of
/// cases (and reads back as every case), else all of them (`cases.0`) written anew.
fn write(file: &Path, skill: &str, cases: (&[Case], &[Case]), threshold: Option<f64>) -> Result<(), AppError> {
    let (all, added) = cases;
    let reads_back = |text: &String| {
        crate::support::yaml::document(text)
            .ok()
            .and_then(|doc| routing_cases::parse(&doc, Some(skill)).ok())
            .is_some_and(|(read, _)| read.len() == all.len())
    };
    let appended = std::fs::read_to_string(file)
        .ok()
        .and_then(|text| routing_cases::append_yaml(&text, skill, added))
        .filter(reads_back);
    let note = "Routing cases for `agent skills eval` (skill-creator's trigger-eval fields).\n\
                Drafted in part by `agent skills eval --draft`: review them, fix or delete what is wrong.";
    let text = appended.unwrap_or_else(|| routing_cases::to_yaml(skill, all, threshold, note));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| AppError::context(ExitCode::Config, format!("cannot create {}", dir.display()), e))?;
    }
    std::fs::write(file, text)
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot write {}", file.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposals_are_read_leniently_and_duplicates_dropped() {
        let text = "Sure:\n```json\n[{\"query\": \"rain in Oslo tomorrow?\", \"should_trigger\": true},\n {\"query\": \"x\"},\n {\"query\": \"what time is it in Oslo\", \"should_trigger\": false}]\n```";
        let cases = parse_proposals(text, "weather").unwrap();
        assert_eq!(cases.len(), 2);
        assert!(parse_proposals("no json here", "weather").is_none());
        let existing = vec![Case {
            prompt: "Rain in  Oslo tomorrow?".into(),
            skill: Some("weather".into()),
            should_trigger: true,
        }];
        let added = merge(&existing, cases);
        assert_eq!(added.len(), 1);
        assert_eq!(added[0].prompt, "what time is it in Oslo");
    }
}
