//! Every `--json` line a run emits is checked against the field tables of `docs/events.md`, and
//! so is every example in that document: events, and each subcommand's document.

use std::collections::BTreeSet;

use crate::common::events_doc::{EventsDoc, Part};
use crate::common::*;
use serde_json::{Value, json};

#[test]
fn the_documented_examples_match_the_tables() {
    let doc = EventsDoc::read();
    assert_eq!(doc.sections(Part::Events).len(), 21, "{:?}", doc.sections(Part::Events));
    assert!(doc.tables.contains_key(""), "the common fields");
    let mut events = BTreeSet::new();
    let mut documented = BTreeSet::new();
    for (section, example) in &doc.examples {
        if example.get("type").is_some() {
            let kind = doc.validate_typed(example).unwrap_or_else(|e| panic!("{e}: {example}"));
            assert_eq!(&kind, section, "an example stands under its own type");
            events.insert(kind);
        } else {
            doc.validate_document(section, example)
                .unwrap_or_else(|e| panic!("{e}: {example}"));
            documented.insert(section.clone());
        }
    }
    // `command`, `skill command` and `history entry` are items of `help` and `history`, not
    // types of their own.
    let typed = doc.sections(Part::Events).len() + doc.sections(Part::Chat).len() - 3;
    assert_eq!(
        events.len(),
        typed,
        "one example per event and chat reply type: {events:?}"
    );
    assert_eq!(documented.len(), 27, "one example per subcommand: {documented:?}");
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
    let doc = EventsDoc::read();
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
            seen.insert(doc.validate_typed(e).unwrap_or_else(|err| panic!("{err}: {e}")));
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

/// Run a subcommand with `--json`: (exit code, stdout lines parsed, stderr).
async fn document_run(ws: &Workspace, mock: &MockLlm, args: &[&str]) -> (i32, Vec<Value>, String) {
    let mut cmd = ws.agent(mock);
    cmd.arg("--json").args(args);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: not JSON: {l}: {e}")))
        .collect();
    (code, lines, stderr)
}

#[tokio::test]
async fn every_subcommand_prints_one_documented_document() {
    let doc = EventsDoc::read();
    let ws = Workspace::new();
    ws.skill(
        "weather",
        "---\nname: weather\ndescription: Current weather for a city; use for weather questions.\n---\nRun ./run.sh CITY\n",
        Some("#!/bin/sh\necho sunny\n"),
    );
    ws.skill("Odd", "---\nname: Odd\ndescription: x\ncolour: red\n---\nbody\n", None);
    // An untrusted folder's .env: the warning about it goes to stderr, never into the document.
    std::fs::write(ws.work().join(".env"), "SOME_SETTING=1\n").unwrap();
    let cases = ws.dir.path().join("cases.yaml");
    std::fs::write(&cases, "- prompt: weather in Oslo\n  expect_skill: weather\n").unwrap();
    let mock = MockLlm::start(vec![tool("activate_skill", json!({"name": "weather"}))]).await;
    let new_dir = ws.dir.path().join("new");
    let man_dir = ws.dir.path().join("man1");
    // A skill outside every root, to install, trust and remove.
    let source = ws.dir.path().join("notes");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(
        source.join("SKILL.md"),
        "---\nname: notes\ndescription: Take notes for the user in a file.\n---\nWrite them down.\n",
    )
    .unwrap();
    ws.write_session(
        "20261201-112233-k3f9",
        &[json!({"type":"message","role":"user","content":"weather in Tokyo"})],
    );
    let export = ws.dir.path().join("tokyo.html");
    let runs: [(&str, Vec<&str>); 25] = [
        ("sessions list", vec!["sessions", "list"]),
        (
            "sessions export",
            vec!["sessions", "export", "20261201-11", "-o", export.to_str().unwrap()],
        ),
        ("sessions rm", vec!["sessions", "rm", "20261201-112233"]),
        ("skills list", vec!["skills", "list"]),
        ("skills show", vec!["skills", "show", "Odd"]),
        ("skills search", vec!["skills", "search", "weather", "city"]),
        ("skills check", vec!["skills", "check"]),
        ("skills audit", vec!["skills", "audit"]),
        (
            "skills new",
            vec!["skills", "new", "my-tool", "--dir", new_dir.to_str().unwrap()],
        ),
        (
            "skills eval",
            vec!["skills", "eval", cases.to_str().unwrap(), "--runs", "1"],
        ),
        ("man --dir", vec!["man", "--dir", man_dir.to_str().unwrap()]),
        ("sandbox status", vec!["sandbox", "status"]),
        ("skills add", vec!["skills", "add", source.to_str().unwrap()]),
        ("skills outdated", vec!["skills", "outdated"]),
        ("skills update", vec!["skills", "update"]),
        ("skills verify", vec!["skills", "verify"]),
        (
            "skills keys add",
            vec![
                "skills",
                "keys",
                "add",
                "RWQBAgMEBQYHCAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4",
            ],
        ),
        ("trust --skill", vec!["trust", "--skill", "notes"]),
        ("skills remove", vec!["skills", "remove", "notes"]),
        // A server that is never started: listing it fails, and says so in the document.
        (
            "mcp add",
            vec!["mcp", "add", "nothing", "--", "/nonexistent/mcp-server"],
        ),
        ("mcp list", vec!["mcp", "list"]),
        ("mcp tools", vec!["mcp", "tools"]),
        ("mcp remove", vec!["mcp", "remove", "nothing"]),
        ("hooks list", vec!["hooks", "list"]),
        // Last: trusting the folder silences the warning the others check for.
        ("trust", vec!["trust"]),
    ];
    let mut covered = BTreeSet::new();
    for (section, args) in runs {
        let (code, lines, stderr) = document_run(&ws, &mock, &args).await;
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(lines.len(), 1, "{args:?}: one document on stdout: {lines:?}");
        doc.validate_document(section, &lines[0])
            .unwrap_or_else(|e| panic!("{e}: {}", lines[0]));
        if args[0] == "skills" {
            assert!(stderr.contains("warning: ignoring"), "{args:?}: {stderr}");
        }
        covered.insert(section);
    }
    // Two that need a model of their own: drafting cases and tuning a description.
    let proposals = json!([{"query": "is it raining in Oslo", "should_trigger": true}]).to_string();
    let drafter = MockLlm::start(vec![text(&proposals)]).await;
    let tuner = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "weather"})),
        text("<description>Current weather for a city.</description>"),
        tool("activate_skill", json!({"name": "weather"})),
    ])
    .await;
    let cases_arg = cases.to_str().unwrap();
    for (section, mock, args) in [
        (
            "skills eval --draft",
            &drafter,
            vec!["skills", "eval", "--draft", "weather"],
        ),
        (
            "skills tune",
            &tuner,
            vec![
                "skills",
                "tune",
                "weather",
                "--cases",
                cases_arg,
                "--runs",
                "1",
                "--iterations",
                "1",
            ],
        ),
    ] {
        let (code, lines, stderr) = document_run(&ws, mock, &args).await;
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(lines.len(), 1, "{args:?}: one document on stdout: {lines:?}");
        doc.validate_document(section, &lines[0])
            .unwrap_or_else(|e| panic!("{e}: {}", lines[0]));
        covered.insert(section);
    }
    let documented: BTreeSet<&str> = doc
        .sections(Part::Subcommands)
        .into_iter()
        .filter(|s| !doc.tables[*s].is_empty() && doc.examples.iter().any(|(e, _)| e == s))
        .collect();
    assert_eq!(covered, documented, "every documented subcommand is run");

    // A failure is a lone error event, also for subcommands.
    let (code, lines, _) = document_run(&ws, &mock, &["skills", "show", "nope"]).await;
    assert_eq!((code, lines.len()), (2, 1));
    assert_eq!(doc.validate_typed(&lines[0]).unwrap(), "error");
}
