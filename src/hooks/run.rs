//! Running one hook: `sh -c COMMAND` in the working folder, the event's JSON on stdin, the user's
//! own environment plus `CLAUDE_PROJECT_DIR`, no sandbox (it is the user's command, as in Claude
//! Code), its timeout, and the process layer's end to everything it started. Its output is
//! captured, redacted and capped, never shown on the terminal.

use crate::exec::approval::{Plan, ShellCommand};
use crate::exec::process::{CommandSpec, run as run_process};

use super::{Hook, HookSettings};

/// Bytes kept from the start and from the end of each of a hook's streams: room for any JSON
/// answer a hook gives, a bound on one that prints without end.
const HOOK_STREAM_BYTES: usize = 32 * 1024;

/// How a hook ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ran {
    /// It exited with `code`; its stdout and stderr, redacted.
    Exited { code: i32, stdout: String, stderr: String },
    /// Killed by a signal (not ours).
    Signalled { signal: i32, stderr: String },
    /// Still running at its timeout, and killed.
    TimedOut { seconds: f64 },
    /// It could not be started at all.
    NotStarted { why: String },
}

/// Run `hook` with `stdin`.
pub(super) async fn run(hook: &Hook, stdin: &[u8], settings: &HookSettings) -> Ran {
    let plan = Plan::Shell(ShellCommand::users_own(&hook.command));
    let mut env = settings.env.clone();
    let project = settings.cwd.display().to_string();
    env.insert("CLAUDE_PROJECT_DIR".into(), project.clone());
    env.insert("AGENT_PROJECT_DIR".into(), project);
    let spec = CommandSpec {
        plan: &plan,
        cwd: &settings.cwd,
        env: &env,
        timeout: hook.timeout,
        head_bytes: HOOK_STREAM_BYTES,
        tail_bytes: HOOK_STREAM_BYTES,
        redactor: &settings.redactor,
        confinement: None,
        live: Default::default(),
        stdin: Some(stdin),
    };
    match run_process(&spec).await {
        Err(e) => Ran::NotStarted { why: e.to_string() },
        Ok(out) if out.timed_out => Ran::TimedOut {
            seconds: hook.timeout.as_secs_f64(),
        },
        Ok(out) => match (out.exit_code, out.signal) {
            (Some(code), _) => Ran::Exited {
                code,
                stdout: out.stdout.text,
                stderr: out.stderr.text,
            },
            (None, signal) => Ran::Signalled {
                signal: signal.unwrap_or_default(),
                stderr: out.stderr.text,
            },
        },
    }
}
