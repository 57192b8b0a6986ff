//! Resolved settings (docs/design.md#configuration): flag > environment > the working folder's
//! `.env` if that folder is trusted > the user's `~/.config/agent/.env` > default.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use url::Url;

use crate::cli::Cli;
use crate::exec::approval::ApprovalPolicy;
use crate::llm::Provider;

mod dotenv;
pub(crate) mod provider;
mod roots;
mod sandbox;
pub(crate) mod sessions;
use crate::exit::{AppError, ExitCode};
use crate::skills::discover::Scan;
use crate::skills::roots::SkillRoot;
use crate::support::cache_file::CacheDir;
pub(crate) use dotenv::{Dotenv, user_dotenv_path};

/// Embeddings model on api.openai.com unless `AGENT_EMBED_MODEL` says otherwise.
pub(crate) const DEFAULT_EMBED_MODEL: &str = "text-embedding-3-small";

/// The settings sources below flags (docs/design.md#configuration): the process environment, then
/// the working folder's `.env` when that folder is trusted, then the user's own `.env`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environment {
    process: BTreeMap<String, String>,
    /// The trusted working folder's `.env` (empty when it is not trusted or absent).
    folder: BTreeMap<String, String>,
    /// The user's `~/.config/agent/.env`.
    user: BTreeMap<String, String>,
}

impl Environment {
    /// The process environment; `user` is the user's `.env` and `folder` the working folder's,
    /// passed only once that folder is trusted.
    pub(crate) fn load(user: Option<&Dotenv>, folder: Option<&Dotenv>) -> Result<Self, AppError> {
        let process = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Ok(Self {
            process,
            folder: folder.map(Dotenv::map).transpose()?.unwrap_or_default(),
            user: user.map(Dotenv::map).transpose()?.unwrap_or_default(),
        })
    }

    /// Build an environment from explicit maps (tests).
    #[cfg(test)]
    pub(crate) fn from_maps(process: &[(&str, &str)], folder: &[(&str, &str)], user: &[(&str, &str)]) -> Self {
        let map = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Self {
            process: map(process),
            folder: map(folder),
            user: map(user),
        }
    }

    /// A variable's value: the process environment first, then the trusted folder's `.env`, then
    /// the user's. Empty counts as unset.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.process
            .get(name)
            .or_else(|| self.folder.get(name))
            .or_else(|| self.user.get(name))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A variable of the user's own: the process environment, then the user's `.env`, never a
    /// project folder's (settings that widen what commands may do). Empty counts as unset.
    pub(crate) fn get_own(&self, name: &str) -> Option<&str> {
        self.process
            .get(name)
            .or_else(|| self.user.get(name))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Every variable a child process should see before the agent's own edits
    /// (docs/design.md#child-environment): the process environment plus `.env` entries it does not
    /// already define.
    pub(crate) fn merged(&self) -> BTreeMap<String, String> {
        let mut all = self.user.clone();
        all.extend(self.folder.clone());
        all.extend(self.process.clone());
        all
    }
}

/// The API key together with the variable it came from (for error messages).
#[derive(Clone)]
pub(crate) struct ApiKey {
    pub(crate) value: String,
    pub(crate) var: &'static str,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey(from {})", self.var)
    }
}

