//! Compaction and the context: `/compact [FOCUS]` and automatic compaction near the context limit
//! replace the history in the request by a model-written summary, then send the instructions of
//! the skills that were active again, read fresh, so compaction never makes the model forget a
//! skill (docs/design.md#sessions). `/context` is the breakdown the limit is checked against.

use serde_json::Value;

use super::turn::{Agent, request_bytes};
use crate::llm::{ChatMessage, LlmError};
use crate::output::Event;
use crate::output::session::{ContextUse, WindowSource};
use crate::sessions::compact::{SUMMARY_ACK, summary_request};
use crate::sessions::context::{BYTES_PER_TOKEN, RequestParts, breakdown, estimate_tokens};

/// Below this many estimated tokens no window is small enough to matter, so the server is not
/// asked for it (most one-shot runs never are).
const WINDOW_FLOOR_TOKENS: u64 = 1024;

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compacted {
    /// Messages of the request the summary replaced.
    pub(crate) replaced: usize,
    /// Estimated tokens of the request before and after.
    pub(crate) tokens_before: u64,
    pub(crate) tokens_after: u64,
    /// The skills whose instructions were sent again.
    pub(crate) skills: Vec<String>,
}

impl Agent {
    /// Replace the history by a summary the model writes (`focus`: what it must keep), then send
    /// the active skills' instructions again. A failure leaves the conversation as it was.
    pub(crate) async fn compact(&mut self, focus: Option<&str>, auto: bool) -> Result<Compacted, LlmError> {
        let history = &self.conversation.messages()[1..];
        if history.is_empty() {
            return Err(LlmError::new("there is nothing to compact yet"));
        }
        self.pre_compact_hooks(auto, focus).await;
        let history = &self.conversation.messages()[1..];
        let replaced = history.len();
        let tools = Value::Null;
        let skill_messages: Vec<usize> = self.conversation.held().iter().map(|(_, at)| at - 1).collect();
        let request = summary_request(history, &skill_messages, focus);
        let tokens_before = self.estimate();
        let sent = request_bytes(&request, &tools);
        let reply = self.llm.complete(&request, &tools, &mut |_| {}).await;
        self.count_call(reply.as_ref().ok(), sent);
        let summary = reply?.content;
        if summary.trim().is_empty() {
            return Err(LlmError::new(
                "the model answered the request for a summary with nothing",
            ));
        }
        let old_hashes = self.conversation.held_hashes();
        let skills = self.conversation.compact(&summary, focus, auto);
        let (mut sent_again, mut changed, mut vanished) = (Vec::new(), Vec::new(), Vec::new());
        for skill in &skills {
            let before = old_hashes.iter().find(|(s, _)| s == skill).map(|(_, h)| h.clone());
            let is_changed = |now: &str| before.as_deref().is_some_and(|b| b != now);
            let now = self.skills().get(skill).and_then(|s| s.read_body().ok());
            match now.map(|body| crate::sessions::freshness::body_hash(&body)) {
                None => vanished.push(skill.clone()),
                Some(now) => {
                    let changed_now = is_changed(&now);
                    if self.send_again(skill, changed_now).is_some() {
                        sent_again.push(skill.clone());
                    }
                    if changed_now {
                        changed.push(skill.clone());
                    }
                }
            }
        }
        self.conversation
            .remember(ChatMessage::assistant(Some(SUMMARY_ACK.into()), Vec::new()));
        self.say_stale(&changed, &vanished, "this session activated");
        self.flush_journal_warning();
        Ok(Compacted {
            replaced,
            tokens_before,
            tokens_after: self.estimate(),
            skills: sent_again,
        })
    }

    /// Compact before a turn whose request would pass `AGENT_COMPACT_AT`. Only a percentage of
    /// an unknown window never triggers: then the byte budget of the history applies instead.
    pub(super) async fn compact_if_due(&mut self, user_message: &str) {
        let estimate = self.estimate() + estimate_tokens(user_message.len() as u64);
        if self.conversation.messages().len() < 2 {
            return;
        }
        let window = if estimate >= WINDOW_FLOOR_TOKENS || self.session.context_window.is_some() {
            self.window().await.0
        } else {
            None
        };
        let Some(limit) = self.session.compact_at.limit(window) else {
            return;
        };
        // A known limit takes over from the byte budget, which then only guards the window itself.
        let window_bytes = window.unwrap_or(limit).saturating_mul(BYTES_PER_TOKEN);
        let budget = usize::try_from(window_bytes)
            .unwrap_or(usize::MAX)
            .max(self.session.history_budget);
        self.conversation.set_budget(budget);
        if estimate <= limit {
            return;
        }
        match self.compact(None, true).await {
            Ok(done) => self.emit(Event::Warning {
                message: format!(
                    "the conversation reached ~{estimate} of {limit} tokens (AGENT_COMPACT_AT): {} earlier messages \
                     were replaced by a summary (now ~{} tokens){}; the session file keeps them all",
                    done.replaced,
                    done.tokens_after,
                    resent(&done.skills)
                ),
            }),
            Err(e) => self.emit(Event::Warning {
                message: format!(
                    "the conversation reached ~{estimate} of {limit} tokens but could not be compacted ({e}); it goes \
                     on as it is"
                ),
            }),
        }
    }

    /// What the next request would hold, part by part, against the context window.
    pub(crate) async fn context(&self) -> ContextUse {
        let (window, window_source) = self.window().await;
        let messages = self.conversation.messages();
        let held: Vec<(String, usize)> = self
            .conversation
            .held()
            .into_iter()
            .map(|(skill, at)| (skill, at - 1))
            .collect();
        let parts = breakdown(RequestParts {
            system: messages[0].content.as_deref().unwrap_or_default(),
            catalog_bytes: self.session.catalog_bytes,
            tools_bytes: self.session.tools_bytes,
            history: &messages[1..],
            skills: &held,
        });
        let bytes: u64 = parts.iter().map(|p| p.bytes).sum();
        ContextUse {
            parts,
            bytes,
            tokens: estimate_tokens(bytes),
            window,
            window_source,
            compact_at: self.session.compact_at.limit(window),
        }
    }

    /// The model's context window and where it came from: `AGENT_CONTEXT_WINDOW` when set (the
    /// user knows what their server loaded), else the server's `/models` listing, else unknown.
    async fn window(&self) -> (Option<u64>, WindowSource) {
        if let Some(tokens) = self.session.context_window {
            return (Some(tokens), WindowSource::Setting);
        }
        match self.llm.context_window().await {
            Some(tokens) => (Some(tokens), WindowSource::Server),
            None => (None, WindowSource::Unknown),
        }
    }

    /// Estimated tokens of the next request: the conversation and the tool schemas.
    fn estimate(&self) -> u64 {
        estimate_tokens(request_bytes(self.conversation.messages(), &Value::Null) + self.session.tools_bytes)
    }
}

/// "; the instructions of weather, time were sent again" (empty when none were).
pub(crate) fn resent(skills: &[String]) -> String {
    if skills.is_empty() {
        String::new()
    } else {
        format!("; the instructions of {} were sent again", skills.join(", "))
    }
}
