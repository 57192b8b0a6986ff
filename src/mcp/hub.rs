//! The run's MCP servers: each started at most once, lazily, on first need; tool lists served
//! from a cache keyed on each server's configuration so a turn does not wait for servers to start
//! just to name their tools; calls bounded by a timeout. A server that fails is a message, never a
//! failed run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::OnceCell;

use super::cache::ToolCache;
use super::client::{self, Connection, Launch, ToolInfo};
use super::config::ServerConfig;
use super::confine;
use super::result::{self, CallResult};
use super::tape::{self, McpTape};

/// Prefix of every MCP tool's name as the model sees it: `mcp__SERVER__TOOL`.
pub(crate) const PREFIX: &str = "mcp__";

/// Longest function name OpenAI-compatible servers accept.
const MAX_TOOL_NAME: usize = 64;

/// How the hub starts servers and bounds calls.
#[derive(Debug, Clone)]
pub(crate) struct HubSettings {
    /// The environment servers start from and `${VAR}`s expand from.
    pub(crate) env: BTreeMap<String, String>,
    /// The run's sandbox, which a project's stdio servers run under (`None`: unconfined).
    pub(crate) sandbox: Option<crate::exec::sandbox::Settings>,
    /// Where each server's stderr log goes (`NAME.log`).
    pub(crate) log_dir: Option<PathBuf>,
    /// The tool-list cache file.
    pub(crate) cache_file: Option<PathBuf>,
    /// Longest wait for a server to start, and for one call (`AGENT_MCP_TIMEOUT`).
    pub(crate) timeout: Duration,
    /// Bytes of a result kept from its start and from its end.
    pub(crate) head_bytes: usize,
    pub(crate) tail_bytes: usize,
    /// Secrets taken out of results before they are capped.
    pub(crate) redactor: crate::support::redact::Redactor,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OfferedTool {
    /// `mcp__SERVER__TOOL`, made of characters function names allow.
    pub(crate) qualified: String,
    pub(crate) server: String,
    pub(crate) tool: ToolInfo,
}

/// Why a server or one of its tools cannot be used, as text. It is text by nature: it is kept
/// once per run for every caller (so it must be `Clone`), its URLs are masked of credentials
/// before anyone sees it, and it ends as a tool result the model reads or a warning.
pub(crate) type Failure = String;

type Slot = Arc<OnceCell<Result<Arc<Connection>, Failure>>>;

/// The configured servers and their live connections.
pub(crate) struct McpHub {
    servers: Vec<ServerConfig>,
    settings: HubSettings,
    live: Mutex<BTreeMap<String, Slot>>,
    offered: Mutex<Vec<OfferedTool>>,
    tape: McpTape,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub").field("servers", &self.names()).finish()
    }
}

impl McpHub {
    /// A hub over `servers`; nothing starts until it is needed.
    pub(crate) fn new(servers: Vec<ServerConfig>, settings: HubSettings) -> Self {
        Self {
            servers,
            settings,
            live: Mutex::new(BTreeMap::new()),
            offered: Mutex::new(Vec::new()),
            tape: McpTape::Off,
        }
    }

    /// This hub recording its tool lists and results to a cassette, or replaying them from one
    /// (then no server starts).
    pub(crate) fn with_tape(mut self, tape: McpTape) -> Self {
        self.tape = tape;
        self
    }

