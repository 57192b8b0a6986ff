//! The results of `agent mcp add|list|tools|remove` and `/mcp` as typed values; with
//! `--json` each is one JSON document (docs/events.md, "Subcommands").

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

/// One configured server as `mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpServerState {
    pub name: String,
    /// `user` (your mcp.json) or `project` (a trusted folder's .mcp.json).
    pub origin: String,
    /// The file it is configured in.
    pub file: PathBuf,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command it starts, or its URL, as written (variables unexpanded).
    pub target: String,
    /// `ready` (it answered), `failed` (it did not: see `error`) or `not_trusted` (a project's
    /// server in a folder that is not trusted: never started).
    pub state: String,
    /// How many tools it offers, when it answered.
    pub tools: Option<usize>,
    pub error: Option<String>,
    /// What confines it (docs/sandbox.md): `unconfined process`, or `remote` for HTTP.
    pub confinement: String,
}

/// `agent mcp list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpServerList {
    pub servers: Vec<McpServerState>,
}

/// One tool as `mcp tools` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpToolEntry {
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    /// Its name for the model: `mcp__SERVER__TOOL`.
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// `agent mcp tools [SERVER]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpToolList {
    pub tools: Vec<McpToolEntry>,
    /// Servers that could not be listed, each with why.
    pub errors: Vec<String>,
}

/// `agent mcp add` / `agent mcp remove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpChanged {
    /// `added`, `replaced` or `removed`.
    pub action: String,
    pub name: String,
    /// The file written.
    pub file: PathBuf,
    /// A project file's servers start only once the folder is trusted.
    pub project: bool,
}
