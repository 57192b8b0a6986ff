//! A skill's own hooks run as that skill's commands (docs/hooks.md#hooks-in-a-skill): through
//! [`ToolRunner::run_as`], so the skill's trust, the approval policy, the sandbox and the
//! command events apply as to any command it proposes, with the event on stdin and the hook's
//! own timeout. A hook the policy or the sandbox denies did not answer: a failure, said as such.

use std::time::Duration;

use super::ToolRunner;
use super::run::CommandRun;
use crate::hooks::{Hook, Ran};
use crate::skills::Skill;
use crate::skills::arguments::claude_skill_dir;

/// What running a command as one of the skill's hooks adds.
pub(crate) struct HookInput<'a> {
    /// The event's JSON.
    pub(crate) stdin: &'a [u8],
    /// The hook's own timeout, in place of the command timeout.
    pub(crate) timeout: Duration,
}

impl ToolRunner {
    /// Run `hook`, one of `skill`'s own, with `stdin`; how it ended, as the hooks room reads it.
    pub(crate) async fn run_skill_hook(&self, skill: &Skill, hook: &Hook, stdin: &str) -> Ran {
        let command = claude_skill_dir(hook.command.clone(), &skill.dir.display().to_string());
        let input = HookInput {
            stdin: stdin.as_bytes(),
            timeout: hook.timeout,
        };
        match self.run_as(skill, &command, Some(&input)).await {
            CommandRun::NotRun(outcome) => Ran::NotStarted {
                why: format!(
                    "not run as a command of the skill {}: {}",
                    skill.name,
                    outcome.message()
                ),
            },
            CommandRun::Ran { output, .. } if output.timed_out => Ran::TimedOut {
                seconds: hook.timeout.as_secs_f64(),
            },
            CommandRun::Ran { output, .. } => match (output.exit_code, output.signal) {
                (Some(code), _) => Ran::Exited {
                    code,
                    stdout: output.stdout.text,
                    stderr: output.stderr.text,
                },
                (None, signal) => Ran::Signalled {
                    signal: signal.unwrap_or_default(),
                    stderr: output.stderr.text,
                },
            },
        }
    }

    /// Whether `skill` may have hooks at all: not a project skill its folder's trust does not
    /// cover (then it gets none, as it may run no command). `Err`: why not.
    pub(crate) async fn skill_hooks_trusted(&self, skill: &Skill) -> Result<(), String> {
        match self.untrusted(skill).await {
            None => Ok(()),
            Some(why) => Err(why),
        }
    }
}
