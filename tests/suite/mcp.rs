//! MCP servers as tools (docs/mcp.md), through the real binary against real servers from the
//! package registries — `@modelcontextprotocol/server-everything` (npm) and `mcp-server-time`
//! (PyPI), which `.ci/run` installs — and a stdio server that misbehaves on purpose
//! (`tests/fixtures/mcp/fault_server.py`): configuration and `agent mcp …`, a scripted model
//! calling a tool, approval (exit 6), folder trust, and every fault as a tool error.

use std::path::{Path, PathBuf};

use crate::common::events_doc::EventsDoc;
use crate::common::*;
use serde_json::{Value, json};

/// Where `.ci/run` installs the real servers: `AGENT_TEST_MCP_DIR`, else `~/.cache/agent-ci/mcp`.
fn servers_dir() -> PathBuf {
    match std::env::var_os("AGENT_TEST_MCP_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/agent-ci/mcp"),
    }
}

/// A real server's program, or `None` (with a message saying how to get it) when it is missing.
fn real_server(which: &str) -> Option<PathBuf> {
    let path = servers_dir().join(match which {
        "everything" => "node_modules/.bin/mcp-server-everything",
        _ => "venv/bin/mcp-server-time",
    });
    if path.is_file() {
        Some(path)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "the MCP server {which} is missing at {}: .ci/run installs it",
            path.display()
        );
    } else {
        eprintln!(
            "skipped: the MCP server {which} is not installed at {} (.ci/run installs it)",
            path.display()
        );
        None
    }
}

fn fault_server() -> PathBuf {
    repo_path("tests/fixtures/mcp/fault_server.py")
}

/// Write the user's `mcp.json` in `ws` with `servers`.
fn configure(ws: &Workspace, servers: Value) {
    let dir = ws.home().join(".config/agent");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mcp.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
}

fn stdio(program: &Path, args: &[&str]) -> Value {
    json!({"command": program, "args": args})
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

#[tokio::test]
async fn mcp_add_list_tools_and_remove_work_against_both_real_servers() {
    let (Some(time), Some(everything)) = (real_server("time"), real_server("everything")) else {
        return;
    };
    let ws = Workspace::new();
    let mut add = ws.bare_agent();
    add.args(["mcp", "add", "time", "--"])
        .arg(&time)
        .args(["--local-timezone", "UTC"]);
    assert_eq!(run_outcome(add).await.0, 0);
    let mut add = ws.bare_agent();
    add.args(["mcp", "add", "everything", "--env", "GREETING=${GREETING:-hi}", "--"])
        .arg(&everything);
    assert_eq!(run_outcome(add).await.0, 0);

    let mut list = ws.bare_agent();
    list.args(["--json", "mcp", "list"]);
    let (code, out, err) = run_outcome(list).await;
    assert_eq!(code, 0, "{err}");
    let doc = &lines(&out)[0];
    let states: Vec<(String, String, u64)> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["state"].as_str().unwrap().to_string(),
                s["tools"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(states.len(), 2, "{doc}");
    assert!(
        states.iter().all(|(_, state, tools)| state == "ready" && *tools > 0),
        "{doc}"
    );

    let mut tools = ws.bare_agent();
    tools.args(["mcp", "tools", "time"]);
    let (code, out, err) = run_outcome(tools).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("mcp__time__get_current_time"), "{out}");
    assert!(!out.contains("mcp__everything__"), "only the server asked for: {out}");

    let mut remove = ws.bare_agent();
    remove.args(["mcp", "remove", "time"]);
    assert_eq!(run_outcome(remove).await.0, 0);
    let mut unknown = ws.bare_agent();
    unknown.args(["mcp", "tools", "time"]);
    let (code, _, err) = run_outcome(unknown).await;
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("no MCP server named \"time\"") && err.contains("everything"),
        "{err}"
    );
}

