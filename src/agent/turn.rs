//! `Agent`: a thin loop over a [`Conversation`] and a [`ToolRunner`] that runs one turn to an
//! answer or a limit.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::llm::types::Usage;
use crate::llm::{ChatMessage, LlmClient, LlmError, ToolCall};
use crate::output::{Approver, Event, EventSink};
use crate::sessions::compact::CompactAt;
use crate::skills::SkillSet;
use crate::skills::retrieval::rank::{PREACTIVATE_MARGIN, PREACTIVATE_MIN_COVERAGE, clear_winner};
use crate::support::redact::{Redactor, StreamRedactor};

pub(super) use super::accounting::{request_bytes, tools_bytes};
use super::conversation::Conversation;
use super::grounding::{TurnTrace, Unbacked};
use super::outcome::ToolOutcome;
use super::prompt::{self, PromptMode};
use super::recover::Hold;
use super::session::SessionState;
use super::tools::{RunnerSettings, ToolRunner};

/// Settings of the loop that do not belong to the LLM client.
#[derive(Debug, Clone)]
pub(crate) struct AgentOptions {
    /// How tool calls are carried out: approval, commands, trust, redaction.
    pub(crate) tools: RunnerSettings,
    pub(crate) max_steps: u32,
    /// Bytes of conversation kept before old tool outputs are shortened.
    pub(crate) history_budget: usize,
    /// Bytes of catalog per request; over it, the most relevant skills are listed.
    pub(crate) catalog_budget: usize,
    /// Activate a clear winner before the first request (saves a round trip).
    pub(crate) preactivate: bool,
    /// `AGENT_CONTEXT_WINDOW`: the model's window in tokens when set (else the server is asked).
    pub(crate) context_window: Option<u64>,
    /// `AGENT_COMPACT_AT`: when the history is compacted by itself.
    pub(crate) compact_at: CompactAt,
    /// The full prompt, or the short one for small local models (`AGENT_PROMPT`).
    pub(crate) prompt_mode: PromptMode,
    /// Hold the model's reply to the call the agent needs, where it showed it will not write
    /// one (`AGENT_GUIDED_CALLS`; the server must take a JSON schema).
    pub(crate) guided_calls: bool,
}

/// Why a turn ended without an answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TurnError {
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error("stopped after {steps} tool steps without an answer (the limit; raise it with --max-steps){repeating}")]
    StepLimit { steps: u32, repeating: String },
    /// A `UserPromptSubmit` hook refused the message; it was not sent.
    #[error("a UserPromptSubmit hook refused the prompt: {reason}")]
    PromptBlocked { reason: String },
}

/// Tool calls of one model response that are executed (docs/design.md#limits); the rest get an
/// error.
pub(crate) const MAX_CALLS_PER_RESPONSE: usize = 16;

/// Skills ranked for an over-budget catalog; the rest follow in catalog order while room remains.
pub(super) const CATALOG_RANKED: usize = 200;

