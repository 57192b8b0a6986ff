//! `agent mcp add|list|tools|remove`, and the MCP servers of a run: the user's `mcp.json` and,
//! once the folder is trusted, the project's `.mcp.json` (docs/mcp.md).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::Run;
use crate::cli::McpCommand;
use crate::exec::env::AGENT_KEY_VARS;
use crate::exit::{AppError, ExitCode};
use crate::mcp::config::{self, ConfigFile, PROJECT_FILE, RawServer};
use crate::mcp::tape::McpTape;
use crate::mcp::{HubSettings, McpHub, Origin, ServerConfig, Transport};
use crate::output::Report;
use crate::output::mcp::{McpChanged, McpServerList, McpServerState, McpToolEntry, McpToolList};

/// Bytes of an MCP result kept from its start and from its end (as for command output).
const RESULT_HEAD_BYTES: usize = 8 * 1024;
const RESULT_TAIL_BYTES: usize = 8 * 1024;

/// `agent mcp ACTION`.
pub(super) async fn run(action: &McpCommand, run: &Run<'_>) -> Result<ExitCode, AppError> {
    let report = match action {
        McpCommand::Add { .. } => Report::McpChanged(add(action, run)?),
        McpCommand::Remove { name, project } => Report::McpChanged(remove(name, *project, run)?),
        McpCommand::List => Report::McpServers(list(run).await),
        McpCommand::Tools { server } => Report::McpTools(tools(run, server.as_deref()).await?),
    };
    run.front.output.report(report);
    Ok(ExitCode::Answered)
}

/// The project's `.mcp.json`, at the root of the folder trust covers (the repository root, else
/// the working folder), where its hash is recorded.
fn project_file(run: &Run<'_>) -> Option<PathBuf> {
    Some(run.trust.laid_out().join(PROJECT_FILE)).filter(|p| p.is_file())
}

/// The run's servers, with what is wrong in the files, and the project file left out because its
/// folder is not trusted.
fn servers(run: &Run<'_>) -> (Vec<ServerConfig>, Vec<String>, Option<PathBuf>) {
    let user = config::user_file();
    let project = project_file(run);
    let trusted = project.is_some() && run.trust.mcp_config_trusted();
    let (mut servers, problems) = config::load(user.as_deref(), project.as_deref().filter(|_| trusted));
    // An editor's servers for its session (`agent acp`) stand in for configured ones of their name.
    servers.retain(|s| !run.editor_mcp.iter().any(|e| e.name == s.name));
    servers.extend(run.editor_mcp.iter().cloned());
    (servers, problems, project.filter(|_| !trusted))
}

/// The names of the servers this run may use (for a skill's `requires.mcp`).
pub(super) fn configured_names(run: &Run<'_>) -> Vec<String> {
    servers(run).0.into_iter().map(|s| s.name).collect()
}

/// The hub of a chat or one-shot run (`None` without servers), after warning about files that
/// could not be used.
pub(super) fn hub(run: &Run<'_>, tape: McpTape) -> Option<Arc<McpHub>> {
    let (servers, problems, untrusted) = servers(run);
    for message in problems {
        run.front.output.emit(crate::output::Event::Warning { message });
    }
    if let Some(file) = untrusted {
        run.front.output.emit(crate::output::Event::Warning {
            message: format!(
                "{} is not used: this folder is not trusted; run `agent trust` to start its MCP servers",
                file.display()
            ),
        });
    }
    (!servers.is_empty()).then(|| Arc::new(McpHub::new(servers, settings(run)).with_tape(tape)))
}

/// The hub of a `--replay` run: the cassette's tools and results, no configured server.
pub(super) fn replaying(run: &Run<'_>, tape: McpTape) -> Arc<McpHub> {
    Arc::new(McpHub::new(Vec::new(), settings(run)).with_tape(tape))
}

/// How this run starts servers: the settled environment without the agent's own LLM key, the
/// working folder, logs in the state folder, the tool cache in the cache folder.
fn settings(run: &Run<'_>) -> HubSettings {
    let mut env: BTreeMap<String, String> = run.config.env.merged();
    for var in AGENT_KEY_VARS {
        env.remove(var);
    }
    let dirs = directories::ProjectDirs::from("", "", "agent");
    HubSettings {
        env,
        sandbox: Some(run.config.sandbox.clone()),
        log_dir: dirs
            .as_ref()
            .map(|d| d.state_dir().unwrap_or(d.cache_dir()).join("mcp-logs")),
        cache_file: run.config.cache.as_ref().map(|c| c.path().join("mcp-tools.json")),
        timeout: run.config.mcp_timeout,
        head_bytes: RESULT_HEAD_BYTES,
        tail_bytes: RESULT_TAIL_BYTES,
        redactor: run.redactor.clone(),
    }
}

