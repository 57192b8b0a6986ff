//! Many skills: a bounded catalog per request, `search_skills` for the rest, the user told once,
//! and optional pre-activation of a clear winner.

use crate::common::*;
use serde_json::json;

const TOPICS: [&str; 6] = [
    "pdf files",
    "kubernetes pods",
    "csv tables",
    "calendar events",
    "audio clips",
    "git history",
];

fn many_skills(ws: &Workspace, n: usize) {
    for i in 0..n {
        let topic = TOPICS[i % TOPICS.len()];
        let name = format!("{}-{i}", topic.split(' ').next().unwrap());
        ws.skill(&name, &format!("---\nname: {name}\ndescription: Works with {topic}, variant {i}, for everyday tasks.\n---\nBODY-{name}\n"), None);
    }
    ws.skill("invoice-sender", "---\nname: invoice-sender\ndescription: Emails overdue invoices to customers with a polite reminder.\n---\nINVOICE-BODY\n", None);
}

/// The catalog lines of a system prompt: the `- name: description` lines of its skills section.
fn catalog_lines(system: &str) -> Vec<&str> {
    let start = system.find("Skills (name: description):").unwrap();
    let end = system.find("How to work:").unwrap();
    system[start..end].lines().filter(|l| l.starts_with("- ")).collect()
}

