//! Which MCP servers a run may use: the user's `$XDG_CONFIG_HOME/agent/mcp.json` and a trusted
//! project's `.mcp.json`, both in the `{"mcpServers": {NAME: …}}` shape Claude Code reads so one
//! file serves both tools. `${VAR}` (and `${VAR:-default}`) in a server's command, arguments,
//! `env`, `url` and `headers` is expanded from the run's environment when the server is used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The project file (Claude Code's name, so one file serves both).
pub(crate) const PROJECT_FILE: &str = ".mcp.json";

/// Largest configuration file read; a bigger one is refused, never read whole.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// How the agent reaches a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "transport", rename_all = "snake_case")]
pub(crate) enum Transport {
    /// A child process speaking JSON-RPC on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP at `url`, with extra request headers.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// Whose file configured a server: a project's servers are code from the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Origin {
    User,
    Project,
}

/// One configured server, before `${VAR}` expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ServerConfig {
    pub(crate) name: String,
    #[serde(flatten)]
    pub(crate) transport: Transport,
    /// Tool names (or `*`) that `--approve auto` may run without asking; honoured only in the
    /// user's own file, never a project's.
    pub(crate) auto_approve: Vec<String>,
    pub(crate) origin: Origin,
    /// The file it came from.
    pub(crate) file: PathBuf,
    /// The folder a stdio server starts in: the `cwd` its entry names (relative to its file's
    /// folder), else its file's folder. Never the folder `agent` runs in: a server started there
    /// would run a cloned repository's `mod.py` for `python3 -m mod`, or its `node_modules`.
    pub(crate) dir: PathBuf,
}

/// A configuration file as written: unknown keys are kept when `agent mcp add|remove` rewrites it.
#[derive(Debug, Default, Deserialize, Serialize)]
pub(crate) struct ConfigFile {
    #[serde(rename = "mcpServers", default)]
    pub(crate) servers: BTreeMap<String, RawServer>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}

/// One server entry as written.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub(crate) struct RawServer {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(rename = "autoApprove", default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) auto_approve: Vec<String>,
    /// The folder a stdio server starts in (`~/…`, absolute, or relative to the file's folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}

/// The user's file: `$XDG_CONFIG_HOME/agent/mcp.json` (default `~/.config/agent/mcp.json`).
pub(crate) fn user_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "agent").map(|d| d.config_dir().join("mcp.json"))
}

/// Why a configuration file could not be read or written; each names the file (or folder) and
/// keeps the error underneath.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "{} is not a valid MCP configuration ({source}); it should hold {{\"mcpServers\": {{NAME: {{\"command\": …}}}}}}",
        path.display()
    )]
    Invalid { path: PathBuf, source: serde_json::Error },
    #[error("cannot write {}: {source}", path.display())]
    Encode { path: PathBuf, source: serde_json::Error },
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir { dir: PathBuf, source: std::io::Error },
    #[error("cannot write in {}: {source}", dir.display())]
    WriteIn { dir: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// A server name that cannot be used (see [`valid_name`]).
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a usable MCP server name: use up to 32 letters, digits, '-' or '_' (no \"__\")")]
pub(crate) struct BadName(String);

/// Why one server of a file is skipped.
#[derive(Debug, thiserror::Error)]
enum ServerError {
    #[error(transparent)]
    Name(#[from] BadName),
    #[error("the old SSE transport is not supported; use the server's streamable HTTP URL")]
    Sse,
    #[error("a stdio server needs \"command\"")]
    NoCommand,
    #[error("an http server needs \"url\"")]
    NoUrl,
    #[error("unknown \"type\" {0:?} (use \"stdio\" or \"http\")")]
    UnknownType(String),
}

/// Why a `${VAR}` in a server's definition cannot be expanded.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum ExpandError {
    #[error("unclosed ${{ in {0:?}")]
    Unclosed(String),
    #[error("${{{0}}} is not set (set it in the environment or a .env file)")]
    Unset(String),
}

