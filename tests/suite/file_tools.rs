//! File tools in the working folder (issue 34 item 1), through the real binary and the real
//! sandbox: `Read` with offsets (a binary file described, a big file read in parts), `Write`,
//! `Edit` (absent or repeated strings refused), `Glob`, `Grep`; confined to the working folder
//! (reads also the skill's), never into `.git`, `.envrc` or through a link out; writes under
//! `auto` only where the sandbox is enforced, denied without a terminal otherwise; an untrusted
//! project skill writes nothing. An office skill in the shape of the public docx skills is
//! followed end to end; events, sessions and cassettes carry the calls.

use crate::common::events_doc::EventsDoc;
use crate::common::pty::{blocking, chat, ctrl_d_exits_zero, type_line};
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
    let requests = mock.chat_requests().await;
    let results = requests.iter().skip(2).map(last_tool_result).collect();
    (code, results, events(&out))
}

#[tokio::test]
async fn read_edit_write_glob_and_grep_work_in_the_working_folder() {
    require_kernel!(kernel::landlock(1));
    let ws = Workspace::new();
    let skill = ws.skill("xml-edit", XML_SKILL, None);
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(skill.join("references/guide.md"), "# Guide\nKeep the tags.\n").unwrap();
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
            ("Read", json!({"file_path": "references/guide.md", "offset": 2})),
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
    // A relative path found only in the skill's folder is read there (its own references).
    assert_eq!(results[8], "     2\tKeep the tags.\n");
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
    std::fs::write(ws.work().join(".git/config"), "[core]\n").unwrap();
    let (code, results, events) = calls(
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
            ("Read", json!({"file_path": outside.display().to_string()})),
            (
                "Glob",
                json!({"pattern": "*", "path": ws.dir.path().display().to_string()}),
            ),
            (
                "Edit",
                json!({"file_path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = /tmp"}),
            ),
            (
                "Write",
                json!({"file_path": ws.skills().join("xml-edit/SKILL.md"), "content": "x"}),
            ),
        ],
        &["--yes", "--max-steps", "20"],
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
    assert_eq!(
        std::fs::read_to_string(ws.work().join(".git/config")).unwrap(),
        "[core]\n"
    );
    // A write into a place that runs later is a denial the user sees (exit 6), whatever the
    // policy; a path elsewhere is an error the model corrects.
    assert_eq!(code, 6);
    let denied: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "command_denied")
        .map(|e| e["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        denied,
        ["Write .git/hooks/post-checkout", "Write sub/.envrc", "Edit .git/config"]
    );
    // Each refusal says what to do instead.
    assert!(results[0].contains("outside the working folder"), "{}", results[0]);
    assert!(results[3].contains("never write there"), "{}", results[3]);
}

#[tokio::test]
async fn writes_follow_the_approval_policy() {
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    std::fs::write(ws.work().join("notes.txt"), "kept\n").unwrap();
    let write = [("Write", json!({"file_path": "a.txt", "content": "x"}))];
    // `no` writes nothing, and reading needs no approval.
    let read_then_write = [
        ("Read", json!({"file_path": "notes.txt"})),
        ("Write", json!({"file_path": "a.txt", "content": "x"})),
    ];
    let (code, results, _) = calls(&ws, &read_then_write, &["--approve", "no"]).await;
    assert_eq!(code, 6);
    assert_eq!(results[0], "     1\tkept\n");
    assert!(results[1].starts_with("denied:"), "{}", results[1]);
    assert!(!ws.work().join("a.txt").exists());
    // Without the sandbox, `auto` needs a grant; the denial names what would allow it.
    let (code, results, events) = calls(&ws, &write, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 6);
    assert!(
        results[0].contains("rerun without --sandbox off, or grant `Write`"),
        "{}",
        results[0]
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "command_denied" && e["command"] == "Write a.txt")
    );
    assert!(!ws.work().join("a.txt").exists());
    // A grant names its tool and, in parentheses, the paths it covers.
    ws.skill(
        "xml-edit",
        &XML_SKILL.replace("---\nRead", "allowed-tools: Read Edit Write(*.json)\n---\nRead"),
        None,
    );
    let (code, _, _) = calls(&ws, &write, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 6, "Write(*.json) does not cover a.txt");
    assert!(!ws.work().join("a.txt").exists());
    let json_write = [("Write", json!({"file_path": "out/a.json", "content": "{}"}))];
    let (code, _, _) = calls(&ws, &json_write, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 0, "granted");
    assert!(ws.work().join("out/a.json").exists());
}

