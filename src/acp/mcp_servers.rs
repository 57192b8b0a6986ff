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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(value: serde_json::Value) -> McpServer {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn stdio_and_http_servers_become_the_users_own_and_sse_is_refused_by_name() {
        let servers = [
            server(
                json!({"name": "time", "command": "/usr/bin/mcp-time", "args": ["--utc"],
                          "env": [{"name": "TZ", "value": "UTC"}]}),
            ),
            server(json!({"type": "http", "name": "docs", "url": "https://example.com/mcp",
                          "headers": [{"name": "Authorization", "value": "Bearer t"}]})),
            server(json!({"name": "time", "command": "/other", "args": [], "env": []})),
        ];
        let made = configured(&servers).unwrap();
        assert_eq!(made.len(), 2, "one per name, the first: {made:?}");
        assert!(
            made.iter()
                .all(|s| s.origin == Origin::User && s.auto_approve.is_empty())
        );
        assert_eq!(
            made[0].transport,
            Transport::Stdio {
                command: "/usr/bin/mcp-time".into(),
                args: vec!["--utc".into()],
                env: [("TZ".to_string(), "UTC".to_string())].into(),
            }
        );
        assert_eq!(
            made[1].transport,
            Transport::Http {
                url: "https://example.com/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer t".to_string())].into(),
            }
        );
        let sse = server(json!({"type": "sse", "name": "old", "url": "https://e/sse", "headers": []}));
        let err = configured(&[sse]).unwrap_err();
        assert!(err.contains("old") && err.contains("SSE"), "{err}");
    }
}
