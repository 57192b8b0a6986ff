//! Installing, locking and updating skills (docs/skills-lock.md) through the real binary, from
//! local git repositories reached through `file://` (never the network): `skills add` with `@REF`
//! and `#SUBDIR`, the lock file, `outdated` after a new commit, `update` showing the diff and
//! asking, `remove`, script fixes, and an installed skill edited by hand needing trust again.

use std::path::PathBuf;

use crate::common::library::*;
use crate::common::*;
use agent::skills::library::git;
use serde_json::{Value, json};

/// A repository holding two skills under `skills/`, committed and tagged `v1`.
fn repository(ws: &Workspace) -> (PathBuf, String) {
    let repo = ws.dir.path().join("repo");
    write(
        &repo.join("skills/deploy/SKILL.md"),
        &skill_md("deploy", "Run ./run.sh $ARGUMENTS"),
    );
    write_script(&repo.join("skills/deploy/run.sh"), "#!/bin/sh\necho deployed \"$@\"\n");
    write(&repo.join("skills/notes/SKILL.md"), &skill_md("notes", "Take notes."));
    write(&repo.join("README.md"), "# skills\n");
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    git(&repo, &["tag", "v1"]);
    let commit = git(&repo, &["rev-parse", "HEAD"]);
    (repo, commit)
}

#[tokio::test]
async fn add_with_a_tag_and_a_subfolder_records_the_lock() {
    let ws = Workspace::new();
    let (repo, v1) = repository(&ws);
    // A later commit on the branch: the tag must still install the first one.
    write(
        &repo.join("skills/deploy/SKILL.md"),
        &skill_md("deploy", "changed after v1"),
    );
    git(&repo, &["commit", "--quiet", "-am", "second"]);

    let source = format!("{}@v1#skills/deploy", url(&repo));
    let (code, out, err) = outcome(&ws, &["skills", "add", &source]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("installed deploy into"), "{out}");
    let installed = ws.home().join(".agents/skills/deploy");
    let body = std::fs::read_to_string(installed.join("SKILL.md")).unwrap();
    assert!(body.contains("Run ./run.sh"), "the tagged content: {body}");
    assert!(!installed.join(".git").exists());

    let entry = &lock(&ws)["skills"]["deploy"];
    assert_eq!(entry["source"], url(&repo));
    assert_eq!(entry["ref"], "v1");
    assert_eq!(entry["commit"], v1.as_str());
    assert_eq!(entry["subdir"], "skills/deploy");
    let hash = entry["hash"].as_str().unwrap();
    assert!(hash.starts_with("v2-") && hash.len() == 67, "{hash}");
    assert!(entry["installed_at"].as_str().unwrap().ends_with('Z'), "{entry}");

    // Found from any folder, as a user skill.
    let (code, out, _) = outcome(&ws, &["--json", "skills", "list"]).await;
    assert_eq!(code, 0);
    let listing: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed_names(&listing), ["deploy"]);

    // Adding it again leaves it as it is (updates are `skills update`'s); nothing changes.
    let (code, _, err) = outcome(&ws, &["skills", "add", &source]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("already installed from this source") && err.contains("deploy"),
        "{err}"
    );
    assert_eq!(lock(&ws)["skills"]["deploy"], *entry);
}

#[tokio::test]
async fn a_repository_of_several_skills_needs_a_choice_without_a_terminal() {
    let ws = Workspace::new();
    let (repo, _) = repository(&ws);
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo)]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("deploy") && err.contains("notes") && err.contains("--skill"),
        "{err}"
    );
    assert!(!ws.home().join(".agents/skills").join("deploy").exists());

    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "nope"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("nope: there is no skill in") && err.contains("it has 2 skill(s): deploy, notes"),
        "{err}"
    );

    let (code, out, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "notes", "--project"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("installed notes"), "{out}");
    assert!(ws.work().join(".agents/skills/notes/SKILL.md").is_file());
    assert!(ws.work().join(".agents/skills/skills-lock.json").is_file());
    assert!(
        err.contains("agent trust"),
        "a project install says its folder needs trust: {err}"
    );
}

