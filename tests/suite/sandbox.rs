//! The sandbox through the real binary and the real kernel (docs/sandbox.md): what a skill's
//! command may write and reach under `--sandbox on|strict|off`, what it is told when it is
//! refused, and what the user is told when the kernel has no Landlock (simulated with the hidden
//! `AGENT_SANDBOX_ABI`). Every check is about the filesystem or a socket the test set up itself;
//! nothing depends on file permissions (the suite runs as root, and Landlock confines root too).

use std::path::{Path, PathBuf};

use agent::exec::sandbox::Kernel;
use serde_json::{Value, json};

use crate::common::*;

/// Writes `x` to every path given as an argument and says, per path, what happened (with the
/// shell's own error message, which names the path and `Permission denied`).
const WRITER: &str = "#!/bin/sh\necho \"AGENT_SANDBOX=$AGENT_SANDBOX\"\nfor t in \"$@\"; do\n  if (echo x > \"$t\") 2>&1; then echo \"wrote $t\"; else echo \"refused $t\"; fi\ndone\nexit 0\n";

/// Like [`WRITER`], but exits 1 when a write was refused, as a real script would.
const STRICT_WRITER: &str = "#!/bin/sh\nfor t in \"$@\"; do echo x > \"$t\" || exit 1; done\n";

/// Opens a socket to 127.0.0.1:$2 with bash's /dev/$1 (`tcp` or `udp`) and says whether it could.
const CONNECTOR: &str = "#!/bin/bash\necho \"AGENT_SANDBOX=$AGENT_SANDBOX\"\nif exec 3<>\"/dev/$1/127.0.0.1/$2\"; then echo connected; else echo refused; exit 1; fi\n";

/// What a refused write says: "Read-only file system" in the command's own mount namespace,
/// Landlock's "Permission denied" where the machine gives it none (docs/sandbox.md).
fn refusal() -> &'static str {
    if agent::exec::sandbox::readonly::available().is_ok() {
        "Read-only file system"
    } else {
        "Permission denied"
    }
}

fn skill_md(name: &str, requires: &str) -> String {
    format!("---\nname: {name}\ndescription: Test skill {name}.\n{requires}---\nRun ./run.sh\n")
}

