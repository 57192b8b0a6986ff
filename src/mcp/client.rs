//! One live connection to an MCP server through the official SDK (`rmcp`): a stdio child process
//! or streamable HTTP. The protocol is the SDK's; this file only starts, lists, calls and stops.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::Transport;
use super::hub::Failure;
use crate::exec::private_temp::PrivateTemp;
use crate::exec::sandbox::Confinement;
use crate::support::children::{self, Listed};

/// A tool as its server lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolInfo {
    pub(crate) name: String,
    pub(crate) description: String,
    /// Its JSON Schema for the arguments (an object schema).
    pub(crate) input_schema: Value,
}

/// What a stdio server is started with besides its own configuration.
pub(crate) struct Launch<'a> {
    /// The environment it starts from (the agent's own LLM key already taken out).
    pub(crate) env: &'a BTreeMap<String, String>,
    /// Its working folder: a folder of its configuration's, never the one `agent` runs in.
    pub(crate) cwd: &'a Path,
    /// Where its stderr goes (appended), so it never reaches the terminal.
    pub(crate) log: Option<&'a Path>,
    /// The sandbox it enters before exec (a project's server), or `None` (the user's own).
    pub(crate) confinement: Option<&'a Arc<Confinement>>,
}

/// A connected server. Dropping it ends a stdio server's whole process group.
pub(crate) struct Connection {
    service: RunningService<RoleClient, ()>,
    /// A stdio server's process group, killed on drop.
    group: Option<u32>,
    /// A stdio server's process, listed among the agent's own children while it runs, so a
    /// command ending meanwhile does not take it for one of its orphans.
    _listed: Option<Listed>,
    /// A confined server's own temp folder, removed after the server is ended.
    _temp: Option<PrivateTemp>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(pid) = self.group.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            // The server's helpers (npx → node, uvx → python) share its group: end them all.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Why a stdio server did not start: a program that is not there says how to get it rather than
/// only the operating system's "No such file or directory".
fn not_started(command: &str, launch: &Launch<'_>, e: &std::io::Error) -> String {
    let path = launch.env.get("PATH").map_or("", String::as_str);
    match super::program::missing(command, path) {
        Some(why) if e.kind() == std::io::ErrorKind::NotFound => format!("cannot start it: {why}"),
        _ => format!("cannot start {command} in {}: {e}", launch.cwd.display()),
    }
}

/// Connect to a server whose `${VAR}`s are already expanded; the error says what failed.
pub(crate) async fn connect(transport: &Transport, launch: &Launch<'_>) -> Result<Connection, Failure> {
    match transport {
        Transport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(launch.env)
                .envs(env)
                // Tools that trust `$PWD` over getcwd() must not see the user's folder either.
                .env("PWD", launch.cwd)
                .current_dir(launch.cwd)
                .process_group(0)
                .kill_on_drop(true);
            if let Some(confinement) = launch.confinement {
                // SAFETY: the hook makes only async-signal-safe system calls, as code between fork
                // and exec in a multi-threaded process must (see `Confinement::hook`).
                unsafe {
                    cmd.pre_exec(confinement.hook());
                }
            }
            let stderr = match launch.log.map(open_log) {
                Some(Ok(file)) => Stdio::from(file),
                _ => Stdio::null(),
            };
            // Listed before a command can end and sweep the agent's unlisted children.
            let (child, listed) = {
                let mut live = children::lock();
                let (child, _) = TokioChildProcess::builder(cmd)
                    .stderr(stderr)
                    .spawn()
                    .map_err(|e| not_started(command, launch, &e))?;
                let listed = child.id().map(|pid| {
                    // A pid always fits in i32 on Linux.
                    live.push(pid.cast_signed());
                    Listed(pid.cast_signed())
                });
                (child, listed)
            };
            let group = child.id();
            let service = ().serve(child).await.map_err(|e| handshake_failed(&e))?;
            Ok(Connection {
                service,
                group,
                _listed: listed,
                _temp: None,
            })
        }
        Transport::Http { url, headers } => {
            let mut map = std::collections::HashMap::new();
            for (name, value) in headers {
                let name = http::HeaderName::try_from(name.as_str())
                    .map_err(|e| format!("header {name:?} is not a valid header name: {e}"))?;
                let value = http::HeaderValue::try_from(value.as_str())
                    .map_err(|_| format!("the value of header {name} is not valid in a header"))?;
                map.insert(name, value);
            }
            // rmcp builds its own HTTP client: TLS needs the process's provider first.
            crate::support::tls::install();
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(map);
            let transport = StreamableHttpClientTransport::from_config(config);
            let service = ().serve(transport).await.map_err(|e| handshake_failed(&e))?;
            Ok(Connection {
                service,
                group: None,
                _listed: None,
                _temp: None,
            })
        }
    }
}

fn handshake_failed(e: &dyn std::fmt::Display) -> String {
    format!("it did not complete the MCP handshake: {e}")
}

fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new().create(true).append(true).open(path)
}

impl Connection {
    /// This connection keeping `temp` (its server's temp folder) until it is dropped.
    pub(crate) fn holding(mut self, temp: Option<PrivateTemp>) -> Self {
        self._temp = temp;
        self
    }

    /// Every tool the server offers (all pages).
    pub(crate) async fn tools(&self) -> Result<Vec<ToolInfo>, Failure> {
        let tools = self
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        Ok(tools
            .into_iter()
            .map(|t| ToolInfo {
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
            })
            .collect())
    }

    /// Call `tool` with `arguments`; the result as the protocol's JSON (`content`, `isError` …).
    /// Dropping the future (a timeout, Ctrl-C) sends the protocol's cancellation.
    pub(crate) async fn call(&self, tool: &str, arguments: serde_json::Map<String, Value>) -> Result<Value, Failure> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = self
            .service
            .call_tool(params)
            .await
            .map_err(|e| format!("the call failed: {e}"))?;
        serde_json::to_value(&result).map_err(|e| format!("the result cannot be read: {e}"))
    }
}
