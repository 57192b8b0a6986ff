//! Shared harness: a wiremock OpenAI-compatible server with canned JSON/SSE replies served in
//! sequence, request capture, skill folders in temp dirs, and the real `agent` binary.
// Each test crate uses part of the harness; a test fails by panicking.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod binary;
pub mod claude;
pub mod events_doc;
pub mod kernel;
pub mod library;
pub mod pty;
pub mod sessions;

pub use binary::*;
pub use claude::*;
pub(crate) use kernel::require_kernel;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One canned reply of the mock model.
#[derive(Clone, Debug)]
pub enum Reply {
    Text(String),
    /// (id, tool name, JSON arguments)
    Tools(Vec<(String, String, String)>),
    /// A raw response (errors, odd bodies).
    Raw(ResponseTemplate),
}

pub fn text(s: &str) -> Reply {
    Reply::Text(s.to_string())
}

pub fn tool(name: &str, args: Value) -> Reply {
    tools(&[(name, args)])
}

pub fn tools(calls: &[(&str, Value)]) -> Reply {
    Reply::Tools(
        calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| (format!("call_{i}_{n}"), n.to_string(), a.to_string()))
            .collect(),
    )
}

pub fn status(code: u16, body: &str) -> Reply {
    Reply::Raw(ResponseTemplate::new(code).set_body_raw(body.to_string(), "application/json"))
}

/// An answer that arrives only after 30 s: a turn still waiting on it, for Ctrl-C or a kill.
pub fn too_late() -> Reply {
    Reply::Raw(
        ResponseTemplate::new(200)
            .set_delay(std::time::Duration::from_secs(30))
            .set_body_raw(sse_body(&text("too late")), "text/event-stream"),
    )
}

/// SSE body for a reply: text split into small deltas, tool-call arguments split in two.
pub fn sse_body(reply: &Reply) -> String {
    let mut events: Vec<Value> = Vec::new();
    match reply {
        Reply::Text(t) => {
            events.push(json!({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}));
            let chars: Vec<char> = t.chars().collect();
            for piece in chars.chunks(4) {
                let s: String = piece.iter().collect();
                events.push(json!({"choices":[{"index":0,"delta":{"content":s}}]}));
            }
            events.push(json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}));
        }
        Reply::Tools(calls) => {
            for (i, (id, name, args)) in calls.iter().enumerate() {
                let mid = args.len() / 2;
                let (a, b) = args.split_at(mid);
                events.push(json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"id":id,"type":"function","function":{"name":name,"arguments":a}}]}}]}));
                events.push(
                    json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"arguments":b}}]}}]}),
                );
            }
            events.push(json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}));
        }
        Reply::Raw(_) => {}
    }
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// Non-streamed JSON body for a reply.
pub fn json_body(reply: &Reply) -> Value {
    let message = match reply {
        Reply::Text(t) => json!({"role":"assistant","content":t}),
        Reply::Tools(calls) => {
            json!({"role":"assistant","content":null,"tool_calls": calls.iter().map(|(id,n,a)| json!({"id":id,"type":"function","function":{"name":n,"arguments":a}})).collect::<Vec<_>>()})
        }
        Reply::Raw(_) => Value::Null,
    };
    let finish = if matches!(reply, Reply::Tools(_)) {
        "tool_calls"
    } else {
        "stop"
    };
    json!({"id":"chatcmpl-1","object":"chat.completion","model":"mock","choices":[{"index":0,"message":message,"finish_reason":finish}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}})
}

/// Serves replies in order, as SSE when the request asked for a stream, else as JSON.
struct Sequence {
    replies: Mutex<VecDeque<Reply>>,
    repeat_last: bool,
}

impl Respond for Sequence {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut queue = self.replies.lock().unwrap();
        let reply = if self.repeat_last && queue.len() == 1 {
            queue.front().cloned()
        } else {
            queue.pop_front()
        };
        let Some(reply) = reply else {
            return ResponseTemplate::new(500).set_body_raw(
                r#"{"error":{"message":"mock: no more replies queued"}}"#,
                "application/json",
            );
        };
        answer(request, reply)
    }
}

