//! Where the turn meets the user's hooks (docs/hooks.md): tool calls seen under the names Claude
//! Code's hook scripts match on (`view`), `PreToolUse`/`PostToolUse` around every call (`tool`),
//! the turn's own points — `UserPromptSubmit`, `Stop`, `SessionStart`, `SessionEnd`, `PreCompact`
//! (`turn`) — and `Notification` whenever a question waits for the person ([`HookApprover`]). The
//! active skill's own hooks join the session's for the events a skill may hook (`skill`).
//!
//! A hook's `allow` is an answer to a question our policy would ask, never more: the approver
//! answers that one question yes. A denial of the policy, the sandbox or folder trust asks
//! nothing, so no hook can lift it.

mod skill;
mod tool;
mod turn;
mod view;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::Assessment;
use crate::hooks::{HookEvent, Hooks, Session, Verdict};
use crate::output::{ApprovalRequest, Approver, Event, EventSink};

pub(crate) use skill::SkillHookState;
pub(crate) use turn::StopGuard;

/// The approval policy in Claude Code's words, for `permission_mode`.
pub(crate) fn permission_mode(policy: ApprovalPolicy) -> &'static str {
    match policy {
        ApprovalPolicy::Ask | ApprovalPolicy::Auto => "default",
        ApprovalPolicy::Yes => "bypassPermissions",
        ApprovalPolicy::No => "dontAsk",
    }
}

/// Say what hooks said beside their decision: each failure (one line, and an event for
/// `--json`), each `systemMessage`.
pub(crate) fn say(sink: &dyn EventSink, verdict: &Verdict) {
    for f in &verdict.failures {
        sink.emit(Event::HookFailed {
            event: f.event.name().to_string(),
            command: f.command.clone(),
            source: f.source.clone(),
            message: f.message.clone(),
            blocked: f.blocked,
        });
    }
    for message in &verdict.messages {
        sink.emit(Event::Warning {
            message: format!("hook: {message}"),
        });
    }
}

/// The person's approver with hooks around it: `Notification` hooks run when a question is about
/// to wait for the person, and a `PreToolUse` hook's `allow` answers the next approval question
/// of that call in its stead.
pub(crate) struct HookApprover {
    inner: Arc<dyn Approver>,
    hooks: Arc<Hooks>,
    sink: Arc<dyn EventSink>,
    /// The session fields the next `Notification` carries.
    session: Mutex<Session>,
    /// A hook allowed the call being made: its approval question is answered yes.
    allowed: AtomicBool,
}

impl HookApprover {
    pub(crate) fn new(inner: Arc<dyn Approver>, hooks: Arc<Hooks>, sink: Arc<dyn EventSink>) -> Self {
        Self {
            inner,
            hooks,
            sink,
            session: Mutex::new(Session::default()),
            allowed: AtomicBool::new(false),
        }
    }

    /// A hook allowed (`true`) the call about to be made, or that call is over (`false`).
    pub(crate) fn set_allowed(&self, allowed: bool) {
        self.allowed.store(allowed, Ordering::SeqCst);
    }

    /// The session fields for later notifications.
    pub(crate) fn set_session(&self, session: Session) {
        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = session;
    }

    /// The pending `allow`, taken: `true` once per allowed call.
    fn take_allowed(&self) -> bool {
        self.allowed.swap(false, Ordering::SeqCst)
    }

    /// Run the `Notification` hooks with `message`, without waiting for them (the question is
    /// asked meanwhile); their failures are said like any other.
    fn notify(&self, message: String) {
        if !self.hooks.has(HookEvent::Notification) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let hooks = self.hooks.clone();
        let sink = self.sink.clone();
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner()).clone();
        runtime.spawn(async move {
            let mut fields = serde_json::Map::new();
            fields.insert("message".into(), message.into());
            fields.insert("notification_type".into(), "permission_prompt".into());
            let verdict = hooks.fire(HookEvent::Notification, None, &session, fields).await;
            say(&*sink, &verdict);
        });
    }
}

impl Approver for HookApprover {
    fn can_ask(&self) -> bool {
        self.inner.can_ask()
    }

    fn can_answer(&self) -> bool {
        self.inner.can_ask() || self.allowed.load(Ordering::SeqCst)
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        if self.take_allowed() {
            return true;
        }
        self.notify(format!("agent needs your permission to run: {}", request.command));
        self.inner.ask(request)
    }