/// Every setting a run needs, resolved once at start-up.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Which wire dialect the endpoint speaks (`config/provider.rs`).
    pub(crate) provider: Provider,
    /// `AGENT_MAX_TOKENS`: the longest answer a Messages API request allows.
    pub(crate) max_tokens: u32,
    /// Prices per model, the built-in table with `AGENT_PRICES` before it.
    pub(crate) prices: crate::llm::prices::Prices,
    pub(crate) api_key: Option<ApiKey>,
    pub(crate) base_url: String,
    /// Whether the base URL was set (flag, environment, `.env`), or a local server was found,
    /// rather than defaulted.
    pub(crate) base_url_given: bool,
    pub(crate) model: String,
    /// Whether the model was set (flag, environment, `.env`) rather than defaulted; a default
    /// model is asked of any server but api.openai.com (`ui::endpoint`).
    pub(crate) model_given: bool,
    pub(crate) approve: ApprovalPolicy,
    pub(crate) command_timeout: Duration,
    /// `AGENT_MCP_TIMEOUT`: the longest wait for an MCP server to start or answer one call.
    pub(crate) mcp_timeout: Duration,
    pub(crate) max_steps: u32,
    pub(crate) stream: bool,
    pub(crate) retries: u32,
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    /// Bytes of conversation kept before old tool outputs are shortened.
    pub(crate) history_budget: usize,
    /// Bytes of skill catalog per request.
    pub(crate) catalog_budget: usize,
    /// `AGENT_MCP_TOOLS_BUDGET`: bytes of MCP tool schemas per request.
    pub(crate) mcp_tools_budget: usize,
    /// Activate a clear winner before the first request (`None`: only with the compact prompt).
    pub(crate) preactivate: Option<bool>,
    pub(crate) skill_roots: Vec<SkillRoot>,
    /// Where parsed skills, the search index and embeddings are kept between runs
    /// (`$XDG_CACHE_HOME/agent`); `None` when `AGENT_CACHE=0`.
    pub(crate) cache: Option<CacheDir>,
    /// `AGENT_EMBED_MODEL` as set (`None` when unset); see [`Config::embed_model`].
    pub(crate) embed_model_var: Option<String>,
    /// Whether a person can be asked questions on a terminal.
    pub(crate) interactive: bool,
    /// What a local server says about its model calling tools (`endpoint::discover` asks);
    /// `None` when nobody asked (a remote server, `AGENT_TOOL_CHECK=0`, a replay).
    pub(crate) tool_support: Option<crate::llm::tool_support::ToolSupport>,
    /// What a local server said about itself and its model, when asked.
    pub(crate) server_facts: Option<crate::llm::tool_support::ServerFacts>,
    /// `AGENT_PROMPT`: `Some(true)` for `compact`, `Some(false)` for `full`, `None` (`auto`, the
    /// default) to choose from what a local server says about its model.
    pub(crate) compact_prompt: Option<bool>,
    /// `AGENT_TEMPERATURE`: the sampling temperature sent with every request.
    pub(crate) temperature: Temperature,
    /// `AGENT_GUIDED_CALLS`: `Some(on)` when set, `None` (`auto`) to guide calls where the server
    /// is llama.cpp.
    pub(crate) guided_calls: Option<bool>,
    /// Storing sessions, the context window, automatic compaction.
    pub(crate) sessions: sessions::SessionSettings,
    /// What commands may write and reach (docs/design.md#sandbox).
    pub(crate) sandbox: crate::exec::sandbox::Settings,
    pub(crate) env: Environment,
    /// Whether hooks run, and whether a failing one blocks.
    pub(crate) hooks: HookSwitches,
}

/// Whether hooks run (`--no-hooks`, `AGENT_HOOKS=0`) and whether a failing one blocks
/// (`AGENT_HOOKS_FAIL=closed`). The user's own settings only: a project's `.env` must not turn off
/// the user's guards.
fn hook_switches(cli: &Cli, env: &Environment) -> Result<HookSwitches, AppError> {
    let on = !cli.no_hooks && switch(env.get_own("AGENT_HOOKS")) != Some(false);
    let closed = match env.get_own("AGENT_HOOKS_FAIL").map(str::trim) {
        None | Some("open") => false,
        Some("closed") => true,
        Some(other) => {
            return Err(AppError::config(format!(
                "AGENT_HOOKS_FAIL={other:?} is not one of open, closed"
            )));
        }
    };
    Ok(HookSwitches {
        on,
        fail_closed: closed,
    })
}

/// How hooks run this session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookSwitches {
    /// Hooks run (`--no-hooks`, `AGENT_HOOKS=0` turn them off).
    pub(crate) on: bool,
    /// `AGENT_HOOKS_FAIL=closed`: a hook that fails blocks what it guards.
    pub(crate) fail_closed: bool,
}