/// `reply` as the response to `request`: SSE when it asked for a stream, else JSON.
pub fn answer(request: &Request, reply: Reply) -> ResponseTemplate {
    let wants_stream = serde_json::from_slice::<Value>(&request.body)
        .ok()
        .and_then(|b| b["stream"].as_bool())
        .unwrap_or(false);
    match reply {
        Reply::Raw(t) => t,
        r if wants_stream => ResponseTemplate::new(200).set_body_raw(sse_body(&r), "text/event-stream"),
        r => ResponseTemplate::new(200).set_body_json(json_body(&r)),
    }
}

/// The mock model endpoint.
pub struct MockLlm {
    pub server: MockServer,
}

impl MockLlm {
    /// Start a server answering `POST /v1/chat/completions` with `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::start_with(replies, false).await
    }

    /// Like `start`, but the last reply is repeated forever (runaway loops).
    pub async fn repeating(replies: Vec<Reply>) -> Self {
        Self::start_with(replies, true).await
    }

    async fn start_with(replies: Vec<Reply>, repeat_last: bool) -> Self {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(Sequence {
                replies: Mutex::new(replies.into()),
                repeat_last,
            })
            .mount(&server)
            .await;
        Self { server }
    }

    /// A server whose chat completions `responder` answers (a model with rules of its own).
    pub async fn serving(responder: impl Respond + 'static) -> Self {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(responder)
            .mount(&server)
            .await;
        Self { server }
    }

    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// Bodies of every request received, parsed.
    pub async fn requests(&self) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }

    /// The chat requests received, in order: those with messages (a chat also asks for the
    /// model list, a run with embeddings for vectors).
    pub async fn chat_requests(&self) -> Vec<Value> {
        let mut all = self.requests().await;
        all.retain(|r| r.get("messages").is_some());
        all
    }

    /// Raw request bodies (for size measurements and header checks).
    pub async fn raw_requests(&self) -> Vec<Request> {
        self.server.received_requests().await.unwrap_or_default()
    }
}

/// A temp workspace: a home, a working directory and a skill root, all empty at first.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "work", "skills"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Self { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    pub fn skills(&self) -> PathBuf {
        self.dir.path().join("skills")
    }

    /// Write `SKILL.md` (and optional executable `run.sh`) for a skill under the skill root.
    pub fn skill(&self, name: &str, skill_md: &str, run_sh: Option<&str>) -> PathBuf {
        let dir = self.skills().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), skill_md).unwrap();
        if let Some(script) = run_sh {
            write_script(&dir.join("run.sh"), script);
        }
        dir
    }
}

impl Workspace {
    /// Where runs in this workspace store their sessions (`$HOME/.local/state/agent/sessions`).
    pub fn sessions_dir(&self) -> PathBuf {
        self.home().join(".local/state/agent/sessions")
    }

    /// Stored session files, oldest first (ids sort by time).
    pub fn session_files(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.sessions_dir()) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        files
    }

    /// Store a session file `id` by hand: its header (started in the work dir), then `records`.
    pub fn write_session(&self, id: &str, records: &[Value]) -> PathBuf {
        std::fs::create_dir_all(self.sessions_dir()).unwrap();
        let header = json!({"type":"session","v":1,"id":id,"agent_version":"0.1.0","model":"gpt-4.1-mini",
            "base_url":"http://127.0.0.1:9/v1","skill_roots":[],"cwd":self.work().display().to_string(),
            "started_at":1_796_124_153u64});
        let mut text = format!("{header}\n");
        for r in records {
            text.push_str(&format!("{r}\n"));
        }
        let path = self.sessions_dir().join(format!("{id}.jsonl"));
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// A path inside the checkout being tested. Cargo sets `CARGO_MANIFEST_DIR` when it runs a test,
/// so this is the checkout the suite runs in, even when a test binary built from another copy
/// was reused (`.ci/run` runs the suite from a fresh copy with a shared target dir).
pub fn repo_path(rel: &str) -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .join(rel)
}

/// The Agent Skills reference fixtures and their golden verdicts, inside this checkout.
pub fn conformance_dir() -> PathBuf {
    repo_path("tests/conformance/skills-ref")
}

