//! `Agent`: the conversation and the loop that runs one turn to an answer or a limit.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::FolderTrust;
use crate::llm::types::Usage;
use crate::llm::{ChatMessage, LlmClient, LlmError, ToolCall};
use crate::skills::SkillSet;
use crate::support::redact::{Redactor, StreamRedactor};

use super::prompt;
use crate::output::{Approver, Event, EventSink};

/// Settings of the loop that do not belong to the LLM client.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    pub approve: ApprovalPolicy,
    pub command_timeout: Duration,
    pub max_steps: u32,
    /// Environment children start from (before SPEC §5 edits).
    pub base_env: BTreeMap<String, String>,
    /// Secret redaction for `base_env`, built once per run and shared with the LLM client.
    pub redactor: Redactor,
    /// Every skill root, for `AGENT_SKILLS_PATH`.
    pub skill_roots: Vec<PathBuf>,
    /// Whether the working folder's project skills may run commands (SPEC §3).
    pub trust: Arc<FolderTrust>,
    /// Bytes of conversation kept before old tool outputs are shortened.
    pub history_budget: usize,
    /// Bytes of catalog per request; over it, the most relevant skills are listed.
    pub catalog_budget: usize,
    /// Activate a clear winner before the first request (saves a round trip).
    pub preactivate: bool,
}

/// Why a turn ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error("stopped after {steps} tool steps without an answer (the limit; raise it with --max-steps){repeating}")]
    StepLimit { steps: u32, repeating: String },
}

/// A conversation with the model plus the skills it can use.
pub struct Agent {
    pub(super) llm: LlmClient,
    pub(super) skills: SkillSet,
    pub(super) options: AgentOptions,
    pub(super) sink: Arc<dyn EventSink>,
    pub(super) approver: Arc<dyn Approver>,
    pub(super) messages: Vec<ChatMessage>,
    /// Skills whose body is already in the conversation, in activation order.
    pub(super) activated: Vec<String>,
    /// The most recently activated skill: where commands run.
    pub(super) current: Option<String>,
    llm_calls: u32,
    usage: Option<Usage>,
    /// Text of the answer streaming right now, kept for marking an interrupted turn.
    pub(super) partial: Arc<std::sync::Mutex<String>>,
    /// Whether the user was told the history is being shortened.
    pub(super) budget_noticed: bool,
    /// Whether the user was told the catalog is over its budget.
    catalog_noticed: bool,
    /// Commands refused by the approval policy, a person, or for want of a terminal, this turn.
    pub(super) commands_denied: usize,
}

impl Agent {
    pub fn new(
        llm: LlmClient,
        skills: SkillSet,
        options: AgentOptions,
        sink: Arc<dyn EventSink>,
        approver: Arc<dyn Approver>,
    ) -> Self {
        let messages = vec![ChatMessage::system(prompt::system_prompt(&skills))];
        Self {
            llm,
            skills,
            options,
            sink,
            approver,
            messages,
            activated: Vec::new(),
            current: None,
            llm_calls: 0,
            usage: None,
            partial: Arc::default(),
            budget_noticed: false,
            catalog_noticed: false,
            commands_denied: 0,
        }
    }

    /// The approval policy in force.
    pub fn approval(&self) -> ApprovalPolicy {
        self.options.approve
    }

    /// Change the approval policy for the rest of the session.
    pub fn set_approval(&mut self, policy: ApprovalPolicy) {
        self.options.approve = policy;
    }

    /// The working folder's trust, for listings.
    pub fn folder_trust(&self) -> &FolderTrust {
        &self.options.trust
    }

    /// The run's secret redaction.
    pub fn redactor(&self) -> &Redactor {
        &self.options.redactor
    }

    /// Where this agent's events go.
    pub fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    pub fn emit(&self, event: Event) {
        self.sink.emit(event);
    }

