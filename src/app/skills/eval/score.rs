//! Scoring routings: a case's trigger rate and verdict, and the summary per half and per skill.

use crate::agent::route::{Route, Routed};
use crate::output::report::{EvalCase, EvalHalf, EvalSkill, EvalSummary};
use crate::skills::routing_cases::{Case, Half};

use super::{chosen, half_name};

/// A case passes when its skill is chosen in at least half the runs (should-trigger), or in
/// fewer than half (should-not), as skill-creator judges trigger evals.
const TRIGGER_THRESHOLD: f64 = 0.5;

/// Failed cases named per skill in the summary.
const WORST_SHOWN: usize = 3;

/// Whether one routing counts as the case's skill being chosen. A skill the model names without
/// having been shown it (neither in the catalog nor found by search) does not count: a real model
/// could not have known it, so such a "pass" would prove nothing about routing.
fn triggered(case: &Case, routed: &Routed) -> bool {
    match (&case.skill, &routed.route) {
        (None, Route::Skill(_)) => true,
        (None, Route::None) | (Some(_), Route::None) => false,
        (Some(want), Route::Skill(got)) => {
            got == want && (routed.position(want).is_some() || routed.searched.iter().any(|s| s == want))
        }
    }
}

/// The result of `case` over its runs.
pub(crate) fn score_case(case: &Case, half: Half, runs: &[Routed]) -> EvalCase {
    let triggers = runs.iter().filter(|r| triggered(case, r)).count();
    let trigger_rate = if runs.is_empty() {
        0.0
    } else {
        triggers as f64 / runs.len() as f64
    };
    let pass = if case.should_trigger {
        trigger_rate >= TRIGGER_THRESHOLD
    } else {
        trigger_rate < TRIGGER_THRESHOLD
    };
    let activations: Vec<String> = runs.iter().map(|r| chosen(&r.route).to_string()).collect();
    let first = runs.first();
    EvalCase {
        prompt: case.prompt.clone(),
        expected: case.skill.clone().unwrap_or_else(|| "none".into()),
        should_trigger: case.should_trigger,
        split: half_name(half).into(),
        activated: activations.first().cloned().unwrap_or_else(|| "none".into()),
        activations,
        runs: runs.len() as u32,
        triggers: triggers as u32,
        trigger_rate,
        shown_at: case.skill.as_deref().and_then(|s| first.and_then(|r| r.position(s))),
        found_by_search: case
            .skill
            .as_deref()
            .is_some_and(|s| runs.iter().any(|r| r.searched.iter().any(|x| x == s))),
        pass,
    }
}

fn half(cases: &[EvalCase], name: &str) -> EvalHalf {
    let of: Vec<&EvalCase> = cases.iter().filter(|c| c.split == name).collect();
    let passed = of.iter().filter(|c| c.pass).count();
    EvalHalf {
        passed,
        total: of.len(),
        pass_rate: (!of.is_empty()).then(|| passed as f64 / of.len() as f64),
    }
}

fn mean(rates: &[f64]) -> Option<f64> {
    (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
}

/// Per skill: mean trigger rate on should / should-not cases, and the worst failures.
fn per_skill(cases: &[EvalCase]) -> Vec<EvalSkill> {
    let mut names: Vec<&str> = cases.iter().map(|c| c.expected.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|skill| {
            let of: Vec<&EvalCase> = cases.iter().filter(|c| c.expected == skill).collect();
            let rates = |should: bool| -> Vec<f64> {
                of.iter()
                    .filter(|c| c.should_trigger == should)
                    .map(|c| c.trigger_rate)
                    .collect()
            };
            let mut failed: Vec<&&EvalCase> = of.iter().filter(|c| !c.pass).collect();
            // Worst first: furthest from passing.
            failed.sort_by(|a, b| margin(a).total_cmp(&margin(b)));
            EvalSkill {
                skill: skill.to_string(),
                should_rate: mean(&rates(true)),
                should_not_rate: mean(&rates(false)),
                passed: of.iter().filter(|c| c.pass).count(),
                total: of.len(),
                worst: failed.iter().take(WORST_SHOWN).map(|c| c.prompt.clone()).collect(),
            }
        })
        .collect()
}

/// How far a case is on the right side of the threshold (negative: failed by that much).
fn margin(c: &EvalCase) -> f64 {
    if c.should_trigger {
        c.trigger_rate - TRIGGER_THRESHOLD
    } else {
        TRIGGER_THRESHOLD - c.trigger_rate
    }
}

/// The summary of every case's result against `threshold`.
pub(crate) fn summarize(cases: Vec<EvalCase>, threshold: f64, runs: u32, llm_calls: u32) -> EvalSummary {
    let passed = cases.iter().filter(|c| c.pass).count();
    let pass_rate = if cases.is_empty() {
        0.0
    } else {
        passed as f64 / cases.len() as f64
    };
    EvalSummary {
        passed,
        total: cases.len(),
        pass_rate,
        threshold,
        ok: pass_rate + 1e-9 >= threshold,
        llm_calls,
        runs,
        train: half(&cases, "train"),
        validation: half(&cases, "validation"),
        skills: per_skill(&cases),
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routed(route: Route, shown: &[&str]) -> Routed {
        Routed {
            route,
            shown: shown.iter().map(|s| s.to_string()).collect(),
            searched: Vec::new(),
            calls: Vec::new(),
        }
    }

    fn case(skill: Option<&str>, should: bool) -> Case {
        Case {
            prompt: "p".into(),
            skill: skill.map(str::to_string),
            should_trigger: should,
        }
    }

    #[test]
    fn a_choice_counts_only_when_the_skill_was_shown() {
        let pick = |name: &str| Route::Skill(name.into());
        let c = case(Some("weather"), true);
        let runs = [
            routed(pick("weather"), &["time", "weather"]),
            routed(pick("weather"), &["time"]),
            routed(Route::None, &["weather"]),
        ];
        let r = score_case(&c, Half::Train, &runs);
        assert_eq!((r.triggers, r.runs), (1, 3));
        assert_eq!(r.shown_at, Some(2));
        assert!(!r.pass, "one real trigger in three runs");
        let not = score_case(&case(Some("weather"), false), Half::Validation, &runs);
        assert!(not.pass && not.split == "validation");
        let none = score_case(&case(None, false), Half::Train, &runs);
        assert_eq!(none.triggers, 2, "with `none`, any activation triggers");
    }

    #[test]
    fn the_summary_rates_halves_and_skills() {
        let shown = ["a", "b"];
        let runs = |name: &str| [routed(Route::Skill(name.into()), &shown)];
        let cases = vec![
            score_case(&case(Some("a"), true), Half::Train, &runs("a")),
            score_case(&case(Some("a"), false), Half::Validation, &runs("a")),
            score_case(&case(Some("b"), true), Half::Validation, &runs("b")),
        ];
        let s = summarize(cases, 0.9, 1, 3);
        assert_eq!((s.passed, s.total, s.ok), (2, 3, false));
        assert_eq!(s.train.pass_rate, Some(1.0));
        assert_eq!(s.validation.pass_rate, Some(0.5));
        let a = &s.skills[0];
        assert_eq!((a.should_rate, a.should_not_rate), (Some(1.0), Some(1.0)));
        assert_eq!(a.worst, ["p"]);
    }
}
