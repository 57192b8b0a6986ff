//! Declared needs (docs/skills.md, "Declaring what a skill needs") through the real binary: a skill
//! whose `requires.env` names a variable the child environment lacks, or whose `requires.bins`
//! names a program not on `PATH`, says so on activation and before any command runs (to the model
//! and on stderr, with where to set it); `skill.json`'s `env[]` with `required: true` counts the
//! same; `skills show` marks each ✓/✗.

use crate::common::*;
use serde_json::{Value, json};

/// A skill needing `DEPLOY_TOKEN` and the program `definitely-not-installed-xyz`, whose script
/// leaves a canary when it runs.
fn needy(ws: &Workspace, canary: &std::path::Path) {
    ws.skill(
        "deploy",
        "---\nname: deploy\ndescription: Deploy the application to an environment.\n\
requires:\n  env: [DEPLOY_TOKEN]\n  bins: [sh, definitely-not-installed-xyz]\n---\nRun ./run.sh ENV\n",
        Some(&format!("#!/bin/sh\ntouch '{}'\necho deployed\n", canary.display())),
    );
}

#[tokio::test]
async fn missing_variables_and_programs_are_named_before_any_command_runs() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("ran");
    needy(&ws, &canary);
    let mock = MockLlm::start(activate_run_answer("deploy", "./run.sh staging", "I could not deploy.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "deploy to staging"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "a command that did not run: {err}");
    assert!(!canary.exists(), "the command ran although its needs are not met");
    assert!(
        err.contains("DEPLOY_TOKEN") && err.contains("~/.config/agent/.env"),
        "{err}"
    );
    assert!(err.contains("definitely-not-installed-xyz"), "{err}");
    let requests = mock.requests().await;
    let activation = last_tool_result(&requests[1]);
    assert!(
        activation.contains("DEPLOY_TOKEN") && activation.contains("cannot run yet"),
        "named on activation: {activation}"
    );
    let refusal = last_tool_result(&requests[2]);
    assert!(
        refusal.contains("DEPLOY_TOKEN") && refusal.contains("definitely-not-installed-xyz"),
        "{refusal}"
    );
    assert!(
        !refusal.contains(" sh,") && !refusal.contains("program sh"),
        "sh is on PATH: {refusal}"
    );
}

#[tokio::test]
async fn set_in_the_users_env_file_the_variable_counts_and_show_marks_each() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("ran");
    needy(&ws, &canary);
    let config = ws.home().join(".config/agent");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join(".env"), "DEPLOY_TOKEN=from-user-env-0123\n").unwrap();
    let mut cmd = ws.bare_agent();
    cmd.args(["--json", "skills", "show", "deploy", "--skills-dir"])
        .arg(ws.skills());
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let shown: Value = serde_json::from_str(&out).unwrap();
    let needs: Vec<(String, bool)> = shown["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["name"].as_str().unwrap().to_string(), n["met"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        needs,
        [
            ("DEPLOY_TOKEN".to_string(), true),
            ("sh".to_string(), true),
            ("definitely-not-installed-xyz".to_string(), false)
        ]
    );
    let mut cmd = ws.bare_agent();
    cmd.args(["skills", "show", "deploy", "--skills-dir"]).arg(ws.skills());
    let (_, out, _) = run_outcome(cmd).await;
    assert!(out.contains("✓ environment variable DEPLOY_TOKEN"), "{out}");
    assert!(out.contains("✗ program definitely-not-installed-xyz"), "{out}");

    let mut cmd = ws.bare_agent();
    cmd.args(["--json", "skills", "check"]).arg(ws.skills());
    let (_, out, _) = run_outcome(cmd).await;
    let report: Value = serde_json::from_str(&out).unwrap();
    let unmet: Vec<&Value> = report["skills"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "unmet-requirement")
        .collect();
    assert_eq!(unmet.len(), 1, "{report}");
    assert!(
        unmet[0]["message"]
            .as_str()
            .unwrap()
            .contains("definitely-not-installed-xyz")
    );
}

#[tokio::test]
async fn a_required_skill_json_variable_is_a_need_too() {
    let ws = Workspace::new();
    let dir = ws.skill(
        "weather",
        "# Weather\n\n## Description\nCurrent weather for a city, for weather questions.\n",
        Some("#!/bin/sh\necho sunny\n"),
    );
    std::fs::write(
        dir.join("skill.json"),
        json!({"name": "weather", "env": [{"name": "WEATHER_KEY", "required": true}, {"name": "OPTIONAL_ONE", "required": false}]})
            .to_string(),
    )
    .unwrap();
    let mock = MockLlm::start(activate_run_answer("weather", "./run.sh Oslo", "no weather")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--once", "weather in Oslo"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "{err}");
    let refusal = last_tool_result(&mock.requests().await[2]);
    assert!(
        refusal.contains("WEATHER_KEY") && !refusal.contains("OPTIONAL_ONE"),
        "{refusal}"
    );

    let mock = MockLlm::start(activate_run_answer("weather", "./run.sh Oslo", "sunny")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("WEATHER_KEY", "k")
        .args(["--approve", "auto", "--once", "weather in Oslo"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "set in the environment, it runs: {err}");
}
