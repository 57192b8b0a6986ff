//! Loading real-world and reference skill folders through `agent skills list --json`.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn list(ws: &Workspace, roots: &[&Path]) -> Value {
    let mut cmd = ws.bare_agent();
    cmd.args(["skills", "list", "--json"]);
    for r in roots {
        cmd.arg("--skills-dir").arg(r);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every reference folder with a readable description loads with exactly that description.
#[test]
fn reference_fixtures_load_leniently() {
    let base = conformance_dir();
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(base.join("golden.json")).unwrap()).unwrap();
    let ws = Workspace::new();
    let mut checked = 0;
    for (rel, expect) in golden.as_object().unwrap() {
        let dir = base.join(rel);
        let listing = list(&ws, &[&dir]);
        let skills = listing["skills"].as_array().unwrap();
        match expect["read_properties"].get("description").and_then(Value::as_str) {
            Some(desc) => {
                assert_eq!(skills.len(), 1, "{rel}: {listing}");
                assert_eq!(skills[0]["description"], desc, "{rel}");
                if let Some(name) = expect["read_properties"].get("name").and_then(Value::as_str) {
                    assert_eq!(skills[0]["name"], name, "{rel}");
                }
                let strict_errors = expect["validate_errors"].as_array().unwrap();
                if strict_errors.is_empty() {
                    assert_eq!(skills[0]["warnings"], 0, "{rel} is valid but warned: {listing}");
                } else {
                    assert!(
                        skills[0]["warnings"].as_u64().unwrap() > 0,
                        "{rel} breaks a rule but loaded silently"
                    );
                }
                checked += 1;
            }
            None => {
                // Without a frontmatter description the lenient loader may still find one in the markdown.
                for s in skills {
                    assert!(!s["description"].as_str().unwrap().is_empty(), "{rel}");
                }
            }
        }
    }
    assert!(checked >= 25, "only {checked} fixtures had descriptions");
}

#[test]
fn real_world_mess_loads_with_warnings() {
    let ws = Workspace::new();
    let root = ws.skills();
    let write = |folder: &str, file: &str, content: &[u8]| {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::write(root.join(folder).join(file), content).unwrap();
    };
    write(
        "bom",
        "SKILL.md",
        b"\xef\xbb\xbf---\r\nname: bom\r\ndescription: Has a BOM and CRLF.\r\n---\r\nbody",
    );
    write(
        "colon",
        "SKILL.md",
        b"---\nname: colon\ndescription: Use when: the user asks\n---\n",
    );
    write(
        "unclosed",
        "SKILL.md",
        b"---\nname: unclosed\ndescription: Never closed.\n\n# Title\n",
    );
    write(
        "blank-first",
        "SKILL.md",
        b"\n---\nname: blank-first\ndescription: Blank line first.\n---\n",
    );
    write(
        "lower",
        "skill.md",
        b"---\nname: lower\ndescription: Lowercase file name.\n---\n",
    );
    write(
        "scp-section",
        "SKILL.md",
        b"# Tool\n\nIntro line.\n\n## Description\nFrom the section.\n",
    );
    write(
        "scp-para",
        "SKILL.md",
        b"# Tool\n\nFirst paragraph\nwraps here.\n\n## Usage\n",
    );
    write("scp-json", "SKILL.md", b"# Tool\n");
    write(
        "scp-json",
        "skill.json",
        br#"{"name":"from-json","description":"From skill.json.","entry":"go.sh"}"#,
    );
    write(
        "Bad Name",
        "SKILL.md",
        b"---\nname: Bad Name\ndescription: Uppercase and space.\n---\n",
    );
    write("lists", "SKILL.md", b"---\nname: lists\ndescription: >\n  Folded\n  text.\nallowed-tools:\n  - Read\n  - Bash(git:*)\nmetadata: {\"a\": {\"b\": 1}}\n---\n");
    write("nodesc", "SKILL.md", b"---\nname: nodesc\n---\n# Title only\n");
    write("binary", "SKILL.md", b"\x00\x01\x02binary");
    let listing = list(&ws, &[&root]);
    let by_name = |n: &str| {
        listing["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
    };
    let expect = [
        ("bom", "Has a BOM and CRLF.", true),
        ("colon", "Use when: the user asks", true),
        ("unclosed", "Never closed.", true),
        ("blank-first", "Blank line first.", true),
        ("lower", "Lowercase file name.", false),
        ("scp-section", "From the section.", false),
        ("scp-para", "First paragraph wraps here.", false),
        ("from-json", "From skill.json.", true),
        ("Bad Name", "Uppercase and space.", true),
        ("lists", "Folded text.", false),
    ];
    for (name, desc, warned) in expect {
        let s = by_name(name).unwrap_or_else(|| panic!("{name} not loaded: {listing}"));
        assert_eq!(s["description"], desc, "{name}");
        assert_eq!(s["warnings"].as_u64().unwrap() > 0, warned, "{name}: {s}");
    }
    assert_eq!(
        by_name("lists").unwrap()["allowed_tools"],
        serde_json::json!(["Read", "Bash(git:*)"])
    );
    assert!(by_name("nodesc").is_none() && by_name("binary").is_none());
    let problems = listing["problems"].to_string();
    assert!(
        problems.contains("nodesc") && problems.contains("no description"),
        "{problems}"
    );
}

#[test]
fn project_and_user_roots_with_shadowing() {
    let ws = Workspace::new();
    let project = ws.work().join("skills/dup");
    let user = ws.home().join(".agents/skills/dup");
    for (dir, desc) in [(&project, "project copy"), (&user, "user copy")] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: dup\ndescription: {desc}\n---\n"),
        )
        .unwrap();
    }
    let listing = list(&ws, &[]);
    let skills = listing["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0]["description"], "project copy");
    assert!(listing["problems"].to_string().contains("shadowed"));
}

