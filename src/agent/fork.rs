//! `context: fork` (docs/skills.md#context-fork): a skill that runs as a sub-conversation. Its
//! activation starts a conversation of its own (the same system prompt, the skill's instructions,
//! the task), run with the same tools, policies and step limit, whose final answer alone becomes
//! the activation's result in the main conversation. Its messages never enter the main one; its
//! tokens count in `/usage` and the session, its commands are events between `fork_started` and
//! `fork_finished`. `model:` (or an `agent:` that is no Claude Code agent type) picks its model
//! where the endpoint accepts it; otherwise the session's model runs it, said once.

use super::outcome::Refusal;
use serde_json::Value;

use super::controls::Invoked;
use super::conversation::Conversation;
use super::outcome::ToolOutcome;
use super::prompt::{self, PromptMode};
use super::turn::{Agent, MAX_CALLS_PER_RESPONSE, request_bytes};
use crate::llm::{ChatMessage, LlmError, ToolCall};
use crate::output::Event;
use crate::skills::arguments::Arguments;

/// Claude Code's own subagent types: an `agent:` naming one asks for a kind of agent, not a model.
const AGENT_TYPES: [&str; 4] = ["general-purpose", "explore", "plan", "statusline-setup"];

/// What the model asked for when it activated a skill that forks.
pub(super) struct ForkCall {
    pub(super) skill: String,
    /// `activate_skill`'s `task`, when given.
    pub(super) task: Option<String>,
}