#[tokio::test]
async fn outdated_then_update_shows_the_diff_and_asks_for_yes() {
    let ws = Workspace::new();
    let (repo, v1) = repository(&ws);
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "deploy"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = outcome(&ws, &["skills", "outdated"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("0 outdated, 1 up to date"), "{out}");

    write(
        &repo.join("skills/deploy/SKILL.md"),
        &skill_md("deploy", "Run ./run.sh --safely $ARGUMENTS"),
    );
    write_script(&repo.join("skills/deploy/check.sh"), "#!/bin/sh\necho checked\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "second"]);
    let v2 = git(&repo, &["rev-parse", "HEAD"]);

    let (code, out, _) = outcome(&ws, &["--json", "skills", "outdated"]).await;
    assert_eq!(code, 1, "something outdated fails the command, for CI");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let row = &doc["skills"][0];
    assert_eq!(
        (row["status"].as_str(), row["installed"].as_str()),
        (Some("outdated"), Some(v1.as_str()))
    );
    assert_eq!(row["latest"], v2.as_str());

    // No terminal, no --yes: the change is shown, nothing is replaced, exit 2.
    let (code, out, err) = outcome(&ws, &["skills", "update", "deploy"]).await;
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("changed  SKILL.md (+1 -1)"), "{out}");
    assert!(out.contains("+Run ./run.sh --safely $ARGUMENTS"), "{out}");
    assert!(out.contains("added    check.sh (+2 -0)"), "{out}");
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(lock(&ws)["skills"]["deploy"]["commit"], v1.as_str());

    let (code, out, err) = outcome(&ws, &["skills", "update", "deploy", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("deploy: updated"), "{out}");
    let installed = ws.home().join(".agents/skills/deploy");
    assert!(installed.join("check.sh").is_file());
    let entry = &lock(&ws)["skills"]["deploy"];
    assert_eq!(entry["commit"], v2.as_str());

    let (code, out, _) = outcome(&ws, &["skills", "update"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("deploy: up to date"), "{out}");
}

#[tokio::test]
async fn remove_deletes_the_folder_and_its_entry_only() {
    let ws = Workspace::new();
    let (repo, _) = repository(&ws);
    let root = ws.home().join(".agents/skills");
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "notes"]).await;
    assert_eq!(code, 0, "{err}");
    std::fs::create_dir_all(root.join("mine")).unwrap();
    write(&root.join("mine/SKILL.md"), &skill_md("mine", "mine"));

    let (code, _, err) = outcome(&ws, &["skills", "remove", "mine"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("only skills installed with `agent skills add`"), "{err}");
    assert!(
        root.join("mine").is_dir(),
        "a skill the lock does not list is never deleted"
    );

    let (code, out, err) = outcome(&ws, &["--json", "skills", "remove", "notes"]).await;
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["name"], "notes");
    assert!(!root.join("notes").exists());
    assert_eq!(lock(&ws)["skills"], json!({}));
}

#[tokio::test]
async fn scripts_with_crlf_or_no_exec_bit_are_named_and_fixed_with_fix() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("crlf-skill");
    write(&src.join("SKILL.md"), &skill_md("crlf-skill", "Run ./run.sh"));
    write(&src.join("run.sh"), "#!/bin/sh\r\necho hi\r\n");
    write(&src.join("scripts/helper.sh"), "#!/bin/sh\necho helper\n");
    // `skills check` names both problems with a stable code and the command that fixes each.
    let (code, out, _) = outcome(&ws, &["--json", "skills", "check", src.to_str().unwrap()]).await;
    assert_eq!(code, 0, "warnings do not fail a check: {out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let findings = &report["skills"][0]["findings"];
    let of = |code: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(
        of("script-crlf").iter().any(|m| m.contains("fix: sed -i")),
        "{findings}"
    );
    assert!(
        of("not-executable").iter().any(|m| m.contains("chmod +x")),
        "{findings}"
    );
    assert!(
        of("not-executable")
            .iter()
            .any(|m| m.contains("helper.sh") && m.contains("fix: chmod +x")),
        "{findings}"
    );
    let (code, _, err) = outcome(&ws, &["skills", "add", src.to_str().unwrap()]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("script-crlf") && err.contains("sed -i"), "{err}");
    assert!(err.contains("(not-executable)") && err.contains("chmod +x"), "{err}");
    let entry = &lock(&ws)["skills"]["crlf-skill"];
    assert_eq!(entry["source"], src.to_str().unwrap());
    assert!(entry.get("commit").is_none(), "a copied folder has no commit: {entry}");

    let (code, _, _) = outcome(&ws, &["skills", "remove", "crlf-skill"]).await;
    assert_eq!(code, 0);
    let (code, _, err) = outcome(&ws, &["skills", "add", "--fix", src.to_str().unwrap()]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("fixed:"), "{err}");
    let script = ws.home().join(".agents/skills/crlf-skill/run.sh");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "#!/bin/sh\necho hi\n");
    let out = std::process::Command::new(&script).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n");
    assert_eq!(
        std::fs::read_to_string(src.join("run.sh")).unwrap(),
        "#!/bin/sh\r\necho hi\r\n",
        "the source is never changed"
    );
}