    /// The configured servers.
    pub(crate) fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// Their names.
    pub(crate) fn names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.name.clone()).collect()
    }

    /// The server called `name`.
    pub(crate) fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The connection to `server`, started on first use; a failed start is remembered for the
    /// run (a server that crashed is started again: see [`McpHub::forget`]).
    async fn connection(&self, server: &ServerConfig) -> Result<Arc<Connection>, Failure> {
        let slot = {
            let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
            live.entry(server.name.clone()).or_default().clone()
        };
        slot.get_or_init(|| async {
            let transport = server
                .transport
                .expanded(&self.settings.env)
                .map_err(|e| e.to_string())?;
            let log = self
                .settings
                .log_dir
                .as_ref()
                .map(|d| d.join(format!("{}.log", server.name)));
            let confined = confine::of(server, self.settings.sandbox.as_ref())?;
            let mut env = self.settings.env.clone();
            env.extend(confined.iter().flat_map(|c| c.env.clone()));
            let launch = Launch {
                env: &env,
                cwd: &server.dir,
                log: log.as_deref(),
                confinement: confined.as_ref().map(|c| &c.confinement),
            };
            match tokio::time::timeout(self.settings.timeout, client::connect(&transport, &launch)).await {
                Ok(Ok(connection)) => Ok(Arc::new(connection.holding(confined.map(|c| c.temp)))),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(format!("it did not start within {}s", self.settings.timeout.as_secs())),
            }
        })
        .await
        .clone()
        .map_err(|e| format!("MCP server {}: {}", server.name, super::config::masked_urls_in(&e)))
    }

    /// Drop the connection to `name`, so the next use starts the server again.
    fn forget(&self, name: &str) {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).remove(name);
    }

    /// `server`'s tools, asked of the server itself (starting it), stored in the cache.
    pub(crate) async fn tools_of(&self, server: &ServerConfig) -> Result<Vec<ToolInfo>, Failure> {
        let connection = self.connection(server).await?;
        let listed = tokio::time::timeout(self.settings.timeout, connection.tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => return Err(format!("MCP server {}: {e}", server.name)),
            Err(_) => {
                return Err(format!(
                    "MCP server {}: tools/list did not answer within {}s",
                    server.name,
                    self.settings.timeout.as_secs()
                ));
            }
        };
        if let Some(file) = &self.settings.cache_file {
            ToolCache::store(file, &server.name, &self.cache_key(server), &tools);
        }
        Ok(tools)
    }

    /// The key a server's cached tool list is valid for: its expanded configuration, hashed.
    fn cache_key(&self, server: &ServerConfig) -> String {
        let expanded = server.transport.expanded(&self.settings.env).ok();
        super::cache::key(&server.name, &serde_json::to_string(&expanded).unwrap_or_default())
    }

    /// Every tool of every server, for the model (from the cassette when replaying); servers that
    /// cannot be listed come back as warnings.
    pub(crate) async fn offered(&self) -> (Vec<OfferedTool>, Vec<String>) {
        let (lists, warnings) = match &self.tape {
            McpTape::Replay(replay) => (replay.tools.clone(), Vec::new()),
            _ => self.list_all().await,
        };
        if let McpTape::Record(write) = &self.tape {
            write(&tape::tools_line(&lists));
        }
        let offered: Vec<OfferedTool> = lists
            .into_iter()
            .flat_map(|(server, tools)| {
                tools.into_iter().map(move |tool| OfferedTool {
                    qualified: qualified_name(&server, &tool.name),
                    server: server.clone(),
                    tool,
                })
            })
            .collect();
        *self.offered.lock().unwrap_or_else(|p| p.into_inner()) = offered.clone();
        (offered, warnings)
    }

    /// Every server's tools: cached lists as they are, the others asked of their servers, all at
    /// once; servers that cannot be listed come back as warnings.
    async fn list_all(&self) -> (Vec<(String, Vec<ToolInfo>)>, Vec<String>) {
        let cached = self
            .settings
            .cache_file
            .as_deref()
            .map(ToolCache::load)
            .unwrap_or_default();
        let lists = futures::future::join_all(self.servers.iter().map(|server| {
            let cached = &cached;
            async move {
                match cached.get(&server.name, &self.cache_key(server)) {
                    Some(tools) => (server, Ok(tools)),
                    None => (server, self.tools_of(server).await),
                }
            }
        }))
        .await;
        let mut found = Vec::new();
        let mut warnings = Vec::new();
        for (server, list) in lists {
            match list {
                Ok(tools) => found.push((server.name.clone(), tools)),
                Err(e) => warnings.push(format!("{e}; its tools are not offered this turn")),
            }
        }
        (found, warnings)
    }

    /// The server and tool a model's `mcp__SERVER__TOOL` name means, if it is one.
    pub(crate) fn resolve(&self, qualified: &str) -> Option<(String, String)> {
        let known = self.offered.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = known.iter().find(|t| t.qualified == qualified) {
            return Some((t.server.clone(), t.tool.name.clone()));
        }
        let (server, tool) = qualified.strip_prefix(PREFIX)?.split_once("__")?;
        self.server(server).map(|s| (s.name.clone(), tool.to_string()))
    }

    /// Call `tool` of `server`; an error is a message for the model and the user. A call that
    /// fails for the connection's sake (a crash, a timeout) drops it, so the next call restarts
    /// the server.
    pub(crate) async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallResult, Failure> {
        let outcome = match &self.tape {
            McpTape::Replay(replay) => replay.next_call(server, tool),
            _ => self.call_live(server, tool, arguments).await,
        };
        if let McpTape::Record(write) = &self.tape {
            write(&tape::call_line(server, tool, &outcome));
        }
        outcome.map(|value| {
            result::read(
                &value,
                self.settings.head_bytes,
                self.settings.tail_bytes,
                &self.settings.redactor,
            )
        })
    }

    /// The call made of the server itself: the protocol's result, or why there is none.
    async fn call_live(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, Failure> {
        let Some(config) = self.server(server) else {
            return Err(format!("there is no MCP server named {server:?}"));
        };
        let connection = self.connection(config).await?;
        let outcome = tokio::time::timeout(self.settings.timeout, connection.call(tool, arguments)).await;
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => {
                self.forget(server);
                Err(format!("MCP server {server}: {tool}: {e}"))
            }
            Err(_) => {
                self.forget(server);
                Err(format!(
                    "MCP server {server}: {tool} did not answer within {}s (AGENT_MCP_TIMEOUT) and was cancelled",
                    self.settings.timeout.as_secs()
                ))
            }
        }
    }

    /// End every server this hub started.
    pub(crate) fn shutdown(&self) {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// `mcp__SERVER__TOOL` with every character a function name cannot hold replaced by `_`, at most
/// 64 characters.
pub(crate) fn qualified_name(server: &str, tool: &str) -> String {
    let name: String = format!("{PREFIX}{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.chars().take(MAX_TOOL_NAME).collect()
}

/// Whether `grant` (an `allowed-tools` entry or an auto-approve pattern: a name, or a prefix
/// ending in `*`) covers the tool named `qualified`.
pub(crate) fn grant_covers(grant: &str, qualified: &str) -> bool {
    match grant.trim().strip_suffix('*') {
        Some(prefix) => prefix.starts_with(PREFIX) && qualified.starts_with(prefix),
        None => grant.trim() == qualified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_qualified_and_grants_match() {
        assert_eq!(
            qualified_name("time", "get_current_time"),
            "mcp__time__get_current_time"
        );
        assert_eq!(qualified_name("a", "x.y/z"), "mcp__a__x_y_z");
        assert_eq!(qualified_name("a", &"t".repeat(100)).len(), 64);
        assert!(grant_covers("mcp__rube__*", "mcp__rube__search"));
        assert!(!grant_covers("mcp__rube__*", "mcp__other__search"));
        assert!(grant_covers(
            "mcp__time__get_current_time",
            "mcp__time__get_current_time"
        ));
        assert!(!grant_covers("*", "mcp__time__x"), "a bare * grants no MCP tool");
        assert!(!grant_covers("Bash(git:*)", "mcp__time__x"));
    }
}
