//! Per-turn overhead and plain-chat comparison against an in-process, zero-latency mock model.
//!
//! Runs the release `agent` binary (and the peers `aichat` and `llm`, when found on PATH) against
//! the same mock and prints a markdown report to stdout: wall time and peak RSS per run, request
//! bytes, and ratios. `bench/run.sh` builds everything, installs the peers and stores the report.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::too_many_lines)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const RUNS: usize = 15;

/// Answers like a model that routes to the `echo` skill: activate, run, answer; and plain text
/// when no tools are offered. Decided from the request alone, so any number of runs works.
struct ScriptedModel;

fn sse(events: &[Value]) -> String {
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

impl Respond for ScriptedModel {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let this_turn: Vec<&Value> = messages.iter().rev().take_while(|m| m["role"] != "user").collect();
        let activated = messages.iter().any(|m| {
            m["role"] == "tool"
                && m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("Skill echo activated"))
        });
        // Steps already taken this turn; a skill pre-activated before the request counts as the first.
        let steps = this_turn.iter().filter(|m| m["role"] == "tool").count();
        let activated_this_turn = this_turn.iter().any(|m| {
            m["role"] == "tool"
                && m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("Skill echo activated"))
        });
        let since_user = steps + usize::from(activated && !activated_this_turn);
        let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
        let call = |id: &str, name: &str, args: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":id,"type":"function","function":{"name":name,"arguments":args.to_string()}}]},"finish_reason":"tool_calls"}]});
        let events = match (has_tools, since_user) {
            (true, 0) => vec![call("c1", "activate_skill", json!({"name": "echo"}))],
            (true, 1) => vec![call("c2", "run_command", json!({"command": "./run.sh bench"}))],
            _ => vec![
                json!({"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello! "}}]}),
                json!({"choices":[{"index":0,"delta":{"content":"All done."},"finish_reason":"stop"}]}),
            ],
        };
        if body["stream"].as_bool().unwrap_or(false) {
            ResponseTemplate::new(200).set_body_raw(sse(&events), "text/event-stream")
        } else {
            let text = "Hello! All done.";
            ResponseTemplate::new(200).set_body_json(json!({"id":"x","object":"chat.completion","model":"mock","choices":[{"index":0,"message":{"role":"assistant","content":text},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}}))
        }
    }
}

/// Wall time and peak RSS (KB, from GNU time) of one run; `None` when the run failed.
fn measure(cmd: &mut Command) -> Option<(Duration, u64)> {
    let started = Instant::now();
    let out = cmd.output().ok()?;
    let wall = started.elapsed();
    if !out.status.success() {
        eprintln!("run failed: {:?}\n{}", cmd, String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("maxrss_kb="))
        .and_then(|v| v.trim().parse().ok())?;
    Some((wall, rss))
}

fn timed(program: &str) -> Command {
    let mut cmd = Command::new("/usr/bin/time");
    cmd.args(["-f", "maxrss_kb=%M", program]);
    cmd
}

struct Stats {
    median_ms: f64,
    p90_ms: f64,
    rss_mb: f64,
}

fn repeat(mut make: impl FnMut() -> Command) -> Option<Stats> {
    let _ = measure(&mut make()); // warm the page cache
    let mut walls = Vec::new();
    let mut rss = 0;
    for _ in 0..RUNS {
        let (wall, kb) = measure(&mut make())?;
        walls.push(wall.as_secs_f64() * 1000.0);
        rss = rss.max(kb);
    }
    walls.sort_by(f64::total_cmp);
    Some(Stats {
        median_ms: walls[walls.len() / 2],
        p90_ms: walls[(walls.len() * 9) / 10 - 1],
        rss_mb: rss as f64 / 1024.0,
    })
}

/// What every agent run needs.
#[derive(Clone)]
struct Setup {
    agent: PathBuf,
    home: PathBuf,
    base: String,
    work: PathBuf,
}

impl Setup {
    fn agent_cmd(&self, skills_dir: &Path, message: &str) -> Command {
        let mut cmd = timed(self.agent.to_str().unwrap_or("agent"));
        self.configure(&mut cmd, skills_dir, message);
        cmd
    }

    /// The agent itself, not under GNU time (for phase marks).
    fn untimed_cmd(&self, skills_dir: &Path, message: &str) -> Command {
        let mut cmd = Command::new(&self.agent);
        self.configure(&mut cmd, skills_dir, message);
        cmd
    }

    fn configure(&self, cmd: &mut Command, skills_dir: &Path, message: &str) {
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("AGENT_BASE_URL", &self.base)
            .env("AGENT_API_KEY", "sk-bench-0000000000")
            // Named, so the agent does not ask the mock's /v1/models which model to use.
            .env("AGENT_MODEL", "gpt-4.1-mini")
            .current_dir(&self.work)
            .arg("--skills-dir")
            .arg(skills_dir)
            .args(["--once", message, "--yes"]);
    }
}

/// Body sizes of the requests one run of `cmd` sends to a freshly reset mock.
async fn request_sizes(server: &MockServer, cmd: Command) -> Vec<usize> {
    request_bodies(server, cmd).await.iter().map(Vec::len).collect()
}

/// Bodies of the requests one run of `cmd` sends to a freshly reset mock.
async fn request_bodies(server: &MockServer, mut cmd: Command) -> Vec<Vec<u8>> {
    server.reset().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ScriptedModel)
        .mount(server)
        .await;
    let _ = tokio::task::spawn_blocking(move || cmd.output()).await;
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.body.clone())
        .collect()
}