    /// Put the catalog for this request in the system prompt: all skills, or within the budget the
    /// ones most relevant to the conversation. Returns whether skills were left out.
    pub(super) fn refresh_catalog(&mut self, request: &str) -> bool {
        let mut query: Vec<&str> = self.user_turns().into_iter().rev().take(1).collect();
        query.push(request);
        let catalog = self.skills.render_within(self.options.catalog_budget, &query.join(" "));
        if catalog.omitted > 0 && !self.catalog_noticed {
            self.catalog_noticed = true;
            self.emit(Event::Warning {
                message: format!(
                    "{} skills do not fit the catalog budget of {} bytes (AGENT_CATALOG_BUDGET): each request lists \
                     the {} most relevant to the conversation, and the model can search_skills for the other {}",
                    self.skills.all().len(),
                    self.options.catalog_budget,
                    catalog.listed,
                    catalog.omitted
                ),
            });
        }
        self.messages[0] = ChatMessage::system(prompt::system_prompt_with(&self.skills, &catalog));
        catalog.omitted > 0
    }

    /// Activate the one clearly best skill for `request` before the model is asked at all.
    fn preactivate(&mut self, request: &str) {
        let hits = self.skills.search(request, 2);
        let clear = match hits.as_slice() {
            [(best, score)] => (*score >= PREACTIVATE_MIN_SCORE).then(|| best.name.clone()),
            [(best, first), (_, second)] => {
                (*first >= PREACTIVATE_MIN_SCORE && *first >= second * PREACTIVATE_MARGIN).then(|| best.name.clone())
            }
            _ => None,
        };
        if let Some(name) = clear.filter(|n| !self.activated.contains(n)) {
            let _ = self.activate_by_hand(&name);
        }
    }

    /// Count one model call and add its token usage to the session's.
    pub(super) fn count_call(&mut self, usage: Option<Usage>) {
        self.llm_calls += 1;
        if let Some(u) = usage {
            let total = self.usage.get_or_insert_with(Usage::default);
            total.prompt_tokens += u.prompt_tokens;
            total.completion_tokens += u.completion_tokens;
            total.total_tokens += u.total_tokens;
        }
    }

    pub fn llm_calls(&self) -> u32 {
        self.llm_calls
    }

    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// How many commands the model proposed in the last turn were denied (or could not be
    /// approved); a one-shot run that answered ends with exit 6 when this is not zero.
    pub fn commands_denied(&self) -> usize {
        self.commands_denied
    }

    /// Add a message, with secrets redacted: everything the model sees passes through here.
    /// Tool-call arguments included: they are sent back with every later request.
    pub(super) fn remember(&mut self, mut message: ChatMessage) {
        let redactor = &self.options.redactor;
        if let Some(content) = message.content.as_mut()
            && let std::borrow::Cow::Owned(clean) = redactor.redact(content)
        {
            *content = clean;
        }
        for call in &mut message.tool_calls {
            if let std::borrow::Cow::Owned(clean) = redactor.redact(&call.function.arguments) {
                call.function.arguments = clean;
            }
        }
        self.messages.push(message);
    }

