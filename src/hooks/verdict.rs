//! What hooks answered, read as Claude Code reads it (docs/hooks.md#decisions): exit 0 passes (a
//! JSON object on stdout says more), exit 2 blocks with stderr as the reason, anything else is a
//! failure that lets the call through unless the hook (or `AGENT_HOOKS_FAIL=closed`) fails
//! closed. Every failure is kept in the verdict so the caller says it; none is silent.

use serde_json::Value;

use super::run::Ran;
use super::{Hook, HookEvent};

/// Characters of a hook's stderr quoted in a failure.
const QUOTED_CHARS: usize = 200;

/// A hook's permission decision for a tool call (`hookSpecificOutput.permissionDecision`); a
/// `deny` is a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permission {
    /// Skip the question the policy would ask; never a policy's, the sandbox's or trust's denial.
    Allow,
    /// Ask the person, whatever the policy.
    Ask,
}

/// A hook that failed to give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) event: HookEvent,
    pub(crate) command: String,
    /// The settings file it came from.
    pub(crate) source: String,
    /// What went wrong, in one line.
    pub(crate) message: String,
    /// It failed closed: the failure blocked.
    pub(crate) blocked: bool,
}

/// What the hooks of one event said, together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// A hook blocked (exit 2, `decision: block`, `permissionDecision: deny`, or a failure that
    /// fails closed), and why: the first reason given.
    pub(crate) block: Option<String>,
    /// Where the hook that blocked came from (its settings file, or `skill NAME`).
    pub(crate) blocked_by: Option<String>,
    /// The strongest permission decision short of a deny (`ask` over `allow`).
    pub(crate) permission: Option<Permission>,
    /// Why a hook asked or allowed (shown with the question).
    pub(crate) permission_reason: Option<String>,
    /// Context for the model (`additionalContext`; plain stdout of `UserPromptSubmit` and
    /// `SessionStart`).
    pub(crate) context: Vec<String>,
    /// `continue: false`: the session stops after this point, with this reason for the user.
    pub(crate) stop: Option<String>,
    /// `systemMessage`s for the user.
    pub(crate) messages: Vec<String>,
    /// Hooks that failed, each to be said.
    pub(crate) failures: Vec<Failure>,
}

/// What one hook said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Single {
    block: Option<String>,
    permission: Option<(Permission, Option<String>)>,
    context: Option<String>,
    stop: Option<String>,
    message: Option<String>,
    pub(super) failure: Option<Failure>,
}

impl Verdict {
    /// Add one hook's answer: the first block and stop win, `ask` outranks `allow`.
    pub(super) fn take(&mut self, one: Single) {
        if self.block.is_none() {
            self.block = one.block;
        }
        if self.stop.is_none() {
            self.stop = one.stop;
        }
        if let Some((permission, reason)) = one.permission
            && (self.permission.is_none() || permission == Permission::Ask)
        {
            self.permission = Some(permission);
            self.permission_reason = reason;
        }
        self.context.extend(one.context);
        self.messages.extend(one.message);
        self.failures.extend(one.failure);
    }
}

/// Read how `hook` of `event` ended; `fail_closed`: a failure blocks.
pub(super) fn judge(event: HookEvent, hook: &Hook, ran: Ran, fail_closed: bool) -> Single {
    let failed = |message: String| {
        let block = fail_closed.then(|| {
            format!(
                "the hook `{}` failed ({message}) and is set to fail closed",
                hook.command
            )
        });
        Single {
            block,
            failure: Some(Failure {
                event,
                command: hook.command.clone(),
                source: hook.source.display().to_string(),
                message,
                blocked: fail_closed,
            }),
            ..Single::default()
        }
    };
    match ran {
        Ran::Exited { code: 0, stdout, .. } => match answer(event, &stdout) {
            Ok(single) => single,
            Err(why) => failed(why),
        },
        Ran::Exited { code: 2, stderr, .. } => Single {
            block: Some(match stderr.trim() {
                "" => format!("blocked by the hook `{}`", hook.command),
                reason => reason.to_string(),
            }),
            ..Single::default()
        },
        Ran::Exited { code, stderr, .. } => failed(format!("exit {code}{}", quoted(&stderr))),
        Ran::Signalled { signal, stderr } => failed(format!("killed by signal {signal}{}", quoted(&stderr))),
        Ran::TimedOut { seconds } => failed(format!("still running after its timeout of {seconds} s; killed")),
        Ran::NotStarted { why } => failed(format!("could not start: {why}")),
    }
}

/// `: last words of stderr` for a failure, when it said anything.
fn quoted(stderr: &str) -> String {
    let line = stderr.trim().lines().last().unwrap_or("").trim();
    if line.is_empty() {
        return String::new();
    }
    let cut: String = line.chars().take(QUOTED_CHARS).collect();
    format!(": {cut}")
}

