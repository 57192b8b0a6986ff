//! Installing repositories laid out as the public ones are (issue 23), from local git
//! repositories: openai/skills' hidden category folders, Composio's folders whose skills call
//! themselves something else, whole-repository installs with `--all`, re-adding a partly
//! installed repository, names starting with `-`, and what an interrupted install left behind.

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use crate::common::library::{git, lock, outcome, skill_md, url, write};
use crate::common::*;
use serde_json::Value;

/// A repository laid out as openai/skills is: skills only in hidden category folders.
fn openai_layout(ws: &Workspace) -> PathBuf {
    let repo = ws.dir.path().join("openai-like");
    write(
        &repo.join("skills/.curated/gh-fix-ci/SKILL.md"),
        &skill_md("gh-fix-ci", "Fix CI."),
    );
    write(
        &repo.join("skills/.system/skill-creator/SKILL.md"),
        &skill_md("skill-creator", "Create."),
    );
    write(
        &repo.join("skills/.experimental/notes/SKILL.md"),
        &skill_md("notes", "Take notes."),
    );
    write(&repo.join("README.md"), "# skills\n");
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    repo
}

fn installed(ws: &Workspace) -> Vec<String> {
    let mut names: Vec<String> = lock(ws)["skills"].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

#[tokio::test]
async fn hidden_category_folders_install_and_all_takes_every_skill() {
    let ws = Workspace::new();
    let repo = openai_layout(&ws);
    // Without a terminal and without a choice: a short list, the count, and both ways out.
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo)]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds 3 skills") && err.contains("--skill") && err.contains("--all"),
        "{err}"
    );

    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "gh-fix-ci"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lock(&ws)["skills"]["gh-fix-ci"]["subdir"], "skills/.curated/gh-fix-ci");

    // Partly installed: --all installs the rest and leaves the installed one alone.
    let (code, out, err) = outcome(&ws, &["--json", "skills", "add", &url(&repo), "--all"]).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["already"], serde_json::json!(["gh-fix-ci"]));
    assert_eq!(report["installed"].as_array().unwrap().len(), 2, "{report}");
    assert_eq!(installed(&ws), ["gh-fix-ci", "notes", "skill-creator"]);
}

#[tokio::test]
async fn a_repository_without_skills_says_where_it_looked() {
    let ws = Workspace::new();
    let repo = ws.dir.path().join("empty-repo");
    write(&repo.join(".github/skills/x/SKILL.md"), &skill_md("x", "Hidden."));
    write(&repo.join("docs/README.md"), "# nothing\n");
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo)]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds no skill") && err.contains("searched") && err.contains("#SUBDIR"),
        "{err}"
    );
}

#[tokio::test]
async fn folders_keep_the_sources_names_and_dash_names_work() {
    let ws = Workspace::new();
    let repo = ws.dir.path().join("composio-like");
    let many = |name: &str, declared: &str| {
        write(
            &repo.join("composio-skills").join(name).join("SKILL.md"),
            &format!("---\nname: {declared}\ndescription: Automates {declared} tasks for tests.\n---\nbody\n"),
        );
    };
    many("ahrefs-automation", "Ahrefs Automation");
    many("video-downloader", "youtube-downloader");
    many("-21risk-automation", "-21risk-automation");
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);

    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "-21risk-automation"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--all"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("names it \"youtube-downloader\"") && err.contains("name-folder-mismatch"),
        "the mismatch is reported: {err}"
    );
    assert_eq!(
        installed(&ws),
        ["-21risk-automation", "ahrefs-automation", "video-downloader"]
    );
    let root = ws.home().join(".agents/skills");
    assert!(root.join("ahrefs-automation/SKILL.md").is_file());

    let (code, _, err) = outcome(&ws, &["skills", "remove", "-21risk-automation"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!root.join("-21risk-automation").exists());
}