/// `AGENT_PROMPT`: `compact` (`Some(true)`), `full` (`Some(false)`), `auto` or unset (`None`).
fn compact_prompt(env: &Environment) -> Result<Option<bool>, AppError> {
    match env.get("AGENT_PROMPT").map(str::trim) {
        None | Some("" | "auto") => Ok(None),
        Some("compact") => Ok(Some(true)),
        Some("full") => Ok(Some(false)),
        Some(other) => Err(AppError::config(format!(
            "AGENT_PROMPT={other:?} is not one of auto, compact, full"
        ))),
    }
}

/// The sampling temperature a request asks for (`AGENT_TEMPERATURE`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) enum Temperature {
    /// Not set: 0 with the compact prompt (a small model follows the call format far more often
    /// when it does not sample: docs/configuration.md "Small local models"), else the server's.
    #[default]
    Auto,
    /// `default`: none sent, whatever the prompt; the server samples as it is set up to.
    Server,
    /// A number from 0 to 2, sent as it is.
    Fixed(f32),
}

impl Temperature {
    /// What a request sends, under the compact prompt or not.
    pub(crate) fn sent(self, compact: bool) -> Option<f32> {
        match self {
            Temperature::Auto => compact.then_some(0.0),
            Temperature::Server => None,
            Temperature::Fixed(t) => Some(t),
        }
    }
}

/// `AGENT_TEMPERATURE`: unset or `auto`, `default`, or a number from 0 to 2.
fn temperature(env: &Environment) -> Result<Temperature, AppError> {
    match env.get("AGENT_TEMPERATURE").map(str::trim) {
        None | Some("" | "auto") => Ok(Temperature::Auto),
        Some("default") => Ok(Temperature::Server),
        Some(raw) => match raw.parse::<f32>() {
            Ok(t) if (0.0..=2.0).contains(&t) => Ok(Temperature::Fixed(t)),
            _ => Err(AppError::config(format!(
                "AGENT_TEMPERATURE={raw:?} is not a number from 0 to 2, auto or default"
            ))),
        },
    }
}

/// The approval policy: `--yes`, `--approve`, `AGENT_APPROVE`, else `ask` where a person can be
/// asked on a terminal and `auto` where not.
fn approval(cli: &Cli, env: &Environment, interactive: bool) -> Result<ApprovalPolicy, AppError> {
    Ok(match (cli.yes, cli.approve) {
        (true, _) => ApprovalPolicy::Yes,
        (false, Some(policy)) => policy,
        (false, None) => match env.get("AGENT_APPROVE") {
            Some(v) => ApprovalPolicy::parse(v)
                .ok_or_else(|| AppError::config(format!("AGENT_APPROVE={v:?} is not one of ask, auto, yes, no")))?,
            None if interactive => ApprovalPolicy::Ask,
            None => ApprovalPolicy::Auto,
        },
    })
}

/// `AGENT_GUIDED_CALLS`: unset or `auto` (`None`), `on` or `off`.
fn guided_calls(env: &Environment) -> Result<Option<bool>, AppError> {
    match env.get("AGENT_GUIDED_CALLS").map(str::trim) {
        None | Some("" | "auto") => Ok(None),
        Some("on") => Ok(Some(true)),
        Some("off") => Ok(Some(false)),
        Some(other) => Err(AppError::config(format!(
            "AGENT_GUIDED_CALLS={other:?} is not one of auto, on, off"
        ))),
    }
}

