//! Routing cases for `skills eval` and `skills tune`: requests and whether a skill should be
//! chosen for them, read from the formats authors already use, and split into a train and a
//! validation half that never changes between runs.
//!
//! Accepted shapes (YAML or JSON):
//! - ours: a list of `{prompt, expect_skill: NAME}` or `{prompt, expect: none}`, or
//!   `{cases: [...], threshold: 0.9}`;
//! - skill-creator's trigger evals: a list of `{query, should_trigger: true|false}` about one
//!   skill, named by a top-level `skill:`, a case's own `skill:`, or the caller's default;
//! - lists by outcome: `{skill: NAME, should_trigger: [...], should_not_trigger: [...]}`.

use serde_json::{Map, Value};

/// One routing case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Case {
    pub(crate) prompt: String,
    /// The skill the case is about; `None`: no skill at all should be chosen.
    pub(crate) skill: Option<String>,
    /// Whether `skill` should be chosen (always `false` when `skill` is `None`).
    pub(crate) should_trigger: bool,
}

/// Which half of the cases a case belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Half {
    /// Cases a description may be tuned on.
    Train,
    /// Cases a description is judged on, never tuned on.
    Validation,
}

/// Why a file's routing cases cannot be used; each says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CasesError {
    #[error("lists of should_trigger / should_not_trigger need `skill: NAME`")]
    ListsNeedSkill,
    #[error("`{0}` holds a non-string")]
    NotAString(&'static str),
    #[error("case {number}: {source}")]
    Case {
        /// The case's place in the file, from 1.
        number: usize,
        source: CaseError,
    },
    #[error(
        "no cases; write a list of `- prompt: …` with `expect_skill: NAME` or `expect: none`, \
         or skill-creator's `- query: …` with `should_trigger: true|false`"
    )]
    NoCases,
}

/// What is wrong with one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CaseError {
    #[error("is not a mapping")]
    NotAMapping,
    #[error("needs `prompt` (or `query`)")]
    NoPrompt,
    #[error("`should_trigger` must be true or false")]
    ShouldTriggerNotBool,
    #[error("a `should_trigger` case needs the skill it is about: `skill: NAME` in it or at the top of the file")]
    NoSkill,
    #[error("needs `expect_skill: NAME`, `expect: none`, or `should_trigger: true|false`")]
    NoExpectation,
}

/// Share of each stratum that goes to the train half (skill-creator splits 60/40 too).
const TRAIN_SHARE: f64 = 0.6;

/// The cases of a file's text and its `threshold`, if it sets one; `default_skill` names the skill
/// of skill-creator cases that do not say. The error says which case is wrong and how.
pub(crate) fn parse(doc: &Value, default_skill: Option<&str>) -> Result<(Vec<Case>, Option<f64>), CasesError> {
    let top = doc.as_object();
    let threshold = top.and_then(|m| m.get("threshold")).and_then(Value::as_f64);
    let file_skill = top
        .and_then(|m| m.get("skill"))
        .and_then(Value::as_str)
        .or(default_skill);
    let mut cases = Vec::new();
    if let Some(map) = top
        && (map.contains_key("should_trigger") || map.contains_key("should_not_trigger"))
    {
        let skill = file_skill.ok_or(CasesError::ListsNeedSkill)?;
        for (key, should) in [("should_trigger", true), ("should_not_trigger", false)] {
            for q in map.get(key).and_then(Value::as_array).into_iter().flatten() {
                let prompt = q.as_str().ok_or(CasesError::NotAString(key))?;
                cases.push(Case {
                    prompt: prompt.to_string(),
                    skill: Some(skill.to_string()),
                    should_trigger: should,
                });
            }
        }
    } else {
        let list = match doc {
            Value::Array(items) => items.clone(),
            Value::Object(map) => map.get("cases").and_then(Value::as_array).cloned().unwrap_or_default(),
            _ => Vec::new(),
        };
        for (i, item) in list.iter().enumerate() {
            cases.push(case(item, file_skill).map_err(|source| CasesError::Case { number: i + 1, source })?);
        }
    }
    if cases.is_empty() {
        return Err(CasesError::NoCases);
    }
    Ok((cases, threshold))
}

