//! The MCP servers an editor passes with a session, as our MCP client's configuration: they are
//! the user's own (the editor's settings), so they start as the servers of the user's `mcp.json`
//! do, unconfined, in the user's configuration folder (docs/mcp.md).

use std::collections::BTreeMap;
use std::path::PathBuf;

use agent_client_protocol::v1::schema::McpServer;

use crate::mcp::{Origin, ServerConfig, Transport};

/// The editor's servers, or why one of them cannot be used (SSE, which is not offered).
pub(crate) fn configured(servers: &[McpServer]) -> Result<Vec<ServerConfig>, String> {
    let file = PathBuf::from("<editor>");
    let dir = crate::mcp::config::user_file()
        .and_then(|f| f.parent().map(PathBuf::from))
        .filter(|d| d.is_dir())
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/"));
    servers
        .iter()
        .map(|server| {
            let (name, transport) = match server {
                McpServer::Stdio(s) => (
                    s.name.clone(),
                    Transport::Stdio {
                        command: s.command.display().to_string(),
                        args: s.args.clone(),
                        env: s.env.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
                    },
                ),
                McpServer::Http(s) => (
                    s.name.clone(),
                    Transport::Http {
                        url: s.url.clone(),
                        headers: s.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect(),
                    },
                ),
                McpServer::Sse(s) => {
                    return Err(format!(
                        "the MCP server {} speaks SSE, which agent does not: give its streamable HTTP URL",
                        s.name
                    ));
                }
                _ => return Err("an MCP server of a transport agent does not know".to_string()),
            };
            Ok(ServerConfig {
                name,
                transport,
                auto_approve: Vec::new(),
                origin: Origin::User,
                file: file.clone(),
                dir: dir.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()
        .map(|mut list| {
            // One server per name, the first of it.
            let mut seen = BTreeMap::new();
            list.retain(|s| seen.insert(s.name.clone(), ()).is_none());
            list
        })
}