impl Agent {
    /// The fork a tool call starts, if it activates a skill marked `context: fork` that the model
    /// may activate.
    pub(super) fn fork_of(&self, call: &ToolCall) -> Option<ForkCall> {
        if call.function.name != "activate_skill" {
            return None;
        }
        let args: Value = serde_json::from_str(&call.function.arguments).ok()?;
        let skill = self.skills().get(args.get("name")?.as_str()?)?;
        if !skill.invocation.fork || !skill.invocation.model {
            return None;
        }
        let task = args
            .get("task")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from);
        Some(ForkCall {
            skill: skill.name.clone(),
            task,
        })
    }

    /// A `context: fork` skill invoked by hand (`/NAME ARGS`, `--skill NAME ARGS`): it runs as a
    /// sub-conversation with the arguments as its task and its answer is recorded as the
    /// activation's result; the request that follows asks the model to pass it on. `None` when
    /// `name` is no such skill.
    pub(crate) async fn invoke_fork(&mut self, name: &str, args: &Arguments) -> Option<Result<Invoked, Refusal>> {
        let skill = self.skills().get(name).filter(|s| s.invocation.fork)?.clone();
        let tools = match self.prompt_mode {
            PromptMode::Full => prompt::tools(self.skills(), self.frozen_catalog.is_some()),
            PromptMode::Compact => prompt::compact_tools(self.skills(), self.frozen_catalog.as_deref()),
        };
        let mut tools = self.tools.with_mcp_tools(tools, &args.raw).await;
        prompt::offer_fork_task(&mut tools, self.skills());
        let task = if args.is_empty() {
            "Carry out your instructions.".to_string()
        } else {
            args.raw.clone()
        };
        let call = ForkCall {
            skill: skill.name.clone(),
            task: Some(task),
        };
        let outcome = self.run_fork(call, &tools).await;
        if !matches!(outcome, ToolOutcome::Ok { .. }) {
            return Some(Err(outcome.message().to_string()));
        }
        self.conversation.activated_by_hand(&skill.name, &outcome);
        Some(Ok(Invoked {
            request: prompt::invoked_fork(&skill.name),
            skill: skill.name,
            dir: skill.dir.display().to_string(),
        }))
    }

    /// Run `fork` to its answer; the result the main conversation gets for the activation.
    pub(super) async fn run_fork(&mut self, fork: ForkCall, tools: &Value) -> ToolOutcome {
        let session_model = self.llm.model().to_string();
        let model = self.fork_model(&fork.skill);
        self.emit(Event::ForkStarted {
            skill: fork.skill.clone(),
            model: model.clone().unwrap_or_else(|| session_model.clone()),
        });
        let system = self.conversation.messages()[0].content.clone().unwrap_or_default();
        let mut inner = Conversation::new(system, usize::MAX, self.redactor.clone());
        let activation = self.tools.activate_now(&inner, &fork.skill).await;
        if !matches!(activation, ToolOutcome::Ok { activated: Some(_), .. }) {
            self.fork_finished(&fork.skill, 0);
            return activation;
        }
        inner.activated_by_hand(&fork.skill, &activation);
        let task = fork
            .task
            .or_else(|| self.conversation.user_turns().last().map(|t| t.to_string()))
            .unwrap_or_default();
        inner.remember(ChatMessage::user(task));
        if let Some(model) = &model {
            self.llm.set_model(model.clone());
        }
        let own_model = model.is_some().then(|| session_model.clone());
        let answer = self.fork_steps(&fork.skill, &mut inner, tools, own_model).await;
        self.llm.set_model(session_model);
        let steps = inner.messages().iter().filter(|m| !m.tool_calls.is_empty()).count();
        self.fork_finished(&fork.skill, steps);
        let outcome = match answer {
            Ok(text) if !text.trim().is_empty() => {
                ToolOutcome::ok(format!("The skill {} ran on its own and answered:\n{text}", fork.skill))
            }
            Ok(_) => ToolOutcome::failed(format!("the skill {} ended without an answer", fork.skill)),
            Err(why) => ToolOutcome::failed(format!("the skill {} could not finish: {why}", fork.skill)),
        };
        if let ToolOutcome::Ok { text, .. } = &outcome {
            // What the fork's commands found backs the main answer as a command's output would.
            self.trace.activated.push(fork.skill.clone());
            self.trace.attempted += 1;
            self.trace.ran += 1;
            self.trace.outputs.push_str(text);
            self.trace.last_output = Some(text.clone());
        }
        outcome
    }

    /// The steps of a fork: requests and tool calls until an answer or the step limit.
    /// `fallback`: its first request asks for the skill's own model, and when the endpoint
    /// refuses it, this one (the session's) is asked instead.
    async fn fork_steps(
        &mut self,
        skill: &str,
        inner: &mut Conversation,
        tools: &Value,
        mut fallback: Option<String>,
    ) -> Result<String, Refusal> {
        let mut steps = 0u32;
        loop {
            let sent = request_bytes(inner.messages(), tools);
            let reply = self.llm.complete(inner.messages(), tools, &mut |_| {}).await;
            self.count_call(reply.as_ref().ok(), sent);
            let reply = match (reply, fallback.take()) {
                (Err(e), Some(session)) => {
                    self.model_refused(skill, session, &e);
                    continue;
                }
                (Err(e), None) => return Err(e.to_string()),
                (Ok(reply), _) => reply,
            };
            if reply.tool_calls.is_empty() {
                return Ok(reply.content);
            }
            steps += 1;
            if steps > self.max_steps {
                return Err(format!(
                    "stopped after {} tool steps without an answer (the limit; raise it with --max-steps)",
                    self.max_steps
                ));
            }
            let content = (!reply.content.is_empty()).then_some(reply.content);
            inner.remember(ChatMessage::assistant(content, reply.tool_calls.clone()));
            for (i, call) in reply.tool_calls.iter().enumerate() {
                let outcome = if i < MAX_CALLS_PER_RESPONSE {
                    self.tools
                        .dispatch(inner, &call.function.name, &call.function.arguments)
                        .await
                } else {
                    ToolOutcome::refused(format!(
                        "not run: at most {MAX_CALLS_PER_RESPONSE} tool calls of one response are executed"
                    ))
                };
                if matches!(outcome, ToolOutcome::Denied { .. }) {
                    self.commands_denied += 1;
                }
                inner.tool_result(call.id.clone(), &outcome);
            }
        }
    }

    /// The model a fork of `skill` asks for, unless the endpoint refused it earlier this run:
    /// its `model:`, else an `agent:` that names no Claude Code agent type.
    fn fork_model(&self, skill: &str) -> Option<String> {
        let invocation = &self.skills().get(skill)?.invocation;
        let wanted = invocation.wants_model.clone().or_else(|| {
            invocation
                .agent
                .clone()
                .filter(|a| !AGENT_TYPES.contains(&a.to_ascii_lowercase().as_str()))
        })?;
        (wanted != self.llm.model() && !self.refused_models.contains(&wanted)).then_some(wanted)
    }

    /// The endpoint would not answer for the model `skill` asks for: the session's model runs
    /// it, said once a model and run.
    fn model_refused(&mut self, skill: &str, session: String, error: &LlmError) {
        let wanted = self.llm.model().to_string();
        self.llm.set_model(session.clone());
        if self.refused_models.insert(wanted.clone()) {
            let asked = match self.skills().get(skill).map(|s| s.invocation.wants_model.is_some()) {
                Some(false) => format!("agent: {wanted} (no agent type agent has, so tried as a model)"),
                _ => format!("the model {wanted}"),
            };
            self.emit(Event::Warning {
                message: format!(
                    "the skill {skill} asks for {asked}, which the endpoint did not answer for ({}); it runs with the \
                     session's model {session}",
                    error.message
                ),
            });
        }
    }

    /// A skill that asks for a model but runs in the conversation: the session's model runs it,
    /// said once a skill and run (models are switched only for forks).
    pub(super) fn model_not_switched(&mut self, call: &ToolCall) {
        if call.function.name != "activate_skill" {
            return;
        }
        let args: Option<Value> = serde_json::from_str(&call.function.arguments).ok();
        let name = args.as_ref().and_then(|a| a.get("name")).and_then(Value::as_str);
        let Some(skill) = name.and_then(|n| self.skills().get(n)) else {
            return;
        };
        let Some(wanted) = skill.invocation.wants_model.clone() else {
            return;
        };
        let skill = skill.name.clone();
        if wanted != self.llm.model() && self.refused_models.insert(format!("{skill}\n{wanted}")) {
            self.emit(Event::Warning {
                message: format!(
                    "the skill {skill} asks for the model {wanted}; agent switches models only for skills that run \
                     on their own (context: fork), so the session's model {} follows it",
                    self.llm.model()
                ),
            });
        }
    }

    /// Said when a fork ends, however it ended.
    fn fork_finished(&self, skill: &str, steps: usize) {
        self.emit(Event::ForkFinished {
            skill: skill.to_string(),
            steps,
        });
    }
}