/// A skill-creator makes a skill in the project's `./skills` with its script, then edits its
/// SKILL.md with the file tools, as commands may: folder trust, not the file tools, guards what
/// runs from there later (the next run asks about the changed folder first).
#[tokio::test]
async fn a_new_skill_in_the_projects_skill_folder_is_edited_like_the_rest_of_the_work() {
    require_kernel!(kernel::landlock(1));
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    let md = "skills/csv-stats/SKILL.md";
    let (code, results, events) = calls(
        &ws,
        &[
            (
                "Write",
                json!({"file_path": md, "content": "---\nname: csv-stats\ndescription: TODO\n---\n"}),
            ),
            (
                "Edit",
                json!({"file_path": md, "old_string": "TODO", "new_string": "Column statistics of a CSV file."}),
            ),
        ],
        &["--approve", "auto"],
    )
    .await;
    assert_eq!(code, 0, "{results:?}");
    assert!(!events.iter().any(|e| e["type"] == "command_denied"), "{events:?}");
    let text = std::fs::read_to_string(ws.work().join(md)).unwrap();
    assert!(text.contains("Column statistics"), "{text}");
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

#[tokio::test]
async fn a_big_file_is_read_in_parts() {
    let ws = Workspace::new();
    ws.skill("xml-edit", XML_SKILL, None);
    let lines: String = (1..=200_000).map(|i| format!("log line {i}\n")).collect();
    std::fs::write(ws.work().join("big.log"), &lines).unwrap();
    let (code, results, _) = calls(
        &ws,
        &[
            ("Read", json!({"file_path": "big.log", "offset": 150_000, "limit": 2})),
            ("Read", json!({"file_path": "big.log"})),
            ("Read", json!({"file_path": "big.log", "offset": 300_000})),
        ],
        &["--approve", "no"],
    )
    .await;
    assert_eq!(code, 0);
    assert_eq!(
        results[0],
        "150000\tlog line 150000\n150001\tlog line 150001\n(lines 150000-150001 of 200000; read on with offset 150002)\n"
    );
    assert!(results[1].starts_with("     1\tlog line 1\n"), "{}", &results[1][..40]);
    assert!(results[1].len() < 40 * 1024, "capped: {} bytes", results[1].len());
    let tail = results[1].lines().last().unwrap();
    assert!(
        tail.starts_with("(lines 1-")
            && tail.contains("of 200000, cut at the size a read returns; read on with offset"),
        "{tail}"
    );
    assert!(results[2].contains("past its end"), "{}", results[2]);
}

/// A skill in the shape of the public office-document skills: the document is unpacked into a
/// folder of XML, the model reads and edits the XML, and the skill's script packs it again.
const DOCX_SKILL: &str = "---\nname: docx\ndescription: Edit Word documents (.docx): change text, keep formatting.\n\
license: Proprietary\n---\n# DOCX editing\n\n## Editing an existing document\n\
1. The document is unpacked into a folder (`python3 scripts/unpack.py in.docx unpacked`).\n\
2. Read `unpacked/word/document.xml` and find the `<w:t>` runs to change; Grep helps in big documents.\n\
3. Change the XML with Edit, one run at a time, keeping `<w:r>` and `<w:rPr>` as they are.\n\
4. Pack it: `python3 scripts/pack.py unpacked out.docx` (it checks the XML is well formed).\n";

const PACK_PY: &str = r#"import os, sys, zipfile
from xml.dom import minidom
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith(".xml") or name.endswith(".rels"):
                minidom.parse(path)
            z.write(path, os.path.relpath(path, src))
with zipfile.ZipFile(out) as z:
    doc = minidom.parseString(z.read("word/document.xml"))
    text = "".join(t.firstChild.data for t in doc.getElementsByTagName("w:t") if t.firstChild)
print(f"packed {out}: {text}")
"#;

const DOCUMENT_XML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>\
<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Quarterly report: </w:t></w:r><w:r><w:t>DRAFT</w:t></w:r></w:p>\
<w:p><w:r><w:t>Revenue grew.</w:t></w:r></w:p></w:body></w:document>\n";

/// The docx skill and an unpacked document in the working folder.
fn docx_workspace() -> Workspace {
    let ws = Workspace::new();
    let dir = ws.skill("docx", DOCX_SKILL, None);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("scripts/pack.py"), PACK_PY).unwrap();
    let doc = ws.work().join("unpacked");
    std::fs::create_dir_all(doc.join("word")).unwrap();
    std::fs::create_dir_all(doc.join("_rels")).unwrap();
    std::fs::write(doc.join("word/document.xml"), DOCUMENT_XML).unwrap();
    std::fs::write(
        doc.join("[Content_Types].xml"),
        "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>\n",
    )
    .unwrap();
    std::fs::write(
        doc.join("_rels/.rels"),
        "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"/>\n",
    )
    .unwrap();
    ws
}

