//! Invoking a skill by hand through the real binary: `--skill deploy staging` and `/deploy
//! staging` in the chat (pty) substitute `$ARGUMENTS`/`$0`/`$1`; a body without placeholders gets
//! the arguments as the request; a `disable-model-invocation` skill is absent from the catalog
//! and the `activate_skill` enum yet invocable; an unknown `--skill` is exit 3 with the nearest
//! names; and a SKILL.md edited during a chat is what the next turn sees.

use std::sync::Arc;

use crate::common::pty::*;
use crate::common::*;
use serde_json::Value;

const DEPLOY: &str = "---\nname: deploy\ndescription: Deploy the application to an environment.\n\
argument-hint: \"[environment] [region]\"\ndisable-model-invocation: true\n---\n\
Deploy to $ARGUMENTS[0] now: run ./run.sh $0 $1 (all: $ARGUMENTS).\n";

fn deploy(ws: &Workspace) {
    ws.skill("deploy", DEPLOY, Some("#!/bin/sh\necho \"deployed to $1 in $2\"\n"));
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city; use for weather questions.\n---\nRun ./run.sh CITY\n",
        Some("#!/bin/sh\necho sunny\n"),
    );
}

fn catalog_and_enum(request: &Value) -> (String, Vec<String>) {
    let system = contents(request, "system").join("\n");
    let names = request["tools"][0]["function"]["parameters"]["properties"]["name"]["enum"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    (system, names)
}

#[tokio::test]
async fn skill_flag_substitutes_arguments_and_hidden_skills_stay_out_of_the_catalog() {
    let ws = Workspace::new();
    deploy(&ws);
    let mock = MockLlm::start(vec![
        tool(
            "run_command",
            serde_json::json!({"command": "./run.sh staging eu-west"}),
        ),
        text("Deployed."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--skill", "deploy", "staging eu-west"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Deployed."), "{out}");
    let requests = mock.chat_requests().await;
    let first = &requests[0];
    let activation = contents(first, "tool").join("\n");
    assert!(
        activation.contains("Deploy to staging now: run ./run.sh staging eu-west (all: staging eu-west)."),
        "{activation}"
    );
    let user = contents(first, "user");
    assert_eq!(user.len(), 1);
    assert!(user[0].contains("invoked the skill deploy by hand"), "{user:?}");
    let (system, names) = catalog_and_enum(first);
    assert!(
        !system.contains("- deploy:"),
        "a disable-model-invocation skill is not in the catalog"
    );
    assert!(system.contains("- weather:"));
    assert_eq!(names, ["weather"]);
    assert!(
        last_tool_result(&requests[1]).contains("deployed to staging in eu-west"),
        "{}",
        requests[1]
    );
}

#[tokio::test]
async fn the_model_cannot_activate_a_skill_only_people_invoke() {
    let ws = Workspace::new();
    deploy(&ws);
    let mock = MockLlm::start(vec![
        tool("activate_skill", serde_json::json!({"name": "deploy"})),
        text("ok"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "deploy it"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    let result = last_tool_result(&requests[1]);
    assert!(
        result.contains("invoked only by the user") && result.contains("/deploy"),
        "{result}"
    );
}

#[tokio::test]
async fn without_placeholders_the_arguments_are_the_request_and_unknown_names_exit_3() {
    let ws = Workspace::new();
    deploy(&ws);
    let mock = MockLlm::start(vec![text("It is sunny.")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--skill", "weather", "--once", "Oslo tomorrow"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    assert_eq!(contents(&requests[0], "user"), ["Oslo tomorrow"]);
    assert!(contents(&requests[0], "tool")[0].contains("Run ./run.sh CITY"));

    let mut cmd = ws.agent(&mock);
    cmd.args(["--skill", "wether", "Oslo"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("did you mean weather"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_name_in_the_chat_substitutes_and_an_edit_is_seen_by_the_next_turn() {
    let ws = Arc::new(Workspace::new());
    deploy(&ws);
    let mock = Arc::new(MockLlm::start(vec![text("Deploying to staging."), text("Sunny again.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &[]);
        type_line(&mut p, "/help");
        p.exp_string("/deploy [environment] [region]").unwrap();
        type_line(&mut p, "/deploy staging");
        p.exp_string("Deploying to staging.").unwrap();
        // Edited on disk while the chat runs: the next turn's catalog has the new description.
        std::fs::write(
            w.skills().join("weather/SKILL.md"),
            "---\nname: weather\ndescription: Forecasts for any city, edited mid-chat.\n---\nRun ./run.sh CITY\n",
        )
        .unwrap();
        type_line(&mut p, "and the weather?");
        p.exp_string("Sunny again.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let requests = mock.chat_requests().await;
    let activation = contents(&requests[0], "tool").join("\n");
    assert!(
        activation.contains("Deploy to staging now: run ./run.sh staging  (all: staging)."),
        "{activation}"
    );
    let system = contents(&requests[1], "system").join("\n");
    assert!(system.contains("edited mid-chat"), "{system}");
}
