//! No way around the walls, round 4 (issue 32), through the real binary and the real kernel:
//! protected places stay protected wherever `agent` starts (a working folder of `~/.config`,
//! `~/.local`, `~/.agents` or `$HOME`), also when they do not exist yet and also by renaming the
//! folder above them away; places that run code later (`.envrc`, `.vscode`, a nested `.git`)
//! that a command creates are removed after it, with a warning; and an edited bundled skill runs
//! the binary's copy, not the edit. Each attack is also run with `--sandbox off` where that is
//! the switch, to show the test would see it succeed.

use std::path::{Path, PathBuf};

use crate::common::*;

/// Runs each `;;`-separated shell snippet of its arguments in the working folder and says, per
/// snippet, whether it succeeded.
const TRIER: &str = "#!/bin/sh\nfor t in \"$@\"; do\n  if (eval \"$t\") 2>/dev/null; then echo \"did: $t\"; else echo \"refused: $t\"; fi\ndone\nexit 0\n";

/// One `--once` turn in `cwd` under `--approve auto`, no terminal, `HOME` and `XDG_*` in the
/// workspace's home: (exit code, stderr, the command's result as the model saw it).
async fn turn_in(ws: &Workspace, cwd: &Path, command: &str, args: &[&str]) -> (i32, String, String) {
    let mock = MockLlm::start(activate_run_answer("trier", command, "done")).await;
    let mut cmd = ws.agent(&mock);
    let h = ws.home();
    cmd.current_dir(cwd)
        .env("XDG_CONFIG_HOME", h.join(".config"))
        .env("XDG_STATE_HOME", h.join(".local/state"))
        .env("XDG_CACHE_HOME", h.join(".cache"))
        .env("XDG_DATA_HOME", h.join(".local/share"))
        .args(["--once", "go", "--approve", "auto"])
        .args(args);
    let (code, _, stderr) = run_outcome(cmd).await;
    let result = mock.requests().await.get(2).map(last_tool_result).unwrap_or_default();
    (code, stderr, result)
}

/// The trier skill (outside the home) and a command running `snippets` with it.
fn trier(ws: &Workspace, snippets: &[&str]) -> String {
    ws.skill(
        "trier",
        "---\nname: trier\ndescription: Tries things.\n---\nRun ./run.sh\n",
        Some(TRIER),
    );
    let quoted: Vec<String> = snippets.iter().map(|s| format!("'{s}'")).collect();
    format!("./run.sh {}", quoted.join(" "))
}

fn seed(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test]
async fn started_in_dot_config_the_agents_own_files_stay_out_of_reach() {
    require_kernel!(kernel::landlock(3), kernel::namespaces());
    let ws = Workspace::new();
    let config = ws.home().join(".config");
    let env = config.join("agent/.env");
    seed(&env, "ORIGINAL=1\n");
    let attacks = [
        "echo AGENT_SANDBOX=off >> agent/.env",
        "echo x > agent/trust.json",
        "rm agent/.env",
        "mv agent agent.old",
        "mv agent/.env agent/.env.old",
        "chmod 0777 agent",
        "echo ok > normal.txt",
    ];
    let command = trier(&ws, &attacks);
    let (code, stderr, result) = turn_in(&ws, &config, &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        result.contains("did: echo ok > normal.txt"),
        "the control failed: {result}"
    );
    assert_eq!(read(&config.join("normal.txt")).as_deref(), Some("ok\n"));
    for attack in &attacks[..6] {
        assert!(result.contains(&format!("refused: {attack}")), "{attack}: {result}");
    }
    assert_eq!(read(&env).as_deref(), Some("ORIGINAL=1\n"));
    assert!(!config.join("agent/trust.json").exists() && !config.join("agent.old").exists());
    assert!(
        stderr.contains("holds protected places") && stderr.contains("agent's configuration"),
        "the start says so: {stderr}"
    );

    // The folder does not exist yet: it cannot be created with a .env in it.
    std::fs::remove_dir_all(config.join("agent")).unwrap();
    let create = [
        "mkdir -p agent && echo AGENT_SANDBOX=off > agent/.env",
        "echo ok > other.txt",
    ];
    let command = trier(&ws, &create);
    let (code, stderr, result) = turn_in(&ws, &config, &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains(&format!("refused: {}", create[0])), "{result}");
    assert!(result.contains("did: echo ok > other.txt"), "{result}");
    assert!(!env.exists(), "a .env was created: {result}");

    // Control: unconfined, the same attack works (the test sees it).
    let (_, stderr, result) = turn_in(&ws, &config, &command, &["--sandbox", "off"]).await;
    assert!(env.exists(), "the control attack failed: {result} {stderr}");
}

