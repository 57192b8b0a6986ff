//! What the chat's slash commands answer. With `--json` each is a line like an event,
//! `{"v":1,"type":"model",…}` (docs/events.md, "Chat commands"), so a JSON consumer of the chat
//! sees `/model`, `/reset`, `/reload` and the rest.

use serde::Serialize;

use super::report::SkillSummary;
use super::session::{CompactReport, ContextUse, SessionExported, SessionList, SessionResumed, UsageReport};
use crate::exec::approval::ApprovalPolicy;

/// The answer to one chat command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ChatReply {
    /// The chat is ready for input.
    ChatStarted {
        version: &'static str,
        model: String,
        base_url: String,
        skills: usize,
        /// The stored session this chat writes to (absent when sessions are not stored).
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// `/help`: the commands with their help, in order, then the skills a person can invoke.
    Help {
        commands: Vec<CommandHelp>,
        skills: Vec<SkillCommand>,
    },
    /// `/skills`: every skill, and the names shadowed by an earlier root.
    Skills {
        skills: Vec<SkillSummary>,
        shadowed: Vec<String>,
    },
    /// `/skill NAME`: the skill is active; its instructions are in the conversation.
    SkillActivated { skill: String, dir: String },
    /// `/reset`: the conversation is forgotten.
    Reset,
    /// `/model [NAME]`: the model in use (`changed`: just switched to it).
    Model { model: String, changed: bool },
    /// `/approve [POLICY]`: the approval policy in force (`changed`: just set).
    Approval { policy: ApprovalPolicy, changed: bool },
    /// `/history`: the conversation so far, oldest first, secrets redacted. `messages` keeps the
    /// user's side alone, as before; `entries` holds both sides.
    History {
        messages: Vec<String>,
        entries: Vec<HistoryEntry>,
    },
    /// `/reload`: the skill folders were scanned again.
    Reloaded { skills: usize },
    /// A command that does not exist, with the closest one when there is one.
    UnknownCommand {
        command: String,
        suggestion: Option<String>,
    },
    /// A command that could not do what was asked (bad argument, unknown skill); `message` says
    /// what to do.
    CommandError { command: String, message: String },
    /// `/sessions`: recent stored sessions, newest first.
    Sessions(SessionList),
    /// `/resume ID` (and a chat started with `-c` or `--resume`): the session taken up.
    Resumed(SessionResumed),
    /// `/fork`: the conversation goes on in a new session, a copy of this one so far.
    Forked { session_id: String, parent: String },
    /// `/export [FILE]`: the session written.
    Exported(SessionExported),
    /// `/usage`: tokens per turn and for the session.
    Usage(UsageReport),
    /// `/context`: what the next request would hold.
    Context(ContextUse),
    /// `/compact [FOCUS]`: the history was replaced by a summary.
    Compacted(CompactReport),
    /// `/mcp`: the configured MCP servers, as `agent mcp list` shows them.
    Mcp(super::mcp::McpServerList),
}

/// One message of `/history`: who said it, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct HistoryEntry {
    /// `user` or `assistant`.
    pub(crate) role: &'static str,
    /// The text; for an answer that only called tools, what it called (`activate_skill(weather)`).
    pub(crate) text: String,
}

/// A skill as `/help` offers it: how to invoke it, and what arguments it takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SkillCommand {
    pub(crate) name: String,
    /// `/deploy`, or `/skill help` for a skill whose name a built-in command takes.
    pub(crate) command: String,
    /// Its `argument-hint` (`[environment]`).
    pub(crate) hint: Option<String>,
    pub(crate) description: String,
}

/// One line of `/help`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CommandHelp {
    /// `/model`
    pub(crate) name: &'static str,
    /// `[NAME] — show or switch the model`
    pub(crate) help: &'static str,
}