#[tokio::test]
async fn a_scripted_model_calls_a_real_mcp_tool_and_answers_with_its_result() {
    let Some(time) = real_server("time") else { return };
    let ws = Workspace::new();
    configure(&ws, json!({"time": stdio(&time, &["--local-timezone", "UTC"])}));
    let mock = MockLlm::start(vec![
        tool("mcp__time__get_current_time", json!({"timezone": "Asia/Tokyo"})),
        text("It is evening in Tokyo."),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--json", "--yes", "--once", "what time is it in Tokyo"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    assert!(
        tool_names(&requests[0]).contains(&"mcp__time__get_current_time".to_string()),
        "the tool is offered even with no skills: {}",
        requests[0]["tools"]
    );
    let result = last_tool_result(&requests[1]);
    assert!(result.contains("Asia/Tokyo") && result.contains("datetime"), "{result}");
    let doc = EventsDoc::read();
    let events = lines(&out);
    let types: Vec<String> = events
        .iter()
        .map(|e| doc.validate_typed(e).unwrap_or_else(|err| panic!("{err}: {e}")))
        .collect();
    let started = types.iter().position(|t| t == "mcp_call_started").expect("started");
    let finished = types.iter().position(|t| t == "mcp_call_finished").expect("finished");
    assert!(started < finished);
    assert_eq!(events[finished]["is_error"], false);
    assert_eq!(events[started]["arguments"], r#"{"timezone":"Asia/Tokyo"}"#);
    // The session stores the call and its result like any tool call.
    let stored: String = ws
        .session_files()
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert!(
        stored.contains("mcp__time__get_current_time") && stored.contains("Asia/Tokyo"),
        "{stored}"
    );
}

#[tokio::test]
async fn an_mcp_call_runs_under_auto_only_when_granted_and_a_denial_exits_6() {
    let Some(everything) = real_server("everything") else {
        return;
    };
    let ws = Workspace::new();
    configure(&ws, json!({"everything": stdio(&everything, &[])}));
    let replies = || {
        vec![
            tool("mcp__everything__echo", json!({"message": "hello from the test"})),
            text("done"),
        ]
    };
    let mock = MockLlm::start(replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--once", "echo something"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 6, "denied without a grant or a terminal: {err}");
    let result = last_tool_result(&mock.requests().await[1]);
    assert!(
        result.starts_with("denied:") && result.contains("autoApprove"),
        "{result}"
    );
    assert!(err.contains("not run: mcp [everything] echo"), "{err}");

    let mut granted = json!({"everything": stdio(&everything, &[])});
    granted["everything"]["autoApprove"] = json!(["echo"]);
    configure(&ws, granted);
    let mock = MockLlm::start(replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--once", "echo something"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(last_tool_result(&mock.requests().await[1]).contains("hello from the test"));

    let mock = MockLlm::start(replies()).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "no", "--once", "echo something"]);
    assert_eq!(run_outcome(cmd).await.0, 6, "--approve no runs nothing, granted or not");
}

#[tokio::test]
async fn a_skill_grants_its_own_mcp_tools_and_its_requires_mcp_is_met() {
    let ws = Workspace::new();
    configure(&ws, json!({"fault": stdio(&fault_server(), &[])}));
    ws.skill(
        "faulty",
        "---\nname: faulty\ndescription: Uses the fault server.\nallowed-tools: mcp__fault__*\nrequires:\n  mcp: [fault]\n---\nCall mcp__fault__ok.\n",
        None,
    );
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "faulty"})),
        tool("mcp__fault__ok", json!({})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--approve", "auto", "--once", "use the fault server"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    assert!(!last_tool_result(&requests[1]).contains("not configured"));
    assert_eq!(last_tool_result(&requests[2]), "fine");
}

