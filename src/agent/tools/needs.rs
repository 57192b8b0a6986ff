//! A skill's declared needs (`requires.env`, `requires.bins`, `skill.json`'s required `env[]`),
//! checked against the environment its commands get (SPEC §5) when it is activated and before each
//! of its commands: what is missing is named to the model and, as a warning, to the user.

use super::ToolRunner;
use crate::exec::env::child_env;
use crate::skills::Skill;
use crate::skills::needs::Needs;

impl ToolRunner {
    /// Every declared need of `skill`, checked against the environment its commands would get.
    pub(super) fn needs(&self, skill: &Skill) -> Needs {
        let env = child_env(
            &self.settings.base_env,
            &skill.name,
            &skill.dir,
            &self.settings.skill_roots,
        );
        Needs::check(&skill.requires.env, &skill.requires.bins, &env, &skill.dir)
    }

    /// Why `skill` cannot run a command for want of what it declares, if it cannot.
    pub(super) fn unmet(&self, skill: &Skill) -> Option<String> {
        self.needs(skill).explain(&skill.name)
    }
}
