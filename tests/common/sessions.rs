//! What the tests of stored sessions share (sessions, their export, compaction, the first day):
//! the chat in a pty with sessions stored, single runs, and reading what was stored.

use std::process::Command as StdCommand;

use rexpect::session::{PtySession, spawn_command};
use serde_json::Value;

use super::{MockLlm, TEST_KEY, Workspace, contents, run_outcome};

/// A weather skill whose body the model sees when it is activated.
pub const WEATHER: &str =
    "---\nname: weather\ndescription: Current weather for a city.\n---\nWEATHER-BODY: run ./run.sh CITY\n";
/// The API key of the runs, which nothing stored may contain.
pub const SECRET: &str = TEST_KEY;

/// The records of a session file, the header first.
pub fn records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// `(role, content)` of every message of a request after the system prompt.
pub fn history(request: &Value) -> Vec<(String, String)> {
    request["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| {
            let content = match m["content"].as_str() {
                Some(c) => c.to_string(),
                None => m["tool_calls"].to_string(),
            };
            (m["role"].as_str().unwrap().to_string(), content)
        })
        .collect()
}

/// The real binary for a pty (`common::pty::pty_agent`), talking to `mock`, with `args`.
pub fn stored_chat_command(ws: &Workspace, mock: &MockLlm, args: &[&str]) -> StdCommand {
    let mut cmd = super::pty::pty_agent(ws);
    super::pty::talking_to(&mut cmd, mock).args(args);
    cmd
}

/// The chat in a pty, talking to `mock`, approving commands by itself.
pub fn pty_chat(ws: &Workspace, mock: &MockLlm, extra: &[&str]) -> PtySession {
    let mut cmd = stored_chat_command(ws, mock, &["--approve", "yes"]);
    cmd.args(extra);
    let mut p = spawn_command(cmd, Some(15_000)).unwrap();
    // The banner names the session being stored.
    p.exp_string(" skills").unwrap();
    p.exp_string(" session 20").unwrap();
    p.exp_string("/help for commands").unwrap();
    p
}

/// The user messages of a request, in order.
pub fn users(request: &Value) -> Vec<String> {
    contents(request, "user")
}

/// `agent --once MESSAGE --approve yes ARGS` against `mock`: (exit code, stdout, stderr).
pub async fn once(ws: &Workspace, mock: &MockLlm, message: &str, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ws.agent(mock);
    cmd.args(["--once", message, "--approve", "yes"]).args(args);
    run_outcome(cmd).await
}
