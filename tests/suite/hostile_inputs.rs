//! What a hostile model or skill folder throws at the agent that could hang it or make it grow:
//! escaped background processes, FIFOs and devices where files belong, huge files, a flood of tool
//! calls in one response — through the real binary, each ending within a generous bound.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{run_output as run, *};
use serde_json::json;

const COUNTER_SKILL: &str = "---\nname: count\ndescription: Counts its calls.\n---\nRun ./run.sh\n";

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[tokio::test]
async fn only_sixteen_tool_calls_of_one_response_run_and_the_rest_are_answered() {
    let ws = Workspace::new();
    ws.skill("count", COUNTER_SKILL, Some("#!/bin/sh\necho x >> \"$COUNTER\"\n"));
    let counter = ws.work().join("counter");
    let mock = MockLlm::start(activate_run_all_answer("count", &["./run.sh"; 1000], "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("COUNTER", &counter)
        .args(["--once", "count", "--approve", "auto", "--max-steps", "3"]);
    let out = run(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("1000 tool calls"), "the user is told: {stderr}");
    let ran = std::fs::read_to_string(&counter).unwrap().lines().count();
    assert_eq!(ran, 16, "commands run from one response");
    let last = &mock.requests().await[2];
    let messages = last["messages"].as_array().unwrap();
    let asked: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let answered: Vec<&str> = messages.iter().filter_map(|m| m["tool_call_id"].as_str()).collect();
    assert_eq!(asked.len(), 1001);
    assert_eq!(asked, answered, "every call has exactly one result, in order");
    let results = contents(last, "tool");
    assert!(results[1..17].iter().all(|r| r.starts_with("exit code: 0")));
    assert!(
        results[17..].iter().all(|r| r.contains("at most 16 tool calls")),
        "{}",
        results[17]
    );
}

#[tokio::test]
async fn escaped_background_processes_neither_hang_the_agent_nor_survive_it() {
    let ws = Workspace::new();
    ws.skill("count", COUNTER_SKILL, None);
    let shapes = [
        (1, "setsid sleep 1005.{m} & sleep 1006.{m}"),
        (2, "setsid -f sleep 1005.{m}; echo detached"),
        (3, "(sleep 1005.{m} &); echo double-forked"),
        (
            4,
            "nohup setsid sh -c 'sleep 1005.{m} & sleep 1006.{m}' >/dev/null 2>&1 & echo daemonised",
        ),
    ];
    for (tag, shape) in shapes {
        let m = marker(tag);
        let command = shape.replace("{m}", &m);
        let mock = MockLlm::start(activate_run_answer("count", &command, "done")).await;
        let mut cmd = ws.agent(&mock);
        cmd.args(["--once", "x", "--yes", "--timeout", "2"]);
        let started = Instant::now();
        let out = run(cmd).await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{command} took {:?}",
            started.elapsed()
        );
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            processes_with(&m),
            Vec::<String>::new(),
            "{command} left processes behind"
        );
    }
}

#[tokio::test]
async fn ctrl_c_ends_every_process_of_the_running_command() {
    let ws = Workspace::new();
    ws.skill("count", COUNTER_SKILL, None);
    let m = marker(9);
    let command = format!("setsid sleep 1005.{m} & sleep 1006.{m}");
    let mock = MockLlm::start(activate_run_answer("count", &command, "done")).await;
    let mut cmd = ws.agent_command();
    cmd.envs(mock.env())
        .env("AGENT_MODEL", TEST_MODEL)
        .arg("--skills-dir")
        .arg(ws.skills())
        .args(["--once", "x", "--yes", "--timeout", "300"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_with(&m).len() < 2 {
        assert!(Instant::now() < deadline, "the command never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // SAFETY: kill only sends SIGINT to the agent this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_with(&m), Vec::<String>::new(), "processes survived Ctrl-C");
}

#[tokio::test]
async fn read_skill_file_refuses_a_fifo_at_once() {
    let ws = Workspace::new();
    let dir = ws.skill("count", COUNTER_SKILL, None);
    mkfifo(&dir.join("pipe"));
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "count"})),
        tool("read_skill_file", json!({"skill": "count", "path": "pipe"})),
        text("could not read it"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(result.starts_with("error:") && result.contains("FIFO"), "{result}");
}

#[tokio::test]
async fn hostile_skill_files_are_skipped_or_ignored_quickly_and_small() {
    let ws = Workspace::new();
    let fifo_json = ws.skill("fifo-json", "# A\n\nHas a FIFO manifest.\n", None);
    mkfifo(&fifo_json.join("skill.json"));
    let zero_json = ws.skill("zero-json", "# B\n\nHas an endless manifest.\n", None);
    std::os::unix::fs::symlink("/dev/zero", zero_json.join("skill.json")).unwrap();
    let huge_json = ws.skill("huge-json", "# C\n\nHas a huge manifest.\n", None);
    let huge = std::fs::File::create(huge_json.join("skill.json")).unwrap();
    huge.set_len(300 * 1024 * 1024).unwrap(); // sparse: no disk used
    let fifo_md = ws.skills().join("fifo-md");
    std::fs::create_dir_all(&fifo_md).unwrap();
    mkfifo(&fifo_md.join("SKILL.md"));
    let device_md = ws.skills().join("device-md");
    std::fs::create_dir_all(&device_md).unwrap();
    std::os::unix::fs::symlink("/dev/zero", device_md.join("SKILL.md")).unwrap();
    mkfifo(&ws.work().join(".env"));

    let mut cmd = ws.bare_agent();
    cmd.arg("--skills-dir")
        .arg(ws.skills())
        .args(["skills", "list", "--json"]);
    let out = run(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for name in ["fifo-json", "zero-json", "huge-json"] {
        assert!(names.contains(&name), "{name} still loads from SKILL.md: {names:?}");
    }
    assert!(
        !names.contains(&"fifo-md") && !names.contains(&"device-md"),
        "{names:?}"
    );
    let listed = format!("{stderr}{}", String::from_utf8_lossy(&out.stdout));
    for expected in [
        "fifo-md/SKILL.md:1: cannot read: it is a named pipe (FIFO)",
        "device-md/SKILL.md:1: cannot read: it is a character device",
    ] {
        assert!(listed.contains(expected), "no {expected:?} in {listed}");
    }
    for (name, expected) in [
        ("fifo-json", "skill.json: cannot be used: it is a named pipe (FIFO)"),
        ("zero-json", "skill.json: cannot be used: it is a character device"),
        (
            "huge-json",
            "skill.json: cannot be used: it is 314572800 bytes, over the 1048576-byte limit",
        ),
    ] {
        let mut cmd = ws.bare_agent();
        cmd.arg("--skills-dir").arg(ws.skills()).args(["skills", "show", name]);
        let shown = String::from_utf8_lossy(&run(cmd).await.stdout).into_owned();
        assert!(shown.contains(expected), "{name}: no {expected:?} in {shown}");
    }
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct we pass.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) }, 0);
    // The 300 MB manifest used to be read whole; what remains is the test process's own size,
    // which a child inherits for an instant when it is spawned.
    assert!(usage.ru_maxrss < 200 * 1024, "peak RSS {} KB", usage.ru_maxrss);
}
