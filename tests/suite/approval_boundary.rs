//! The approval boundary (docs/design.md#approval-boundary) under attack, through the real binary:
//! a hostile scripted model proposes commands that once slipped past the check, under `--approve
//! auto` and through `allowed-tools` grants, with no terminal to ask on. A canary file proves
//! nothing ran.

use std::path::{Path, PathBuf};

use crate::common::{run_output as run, *};
use serde_json::{Value, json};

/// A skill whose `run.sh` prints its arguments, one per line, in brackets.
const ECHO_ARGS: &str = "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n";

fn skill_md(name: &str, grants: &str) -> String {
    format!("---\nname: {name}\ndescription: Prints its arguments.\n{grants}---\nRun ./run.sh ARGS\n")
}

/// Probes that used to run `touch CANARY` (or worse) without asking, and the ones that always held.
fn probes(canary: &Path) -> Vec<String> {
    let c = canary.display();
    [
        "./run.sh #'\ntouch {c} #'",
        "./run.sh &>/dev/null touch {c}",
        ">/dev/null X=/../run.sh touch {c}",
        "./run.sh x; touch {c}",
        "./run.sh x && touch {c}",
        "./run.sh x | touch {c}",
        "./run.sh $(touch {c})",
        "./run.sh `touch {c}`",
        "./run.sh \"$(touch {c})\"",
        "./run.sh x\ntouch {c}",
        "./run.sh x\rtouch {c}",
        "./run.sh <<EOF\n$(touch {c})\nEOF",
        "./run.sh x；touch {c}",
        "./run.sh x 2>&1 >{c}",
        "PATH=. ./run.sh x {c}",
        "git status && touch {c}",
    ]
    .iter()
    .map(|p| p.replace("{c}", &c.to_string()))
    .collect()
}

