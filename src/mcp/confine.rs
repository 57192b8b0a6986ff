//! A project's stdio servers run under the same sandbox as the project's commands (docs/sandbox.md
//! "MCP servers"). Folder trust hashes `.mcp.json`, but not every file its servers run: a confined
//! command may rewrite `tools/srv.py` (or anything it imports), which the next run would otherwise
//! start unconfined. Confined, such a server can do no more than the command that wrote it.
//!
//! The user's own servers are the user's programs and start unconfined, in a folder of the user's
//! (see [`super::config`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::exec::private_temp::PrivateTemp;
use crate::exec::sandbox::{Confinement, Settings};

use super::config::{Origin, ServerConfig};
use super::hub::Failure;

/// Package-manager caches, pointed into the server's own temp folder: `npx` and `uvx` write
/// theirs under `$HOME`, which the sandbox keeps read-only, and a cache shared with the user's own
/// runs would let a confined program plant what the user later runs unconfined.
const CACHE_VARS: [(&str, &str); 4] = [
    ("npm_config_cache", "npm"),
    ("UV_CACHE_DIR", "uv"),
    ("PIP_CACHE_DIR", "pip"),
    ("XDG_CACHE_HOME", "cache"),
];

/// How a confined server starts: its sandbox, its own temp folder (removed when it ends) and the
/// variables that point into it.
pub(crate) struct Confined {
    pub(crate) confinement: Arc<Confinement>,
    pub(crate) temp: PrivateTemp,
    pub(crate) env: BTreeMap<String, String>,
}

/// How `server` starts: `None` for the user's servers and when commands run unconfined (the
/// sandbox off, or no Landlock under `on`); an error (it does not start) when the sandbox must
/// refuse or cannot be built.
pub(crate) fn of(server: &ServerConfig, sandbox: Option<&Settings>) -> Result<Option<Confined>, Failure> {
    if server.origin == Origin::User {
        return Ok(None);
    }
    let Some(sandbox) = sandbox else {
        return Ok(None);
    };
    let mut settings = sandbox.clone();
    settings.cwd = server.dir.clone();
    // The project's folder is the server's working folder; it declares nothing more.
    let policy = settings.policy(&server.dir, &[], false);
    let temp = PrivateTemp::create(&sandbox.temp).map_err(|e| format!("no temp folder for it: {e}"))?;
    let policy = policy.with_private_temp(temp.path());
    let Some(confinement) = Confinement::build(&policy).map_err(|e| format!("not started under the sandbox: {e}"))?
    else {
        return Ok(None);
    };
    let mut env: BTreeMap<String, String> = temp.child_vars().into_iter().collect();
    env.extend(
        CACHE_VARS
            .iter()
            .map(|(var, sub)| ((*var).to_string(), temp.path().join(sub).display().to_string())),
    );
    env.insert("AGENT_SANDBOX".into(), policy.child_value().into());
    Ok(Some(Confined { confinement, temp, env }))
}