/// An installed skill and its lock under `~/.agents/skills`.
fn installed(ws: &Workspace) -> (PathBuf, PathBuf) {
    let root = ws.home().join(".agents/skills");
    let skill = root.join("inst/SKILL.md");
    seed(&skill, "---\nname: inst\ndescription: Installed.\n---\nbody\n");
    let lock = root.join("skills-lock.json");
    seed(&lock, "{\"version\":1,\"skills\":{}}\n");
    (skill, lock)
}

#[tokio::test]
async fn started_in_dot_agents_or_dot_local_skill_roots_locks_and_trust_stay_out_of_reach() {
    require_kernel!(kernel::landlock(3), kernel::namespaces());
    let ws = Workspace::new();
    let (skill, lock) = installed(&ws);
    let agents = ws.home().join(".agents");
    let attacks = [
        "echo planted >> skills/inst/SKILL.md",
        "echo {} > skills/skills-lock.json",
        "mkdir skills/planted",
        "mv skills skills.old && mkdir -p skills/planted",
        "echo ok > normal.txt",
    ];
    let command = trier(&ws, &attacks);
    let (code, stderr, result) = turn_in(&ws, &agents, &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("did: echo ok > normal.txt"), "{result}");
    for attack in &attacks[..4] {
        assert!(result.contains(&format!("refused: {attack}")), "{attack}: {result}");
    }
    assert!(!read(&skill).unwrap().contains("planted") && read(&lock).unwrap().contains("version"));
    assert!(!agents.join("skills/planted").exists() && !agents.join("skills.old").exists());

    // ~/.local: the trust records two folders down, and the folder between cannot be renamed.
    let local = ws.home().join(".local");
    let trust = local.join("state/agent/trust.json");
    seed(&trust, "{}\n");
    let attacks = [
        "echo x > state/agent/trust.json",
        "mv state state.old && mkdir -p state/agent && echo x > state/agent/trust.json",
        "mkdir -p share/agent/x",
        "echo ok > state/other.txt",
    ];
    let command = trier(&ws, &attacks);
    let (code, stderr, result) = turn_in(&ws, &local, &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("did: echo ok > state/other.txt"), "{result}");
    for attack in &attacks[..3] {
        assert!(result.contains(&format!("refused: {attack}")), "{attack}: {result}");
    }
    assert_eq!(read(&trust).as_deref(), Some("{}\n"));

    // Control: unconfined, the lock is rewritten.
    let command = trier(&ws, &["echo {} > skills/skills-lock.json"]);
    let _ = turn_in(&ws, &agents, &command, &["--sandbox", "off"]).await;
    assert_eq!(read(&lock).as_deref(), Some("{}\n"), "the control attack failed");
}

