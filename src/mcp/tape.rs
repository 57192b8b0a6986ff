//! `--record`/`--replay` of MCP servers: each server's tool list and each call's result are lines
//! of the run's cassette (`{"v":1,"mcp":"tools"|"call",…}`), so a replayed run offers the same
//! tools and gets the same results with no server started — a skill author's CI needs none.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::client::ToolInfo;
use super::hub::Failure;

/// Writes one cassette line (the LLM recorder's, so lines stay in order and are scrubbed alike).
pub(crate) type LineWriter = Arc<dyn Fn(&Value) + Send + Sync>;

/// Whether this run records MCP results, replays them, or neither.
#[derive(Clone, Default)]
pub(crate) enum McpTape {
    #[default]
    Off,
    Record(LineWriter),
    Replay(Arc<Replay>),
}

/// What a cassette recorded of the MCP servers.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    /// Each server's tools, in the order the servers were listed.
    pub(crate) tools: Vec<(String, Vec<ToolInfo>)>,
    calls: Mutex<VecDeque<Value>>,
}

impl Replay {
    /// The MCP lines of a cassette (`None` when it has none: the run used no server).
    pub(crate) fn from_lines(lines: &[Value]) -> Option<Self> {
        let mut replay = Replay::default();
        let mut calls = VecDeque::new();
        for line in lines {
            match line.get("mcp").and_then(Value::as_str) {
                Some("tools") => {
                    let servers: BTreeMap<String, Vec<ToolInfo>> =
                        serde_json::from_value(line["servers"].clone()).unwrap_or_default();
                    replay.tools = servers.into_iter().collect();
                }
                Some("call") => calls.push_back(line.clone()),
                _ => {}
            }
        }
        if replay.tools.is_empty() && calls.is_empty() {
            return None;
        }
        replay.calls = Mutex::new(calls);
        Some(replay)
    }

    /// The recorded outcome of the next call, which must be of `tool` on `server`.
    pub(crate) fn next_call(&self, server: &str, tool: &str) -> Result<Value, Failure> {
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        let Some(recorded) = calls.pop_front() else {
            return Err(format!(
                "the run called {server}/{tool} but the cassette holds no more MCP calls: the run departed from the recording"
            ));
        };
        if recorded["server"] != server || recorded["tool"] != tool {
            return Err(format!(
                "the run called {server}/{tool} where the cassette has {}/{}: the run departed from the recording",
                recorded["server"].as_str().unwrap_or("?"),
                recorded["tool"].as_str().unwrap_or("?")
            ));
        }
        match recorded.get("error").and_then(Value::as_str) {
            Some(error) => Err(error.to_string()),
            None => Ok(recorded["result"].clone()),
        }
    }
}

/// The line recording every server's tools.
pub(crate) fn tools_line(tools: &[(String, Vec<ToolInfo>)]) -> Value {
    let servers: BTreeMap<&str, &Vec<ToolInfo>> = tools.iter().map(|(s, t)| (s.as_str(), t)).collect();
    json!({"v": 1, "mcp": "tools", "servers": servers})
}

/// The line recording one call and how it came out.
pub(crate) fn call_line(server: &str, tool: &str, outcome: &Result<Value, Failure>) -> Value {
    match outcome {
        Ok(result) => json!({"v": 1, "mcp": "call", "server": server, "tool": tool, "result": result}),
        Err(error) => json!({"v": 1, "mcp": "call", "server": server, "tool": tool, "error": error}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_lines_replay_in_order_and_a_departure_is_named() {
        let tool = ToolInfo {
            name: "now".into(),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
        };
        let lines = vec![
            tools_line(&[("time".into(), vec![tool.clone()])]),
            call_line("time", "now", &Ok(json!({"content": []}))),
            call_line("time", "now", &Err("it crashed".into())),
            json!({"v": 1, "call": 1}),
        ];
        let replay = Replay::from_lines(&lines).unwrap();
        assert_eq!(replay.tools, vec![("time".to_string(), vec![tool])]);
        assert_eq!(replay.next_call("time", "now").unwrap(), json!({"content": []}));
        assert_eq!(replay.next_call("time", "now").unwrap_err(), "it crashed");
        assert!(
            replay
                .next_call("time", "now")
                .unwrap_err()
                .contains("no more MCP calls")
        );
        let again = Replay::from_lines(&lines).unwrap();
        assert!(again.next_call("other", "x").unwrap_err().contains("departed"));
        assert!(Replay::from_lines(&[json!({"v": 1})]).is_none());
    }
}