    fn ask_trust(&self, assessment: &Assessment) -> bool {
        // Trust is never a hook's to give: without a person it is a no.
        if !self.inner.can_ask() {
            return false;
        }
        self.notify("agent asks whether to trust this folder".into());
        self.inner.ask_trust(assessment)
    }

    fn ask_yes_no(&self, question: &str) -> bool {
        if !self.inner.can_ask() {
            return false;
        }
        self.notify(format!("agent asks: {question}"));
        self.inner.ask_yes_no(question)
    }

    fn ask_tool(&self, key: &str, question: &str) -> bool {
        if self.take_allowed() {
            return true;
        }
        self.notify(format!("agent needs your permission to use {question}"));
        self.inner.ask_tool(key, question)
    }

    fn always_granted(&self) -> Vec<String> {
        self.inner.always_granted()
    }

    fn allow_always(&self, skills: &[String]) {
        self.inner.allow_always(skills);
    }

    fn reads_buffers(&self) -> bool {
        self.inner.reads_buffers()
    }

    fn read_buffer(&self, path: &std::path::Path) -> Option<String> {
        self.inner.read_buffer(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{Hook, HookSettings, Matcher, OnFailure};
    use std::sync::atomic::AtomicUsize;

    /// A person who says no, and counts the questions.
    struct No {
        present: bool,
        asked: AtomicUsize,
    }

    impl Approver for No {
        fn can_ask(&self) -> bool {
            self.present
        }
        fn ask(&self, _: &ApprovalRequest) -> bool {
            self.asked.fetch_add(1, Ordering::SeqCst);
            false
        }
        fn ask_trust(&self, _: &Assessment) -> bool {
            self.asked.fetch_add(1, Ordering::SeqCst);
            false
        }
        fn ask_tool(&self, _: &str, _: &str) -> bool {
            self.asked.fetch_add(1, Ordering::SeqCst);
            false
        }
    }

    fn hooks(dir: &std::path::Path, notify: Option<&str>) -> Arc<Hooks> {
        let hooks = notify
            .map(|command| Hook {
                event: HookEvent::Notification,
                matcher: Matcher::any(),
                command: command.into(),
                timeout: std::time::Duration::from_secs(30),
                on_failure: OnFailure::Pass,
                once: false,
                source: dir.join("settings.json"),
            })
            .into_iter()
            .collect();
        let settings = HookSettings {
            fail_closed: false,
            cwd: dir.to_path_buf(),
            env: std::env::vars().collect(),
            redactor: crate::support::redact::Redactor::default(),
            failures: None,
        };
        Arc::new(Hooks::new(hooks, settings))
    }

    #[test]
    fn an_allow_answers_one_approval_question_and_never_trust() {
        let dir = tempfile::tempdir().unwrap();
        let person = Arc::new(No {
            present: false,
            asked: AtomicUsize::new(0),
        });
        let approver = HookApprover::new(person.clone(), hooks(dir.path(), None), Arc::new(crate::output::Quiet));
        assert!(!approver.can_answer());
        approver.set_allowed(true);
        assert!(approver.can_answer() && !approver.can_ask());
        assert!(approver.ask_tool("file tool Write", "Write a.txt"));
        assert!(!approver.can_answer(), "an allow answers one question");
        approver.set_allowed(true);
        let folder = crate::exec::trust::assess(dir.path(), crate::exec::trust::Snapshot::default(), None);
        assert!(!approver.ask_trust(&folder));
        assert!(!approver.ask_yes_no("trust the edited skill?"));
        assert_eq!(person.asked.load(Ordering::SeqCst), 0, "nobody was there to ask");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_question_for_the_person_runs_the_notification_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen.json");
        let command = format!("cat > {}.tmp && mv {0}.tmp {0}", seen.display());
        let person = Arc::new(No {
            present: true,
            asked: AtomicUsize::new(0),
        });
        let approver = HookApprover::new(
            person.clone(),
            hooks(dir.path(), Some(&command)),
            Arc::new(crate::output::Quiet),
        );
        assert!(!approver.ask_tool("mcp__time__now", "mcp__time__now {}"));
        assert_eq!(person.asked.load(Ordering::SeqCst), 1);
        while !seen.exists() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let input: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
        assert_eq!(input["hook_event_name"], "Notification");
        assert!(input["message"].as_str().unwrap().contains("mcp__time__now"));
    }
}
