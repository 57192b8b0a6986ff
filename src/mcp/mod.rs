//! MCP servers (docs/design.md#mcp): a second source of tools beside skills, through the official
//! SDK (`rmcp`). Configuration (`mcp.json`, a trusted project's `.mcp.json`), connections to stdio
//! and streamable HTTP servers, the tool-list cache, and results made into text. Approval, events
//! and the model's tool schemas are the agent's (`agent::tools::mcp`): this layer only talks to
//! servers.

pub mod cache;
pub mod client;
pub mod config;
pub mod confine;
pub mod hub;
pub mod program;
pub mod result;
pub mod tape;

pub use client::ToolInfo;
pub use config::{Origin, ServerConfig, Transport};
pub use hub::{HubSettings, McpHub, OfferedTool};
