//! MCP servers (docs/design.md#mcp): a second source of tools beside skills, through the official
//! SDK (`rmcp`). Configuration (`mcp.json`, a trusted project's `.mcp.json`), connections to stdio
//! and streamable HTTP servers, the tool-list cache, and results made into text. Approval, events
//! and the model's tool schemas are the agent's (`agent::tools::mcp`): this layer only talks to
//! servers.

pub(crate) mod cache;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod confine;
pub(crate) mod hub;
pub(crate) mod program;
pub(crate) mod result;
pub(crate) mod tape;

pub(crate) use client::ToolInfo;
pub(crate) use config::{Origin, ServerConfig, Transport};
pub(crate) use hub::{HubSettings, McpHub};