impl Config {
    /// Resolve every setting from the command line, the environment and `.env`; `interactive`:
    /// a person can be asked on a terminal (the default approval policy depends on it).
    pub(crate) fn resolve(cli: &Cli, env: Environment, cwd: &Path, interactive: bool) -> Result<Self, AppError> {
        let provider = provider::resolve(&env)?;
        let base_url = resolve_base_url(cli.base_url.as_deref(), &env, provider)?;
        let api_key = provider::api_key(provider, &env);
        let base_url_given =
            cli.base_url.is_some() || provider::base_url_vars(provider).iter().any(|v| env.get(v).is_some());
        let model = cli.model.clone().or_else(|| env.get("AGENT_MODEL").map(str::to_string));
        let model_given = model.is_some();
        let model = model.unwrap_or_else(|| provider::default_model(provider).to_string());
        let max_tokens = provider::max_tokens(&env)?;
        let prices = crate::llm::prices::Prices::parse(env.get("AGENT_PRICES"))
            .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
        let approve = approval(cli, &env, interactive)?;
        let timeout_secs = pick_number(cli.timeout, &env, "AGENT_TIMEOUT", 60)?;
        if timeout_secs == 0 {
            return Err(AppError::config("the command timeout must be at least 1 second"));
        }
        let max_steps = pick_number(cli.max_steps.map(u64::from), &env, "AGENT_MAX_STEPS", 10)?;
        let max_steps = u32::try_from(max_steps).map_err(|_| AppError::config("AGENT_MAX_STEPS is too large"))?;
        let retries = pick_number(None, &env, "AGENT_RETRIES", 2)?;
        let retries = u32::try_from(retries).map_err(|_| AppError::config("AGENT_RETRIES is too large"))?;
        let connect_timeout = Duration::from_secs(pick_number(None, &env, "AGENT_CONNECT_TIMEOUT", 10)?.max(1));
        let idle_timeout = Duration::from_secs(pick_number(None, &env, "AGENT_IDLE_TIMEOUT", 120)?.max(1));
        let history_budget = usize::try_from(pick_number(None, &env, "AGENT_HISTORY_BUDGET", 64 * 1024)?)
            .map_err(|_| AppError::config("AGENT_HISTORY_BUDGET is too large"))?;
        let catalog_budget = usize::try_from(pick_number(None, &env, "AGENT_CATALOG_BUDGET", 8 * 1024)?)
            .map_err(|_| AppError::config("AGENT_CATALOG_BUDGET is too large"))?;
        let preactivate = switch(env.get("AGENT_PREACTIVATE"));
        let stream = !cli.no_stream && switch(env.get("AGENT_STREAM")) != Some(false);
        let skill_roots = roots::skill_roots(&cli.skills_dirs, &env, cwd)?;
        let sessions = sessions::SessionSettings::resolve(&env, cli.no_session, cli.replay.is_some())?;
        let root_paths: Vec<std::path::PathBuf> = skill_roots.iter().map(|r| r.path.clone()).collect();
        let sandbox = sandbox::resolve(cli, &env, cwd, &root_paths)?;
        let cache = CacheDir::from_env(|name| match name {
            "HOME" => env.process.get(name).cloned(),
            _ => env.get(name).map(str::to_string),
        });
        Ok(Self {
            provider,
            max_tokens,
            prices,
            api_key,
            base_url,
            base_url_given,
            model,
            model_given,
            approve,
            command_timeout: Duration::from_secs(timeout_secs),
            mcp_timeout: Duration::from_secs(pick_number(None, &env, "AGENT_MCP_TIMEOUT", 60)?.max(1)),
            max_steps,
            stream,
            retries,
            connect_timeout,
            idle_timeout,
            history_budget,
            catalog_budget,
            mcp_tools_budget: usize::try_from(pick_number(None, &env, "AGENT_MCP_TOOLS_BUDGET", 32 * 1024)?)
                .map_err(|_| AppError::config("AGENT_MCP_TOOLS_BUDGET is too large"))?,
            preactivate,
            skill_roots,
            cache,
            embed_model_var: env.get("AGENT_EMBED_MODEL").map(|v| v.trim().to_string()),
            interactive,
            tool_support: None,
            server_facts: None,
            compact_prompt: compact_prompt(&env)?,
            temperature: temperature(&env)?,
            guided_calls: guided_calls(&env)?,
            sessions,
            sandbox,
            hooks: hook_switches(cli, &env)?,
            env,
        })
    }
}

impl Config {
    /// How routing (one-shot runs, the chat, `skills list` and `search`) scans skill folders:
    /// the fronts of skill files, through the cache folder unless `AGENT_CACHE=0`.
    pub(crate) fn routing_scan(&self) -> Scan {
        Scan::routing(self.cache.clone())
    }

