//! The turn's own hook points (docs/hooks.md#events): `UserPromptSubmit` before a message is
//! sent (exit 2 refuses it, its reason for the user; context is added to it), `Stop` when the
//! model answers (a block sends the model back to work with the reason, at most
//! [`MAX_STOP_CONTINUES`] times a turn), `SessionStart` (its context goes with the first message),
//! `SessionEnd` and `PreCompact` (told, not asked).

use serde_json::Map;

use super::say;
use crate::agent::turn::{Agent, TurnError};
use crate::hooks::{HookEvent, Session, Verdict};
use crate::llm::ChatMessage;
use crate::output::Event;

/// Times one turn's `Stop` hooks may send the model back before the answer stands: a hook that
/// blocks every stop would otherwise loop until the step limit.
pub(crate) const MAX_STOP_CONTINUES: u32 = 3;

/// How often `Stop` hooks sent this turn's model back.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StopGuard {
    pub(crate) continues: u32,
}

impl Agent {
    fn hook_session(&self) -> Session {
        self.tools.hook_session(&self.conversation)
    }

    async fn fire(&self, event: HookEvent, fields: Map<String, serde_json::Value>) -> Verdict {
        let current = self.conversation.current();
        if !self.tools.has_hooks(event, current) {
            return Verdict::default();
        }
        let verdict = self
            .tools
            .fire_hooks(event, None, &self.hook_session(), fields, current)
            .await;
        say(&*self.sink, &verdict);
        verdict
    }

    /// `UserPromptSubmit`: the context hooks add to `message`, or the refusal of it.
    pub(crate) async fn prompt_hooks(&mut self, message: &str) -> Result<Vec<String>, TurnError> {
        let mut fields = Map::new();
        fields.insert("prompt".into(), message.into());
        let verdict = self.fire(HookEvent::UserPromptSubmit, fields).await;
        let source = verdict.blocked_by.filter(|_| verdict.block.is_some());
        if let Some(reason) = verdict.block.or(verdict.stop) {
            self.emit(Event::HookBlocked {
                event: HookEvent::UserPromptSubmit.name().into(),
                tool: None,
                reason: reason.clone(),
                source,
            });
            return Err(TurnError::PromptBlocked { reason });
        }
        let mut context = std::mem::take(&mut self.hook_context);
        context.extend(verdict.context);
        Ok(context)
    }

    /// `Stop` on the model's answer `text`: the reason to go on working, when a hook blocks and
    /// the turn has continues left. The answer is remembered and the reason sent as the next
    /// message.
    pub(crate) async fn stop_hooks(&mut self, text: &str) -> bool {
        let mut fields = Map::new();
        fields.insert("stop_hook_active".into(), (self.stop_guard.continues > 0).into());
        let verdict = self.fire(HookEvent::Stop, fields).await;
        let source = verdict.blocked_by.clone();
        let Some(reason) = verdict.block.filter(|_| verdict.stop.is_none()) else {
            return false;
        };
        if self.stop_guard.continues >= MAX_STOP_CONTINUES {
            self.emit(Event::Warning {
                message: format!(
                    "a Stop hook blocked the answer again ({reason}); it stands after {MAX_STOP_CONTINUES} continues"
                ),
            });
            return false;
        }
        self.stop_guard.continues += 1;
        self.emit(Event::HookBlocked {
            event: HookEvent::Stop.name().into(),
            tool: None,
            reason: reason.clone(),
            source,
        });
        self.conversation
            .remember(ChatMessage::assistant(Some(text.to_string()), Vec::new()));
        self.conversation
            .remember(ChatMessage::user(format!("[Stop hook] {reason}")));
        true
    }

    /// `SessionStart` (`source`: `startup` or `resume`): its context goes with the first message.
    pub(crate) async fn session_start_hooks(&mut self, source: &str) {
        let mut fields = Map::new();
        fields.insert("source".into(), source.into());
        let verdict = self.fire(HookEvent::SessionStart, fields).await;
        self.hook_context.extend(verdict.context);
    }

    /// `SessionEnd` (`reason`: `prompt_input_exit` for the end of a chat, `other` otherwise).
    pub(crate) async fn session_end_hooks(&mut self, reason: &str) {
        let mut fields = Map::new();
        fields.insert("reason".into(), reason.into());
        self.fire(HookEvent::SessionEnd, fields).await;
    }

    /// `PreCompact` (`trigger`: `manual` or `auto`) with the focus asked for.
    pub(crate) async fn pre_compact_hooks(&mut self, auto: bool, focus: Option<&str>) {
        let mut fields = Map::new();
        fields.insert("trigger".into(), if auto { "auto" } else { "manual" }.into());
        fields.insert("custom_instructions".into(), focus.unwrap_or("").into());
        self.fire(HookEvent::PreCompact, fields).await;
    }
}
