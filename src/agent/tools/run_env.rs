//! The environment a skill's command starts with (docs/design.md#child-environment): the
//! user's, the agent's own variables, the sandbox's and the private temp folder's, without
//! undeclared secrets when it runs contained.

use std::collections::BTreeMap;

use super::ToolRunner;
use crate::exec::env::child_env;
use crate::exec::private_temp::PrivateTemp;
use crate::exec::sandbox::Policy;
use crate::exec::sandbox::policy::Enforcement;
use crate::skills::Skill;

impl ToolRunner {
    /// The environment a command of `skill` starts with (docs/design.md#child-environment);
    /// `hook`: it is one of the skill's hooks, which also get `CLAUDE_PROJECT_DIR`.
    pub(super) fn command_env(
        &self,
        skill: &Skill,
        policy: &Policy,
        temp: Option<&PrivateTemp>,
        contained: bool,
        hook: bool,
    ) -> BTreeMap<String, String> {
        let mut env = child_env(
            &self.settings.base_env,
            &skill.name,
            &skill.dir,
            &self.settings.workdir,
            &self.settings.skill_roots,
        );
        env.insert("AGENT_SANDBOX".into(), policy.child_value().into());
        // Nobody can answer a prompt: a script that would ask (a confirmation, a login) should
        // take its default or fail at once rather than wait on a stdin that is /dev/null.
        if !self.approver.can_ask() {
            env.insert("AGENT_NONINTERACTIVE".into(), "1".into());
        }
        env.extend(temp.into_iter().flat_map(PrivateTemp::child_vars));
        if policy.enforcement() == Enforcement::Confined {
            crate::exec::env::tool_caches(&mut env, &self.settings.base_env, &self.settings.sandbox.extra);
        }
        if contained {
            crate::exec::env::without_undeclared_secrets(&mut env, &skill.requires.env);
        }
        if hook {
            let project = self.settings.workdir.display().to_string();
            env.insert("CLAUDE_PROJECT_DIR".into(), project.clone());
            env.insert("AGENT_PROJECT_DIR".into(), project);
        }
        env
    }
}
