//! The results of `agent mcp add|list|tools|remove` and `/mcp` as typed values; with
//! `--json` each is one JSON document (docs/events.md, "Subcommands").

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

/// One configured server as `mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct McpServerState {
    pub(crate) name: String,
    /// `user` (your mcp.json) or `project` (a trusted folder's .mcp.json).
    pub(crate) origin: String,
    /// The file it is configured in.
    pub(crate) file: PathBuf,
    /// `stdio` or `http`.
    pub(crate) transport: String,
    /// The command it starts, or its URL, as written (variables unexpanded).
    pub(crate) target: String,
    /// `ready` (it answered), `failed` (it did not: see `error`) or `not_trusted` (a project's
    /// server in a folder that is not trusted: never started).
    pub(crate) state: String,
    /// How many tools it offers, when it answered.
    pub(crate) tools: Option<usize>,
    pub(crate) error: Option<String>,
    /// What confines it (docs/sandbox.md): `unconfined process`, or `remote` for HTTP.
    pub(crate) confinement: String,
}

/// `agent mcp list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct McpServerList {
    pub(crate) servers: Vec<McpServerState>,
}

/// One tool as `mcp tools` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct McpToolEntry {
    pub(crate) server: String,
    /// The tool's own name.
    pub(crate) tool: String,
    /// Its name for the model: `mcp__SERVER__TOOL`.
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) input_schema: Value,
}

/// `agent mcp tools [SERVER]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct McpToolList {
    pub(crate) tools: Vec<McpToolEntry>,
    /// Servers that could not be listed, each with why.
    pub(crate) errors: Vec<String>,
}

/// `agent mcp add` / `agent mcp remove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct McpChanged {
    /// `added`, `replaced` or `removed`.
    pub(crate) action: String,
    pub(crate) name: String,
    /// The file written.
    pub(crate) file: PathBuf,
    /// A project file's servers start only once the folder is trusted.
    pub(crate) project: bool,
}
