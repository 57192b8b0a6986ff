//! Where skills come from (docs/design.md#skill-roots) through the real binary: a parent folder's
//! `.agents/skills` up to the repository root, the other agents' project and user folders after
//! ours (`AGENT_OTHER_AGENTS`), each listed with its origin; a name in two tools' folders (the
//! first wins, the other is warned about); the other agents' project folders under folder trust;
//! and Claude Code's `${CLAUDE_SKILL_DIR}` and `` !`command` `` in a skill's instructions.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

fn skill_at(dir: &Path, name: &str, file: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join(file),
        format!(
            "---\nname: {name}\ndescription: The {name} skill, found for a test of skill roots.\n---\nRun ./run.sh\n"
        ),
    )
    .unwrap();
}

async fn listing(ws: &Workspace, cwd: &Path, env: &[(&str, &str)]) -> (Value, String) {
    let mut cmd = ws.bare_agent();
    cmd.current_dir(cwd).args(["--json", "skills", "list"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    (serde_json::from_str(&out).unwrap(), err)
}

fn origin(listing: &Value, name: &str) -> (String, String, String) {
    let s = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {listing}"));
    (
        s["root"].as_str().unwrap().to_string(),
        s["root_kind"].as_str().unwrap().to_string(),
        s["tool"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn parents_and_other_agents_folders_are_listed_with_their_origin() {
    let ws = Workspace::new();
    let repo = ws.work();
    std::fs::create_dir(repo.join(".git")).unwrap();
    let deep = repo.join("services/api");
    std::fs::create_dir_all(&deep).unwrap();
    skill_at(&repo.join(".agents/skills/release"), "release", "SKILL.md");
    skill_at(&deep.join(".claude/skills/review"), "review", "SKILL.md");
    skill_at(&ws.home().join(".codex/skills/notes"), "notes", "Skill.md");
    skill_at(&ws.home().join(".config/opencode/skills/todo"), "todo", "SKILL.md");
    // Above the repository root: not a project folder of this run.
    skill_at(&ws.dir.path().join(".agents/skills/outside"), "outside", "SKILL.md");

    let (list, _) = listing(&ws, &deep, &[]).await;
    assert_eq!(listed_names(&list), ["release", "review", "notes", "todo"]);
    let release = origin(&list, "release");
    assert_eq!(
        release,
        (
            repo.join(".agents/skills").display().to_string(),
            "project".into(),
            "agent".into()
        )
    );
    let review = origin(&list, "review");
    assert_eq!((review.1.as_str(), review.2.as_str()), ("project", "claude"));
    assert_eq!(origin(&list, "notes").2, "codex");
    assert_eq!(
        origin(&list, "todo"),
        (
            ws.home().join(".config/opencode/skills").display().to_string(),
            "user".into(),
            "opencode".into()
        )
    );

    let (list, _) = listing(&ws, &deep, &[("AGENT_OTHER_AGENTS", "none")]).await;
    assert_eq!(listed_names(&list), ["release"]);
    let (list, _) = listing(&ws, &deep, &[("AGENT_OTHER_AGENTS", "opencode")]).await;
    assert_eq!(listed_names(&list), ["release", "todo"]);

    let mut cmd = ws.bare_agent();
    cmd.current_dir(&deep)
        .env("AGENT_OTHER_AGENTS", "cursor")
        .args(["skills", "list"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("cursor") && err.contains("claude, codex, gemini, opencode"),
        "{err}"
    );

    // The table names the tool of each root that is not ours.
    let mut cmd = ws.bare_agent();
    cmd.current_dir(&deep).env("COLUMNS", "200").args(["skills", "list"]);
    let (_, out, _) = run_outcome(cmd).await;
    let notes = out.lines().find(|l| l.starts_with("notes")).unwrap_or_default();
    assert!(notes.contains(".codex/skills"), "{out}");
}

#[tokio::test]
async fn a_name_in_two_tools_folders_first_wins_and_is_warned() {
    let ws = Workspace::new();
    skill_at(&ws.home().join(".claude/skills/pdf"), "pdf", "SKILL.md");
    skill_at(&ws.home().join(".gemini/skills/pdf"), "pdf", "SKILL.md");
    let (list, err) = listing(&ws, &ws.work(), &[]).await;
    assert_eq!(listed_names(&list), ["pdf"]);
    assert_eq!(origin(&list, "pdf").2, "claude");
    let problems = list["problems"].to_string();
    assert!(
        problems.contains(".gemini/skills/pdf") && problems.contains("shadowed"),
        "{problems} {err}"
    );
}

#[tokio::test]
async fn a_cloned_repositorys_claude_skills_cannot_run_commands_until_trusted() {
    let ws = Workspace::new();
    let canary = ws.work().join("claude-skill-ran");
    let dir = ws.work().join(".claude/skills/evil");
    skill_at(&dir, "evil", "SKILL.md");
    write_script(
        &dir.join("run.sh"),
        &format!("#!/bin/sh\ntouch '{}'\necho ran\n", canary.display()),
    );

    let mock = MockLlm::start(activate_run_answer("evil", "./run.sh", "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "go"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert!(matches!(code, 0 | 6), "{err}");
    assert!(!canary.exists(), "an untrusted .claude/skills skill ran a command");
    assert!(
        err.contains(".claude/skills/evil") && err.contains("agent trust"),
        "{err}"
    );
    let requests = mock.requests().await;
    assert!(
        last_tool_result(&requests[2]).contains("not trusted"),
        "{}",
        requests[2]
    );

    let mut trust = ws.bare_agent();
    trust.args(["--json", "trust"]);
    let (code, out, _) = run_outcome(trust).await;
    assert_eq!(code, 0);
    let trusted: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(trusted["skills"], json!([".claude/skills/evil"]));

    let mock = MockLlm::start(activate_run_answer("evil", "./run.sh", "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "go"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists(), "a trusted folder's .claude/skills skill runs");
}

#[tokio::test]
async fn a_parents_skills_are_covered_by_the_working_folders_trust() {
    let ws = Workspace::new();
    let repo = ws.work();
    std::fs::create_dir(repo.join(".git")).unwrap();
    let sub = repo.join("pkg");
    std::fs::create_dir_all(&sub).unwrap();
    let dir = repo.join(".agents/skills/build");
    skill_at(&dir, "build", "SKILL.md");
    write_script(&dir.join("run.sh"), "#!/bin/sh\necho built\n");
    let mut trust = ws.bare_agent();
    trust.current_dir(&sub).args(["--json", "trust"]);
    let (code, out, _) = run_outcome(trust).await;
    assert_eq!(code, 0);
    let trusted: Value = serde_json::from_str(&out).unwrap();
    // The decision is the repository's: keys are relative to its root.
    assert_eq!(trusted["skills"], json!([".agents/skills/build"]));
}

#[tokio::test]
async fn a_claude_code_skill_finds_its_scripts_through_claude_skill_dir() {
    let ws = Workspace::new();
    let dir = ws.home().join(".claude/skills/hello");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: hello\ndescription: Greets, written for Claude Code's folder placeholder.\n---\nRun `${CLAUDE_SKILL_DIR}/scripts/hello.sh ${CLAUDE_SKILL_DIR}/greeting.txt`.\n",
    )
    .unwrap();
    std::fs::write(dir.join("greeting.txt"), "hello from claude skill\n").unwrap();
    write_script(&dir.join("scripts/hello.sh"), "#!/bin/sh\ncat \"$1\"\n");

    // The placeholder becomes the skill's absolute folder: commands run in the working folder,
    // so both the script and the file it is given are found, and the script is the skill's own
    // to approval (it runs under auto with the sandbox off, where nothing else would).
    let folder = dir.display().to_string();
    let command = format!("{folder}/scripts/hello.sh {folder}/greeting.txt");
    let mock = MockLlm::start(activate_run_answer("hello", &command, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--sandbox", "off", "--once", "say hello"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    let activation = last_tool_result(&requests[1]);
    assert!(
        activation.contains(&format!("Run `{command}`.")) && !activation.contains("CLAUDE_SKILL_DIR"),
        "{activation}"
    );
    assert!(last_tool_result(&requests[2]).contains("hello from claude skill"));
}

#[tokio::test]
async fn skills_check_names_claude_code_multiline_preprocessing_agent_does_not_run() {
    let ws = Workspace::new();
    let dir = ws.home().join(".claude/skills/branch");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: branch\ndescription: Reports the current git branch of the project.\n---\nBranch: !`git branch --show-current`\n```!\ngit status\n```\n",
    )
    .unwrap();
    let mut cmd = ws.bare_agent();
    cmd.arg("--json").args(["skills", "check"]).arg(&dir);
    let (_, out, err) = run_outcome(cmd).await;
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let finding = &report["skills"][0]["findings"][0];
    assert_eq!(finding["code"], "other-tool-syntax", "{report}");
    assert_eq!(finding["line"], 6, "{report}");
    assert_eq!(
        report["skills"][0]["findings"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
}