/// A conversation with the model plus the skills it can use.
pub(crate) struct Agent {
    pub(super) llm: LlmClient,
    pub(super) conversation: Conversation,
    pub(super) tools: ToolRunner,
    pub(super) sink: Arc<dyn EventSink>,
    pub(super) redactor: Redactor,
    pub(super) max_steps: u32,
    pub(super) catalog_budget: usize,
    preactivate: bool,
    /// The full prompt, or the compact one.
    pub(super) prompt_mode: PromptMode,
    /// Whether the user was told the catalog is over its budget.
    pub(super) catalog_noticed: bool,
    /// Over the budget: the skills the session's catalog lists, fixed at its first turn so the
    /// system message (and so the provider's cached prefix) stays the same; `None` until then and
    /// after the skills change.
    pub(super) frozen_catalog: Option<Vec<String>>,
    pub(super) llm_calls: u32,
    /// Bytes of the request the model is answering right now, until its answer is counted: an
    /// answer cut short by Ctrl-C is then still counted (estimated) in `/usage`.
    pub(super) in_flight: Option<u64>,
    pub(super) usage: Option<Usage>,
    /// Commands refused by the approval policy, a person, or for want of a terminal, this turn.
    pub(super) commands_denied: usize,
    /// Tokens of calls whose server reported none, estimated from bytes.
    pub(super) tokens_estimated: u64,
    /// What the session keeps besides messages: usage per turn, grants, context settings.
    pub(super) session: SessionState,
    /// What the current turn activated and ran, for judging its answer.
    pub(super) trace: TurnTrace,
    /// Why the last answer is not backed by anything that ran, when it is not.
    pub(super) unbacked: Option<Unbacked>,
    /// Whether this turn's one second chance for an unbacked answer was used.
    pub(super) second_chance_used: bool,
    /// Whether this turn asked a stuck model again (an empty reply, or one repeating a reply set
    /// aside).
    pub(super) silence_retried: bool,
    /// Guided calls: whether they are on, and the guide of the next request.
    pub(super) guidance: super::guided::Guidance,
    /// Context hooks gave (`SessionStart`) for the next message.
    pub(super) hook_context: Vec<String>,
    /// How often `Stop` hooks sent this turn's model back.
    pub(super) stop_guard: super::hooked::StopGuard,
    /// Models skills asked for that the endpoint refused this run (and skills told once that
    /// their model is not switched to): each is said once.
    pub(super) refused_models: std::collections::HashSet<String>,
}

impl Agent {
    /// An agent over `skills`, talking through `llm`, emitting to `sink` and asking `approver`.
    pub(crate) fn new(
        llm: LlmClient,
        skills: SkillSet,
        options: AgentOptions,
        sink: Arc<dyn EventSink>,
        approver: Arc<dyn Approver>,
    ) -> Self {
        let redactor = options.tools.redactor.clone();
        let system = prompt::system_prompt(&skills, options.catalog_budget, options.prompt_mode);
        let conversation = Conversation::new(system, options.history_budget, redactor.clone());
        let session = SessionState::new(&options, &skills);
        Self {
            llm,
            conversation,
            tools: ToolRunner::new(skills, options.tools, approver, sink.clone()),
            sink,
            redactor,
            max_steps: options.max_steps,
            catalog_budget: options.catalog_budget,
            preactivate: options.preactivate,
            prompt_mode: options.prompt_mode,
            catalog_noticed: false,
            frozen_catalog: None,
            llm_calls: 0,
            in_flight: None,
            usage: None,
            commands_denied: 0,
            tokens_estimated: 0,
            session,
            trace: TurnTrace::default(),
            unbacked: None,
            second_chance_used: false,
            silence_retried: false,
            guidance: super::guided::Guidance {
                on: options.guided_calls,
                ..Default::default()
            },
            hook_context: Vec::new(),
            stop_guard: super::hooked::StopGuard::default(),
            refused_models: std::collections::HashSet::new(),
        }
    }

    pub(super) fn emit(&self, event: Event) {
        self.sink.emit(event);
    }

    /// Run one user turn to the model's final answer.
    pub(crate) async fn run_turn(&mut self, user_message: &str) -> Result<String, TurnError> {
        self.unbacked = None;
        self.second_chance_used = false;
        self.guidance.reset();
        self.silence_retried = false;
        self.stop_guard = super::hooked::StopGuard::default();
        let context = self.prompt_hooks(user_message).await?;
        let message = with_context(user_message, &context);
        let answer = self.turn_steps(&message).await;
        self.reset_trace();
        answer
    }

