//! Unit tests of running plans: capture, caps, timeouts, argv execution, escaped processes.

use super::*;
use crate::exec::approval::{Plan, SkillScope};

fn path_env() -> BTreeMap<String, String> {
    BTreeMap::from([("PATH".to_string(), std::env::var("PATH").unwrap())])
}

/// A `sh -c` plan (these commands are never literal, so they plan as shell).
fn shell(command: &str) -> Plan {
    let plan = Plan::for_command(command, &SkillScope::default());
    assert!(matches!(plan, Plan::Shell(_)), "{command} planned as argv");
    plan
}

async fn run_plan(plan: &Plan, cwd: &Path, timeout: Duration) -> CommandOutput {
    let env = path_env();
    let spec = CommandSpec {
        plan,
        cwd,
        env: &env,
        timeout,
        head_bytes: 100,
        tail_bytes: 100,
        redactor: &Redactor::NONE,
        confinement: None,
        live: Default::default(),
        stdin: None,
    };
    run(&spec).await.unwrap()
}

async fn run_shell(command: &str, timeout: Duration) -> CommandOutput {
    run_plan(&shell(command), Path::new("/"), timeout).await
}

/// Processes whose command line contains `marker` (`pgrep -f`).
fn with_marker(marker: &str) -> String {
    // Registered, so a command of another test ending meanwhile does not kill it as an orphan.
    let out = crate::exec::tree::run_registered(
        std::process::Command::new("pgrep")
            .args(["-a", "-f", marker])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null()),
    )
    .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A number unique to this test run, usable as `sleep`'s fraction digits and found in `/proc`.
fn marker(tag: u32) -> String {
    format!("{}{:09}", tag, std::process::id())
}

#[tokio::test]
async fn captures_exit_code_and_streams() {
    let out = run_shell("echo out; echo err >&2; exit 3", Duration::from_secs(10)).await;
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.stdout.text, "out\n");
    assert_eq!(out.stderr.text, "err\n");
    assert!(!out.timed_out);
}