/// A project skill `name` in the working folder's `skills/`, whose `run.sh` is `script`.
pub fn project_skill_running(ws: &Workspace, name: &str, script: &str) -> PathBuf {
    let dir = ws.work().join("skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: A project skill named {name}.\n---\nRun ./run.sh\n"),
    )
    .unwrap();
    write_script(&dir.join("run.sh"), script);
    dir
}

pub fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// All `content` strings of messages with `role` in a request body.
pub fn contents(request: &Value, role: &str) -> Vec<String> {
    request["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == role)
                .filter_map(|m| m["content"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `program` is found on this process's `PATH` (a test that drives it can run).
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// Every message content of a request, joined.
pub fn all_text(request: &Value) -> String {
    ["system", "user", "assistant", "tool"]
        .iter()
        .flat_map(|r| contents(request, r))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A bare TCP server for faults wiremock cannot produce: it answers every connection with
/// `head` (status line and headers), then each body part after its delay, then hangs for
/// `hang` or closes. Returns the base URL (`http://127.0.0.1:PORT/v1`).
pub async fn raw_server(
    head: &'static str,
    parts: Vec<(std::time::Duration, String)>,
    hang: std::time::Duration,
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let parts = parts.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let mut seen = Vec::new();
                // Read the request head and its body (Content-Length) before answering.
                loop {
                    let Ok(n) = socket.read(&mut buf).await else { return };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                let _ = socket.write_all(head.as_bytes()).await;
                for (delay, part) in parts {
                    tokio::time::sleep(delay).await;
                    if socket.write_all(part.as_bytes()).await.is_err() {
                        return;
                    }
                }
                tokio::time::sleep(hang).await;
            });
        }
    });
    format!("http://{addr}/v1")
}

pub const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// The usual three replies of a skill turn: activate `skill`, run `command`, answer `answer`.
pub fn activate_run_answer(skill: &str, command: &str, answer: &str) -> Vec<Reply> {
    vec![
        tool("activate_skill", json!({ "name": skill })),
        tool("run_command", json!({ "command": command })),
        text(answer),
    ]
}

/// Replies of a turn that activates `skill`, proposes all `commands` in ONE response, then answers.
pub fn activate_run_all_answer(skill: &str, commands: &[&str], answer: &str) -> Vec<Reply> {
    let calls: Vec<(&str, Value)> = commands
        .iter()
        .map(|c| ("run_command", json!({ "command": c })))
        .collect();
    vec![
        tool("activate_skill", json!({ "name": skill })),
        tools(&calls),
        text(answer),
    ]
}

/// The names of the tools a request offers, in order.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The tools every full-prompt request with skills offers: the skill tools, then the file tools.
pub const FULL_TOOLS: [&str; 8] = [
    "activate_skill",
    "run_command",
    "read_skill_file",
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
];

/// The result the model got for the last tool call before `request`.
pub fn last_tool_result(request: &Value) -> String {
    contents(request, "tool").last().cloned().unwrap_or_default()
}

/// The skill names of a `skills list --json` document.
pub fn listed_names(listing: &Value) -> Vec<String> {
    listing["skills"]
        .as_array()
        .map(|skills| {
            skills
                .iter()
                .filter_map(|s| s["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Answers `POST /v1/embeddings` like an OpenAI-compatible server, with the deterministic
/// stand-in vectors of `agent::llm::embeddings::stand_in` (a bad request body gets a 400).
pub struct StandInEmbeddings;

impl Respond for StandInEmbeddings {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        match agent::llm::embeddings::stand_in::response(&body) {
            Ok(answer) => ResponseTemplate::new(200).set_body_json(answer),
            Err(e) => ResponseTemplate::new(400).set_body_json(json!({"error": {"message": e.to_string()}})),
        }
    }
}

impl MockLlm {
    /// Also serve `POST /v1/embeddings` with stand-in vectors.
    pub async fn with_embeddings(self) -> Self {
        Mock::given(method("POST"))
            .and(path("/v1/embeddings"))
            .respond_with(StandInEmbeddings)
            .mount(&self.server)
            .await;
        self
    }

    /// Bodies of the embeddings requests received, parsed.
    pub async fn embedding_requests(&self) -> Vec<Value> {
        self.raw_requests()
            .await
            .iter()
            .filter(|r| r.url.path().ends_with("/embeddings"))
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }
}
