//! Hooks in a skill's frontmatter (docs/hooks.md#hooks-in-a-skill): while a skill is the
//! conversation's active one (the one `run_command` runs for; in a `context: fork`, the forked
//! skill), its `PreToolUse`, `PostToolUse` and `Stop` hooks run after the user's and the
//! project's for the same event. They run as the skill's commands (`tools::hook_run`), so a skill
//! its folder's trust does not cover has none, and a hook the policy or sandbox denies is a
//! failure. What they answer is folded in like any hook's: a deny blocks, context is added, an
//! `allow` only answers a question the policy would ask.

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::agent::tools::ToolRunner;
use crate::hooks::{Hook, HookEvent, Hooks, Session, Verdict, skill_hooks};
use crate::output::Event;
use crate::skills::Skill;

/// What a run remembers about skills' hooks.
#[derive(Debug, Default)]
pub(crate) struct SkillHookState {
    /// Skills whose unusable hooks (or missing trust) were already said.
    said: Mutex<BTreeSet<String>>,
    /// `once: true` hooks that already ran.
    ran_once: Mutex<BTreeSet<String>>,
}

impl SkillHookState {
    /// `true` the first time `key` is seen in `set`.
    fn first(set: &Mutex<BTreeSet<String>>, key: &str) -> bool {
        set.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string())
    }
}

impl ToolRunner {
    /// The active skill `current` and its hooks of `event` that apply to `subject`.
    fn active_skill_hooks(
        &self,
        current: Option<&str>,
        event: HookEvent,
        subject: Option<&str>,
    ) -> Option<(Skill, Vec<Hook>)> {
        let skill = self.skills.get(current?)?;
        let events = skill.invocation.hooks.as_ref()?;
        let loaded = skill_hooks(&skill.name, events);
        if !loaded.problems.is_empty() && SkillHookState::first(&self.skill_hooks.said, &skill.name) {
            for message in &loaded.problems {
                self.sink.emit(Event::Warning {
                    message: format!("the skill {}'s hooks: {message}", skill.name),
                });
            }
        }
        let hooks: Vec<Hook> = loaded
            .hooks
            .into_iter()
            .filter(|h| Hooks::applies(h, event, subject))
            .collect();
        (!hooks.is_empty()).then(|| (skill.clone(), hooks))
    }

    /// Whether any hook would run for `event`: the session's, or the active skill `current`'s.
    pub(crate) fn has_hooks(&self, event: HookEvent, current: Option<&str>) -> bool {
        self.settings.hooks.has(event)
            || current
                .and_then(|c| self.skills.get(c))
                .and_then(|s| s.invocation.hooks.as_ref())
                .is_some_and(|h| skill_hooks("", h).hooks.iter().any(|h| h.event == event))
    }

    /// Run the hooks of `event` for `subject`: the session's, then the active skill `current`'s,
    /// and fold what they said.
    pub(crate) async fn fire_hooks(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        session: &Session,
        fields: Map<String, Value>,
        current: Option<&str>,
    ) -> Verdict {
        let hooks = self.settings.hooks.clone();
        let mut verdict = hooks.fire(event, subject, session, fields.clone()).await;
        let Some((skill, own)) = self.active_skill_hooks(current, event, subject) else {
            return verdict;
        };
        if let Err(why) = self.skill_hooks_trusted(&skill).await {
            if SkillHookState::first(&self.skill_hooks.said, &format!("trust\u{1f}{}", skill.name)) {
                self.sink.emit(Event::Warning {
                    message: format!("the skill {}'s hooks do not run: {why}", skill.name),
                });
            }
            return verdict;
        }
        let stdin = hooks.input(event, session, fields);
        for hook in own {
            if hook.once && !SkillHookState::first(&self.skill_hooks.ran_once, &hook.key()) {
                continue;
            }
            let ran = self.run_skill_hook(&skill, &hook, &stdin).await;
            hooks.judge(event, &hook, ran, &mut verdict);
        }
        verdict
    }
}