/// What the scripted model does, following the docx skill's steps as written.
fn docx_replies() -> Vec<Reply> {
    vec![
        tool("activate_skill", json!({"name": "docx"})),
        tool("Glob", json!({"pattern": "unpacked/**/*.xml"})),
        tool("Grep", json!({"pattern": "<w:t>DRAFT</w:t>", "glob": "*.xml"})),
        tool(
            "Edit",
            json!({"file_path": "unpacked/word/document.xml", "old_string": "<w:t>DRAFT</w:t>", "new_string": "<w:t>FINAL</w:t>"}),
        ),
        tool(
            "run_command",
            json!({"command": "python3 scripts/pack.py unpacked out.docx"}),
        ),
        tool("Read", json!({"file_path": "out.docx"})),
        text("The report now says FINAL; out.docx is packed."),
    ]
}

#[tokio::test]
async fn an_office_skill_is_followed_with_file_tools_and_its_script() {
    require_kernel!(kernel::landlock(1));
    let ws = docx_workspace();
    let mock = MockLlm::start(docx_replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "--once", "mark the quarterly report final"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.chat_requests().await;
    let results: Vec<String> = requests.iter().skip(2).map(last_tool_result).collect();
    assert_eq!(
        results[0], "unpacked/[Content_Types].xml\nunpacked/word/document.xml\n",
        "sorted, and .rels is not *.xml"
    );
    assert!(
        results[1].starts_with("unpacked/word/document.xml:2:") && results[1].contains("<w:t>DRAFT</w:t>"),
        "{}",
        results[1]
    );
    assert_eq!(results[2], "edited unpacked/word/document.xml: 1 replacement(s)");
    assert!(
        results[3].contains("packed out.docx: Quarterly report: FINALRevenue grew."),
        "{}",
        results[3]
    );
    assert!(
        results[4].starts_with("out.docx is a binary file") && results[4].contains("office document"),
        "{}",
        results[4]
    );
    let packed = std::fs::read(ws.work().join("out.docx")).unwrap();
    assert!(packed.starts_with(b"PK\x03\x04"));
    assert!(
        !std::fs::read_to_string(ws.work().join("unpacked/word/document.xml"))
            .unwrap()
            .contains("DRAFT")
    );

    // Every event is a documented one; each file tool says what it did.
    let doc = EventsDoc::read();
    let events = events(&out);
    for e in &events {
        doc.validate_typed(e).unwrap_or_else(|why| panic!("{why}: {e}"));
    }
    let files: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "file_tool")
        .map(|e| (e["tool"].as_str().unwrap(), e["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("Glob", "."),
            ("Grep", "."),
            ("Edit", "unpacked/word/document.xml"),
            ("Read", "out.docx")
        ]
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "command_finished" && e["exit_code"] == 0)
    );

    // The session holds the calls: `sessions show` lists them, and a resumed run sends them.
    let mut show = ws.bare_agent();
    let session = events.iter().find(|e| e["type"] == "session").unwrap();
    let id = session["session_id"].as_str().unwrap().to_string();
    show.args(["sessions", "show", &id]);
    let shown = String::from_utf8_lossy(&show.output().unwrap().stdout).into_owned();
    assert!(shown.contains("Edit") && shown.contains("<w:t>FINAL</w:t>"), "{shown}");
    let next = MockLlm::start(vec![text("Still FINAL.")]).await;
    let mut cmd = ws.agent(&next);
    cmd.args(["-c", "--once", "is it final?"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let resumed = next.chat_requests().await.remove(0);
    let calls: Vec<String> = resumed["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(calls, ["activate_skill", "Glob", "Grep", "Edit", "run_command", "Read"]);
    assert!(all_text(&resumed).contains("edited unpacked/word/document.xml"));
}

#[tokio::test]
async fn a_recorded_run_with_file_tools_replays_them() {
    require_kernel!(kernel::landlock(1));
    let ws = docx_workspace();
    let cassette = ws.dir.path().join("docx.jsonl");
    let mock = MockLlm::start(docx_replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.arg("--record")
        .arg(&cassette)
        .args(["--once", "mark the quarterly report final"]);
    assert_eq!(run_outcome(cmd).await.0, 0);
    // Put the document back as it was: the replay edits it again, for real.
    std::fs::write(ws.work().join("unpacked/word/document.xml"), DOCUMENT_XML).unwrap();
    std::fs::remove_file(ws.work().join("out.docx")).unwrap();
    let mut replay = ws.bare_agent();
    replay
        .arg("--skills-dir")
        .arg(ws.skills())
        .arg("--replay")
        .arg(&cassette)
        .args(["--once", "mark the quarterly report final"]);
    let (code, out, err) = run_outcome(replay).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("The report now says FINAL"), "{out}");
    assert!(
        std::fs::read_to_string(ws.work().join("unpacked/word/document.xml"))
            .unwrap()
            .contains("FINAL")
    );
    assert!(ws.work().join("out.docx").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn under_ask_a_write_is_asked_on_the_terminal_and_always_holds_for_the_tool() {
    let ws = std::sync::Arc::new(Workspace::new());
    ws.skill("xml-edit", XML_SKILL, None);
    let mock = std::sync::Arc::new(
        MockLlm::start(vec![
            tool("activate_skill", json!({"name": "xml-edit"})),
            tool("Write", json!({"file_path": "a.txt", "content": "first\n"})),
            tool("Write", json!({"file_path": "b.txt", "content": "second\n"})),
            tool(
                "Edit",
                json!({"file_path": "a.txt", "old_string": "first", "new_string": "1st"}),
            ),
            text("all written"),
        ])
        .await,
    );
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &["--approve", "ask"]);
        type_line(&mut p, "write the files");
        p.exp_string("Write a.txt (creates it with 6 bytes)").unwrap();
        p.exp_string("[a]lways").unwrap();
        assert!(!w.work().join("a.txt").exists(), "written before the answer");
        type_line(&mut p, "a");
        p.exp_string("Write a.txt (6 B)").unwrap();
        p.exp_string("Write b.txt (7 B)").unwrap();
        // Always was for Write: an Edit is asked about, and a no leaves the file as it was.
        p.exp_string("Edit a.txt (replaces 1 occurrence(s) of 5 bytes)")
            .unwrap();
        type_line(&mut p, "n");
        p.exp_string("all written").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    assert_eq!(std::fs::read_to_string(ws.work().join("a.txt")).unwrap(), "first\n");
    assert_eq!(std::fs::read_to_string(ws.work().join("b.txt")).unwrap(), "second\n");
}
