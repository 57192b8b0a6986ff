//! A failed command's reason is visible: the last lines of its stderr under the command in human
//! mode (sanitised, secrets redacted) and in `command_finished.stderr_tail` with `--json`.

use crate::common::*;
use serde_json::Value;

/// Run one turn that activates `skill` and runs `command`; returns (exit code, stdout, stderr).
async fn run_failing(ws: &Workspace, skill: &str, command: &str, extra: &[&str]) -> (i32, String, String) {
    let mock = MockLlm::start(activate_run_answer(skill, command, "It failed.")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go"]).args(extra);
    run_outcome(cmd).await
}

fn finished(stdout: &str) -> Value {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "command_finished")
        .expect("a command_finished event")
}

#[tokio::test]
async fn exit_1_shows_the_last_lines_of_stderr() {
    let ws = Workspace::new();
    ws.skill(
        "fetch",
        "# Fetch\n\nFetches a page from the web.\n",
        Some(
            "#!/bin/sh\nfor i in 1 2 3 4 5 6; do echo \"noise $i\" >&2; done\n\
             echo 'curl: (6) Could not resolve host: example.invalid' >&2\nexit 1\n",
        ),
    );
    let (code, _, stderr) = run_failing(&ws, "fetch", "./run.sh", &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let status = stderr.find("exit 1 ·").expect(&stderr);
    let reason = stderr
        .find("│ curl: (6) Could not resolve host: example.invalid")
        .expect(&stderr);
    assert!(status < reason, "the reason comes under the command: {stderr}");
    assert!(
        !stderr.contains("noise 1") && !stderr.contains("noise 2"),
        "only the last lines: {stderr}"
    );
    assert!(stderr.contains("│ noise 6"), "{stderr}");

    let (_, stdout, _) = run_failing(&ws, "fetch", "./run.sh", &["--json"]).await;
    let event = finished(&stdout);
    assert_eq!(event["exit_code"], 1);
    let tail: Vec<&str> = event["stderr_tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(
        tail,
        [
            "noise 3",
            "noise 4",
            "noise 5",
            "noise 6",
            "curl: (6) Could not resolve host: example.invalid"
        ]
    );
}

#[tokio::test]
async fn exit_126_says_the_script_is_not_executable() {
    let ws = Workspace::new();
    let dir = ws.skill("noexec", "# Noexec\n\nA script that lost its execute bit.\n", None);
    // With a `#!` line it would run by that interpreter (skill_habits.rs); without one it cannot.
    std::fs::write(dir.join("run.sh"), "echo hi\n").unwrap();
    let (code, _, stderr) = run_failing(&ws, "noexec", "./run.sh", &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("exit 126 ·"), "{stderr}");
    assert!(
        stderr.contains("│ ") && stderr.contains("Permission denied"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_bundled_database_skill_says_sqlite_db_is_missing() {
    let ws = Workspace::new();
    let mock = MockLlm::start(activate_run_answer(
        "database",
        "scripts/query.sh 'SELECT 1'",
        "No database.",
    ))
    .await;
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_BASE_URL", mock.base_url())
        .arg("--skills-dir")
        .arg(repo_path("skills"))
        .args(["--once", "how many orders?"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("exit 1 ·"), "{stderr}");
    assert!(stderr.contains("│ SQLITE_DB is not set"), "{stderr}");
}

#[tokio::test]
async fn the_tail_is_redacted_and_sanitised_and_hidden_on_success() {
    let ws = Workspace::new();
    ws.skill(
        "leaky",
        "# Leaky\n\nPrints a secret and an escape sequence on stderr.\n",
        Some("#!/bin/sh\nprintf 'token %s \\033]0;pwned\\007 done\\n' \"$MY_API_TOKEN\" >&2\nexit \"${1:-3}\"\n"),
    );
    let mock = MockLlm::start(activate_run_answer("leaky", "./run.sh", "ok")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("MY_API_TOKEN", "tok-0123456789abcdef").args(["--once", "go"]);
    let (code, stdout, stderr) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("│ token [REDACTED:MY_API_TOKEN] \\x1b]0;pwned\\x07 done"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("tok-0123456789abcdef") && !stderr.contains('\x1b'),
        "{stderr:?}"
    );
    assert!(!stdout.contains('\x1b'));

    // A command that succeeds keeps its stderr out of the way in human mode.
    let (code, _, stderr) = run_failing(&ws, "leaky", "./run.sh 0", &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("exit 0 ·") && !stderr.contains("│ token"), "{stderr}");
}