#[tokio::test]
async fn caps_output_keeping_head_and_tail() {
    let out = run_shell(
        "printf 'A%.0s' $(seq 1 500); seq 1 1000 | tr -d '\\n' >/dev/null; printf 'Z%.0s' $(seq 1 500)",
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(out.stdout.total_bytes, 1000);
    assert!(out.stdout.truncated);
    assert!(out.stdout.text.starts_with(&"A".repeat(100)));
    assert!(out.stdout.text.ends_with(&"Z".repeat(100)));
    assert!(out.stdout.text.contains("800 bytes cut"));
}

#[tokio::test]
async fn timeout_kills_the_group() {
    let out = run_shell("sleep 30 & sleep 30; echo never", Duration::from_millis(300)).await;
    assert!(out.timed_out);
    assert!(out.duration < Duration::from_secs(20));
    assert!(!out.stdout.text.contains("never"));
}

#[tokio::test]
async fn stdin_is_empty() {
    let out = run_shell("cat; echo done", Duration::from_secs(10)).await;
    assert_eq!(out.stdout.text, "done\n");
}

#[tokio::test]
async fn binary_output_is_flagged() {
    let out = run_shell("printf 'a\\377\\376b'", Duration::from_secs(10)).await;
    assert!(out.stdout.binary);
}

#[tokio::test]
async fn an_escaped_process_holding_the_pipe_neither_hangs_nor_survives() {
    for (tag, shape) in [
        (1, "setsid sleep 1005.{m} & sleep 1006.{m}"),
        (2, "setsid -f sleep 1005.{m}; echo started"),
        (3, "(sh -c 'sleep 1005.{m}' &) ; echo double-forked"),
    ] {
        let m = marker(tag);
        let command = shape.replace("{m}", &m);
        let started = Instant::now();
        let out = run_shell(&command, Duration::from_secs(2)).await;
        assert!(started.elapsed() < Duration::from_secs(20), "{command} hung");
        assert!(out.duration < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(with_marker(&m), "", "{command} left processes");
    }
}

#[tokio::test]
async fn argv_runs_without_a_shell_and_falls_back_to_sh_without_a_shebang() {
    let dir = tempfile::tempdir().unwrap();
    let skill_dir = dir.path().join("a skill");
    std::fs::create_dir_all(&skill_dir).unwrap();
    let script = skill_dir.join("run.sh");
    std::fs::write(&script, "#!/bin/sh\nprintf '[%s]' \"$0\" \"$@\"\n").unwrap();
    let bare = skill_dir.join("bare.sh");
    std::fs::write(&bare, "printf '<%s>' \"$@\"\n").unwrap();
    for f in [&script, &bare] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let skill = SkillScope {
        dir: skill_dir.clone(),
        entry: Some("run.sh".into()),
        grants: vec!["Bash(./bare.sh:*)".into()],
        unconfined: false,
        ..SkillScope::default()
    };
    let plan = Plan::for_command("$SKILL_DIR/run.sh 'a;b' \"c d\" '$(id)'", &skill);
    assert!(matches!(plan, Plan::Argv(_)), "{plan:?}");
    let out = run_plan(&plan, &skill_dir, Duration::from_secs(10)).await;
    assert_eq!(out.exit_code, Some(0), "{}", out.stderr.text);
    assert_eq!(out.stdout.text, format!("[{}][a;b][c d][$(id)]", script.display()));
    let plan = Plan::for_command("./bare.sh x 'y z'", &skill);
    let out = run_plan(&plan, &skill_dir, Duration::from_secs(10)).await;
    assert_eq!(out.stdout.text, "<x><y z>", "{}", out.stderr.text);
}

/// A skill's script committed without `+x` runs by its `#!` line's interpreter (with that line's
/// one argument); without a `#!` line it stays "not executable", named as such.
#[tokio::test]
async fn a_script_without_its_execute_bit_runs_by_its_shebang() {
    let dir = tempfile::tempdir().unwrap();
    let skill_dir = dir.path().join("skill");
    std::fs::create_dir_all(skill_dir.join("scripts")).unwrap();
    let script = skill_dir.join("scripts/init.py");
    std::fs::write(&script, "#!/usr/bin/env -S sh\nprintf '(%s)' \"$0\" \"$@\"\n").unwrap();
    let bare = skill_dir.join("scripts/bare.sh");
    std::fs::write(&bare, "echo never\n").unwrap();
    assert_eq!(
        interpreter(&script),
        Some(vec!["/usr/bin/env".to_string(), "-S sh".to_string()])
    );
    assert_eq!(interpreter(&bare), None);
    let skill = SkillScope {
        dir: skill_dir.clone(),
        unconfined: false,
        ..SkillScope::default()
    };
    let plan = Plan::for_command("scripts/init.py a 'b c'", &skill);
    assert!(matches!(plan, Plan::Argv(_)), "{plan:?}");
    let out = run_plan(&plan, dir.path(), Duration::from_secs(10)).await;
    assert_eq!(out.exit_code, Some(0), "{}", out.stderr.text);
    assert_eq!(out.stdout.text, format!("({})(a)(b c)", script.display()));
    let plan = Plan::for_command("scripts/bare.sh", &skill);
    let out = run_plan(&plan, dir.path(), Duration::from_secs(10)).await;
    assert_eq!(out.exit_code, Some(126));
    assert!(
        out.cause_known && out.stderr.text.contains("not executable"),
        "{}",
        out.stderr.text
    );
}

/// Issue 10's promises hold inside the sandbox: a confined (strict) command that escapes with
/// `setsid` and outlives its timeout is still ended, and its grandchild was confined too.
#[tokio::test]
async fn confined_commands_are_still_timed_out_and_their_escapes_killed() {
    use crate::exec::sandbox::{Kernel, Mode, Settings};
    let kernel = Kernel::detect();
    // Kernels without Landlock ABI 6 and seccomp cannot confine it: nothing to check there.
    if kernel.abi < 6 || !kernel.seccomp {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (skill, outside) = (dir.path().join("skill"), dir.path().join("outside"));
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let settings = Settings::new(Mode::Strict, kernel, &skill, None, Some(skill.to_str().unwrap()), &[]);
    let confinement = Confinement::build(&settings.policy(&skill, &[], false)).unwrap();
    let m = marker(7);
    let canary = outside.join("canary");
    let command = format!(
        "setsid sh -c 'echo x > {}; sleep 1005.{m}' & sleep 1006.{m}",
        canary.display()
    );
    let (env, plan) = (path_env(), shell(&command));
    let spec = CommandSpec {
        plan: &plan,
        cwd: &skill,
        env: &env,
        timeout: Duration::from_secs(2),
        head_bytes: 100,
        tail_bytes: 100,
        redactor: &Redactor::NONE,
        confinement: confinement.as_ref(),
        live: Default::default(),
        stdin: None,
    };
    let out = run(&spec).await.unwrap();
    assert!(out.timed_out);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(with_marker(&m), "", "the confined command left processes");
    assert!(!canary.exists(), "the setsid grandchild wrote outside its folders");
}