    /// The start of a turn: its catalog and tools, compaction when due, pre-activation, the
    /// user's message remembered and the trace begun; the tools of its requests come back.
    async fn begin_turn(&mut self, user_message: &str) -> serde_json::Value {
        self.commands_denied = 0;
        let catalog = self.refresh_catalog(user_message).await;
        let tools = match self.prompt_mode {
            PromptMode::Full => prompt::tools(self.skills(), catalog.budgeted),
            PromptMode::Compact => prompt::compact_tools(self.skills(), self.frozen_catalog.as_deref()),
        };
        let mut tools = self.tools.with_mcp_tools(tools, user_message).await;
        prompt::offer_fork_task(&mut tools, self.skills());
        self.session.tools_bytes = tools_bytes(&tools);
        self.compact_if_due(user_message).await;
        if self.preactivate {
            self.preactivate(user_message).await;
        }
        self.conversation
            .remember(ChatMessage::user(user_message).noted(catalog.note));
        self.session.start_turn(self.conversation.user_turns().last().copied());
        self.trace.named_files = self.files_named(user_message);
        self.trace.said = self.conversation.user_turns().join("\n").to_lowercase();
        tools
    }

    /// The steps of one turn: requests and tool calls until an answer or a limit.
    async fn turn_steps(&mut self, user_message: &str) -> Result<String, TurnError> {
        let tools = self.begin_turn(user_message).await;
        let mut steps = 0u32;
        let mut recent_calls: Vec<String> = Vec::new();
        let offered = super::guided::offered_skills(&tools);
        loop {
            if let Some(message) = self.conversation.keep_within_budget() {
                self.emit(Event::Warning { message });
            }
            let sent = request_bytes(self.conversation.messages(), &tools);
            self.in_flight = Some(sent);
            let reply = self.ask_model(&tools).await;
            self.count_call(reply.as_ref().ok().map(|(r, _)| r), sent);
            self.flush_journal_warning();
            let (mut reply, held) = match reply {
                // After tool calls, a model that says nothing more has ended its turn: the
                // results (a denial, a failure) are the story, said by their own events.
                Err(e) if e.empty_reply && steps > 0 && self.silence_chance() => {
                    steps += 1;
                    continue;
                }
                Err(e) if e.empty_reply && steps > 0 => return Ok(self.ended_in_silence()),
                other => other?,
            };
            if reply.tool_calls.is_empty() {
                let calls = self.text_calls(&reply.content, &tools);
                let retry = calls.is_none() && self.second_chance(&reply.content, &offered).await;
                match calls {
                    Some(calls) => {
                        reply.tool_calls = calls;
                        reply.content.clear();
                    }
                    None if retry => {
                        steps += 1;
                        continue;
                    }
                    None if steps < self.max_steps && self.stop_hooks(&reply.content).await => {
                        if let Some(text) = held {
                            self.emit(Event::MessageDelta { text });
                        }
                        steps += 1;
                        continue;
                    }
                    None => return Ok(self.final_answer(reply.content, held)),
                }
            } else if let Some(text) = held {
                // Said beside native calls while an answer was in doubt: shown, it is no answer.
                self.emit(Event::MessageDelta { text });
            }
            steps += 1;
            if steps > self.max_steps {
                return Err(TurnError::StepLimit {
                    steps: self.max_steps,
                    repeating: describe_repetition(&recent_calls),
                });
            }
            let content = (!reply.content.is_empty()).then_some(reply.content);
            self.conversation.remember(
                ChatMessage::assistant(content, reply.tool_calls.clone())
                    .with_thinking(std::mem::take(&mut reply.thinking)),
            );
            self.run_calls(&reply.tool_calls, &mut recent_calls, &tools).await;
            self.guide_after_calls();
            self.record_grants();
            if let Some(reason) = self.tools.take_hook_stop() {
                self.emit(Event::Warning {
                    message: format!("a hook stopped the turn: {reason}"),
                });
                return Ok(self.answer(format!("(stopped by a hook: {reason})"), None));
            }
        }
    }

