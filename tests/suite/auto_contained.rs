//! `auto` runs what the sandbox can contain (issue 34 §2–§4), through the real binary under real
//! Landlock, with no terminal: ordinary tools and pipelines run inside the walls; a write outside
//! the working folder, undeclared network, undeclared secrets and protected places stay out of
//! reach, and installers and a grant of bare `Bash` lift none of it. Each test needs Landlock's
//! network rules (ABI 4) and says so when the kernel lacks them; with the sandbox off the classic
//! rule holds (tests/suite/approval_boundary.rs).

use std::net::TcpListener;

use crate::common::*;
use serde_json::Value;

fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Works on files with ordinary tools.\n{extra}---\nRun the commands you need.\n"
    )
}

/// One turn that activates `skill` and proposes `commands` in one response; (exit code, stderr,
/// the results the model got, the JSON events).
async fn turn(
    ws: &Workspace,
    skill: &str,
    commands: &[&str],
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, Vec<String>, Vec<Value>) {
    let mock = MockLlm::start(activate_run_all_answer(skill, commands, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go", "--approve", "auto", "--json"]).args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_output(cmd).await;
    let results = contents(&mock.requests().await[2], "tool")[1..].to_vec();
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        results,
        events,
    )
}

#[tokio::test]
async fn an_ordinary_pipeline_runs_contained_without_a_terminal() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("counter", &skill_md("counter", ""), None);
    std::fs::write(ws.work().join("input.txt"), "b\na\nc\n").unwrap();
    let commands = [
        "sort input.txt | head -n 2 > sorted.txt && wc -l < sorted.txt",
        "echo \"sandbox=$AGENT_SANDBOX\"",
    ];
    let (code, stderr, results, events) = turn(&ws, "counter", &commands, &[], &[]).await;
    assert_eq!(code, 0, "{stderr} {results:?}");
    assert!(
        results[0].starts_with("exit code: 0") && results[0].contains('2'),
        "{}",
        results[0]
    );
    assert_eq!(std::fs::read_to_string(ws.work().join("sorted.txt")).unwrap(), "a\nb\n");
    // Contained: the network is closed to it, as the child is told.
    assert!(results[1].contains("sandbox=strict"), "{}", results[1]);
    assert!(events.iter().all(|e| e["type"] != "command_denied"), "{events:?}");
    let started: Vec<&Value> = events.iter().filter(|e| e["type"] == "command_started").collect();
    assert!(started.iter().all(|e| e["contained"] == true), "{started:?}");
    // Control: the same pipeline under the classic rule (sandbox off) is denied.
    let (code, _, results, _) = turn(&ws, "counter", &commands[..1], &["--sandbox", "off"], &[]).await;
    assert_eq!(code, 6);
    assert!(
        results[0].starts_with("denied:") && results[0].contains("on a terminal"),
        "{}",
        results[0]
    );
}

#[tokio::test]
async fn a_write_outside_the_working_folder_is_refused_and_named() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    let dir = ws.skill("writer", &skill_md("writer", ""), None);
    let outside = ws.home().join("outside.txt");
    let own = dir.join("planted.txt");
    let commands = [
        format!("echo x > {}", outside.display()),
        format!("echo y > {}", own.display()),
    ];
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let (code, stderr, results, events) = turn(&ws, "writer", &commands, &[], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!outside.exists() && !own.exists(), "{results:?}");
    // Not even the skill's own folder: a command that is not its own script writes no skill.
    assert!(
        results[1].contains("any skill's folder is to a command that is not its own script"),
        "{}",
        results[1]
    );
    // The model is told, and so is the user (the `command_finished` event's hint).
    let shown = events
        .iter()
        .find(|e| e["type"] == "command_finished")
        .and_then(|e| e["sandbox_hint"].as_str())
        .unwrap_or_default()
        .to_string();
    for text in [&results[0], &shown] {
        assert!(text.contains("blocked by the sandbox"), "{text}");
        assert!(text.contains(&outside.display().to_string()), "{text}");
        assert!(text.contains("--allow-write"), "{text}");
    }
    // The user's --allow-write opens the place, even one that does not exist yet (created, said).
    let fresh = ws.home().join("exports");
    let command = format!("echo x > {}/a.txt", fresh.display());
    let fresh_arg = fresh.display().to_string();
    let (code, stderr, results, events) = turn(&ws, "writer", &[&command], &["--allow-write", &fresh_arg], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(results[0].starts_with("exit code: 0"), "{}", results[0]);
    let said = events
        .iter()
        .filter(|e| e["type"] == "warning")
        .filter_map(|e| e["message"].as_str())
        .any(|m| m.contains(&fresh_arg) && m.contains("created it"));
    assert!(said, "{events:?}");
    assert!(fresh.join("a.txt").exists());
}

/// A Python one-liner that connects to `port` on 127.0.0.1 and says whether it could.
fn connect(port: u16) -> String {
    format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')\""
    )
}

