//! A skill's declared needs (`requires.env`, `requires.bins`, `skill.json`'s required `env[]`),
//! checked against the environment its commands get (docs/design.md#child-environment) when it is
//! activated and before each of its commands: what is missing is named to the model and, as a
//! warning, to the user.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::ToolRunner;
use crate::exec::env::child_env;
use crate::skills::Skill;
use crate::skills::check::needs_met::Needs;

/// Every declared need of `skill`, checked against the environment its commands get from
/// `base_env` (also what `skills show` and `skills check` report).
/// `mcp_servers` are the configured MCP servers' names.
pub(crate) fn declared_needs(
    skill: &Skill,
    base_env: &BTreeMap<String, String>,
    skill_roots: &[PathBuf],
    mcp_servers: &[String],
) -> Needs {
    // Which folder commands run in changes no variable or program a need names.
    let env = child_env(base_env, &skill.name, &skill.dir, &skill.dir, skill_roots);
    Needs::check(&skill.requires.env, &skill.requires.bins, &env, &skill.dir).with_mcp(&skill.requires.mcp, mcp_servers)
}

impl ToolRunner {
    /// Every declared need of `skill`, checked against the environment its commands would get.
    pub(super) fn needs(&self, skill: &Skill) -> Needs {
        let servers = self.settings.mcp.as_ref().map(|h| h.names()).unwrap_or_default();
        declared_needs(skill, &self.settings.base_env, &self.settings.skill_roots, &servers)
    }

    /// Why `skill` cannot run a command for want of what it declares, if it cannot.
    pub(super) fn unmet(&self, skill: &Skill) -> Option<String> {
        self.needs(skill).explain(&skill.name)
    }
}