    /// The answer of a turn whose model said nothing after its tool calls: what the last command
    /// printed (real output, where the model's silence would leave the user with nothing), with
    /// a warning.
    fn ended_in_silence(&mut self) -> String {
        self.output_as_answer(match self.trace.last_output {
            Some(_) => "the model ended its turn without an answer; the last command's output is shown instead",
            None => "the model ended its turn without an answer after its tool calls",
        })
    }

    /// What the last command printed (nothing when none ran), as the answer, after `warning`.
    fn output_as_answer(&mut self, warning: &str) -> String {
        self.emit(Event::Warning {
            message: warning.into(),
        });
        let last = self.trace.last_output.clone().unwrap_or_default();
        self.answer(last, None)
    }

    /// The turn's answer, unless it repeats a reply set aside this turn after a command succeeded (the
    /// model is stuck, and its once-more is spent: the 1.5B model wrote the same explanation of
    /// how to count divisors three times after the count was printed): then, as after silence,
    /// what the last command printed, with a warning.
    fn final_answer(&mut self, text: String, held: Option<String>) -> String {
        let succeeded = self.trace.last_output.is_some() && !self.trace.last_failed;
        if self.prompt_mode == PromptMode::Compact && self.trace.repeats_set_aside(&text) && succeeded {
            return self.output_as_answer(
                "the model repeated a reply set aside before; the last command's output is shown instead",
            );
        }
        self.answer(text, held)
    }

    /// The turn's answer: shown (what was held back of it first), judged against what ran,
    /// remembered.
    fn answer(&mut self, text: String, held: Option<String>) -> String {
        if let Some(held) = held {
            self.emit(Event::MessageDelta { text: held });
        }
        self.conversation
            .remember(ChatMessage::assistant(Some(text.clone()), Vec::new()));
        self.emit(Event::Message { text: text.clone() });
        self.judge_answer(&text);
        text
    }

    /// One request with the conversation so far; the answer streams out as `message_delta`s with
    /// secrets redacted, even one split across two deltas. A reply that begins like a call written
    /// as text is held back until it is whole, and comes back beside the reply.
    async fn ask_model(
        &mut self,
        tools: &serde_json::Value,
    ) -> Result<(crate::llm::types::Reply, Option<String>), LlmError> {
        let sink = self.sink.clone();
        let partial = self.conversation.partial();
        partial.lock().unwrap_or_else(|p| p.into_inner()).clear();
        let mut secrets = StreamRedactor::new(self.redactor.clone());
        let guide = self.guidance.take();
        // A reply that may be set aside for a second chance is not shown until judged, nor one
        // held to a call's schema (its JSON is no answer to show).
        let hold = std::sync::Mutex::new(if self.answer_in_doubt() || guide.is_some() {
            Hold::Holding(String::new())
        } else {
            Hold::default()
        });
        let holding = &hold;
        let show = move |t: String| {
            if t.is_empty() {
                return;
            }
            partial.lock().unwrap_or_else(|p| p.into_inner()).push_str(&t);
            let shown = holding.lock().unwrap_or_else(|p| p.into_inner()).pass(t);
            if let Some(text) = shown {
                sink.emit(Event::MessageDelta { text });
            }
        };
        let mut on_text = |t: &str| show(secrets.push(t));
        let reply = self
            .llm
            .complete_guided(self.conversation.messages(), tools, guide.as_ref(), &mut on_text)
            .await;
        show(secrets.finish());
        let held = hold.into_inner().unwrap_or_else(|p| p.into_inner()).into_held();
        reply.map(|mut r| match self.guidance.answer_in(&r.content) {
            // An answer the guide allowed, as JSON: its text is the answer.
            Some(answer) => {
                r.content = answer.clone();
                (r, Some(answer))
            }
            None => (r, held),
        })
    }

