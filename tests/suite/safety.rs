//! Commands run safely: approval policies and grants, trust for project skills, process control,
//! output caps, the child environment, and composition — through the real binary.

use crate::common::{run_output as run, *};
use serde_json::json;

const PLAIN: &str = "---\nname: plain\ndescription: A plain skill.\n---\nbody\n";

#[tokio::test]
async fn a_command_reading_stdin_sees_eof_at_once() {
    let ws = Workspace::new();
    ws.skill("plain", PLAIN, None);
    let mock = MockLlm::start(activate_run_answer(
        "plain",
        "cat; read line; echo \"read-done:$?\"",
        "done",
    ))
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x", "--yes", "--timeout", "20"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.contains("exit code: 0") && result.contains("read-done:1"),
        "{result}"
    );
}

#[tokio::test]
async fn fifty_megabytes_of_output_stay_capped_for_the_model_and_in_memory() {
    let ws = Workspace::new();
    ws.skill("plain", PLAIN, None);
    let mock = MockLlm::start(activate_run_answer(
        "plain",
        "echo START; head -c 52428800 /dev/zero | tr '\\0' x; echo; echo END",
        "done",
    ))
    .await;
    // Run through a parent of its own that reports its children's peak RSS: the agent and what
    // it waited for, not every process this test binary ever started (a Node MCP server of
    // another test once counted here).
    let mut measured = quiet(ws.clean_command("python3"));
    measured
        .args(["-c", PEAK_RSS, env!("CARGO_BIN_EXE_agent")])
        .args(["--skills-dir"])
        .arg(ws.skills())
        .args(["--once", "flood", "--yes", "--json"])
        .envs(mock.env());
    let out = run(measured).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let raw = mock.raw_requests().await;
    let size = raw[2].body.len();
    assert!(size < 64 * 1024, "request after a 50 MB command is {size} bytes");
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(result.contains("START") && result.contains("END"), "head and tail kept");
    assert!(result.contains("bytes cut"), "{}", &result[..200.min(result.len())]);
    let finished = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["type"] == "command_finished")
        .unwrap();
    assert!(finished["stdout_bytes"].as_u64().unwrap() > 52_000_000);
    let peak: u64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak reported: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(peak < 100 * 1024, "the agent's peak RSS was {peak} KB");
}

/// Runs its arguments as a child and reports the peak RSS of that child (and what it waited for)
/// on stderr, passing its exit code on.
const PEAK_RSS: &str = "import resource, subprocess, sys\n\
code = subprocess.run(sys.argv[1:]).returncode\n\
sys.stderr.write('peak-rss-kb %d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
sys.exit(code)\n";