#[test]
fn piped_skills_list_is_one_tab_separated_line_per_skill() {
    let ws = Workspace::new();
    let long = "A description that is much longer than any terminal would show in one row of a table, \
                kept whole for scripts that read the list.";
    ws.skill(
        "long-one",
        &format!("---\nname: long-one\ndescription: {long}\n---\n"),
        None,
    );
    ws.skill(
        "Bad_Name",
        "---\nname: Bad_Name\ndescription: Breaks the naming rules.\n---\n",
        None,
    );
    let out = ws
        .bare_agent()
        .args(["skills", "list", "--skills-dir"])
        .arg(ws.skills())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "no header line: {stdout}");
    let root = ws.skills().display().to_string();
    assert_eq!(
        rows[0],
        [
            "Bad_Name",
            "agent-skills",
            "warnings",
            root.as_str(),
            "Breaks the naming rules."
        ]
    );
    assert_eq!(rows[1], ["long-one", "agent-skills", "ok", root.as_str(), long]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("agent skills show NAME"));
}

#[tokio::test]
async fn a_shadowed_skill_is_said_once_per_change_not_every_run() {
    let ws = Workspace::new();
    let skill = |root: &Path, name: &str| {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\n"),
        )
        .unwrap();
    };
    skill(&ws.skills(), "twin");
    skill(&ws.skills(), "other");
    let more = ws.work().join("more");
    skill(&more, "twin");
    let mock = MockLlm::start(vec![text("one"), text("two"), text("three")]).await;
    let run = || {
        let mut cmd = ws.agent(&mock);
        cmd.arg("--skills-dir").arg(&more).args(["--once", "hi"]);
        run_outcome(cmd)
    };
    let (code, _, first) = run().await;
    assert_eq!(code, 0, "{first}");
    assert!(first.contains("skill `twin` is shadowed"), "{first}");
    let (_, _, second) = run().await;
    assert!(!second.contains("shadowed"), "said again unchanged: {second}");
    // A new shadowing is news: all of it is said again.
    skill(&more, "other");
    let (_, _, third) = run().await;
    assert!(
        third.contains("skill `twin` is shadowed") && third.contains("skill `other` is shadowed"),
        "{third}"
    );
    // `skills list` shows it whenever asked.
    let listed = list(&ws, &[&ws.skills(), &more]);
    assert!(listed["problems"].to_string().contains("shadowed"), "{listed}");
}