#[tokio::test]
async fn over_budget_the_catalog_is_bounded_relevant_and_searchable() {
    let ws = Workspace::new();
    many_skills(&ws, 300);
    let mock = MockLlm::start(vec![
        tool("search_skills", json!({"query": "overdue invoices reminder"})),
        tool("activate_skill", json!({"name": "invoice-sender"})),
        text("I can send those reminders."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_CATALOG_BUDGET", "2048")
        .args(["--once", "remind customers about overdue invoices"]);
    let out = run_output(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("AGENT_CATALOG_BUDGET").count(), 1, "told once: {stderr}");
    assert!(stderr.contains("301 skills"), "{stderr}");

    let reqs = mock.requests().await;
    let system = &contents(&reqs[0], "system")[0];
    let listed: usize = catalog_lines(system).iter().map(|l| l.len() + 1).sum();
    assert!(listed <= 2048, "catalog is {listed} bytes");
    assert_eq!(
        catalog_lines(system)[0].split(':').next().unwrap(),
        "- invoice-sender",
        "most relevant first"
    );
    assert!(system.contains("more skills not listed here"), "{system}");
    let tool_names: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tool_names.contains(&"search_skills"));
    assert!(
        reqs[0]["tools"][0]["function"]["parameters"]["properties"]["name"]
            .get("enum")
            .is_none()
    );
    // Everything but the catalog is a fixed size: the file tools' schemas (terse, checked
    // here) and the rest as before them.
    let file_tools: usize = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| FULL_TOOLS[3..].contains(&t["function"]["name"].as_str().unwrap()))
        .map(|t| t.to_string().len() + 1)
        .sum();
    assert!(file_tools < 1400, "file tool schemas: {file_tools} B");
    assert!(mock.raw_requests().await[0].body.len() - file_tools < 2048 + 3000);

    assert!(contents(&reqs[1], "tool")[0].starts_with("- invoice-sender: Emails overdue invoices"));
    assert!(contents(&reqs[2], "tool")[1].contains("INVOICE-BODY"));
}

#[tokio::test]
async fn under_budget_every_skill_is_listed_without_search() {
    let ws = Workspace::new();
    many_skills(&ws, 5);
    let mock = MockLlm::start(vec![text("ok")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hi"]);
    let out = run_output(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("AGENT_CATALOG_BUDGET"));
    let reqs = mock.requests().await;
    assert_eq!(catalog_lines(&contents(&reqs[0], "system")[0]).len(), 6);
    assert_eq!(tool_names(&reqs[0]), FULL_TOOLS);
}

#[tokio::test]
async fn a_clear_winner_is_preactivated_when_enabled() {
    let ws = Workspace::new();
    many_skills(&ws, 12);
    let mock = MockLlm::start(vec![
        tool("run_command", json!({"command": "echo sent"})),
        text("Reminders sent."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_PREACTIVATE", "1")
        .args(["--once", "email the overdue invoices reminder", "--yes"]);
    let out = run_output(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("skill invoice-sender"), "{stderr}");
    let reqs = mock.requests().await;
    assert_eq!(reqs.len(), 2, "two model calls instead of three");
    assert!(
        contents(&reqs[0], "tool")[0].contains("INVOICE-BODY"),
        "the first request already has the body"
    );
    assert!(contents(&reqs[1], "tool").last().unwrap().contains("sent"));
}

#[tokio::test]
async fn no_preactivation_without_a_clear_winner_or_by_default() {
    let ws = Workspace::new();
    many_skills(&ws, 12);
    for (env, query) in [("1", "work with files"), ("0", "email the overdue invoices reminder")] {
        let mock = MockLlm::start(vec![text("ok")]).await;
        let mut cmd = ws.agent(&mock);
        cmd.env("AGENT_PREACTIVATE", env).args(["--once", query]);
        let out = run_output(cmd).await;
        assert_eq!(out.status.code(), Some(0));
        assert!(contents(&mock.requests().await[0], "tool").is_empty(), "{env} {query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_budget_a_chat_keeps_its_request_prefix_and_appends_what_a_later_request_needs() {
    use crate::common::pty::*;
    let ws = std::sync::Arc::new(Workspace::new());
    many_skills(&ws, 300);
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("First."), text("Second.")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat_with_env(&w, &m, &[("AGENT_CATALOG_BUDGET", "2048")], &[]);
        type_line(&mut p, "list the pods of kubernetes");
        p.exp_string("First.").unwrap();
        type_line(&mut p, "remind customers about overdue invoices");
        p.exp_string("Second.").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    // Chat requests only (the chat also asks /v1/models for the context window).
    let reqs = mock.chat_requests().await;
    assert_eq!(reqs.len(), 2);
    let (first, second) = (&reqs[0], &reqs[1]);
    assert_eq!(first["tools"], second["tools"], "the tool schemas stay the same");
    let earlier = first["messages"].as_array().unwrap();
    let later = second["messages"].as_array().unwrap();
    assert_eq!(
        &later[..earlier.len()],
        &earlier[..],
        "every earlier message, system first, is unchanged"
    );
    let system = &contents(first, "system")[0];
    assert!(
        catalog_lines(system)[0].starts_with("- kubernetes-"),
        "ranked for the first request"
    );
    assert!(
        !system.contains("invoice-sender"),
        "the invoice skill is not in the first catalog"
    );
    // The second request's relevant skill is noted at the end of its user message; the user's
    // words stay theirs in /history.
    let tail = &later[earlier.len()..];
    assert_eq!(tail.len(), 2, "the answer, then the new user message: {tail:?}");
    let asked = tail[1]["content"].as_str().unwrap();
    let (words, note) = asked.split_once("\n\n").unwrap();
    assert_eq!(words, "remind customers about overdue invoices");
    assert!(note.starts_with("[agent: skills not in the list above"), "{note}");
    assert!(note.contains("\n- invoice-sender: Emails overdue invoices"), "{note}");
    assert!(note.lines().count() <= 4, "three suggestions at most: {note}");
    // The session keeps the note apart from the user's words, and a resumed session sends both
    // again as they were sent.
    let files = ws.session_files();
    let stored: Vec<_> = crate::common::sessions::records(&files[0])
        .into_iter()
        .filter(|r| r["role"] == "user")
        .collect();
    assert_eq!(stored[1]["content"], "remind customers about overdue invoices");
    assert_eq!(stored[1]["note"].as_str(), Some(note));
    let resumed = MockLlm::start(vec![text("Third.")]).await;
    let mut cmd = ws.agent(&resumed);
    cmd.env("AGENT_CATALOG_BUDGET", "2048")
        .args(["--continue", "--once", "thanks"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let again = resumed.chat_requests().await;
    assert!(
        contents(&again[0], "user").iter().any(|c| c == asked),
        "{:?}",
        contents(&again[0], "user")
    );
}