/// `mcp list`: every server, each asked for its tools (all at once).
pub(super) async fn list(run: &Run<'_>) -> McpServerList {
    let (configured, problems, untrusted) = servers(run);
    let hub = McpHub::new(configured, settings(run));
    let answers = futures::future::join_all(hub.servers().iter().map(|s| hub.tools_of(s))).await;
    let mut servers: Vec<McpServerState> = hub
        .servers()
        .iter()
        .zip(answers)
        .map(|(s, answer)| {
            let (state, tools, error) = match answer {
                Ok(tools) => ("ready", Some(tools.len()), None),
                Err(e) => ("failed", None, Some(e)),
            };
            state_of(s, state, tools, error)
        })
        .collect();
    hub.shutdown();
    if let Some(file) = untrusted {
        let read = config::read_file(&file).unwrap_or_default();
        let (found, _) = config::servers_of(&read, &file, Origin::Project);
        servers.extend(found.iter().map(|s| state_of(s, "not_trusted", None, None)));
    }
    for message in problems {
        run.front.output.emit(crate::output::Event::Warning { message });
    }
    McpServerList { servers }
}

fn state_of(s: &ServerConfig, state: &str, tools: Option<usize>, error: Option<String>) -> McpServerState {
    let (transport, confinement) = match (&s.transport, s.origin) {
        (Transport::Stdio { .. }, Origin::User) => (
            "stdio",
            format!("unconfined process started in {} (docs/mcp.md)", s.dir.display()),
        ),
        (Transport::Stdio { .. }, Origin::Project) => (
            "stdio",
            format!(
                "sandboxed like the project's commands, started in {} (docs/sandbox.md)",
                s.dir.display()
            ),
        ),
        (Transport::Http { .. }, _) => ("http", "remote".to_string()),
    };
    McpServerState {
        name: s.name.clone(),
        origin: match s.origin {
            Origin::User => "user",
            Origin::Project => "project",
        }
        .into(),
        file: s.file.clone(),
        transport: transport.into(),
        target: s.transport.describe(),
        state: state.into(),
        tools,
        error: error.map(|e| crate::mcp::config::masked_urls_in(&e)),
        confinement,
    }
}

/// `mcp tools [SERVER]`: asked of the servers themselves.
async fn tools(run: &Run<'_>, only: Option<&str>) -> Result<McpToolList, AppError> {
    let (configured, _, _) = servers(run);
    if let Some(name) = only
        && !configured.iter().any(|s| s.name == name)
    {
        return Err(unknown(name, &configured));
    }
    let hub = McpHub::new(configured, settings(run));
    let chosen: Vec<&ServerConfig> = hub
        .servers()
        .iter()
        .filter(|s| only.is_none_or(|n| s.name == n))
        .collect();
    let answers = futures::future::join_all(chosen.iter().map(|s| hub.tools_of(s))).await;
    let mut list = McpToolList {
        tools: Vec::new(),
        errors: Vec::new(),
    };
    for (server, answer) in chosen.iter().zip(answers) {
        match answer {
            Ok(found) => list.tools.extend(found.into_iter().map(|t| McpToolEntry {
                server: server.name.clone(),
                name: crate::mcp::hub::qualified_name(&server.name, &t.name),
                tool: t.name,
                description: t.description,
                input_schema: t.input_schema,
            })),
            Err(e) => list.errors.push(e),
        }
    }
    hub.shutdown();
    Ok(list)
}

