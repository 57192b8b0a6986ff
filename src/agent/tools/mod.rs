//! The model's tools (docs/design.md#turn-loop): `activate_skill`, `run_command`,
//! `read_skill_file`, and `search_skills` when the catalog is over its budget. Each call comes back
//! as a typed `ToolOutcome`; the conversation turns it into the model's text.
//!
//! A new tool is a [`ToolRequest`] variant decoded in `decode.rs`, a schema in `prompts/`, and an
//! arm of `ToolRunner::dispatch`.

mod activate;
mod decode;
mod dynamic;
pub(crate) mod files;
mod installed;
mod live;
mod mcp;
mod mcp_budget;
mod needs;
pub(crate) use needs::declared_needs;
mod hook_run;
mod read;
mod run;
mod run_env;
mod run_output;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use decode::{ToolRequest, decode_call};

use super::conversation::Conversation;
use super::hooked::{HookApprover, SkillHookState};
use super::outcome::ToolOutcome;
use super::retrieve::Retriever;
use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::FolderTrust;
use crate::hooks::Hooks;
use crate::output::{Approver, Event, EventSink};
use crate::skills::SkillSet;
use crate::skills::catalog::model_line;
use crate::support::redact::Redactor;

/// Most skills `search_skills` returns.
const MAX_SEARCH_RESULTS: usize = 10;
/// Characters of a description in a search result.
const SEARCH_DESCRIPTION_CHARS: usize = 300;

/// Carries out tool calls for a set of skills: activation, commands (approval, trust, the child
/// process) and file reads, emitting the events a front end shows.
pub(crate) struct ToolRunner {
    pub(super) skills: SkillSet,
    pub(super) settings: RunnerSettings,
    /// The person's approver inside [`HookApprover`], which every question goes through.
    pub(super) approver: Arc<dyn Approver>,
    /// The same approver, to tell it what a `PreToolUse` hook allowed.
    pub(super) hook_approver: Arc<HookApprover>,
    /// A hook said `continue: false` during this step: the turn ends after its calls.
    pub(super) hook_stop: Option<String>,
    /// What the run remembers of skills' own hooks (said once, `once: true`).
    pub(super) skill_hooks: SkillHookState,
    pub(super) sink: Arc<dyn EventSink>,
    /// The MCP tools offered, chosen once a session when they are over their budget.
    mcp_offered: Option<Vec<mcp_budget::McpSchema>>,
    /// Those left out for want of room (`search_skills` finds them).
    mcp_left: Vec<mcp_budget::McpSchema>,
    /// Whether the user was told the MCP tools are over their budget.
    mcp_noticed: bool,
}

/// What a [`ToolRunner`] needs besides the skills and the front end.
#[derive(Debug, Clone)]
pub(crate) struct RunnerSettings {
    pub(crate) approve: ApprovalPolicy,
    /// Seconds before a command is killed.
    pub(crate) command_timeout: Duration,
    /// Environment children start from (before the agent's own edits,
    /// docs/design.md#child-environment).
    pub(crate) base_env: BTreeMap<String, String>,
    /// Secret redaction for `base_env`, built once per run and shared with the LLM client.
    pub(crate) redactor: Redactor,
    /// The folder `agent` was started in: where commands run (`AGENT_WORKDIR`).
    pub(crate) workdir: PathBuf,
    /// Every skill root, for `AGENT_SKILLS_PATH`.
    pub(crate) skill_roots: Vec<PathBuf>,
    /// Whether the working folder's project skills may run commands (docs/design.md#folder-trust).
    pub(crate) trust: Arc<FolderTrust>,
    /// What commands may write and reach (docs/design.md#sandbox).
    pub(crate) sandbox: crate::exec::sandbox::Settings,
    /// How skills are ranked for a request (the catalog over budget, `search_skills`).
    pub(crate) retriever: Arc<Retriever>,
    /// The configured MCP servers, if any.
    pub(crate) mcp: Option<Arc<crate::mcp::McpHub>>,
    /// Bytes of MCP tool schemas per request (`AGENT_MCP_TOOLS_BUDGET`).
    pub(crate) mcp_budget: usize,
    /// The full prompt, or the compact one (activations say less).
    pub(crate) prompt_mode: super::prompt::PromptMode,
    /// The user's hooks (docs/hooks.md); none with `--no-hooks`.
    pub(crate) hooks: Arc<Hooks>,
}

