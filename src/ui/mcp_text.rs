//! `agent mcp list|tools|add|remove` (and `/mcp`) as text: one line a server or tool on stdout,
//! outside text made inert for the terminal.

use super::report_text::{Text, one};
use crate::output::mcp::{McpChanged, McpServerList, McpToolList};

/// Lines of `mcp list`: name, state and tool count, what it starts, where it is configured and
/// what confines it.
pub(crate) fn servers(list: &McpServerList) -> Text {
    if list.servers.is_empty() {
        return Text {
            out: Vec::new(),
            err: vec!["no MCP servers configured; add one with `agent mcp add NAME -- COMMAND` or `--url URL`".into()],
        };
    }
    let out = list
        .servers
        .iter()
        .map(|s| {
            let state = match (s.state.as_str(), s.tools) {
                ("ready", Some(n)) => format!("ready, {n} tool{}", if n == 1 { "" } else { "s" }),
                (state, _) => state.replace('_', " "),
            };
            let mut line = format!(
                "{}  [{state}]  {} {}  ({}, {}; {})",
                one(&s.name),
                s.transport,
                one(&s.target),
                s.origin,
                one(&s.file.display().to_string()),
                s.confinement
            );
            if let Some(error) = &s.error {
                line.push_str(&format!("\n    {}", one(error)));
            }
            line
        })
        .collect();
    Text { out, err: Vec::new() }
}

/// Lines of `mcp tools`: each tool's name for the model, its description and schema.
pub(crate) fn tools(list: &McpToolList) -> Text {
    let out = list
        .tools
        .iter()
        .map(|t| {
            format!(
                "{}\n    {}\n    input: {}",
                one(&t.name),
                one(t.description.lines().next().unwrap_or_default()),
                one(&t.input_schema.to_string())
            )
        })
        .collect();
    let mut err: Vec<String> = list.errors.iter().map(|e| format!("warning: {}", one(e))).collect();
    if list.tools.is_empty() && list.errors.is_empty() {
        err.push("no MCP tools: no server is configured, or none offers any".into());
    }
    Text { out, err }
}

/// The line of `mcp add|remove`.
pub(crate) fn changed(change: &McpChanged) -> Text {
    let mut err = vec![format!(
        "{} MCP server {} in {}",
        change.action,
        one(&change.name),
        one(&change.file.display().to_string())
    )];
    if change.project && change.action != "removed" {
        err.push("a project's servers start only once its folder is trusted (`agent trust`)".into());
    }
    Text { out: Vec::new(), err }
}