    /// The embeddings model skills are ranked with, asked of the chat's base URL with its key:
    /// `AGENT_EMBED_MODEL` when set (`off`, `0`, `none` turn semantic ranking off), else
    /// [`DEFAULT_EMBED_MODEL`] on api.openai.com (with a key) and nothing elsewhere (a local server may not
    /// serve embeddings, and guessing a model name there would only cost a failed request).
    pub(crate) fn embed_model(&self) -> Option<String> {
        match self.embed_model_var.as_deref() {
            Some(v) if matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "none" | "false" | "no") => None,
            Some(v) if !v.is_empty() => Some(v.to_string()),
            _ => (is_openai(&self.base_url) && self.api_key.is_some()).then(|| DEFAULT_EMBED_MODEL.to_string()),
        }
    }

    /// Fail with exit 3 when talking to the endpoint needs a key and none is set.
    pub(crate) fn require_key(&self) -> Result<(), AppError> {
        if self.api_key.is_some() || is_local_endpoint(&self.base_url) {
            return Ok(());
        }
        let user_file =
            user_dotenv_path().map_or_else(|| "~/.config/agent/.env".to_string(), |p| p.display().to_string());
        let (first, line) = match self.provider {
            Provider::Anthropic => (
                "ANTHROPIC_API_KEY for Anthropic (or OPENAI_API_KEY for OpenAI)",
                "ANTHROPIC_API_KEY",
            ),
            Provider::OpenAi => (
                "OPENAI_API_KEY (or AGENT_API_KEY) for OpenAI, or ANTHROPIC_API_KEY for Anthropic's Claude",
                "AGENT_API_KEY",
            ),
        };
        Err(AppError::config(format!(
            "no API key for {}: export {first}, or put a line {line}=… in {user_file}, or set AGENT_BASE_URL \
             to a local server that needs none (`agent --help` lists every setting)",
            self.base_url
        )))
    }
}

/// Whether `base_url` is OpenAI's own API.
pub(crate) fn is_openai(base_url: &str) -> bool {
    Url::parse(base_url).is_ok_and(|u| u.host_str() == Some("api.openai.com"))
}

fn pick_number(flag: Option<u64>, env: &Environment, var: &str, default: u64) -> Result<u64, AppError> {
    if let Some(v) = flag {
        return Ok(v);
    }
    match env.get(var) {
        Some(raw) => raw
            .trim()
            .parse()
            .map_err(|_| AppError::config(format!("{var}={raw:?} is not a whole number"))),
        None => Ok(default),
    }
}

fn resolve_base_url(flag: Option<&str>, env: &Environment, provider: Provider) -> Result<String, AppError> {
    let from_env = || {
        provider::base_url_vars(provider)
            .iter()
            .find_map(|var| env.get(var).map(|v| (v.to_string(), *var)))
    };
    let (raw, source) = match flag.map(|v| (v.to_string(), "--base-url")).or_else(from_env) {
        Some(found) => found,
        None => return Ok(provider::default_base_url(provider).to_string()),
    };
    let trimmed = raw.trim().trim_end_matches('/');
    let parsed = Url::parse(trimmed).map_err(|e| {
        AppError::config(format!(
            "{source} {raw:?} is not a valid URL ({e}); expected something like \
             http://localhost:11434/v1"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(AppError::config(format!(
            "{source} {raw:?} must be an http:// or https:// URL with a host, \
             e.g. http://localhost:11434/v1"
        )));
    }
    Ok(trimmed.to_string())
}

/// True for endpoints that plausibly need no key: loopback, private networks, single-label or
/// `.local` hosts (a local Ollama, llama.cpp or vLLM server, or one on the LAN).
pub(crate) fn is_local_endpoint(base_url: &str) -> bool {
    let Ok(url) = Url::parse(base_url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => is_local_ip(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => is_local_ip(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) => {
            let name = name.to_ascii_lowercase();
            name == "localhost"
                || name.ends_with(".localhost")
                || name.ends_with(".local")
                || name.ends_with(".internal")
                || !name.contains('.')
        }
        None => false,
    }
}

fn is_local_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local() || v4.is_unspecified(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.is_unspecified(),
    }
}

/// An on/off setting: `Some(true)` for 1/true/yes/on, `Some(false)` for 0/false/no/off, `None`
/// when unset or anything else (the default applies).
pub(crate) fn switch(value: Option<&str>) -> Option<bool> {
    match value {
        Some("1" | "true" | "yes" | "on") => Some(true),
        Some("0" | "false" | "no" | "off") => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