/// Read a configuration file; a missing file is an empty one. The error names the file and what
/// is wrong with it.
pub(crate) fn read_file(path: &Path) -> Result<ConfigFile, FileError> {
    let text = match crate::support::fs::read_whole(path, MAX_CONFIG_BYTES) {
        Ok(read) => read.text(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ConfigFile::default()),
        Err(source) => {
            return Err(FileError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(ConfigFile::default());
    }
    serde_json::from_str(&text).map_err(|source| FileError::Invalid {
        path: path.to_path_buf(),
        source,
    })
}

/// Write `file` to `path` (creating its folder), pretty-printed, replacing it atomically.
pub(crate) fn write_file(path: &Path, file: &ConfigFile) -> Result<(), FileError> {
    let path_buf = || path.to_path_buf();
    let text = serde_json::to_string_pretty(file).map_err(|source| FileError::Encode {
        path: path_buf(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_buf = || dir.to_path_buf();
    std::fs::create_dir_all(dir).map_err(|source| FileError::CreateDir { dir: dir_buf(), source })?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|source| FileError::WriteIn { dir: dir_buf(), source })?;
    std::fs::write(tmp.path(), format!("{text}\n")).map_err(|source| FileError::Write {
        path: path_buf(),
        source,
    })?;
    tmp.persist(path).map(|_| ()).map_err(|e| FileError::Write {
        path: path_buf(),
        source: e.error,
    })
}

/// Whether `name` can be a server name: letters, digits, `-` and `_`, no `__` (the separator of
/// `mcp__SERVER__TOOL`), at most 32 characters.
pub(crate) fn valid_name(name: &str) -> Result<(), BadName> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains("__");
    if ok { Ok(()) } else { Err(BadName(name.to_string())) }
}

/// The servers of one file, each checked; problems come back beside them, naming file and server.
pub(crate) fn servers_of(file: &ConfigFile, path: &Path, origin: Origin) -> (Vec<ServerConfig>, Vec<String>) {
    let mut servers = Vec::new();
    let mut problems = Vec::new();
    for (name, raw) in &file.servers {
        match server_of(name, raw) {
            Ok(transport) => servers.push(ServerConfig {
                name: name.clone(),
                transport,
                auto_approve: match origin {
                    Origin::User => raw.auto_approve.clone(),
                    Origin::Project => Vec::new(),
                },
                origin,
                file: path.to_path_buf(),
                dir: start_dir(path, raw.cwd.as_deref()),
            }),
            Err(why) => problems.push(format!("{}: MCP server {name:?} skipped: {why}", path.display())),
        }
    }
    (servers, problems)
}

/// Where a server of the file at `path` starts: its `cwd` (`~` and `~/…` from `$HOME`, relative
/// to the file's folder), else the file's folder.
fn start_dir(path: &Path, cwd: Option<&str>) -> PathBuf {
    let base = path.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    let Some(cwd) = cwd.map(str::trim).filter(|c| !c.is_empty()) else {
        return base;
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (cwd.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => base.join(cwd),
    }
}

fn server_of(name: &str, raw: &RawServer) -> Result<Transport, ServerError> {
    valid_name(name)?;
    let kind = raw
        .kind
        .as_deref()
        .unwrap_or(if raw.url.is_some() { "http" } else { "stdio" });
    match (kind, &raw.command, &raw.url) {
        ("stdio", Some(command), _) if !command.trim().is_empty() => Ok(Transport::Stdio {
            command: command.clone(),
            args: raw.args.clone(),
            env: raw.env.clone(),
        }),
        ("http" | "streamable-http" | "streamableHttp", _, Some(url)) => Ok(Transport::Http {
            url: url.clone(),
            headers: raw.headers.clone(),
        }),
        ("sse", _, _) => Err(ServerError::Sse),
        ("stdio", _, _) => Err(ServerError::NoCommand),
        ("http" | "streamable-http" | "streamableHttp", _, None) => Err(ServerError::NoUrl),
        (other, _, _) => Err(ServerError::UnknownType(other.to_string())),
    }
}

/// Every server this run may use: the user's, then a trusted project's (`project`: its
/// `.mcp.json`, `None` when the folder is not trusted). A project server named like a user's is
/// skipped: it must not take over a name (and its auto-approvals) the user chose.
pub(crate) fn load(user: Option<&Path>, project: Option<&Path>) -> (Vec<ServerConfig>, Vec<String>) {
    let mut servers = Vec::new();
    let mut problems = Vec::new();
    for (path, origin) in [(user, Origin::User), (project, Origin::Project)] {
        let Some(path) = path else { continue };
        match read_file(path) {
            Ok(file) => {
                let (found, bad) = servers_of(&file, path, origin);
                problems.extend(bad);
                for server in found {
                    if servers.iter().any(|s: &ServerConfig| s.name == server.name) {
                        problems.push(format!(
                            "{}: MCP server {:?} skipped: the user's configuration already has one of that name",
                            path.display(),
                            server.name
                        ));
                    } else {
                        servers.push(server);
                    }
                }
            }
            // A problem is a warning: the run goes on with the servers that could be read.
            Err(e) => problems.push(e.to_string()),
        }
    }
    (servers, problems)
}

/// `text` with `${VAR}` and `${VAR:-default}` replaced from `env`; an unset variable without a
/// default is an error naming it. `$` not followed by `{` stays as it is.
pub(crate) fn expand(text: &str, env: &BTreeMap<String, String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(ExpandError::Unclosed(text.to_string()));
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((var, default)) => (var, Some(default)),
            None => (inner, None),
        };
        match (env.get(var).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(ExpandError::Unset(var.to_string()));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Transport {
    /// This transport with every `${VAR}` expanded from `env`.
    pub(crate) fn expanded(&self, env: &BTreeMap<String, String>) -> Result<Transport, ExpandError> {
        let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, ExpandError> {
            m.iter().map(|(k, v)| Ok((k.clone(), expand(v, env)?))).collect()
        };
        Ok(match self {
            Transport::Stdio {
                command,
                args,
                env: vars,
            } => Transport::Stdio {
                command: expand(command, env)?,
                args: args.iter().map(|a| expand(a, env)).collect::<Result<_, _>>()?,
                env: map(vars)?,
            },
            Transport::Http { url, headers } => Transport::Http {
                url: expand(url, env)?,
                headers: map(headers)?,
            },
        })
    }

    /// One line saying what the server is: the command it starts, or its URL (unexpanded, so no
    /// secret from the environment shows; credentials written into it masked).
    pub(crate) fn describe(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Http { url, .. } => masked_url(url),
        }
    }
}

/// Query parameters whose values are credentials, matched on the lowercased name holding one.
const SECRET_PARAMS: [&str; 8] = [
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "auth",
    "signature",
    "credential",
];

/// `url` with what grants access masked: the password of `user:password@` (or a lone token
/// before `@`), and the values of query parameters named like credentials (`?api_key=…`).
/// Text that is not a URL comes back unchanged.
pub(crate) fn masked_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_string();
    };
    let mut changed = false;
    if parsed.password().is_some() {
        changed |= parsed.set_password(Some("***")).is_ok();
    } else if !parsed.username().is_empty() {
        // `https://TOKEN@host`: a lone user part is how many services take a token.
        changed |= parsed.set_username("***").is_ok();
    }
    let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
    if pairs.iter().any(|(k, _)| secret_param(k)) {
        let kept: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| if secret_param(&k) { (k, "***".into()) } else { (k, v) })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(kept);
        changed = true;
    }
    if changed { parsed.to_string() } else { url.to_string() }
}

fn secret_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_PARAMS.iter().any(|s| name.contains(s))
}

/// `text` (an error that may quote the URL it failed on) with every URL written in it masked
/// as [`masked_url`] does: an HTTP client's message names the full address, userinfo included.
pub(crate) fn masked_urls_in(text: &str) -> String {
    static URL: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>()]+"#).ok());
    match URL.as_ref() {
        Some(re) => re
            .replace_all(text, |c: &regex::Captures<'_>| masked_url(&c[0]))
            .into_owned(),
        None => text.to_string(),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