#[tokio::test]
async fn what_an_interrupted_install_left_is_cleared_by_the_next() {
    let ws = Workspace::new();
    let repo = openai_layout(&ws);
    let root = ws.home().join(".agents/skills");
    // A staging folder of a process that is gone (pid 0 never names a live process in /proc).
    let dead = root.join(".deepchem.staged-0");
    write(&dead.join("SKILL.md"), "half a copy\n");
    let live = root.join(format!(".other.staged-{}", std::process::id()));
    write(&live.join("SKILL.md"), "a copy in progress\n");
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--skill", "notes"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!dead.exists(), "the dead install's staging folder is gone");
    assert!(live.exists(), "a running install's staging folder is left alone");
    let hidden: Vec<String> = entries(&root).into_iter().filter(|n| n.starts_with('.')).collect();
    assert_eq!(hidden, [live.file_name().unwrap().to_string_lossy().to_string()]);
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// A repository of three skills, each with a shell script saved without its executable bit.
fn unrunnable_scripts(ws: &Workspace) -> PathBuf {
    let repo = ws.dir.path().join("scientific-like");
    for name in ["deepchem", "rdkit", "scanpy"] {
        let dir = repo.join("scientific-skills").join(name);
        write(
            &dir.join("SKILL.md"),
            &skill_md(name, "Run `./scripts/go.sh data.csv`."),
        );
        write(&dir.join("scripts/go.sh"), "#!/bin/sh\necho go\n");
    }
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    repo
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_the_fix_question_is_asked_once_and_ctrl_c_there_leaves_nothing() {
    let ws = std::sync::Arc::new(Workspace::new());
    let source = url(&unrunnable_scripts(&ws));
    let root = ws.home().join(".agents/skills");
    let (w, s) = (ws.clone(), source.clone());
    crate::common::pty::blocking(move || {
        let mut cmd = crate::common::pty::pty_agent(&w);
        cmd.args(["skills", "add", &s, "--all"]);
        let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("3 script(s) without the executable bit in 3 skills")
            .unwrap();
        p.send_control('c').unwrap();
        p.exp_eof().unwrap();
    })
    .await;
    let left = if root.exists() { entries(&root) } else { Vec::new() };
    assert!(
        left.iter().all(|n| !n.contains(".staged-")),
        "no staging folder after Ctrl-C at the prompt: {left:?}"
    );

    let w = ws.clone();
    let out = crate::common::pty::blocking(move || {
        let mut cmd = crate::common::pty::pty_agent(&w);
        cmd.args(["skills", "add", &source, "--all"]);
        let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
        p.exp_string("fix them in the installed copies?").unwrap();
        crate::common::pty::type_line(&mut p, "y");
        let rest = p.exp_eof().unwrap();
        assert!(!rest.contains("fix them"), "asked once for the whole install: {rest}");
        assert!(!rest.contains("CRLF"), "only the problems present are named: {rest}");
    });
    out.await;
    for name in ["deepchem", "rdkit", "scanpy"] {
        let script = root.join(name).join("scripts/go.sh");
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&script).unwrap().permissions());
        assert_ne!(mode & 0o100, 0, "{name}: fixed after the one yes");
    }
}