    /// Run the first [`MAX_CALLS_PER_RESPONSE`] tool calls of one response; answer the rest with an
    /// error saying so, so every call has a result and the next request stays valid.
    /// A call activating a skill marked `context: fork` runs it as a sub-conversation with `tools`.
    async fn run_calls(&mut self, calls: &[ToolCall], recent_calls: &mut Vec<String>, tools: &serde_json::Value) {
        if calls.len() > MAX_CALLS_PER_RESPONSE {
            self.emit(Event::Warning {
                message: format!(
                    "the model asked for {} tool calls in one response; only the first {MAX_CALLS_PER_RESPONSE} run",
                    calls.len()
                ),
            });
        }
        for (i, call) in calls.iter().enumerate() {
            let signature = format!("{}({})", call.function.name, call.function.arguments);
            let outcome = if i < MAX_CALLS_PER_RESPONSE {
                recent_calls.push(signature.clone());
                match self.fork_of(call) {
                    Some(fork) => self.run_fork(fork, tools).await,
                    None if self.runs_again(&signature) => self.not_run_again(),
                    None => match self.held_back(call) {
                        Some(refused) => refused,
                        None => {
                            self.model_not_switched(call);
                            self.tools
                                .dispatch(&self.conversation, &call.function.name, &call.function.arguments)
                                .await
                        }
                    },
                }
            } else {
                ToolOutcome::refused(format!(
                    "not run: at most {MAX_CALLS_PER_RESPONSE} tool calls of one response are executed and this \
                     was call {} of {}. Ask again for what is still needed, in smaller steps.",
                    i + 1,
                    calls.len()
                ))
            };
            if matches!(outcome, ToolOutcome::Denied { .. }) {
                self.commands_denied += 1;
            }
            if call.function.name == "run_command" && self.conversation.current().is_none() {
                self.trace.unactivated += 1;
            }
            self.trace_call(&call.function.name, &outcome);
            if call.function.name == "run_command" && matches!(outcome, ToolOutcome::Ok { .. }) {
                self.trace.commands_run.push(signature.clone());
                if !self.trace.last_failed {
                    self.trace.commands_ok.extend(super::guided::command_of(call));
                }
            }
            self.conversation.tool_result(call.id.clone(), &outcome);
        }
    }

    /// Activate the one clearly best skill for `request` before the model is asked at all. A
    /// request that names a file of the working folder needs a tool to be answered at all, so
    /// there the margin alone decides: the minimum coverage guards plain chat, which such a
    /// request is not (the bench's 1.5B model made up counts and maxima of files it never read).
    async fn preactivate(&mut self, request: &str) {
        let coverage = match self.files_named(request).is_empty() {
            true => PREACTIVATE_MIN_COVERAGE,
            false => 0.0,
        };
        if let Some(name) = self.clear_winner_for(request, coverage) {
            let _ = self.activate_by_hand(&name).await;
        }
    }

    /// The skill whose words clearly win `request` (at least `min_coverage` of it, and
    /// [`PREACTIVATE_MARGIN`] times the runner-up's score), unless its instructions are already
    /// in the conversation: what pre-activation and the second chance activate.
    pub(super) fn clear_winner_for(&self, request: &str, min_coverage: f32) -> Option<String> {
        let skills = self.skills();
        let winner = clear_winner(&skills.index().score(request), min_coverage, PREACTIVATE_MARGIN)?;
        let name = skills.all().get(winner)?.name.clone();
        (!self.conversation.holds(&name)).then_some(name)
    }

    /// How many commands the model proposed in the last turn were denied (or could not be
    /// approved); a one-shot run that answered ends with exit 6 when this is not zero.
    pub(crate) fn commands_denied(&self) -> usize {
        self.commands_denied
    }
}

/// The user's message with the context hooks added to it (`UserPromptSubmit`, `SessionStart`).
fn with_context(message: &str, context: &[String]) -> String {
    if context.is_empty() {
        return message.to_string();
    }
    let notes: String = context.iter().map(|c| format!("\n\n[hook context] {c}")).collect();
    format!("{message}{notes}")
}

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