fn case(item: &Value, file_skill: Option<&str>) -> Result<Case, CaseError> {
    let map = item.as_object().ok_or(CaseError::NotAMapping)?;
    let prompt = ["prompt", "query"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .ok_or(CaseError::NoPrompt)?
        .to_string();
    if let Some(should) = map.get("should_trigger") {
        let should_trigger = should.as_bool().ok_or(CaseError::ShouldTriggerNotBool)?;
        let skill = map
            .get("skill")
            .and_then(Value::as_str)
            .or(file_skill)
            .ok_or(CaseError::NoSkill)?;
        return Ok(Case {
            prompt,
            skill: Some(skill.to_string()),
            should_trigger,
        });
    }
    let expect = expectation(map)?;
    Ok(Case {
        prompt,
        should_trigger: expect.is_some(),
        skill: expect,
    })
}

fn expectation(map: &Map<String, Value>) -> Result<Option<String>, CaseError> {
    match (map.get("expect_skill"), map.get("expect")) {
        (Some(Value::String(s)), _) => Ok(Some(s.clone())),
        (_, Some(Value::String(s))) if s == "none" => Ok(None),
        (_, Some(Value::Null)) => Ok(None),
        (_, Some(Value::String(s))) => Ok(Some(s.clone())),
        _ => Err(CaseError::NoExpectation),
    }
}

/// Each case's half: within every group of cases about the same skill with the same expectation,
/// ordered by a hash of the request, the first 60 % (at least one) train and the rest validation.
/// The same cases always split the same way, whatever their order in the file.
pub(crate) fn split(cases: &[Case]) -> Vec<Half> {
    let mut halves = vec![Half::Train; cases.len()];
    let mut strata: Vec<(&Option<String>, bool, Vec<usize>)> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        match strata
            .iter_mut()
            .find(|(s, t, _)| **s == c.skill && *t == c.should_trigger)
        {
            Some((_, _, members)) => members.push(i),
            None => strata.push((&c.skill, c.should_trigger, vec![i])),
        }
    }
    for (_, _, mut members) in strata {
        members.sort_by_key(|&i| (xxhash_rust::xxh3::xxh3_64(cases[i].prompt.as_bytes()), i));
        let train = ((members.len() as f64 * TRAIN_SHARE).round() as usize).max(1);
        for &i in &members[train.min(members.len())..] {
            halves[i] = Half::Validation;
        }
    }
    halves
}

/// The cases as skill-creator's field names write them, for `tests/routing.yaml`: `query` and
/// `should_trigger` about `skill` (a case about another skill names it; a case no skill should take
/// says `expect: none`), and the file's `threshold` when it has one. Strings are JSON-quoted, which
/// YAML reads as they are.
pub(crate) fn to_yaml(skill: &str, cases: &[Case], threshold: Option<f64>, note: &str) -> String {
    let quote = |s: &str| Value::String(s.to_string()).to_string();
    let mut out = String::new();
    for line in note.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str(&format!("skill: {}\n", quote(skill)));
    if let Some(t) = threshold {
        out.push_str(&format!("threshold: {t}\n"));
    }
    out.push_str("cases:\n");
    for c in cases {
        out.push_str(&format!("  - query: {}\n", quote(&c.prompt)));
        match &c.skill {
            None => out.push_str("    expect: none\n"),
            Some(other) if other != skill => out.push_str(&format!(
                "    skill: {}\n    should_trigger: {}\n",
                quote(other),
                c.should_trigger
            )),
            Some(_) => out.push_str(&format!("    should_trigger: {}\n", c.should_trigger)),
        }
    }
    out
}

