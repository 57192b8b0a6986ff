//! Hooks (docs/hooks.md): the user's own commands, run at fixed points of a session, in Claude
//! Code's settings format so a hook script written for it works unchanged. This room loads them
//! (`settings`), says which apply to an event and a tool (`matcher`), runs them with the event on
//! stdin (`run`), and folds what they answered into one typed [`Verdict`] (`verdict`); the turn
//! loop decides what a verdict means at its point. Failures are remembered for `agent hooks list`
//! (`failures`).
//!
//! Hooks are the user's code, not a skill's: they run outside the skill sandbox, in the working
//! folder, with a timeout, their output captured (never on the terminal), capped and redacted.

mod failures;
mod matcher;
mod run;
mod settings;
mod verdict;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) use failures::FailureStore;
pub(crate) use matcher::Matcher;
pub(crate) use run::Ran;
pub(crate) use settings::{load_file, skill_hooks, user_file};
pub(crate) use verdict::{Permission, Verdict};

use crate::support::redact::Redactor;

/// The points of a session a hook can run at, named as Claude Code names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SessionStart,
    SessionEnd,
    PreCompact,
    Notification,
}

impl HookEvent {
    /// Every event, in the order `hooks list` shows them.
    pub(crate) const ALL: [Self; 8] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SessionStart,
        Self::SessionEnd,
        Self::PreCompact,
        Self::Notification,
    ];

    /// The name in settings files and in `hook_event_name`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
        }
    }

    /// The events a skill's own hooks run for (docs/hooks.md#hooks-in-a-skill): around the
    /// calls made while it is active, and when the model answers.
    pub(crate) const FOR_SKILLS: [Self; 3] = [Self::PreToolUse, Self::PostToolUse, Self::Stop];

    /// The event a settings file names.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// What a hook that fails to run (a crash, a timeout, output that is not JSON) means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnFailure {
    /// Claude Code's behaviour: the call goes on (and, here, the failure is said).
    Pass,
    /// Fail closed: the failure blocks as exit 2 would (`"onFailure": "block"`).
    Block,
}

/// One configured hook command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    pub(crate) event: HookEvent,
    pub(crate) matcher: Matcher,
    /// Run with `sh -c`, as written.
    pub(crate) command: String,
    pub(crate) timeout: Duration,
    pub(crate) on_failure: OnFailure,
    /// `once: true` (Claude Code, skills only): it runs once a session, then no more.
    pub(crate) once: bool,
    /// Where it came from: the settings file, or `skill NAME` for a skill's own.
    pub(crate) source: PathBuf,
}

impl Hook {
    /// How its last failure is remembered: the file, the event, the matcher and the command.
    pub(crate) fn key(&self) -> String {
        format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.source.display(),
            self.event.name(),
            self.matcher.as_written(),
            self.command
        )
    }
}

/// How hooks run in this session.
#[derive(Debug, Clone)]
pub(crate) struct HookSettings {
    /// `AGENT_HOOKS_FAIL=closed`: every failing hook blocks.
    pub(crate) fail_closed: bool,
    /// Where hooks run (the working folder, also `CLAUDE_PROJECT_DIR`).
    pub(crate) cwd: PathBuf,
    /// The environment hooks start with: the user's own.
    pub(crate) env: BTreeMap<String, String>,
    /// Secrets are replaced in what hooks print before anything reads it.
    pub(crate) redactor: Redactor,
    /// Where failures are remembered (`None`: not remembered).
    pub(crate) failures: Option<FailureStore>,
}

/// What the session knows that every hook input carries.
#[derive(Debug, Clone, Default)]
pub(crate) struct Session {
    pub(crate) session_id: String,
    /// The stored session's file (`""` when sessions are not stored).
    pub(crate) transcript_path: String,
    /// The approval policy in Claude Code's words (`default`, `bypassPermissions`, `dontAsk`).
    pub(crate) permission_mode: &'static str,
}

/// The hooks of a session.
#[derive(Debug, Clone)]
pub(crate) struct Hooks {
    hooks: Vec<Hook>,
    settings: HookSettings,
}

impl Hooks {
    /// `hooks` with `settings`.
    pub(crate) fn new(hooks: Vec<Hook>, settings: HookSettings) -> Self {
        Self { hooks, settings }
    }

    /// No hooks (`--no-hooks`, tests).
    pub(crate) fn none() -> Self {
        Self::new(
            Vec::new(),
            HookSettings {
                fail_closed: false,
                cwd: PathBuf::from("."),
                env: BTreeMap::new(),
                redactor: Redactor::default(),
                failures: None,
            },
        )
    }

    /// Whether `hook` applies to `event` and `subject` (a tool's name; `None` for events
    /// without one, where every hook applies).
    pub(crate) fn applies(hook: &Hook, event: HookEvent, subject: Option<&str>) -> bool {
        hook.event == event && subject.is_none_or(|s| hook.matcher.matches(s))
    }

    /// Whether any hook is configured for `event`.
    pub(crate) fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }

    /// The hooks of `event` whose matcher takes `subject` (a tool's name; `None` for events
    /// without one, where every hook applies).
    fn matching(&self, event: HookEvent, subject: Option<&str>) -> impl Iterator<Item = &Hook> {
        self.hooks.iter().filter(move |h| Self::applies(h, event, subject))
    }

    /// What a hook of `event` gets on stdin: `session`'s fields, the event's name and `fields`.
    pub(crate) fn input(
        &self,
        event: HookEvent,
        session: &Session,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> String {
        let mut input = serde_json::Map::new();
        input.insert("session_id".into(), session.session_id.clone().into());
        input.insert("transcript_path".into(), session.transcript_path.clone().into());
        input.insert("cwd".into(), self.settings.cwd.display().to_string().into());
        input.insert("permission_mode".into(), session.permission_mode.into());
        input.insert("hook_event_name".into(), event.name().into());
        input.extend(fields);
        serde_json::Value::Object(input).to_string()
    }

    /// Fold how `hook` of `event` ended into `verdict` (run elsewhere: a skill's hooks run as its
    /// commands); its failure is remembered for `hooks list`.
    pub(crate) fn judge(&self, event: HookEvent, hook: &Hook, ran: Ran, verdict: &mut Verdict) {
        let fail_closed = self.settings.fail_closed || hook.on_failure == OnFailure::Block;
        let single = verdict::judge(event, hook, ran, fail_closed);
        if let (Some(store), Some(failure)) = (&self.settings.failures, &single.failure) {
            store.record(&hook.key(), &failure.message);
        }
        let first = verdict.block.is_none();
        verdict.take(single);
        if first && verdict.block.is_some() {
            verdict.blocked_by = Some(hook.source.display().to_string());
        }
    }

    /// Run every hook of `event` that matches `subject`, one after another in the order
    /// configured, each given `session`'s fields, the event's name and `fields` on stdin, and fold
    /// what they said. Failures are remembered for `hooks list`.
    pub(crate) async fn fire(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        session: &Session,
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Verdict {
        let mut verdict = Verdict::default();
        let hooks: Vec<&Hook> = self.matching(event, subject).collect();
        if hooks.is_empty() {
            return verdict;
        }
        let stdin = self.input(event, session, fields);
        for hook in hooks {
            let ran = run::run(hook, stdin.as_bytes(), &self.settings).await;
            self.judge(event, hook, ran, &mut verdict);
        }
        verdict
    }
}