/// Run one agent turn that activates `skill` and proposes every command at once; return
/// (exit code, stderr, the tool results the model got for the commands).
async fn propose(ws: &Workspace, skill: &str, commands: &[String], extra: &[&str]) -> (i32, String, Vec<String>) {
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let mock = MockLlm::start(activate_run_all_answer(skill, &commands, "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "go"]).args(extra);
    let out = run(cmd).await;
    let results = contents(&mock.requests().await[2], "tool");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        results[1..].to_vec(),
    )
}

#[tokio::test]
async fn probes_are_denied_under_auto_and_through_grants() {
    let ws = Workspace::new();
    ws.skill("plain", &skill_md("plain", ""), Some(ECHO_ARGS));
    let grants = "allowed-tools: Bash(./run.sh:*) Bash(git status:*) Bash(printf:*)\n";
    ws.skill("granted", &skill_md("granted", grants), Some(ECHO_ARGS));
    let canary = ws.work().join("CANARY");
    let commands = probes(&canary);
    assert!(commands.len() <= 16, "one response runs at most 16 calls");
    // The classic rule of `auto`, where the sandbox cannot contain a command (off here); with it
    // on, see `probes_run_inside_the_walls_under_auto_with_the_sandbox`.
    for (skill, policy) in [("plain", "auto"), ("granted", "auto"), ("granted", "ask")] {
        let (code, stderr, results) = propose(&ws, skill, &commands, &["--approve", policy, "--sandbox", "off"]).await;
        assert!(!canary.exists(), "{skill}/{policy}: a probe ran: {results:?}");
        assert_eq!(code, 6, "{skill}/{policy}: {stderr}");
        for (command, result) in commands.iter().zip(&results) {
            assert!(
                result.starts_with("denied:"),
                "{skill}/{policy}: {command:?} → {result}"
            );
        }
    }
}

/// With the sandbox able to contain them, `auto` runs the same probes inside the walls (issue 34
/// §2): aimed at a canary outside the working folder, none of them reaches it, and each that
/// tried is told what the sandbox refused and what would allow it.
#[tokio::test]
async fn probes_run_inside_the_walls_under_auto_with_the_sandbox() {
    require_kernel!(kernel::landlock(4));
    let ws = Workspace::new();
    ws.skill("plain", &skill_md("plain", ""), Some(ECHO_ARGS));
    let canary = ws.home().join("CANARY");
    let commands = probes(&canary);
    let (code, stderr, results) = propose(&ws, "plain", &commands, &["--approve", "auto"]).await;
    assert!(
        !canary.exists(),
        "a probe wrote outside the working folder: {results:?}"
    );
    assert_eq!(code, 0, "{stderr}");
    // Every one that failed for it says so (a shell command that went on after it succeeded).
    let refused: Vec<&String> = results
        .iter()
        .filter(|r| !r.starts_with("exit code: 0") && r.contains("Read-only file system"))
        .collect();
    assert!(refused.len() >= 8, "{results:?}");
    for result in refused {
        assert!(
            result.contains("blocked by the sandbox") && result.contains("--allow-write"),
            "{result}"
        );
    }
    assert!(results.iter().all(|r| !r.starts_with("denied:")), "{results:?}");
}

#[tokio::test]
async fn a_bare_script_name_is_never_looked_up_on_path() {
    let ws = Workspace::new();
    ws.skill("plain", &skill_md("plain", ""), Some(ECHO_ARGS));
    let grants = "allowed-tools: Bash(./run.sh:*)\n";
    ws.skill("granted", &skill_md("granted", grants), Some(ECHO_ARGS));
    let canary = ws.work().join("CANARY");
    let hostile = ws.dir.path().join("hostile-bin");
    std::fs::create_dir_all(&hostile).unwrap();
    write_script(
        &hostile.join("run.sh"),
        &format!("#!/bin/sh\ntouch '{}'\n", canary.display()),
    );
    let path = format!("{}:{}", hostile.display(), std::env::var("PATH").unwrap());
    for skill in ["plain", "granted"] {
        let replies = activate_run_all_answer(skill, &["run.sh Tokyo", "./run.sh Tokyo"], "done");
        let mock = MockLlm::start(replies).await;
        let mut cmd = ws.agent(&mock);
        cmd.env("PATH", &path)
            .args(["--once", "go", "--approve", "auto", "--sandbox", "off"]);
        let out = run(cmd).await;
        assert_eq!(out.status.code(), Some(6), "{skill}");
        assert!(!canary.exists(), "{skill}: the run.sh on PATH ran");
        let results = contents(&mock.requests().await[2], "tool");
        assert!(results[1].starts_with("denied:"), "{skill}: {}", results[1]);
        assert!(
            results[2].contains("[Tokyo]"),
            "{skill}: the skill's own ./run.sh runs: {}",
            results[2]
        );
    }
}

#[tokio::test]
async fn skill_dir_with_a_space_runs_the_real_script_with_the_right_words() {
    let ws = Workspace::new();
    let root = ws.dir.path().join("my skills");
    let dir = root.join("spaced");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), skill_md("spaced", "")).unwrap();
    write_script(&dir.join("run.sh"), ECHO_ARGS);
    // What `sh -c` would run for an unquoted $SKILL_DIR/run.sh: the path up to the space.
    let canary = ws.work().join("CANARY");
    write_script(
        &ws.dir.path().join("my"),
        &format!("#!/bin/sh\ntouch '{}'\n", canary.display()),
    );
    let commands = [
        "$SKILL_DIR/run.sh 'New York' a;b",
        "$SKILL_DIR/run.sh 'New York' 'a;b' \"$SKILL_DIR\"",
        "${SKILL_DIR}/run.sh x",
    ];
    let mock = MockLlm::start(activate_run_all_answer("spaced", &commands, "done")).await;
    let mut cmd = ws.bare_agent();
    cmd.envs(mock.env()).arg("--skills-dir").arg(&root).args([
        "--once",
        "go",
        "--approve",
        "auto",
        "--json",
        "--sandbox",
        "off",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(6), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!canary.exists(), "the path up to the space ran");
    let results = contents(&mock.requests().await[2], "tool");
    assert!(
        results[1].starts_with("denied:"),
        "an unquoted ; is not literal: {}",
        results[1]
    );
    let folder = PathBuf::from(&dir).display().to_string();
    assert!(
        results[2].contains(&format!("[New York]\n[a;b]\n[{folder}]\n")),
        "{}",
        results[2]
    );
    assert!(results[3].contains("[x]"), "{}", results[3]);
    let started: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "command_started")
        .collect();
    assert_eq!(
        started[0]["argv"],
        json!([format!("{folder}/run.sh"), "New York", "a;b", folder]),
        "the event shows the words that ran"
    );
}