impl ToolRunner {
    /// A runner for `skills` that asks `approver` and tells `sink`.
    pub(crate) fn new(
        skills: SkillSet,
        settings: RunnerSettings,
        approver: Arc<dyn Approver>,
        sink: Arc<dyn EventSink>,
    ) -> Self {
        let hook_approver = Arc::new(HookApprover::new(approver, settings.hooks.clone(), sink.clone()));
        Self {
            skills,
            settings,
            approver: hook_approver.clone(),
            hook_approver,
            hook_stop: None,
            skill_hooks: SkillHookState::default(),
            sink,
            mcp_offered: None,
            mcp_left: Vec::new(),
            mcp_noticed: false,
        }
    }

    /// The working folder commands and file tools work in.
    pub(crate) fn workdir(&self) -> &std::path::Path {
        &self.settings.workdir
    }

    /// The approval policy in force.
    pub(crate) fn approval(&self) -> ApprovalPolicy {
        self.settings.approve
    }

    /// Change the approval policy for the rest of the session.
    pub(crate) fn set_approval(&mut self, policy: ApprovalPolicy) {
        self.settings.approve = policy;
    }

    fn emit(&self, event: Event) {
        self.sink.emit(event);
    }

    /// Skills the person answered "always" for.
    pub(crate) fn always_granted(&self) -> Vec<String> {
        self.approver.always_granted()
    }

    /// Take up "always" answers of a resumed session.
    pub(crate) fn allow_always<'a>(&self, skills: impl IntoIterator<Item = &'a String>) {
        let skills: Vec<String> = skills.into_iter().cloned().collect();
        self.approver.allow_always(&skills);
    }

    /// Why a hook stopped the turn during the last calls, taken.
    pub(crate) fn take_hook_stop(&mut self) -> Option<String> {
        self.hook_stop.take()
    }

    /// Carry out one tool call in `conversation`'s state (which skill is active, which are held),
    /// without hooks (`agent::hooked` runs them around it).
    pub(crate) async fn dispatch_call(
        &mut self,
        conversation: &Conversation,
        name: &str,
        raw_args: &str,
    ) -> ToolOutcome {
        if mcp::is_mcp_tool(name) {
            return self.call_mcp(conversation.current(), name, raw_args).await;
        }
        if files::is_file_tool(name) {
            return self.call_file_tool(conversation.current(), name, raw_args).await;
        }
        match decode_call(name, raw_args) {
            Ok(ToolRequest::Activate { name }) => self.activate_off_thread(conversation, &name).await,
            Ok(ToolRequest::Run { command }) => self.run_command(conversation.current(), &command).await,
            Ok(ToolRequest::Read { skill, path }) => self.read_skill_file(&skill, &path).await,
            Ok(ToolRequest::Search { query }) => self.search_skills(&query).await,
            Err(refused) => refused,
        }
    }

    /// A refusal for a skill name that does not exist, naming similar ones (or any) to pick from.
    fn unknown_skill(&self, name: &str) -> ToolOutcome {
        let similar: Vec<&str> = self
            .skills
            .search(&name.replace(['-', '_'], " "), 5)
            .iter()
            .map(|(s, _)| s.name.as_str())
            .collect();
        let names = if similar.is_empty() {
            self.skills.names()
        } else {
            similar
        };
        let shown = names
            .iter()
            .take(50)
            .map(|n| model_line(n))
            .collect::<Vec<_>>()
            .join(", ");
        ToolOutcome::refused(format!(
            "there is no skill named {name:?}; known skills include: {shown}"
        ))
    }

    /// The ranking skills get for a request: the one the catalog uses.
    pub(crate) fn retriever(&self) -> Arc<Retriever> {
        self.settings.retriever.clone()
    }

    pub(crate) async fn search_skills(&self, query: &str) -> ToolOutcome {
        let ranking = self
            .settings
            .retriever
            .rank(&self.skills, query, MAX_SEARCH_RESULTS)
            .await;
        if let Some(message) = ranking.warning {
            self.emit(Event::Warning { message });
        }
        let all = self.skills.all();
        let hits: Vec<_> = ranking
            .ranked
            .iter()
            .filter_map(|r| all.get(r.index).map(|s| (s, r.score)))
            .collect();
        let tools = mcp_budget::search_lines(&self.mcp_left, query, MAX_SEARCH_RESULTS);
        if hits.is_empty() && tools.is_empty() {
            return ToolOutcome::ok(format!("no skill matches {query:?}; try other keywords"));
        }
        ToolOutcome::ok(
            hits.iter()
                .map(|(s, _)| {
                    let desc: String = model_line(&s.description)
                        .chars()
                        .take(SEARCH_DESCRIPTION_CHARS)
                        .collect();
                    format!("- {}: {desc}\n", model_line(&s.name))
                })
                .collect::<String>()
                + &tools,
        )
    }
}