#[tokio::test]
async fn undeclared_network_is_refused_unless_declared_or_allowed_by_the_user() {
    require_kernel!(kernel::landlock(4));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws = Workspace::new();
    ws.skill("quiet", &skill_md("quiet", ""), None);
    ws.skill("fetcher", &skill_md("fetcher", "requires:\n  network: true\n"), None);
    let command = connect(port);
    let (code, stderr, results, _) = turn(&ws, "quiet", &[&command], &[], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!results[0].contains("connected"), "{}", results[0]);
    assert!(
        results[0].contains("sandbox") && results[0].contains("AGENT_ALLOW_NETWORK"),
        "{}",
        results[0]
    );
    let (_, _, results, _) = turn(&ws, "fetcher", &[&command], &[], &[]).await;
    assert!(results[0].contains("connected"), "declared: {}", results[0]);
    // The user's own setting, in ~/.config/agent/.env.
    let config = ws.home().join(".config/agent");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join(".env"), "AGENT_ALLOW_NETWORK=1\n").unwrap();
    let (_, _, results, _) = turn(&ws, "quiet", &[&command], &[], &[]).await;
    assert!(results[0].contains("connected"), "allowed by the user: {}", results[0]);
}

#[tokio::test]
async fn a_contained_command_gets_only_the_secrets_its_skill_declares() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    let requires = "requires:\n  env: [DECLARED_TOKEN]\n";
    ws.skill(
        "keys",
        &skill_md("keys", requires),
        Some("#!/bin/sh\necho \"own=${OTHER_API_KEY:+set}\"\n"),
    );
    let check = "echo \"declared=${DECLARED_TOKEN:+set} other=${OTHER_API_KEY:+set}\"";
    let env = [
        ("DECLARED_TOKEN", "tok-declared-123456"),
        ("OTHER_API_KEY", "key-undeclared-123456"),
    ];
    let (code, stderr, results, _) = turn(&ws, "keys", &[check, "./run.sh"], &[], &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(results[0].contains("declared=set other=\n"), "{}", results[0]);
    // The skill's own script gets the user's environment, as ever (docs/design.md#child-environment).
    assert!(results[1].contains("own=set"), "{}", results[1]);
}

#[tokio::test]
async fn protected_places_in_the_working_folder_stay_read_only() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("hooker", &skill_md("hooker", ""), None);
    std::fs::create_dir_all(ws.work().join(".git/hooks")).unwrap();
    let hook = ws.work().join(".git/hooks/pre-commit");
    let (_, stderr, results, _) = turn(&ws, "hooker", &["echo evil > .git/hooks/pre-commit"], &[], &[]).await;
    assert!(!hook.exists(), "{stderr} {results:?}");
}

#[tokio::test]
async fn installers_and_a_bare_bash_grant_are_still_refused_with_the_setting_that_allows_them() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("broad", &skill_md("broad", "allowed-tools: Read Write Bash\n"), None);
    let outside = ws.home().join("granted.txt");
    let touch = format!("touch {}", outside.display());
    let commands = [
        "pip install --user left-pad-nothing",
        "npm install -g nothing-at-all",
        &touch,
    ];
    let (code, stderr, results, _) = turn(&ws, "broad", &commands, &[], &[]).await;
    assert_eq!(code, 6, "{stderr}");
    for result in &results[..2] {
        assert!(result.starts_with("denied:"), "{result}");
        assert!(
            result.contains("AGENT_ALLOW_COMMANDS='Bash(") && result.contains("--allow-write"),
            "{result}"
        );
        assert!(!result.contains("--yes"), "{result}");
    }
    // The grant of any command runs one, but inside the same walls.
    assert!(!outside.exists(), "{}", results[2]);
    assert!(results[2].contains("blocked by the sandbox"), "{}", results[2]);
}

#[tokio::test]
async fn the_users_own_prefix_grant_lets_a_tool_run_unasked() {
    let ws = Workspace::new();
    ws.skill("lister", &skill_md("lister", ""), None);
    let config = ws.home().join(".config/agent");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join(".env"),
        "AGENT_ALLOW_COMMANDS='Bash(printf:*), Bash(git status:*)'\n",
    )
    .unwrap();
    // Under the classic rule (sandbox off) only the user's grant lets it run; `printf x; id` is
    // not one literal command, so it is still denied.
    let commands = ["printf 'allowed %s' yes", "printf x; id"];
    let (code, _, results, _) = turn(&ws, "lister", &commands, &["--sandbox", "off"], &[]).await;
    assert_eq!(code, 6);
    assert!(results[0].contains("allowed yes"), "{}", results[0]);
    assert!(results[1].starts_with("denied:"), "{}", results[1]);
}

/// Whatever the tool printed, a failure the sandbox caused names the path: Node and Python
/// report a refused write in words of their own.
#[tokio::test]
async fn a_refused_write_is_named_whatever_the_tool_printed() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("tools", &skill_md("tools", ""), None);
    let target = ws.home().join("out.txt");
    let t = target.display();
    let node = format!(
        "node -e \"require('fs').mkdirSync('{}', {{recursive: true}})\"",
        ws.home().join("deep").display()
    );
    let python = format!("python3 -c \"open('{t}', 'w')\"");
    let mut commands = vec![python.as_str()];
    let has_node = std::process::Command::new("node").arg("--version").output().is_ok();
    if has_node {
        commands.push(&node);
    }
    let (_, stderr, results, _) = turn(&ws, "tools", &commands, &[], &[]).await;
    for result in &results {
        assert!(
            result.contains("blocked by the sandbox") && result.contains(&ws.home().display().to_string()),
            "{stderr} {result}"
        );
    }
}