#[tokio::test]
async fn grants_run_one_literal_command_as_its_words() {
    let ws = Workspace::new();
    let grants = "allowed-tools: Bash(printf:*)\n";
    ws.skill("granted", &skill_md("granted", grants), Some(ECHO_ARGS));
    let canary = ws.work().join("CANARY");
    let commands = vec![
        "printf '<%s>' 'a b' '$(id)' \"c;d\"".to_string(),
        format!("printf x | touch {}", canary.display()),
        format!("printf x > {}", canary.display()),
    ];
    let (code, _, results) = propose(&ws, "granted", &commands, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 6);
    assert!(results[0].contains("<a b><$(id)><c;d>"), "{}", results[0]);
    assert!(
        results[1].starts_with("denied:") && results[2].starts_with("denied:"),
        "{results:?}"
    );
    assert!(!canary.exists());
}

#[tokio::test]
async fn a_person_approved_command_runs_with_sh_under_yes() {
    let ws = Workspace::new();
    ws.skill("plain", &skill_md("plain", ""), Some(ECHO_ARGS));
    let (code, stderr, results) = propose(
        &ws,
        "plain",
        &["./run.sh a | tr a-z A-Z".to_string(), "./run.sh 'b c'".to_string()],
        &["--yes"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(results[0].contains("[A]"), "{}", results[0]);
    assert!(results[1].contains("[b c]"), "{}", results[1]);
}

#[tokio::test]
async fn a_denial_names_the_operator_exactly_and_suggests_the_narrow_way_never_yes() {
    let ws = Workspace::new();
    ws.skill("plain", &skill_md("plain", ""), Some(ECHO_ARGS));
    let commands = ["make && rm -rf build".to_string(), "rm -rf build".to_string()];
    let (code, stderr, results) = propose(&ws, "plain", &commands, &["--sandbox", "off"]).await;
    assert_eq!(code, 6, "{stderr}");
    assert!(results[0].contains("an operator (&&)"), "{}", results[0]);
    assert!(results[0].contains("on a terminal"), "{}", results[0]);
    // One literal command: a grant of its program is the narrow way to let it run unasked.
    assert!(results[1].contains("Bash(rm:*)"), "{}", results[1]);
    for text in [&results[0], &results[1], &stderr] {
        assert!(!text.contains("--yes") && !text.contains("approve yes"), "{text}");
    }
}

/// A grant of any command (bare `Bash`) pre-approves only what the kernel sandbox walls in: with
/// the sandbox off the same command is denied without a terminal, and the denial says why.
#[tokio::test]
async fn a_bare_bash_grant_counts_only_inside_the_sandbox() {
    let ws = Workspace::new();
    ws.skill(
        "broad",
        &skill_md("broad", "allowed-tools: Read Bash\n"),
        Some(ECHO_ARGS),
    );
    let canary = ws.work().join("CANARY");
    let command = vec![format!("touch {}", canary.display())];
    let (code, stderr, results) = propose(&ws, "broad", &command, &["--approve", "auto", "--sandbox", "off"]).await;
    assert_eq!(code, 6, "{stderr}");
    assert!(!canary.exists(), "the grant ran a command without the sandbox");
    assert!(results[0].starts_with("denied:"), "{}", results[0]);
    assert!(results[0].contains("only inside the sandbox"), "{}", results[0]);
    // Control: inside the sandbox the grant holds and the command runs.
    if kernel::offers(kernel::landlock(1)) {
        let (code, stderr, results) = propose(&ws, "broad", &command, &["--approve", "auto"]).await;
        assert_eq!(code, 0, "{stderr} {results:?}");
        assert!(canary.exists(), "{results:?}");
    }
}