/// The segments of a run `AGENT_PHASES=1` marks, with what each covers.
const SEGMENTS: [(&str, &str, &str); 9] = [
    ("spawn", "start", "process start (exec, loader, until `main`)"),
    ("start", "config", "configuration (flags, `.env`, folder trust)"),
    ("config", "discovery", "skill discovery"),
    (
        "discovery",
        "request",
        "request build (endpoint, client, catalog, prompt)",
    ),
    ("request", "connected", "connect"),
    ("connected", "first-byte", "first byte of the answer"),
    ("first-byte", "last-byte", "last byte of the answer"),
    ("last-byte", "exit", "rest of the turn and shutdown"),
    ("exit", "reaped", "process exit"),
];

/// Median milliseconds of each of [`SEGMENTS`] over [`RUNS`] runs of `make()` (its stderr
/// carries the marks), and the median wall time.
fn phases(make: impl Fn() -> Command) -> Option<(Vec<f64>, f64)> {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    };
    let mut per_segment: Vec<Vec<f64>> = vec![Vec::new(); SEGMENTS.len()];
    let mut walls = Vec::new();
    for run in 0..=RUNS {
        let mut cmd = make();
        cmd.env("AGENT_PHASES", "1");
        let spawned = now();
        let out = cmd.output().ok()?;
        let reaped = now();
        if !out.status.success() {
            return None;
        }
        let mut marks: Vec<(String, u128)> = vec![("spawn".into(), spawned), ("reaped".into(), reaped)];
        for line in String::from_utf8_lossy(&out.stderr).lines() {
            if let Some((name, at)) = line.strip_prefix("agent-phase ").and_then(|l| l.split_once(' ')) {
                marks.push((name.to_string(), at.trim().parse().ok()?));
            }
        }
        let at = |name: &str| marks.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
        if run == 0 {
            continue; // warm-up
        }
        walls.push((reaped - spawned) as f64 / 1e6);
        for (i, (from, to, _)) in SEGMENTS.iter().enumerate() {
            if let (Some(a), Some(b)) = (at(from), at(to)) {
                per_segment[i].push(b.saturating_sub(a) as f64 / 1e6);
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    Some((per_segment.iter_mut().map(median).collect(), median(&mut walls)))
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(program)).find(|f| f.is_file()))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let agent = PathBuf::from(
        std::env::var("AGENT_BIN")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/agent").into()),
    );
    if !agent.is_file() {
        eprintln!("build the release binary first: cargo build --release");
        std::process::exit(1);
    }
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ScriptedModel)
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    let skills = work.path().join("skills");
    let empty = work.path().join("no-skills");
    for d in [&home, &skills.join("echo"), &empty] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        skills.join("echo/SKILL.md"),
        "---\nname: echo\ndescription: Echoes text back to the user, for benchmarks.\n---\nRun `./run.sh TEXT`.\n",
    )
    .unwrap();
    // Neighbours, so that ranking (and pre-activation) has something to choose between.
    let topics = [
        "pdf files",
        "kubernetes pods",
        "csv tables",
        "calendar events",
        "audio clips",
        "git history",
        "invoices",
        "photos",
    ];
    for (i, topic) in topics.iter().cycle().take(24).enumerate() {
        let name = format!("{}-{i}", topic.split(' ').next().unwrap_or("t"));
        std::fs::create_dir_all(skills.join(&name)).unwrap();
        std::fs::write(
            skills.join(&name).join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Works with {topic} for everyday tasks.\n---\nbody\n"),
        )
        .unwrap();
    }
    let script = skills.join("echo/run.sh");
    std::fs::write(&script, "#!/bin/sh\necho \"echo: $*\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();

    let setup = Setup {
        agent: agent.clone(),
        home: home.clone(),
        base: base.clone(),
        // An empty working directory: no project skills besides the ones each run names.
        work: empty.clone(),
    };
    let agent_cmd = {
        let setup = setup.clone();
        move |skills_dir: &Path, message: &str| setup.agent_cmd(skills_dir, message)
    };

    let hello_body = request_bodies(&server, setup.agent_cmd(&empty, "hello"))
        .await
        .into_iter()
        .next()
        .unwrap_or_default();
    let body_file = work.path().join("hello-request.json");
    std::fs::write(&body_file, &hello_body).unwrap();
    let phase_setup = setup.clone();
    let report = tokio::task::spawn_blocking({
        let skills = skills.clone();
        let empty = empty.clone();
        let base = base.clone();
        let home = home.clone();
        let work_path = work.path().to_path_buf();
        move || {
            let mut out = String::new();
            let turn = repeat(|| agent_cmd(&skills, "echo this text back to me"));
            let preactivated = repeat(|| {
                let mut cmd = agent_cmd(&skills, "echo this text back to me");
                cmd.env("AGENT_PREACTIVATE", "1");
                cmd
            });
            let chat = repeat(|| agent_cmd(&empty, "hello"));
            let curl = repeat(|| {
                let mut cmd = timed("curl");
                cmd.args(["-sS", "-N", "-o", "/dev/null", "-X", "POST"])
                    .arg(format!("{base}/chat/completions"))
                    .args(["-H", "Content-Type: application/json", "-H", "Authorization: Bearer sk-bench-0000000000"])
                    .arg("--data-binary")
                    .arg(format!("@{}", body_file.display()));
                cmd
            });
            let untimed = |skills_dir: &Path, message: &str| phase_setup.untimed_cmd(skills_dir, message);
            let phase_rows = [
                ("plain \"hello\"", phases(|| untimed(&empty, "hello"))),
                ("skill turn", phases(|| untimed(&skills, "echo this text back to me"))),
                ("skill turn, pre-activated", phases(|| {
                    let mut cmd = untimed(&skills, "echo this text back to me");
                    cmd.env("AGENT_PREACTIVATE", "1");
                    cmd
                })),
            ];
            out.push_str("### One turn with a skill (3 LLM calls + 1 command)\n\n| | median | p90 | peak RSS |\n|---|---|---|---|\n");
            if let Some(s) = &turn {
                out.push_str(&format!("| `agent --once` | {:.1} ms | {:.1} ms | {:.1} MB |\n", s.median_ms, s.p90_ms, s.rss_mb));
            }
            if let Some(s) = &preactivated {
                out.push_str(&format!(
                    "| `AGENT_PREACTIVATE=1 agent --once` (2 LLM calls) | {:.1} ms | {:.1} ms | {:.1} MB |\n",
                    s.median_ms, s.p90_ms, s.rss_mb
                ));
            }
            out.push_str("\n### Plain one-shot chat, side by side (1 LLM call, same mock)\n\n| tool | median | p90 | peak RSS | time vs agent | RSS vs agent |\n|---|---|---|---|---|---|\n");
            let mut rows = Vec::new();
            if let Some(s) = chat {
                rows.push(("agent".to_string(), s));
            }
            if let Some(aichat) = on_path("aichat") {
                let cfg = work_path.join("aichat");
                std::fs::create_dir_all(&cfg).unwrap();
                std::fs::write(cfg.join("config.yaml"), format!("model: mock:gpt-4.1-mini\nsave: false\nhighlight: false\nclients:\n  - type: openai-compatible\n    name: mock\n    api_base: {base}\n    api_key: sk-bench-0000000000\n    models:\n      - name: gpt-4.1-mini\n")).unwrap();
                if let Some(s) = repeat(|| {
                    let mut cmd = timed(aichat.to_str().unwrap());
                    cmd.env("AICHAT_CONFIG_DIR", &cfg).env("HOME", &home).arg("hello");
                    cmd
                }) {
                    rows.push(("aichat".to_string(), s));
                }
            }
            let llm_bin = std::env::var("LLM_BIN").ok().map(PathBuf::from).or_else(|| on_path("llm"));
            if let Some(llm) = llm_bin {
                let dir = work_path.join("llm");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("extra-openai-models.yaml"), format!("- model_id: mock\n  model_name: gpt-4.1-mini\n  api_base: \"{base}\"\n")).unwrap();
                if let Some(s) = repeat(|| {
                    let mut cmd = timed(llm.to_str().unwrap());
                    cmd.env("LLM_USER_PATH", &dir).env("OPENAI_API_KEY", "sk-bench-0000000000").env("HOME", &home).args(["-m", "mock", "--no-log", "hello"]);
                    cmd
                }) {
                    rows.push(("llm".to_string(), s));
                }
            }
            let (base_ms, base_rss) = rows.first().map_or((1.0, 1.0), |(_, s)| (s.median_ms, s.rss_mb));
            for (name, s) in &rows {
                out.push_str(&format!(
                    "| `{name}` | {:.1} ms | {:.1} ms | {:.1} MB | {:.2}× | {:.2}× |\n",
                    s.median_ms,
                    s.p90_ms,
                    s.rss_mb,
                    s.median_ms / base_ms,
                    s.rss_mb / base_rss
                ));
            }
            if let (Some((_, agent)), Some(curl)) = (rows.first(), &curl) {
                out.push_str(&format!(
                    "| `curl` (one POST of the same streamed request) | {:.1} ms | {:.1} ms | {:.1} MB | {:.2}× | {:.2}× |\n\n**agent vs curl: {:.2}×** the wall time of one `curl` POST of the same request ({:.1} ms vs {:.1} ms).\n",
                    curl.median_ms,
                    curl.p90_ms,
                    curl.rss_mb,
                    curl.median_ms / base_ms,
                    curl.rss_mb / base_rss,
                    agent.median_ms / curl.median_ms,
                    agent.median_ms,
                    curl.median_ms
                ));
            }
            out.push_str("\n### Where a run's time goes (`AGENT_PHASES=1`, median ms of each phase)\n\n| phase |");
            for (name, _) in &phase_rows {
                out.push_str(&format!(" {name} |"));
            }
            out.push_str("\n|---|");
            out.push_str(&"---|".repeat(phase_rows.len()));
            out.push('\n');
            for (i, (_, _, what)) in SEGMENTS.iter().enumerate() {
                out.push_str(&format!("| {what} |"));
                for (_, result) in &phase_rows {
                    match result {
                        Some((segments, _)) => out.push_str(&format!(" {:.2} |", segments[i])),
                        None => out.push_str(" n/a |"),
                    }
                }
                out.push('\n');
            }
            out.push_str("| **wall time** |");
            for (_, result) in &phase_rows {
                match result {
                    Some((_, wall)) => out.push_str(&format!(" **{wall:.2}** |")),
                    None => out.push_str(" n/a |"),
                }
            }
            out.push('\n');
            if rows.len() < 3 {
                out.push_str("\n(Peers not found on PATH are left out; `bench/run.sh` installs them.)\n");
            }
            out
        }
    })
    .await
    .unwrap();

    // Request bytes, from what the mock received.
    let sizes = request_sizes(&server, setup.agent_cmd(&skills, "echo this text back to me")).await;
    let hello = request_sizes(&server, setup.agent_cmd(&empty, "hello")).await;
    let mut pre = setup.agent_cmd(&skills, "echo something for me");
    pre.env("AGENT_PREACTIVATE", "1");
    let preactivated = request_sizes(&server, pre).await;

    println!("{report}");
    println!("### Request bytes\n\n| request | bytes |\n|---|---|");
    if let Some(h) = hello.first() {
        println!("| plain \"hello\", no skills | {h} |");
    }
    for (i, s) in sizes.iter().enumerate() {
        println!("| one-skill turn, call {} | {s} |", i + 1);
    }
    for (i, s) in preactivated.iter().enumerate() {
        println!("| same turn pre-activated, call {} | {s} |", i + 1);
    }
    println!(
        "\nPre-activation: {} LLM calls instead of {} for this turn, {} request bytes in all instead of {}.",
        preactivated.len(),
        sizes.len(),
        preactivated.iter().sum::<usize>(),
        sizes.iter().sum::<usize>()
    );
    let _ = home;
}
