//! `PreToolUse` and `PostToolUse` around every tool call (docs/hooks.md#decisions). Before: a
//! block (exit 2, `deny`, a failure that fails closed) is a denial the model reads with the
//! hook's reason; `ask` asks the person first (no person: denied); `allow` answers the policy's
//! own question, if it asks one. After: the call's result goes to the hooks as `tool_response`; a
//! block or `additionalContext` is added to what the model reads.

use serde_json::{Map, Value, json};

use super::{permission_mode, say, view::view};
use crate::agent::conversation::Conversation;
use crate::agent::outcome::ToolOutcome;
use crate::agent::tools::ToolRunner;
use crate::hooks::{HookEvent, Permission, Session, Verdict};
use crate::output::Event;

impl ToolRunner {
    /// The session fields every hook input carries.
    pub(crate) fn hook_session(&self, conversation: &Conversation) -> Session {
        Session {
            session_id: conversation.session_id().map(ToString::to_string).unwrap_or_default(),
            transcript_path: conversation
                .transcript_path()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            permission_mode: permission_mode(self.approval()),
        }
    }

    /// Carry out one tool call with the hooks around it.
    pub(crate) async fn dispatch(&mut self, conversation: &Conversation, name: &str, raw_args: &str) -> ToolOutcome {
        let current = conversation.current().map(String::from);
        let current = current.as_deref();
        if !self.has_hooks(HookEvent::PreToolUse, current) && !self.has_hooks(HookEvent::PostToolUse, current) {
            return self.dispatch_call(conversation, name, raw_args).await;
        }
        let session = self.hook_session(conversation);
        self.hook_approver.set_session(session.clone());
        let (tool, input) = view(&self.skills, &self.settings.workdir, name, raw_args);
        let mut fields = Map::new();
        fields.insert("tool_name".into(), tool.clone().into());
        fields.insert("tool_input".into(), input.clone());
        let pre = self
            .fire_hooks(HookEvent::PreToolUse, Some(&tool), &session, fields.clone(), current)
            .await;
        say(&*self.sink, &pre);
        self.note_stop(&pre);
        if let Some(reason) = pre.block.clone() {
            let from = pre.blocked_by.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
            return self.hook_denied(
                name,
                &tool,
                &input,
                &format!("a PreToolUse hook{from} blocked this call: {reason}"),
            );
        }
        if let Err(reason) = self.hook_permission(&pre, &tool, &input).await {
            return self.hook_denied(name, &tool, &input, &reason);
        }
        let mut outcome = self.dispatch_call(conversation, name, raw_args).await;
        self.hook_approver.set_allowed(false);
        add_context(&mut outcome, &pre.context, "PreToolUse");
        if let ToolOutcome::Ok { text, .. } = &outcome {
            fields.insert("tool_response".into(), response(&tool, &input, text));
            let post = self
                .fire_hooks(HookEvent::PostToolUse, Some(&tool), &session, fields, current)
                .await;
            say(&*self.sink, &post);
            self.note_stop(&post);
            if let Some(reason) = &post.block {
                self.sink.emit(Event::HookBlocked {
                    event: HookEvent::PostToolUse.name().into(),
                    tool: Some(tool.clone()),
                    reason: reason.clone(),
                    source: post.blocked_by.clone(),
                });
            }
            let feedback: Vec<String> = post.block.iter().chain(&post.context).cloned().collect();
            add_context(&mut outcome, &feedback, "PostToolUse");
        }
        outcome
    }

    /// A `continue: false` from a hook: the turn ends after this call.
    fn note_stop(&mut self, verdict: &Verdict) {
        if self.hook_stop.is_none() {
            self.hook_stop.clone_from(&verdict.stop);
        }
    }

    /// A call a `PreToolUse` hook blocked (or asked about, and nobody said yes): a
    /// `command_denied` for the user, a denial with the reason for the model.
    fn hook_denied(&self, name: &str, tool: &str, input: &Value, reason: &str) -> ToolOutcome {
        let what = input
            .get("command")
            .or_else(|| input.get("file_path"))
            .and_then(Value::as_str)
            .map_or_else(|| name.to_string(), |w| format!("{tool} {w}"));
        self.sink.emit(Event::CommandDenied {
            skill: None,
            command: self.settings.redactor.redact(&what).into_owned(),
            reason: reason.to_string(),
        });
        ToolOutcome::denied(reason)
    }

    /// What a hook's `ask` or `allow` does before the call: `ask` asks the person now (a no, or
    /// nobody to ask, denies the call) and their yes then answers the policy's question too;
    /// `allow` answers the policy's question. `Err`: why the call is denied.
    async fn hook_permission(&self, pre: &Verdict, tool: &str, input: &Value) -> Result<(), String> {
        match pre.permission {
            None => Ok(()),
            Some(Permission::Allow) => {
                self.hook_approver.set_allowed(true);
                Ok(())
            }
            Some(Permission::Ask) => {
                let why = pre.permission_reason.clone().unwrap_or_else(|| "a hook asks".into());
                let shown = self.settings.redactor.redact(&format!("{tool} {input}")).into_owned();
                let question = format!("A PreToolUse hook asks about {shown} ({why}). Allow it?");
                let approver = self.approver.clone();
                let yes = approver.can_ask()
                    && tokio::task::spawn_blocking(move || approver.ask_yes_no(&question))
                        .await
                        .unwrap_or(false);
                if yes {
                    self.hook_approver.set_allowed(true);
                    Ok(())
                } else {
                    Err(format!(
                        "a PreToolUse hook asked for a person's approval ({why}) and none was given"
                    ))
                }
            }
        }
    }
}

/// `tool_response` for a call that did its job: its result text, and the file for file tools.
fn response(tool: &str, input: &Value, text: &str) -> Value {
    let mut out = json!({ "success": true, "output": text });
    if let Some(path) = input.get("file_path") {
        out["filePath"] = path.clone();
    }
    if tool == "Bash" {
        out["stdout"] = text.into();
    }
    out
}

/// Add what hooks of `event` said for the model to a call's result.
fn add_context(outcome: &mut ToolOutcome, context: &[String], event: &str) {
    if context.is_empty() {
        return;
    }
    let note = context
        .iter()
        .map(|c| format!("\n\n[{event} hook] {c}"))
        .collect::<String>();
    match outcome {
        ToolOutcome::Ok { text, .. } => text.push_str(&note),
        ToolOutcome::Denied { reason } => reason.push_str(&note),
        ToolOutcome::Failed { message } | ToolOutcome::Refused { message } => message.push_str(&note),
    }
}