fn unknown(name: &str, configured: &[ServerConfig]) -> AppError {
    let names: Vec<&str> = configured.iter().map(|s| s.name.as_str()).collect();
    AppError::config(format!(
        "there is no MCP server named {name:?} (configured: {}); `agent mcp list` shows them",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

/// The file `add` and `remove` write: the user's, or the working folder's `.mcp.json`.
fn target_file(project: bool, run: &Run<'_>) -> Result<PathBuf, AppError> {
    if project {
        return Ok(run.config.sandbox.cwd.join(PROJECT_FILE));
    }
    config::user_file().ok_or_else(|| AppError::config("cannot find your configuration folder (is HOME set?)"))
}

/// `mcp add NAME (--url URL | -- COMMAND…)`.
fn add(action: &McpCommand, run: &Run<'_>) -> Result<McpChanged, AppError> {
    let McpCommand::Add {
        name,
        url,
        headers,
        env,
        auto_approve,
        project,
        cwd,
        command,
    } = action
    else {
        return Err(AppError::internal("mcp add called for another command"));
    };
    config::valid_name(name).map_err(|e| AppError::from_source(ExitCode::Usage, e))?;
    let mut raw = RawServer {
        auto_approve: auto_approve.clone(),
        ..RawServer::default()
    };
    match (url, command.split_first()) {
        (Some(url), _) => {
            raw.kind = Some("http".into());
            raw.url = Some(url.clone());
            raw.headers = pairs(headers, ':', "--header", "Name: value")?;
        }
        (None, Some((program, args))) => {
            // A server starts in its file's folder, not here: paths typed relative to this folder
            // (`./srv`, `server.py`) are stored whole so they keep naming what the user meant.
            let here = &run.config.sandbox.cwd;
            raw.command = Some(whole_path(program, here, true));
            let path = std::env::var("PATH").unwrap_or_default();
            if let Some(why) = crate::mcp::program::missing(program, &path) {
                run.front.output.emit(crate::output::Event::Warning {
                    message: format!(
                        "MCP server {name}: {why}. It is added all the same; `agent mcp list` says whether it starts"
                    ),
                });
            }
            raw.args = args.iter().map(|a| whole_path(a, here, false)).collect();
            raw.cwd = cwd
                .as_ref()
                .map(|d| std::path::absolute(here.join(d)).map_or_else(|_| d.clone(), |p| p.display().to_string()));
        }
        (None, None) => {
            return Err(AppError::usage(
                "say how to reach the server: `agent mcp add NAME -- COMMAND [ARGS…]` or `agent mcp add NAME --url URL`",
            ));
        }
    }
    raw.env = pairs(env, '=', "--env", "KEY=VALUE")?;
    let file = target_file(*project, run)?;
    let mut written: ConfigFile = config::read_file(&file)?;
    let replaced = written.servers.insert(name.clone(), raw).is_some();
    config::write_file(&file, &written)?;
    Ok(McpChanged {
        action: if replaced { "replaced" } else { "added" }.into(),
        name: name.clone(),
        file,
        project: *project,
    })
}

/// `word` made absolute against `here` when it is a relative path to something that exists
/// there: with a `/` (`./srv`, `tools/srv.py`), or for an argument a file name (`server.py`).
/// A bare word stays as typed (`uvx`, `-m`, `mod`): as a program it is looked up on `PATH`, and
/// making it a file of this folder would run what a cloned repository ships under that name.
fn whole_path(word: &str, here: &std::path::Path, program: bool) -> String {
    let path = std::path::Path::new(word);
    let shaped = word.contains('/') || (!program && word.trim_start_matches('.').contains('.'));
    let relative = !word.starts_with(['-', '$', '~']) && path.is_relative();
    if shaped && relative && here.join(path).exists() {
        std::path::absolute(here.join(path)).map_or_else(|_| word.to_string(), |p| p.display().to_string())
    } else {
        word.to_string()
    }
}

/// `KEY=VALUE` (or `Name: value`) arguments as a map; a malformed one is a usage error.
fn pairs(items: &[String], sep: char, flag: &str, shape: &str) -> Result<BTreeMap<String, String>, AppError> {
    items
        .iter()
        .map(|item| match item.split_once(sep) {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(AppError::usage(format!("{flag} {item:?} is not of the form {shape}"))),
        })
        .collect()
}

/// `mcp remove NAME`.
fn remove(name: &str, project: bool, run: &Run<'_>) -> Result<McpChanged, AppError> {
    let file = target_file(project, run)?;
    let mut written = config::read_file(&file)?;
    if written.servers.remove(name).is_none() {
        return Err(AppError::config(format!(
            "{} has no MCP server named {name:?}; `agent mcp list` shows where each is configured",
            file.display()
        )));
    }
    config::write_file(&file, &written)?;
    Ok(McpChanged {
        action: "removed".into(),
        name: name.to_string(),
        file,
        project,
    })
}

/// An MCP configuration file that cannot be read or written is a configuration error (exit 3).
impl From<config::FileError> for AppError {
    fn from(err: config::FileError) -> Self {
        AppError::from_source(ExitCode::Config, err)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn an_invalid_mcp_file_is_a_configuration_error_keeping_the_json_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcp.json");
        std::fs::write(&file, "{ not json").unwrap();
        let err = AppError::from(config::read_file(&file).unwrap_err());
        assert_eq!(err.code, ExitCode::Config);
        assert!(
            err.message.contains("is not a valid MCP configuration"),
            "{}",
            err.message
        );
        let beneath = err.source().and_then(Error::source);
        assert!(beneath.is_some_and(|e| e.is::<serde_json::Error>()), "{err:?}");
    }
}