/// A `git` first on `PATH` that logs each call's arguments, one line each, then runs the real one.
fn logging_git(ws: &Workspace) -> (PathBuf, PathBuf) {
    let real = Std::new("sh").args(["-c", "command -v git"]).output().unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let bin = ws.dir.path().join("logging-bin");
    let log = ws.dir.path().join("git-calls.log");
    std::fs::create_dir_all(&bin).unwrap();
    write_script(
        &bin.join("git"),
        &format!("#!/bin/sh\necho \"$*\" >> '{}'\nexec '{real}' \"$@\"\n", log.display()),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    (PathBuf::from(path), log)
}

#[tokio::test]
async fn outdated_asks_each_source_once_and_only_changed_subfolders_are_outdated() {
    let ws = Workspace::new();
    let mono = ws.dir.path().join("monorepo");
    for name in ["alpha", "beta", "gamma"] {
        write(
            &mono.join("skills").join(name).join("SKILL.md"),
            &skill_md(name, "Body."),
        );
    }
    git(&mono, &["init", "--quiet"]);
    git(&mono, &["add", "."]);
    git(&mono, &["commit", "--quiet", "-m", "first"]);
    let single = ws.dir.path().join("single");
    write(&single.join("SKILL.md"), &skill_md("solo", "Alone."));
    git(&single, &["init", "--quiet"]);
    git(&single, &["add", "."]);
    git(&single, &["commit", "--quiet", "-m", "first"]);
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&mono), "--all"]).await;
    assert_eq!(code, 0, "{err}");
    // A short commit id works like a full one and is recorded with the full commit.
    let full = git(&single, &["rev-parse", "HEAD"]);
    let pinned = format!("{}@{}", url(&single), &full[..7]);
    let (code, _, err) = outcome(&ws, &["skills", "add", &pinned]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lock(&ws)["skills"]["solo"]["commit"], full.as_str());

    write(&mono.join("skills/beta/SKILL.md"), &skill_md("beta", "Better body."));
    write(&mono.join("README.md"), "# other change\n");
    git(&mono, &["add", "."]);
    git(&mono, &["commit", "--quiet", "-m", "beta changes"]);

    let (path, log) = logging_git(&ws);
    let mut cmd = ws.bare_agent();
    cmd.env("PATH", &path).args(["skills", "outdated"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 1, "something is outdated: {out}{err}");
    let outdated: Vec<&str> = out.lines().filter(|l| l.contains("outdated:")).collect();
    assert_eq!(outdated.len(), 1, "{out}");
    assert!(outdated[0].starts_with("beta"), "{out}");
    assert!(
        out.contains("1 outdated, 2 up to date, 1 pinned to a commit, of 4 installed"),
        "{out}"
    );
    assert!(
        !out.contains("alpha") && !out.contains("gamma"),
        "only what is outdated is listed: {out}"
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    let asked = calls.lines().filter(|l| l.contains(" ls-remote ")).count();
    assert_eq!(
        asked, 1,
        "one query for the monorepo's three skills, none for a pinned commit: {calls}"
    );
    let fetched = calls.lines().filter(|l| l.contains(" fetch ")).count();
    assert_eq!(fetched, 1, "the changed source is fetched once to look inside: {calls}");

    let (code, out, _) = outcome(&ws, &["skills", "update", "alpha"]).await;
    assert_eq!(code, 0, "an up-to-date skill has nothing to update: {out}");
}

#[tokio::test]
async fn remove_of_an_unknown_name_offers_the_nearest_and_show_offers_a_typeable_command() {
    let ws = Workspace::new();
    let repo = ws.dir.path().join("many");
    for i in 0..30 {
        let name = format!("tool{i:02}-automation");
        write(&repo.join(&name).join("SKILL.md"), &skill_md(&name, "Body."));
    }
    write(
        &repo.join("apify-automation/SKILL.md"),
        "---\nname: Apify Automation\ndescription: Automates Apify actors for tests of names.\n---\nbody\n",
    );
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let (code, _, err) = outcome(&ws, &["skills", "add", &url(&repo), "--all"]).await;
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = outcome(&ws, &["skills", "remove", "tool07-automaton"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("tool07-automaton: there is no installed skill of that name; did you mean tool07-automation"),
        "{err}"
    );
    assert!(!err.contains("tool29-automation"), "not every entry: {err}");

    let (code, out, err) = outcome(&ws, &["skills", "show", "Apify Automation"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("agent --skill 'Apify Automation'"), "{out}");
    assert!(!out.contains("/Apify Automation"), "{out}");
}

#[tokio::test]
async fn update_of_a_name_in_both_roots_says_which_root_each_line_is_about() {
    let ws = Workspace::new();
    let repo = openai_layout(&ws);
    for extra in [&[][..], &["--project"][..]] {
        let mut args = vec!["skills", "add"];
        let source = url(&repo);
        args.push(&source);
        args.extend(["--skill", "notes"]);
        args.extend(extra);
        let (code, _, err) = outcome(&ws, &args).await;
        assert_eq!(code, 0, "{err}");
    }
    // The project's lock is used once its folder is trusted.
    let (code, _, err) = outcome(&ws, &["trust"]).await;
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = outcome(&ws, &["skills", "update", "notes"]).await;
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("notes")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    let user_root = ws.home().join(".agents/skills");
    let project_root = ws.work().join(".agents/skills");
    assert!(lines.iter().any(|l| l.contains(&*user_root.to_string_lossy())), "{out}");
    assert!(
        lines.iter().any(|l| l.contains(&*project_root.to_string_lossy())),
        "{out}"
    );
}