#[tokio::test]
async fn started_in_home_nothing_of_it_is_writable_and_the_start_says_so() {
    require_kernel!(kernel::landlock(3));
    let ws = Workspace::new();
    let (skill, lock) = installed(&ws);
    let env = ws.home().join(".config/agent/.env");
    seed(&env, "ORIGINAL=1\n");
    let attacks = [
        "echo AGENT_SANDBOX=off >> .config/agent/.env",
        "echo x >> .agents/skills/inst/SKILL.md",
        "echo x > .agents/skills/skills-lock.json",
        "echo x >> .bashrc",
    ];
    let command = trier(&ws, &attacks);
    let (code, stderr, result) = turn_in(&ws, &ws.home(), &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    for attack in attacks {
        assert!(result.contains(&format!("refused: {attack}")), "{attack}: {result}");
    }
    assert_eq!(read(&env).as_deref(), Some("ORIGINAL=1\n"));
    assert!(!read(&skill).unwrap().ends_with("x\n") && !read(&lock).unwrap().starts_with('x'));
    assert!(!ws.home().join(".bashrc").exists());
    assert!(stderr.contains("your home folder"), "the start says so: {stderr}");
}

#[tokio::test]
async fn places_that_run_later_created_by_a_command_are_removed_and_named() {
    require_kernel!(kernel::landlock(3));
    let ws = Workspace::new();
    let work = ws.work();
    // The working folder's own repository: never touched.
    std::fs::create_dir_all(work.join(".git/hooks")).unwrap();
    std::fs::write(work.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(work.join("old/.git")).unwrap();
    let planted = [
        ".envrc",
        ".vscode",
        "sub/.git",
        ".githooks",
        "deep/a/.husky",
        "old/.idea",
    ];
    let snippets = [
        "echo \"touch /tmp/x\" > .envrc",
        "mkdir -p .vscode && echo {} > .vscode/tasks.json",
        "mkdir -p sub/.git/hooks && echo x > sub/.git/hooks/post-checkout",
        "mkdir .githooks && echo x > .githooks/pre-commit",
        "mkdir -p deep/a/.husky && echo x > deep/a/.husky/pre-commit",
        "mkdir old/.idea",
        "echo x > old/.git/config",
        "echo ok > normal.txt",
    ];
    let command = trier(&ws, &snippets);
    let (code, stderr, result) = turn_in(&ws, &work, &command, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("did: echo ok > normal.txt"), "{result}");
    assert_eq!(read(&work.join("normal.txt")).as_deref(), Some("ok\n"));
    for p in planted {
        let path = std::fs::canonicalize(&work).unwrap().join(p);
        assert!(std::fs::symlink_metadata(&path).is_err(), "{p} stayed: {result}");
        assert!(
            stderr.contains(&format!("removed {}", path.display())),
            "{p} not named: {stderr}"
        );
        assert!(
            result.contains(&format!("removed {}", path.display())),
            "{p} not told: {result}"
        );
    }
    // What was there before stays, and an existing nested .git is kept read-only.
    assert_eq!(read(&work.join(".git/HEAD")).as_deref(), Some("ref: refs/heads/main\n"));
    if kernel::offers(kernel::namespaces()) {
        assert!(result.contains("refused: echo x > old/.git/config"), "{result}");
    }
    assert!(work.join("old/.git").is_dir() && work.join("sub").is_dir());

    // Control: unconfined, what is planted stays (the test would see it).
    for p in planted {
        let _ = std::fs::remove_dir_all(work.join(p));
    }
    let (_, _, result) = turn_in(&ws, &work, &command, &["--sandbox", "off"]).await;
    assert!(
        work.join(".envrc").exists() && work.join("sub/.git/hooks/post-checkout").exists(),
        "{result}"
    );
}

#[tokio::test]
async fn an_edited_bundled_skill_runs_as_shipped_and_the_user_is_told() {
    let ws = Workspace::new();
    let data = ws.home().join(".local/share");
    let with_bundled = |cmd: &mut assert_cmd::Command| {
        cmd.env("AGENT_BUNDLED_SKILLS", "1").env("XDG_DATA_HOME", &data);
    };
    let mut list = ws.bare_agent();
    with_bundled(&mut list);
    assert!(list.args(["skills", "list"]).output().unwrap().status.success());
    let copy = std::fs::read_dir(data.join("agent/bundled"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("time/run.sh").is_file())
        .expect("the bundled copy");
    let run = copy.join("time/run.sh");
    let shipped = std::fs::read(&run).unwrap();
    let canary = ws.dir.path().join("canary");
    std::fs::remove_file(&run).unwrap();
    write_script(&run, &format!("#!/bin/sh\ntouch '{}'\n", canary.display()));
    // Control: the edit works when run by hand.
    assert!(std::process::Command::new(&run).status().unwrap().success());
    assert!(canary.exists());
    std::fs::remove_file(&canary).unwrap();

    let mock = MockLlm::start(activate_run_answer("time", "./run.sh UTC", "done")).await;
    let mut cmd = ws.bare_agent();
    with_bundled(&mut cmd);
    cmd.envs(mock.env()).args(["--once", "go", "--approve", "auto"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!canary.exists(), "the edited script ran: {stderr}");
    assert_eq!(std::fs::read(&run).unwrap(), shipped);
    assert!(
        stderr.contains("bundled skill time was changed on disk (run.sh)") && stderr.contains("restored"),
        "{stderr}"
    );
    let result = mock.requests().await.get(2).map(last_tool_result).unwrap_or_default();
    assert!(result.contains("UTC"), "the shipped script ran: {result}");
}

/// What cannot be kept read-only is not left writable under `auto`: with `--allow-write ~`, a
/// missing startup file could be created, so the command is not run without asking.
#[tokio::test]
async fn what_cannot_be_kept_read_only_is_not_pre_approved() {
    require_kernel!(kernel::landlock(3), kernel::namespaces());
    let ws = Workspace::new();
    let profile = ws.home().join(".bash_profile");
    let command = trier(&ws, &[&format!("echo evil > {}", profile.display())]);
    let home = ws.home();
    let (_, stderr, result) = turn_in(&ws, &ws.work(), &command, &["--allow-write", home.to_str().unwrap()]).await;
    assert!(!profile.exists(), "{result}");
    assert!(
        result.contains("not run without asking") && result.contains(".bash_profile"),
        "{result} {stderr}"
    );
    assert!(stderr.contains("not run without asking"), "the user is told: {stderr}");
    // Control: without the home opened, the same command runs (and its write is refused).
    let (_, stderr, result) = turn_in(&ws, &ws.work(), &command, &[]).await;
    assert!(result.contains("refused: echo evil"), "{result} {stderr}");
    assert!(!profile.exists());
}
