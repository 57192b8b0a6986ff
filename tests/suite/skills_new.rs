//! `agent skills new`: the skeleton loads and passes `skills check` but fails `--strict` until its
//! placeholder description is replaced (it must not ship unchanged), its `run.sh` keeps the
//! exit-code contract, its routing cases run through `skills eval`, and nothing is overwritten.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// Replace the skeleton's description (in `file`, SKILL.md or skill.json) with the author's own.
fn describe(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for line in lines.iter_mut().filter(|l| l.contains("(replace with")) {
        *line = if line.starts_with("description:") {
            "description: Converts PDF files to text. Use when the user asks to repeat a PDF.".into()
        } else if line.trim_start().starts_with("\"description\"") {
            "  \"description\": \"Takes notes. Use when the user asks to repeat or note something.\",".into()
        } else {
            "Takes notes, for a user who asks to repeat or note something.".into()
        };
    }
    std::fs::write(file, lines.join("\n") + "\n").unwrap();
}

/// `agent [args…]` with skills from the workspace root; returns (code, stdout, stderr).
fn agent(ws: &Workspace, args: &[&str]) -> (i32, String, String) {
    let out = ws
        .bare_agent()
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run_sh(dir: &Path, args: &[&str], stdin: &str) -> std::process::Output {
    let mut cmd = assert_cmd::Command::new(dir.join("run.sh"));
    cmd.args(args).current_dir(dir).write_stdin(stdin);
    cmd.output().unwrap()
}

/// The skeleton's `run.sh`: input as arguments or stdin, result on stdout, usage error exit 2.
fn keeps_the_contract(dir: &Path) {
    let out = run_sh(dir, &["hello", "world"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello world\n");
    let out = run_sh(dir, &[], "from stdin\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from stdin\n");
    let out = run_sh(dir, &[], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: ./run.sh"));
}

#[tokio::test]
async fn a_new_skill_passes_strict_checks_runs_and_routes() {
    let ws = Workspace::new();
    let (code, stdout, stderr) = agent(&ws, &["skills", "new", "pdf-tools"]);
    assert_eq!(code, 0, "{stderr}");
    let dir = ws.skills().join("pdf-tools");
    assert!(
        stdout.contains(&format!("created {} (agent-skills)", dir.display())),
        "{stdout}"
    );
    assert!(stdout.contains("agent skills check --strict"), "{stdout}");
    let skill_md = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
    assert!(
        skill_md.starts_with("---\nname: pdf-tools\ndescription: "),
        "{skill_md}"
    );
    assert!(
        skill_md.contains("Use when the user asks"),
        "the description says when to use it"
    );

    // Unchanged, the skeleton is fine to try but not to ship: --strict fails on its placeholder.
    let (code, stdout, _) = agent(&ws, &["skills", "check"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = agent(&ws, &["skills", "check", "--strict"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("the description is still the skeleton's"), "{stdout}");
    describe(&dir.join("SKILL.md"));
    let (code, stdout, _) = agent(&ws, &["skills", "check", "--strict"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("ok    pdf-tools") && stdout.contains("0 error(s), 0 warning(s)"),
        "{stdout}"
    );
    keeps_the_contract(&dir);

    // Its routing cases parse and run through `skills eval`.
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "pdf-tools"})),
        text("Leaves fall…"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["skills", "eval", "--json", "--runs", "1"])
        .arg(dir.join("tests/routing.yaml"));
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["passed"], 2, "{report}");
    assert_eq!(contents(&mock.requests().await[0], "user"), ["repeat hello"]);
}

#[test]
fn an_scp_skeleton_has_skill_json_and_passes_too() {
    let ws = Workspace::new();
    let (code, stdout, stderr) = agent(&ws, &["skills", "new", "--scp", "--json", "note-taker"]);
    assert_eq!(code, 0, "{stderr}");
    let created: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(created["dialect"], "scp");
    assert_eq!(created["found_by_agent"], true);
    let dir = ws.skills().join("note-taker");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("skill.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], "note-taker");
    assert!(
        !std::fs::read_to_string(dir.join("SKILL.md"))
            .unwrap()
            .starts_with("---")
    );
    let (code, stdout, _) = agent(&ws, &["skills", "check", "--strict", "--json"]);
    assert_eq!(code, 1, "the placeholder description fails --strict: {stdout}");
    describe(&dir.join("SKILL.md"));
    describe(&dir.join("skill.json"));
    let (code, stdout, _) = agent(&ws, &["skills", "check", "--strict", "--json"]);
    assert_eq!(code, 0, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["skills"][0]["dialect"], "scp");
    keeps_the_contract(&dir);
}

#[test]
fn it_never_overwrites_and_refuses_bad_names() {
    let ws = Workspace::new();
    assert_eq!(agent(&ws, &["skills", "new", "mine"]).0, 0);
    let skill_md = ws.skills().join("mine/SKILL.md");
    std::fs::write(&skill_md, "my own work").unwrap();
    let (code, _, stderr) = agent(&ws, &["skills", "new", "mine", "--scp"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists; nothing was overwritten"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&skill_md).unwrap(), "my own work");
    assert!(!ws.skills().join("mine/skill.json").exists());

    let (code, _, stderr) = agent(&ws, &["skills", "new", "My Skill"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("try `my-skill`"), "{stderr}");
}

#[test]
fn without_a_named_root_it_goes_to_the_users_own_skills() {
    let ws = Workspace::new();
    let out = ws.bare_agent().args(["skills", "new", "helper"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = ws.home().join(".agents/skills/helper");
    assert!(dir.join("SKILL.md").is_file() && dir.join("tests/routing.yaml").is_file());
    // …where `agent` finds it from any folder, with no trust step.
    let out = ws.bare_agent().args(["skills", "list", "--json"]).output().unwrap();
    let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "helper");
    assert_eq!(listing["skills"][0]["trusted"], true);

    // --dir elsewhere works, and says how to make agent search there.
    let elsewhere = ws.dir.path().join("elsewhere");
    let out = ws
        .bare_agent()
        .args(["skills", "new", "other", "--dir"])
        .arg(&elsewhere)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(elsewhere.join("other/run.sh").is_file());
    assert!(stdout.contains("--skills-dir"), "{stdout}");
}

#[test]
fn a_new_skill_in_an_untrusted_project_says_so_with_a_clean_path() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.work().join("skills")).unwrap();
    let out = ws
        .bare_agent()
        .args(["skills", "new", "hello-world", "--dir", "./skills"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = ws.work().join("skills/hello-world");
    assert!(stdout.contains(&format!("created {} (", dir.display())), "{stdout}");
    assert!(!stdout.contains("/./"), "{stdout}");
    assert!(
        stdout.contains("cannot run commands until you run `agent trust"),
        "{stdout}"
    );
    // Trust covers the content a folder had when it was given: a skill added later is new.
    let trusted = ws.bare_agent().arg("trust").output().unwrap();
    assert_eq!(trusted.status.code(), Some(0));
    let out = ws
        .bare_agent()
        .args(["skills", "new", "hello-again", "--dir", "skills", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["created"],
        ws.work().join("skills/hello-again").display().to_string()
    );
    assert!(report["untrusted_project"].is_string(), "{report}");
    // A skill in the user's own folder needs no trust.
    let (code, stdout, _) = agent(&ws, &["skills", "new", "mine", "--json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert!(report["untrusted_project"].is_null(), "{report}");
}