#[tokio::test]
async fn a_command_that_ends_leaves_the_mcp_servers_running() {
    // A command's cleanup ends the orphans it left, which are the agent's own children: a
    // server started before the command must not be taken for one of them.
    let ws = Workspace::new();
    let canary = ws.dir.path().join("starts.log");
    let mut server = stdio(&fault_server(), &[]);
    server["env"] = json!({"FAULT_CANARY": canary.display().to_string()});
    configure(&ws, json!({ "fault": server }));
    ws.skill(
        "between",
        "---\nname: between\ndescription: Echoes between two calls.\n---\nRun `echo between`.\n",
        None,
    );
    let mock = MockLlm::start(vec![
        tool("activate_skill", json!({"name": "between"})),
        tool("mcp__fault__ok", json!({})),
        tool("run_command", json!({"command": "echo between"})),
        tool("mcp__fault__ok", json!({})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "call, run, call again"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    let requests = mock.requests().await;
    assert_eq!(last_tool_result(&requests[2]), "fine");
    let ran = last_tool_result(&requests[3]);
    assert!(ran.contains("between"), "the command ran: {ran}");
    assert_eq!(last_tool_result(&requests[4]), "fine", "the same server answered");
    let starts = std::fs::read_to_string(&canary).unwrap();
    assert_eq!(starts.lines().count(), 1, "started once: {starts:?}");
}

#[tokio::test]
async fn every_fault_is_a_tool_error_and_the_turn_goes_on() {
    let ws = Workspace::new();
    // Marks this test's server processes, to find any left behind.
    let tag = marker(26);
    configure(&ws, json!({"fault": stdio(&fault_server(), &[&tag])}));
    let calls = ["fail", "crash", "hang", "garbage", "huge", "ok"];
    let mut replies: Vec<_> = calls
        .iter()
        .map(|t| tool(&format!("mcp__fault__{t}"), json!({})))
        .collect();
    replies.push(text("all done"));
    let mock = MockLlm::start(replies).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_MCP_TIMEOUT", "3")
        .args(["--yes", "--max-steps", "10", "--once", "try every tool"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "the turn finished: {err}");
    assert!(out.contains("all done"));
    let requests = mock.requests().await;
    let results: Vec<String> = requests[1..].iter().map(last_tool_result).collect();
    assert!(
        results[0].starts_with("error: mcp__fault__fail reported an error: the tool could not do it"),
        "{}",
        results[0]
    );
    assert!(
        results[1].starts_with("error: MCP server fault: crash"),
        "{}",
        results[1]
    );
    assert!(results[2].contains("did not answer within 3s"), "{}", results[2]);
    assert!(results[3].starts_with("error: MCP server fault"), "{}", results[3]);
    assert!(
        results[4].len() < 40 * 1024 && results[4].contains("bytes cut"),
        "10 MB is capped: {} bytes",
        results[4].len()
    );
    assert_eq!(results[5], "fine", "a crashed server is started again");
    for tool in ["crash", "hang", "garbage"] {
        assert!(
            err.contains(&format!("✗ mcp [fault] {tool} failed")),
            "one line for {tool}: {err}"
        );
    }
    assert_eq!(
        processes_with(&tag),
        Vec::<String>::new(),
        "no server process outlives the agent, the hung one included"
    );
}

#[tokio::test]
async fn a_server_that_does_not_start_in_time_is_a_warning_not_a_failed_turn() {
    let ws = Workspace::new();
    let mut slow = stdio(&fault_server(), &[]);
    slow["env"] = json!({"FAULT_START_DELAY": "30"});
    configure(&ws, json!({"slow": slow}));
    let mock = MockLlm::start(vec![text("hello")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_MCP_TIMEOUT", "2").args(["--once", "hi"]);
    let (code, out, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hello"));
    assert!(err.contains("MCP server slow: it did not start within 2s"), "{err}");
}

#[tokio::test]
async fn an_untrusted_projects_mcp_json_starts_nothing_until_trusted() {
    let ws = Workspace::new();
    // Inside the project: once trusted, its server runs in the project's sandbox.
    let canary = ws.work().join("canary");
    let server = json!({"mcpServers": {"proj": {
        "command": fault_server(), "env": {"FAULT_CANARY": canary}
    }}});
    std::fs::write(ws.work().join(".mcp.json"), server.to_string()).unwrap();
    let mock = MockLlm::start(vec![tool("mcp__proj__ok", json!({})), text("done")]).await;
    let mut cmd = ws.agent(&mock);
    cmd.args(["--yes", "--once", "use the project server"]);
    let (_, _, err) = run_outcome(cmd).await;
    assert!(
        err.contains(".mcp.json is not used: this folder is not trusted"),
        "{err}"
    );
    assert!(!canary.exists(), "an untrusted project's server never starts");
    assert!(
        !tool_names(&mock.requests().await[0])
            .iter()
            .any(|n| n.starts_with("mcp__"))
    );

    let mut list = ws.bare_agent();
    list.args(["--json", "mcp", "list"]);
    let (_, out, _) = run_outcome(list).await;
    assert_eq!(lines(&out)[0]["servers"][0]["state"], "not_trusted");
    assert!(!canary.exists());

    let mut trust = ws.bare_agent();
    trust.arg("trust");
    assert_eq!(run_outcome(trust).await.0, 0);
    let mut list = ws.bare_agent();
    list.args(["--json", "mcp", "list"]);
    let (_, out, _) = run_outcome(list).await;
    assert_eq!(lines(&out)[0]["servers"][0]["state"], "ready", "{out}");
    assert!(canary.exists(), "once trusted, it starts");

    // A changed .mcp.json is not trusted until trusted again.
    std::fs::remove_file(&canary).unwrap();
    let mut changed = server.clone();
    changed["mcpServers"]["proj"]["args"] = json!(["--changed"]);
    std::fs::write(ws.work().join(".mcp.json"), changed.to_string()).unwrap();
    let mut list = ws.bare_agent();
    list.args(["--json", "mcp", "list"]);
    let (_, out, _) = run_outcome(list).await;
    assert_eq!(lines(&out)[0]["servers"][0]["state"], "not_trusted", "{out}");
    assert!(!canary.exists(), "a changed .mcp.json starts nothing");
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_streamable_http_server_is_reached_with_expanded_headers() {
    let Some(everything) = real_server("everything") else {
        return;
    };
    let port = free_port();
    let mut server = std::process::Command::new(&everything)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it listens (readiness, not a timing assertion).
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let ws = Workspace::new();
    let mut add = ws.bare_agent();
    add.args(["mcp", "add", "web", "--url"])
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .args(["--header", "Authorization: Bearer ${WEB_TOKEN}"]);
    assert_eq!(run_outcome(add).await.0, 0);
    let mut list = ws.bare_agent();
    list.env("WEB_TOKEN", "tok-0123456789").args(["--json", "mcp", "list"]);
    let (_, out, err) = run_outcome(list).await;
    let mut unset = ws.bare_agent();
    unset.args(["--json", "mcp", "list"]);
    let (_, unset_out, _) = run_outcome(unset).await;
    server.kill().unwrap();
    server.wait().unwrap();
    let state = &lines(&out)[0]["servers"][0];
    assert_eq!(state["state"], "ready", "{out}{err}");
    assert_eq!(state["transport"], "http");
    assert!(state["tools"].as_u64().unwrap() > 0);
    let failed = &lines(&unset_out)[0]["servers"][0];
    assert!(
        failed["error"].as_str().unwrap().contains("${WEB_TOKEN} is not set"),
        "{unset_out}"
    );
}

#[tokio::test]
async fn a_cached_tool_list_offers_the_tools_without_starting_the_server() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("started");
    let mut server = stdio(&fault_server(), &[]);
    server["env"] = json!({"FAULT_CANARY": canary});
    configure(&ws, json!({"fault": server.clone()}));
    let mock = MockLlm::repeating(vec![text("hello")]).await;
    let run = || {
        let mut cmd = ws.agent(&mock);
        cmd.args(["--once", "hi"]);
        run_outcome(cmd)
    };
    assert_eq!(run().await.0, 0);
    assert!(canary.exists(), "the first run lists the tools: the server starts");
    std::fs::remove_file(&canary).unwrap();
    let (code, _, err) = run().await;
    assert_eq!(code, 0, "{err}");
    assert!(!canary.exists(), "a plain turn with a cached list starts no server");
    let requests = mock.requests().await;
    assert!(tool_names(&requests[1]).contains(&"mcp__fault__ok".to_string()));

    // A changed configuration is a new key: the list is asked for again.
    server["env"]["EXTRA"] = json!("1");
    configure(&ws, json!({"fault": server}));
    assert_eq!(run().await.0, 0);
    assert!(canary.exists(), "a changed configuration is listed anew");
}

#[tokio::test]
async fn a_recorded_run_replays_its_mcp_results_with_no_server() {
    let ws = Workspace::new();
    let canary = ws.dir.path().join("started");
    let mut server = stdio(&fault_server(), &[]);
    server["env"] = json!({"FAULT_CANARY": canary});
    configure(&ws, json!({"fault": server}));
    let mock = MockLlm::start(vec![
        tool("mcp__fault__ok", json!({})),
        tool("mcp__fault__fail", json!({})),
        text("recorded answer"),
    ])
    .await;
    let cassette = ws.dir.path().join("run.jsonl");
    let mut cmd = ws.agent(&mock);
    cmd.arg("--record")
        .arg(&cassette)
        .args(["--yes", "--once", "use the fault server"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(canary.exists());
    std::fs::remove_file(&canary).unwrap();
    std::fs::remove_file(ws.home().join(".config/agent/mcp.json")).unwrap();

    let mut replay = ws.bare_agent();
    replay
        .arg("--replay")
        .arg(&cassette)
        .args(["--yes", "--once", "use the fault server"]);
    let (code, out, err) = run_outcome(replay).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("recorded answer"), "{out}");
    assert!(!canary.exists(), "no server starts in a replay");
    assert!(
        err.contains("✗ mcp [fault] fail failed"),
        "the recorded error comes back: {err}"
    );
}

#[tokio::test]
async fn over_their_budget_mcp_tools_are_ranked_and_the_rest_found_by_search() {
    let ws = Workspace::new();
    configure(&ws, json!({"fault": stdio(&fault_server(), &[])}));
    let mock = MockLlm::start(vec![
        tool("search_skills", json!({"query": "huge"})),
        tool("mcp__fault__fail", json!({})),
        text("done"),
    ])
    .await;
    let mut cmd = ws.agent(&mock);
    cmd.env("AGENT_MCP_TOOLS_BUDGET", "200")
        .args(["--yes", "--once", "use the fault server's ok tool"]);
    let (code, _, err) = run_outcome(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("6 MCP tools do not fit AGENT_MCP_TOOLS_BUDGET"), "{err}");
    let requests = mock.requests().await;
    let offered = tool_names(&requests[0]);
    assert_eq!(
        offered,
        ["mcp__fault__ok", "search_skills"],
        "the most relevant within the budget"
    );
    let found = last_tool_result(&requests[1]);
    assert!(
        found.contains("MCP tool mcp__fault__huge (call it by this name)"),
        "{found}"
    );
    assert!(
        last_tool_result(&requests[2]).contains("mcp__fault__fail reported an error"),
        "a tool left out is still called by its name"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn over_their_budget_the_mcp_tools_of_a_chat_stay_the_same_from_request_to_request() {
    use crate::common::pty::*;
    let ws = std::sync::Arc::new(Workspace::new());
    configure(&ws, json!({"fault": stdio(&fault_server(), &[])}));
    let mock = std::sync::Arc::new(MockLlm::start(vec![text("first"), text("second")]).await);
    let (w, m) = (ws.clone(), mock.clone());
    blocking(move || {
        let mut p = chat_with_env(&w, &m, &[("AGENT_MCP_TOOLS_BUDGET", "200")], &["--yes"]);
        type_line(&mut p, "use the fault server's ok tool");
        p.exp_string("first").unwrap();
        // Another request whose words would rank another tool first.
        type_line(&mut p, "something huge please");
        p.exp_string("second").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let requests = mock.requests().await;
    assert_eq!(requests.len(), 2);
    assert_eq!(
        tool_names(&requests[0]),
        ["mcp__fault__ok", "search_skills"],
        "the most relevant to the first request"
    );
    assert_eq!(
        requests[0]["tools"], requests[1]["tools"],
        "the second request offers the same tools, byte for byte"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_cancels_an_mcp_call_with_the_protocols_cancellation_and_the_turn() {
    use crate::common::pty::*;
    let ws = std::sync::Arc::new(Workspace::new());
    let log = ws.dir.path().join("cancelled.log");
    let mut server = stdio(&fault_server(), &[]);
    server["env"] = json!({"FAULT_LOG": log.display().to_string()});
    configure(&ws, json!({ "fault": server }));
    let mock =
        std::sync::Arc::new(MockLlm::start(vec![tool("mcp__fault__hang", json!({})), text("after the stop")]).await);
    let (w, m, called) = (ws.clone(), mock.clone(), log.clone());
    blocking(move || {
        let mut p = chat(&w, &m, &["--yes"]);
        type_line(&mut p, "wait on the slow tool");
        p.exp_string("mcp [fault] hang").unwrap();
        wait_until("the server to have the call", || {
            std::fs::read_to_string(&called).is_ok_and(|t| t.contains("called hang"))
        });
        p.send_control('c').unwrap();
        p.exp_string("interrupted").unwrap();
        type_line(&mut p, "still there?");
        p.exp_string("after the stop").unwrap();
        ctrl_d_exits_zero(p);
    })
    .await;
    let said = (0..50)
        .find_map(|_| {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("cancelled") {
                return Some(text);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            None
        })
        .unwrap_or_default();
    assert!(
        said.lines().any(|l| l.starts_with("cancelled ")),
        "the server was told the call is cancelled: {said:?}"
    );
}
