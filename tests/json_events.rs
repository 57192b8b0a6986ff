//! Every `--json` line a run emits is checked against the field tables of `docs/events.md`, and
//! so is every example in that document.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use serde_json::{Value, json};

#[derive(Debug)]
struct Field {
    types: Vec<String>,
    required: bool,
}

type Spec = BTreeMap<String, BTreeMap<String, Field>>;

/// Field tables per event type (`""` holds the fields common to all), and the JSON examples.
fn read_doc() -> (Spec, Vec<Value>) {
    let doc = std::fs::read_to_string(repo_path("docs/events.md")).unwrap();
    let mut spec: Spec = BTreeMap::new();
    let mut examples = Vec::new();
    let mut section = String::new();
    let mut in_json = false;
    for line in doc.lines() {
        if let Some(name) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            section = name.to_string();
        } else if line.starts_with("```json") {
            in_json = true;
        } else if line.starts_with("```") {
            in_json = false;
        } else if in_json {
            examples.push(serde_json::from_str(line).unwrap_or_else(|e| panic!("bad example {line}: {e}")));
        } else if let Some(rest) = line.strip_prefix("| `") {
            let cells: Vec<&str> = rest.split('|').map(str::trim).collect();
            let name = cells[0].trim_end_matches('`').to_string();
            let types = cells[1].split(" or ").map(str::to_string).collect();
            let required = cells[2] == "required";
            spec.entry(section.clone())
                .or_default()
                .insert(name, Field { types, required });
        }
    }
    (spec, examples)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn validate(spec: &Spec, event: &Value) -> Result<String, String> {
    let obj = event.as_object().ok_or("not an object")?;
    let kind = obj.get("type").and_then(Value::as_str).ok_or("no type")?;
    let fields = spec.get(kind).ok_or(format!("undocumented type {kind:?}"))?;
    let common = &spec[""];
    for (name, value) in obj {
        let field = fields
            .get(name)
            .or_else(|| common.get(name))
            .ok_or(format!("{kind}: undocumented field {name:?}"))?;
        if !field.types.iter().any(|t| t == type_name(value)) {
            return Err(format!("{kind}.{name}: {} is not {:?}", type_name(value), field.types));
        }
    }
    for (name, field) in fields.iter().chain(common) {
        if field.required && !obj.contains_key(name) {
            return Err(format!("{kind}: missing required field {name:?}"));
        }
    }
    if obj["v"] != 1 {
        return Err("v is not 1".into());
    }
    Ok(kind.to_string())
}

#[test]
fn the_documented_examples_match_the_tables() {
    let (spec, examples) = read_doc();
    assert_eq!(spec.len(), 11, "10 types plus the common fields: {:?}", spec.keys());
    let kinds: BTreeSet<String> = examples.iter().map(|e| validate(&spec, e).unwrap()).collect();
    assert_eq!(kinds.len(), 10, "one example per type");
}

async fn json_run(ws: &Workspace, mock: &MockLlm, args: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let mut cmd = ws.agent(mock);
    cmd.arg("--json").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_output(cmd).await;
    assert!(
        out.stderr.is_empty() || !String::from_utf8_lossy(&out.stderr).contains("error"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

#[tokio::test]
async fn every_line_of_real_runs_validates() {
    let (spec, _) = read_doc();
    let ws = Workspace::new();
    ws.skill(
        "echo",
        "# Echo\n\nEchoes its arguments back.\n",
        Some("#!/bin/sh\necho \"$@\"\n"),
    );
    let mut seen = BTreeSet::new();
    let mut check = |events: Vec<Value>| {
        assert!(!events.is_empty());
        for e in &events {
            seen.insert(validate(&spec, e).unwrap_or_else(|err| panic!("{err}: {e}")));
        }
        events
    };

    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "echo"})),
        tools(&[
            ("run_command", json!({"command": "./run.sh hi"})),
            ("run_command", json!({"command": "rm -rf ~"})),
        ]),
        text("said hi"),
    ])
    .await;
    let events = check(json_run(&ws, &mock, &["--once", "say hi", "--approve", "auto"], &[]).await);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"session"));
    assert_eq!(kinds.last(), Some(&"done"));

    let mock = MockLlm::start(vec![status(503, "busy"), text("ok")]).await;
    check(json_run(&ws, &mock, &["--once", "x"], &[("AGENT_RETRIES", "1")]).await);

    let mock = MockLlm::start(vec![status(401, r#"{"error":{"message":"bad key"}}"#)]).await;
    let events = check(json_run(&ws, &mock, &["--once", "x"], &[]).await);
    assert_eq!(events.last().unwrap()["exit_code"], 4);

    let mock = MockLlm::start(vec![]).await;
    let events = check(
        json_run(
            &ws,
            &mock,
            &["--once", "x", "--base-url", "https://example.invalid/v1"],
            &[("AGENT_API_KEY", "")],
        )
        .await,
    );
    assert_eq!(events.len(), 1, "a configuration error is a lone error line");
    assert_eq!(events[0]["code"], 3);

    let all = [
        "session",
        "skill_selected",
        "command_started",
        "command_finished",
        "command_denied",
        "message_delta",
        "message",
        "warning",
        "error",
        "done",
    ];
    for kind in all {
        assert!(seen.contains(kind), "no run emitted {kind}");
    }
}