#[tokio::test]
async fn an_installed_skill_edited_by_hand_needs_trust_again() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("greet");
    write(&src.join("SKILL.md"), &skill_md("greet", "Run ./run.sh"));
    write_script(&src.join("run.sh"), "#!/bin/sh\necho hello from greet\n");
    let (code, _, err) = outcome(&ws, &["skills", "add", src.to_str().unwrap()]).await;
    assert_eq!(code, 0, "{err}");
    let installed = ws.home().join(".agents/skills/greet");

    let run = |ws: &Workspace, mock: &MockLlm| {
        let mut cmd = ws.agent(mock);
        cmd.args(["--approve", "auto", "--once", "greet me"]);
        cmd
    };
    let mock = MockLlm::start(activate_run_answer("greet", "./run.sh", "done")).await;
    let (code, _, err) = run_outcome(run(&ws, &mock)).await;
    assert_eq!(code, 0, "{err}");
    assert!(last_tool_result(&mock.requests().await[2]).contains("hello from greet"));

    // Edited by hand: its commands are refused until it is trusted again.
    write_script(&installed.join("run.sh"), "#!/bin/sh\necho edited\n");
    let mock = MockLlm::start(activate_run_answer("greet", "./run.sh", "done")).await;
    let (code, _, err) = run_outcome(run(&ws, &mock)).await;
    assert_eq!(code, 6, "{err}");
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.contains("agent trust --skill greet") && !result.contains("edited\n"),
        "{result}"
    );
    let (_, out, _) = outcome(&ws, &["--json", "skills", "list"]).await;
    let listing: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listing["skills"][0]["trusted"], false, "{listing}");
    let (_, _, err) = outcome(&ws, &["skills", "list"]).await;
    assert!(
        err.contains("untrusted:") && err.contains("agent trust --skill greet") && !err.contains("project skills"),
        "{err}"
    );

    let (code, out, err) = outcome(&ws, &["trust", "--skill", "greet"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("trusted greet"), "{out}");
    let mock = MockLlm::start(activate_run_answer("greet", "./run.sh", "done")).await;
    let (code, _, err) = run_outcome(run(&ws, &mock)).await;
    assert_eq!(code, 0, "{err}");
    assert!(last_tool_result(&mock.requests().await[2]).contains("edited"));

    // A skill `skills add` did not install needs no such trust, and says so.
    ws.skill("plain", &skill_md("plain", "x"), None);
    let mut cmd = ws.bare_agent();
    cmd.args(["--skills-dir"])
        .arg(ws.skills())
        .args(["trust", "--skill", "plain"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 2);
    assert!(err.contains("needs no trust"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_add_lists_the_skills_to_choose_from_and_update_asks() {
    let ws = std::sync::Arc::new(Workspace::new());
    let (repo, _) = repository(&ws);
    let source = url(&repo);
    let w = ws.clone();
    crate::common::pty::blocking(move || {
        let mut cmd = crate::common::pty::pty_agent(&w);
        cmd.args(["skills", "add", &source]);
        let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("holds 2 skills").unwrap();
        p.exp_string("Install which?").unwrap();
        crate::common::pty::type_line(&mut p, "2");
        p.exp_string("installed notes").unwrap();
        p.exp_eof().unwrap();
    })
    .await;
    assert!(ws.home().join(".agents/skills/notes").is_dir());
    assert!(!ws.home().join(".agents/skills/deploy").exists());

    write(
        &repo.join("skills/notes/SKILL.md"),
        &skill_md("notes", "Take better notes."),
    );
    git(&repo, &["commit", "--quiet", "-am", "better"]);
    let w = ws.clone();
    crate::common::pty::blocking(move || {
        let mut cmd = crate::common::pty::pty_agent(&w);
        cmd.args(["skills", "update"]);
        let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("+Take better notes.").unwrap();
        p.exp_string("[y/N]").unwrap();
        crate::common::pty::type_line(&mut p, "n");
        p.exp_string("notes: kept as it is").unwrap();
        p.exp_eof().unwrap();
    })
    .await;
    let body = std::fs::read_to_string(ws.home().join(".agents/skills/notes/SKILL.md")).unwrap();
    assert!(body.contains("Take notes."), "declined: unchanged");
}

/// The git layer itself (in its own process: unit tests of the library share theirs with tests
/// that reap child processes).
#[tokio::test]
async fn the_library_fetches_branches_tags_and_commits_and_asks_the_remote() {
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    git(r, &["init", "--quiet"]);
    std::fs::write(r.join("a.txt"), "one").unwrap();
    git(r, &["add", "."]);
    git(r, &["commit", "--quiet", "-m", "one"]);
    let first = git(r, &["rev-parse", "HEAD"]);
    git(r, &["tag", "-a", "v1", "-m", "v1"]);
    std::fs::write(r.join("a.txt"), "two").unwrap();
    git(r, &["commit", "--quiet", "-am", "two"]);
    let second = git(r, &["rev-parse", "HEAD"]);
    let url = format!("file://{}", r.display());

    let dest = tempfile::tempdir().unwrap();
    assert_eq!(git::fetch(&url, Some("v1"), dest.path()).await.unwrap(), first);
    assert_eq!(std::fs::read_to_string(dest.path().join("a.txt")).unwrap(), "one");
    let dest = tempfile::tempdir().unwrap();
    assert_eq!(git::fetch(&url, None, dest.path()).await.unwrap(), second);
    let dest = tempfile::tempdir().unwrap();
    assert_eq!(git::fetch(&url, Some(&first), dest.path()).await.unwrap(), first);

    assert_eq!(git::remote_commit(&url, Some("v1")).await.unwrap(), Some(first.clone()));
    assert_eq!(
        git::remote_commit(&url, Some("main")).await.unwrap(),
        Some(second.clone())
    );
    assert_eq!(git::remote_commit(&url, None).await.unwrap(), Some(second));
    assert_eq!(git::remote_commit(&url, Some(&first)).await.unwrap(), None, "pinned");

    let dest = tempfile::tempdir().unwrap();
    let err = git::fetch(&url, Some("nope"), dest.path()).await.unwrap_err();
    assert!(err.to_string().contains("is nope a branch, tag or commit"), "{err}");
}

#[tokio::test]
async fn a_lock_files_source_cannot_make_git_run_a_command() {
    let ws = Workspace::new();
    // Even where the user's git allows every protocol, `ext::` (git runs the command) is refused.
    write(&ws.home().join(".gitconfig"), "[protocol]\n\tallow = always\n");
    let canary = ws.dir.path().join("ext-ran");
    let source = format!("ext::sh -c touch% {}", canary.display());
    let entry = json!({"source": source, "ref": "main", "commit": "0".repeat(40), "installed_at": "2026-12-01T12:00:00Z", "hash": "ff"});
    write(
        &ws.work().join(".agents/skills/skills-lock.json"),
        &json!({"version": 1, "skills": {"cloned": entry}}).to_string(),
    );
    // Trusted, so its lock is followed at all (see the next test).
    assert_eq!(outcome(&ws, &["trust"]).await.0, 0);
    let mut cmd = ws.bare_agent();
    cmd.current_dir(ws.work()).args(["--json", "skills", "outdated"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(!canary.exists(), "git ran the command of an ext:: source");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["skills"][0]["status"], "unknown", "{report}");
}

#[tokio::test]
async fn an_untrusted_folders_lock_is_not_followed() {
    let ws = Workspace::new();
    // A cloned repository's lock whose "source" is a private folder of the user's.
    let private = ws.home().join(".ssh");
    write(&private.join("SKILL.md"), &skill_md("keys", "Private."));
    write(&private.join("id_ed25519"), "PRIVATE KEY\n");
    let entry = json!({"source": private.display().to_string(), "installed_at": "2026-12-01T12:00:00Z", "hash": "ff"});
    let project = ws.work().join(".agents/skills");
    write(
        &project.join("skills-lock.json"),
        &json!({"version": 1, "skills": {"keys": entry}}).to_string(),
    );
    let (code, out, err) = outcome(&ws, &["skills", "update", "--yes"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !project.join("keys").exists(),
        "an untrusted lock copied its source into the project"
    );
    assert!(
        err.contains("skills-lock.json is not used") && err.contains("agent trust"),
        "{err}"
    );
    let (_, out, _) = outcome(&ws, &["--json", "skills", "outdated"]).await;
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["skills"], json!([]), "{report}");

    // Once the user trusts the folder, its lock is theirs to follow.
    assert_eq!(outcome(&ws, &["trust"]).await.0, 0);
    let (_, out, _) = outcome(&ws, &["--json", "skills", "outdated"]).await;
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["skills"][0]["name"], "keys", "{report}");
}