/// The answer of a hook that exited 0 with `stdout`: a JSON object, or plain text (context for
/// the events that take it). A reply that starts as JSON but is not is an error.
fn answer(event: HookEvent, stdout: &str) -> Result<Single, String> {
    let text = stdout.trim();
    if !text.starts_with('{') {
        let takes_text = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
        return Ok(Single {
            context: (takes_text && !text.is_empty()).then(|| text.to_string()),
            ..Single::default()
        });
    }
    let json: Value = serde_json::from_str(text).map_err(|e| format!("its output is not valid JSON: {e}"))?;
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let specific = json.get("hookSpecificOutput");
    let reason = s(json.get("reason"));
    let mut one = Single {
        context: s(specific.and_then(|h| h.get("additionalContext"))),
        message: s(json.get("systemMessage")),
        ..Single::default()
    };
    if json.get("continue").and_then(Value::as_bool) == Some(false) {
        one.stop = Some(s(json.get("stopReason")).unwrap_or_else(|| "a hook stopped the session".into()));
    }
    let decision = s(specific.and_then(|h| h.get("permissionDecision")));
    let decision_reason = s(specific.and_then(|h| h.get("permissionDecisionReason")));
    match (decision.as_deref(), s(json.get("decision")).as_deref()) {
        (Some("deny"), _) => {
            one.block = Some(decision_reason.or(reason).unwrap_or_else(|| "denied by a hook".into()));
        }
        (Some("ask"), _) => one.permission = Some((Permission::Ask, decision_reason.or(reason))),
        (Some("allow"), _) => one.permission = Some((Permission::Allow, decision_reason.or(reason))),
        // The older spelling of `PreToolUse` decisions, and every other event's.
        (_, Some("block")) => one.block = Some(reason.unwrap_or_else(|| "blocked by a hook".into())),
        (_, Some("approve")) if event == HookEvent::PreToolUse => one.permission = Some((Permission::Allow, reason)),
        _ => {}
    }
    Ok(one)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{Matcher, OnFailure};
    use std::time::Duration;

    fn hook() -> Hook {
        Hook {
            event: HookEvent::PreToolUse,
            matcher: Matcher::any(),
            command: "guard.sh".into(),
            timeout: Duration::from_secs(1),
            on_failure: OnFailure::Pass,
            once: false,
            source: "/home/u/.config/agent/settings.json".into(),
        }
    }

    fn exited(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran::Exited {
            code,
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_other_exits_fail_open_unless_closed() {
        let pre = HookEvent::PreToolUse;
        let blocked = judge(pre, &hook(), exited(2, "", "no rm outside\n"), false);
        assert_eq!(blocked.block.as_deref(), Some("no rm outside"));
        let crashed = judge(pre, &hook(), exited(127, "", "sh: jq: not found\n"), false);
        assert!(crashed.block.is_none());
        let failure = crashed.failure.unwrap();
        assert_eq!(failure.message, "exit 127: sh: jq: not found");
        assert!(!failure.blocked);
        let closed = judge(pre, &hook(), Ran::TimedOut { seconds: 1.0 }, true);
        assert!(closed.block.unwrap().contains("fail closed"));
        assert!(closed.failure.unwrap().blocked);
    }

    #[test]
    fn json_answers_are_read_as_claude_code_documents_them() {
        let pre = HookEvent::PreToolUse;
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}"#;
        assert_eq!(
            judge(pre, &hook(), exited(0, deny, ""), false).block.as_deref(),
            Some("not here")
        );
        let mut verdict = Verdict::default();
        let allow = r#"{"hookSpecificOutput":{"permissionDecision":"allow","additionalContext":"ok"}}"#;
        verdict.take(judge(pre, &hook(), exited(0, allow, ""), false));
        let ask = r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#;
        verdict.take(judge(pre, &hook(), exited(0, ask, ""), false));
        verdict.take(judge(pre, &hook(), exited(0, allow, ""), false));
        assert_eq!(verdict.permission, Some(Permission::Ask));
        assert_eq!(verdict.permission_reason.as_deref(), Some("sure?"));
        assert_eq!(verdict.context, ["ok", "ok"]);
        let stop = r#"{"continue":false,"stopReason":"enough","decision":"block","reason":"r"}"#;
        let one = judge(HookEvent::Stop, &hook(), exited(0, stop, ""), false);
        assert_eq!((one.stop.as_deref(), one.block.as_deref()), (Some("enough"), Some("r")));
        let bad = judge(pre, &hook(), exited(0, "{not json", ""), false);
        assert!(bad.failure.unwrap().message.contains("not valid JSON"));
        let text = judge(
            HookEvent::UserPromptSubmit,
            &hook(),
            exited(0, "today is Monday\n", ""),
            false,
        );
        assert_eq!(text.context.as_deref(), Some("today is Monday"));
        assert!(judge(pre, &hook(), exited(0, "plain", ""), false) == Single::default());
    }
}
