//! A skill's declared needs (`requires.env`, `requires.bins`, `skill.json`'s required `env[]`),
//! checked against the environment its commands get (SPEC §5) when it is activated and before each
//! of its commands: what is missing is named to the model and, as a warning, to the user.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::ToolRunner;
use crate::exec::env::child_env;
use crate::skills::Skill;
use crate::skills::needs::Needs;

/// Every declared need of `skill`, checked against the environment its commands get from
/// `base_env` (also what `skills show` and `skills check` report).
pub fn declared_needs(skill: &Skill, base_env: &BTreeMap<String, String>, skill_roots: &[PathBuf]) -> Needs {
    // Which folder commands run in changes no variable or program a need names.
    let env = child_env(base_env, &skill.name, &skill.dir, &skill.dir, skill_roots);
    // No MCP server is available until agent can connect to them.
    Needs::check(&skill.requires.env, &skill.requires.bins, &env, &skill.dir).with_mcp(&skill.requires.mcp, &[])
}

impl ToolRunner {
    /// Every declared need of `skill`, checked against the environment its commands would get.
    pub(super) fn needs(&self, skill: &Skill) -> Needs {
        declared_needs(skill, &self.settings.base_env, &self.settings.skill_roots)
    }

    /// Why `skill` cannot run a command for want of what it declares, if it cannot.
    pub(super) fn unmet(&self, skill: &Skill) -> Option<String> {
        self.needs(skill).explain(&skill.name)
    }
}
