//! Where the turn meets the user's hooks (docs/hooks.md): tool calls seen under the names Claude
//! Code's hook scripts match on (`view`), `PreToolUse`/`PostToolUse` around every call (`tool`),
//! the turn's own points — `UserPromptSubmit`, `Stop`, `SessionStart`, `SessionEnd`, `PreCompact`
//! (`turn`) — and `Notification` whenever a question waits for the person ([`HookApprover`]).
//!
//! A hook's `allow` is an answer to a question our policy would ask, never more: the approver
//! answers that one question yes. A denial of the policy, the sandbox or folder trust asks
//! nothing, so no hook can lift it.

mod tool;
mod turn;
mod view;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::Assessment;
use crate::hooks::{HookEvent, Hooks, Session, Verdict};
use crate::output::{ApprovalRequest, Approver, Event, EventSink};

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
}