/// One `--once` turn that activates `skill` and runs `command`; returns (exit code, stderr, the
/// command's result as the model saw it).
async fn turn(
    ws: &Workspace,
    skill: &str,
    command: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, String) {
    let mock = MockLlm::start(activate_run_answer(skill, command, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, _, stderr) = run_outcome(cmd).await;
    let requests = mock.requests().await;
    let result = requests.get(2).map(last_tool_result).unwrap_or_default();
    (code, stderr, result)
}

/// Quoted paths for a command line.
fn args(paths: &[&Path]) -> String {
    paths
        .iter()
        .map(|p| format!("'{}'", p.display()))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Places {
    own: PathBuf,
    work: PathBuf,
    home: PathBuf,
    other: PathBuf,
    declared: PathBuf,
}

/// A `writer` skill that declares `~/notes`, another skill beside it, and where each would write.
fn places(ws: &Workspace) -> Places {
    let own = ws.skill(
        "writer",
        &skill_md("writer", "requires:\n  write: [~/notes]\n"),
        Some(WRITER),
    );
    let other = ws.skill("other", &skill_md("other", ""), Some("#!/bin/sh\necho other\n"));
    std::fs::create_dir_all(ws.home().join("notes")).unwrap();
    Places {
        own: own.join("own-canary"),
        work: ws.work().join("work-canary"),
        home: ws.home().join("home-canary"),
        other: other.join("other-canary"),
        declared: ws.home().join("notes/declared-canary"),
    }
}

#[tokio::test]
async fn a_command_writes_only_where_its_skill_may() {
    require_kernel!(kernel::landlock(3));
    let ws = Workspace::new();
    let p = places(&ws);
    let all = [&p.own, &p.work, &p.home, &p.other, &p.declared].map(PathBuf::as_path);
    let (code, stderr, result) = turn(&ws, "writer", &format!("./run.sh {}", args(&all)), &["--yes"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("AGENT_SANDBOX=on"), "{result}");
    for allowed in [&p.own, &p.work, &p.declared] {
        assert!(allowed.exists(), "{} was not written: {result}", allowed.display());
        assert!(result.contains(&format!("wrote {}", allowed.display())), "{result}");
    }
    for refused in [&p.home, &p.other] {
        assert!(!refused.exists(), "{} was written: {result}", refused.display());
        assert!(result.contains(&format!("refused {}", refused.display())), "{result}");
        assert!(
            result.contains(&format!("{}: {}", refused.display(), refusal())),
            "refused with EROFS (EACCES without a namespace): {result}"
        );
    }
}

#[tokio::test]
async fn a_refused_write_is_explained_to_the_model_and_the_user() {
    require_kernel!(kernel::landlock(3));
    let ws = Workspace::new();
    ws.skill("strict-writer", &skill_md("strict-writer", ""), Some(STRICT_WRITER));
    let canary = ws.home().join(".bashrc");
    let command = format!("./run.sh {}", args(&[&canary]));
    let (code, stderr, result) = turn(&ws, "strict-writer", &command, &["--yes"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!canary.exists());
    for text in [&result, &stderr] {
        assert!(
            text.contains("blocked by the sandbox") && text.contains(&canary.display().to_string()),
            "{text}"
        );
        assert!(
            text.contains("requires.write") && text.contains("--allow-write"),
            "{text}"
        );
    }

    // The user's --allow-write lifts it for every skill; AGENT_ALLOW_WRITE too.
    let (code, stderr, result) = turn(
        &ws,
        "strict-writer",
        &command,
        &["--yes", "--allow-write", &ws.home().display().to_string()],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.starts_with("exit code: 0"), "{result}");
    assert!(canary.exists());
    // A folder that does not exist yet is created, and the user is told once, before anything runs.
    let (_, stderr, _) = turn(
        &ws,
        "strict-writer",
        "./run.sh",
        &["--yes", "--allow-write", "out"],
        &[],
    )
    .await;
    let out = ws.work().join("out").display().to_string();
    assert_eq!(
        stderr
            .matches(&format!("--allow-write {out}: it did not exist; created it"))
            .count(),
        1,
        "{stderr}"
    );
    assert!(ws.work().join("out").is_dir());

    let second = ws.home().join("second");
    let command = format!("./run.sh {}", args(&[&second]));
    let home = ws.home().display().to_string();
    let (_, _, result) = turn(
        &ws,
        "strict-writer",
        &command,
        &["--yes"],
        &[("AGENT_ALLOW_WRITE", &home)],
    )
    .await;
    assert!(result.starts_with("exit code: 0"), "{result}");
    assert!(second.exists());
}

#[tokio::test]
async fn a_setsid_grandchild_is_confined_too() {
    require_kernel!(kernel::landlock(3));
    let ws = Workspace::new();
    let script = "#!/bin/sh\nsetsid -w sh -c 'echo x > \"$HOME/grandchild-canary\"; echo ran > \"$SKILL_DIR/grandchild-ran\"'\necho parent done\n";
    let dir = ws.skill("escaper", &skill_md("escaper", ""), Some(script));
    let (code, stderr, result) = turn(&ws, "escaper", "./run.sh", &["--yes"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("parent done"), "{result}");
    assert!(dir.join("grandchild-ran").exists(), "the grandchild ran: {result}");
    assert!(!ws.home().join("grandchild-canary").exists(), "{result}");
    assert!(result.contains(refusal()), "{result}");
}

#[tokio::test]
async fn strict_closes_tcp_and_udp_unless_the_skill_declares_the_network() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("offline", &skill_md("offline", ""), Some(CONNECTOR));
    ws.skill(
        "online",
        &skill_md("online", "requires:\n  network: true\n"),
        Some(CONNECTOR),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let command = format!("./run.sh tcp {}", listener.local_addr().unwrap().port());

    let (code, stderr, result) = turn(&ws, "offline", &command, &["--yes", "--sandbox", "strict"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        result.contains("AGENT_SANDBOX=strict") && result.contains("refused"),
        "{result}"
    );
    assert!(result.contains("Permission denied"), "refused with EACCES: {result}");
    assert!(result.contains("requires.network"), "the model is told why: {result}");

    // UDP is outside Landlock's rules: strict's seccomp filter refuses the socket itself.
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_command = format!("./run.sh udp {}", udp.local_addr().unwrap().port());
    let (_, _, result) = turn(&ws, "offline", &udp_command, &["--yes", "--sandbox", "strict"], &[]).await;
    assert!(
        result.contains("refused") && result.contains("Permission denied"),
        "{result}"
    );

    for command in [&command, &udp_command] {
        let (_, _, result) = turn(&ws, "online", command, &["--yes"], &[("AGENT_SANDBOX", "strict")]).await;
        assert!(
            result.contains("AGENT_SANDBOX=on") && result.contains("connected"),
            "{command}: {result}"
        );
    }

    // The flag wins over the variable.
    let (_, _, result) = turn(
        &ws,
        "offline",
        &command,
        &["--yes", "--sandbox", "on"],
        &[("AGENT_SANDBOX", "strict")],
    )
    .await;
    assert!(
        result.contains("AGENT_SANDBOX=on") && result.contains("connected"),
        "{result}"
    );
}

#[tokio::test]
async fn sandbox_off_lifts_all_of_it() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    let p = places(&ws);
    let command = format!("./run.sh {}", args(&[&p.home, &p.other]));
    let (code, stderr, result) = turn(&ws, "writer", &command, &["--yes", "--sandbox", "off"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("AGENT_SANDBOX=off"), "{result}");
    assert!(p.home.exists() && p.other.exists(), "{result}");

    ws.skill("offline", &skill_md("offline", ""), Some(CONNECTOR));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let command = format!("./run.sh tcp {}", listener.local_addr().unwrap().port());
    let (_, _, result) = turn(&ws, "offline", &command, &["--yes"], &[("AGENT_SANDBOX", "off")]).await;
    assert!(result.contains("connected"), "{result}");
}

/// The `session` event of a `--json` run, and its stderr.
async fn session(ws: &Workspace, args: &[&str], env: &[(&str, &str)]) -> (Value, String, Vec<Value>) {
    let mock = MockLlm::start(vec![text("hi")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "hello", "--json"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let events: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let session = events.iter().find(|e| e["type"] == "session").cloned().unwrap();
    (session, stderr, events)
}

#[tokio::test]
async fn the_session_event_names_the_sandbox() {
    let ws = Workspace::new();
    let kernel = Kernel::detect();
    let (s, _, _) = session(&ws, &[], &[]).await;
    let expected = if kernel.abi == 0 {
        "unavailable".to_string()
    } else {
        format!("landlock-v{}", kernel.abi)
    };
    assert_eq!(
        (s["sandbox"].as_str(), s["sandbox_mode"].as_str()),
        (Some(expected.as_str()), Some("on"))
    );
    let (s, _, _) = session(&ws, &["--sandbox", "off"], &[]).await;
    assert_eq!(
        (s["sandbox"].as_str(), s["sandbox_mode"].as_str()),
        (Some("off"), Some("off"))
    );
    let (s, _, _) = session(&ws, &[], &[("AGENT_SANDBOX_ABI", "5")]).await;
    if kernel.abi >= 5 {
        assert_eq!(s["sandbox"], "landlock-v5");
    }
    // A kernel before Landlock ABI 3 cannot stop truncation: partial, and said so once.
    let (s, _, events) = session(&ws, &[], &[("AGENT_SANDBOX_ABI", "2")]).await;
    if kernel.abi >= 2 {
        assert_eq!(s["sandbox"], "landlock-v2");
        let partial = events
            .iter()
            .filter(|e| e["type"] == "warning" && e["message"].as_str().unwrap().contains("sandbox is partial"))
            .count();
        assert_eq!(partial, 1, "{events:?}");
    }
}

#[tokio::test]
async fn without_landlock_the_user_is_warned_once_and_strict_runs_nothing() {
    let ws = Workspace::new();
    let p = places(&ws);
    let no_landlock = [("AGENT_SANDBOX_ABI", "0")];
    let (s, stderr, events) = session(&ws, &[], &no_landlock).await;
    assert_eq!(s["sandbox"], "unavailable");
    let warnings: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "warning" && e["message"].as_str().unwrap().contains("sandbox is unavailable"))
        .collect();
    assert_eq!(warnings.len(), 1, "{events:?} {stderr}");

    // On: said once on stderr; the commands run unconfined, and know it.
    let mock = MockLlm::start(activate_run_all_answer(
        "writer",
        &[&format!("./run.sh {}", args(&[&p.home])), "./run.sh"],
        "done",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go", "--yes"]).env("AGENT_SANDBOX_ABI", "0");
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.matches("sandbox is unavailable").count(), 1, "{stderr}");
    assert!(stderr.contains("unconfined"), "{stderr}");
    assert!(p.home.exists(), "it ran unconfined");
    let results = contents(&mock.requests().await[2], "tool");
    assert!(results[1].contains("AGENT_SANDBOX=off"), "{}", results[1]);

    // Strict: refused before anyone is asked, with a reason for the model and the user.
    std::fs::remove_file(&p.home).unwrap();
    let (code, stderr, result) = turn(
        &ws,
        "writer",
        &format!("./run.sh {}", args(&[&p.home])),
        &["--yes", "--sandbox", "strict"],
        &no_landlock,
    )
    .await;
    assert_eq!(code, 6, "answered, with a command not run: {stderr}");
    assert!(!p.home.exists());
    assert!(
        result.contains("--sandbox strict cannot be enforced") && result.contains("--sandbox on"),
        "{result}"
    );
    assert_eq!(
        stderr.matches("--sandbox strict cannot be enforced").count(),
        2,
        "the warning and the denial: {stderr}"
    );
}

#[tokio::test]
async fn skills_show_and_sandbox_status_say_what_commands_get() {
    let ws = Workspace::new();
    let p = places(&ws);
    let notes = ws.home().join("notes").display().to_string();
    let mock = MockLlm::start(vec![]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["skills", "show", "writer", "--sandbox", "strict"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    if kernel::offers(kernel::landlock(4)) {
        assert!(
            stdout.contains(&format!("writes:    {notes} (requires.write)")),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("{} (its folder)", p.own.parent().unwrap().display())),
            "{stdout}"
        );
        assert!(stdout.contains("network:   off"), "{stdout}");
    }

    let mut cmd = ws.agent(&mock);
    cmd.args(["sandbox", "status", "--json"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    let status: Value = serde_json::from_str(stdout.trim()).unwrap();
    if kernel::offers(kernel::landlock(1)) {
        assert_eq!(status["enforced"], json!(true), "{status}");
    }
    let mut cmd = ws.agent(&mock);
    cmd.args(["sandbox", "status"]).env("AGENT_SANDBOX_ABI", "0");
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("mode:           on (unavailable)"), "{stdout}");
    assert!(
        stdout.contains("no Landlock") && stdout.contains("warning:"),
        "{stdout}"
    );
}

/// `agent sandbox` alone is `agent sandbox status` (issue 39, item 6), not a usage error.
#[tokio::test]
async fn sandbox_alone_reports_the_status() {
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.args(["sandbox", "--json"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert!(code == 0 || code == 1, "{stderr}");
    let status: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    assert!(status.get("enforced").is_some(), "{status}");
}
