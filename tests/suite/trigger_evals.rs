//! Trigger evals and description tuning through the real binary, against scripted models that
//! choose only from what their request shows them: rates over runs, the catalog stage, the
//! train/validation split, 429 under `--jobs`, drafting cases and the tuning loop.

use std::sync::Mutex;

use crate::common::*;
use serde_json::{Value, json};
use wiremock::{Request, Respond, ResponseTemplate};

/// The `- name: description` lines of the request's system message.
fn catalog(body: &Value) -> Vec<(String, String)> {
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    system
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(": "))
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect()
}

fn user(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// A model that picks, among the skills its catalog shows, one whose description shares a word
/// (of 4+ letters) with the request — with the probability the request names as `[p=0.7]`
/// (default 1), drawn from a seeded generator — and otherwise answers without a skill.
struct Chooser {
    rng: Mutex<fastrand::Rng>,
}

impl Respond for Chooser {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let asked = user(&body).to_lowercase();
        let p: f64 = asked
            .split("[p=")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        let words: Vec<&str> = asked
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4)
            .collect();
        let fits = catalog(&body).into_iter().find(|(_, d)| {
            d.to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| words.contains(&w))
        });
        let draw = self.rng.lock().unwrap().f64();
        match fits {
            Some((name, _)) if draw < p => answer(request, tool("activate_skill", json!({"name": name}))),
            _ => answer(request, text("No skill needed.")),
        }
    }
}

fn chooser(seed: u64) -> Chooser {
    Chooser {
        rng: Mutex::new(fastrand::Rng::with_seed(seed)),
    }
}

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather and forecast (rain, wind) for a city.\n---\n",
        None,
    );
    ws.skill(
        "time",
        "---\nname: time\ndescription: Local clock time in a city or zone.\n---\n",
        None,
    );
    ws
}

async fn eval(ws: &Workspace, mock: &MockLlm, cases: &str, extra: &[&str]) -> (i32, Value, String) {
    let file = ws.dir.path().join("cases.yaml");
    std::fs::write(&file, cases).unwrap();
    let mut cmd = ws.agent(mock);
    cmd.args(["--json", "skills", "eval"]).arg(&file).args(extra);
    let (code, out, err) = run_outcome(cmd).await;
    let summary = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("cases").is_some())
        .unwrap_or(Value::Null);
    (code, summary, err)
}