    /// Run one user turn to the model's final answer.
    pub async fn run_turn(&mut self, user_message: &str) -> Result<String, TurnError> {
        self.commands_denied = 0;
        let budgeted = self.refresh_catalog(user_message);
        if self.options.preactivate {
            self.preactivate(user_message);
        }
        self.remember(ChatMessage::user(user_message));
        let tools = prompt::tools(&self.skills, budgeted);
        let mut steps = 0u32;
        let mut recent_calls: Vec<String> = Vec::new();
        loop {
            self.keep_within_budget();
            let sink = self.sink.clone();
            let partial = self.partial.clone();
            partial.lock().unwrap_or_else(|p| p.into_inner()).clear();
            // Secrets are redacted before a delta is shown, even one split across two deltas.
            let mut secrets = StreamRedactor::new(self.options.redactor.clone());
            let show = move |t: String| {
                if !t.is_empty() {
                    partial.lock().unwrap_or_else(|p| p.into_inner()).push_str(&t);
                    sink.emit(Event::MessageDelta { text: t });
                }
            };
            let mut on_text = |t: &str| show(secrets.push(t));
            let reply = self.llm.complete(&self.messages, &tools, &mut on_text).await;
            show(secrets.finish());
            self.count_call(reply.as_ref().ok().and_then(|r| r.usage));
            let reply = reply?;
            if reply.tool_calls.is_empty() {
                self.remember(ChatMessage::assistant(Some(reply.content.clone()), Vec::new()));
                self.emit(Event::Message {
                    text: reply.content.clone(),
                });
                return Ok(reply.content);
            }
            steps += 1;
            if steps > self.options.max_steps {
                return Err(TurnError::StepLimit {
                    steps: self.options.max_steps,
                    repeating: describe_repetition(&recent_calls),
                });
            }
            let content = (!reply.content.is_empty()).then(|| reply.content.clone());
            self.remember(ChatMessage::assistant(content, reply.tool_calls.clone()));
            self.run_calls(&reply.tool_calls, &mut recent_calls).await;
        }
    }
}

impl Agent {
    /// Run the first [`MAX_CALLS_PER_RESPONSE`] tool calls of one response; answer the rest with an
    /// error saying so, so every call has a result and the next request stays valid.
    async fn run_calls(&mut self, calls: &[ToolCall], recent_calls: &mut Vec<String>) {
        if calls.len() > MAX_CALLS_PER_RESPONSE {
            self.emit(Event::Warning {
                message: format!(
                    "the model asked for {} tool calls in one response; only the first {MAX_CALLS_PER_RESPONSE} run",
                    calls.len()
                ),
            });
        }
        for (i, call) in calls.iter().enumerate() {
            let result = if i < MAX_CALLS_PER_RESPONSE {
                recent_calls.push(format!("{}({})", call.function.name, call.function.arguments));
                self.dispatch(&call.function.name, &call.function.arguments).await
            } else {
                format!(
                    "error: not run: at most {MAX_CALLS_PER_RESPONSE} tool calls of one response are executed and this \
                     was call {} of {}. Ask again for what is still needed, in smaller steps.",
                    i + 1,
                    calls.len()
                )
            };
            self.remember(ChatMessage::tool(call.id.clone(), result));
        }
    }
}

/// Tool calls of one model response that are executed (SPEC §4); the rest get an error.
pub const MAX_CALLS_PER_RESPONSE: usize = 16;

/// BM25 score a skill needs to be pre-activated, and how far ahead of the next it must be.
const PREACTIVATE_MIN_SCORE: f32 = 2.0;
const PREACTIVATE_MARGIN: f32 = 1.5;

/// "; the model kept calling X" when one call dominates the turn.
fn describe_repetition(calls: &[String]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in calls {
        *counts.entry(c.as_str()).or_default() += 1;
    }
    match counts.into_iter().max_by_key(|(_, n)| *n) {
        Some((call, n)) if n > 1 => {
            let shown: String = call.chars().take(120).collect();
            format!("; the model repeated {shown} {n} times")
        }
        _ => String::new(),
    }
}

impl Agent {
    /// After a cancelled or failed turn, answer tool calls that got no result so the
    /// conversation stays valid for the next request.
    pub fn close_open_tool_calls(&mut self, reason: &str) {
        let Some(pos) = self.messages.iter().rposition(|m| m.role == "assistant") else {
            return;
        };
        let answered: Vec<String> = self.messages[pos + 1..]
            .iter()
            .filter_map(|m| m.tool_call_id.clone())
            .collect();
        let missing: Vec<String> = self.messages[pos]
            .tool_calls
            .iter()
            .map(|c| c.id.clone())
            .filter(|id| !answered.contains(id))
            .collect();
        for id in missing {
            self.messages.push(ChatMessage::tool(id, format!("error: {reason}")));
        }
    }
}