/// `text`, a cases file in YAML, with `added` (cases about `skill`) appended in the file's own
/// shape: its list's indentation, and `prompt` with `expect_skill` or `query` with
/// `should_trigger` as its cases are written, so what an author wrote stays as written (comments
/// too). `None` when the file does not end with its list of cases (it is then written anew).
pub(crate) fn append_yaml(text: &str, skill: &str, added: &[Case]) -> Option<String> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let content = |l: &&&str| !l.trim().is_empty() && !l.trim_start().starts_with('#');
    let lines: Vec<&str> = text.lines().collect();
    let last_item = lines.iter().rposition(|l| l.trim_start().starts_with("- "))?;
    let at = indent(lines[last_item]);
    // Anything after the last case that is not inside it (a `threshold:` below `cases:`) means
    // the list does not end the file.
    let inside = |l: &&str| indent(l) > at || (indent(l) == at && l.trim_start().starts_with("- "));
    if !lines[last_item..].iter().filter(content).all(inside) {
        return None;
    }
    let ours = lines
        .iter()
        .any(|l| l.trim_start().trim_start_matches("- ").starts_with("expect_skill:"));
    let quote = |s: &str| Value::String(s.to_string()).to_string();
    let (pad, field) = (" ".repeat(at), " ".repeat(at + 2));
    let mut out = text.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for c in added {
        if ours {
            out.push_str(&format!("{pad}- prompt: {}\n", quote(&c.prompt)));
            if c.should_trigger {
                out.push_str(&format!("{field}expect_skill: {}\n", quote(skill)));
            } else {
                out.push_str(&format!(
                    "{field}skill: {}\n{field}should_trigger: false\n",
                    quote(skill)
                ));
            }
        } else {
            out.push_str(&format!("{pad}- query: {}\n", quote(&c.prompt)));
            out.push_str(&format!("{field}should_trigger: {}\n", c.should_trigger));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn appended_cases_take_the_files_shape_or_none_when_the_list_does_not_end_it() {
        let new = |q: &str, t| Case {
            prompt: q.into(),
            skill: Some("pdf".into()),
            should_trigger: t,
        };
        let creator = "- query: fill the form\n  should_trigger: true\n";
        assert_eq!(
            append_yaml(creator, "pdf", &[new("sum it", false)]).unwrap(),
            format!("{creator}- query: \"sum it\"\n  should_trigger: false\n")
        );
        assert!(
            append_yaml(
                "cases:\n  - prompt: a\n    expect_skill: pdf\nthreshold: 0.9\n",
                "pdf",
                &[]
            )
            .is_none()
        );
    }

    #[test]
    fn every_shape_reads_into_cases() {
        let ours = json!({"threshold": 0.5, "cases": [{"prompt": "weather in Oslo", "expect_skill": "weather"}, {"prompt": "hi", "expect": "none"}]});
        let (cases, threshold) = parse(&ours, None).unwrap();
        assert_eq!(threshold, Some(0.5));
        assert_eq!(cases[0].skill.as_deref(), Some("weather"));
        assert!(cases[0].should_trigger && !cases[1].should_trigger && cases[1].skill.is_none());

        let creator = json!([{"query": "rain tomorrow?", "should_trigger": true}, {"query": "write a poem", "should_trigger": false}]);
        let (cases, _) = parse(&creator, Some("weather")).unwrap();
        assert_eq!(cases[1].skill.as_deref(), Some("weather"));
        assert!(!cases[1].should_trigger);
        let err = parse(&creator, None).unwrap_err();
        assert_eq!(
            err,
            CasesError::Case {
                number: 1,
                source: CaseError::NoSkill
            }
        );
        assert!(err.to_string().contains("skill: NAME"), "{err}");

        let lists =
            json!({"skill": "time", "should_trigger": ["time in Lima"], "should_not_trigger": ["weather in Lima"]});
        let (cases, _) = parse(&lists, None).unwrap();
        assert_eq!(cases.len(), 2);
        assert!(cases[0].should_trigger && !cases[1].should_trigger);

        let err = parse(&json!([{"prompt": "x"}]), None).unwrap_err();
        assert!(err.to_string().starts_with("case 1: needs `expect_skill"), "{err}");
        // The case's own error is kept beneath, and the message already says it.
        let kept = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<CaseError>());
        assert_eq!(kept, Some(&CaseError::NoExpectation));
        assert_eq!(parse(&json!([]), None), Err(CasesError::NoCases));
    }

    #[test]
    fn the_split_is_stable_stratified_and_order_free() {
        let cases: Vec<Case> = (0..10)
            .map(|i| Case {
                prompt: format!("request {i}"),
                skill: Some("s".into()),
                should_trigger: i % 2 == 0,
            })
            .collect();
        let halves = split(&cases);
        for should in [true, false] {
            let group: Vec<Half> = (0..10).filter(|i| (i % 2 == 0) == should).map(|i| halves[i]).collect();
            assert_eq!(group.iter().filter(|h| **h == Half::Train).count(), 3, "{group:?}");
        }
        let mut reversed = cases.clone();
        reversed.reverse();
        let again = split(&reversed);
        for (i, half) in halves.iter().enumerate() {
            assert_eq!(*half, again[9 - i], "a case keeps its half when the file is reordered");
        }
    }

    #[test]
    fn yaml_round_trips_with_skill_creators_names() {
        let cases = vec![
            Case {
                prompt: "ok so my boss sent \"Q4.xlsx\": sum column B".into(),
                skill: Some("xlsx".into()),
                should_trigger: true,
            },
            Case {
                prompt: "write a fibonacci function".into(),
                skill: Some("xlsx".into()),
                should_trigger: false,
            },
        ];
        let mut cases = cases;
        cases.push(Case {
            prompt: "tell me a joke".into(),
            skill: None,
            should_trigger: false,
        });
        cases.push(Case {
            prompt: "plot this csv".into(),
            skill: Some("charts".into()),
            should_trigger: true,
        });
        let text = to_yaml("xlsx", &cases, Some(0.8), "drafted\nreview me");
        assert!(text.starts_with("# drafted\n# review me\nskill: \"xlsx\"\n"), "{text}");
        let doc = crate::support::yaml::document(&text).unwrap();
        let (back, threshold) = parse(&doc, None).unwrap();
        assert_eq!(back, cases);
        assert_eq!(threshold, Some(0.8));
    }
}
