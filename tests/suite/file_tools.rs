//! File tools in the working folder (issue 34 item 1), through the real binary and the real
//! sandbox: `Read` with offsets (a binary file described), `Write`, `Edit` (absent or repeated
//! strings refused), `Glob`, `Grep`; confined to the working folder (reads also the skill's), never
//! into `.git` or a link out; writes under `auto` only where the sandbox is enforced, denied
//! without a terminal otherwise; an untrusted project skill writes nothing.

use crate::common::*;
use serde_json::{Value, json};

const XML_SKILL: &str =
    "---\nname: xml-edit\ndescription: Edits the XML of a document by hand.\n---\nRead doc.xml, then Edit it.\n";

fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// One-shot of `calls` (each a tool call) then an answer; the results of the calls in order.
async fn calls(ws: &Workspace, calls: &[(&str, Value)], args: &[&str]) -> (i32, Vec<String>, Vec<Value>) {
    let mut replies = vec![tool("activate_skill", json!({"name": "xml-edit"}))];
    replies.extend(calls.iter().map(|(name, args)| tool(name, args.clone())));
    replies.push(text("done"));
    let mock = MockLlm::start(replies).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "--once", "edit the document"]).args(args);
    let (code, out, _) = run_outcome(cmd).await;
    let requests = mock.requests().await;
    let results = requests.iter().skip(2).map(last_tool_result).collect();
    (code, results, events(&out))
}

#[tokio::test]
async fn read_edit_write_glob_and_grep_work_in_the_working_folder() {
    if !landlock(1) {
        return;
    }
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    std::fs::write(
        ws.work().join("doc.xml"),
        "<doc>\n  <title>Old</title>\n  <p>one</p>\n  <p>one</p>\n</doc>\n",
    )
    .unwrap();
    std::fs::write(ws.work().join("pic.png"), b"\x89PNG\r\n\x1a\n\0\0\0binary").unwrap();
    let (code, results, events) = calls(
        &ws,
        &[
            ("Read", json!({"file_path": "doc.xml", "offset": 2, "limit": 1})),
            (
                "Edit",
                json!({"file_path": "doc.xml", "old_string": "<title>Old</title>", "new_string": "<title>New</title>"}),
            ),
            (
                "Edit",
                json!({"file_path": "doc.xml", "old_string": "<p>one</p>", "new_string": "<p>two</p>"}),
            ),
            (
                "Edit",
                json!({"file_path": "doc.xml", "old_string": "<p>missing</p>", "new_string": "x"}),
            ),
            (
                "Write",
                json!({"file_path": "out/input.json", "content": "{\"a\": 1}\n"}),
            ),
            ("Glob", json!({"pattern": "**/*.json"})),
            ("Grep", json!({"pattern": "title", "glob": "*.xml"})),
            ("Read", json!({"file_path": "pic.png"})),
        ],
        &["--approve", "auto"],
    )
    .await;
    assert_eq!(code, 0, "{results:?}");
    assert_eq!(
        results[0],
        "     2\t  <title>Old</title>\n(lines 2-2 of 5; read on with offset 3)\n"
    );
    assert!(results[1].contains("1 replacement"), "{}", results[1]);
    assert!(results[2].contains("occurs 2 times"), "not unique: {}", results[2]);
    assert!(results[3].contains("not found"), "{}", results[3]);
    assert!(results[4].starts_with("created out/input.json"), "{}", results[4]);
    assert_eq!(results[5], "out/input.json\n");
    assert_eq!(results[6], "doc.xml:2:  <title>New</title>\n");
    assert!(
        results[7].contains("binary file") && results[7].contains("PNG"),
        "{}",
        results[7]
    );
    assert!(
        std::fs::read_to_string(ws.work().join("doc.xml"))
            .unwrap()
            .contains("<title>New</title>")
    );
    assert_eq!(
        std::fs::read_to_string(ws.work().join("out/input.json")).unwrap(),
        "{\"a\": 1}\n"
    );
    let written: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "file_tool" && e["tool"] == "Write")
        .collect();
    assert_eq!(written[0]["path"], "out/input.json");
}

#[tokio::test]
async fn file_tools_never_reach_outside_or_into_places_that_run_later() {
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    let outside = ws.dir.path().join("outside.txt");
    std::fs::write(&outside, "SECRET-OUTSIDE\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.work().join("link.txt")).unwrap();
    std::fs::create_dir_all(ws.work().join(".git/hooks")).unwrap();
    let (_, results, _) = calls(
        &ws,
        &[
            ("Read", json!({"file_path": "../outside.txt"})),
            ("Read", json!({"file_path": "link.txt"})),
            ("Write", json!({"file_path": "link.txt", "content": "x"})),
            (
                "Write",
                json!({"file_path": ".git/hooks/post-checkout", "content": "#!/bin/sh\ntouch /tmp/pwned\n"}),
            ),
            ("Write", json!({"file_path": "sub/.envrc", "content": "x"})),
            ("Grep", json!({"pattern": "SECRET", "path": ".."})),
            (
                "Write",
                json!({"file_path": ws.skills().join("xml-edit/SKILL.md"), "content": "x"}),
            ),
        ],
        &["--yes"],
    )
    .await;
    for (i, r) in results.iter().enumerate() {
        assert!(
            r.starts_with("error:") || r.starts_with("denied:"),
            "call {i} was not refused: {r}"
        );
        assert!(!r.contains("SECRET-OUTSIDE"), "{r}");
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "SECRET-OUTSIDE\n");
    assert!(!ws.work().join(".git/hooks/post-checkout").exists());
    assert!(!ws.work().join("sub/.envrc").exists());
}

#[tokio::test]
async fn writes_follow_the_approval_policy() {
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    let write = [("Write", json!({"file_path": "a.txt", "content": "x"}))];
    // `no` writes nothing.
    let (code, results, _) = calls(&ws, &write, &["--approve", "no"]).await;
    assert_eq!(code, 6);
    assert!(results[0].starts_with("denied:"), "{}", results[0]);
    assert!(!ws.work().join("a.txt").exists());
    // Without the sandbox, `auto` needs a grant; the denial names what would allow it.
    let (code, results, events) = calls(&ws, &write, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 6);
    assert!(results[0].contains("allowed-tools"), "{}", results[0]);
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "command_denied" && e["command"] == "Write a.txt")
    );
    assert!(!ws.work().join("a.txt").exists());
    ws.skill(
        "xml-edit",
        &XML_SKILL.replace("---\nRead", "allowed-tools: Write\n---\nRead"),
        None,
    );
    let (code, _, _) = calls(&ws, &write, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 0, "granted");
    assert!(ws.work().join("a.txt").exists());
}

#[tokio::test]
async fn an_untrusted_project_skill_writes_nothing() {
    let ws = Workspace::new();
    let dir = ws.work().join(".agents/skills/xml-edit");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), XML_SKILL).unwrap();
    let (code, results, _) = calls(
        &ws,
        &[("Write", json!({"file_path": "a.txt", "content": "x"}))],
        &["--yes"],
    )
    .await;
    assert_eq!(code, 6);
    assert!(results[0].contains("is not trusted"), "{}", results[0]);
    assert!(!ws.work().join("a.txt").exists());
}