#[tokio::test]
async fn env_shows_no_agent_key() {
    let ws = Workspace::new();
    ws.skill("plain", PLAIN, None);
    let mock = MockLlm::start(activate_run_answer("plain", "env", "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("OPENAI_API_KEY", "sk-openai-secret-999")
        .args(["--once", "x", "--yes"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(result.contains("SKILL_NAME=plain"), "{result}");
    assert!(
        result.contains("AGENT_NONINTERACTIVE=1"),
        "nobody can be asked: {result}"
    );
    assert!(
        !result.contains("AGENT_API_KEY") && !result.contains("OPENAI_API_KEY"),
        "{result}"
    );
}

#[tokio::test]
async fn auto_runs_run_sh_but_not_rm_rf_home() {
    let ws = Workspace::new();
    ws.skill("tool", "# Tool\n\nA tool.\n", Some("#!/bin/sh\necho tool-ran\n"));
    let canary = ws.home().join("canary");
    std::fs::write(&canary, "still here").unwrap();
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "tool"})),
        tool("run_command", json!({"command": "./run.sh"})),
        tool("run_command", json!({"command": "rm -rf ~"})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--once", "x", "--approve", "auto", "--json"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(6), "answered, but a command was denied");
    assert!(canary.exists(), "rm -rf ~ ran");
    let reqs = mock.requests().await;
    assert!(last_tool_result(&reqs[2]).contains("tool-ran"));
    assert!(last_tool_result(&reqs[3]).starts_with("denied:"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let denied: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["type"] == "command_denied")
        .collect();
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["command"], "rm -rf ~");
}

#[tokio::test]
async fn allowed_tools_grants_in_every_spelling() {
    let ws = Workspace::new();
    let spellings = [
        ("spaced", "allowed-tools: Read Bash(printf:*) Bash(git status)"),
        ("commas", "allowed-tools: \"Read, Bash(printf:*), Bash(git status)\""),
        (
            "listed",
            "allowed-tools:\n  - Read\n  - Bash(printf:*)\n  - Bash(git status)",
        ),
        ("flow", "allowed-tools: [Read, \"Bash(printf:*)\"]"),
    ];
    for (name, line) in spellings {
        ws.skill(
            name,
            &format!("---\nname: {name}\ndescription: Grants in {name} form.\n{line}\n---\nbody\n"),
            None,
        );
    }
    for (name, _) in spellings {
        let mock = MockLlm::start(vec![
            tool("activate_skill", json!({"name": name})),
            tool("run_command", json!({"command": "printf 'granted %s\\n' ok"})),
            tool("run_command", json!({"command": "printf x; touch should-not-exist"})),
            text("done"),
        ])
        .await;
        let mut cmd = ws.agent(&mock);
        // The classic rule: with the sandbox on, `auto` would run the second one contained.
        cmd.args(["--once", "x", "--approve", "auto", "--sandbox", "off"]);
        let out = run(cmd).await;
        assert_eq!(out.status.code(), Some(6), "{name}: the second command was denied");
        let reqs = mock.requests().await;
        assert!(
            last_tool_result(&reqs[2]).contains("granted ok"),
            "{name}: {}",
            last_tool_result(&reqs[2])
        );
        assert!(
            last_tool_result(&reqs[3]).starts_with("denied:"),
            "{name}: every part must be granted"
        );
    }
}

#[tokio::test]
async fn a_composed_skill_calls_other_skills_through_agent_skills_path() {
    let weather = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path("/Tokyo"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_string("Tokyo: ☀️ +12°C\n"))
        .mount(&weather)
        .await;
    let bundled = repo_path("skills");
    let ws = Workspace::new();
    let mock = MockLlm::start(activate_run_answer("report", "./run.sh Tokyo", "done")).await;
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_BASE_URL", mock.base_url())
        .env("WEATHER_BASE_URL", weather.uri())
        .arg("--skills-dir")
        .arg(&bundled)
        .args(["--once", "briefing for Tokyo", "--approve", "auto"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(result.contains("time:    Tokyo (Asia/Tokyo)"), "{result}");
    assert!(result.contains("weather: Tokyo: ☀️ +12°C"), "{result}");
}

#[tokio::test]
async fn untrusted_project_skills_cannot_run_until_trusted() {
    let ws = Workspace::new();
    let project_skill = ws.work().join("skills/proj");
    std::fs::create_dir_all(&project_skill).unwrap();
    std::fs::write(project_skill.join("SKILL.md"), "# Proj\n\nA project skill.\n").unwrap();
    write_script(&project_skill.join("run.sh"), "#!/bin/sh\necho project-ran\n");
    let project_agent = |mock: &MockLlm| {
        let mut cmd = ws.bare_agent();
        cmd.env("AGENT_BASE_URL", mock.base_url());
        cmd
    };

    let listing = ws.bare_agent().args(["skills", "list", "--json"]).output().unwrap();
    let listing: serde_json::Value = serde_json::from_slice(&listing.stdout).unwrap();
    assert_eq!(listing["skills"][0]["trusted"], false);
    assert!(
        listing["skills"][0]["blocked"]
            .as_str()
            .unwrap()
            .contains("agent trust")
    );

    let mock = MockLlm::start(activate_run_answer("proj", "./run.sh", "done")).await;
    let mut cmd = project_agent(&mock);
    cmd.args(["--once", "x", "--approve", "auto"]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(6));
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(
        result.contains("not trusted") && result.contains("agent trust"),
        "{result}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot run commands") && stderr.contains("run `agent trust`"),
        "one warning line names `agent trust`: {stderr}"
    );

    // --yes approves commands; it does not trust a folder.
    let mock = MockLlm::start(activate_run_answer("proj", "./run.sh", "done")).await;
    let mut cmd = project_agent(&mock);
    cmd.args(["--once", "x", "--yes"]);
    run(cmd).await;
    assert!(last_tool_result(&mock.requests().await[2]).contains("not trusted"));

    // The old spelling still works, with a note that it moved.
    let trusted = ws.bare_agent().args(["skills", "trust"]).output().unwrap();
    assert_eq!(
        trusted.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    assert!(String::from_utf8_lossy(&trusted.stdout).contains("trusted "));
    assert!(String::from_utf8_lossy(&trusted.stderr).contains("moved to `agent trust"));
    let mock = MockLlm::start(activate_run_answer("proj", "./run.sh", "done")).await;
    let mut cmd = project_agent(&mock);
    cmd.args(["--once", "x", "--approve", "auto"]);
    run(cmd).await;
    assert!(last_tool_result(&mock.requests().await[2]).contains("project-ran"));
}

/// On a terminal someone can answer, so a command is not told otherwise: no
/// `AGENT_NONINTERACTIVE` (a one-shot without one gets `1`, above).
#[tokio::test(flavor = "multi_thread")]
async fn a_command_in_a_chat_on_a_terminal_is_not_told_it_is_non_interactive() {
    use crate::common::pty::{blocking, chat, ctrl_d_exits_zero, from_pty, type_line};
    let ws = Workspace::new();
    ws.skill(
        "plain",
        PLAIN,
        Some("#!/bin/sh\necho \"asked=${AGENT_NONINTERACTIVE:-unset}\"\n"),
    );
    let mock = MockLlm::start(activate_run_answer("plain", "./run.sh", "done")).await;
    let session = chat(&ws, &mock, &["--approve", "auto"]);
    blocking(move || {
        let mut p = session;
        type_line(&mut p, "go");
        let seen = p.exp_string("done").unwrap();
        assert!(!from_pty(&seen).contains("asked=1"), "{seen}");
        ctrl_d_exits_zero(p);
    })
    .await;
    let result = last_tool_result(&mock.requests().await[2]);
    assert!(result.contains("asked=unset"), "{result}");
}