#[tokio::test]
async fn rates_over_runs_per_case_per_skill_and_per_half() {
    let ws = workspace();
    let mock = MockLlm::serving(chooser(7)).await;
    let cases = "skill: weather\ncases:\n\
        - query: will it rain in Oslo tomorrow\n  should_trigger: true\n\
        - query: how much wind in Bergen today [p=0.5]\n  should_trigger: true\n\
        - query: rain gauge kits to buy [p=0.1]\n  should_trigger: false\n\
        - query: write a poem\n  should_trigger: false\n\
        - query: wind chill of a forecast [p=0.9]\n  should_trigger: true\n";
    let (code, s, err) = eval(&ws, &mock, cases, &["--runs", "20", "--min-rate", "0.5"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["runs"], 20);
    let case = |i: usize| &s["cases"][i];
    assert_eq!(case(0)["trigger_rate"], 1.0);
    let half = case(1)["trigger_rate"].as_f64().unwrap();
    assert!((0.25..=0.75).contains(&half), "p=0.5 over 20 runs: {half}");
    assert!(case(2)["trigger_rate"].as_f64().unwrap() <= 0.3 && case(2)["pass"] == true);
    assert_eq!(case(3)["trigger_rate"], 0.0);
    assert_eq!(case(0)["shown_at"], 2, "weather is the second catalog line");
    assert_eq!(mock.requests().await.len(), 5 * 20);
    // Every case lands in a half, the same one on every run.
    let halves: Vec<String> = (0..5).map(|i| case(i)["split"].as_str().unwrap().to_string()).collect();
    let (_, again, _) = eval(&ws, &mock, cases, &["--runs", "1", "--min-rate", "0"]).await;
    let again: Vec<String> = (0..5)
        .map(|i| again["cases"][i]["split"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(halves, again);
    assert_eq!(
        s["train"]["total"].as_u64().unwrap() + s["validation"]["total"].as_u64().unwrap(),
        5
    );
    let weather = s["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["skill"] == "weather")
        .unwrap();
    assert!(weather["should_rate"].as_f64().unwrap() > 0.5);
    assert!(weather["should_not_rate"].as_f64().unwrap() < 0.5);
}

#[tokio::test]
async fn a_skill_the_catalog_did_not_show_cannot_pass() {
    let ws = workspace();
    for i in 0..30 {
        ws.skill(
            &format!("filler-{i:02}"),
            &format!(
                "---\nname: filler-{i:02}\ndescription: Filler skill number {i} that handles unrelated chores.\n---\n"
            ),
            None,
        );
    }
    // A model that names the expected skill whether or not it was shown.
    let mock = MockLlm::repeating(vec![tool("activate_skill", json!({"name": "weather"}))]).await;
    let cases = "- prompt: xyzzy plugh\n  expect_skill: weather\n";
    let mut cmd_env = vec!["--runs", "1"];
    cmd_env.push("--min-rate");
    cmd_env.push("1");
    let file = ws.dir.path().join("cases.yaml");
    std::fs::write(&file, cases).unwrap();
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_CATALOG_BUDGET", "400")
        .args(["--json", "skills", "eval"])
        .arg(&file)
        .args(&cmd_env);
    let (code, out, _) = run_outcome(cmd).await;
    let s: Value = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("cases").is_some())
        .unwrap();
    assert_eq!(code, 1, "{s}");
    let case = &s["cases"][0];
    assert_eq!(case["activated"], "weather");
    assert_eq!(case["shown_at"], Value::Null, "the budgeted catalog left it out: {s}");
    assert_eq!(case["pass"], false, "choosing a skill never shown proves nothing");
}

/// Answers 429 with `retry-after: 0` to every other request for the same prompt (so each routing
/// is refused at most twice, whatever the interleaving), and routes the rest like [`Chooser`].
struct Busy {
    calls: Mutex<std::collections::HashMap<String, u32>>,
    inner: Chooser,
}

impl Respond for Busy {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let mut calls = self.calls.lock().unwrap();
        let count = calls.entry(user(&body)).or_insert(0);
        *count += 1;
        if *count % 2 == 1 {
            return ResponseTemplate::new(429)
                .insert_header("retry-after", "0")
                .set_body_raw(r#"{"error":{"message":"slow down"}}"#, "application/json");
        }
        drop(calls);
        self.inner.respond(request)
    }
}

#[tokio::test]
async fn jobs_run_concurrently_and_429_retry_after_is_waited_out() {
    let ws = workspace();
    let mock = MockLlm::serving(Busy {
        calls: Mutex::default(),
        inner: chooser(1),
    })
    .await;
    let cases = "- prompt: rain in Lima\n  expect_skill: weather\n- prompt: clock time in Lima\n  expect_skill: time\n\
                 - prompt: forecast for Quito\n  expect_skill: weather\n- prompt: local time zone of Quito\n  expect_skill: time\n";
    let file = ws.dir.path().join("cases.yaml");
    std::fs::write(&file, cases).unwrap();
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_RETRIES", "3")
        .args(["skills", "eval"])
        .arg(&file)
        .args(["--runs", "2", "--jobs", "4"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4/4 passed (100%)"), "{out}");
    assert_eq!(
        mock.requests().await.len(),
        16,
        "each of 8 routings was refused once, then answered"
    );
}

/// Drafted cases are added to the file in its own shape: hand-written `expect_skill:` cases (and
/// comments) stay as written (issue 39, item 11).
#[tokio::test]
async fn draft_adds_cases_to_routing_yaml_and_keeps_the_ones_there() {
    let ws = workspace();
    let routing = ws.skills().join("weather/tests/routing.yaml");
    std::fs::create_dir_all(routing.parent().unwrap()).unwrap();
    let hand_written = "# mine\nthreshold: 0.9\ncases:\n  - prompt: weather in Paris\n    expect_skill: weather\n";
    std::fs::write(&routing, hand_written).unwrap();
    let proposals = json!([
        {"query": "weather in paris", "should_trigger": true},
        {"query": "ok so is it going to rain on my bike ride to work tmrw (Leeds)", "should_trigger": true},
        {"query": "what time does the sun set in Leeds", "should_trigger": false}
    ]);
    let mock = MockLlm::start(vec![text(&format!("Here you go:\n{proposals}"))]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["skills", "eval", "--draft", "weather", "--count", "3"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("added 2 cases for weather"), "{out}");
    let written = std::fs::read_to_string(&routing).unwrap();
    assert!(written.starts_with(hand_written), "{written}");
    assert_eq!(
        &written[hand_written.len()..],
        "  - prompt: \"ok so is it going to rain on my bike ride to work tmrw (Leeds)\"\n    expect_skill: \"weather\"\n  \
         - prompt: \"what time does the sun set in Leeds\"\n    skill: \"weather\"\n    should_trigger: false\n"
    );
    let asked = all_text(&mock.requests().await[0]);
    assert!(
        asked.contains("near misses") && asked.contains("time: Local clock time"),
        "{asked}"
    );
    // The file reads back as cases of the weather skill.
    let mock = MockLlm::serving(chooser(3)).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "skills", "eval"])
        .arg(&routing)
        .args(["--runs", "1", "--min-rate", "0"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"total\":3"), "{out}");
}

/// Routes like [`Chooser`] (always, p = 1); answers a tuning request with the next proposal.
struct Tuner {
    proposals: Mutex<Vec<&'static str>>,
}

impl Respond for Tuner {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        if system.contains("You improve the description") {
            let next = self.proposals.lock().unwrap().remove(0);
            return answer(request, text(&format!("<description>{next}</description>")));
        }
        chooser(0).respond(request)
    }
}

#[tokio::test]
async fn tuning_keeps_the_best_description_by_validation_and_writes_it_on_request() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "pdf",
        "---\nname: pdf\ndescription: Handles documents.\nlicense: MIT\n---\n# PDF\n",
        None,
    );
    ws.skill(
        "sheets",
        "---\nname: sheets\ndescription: Edits spreadsheets and their formulas.\n---\n",
        None,
    );
    let mut cases = String::from("skill: pdf\ncases:\n");
    for place in ["tax", "visa", "lease", "grant", "school"] {
        cases.push_str(&format!("  - query: fill the {place} form\n    should_trigger: true\n"));
        cases.push_str(&format!(
            "  - query: sum the {place} spreadsheet\n    should_trigger: false\n"
        ));
    }
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/routing.yaml"), &cases).unwrap();
    let mock = MockLlm::serving(Tuner {
        proposals: Mutex::new(vec![
            "Fills PDF forms. Use when the user has a form to fill in.",
            "Fills forms, and any spreadsheet too.",
            "never asked for",
        ]),
    })
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "skills", "tune", "pdf", "--runs", "1", "--write"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(report["before"], "Handles documents.");
    assert_eq!(
        report["after"],
        "Fills PDF forms. Use when the user has a form to fill in."
    );
    assert_eq!(report["validation_before"], 0.5);
    assert_eq!(report["validation_after"], 1.0);
    assert_eq!(report["stopped"], "validation stopped improving");
    assert_eq!(report["tried"].as_array().unwrap().len(), 2);
    let skill_md = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
    assert_eq!(
        skill_md,
        "---\nname: pdf\ndescription: \"Fills PDF forms. Use when the user has a form to fill in.\"\nlicense: MIT\n---\n# PDF\n"
    );
}

/// A refused proposal names the rule it broke (issue 39, item 9): an empty one says it was empty
/// rather than printing a list of possible reasons followed by nothing.
#[tokio::test]
async fn a_refused_proposal_says_which_rule_it_broke() {
    let ws = Workspace::new();
    let dir = ws.skill("pdf", "---\nname: pdf\ndescription: Handles documents.\n---\n", None);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("tests/routing.yaml"),
        "skill: pdf\ncases:\n  - query: fill the tax form\n    should_trigger: true\n",
    )
    .unwrap();
    let mock = MockLlm::serving(Tuner {
        proposals: Mutex::new(vec!["", "Always use this for every form."]),
    })
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["skills", "tune", "pdf", "--runs", "1", "--iterations", "2"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("refused: the model proposed no description"), "{out}");
    assert!(
        out.contains("refused (aimed at the model: \"always use\"): Always use this for every form."),
        "{out}"
    );
    assert!(!out.contains("too long, empty, or"), "{out}");
}

#[tokio::test]
async fn skills_check_says_what_a_long_description_costs_every_request() {
    let ws = workspace();
    let long = "Converts, merges, splits and annotates documents of many kinds. ".repeat(12);
    ws.skill("docs", &format!("---\nname: docs\ndescription: {long}\n---\n"), None);
    let mut cmd = ws.bare_agent();
    cmd.args(["--json", "skills", "check"]).arg(ws.skills());
    let (_, out, err) = run_outcome(cmd).await;
    let report: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap_or_else(|_| panic!("{out}{err}"));
    let codes = |name: &str| -> Vec<String> {
        report["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(codes("docs").contains(&"catalog-cost".to_string()), "{report}");
    assert!(!codes("weather").contains(&"catalog-cost".to_string()), "{report}");
}
