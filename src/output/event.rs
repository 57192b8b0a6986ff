//! The one `Event` type a turn emits (docs/events.md is its field reference).

use serde::Serialize;

use super::session::Totals;
use crate::exec::approval::ApprovalPolicy;
use crate::exec::sandbox::Mode;
use crate::llm::types::Usage;

/// Everything that happens during a session, in order. Renderers decide how to show it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Event {
    Session {
        version: &'static str,
        model: String,
        base_url: String,
        skills: usize,
        approve: ApprovalPolicy,
        /// The session this run stores (absent when sessions are not stored).
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        /// The session this run goes on with (`-c`, `--resume`).
        #[serde(skip_serializing_if = "Option::is_none")]
        resumed: Option<String>,
        /// What confines commands: `landlock-v7`-style, `unavailable`, or `off`.
        sandbox: String,
        /// The sandbox mode asked for: `on`, `strict` or `off`.
        sandbox_mode: Mode,
        /// Whether the (local) server says the model can call tools; `None` when it did not
        /// say or was not asked. `false` means skills cannot be used with this model.
        model_calls_tools: Option<bool>,
    },
    SkillSelected {
        skill: String,
        dir: String,
    },
    /// A skill marked `context: fork` starts its sub-conversation: the events up to its
    /// `ForkFinished` belong to it.
    ForkStarted {
        skill: String,
        /// The model its requests ask for.
        model: String,
    },
    /// The sub-conversation ended; only its answer goes back to the main conversation.
    ForkFinished {
        skill: String,
        /// Responses of the model that called tools in it.
        steps: usize,
    },
    CommandStarted {
        skill: String,
        command: String,
        cwd: String,
        /// The words it runs as, without a shell, when it was pre-approved as a literal command;
        /// absent when it runs with `sh -c`.
        #[serde(skip_serializing_if = "Option::is_none")]
        argv: Option<Vec<String>>,
        /// `auto` ran it unasked inside the walls of a contained command (docs/safety.md).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        contained: bool,
    },
    CommandFinished {
        skill: String,
        command: String,
        exit_code: Option<i32>,
        signal: Option<i32>,
        duration_ms: u64,
        stdout_bytes: u64,
        stderr_bytes: u64,
        timed_out: bool,
        /// The last few lines of stderr, secrets redacted: why a failed command failed.
        stderr_tail: Vec<String>,
        /// When a command failed with nothing on stderr: the last lines of its stdout (many
        /// scripts print their error there), secrets redacted. Empty otherwise.
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        stdout_tail: Vec<String>,
        /// When a failure looks like the sandbox's doing: what was refused and what to do.
        #[serde(skip_serializing_if = "Option::is_none")]
        sandbox_hint: Option<String>,
    },
    /// A piece of a running command's output (stdout or stderr), decoded and redacted, for a
    /// live view on a terminal. Never written by `--json`: its `command_finished` says how the
    /// command ended, and the model sees the captured output.
    CommandOutput {
        text: String,
    },
    CommandDenied {
        skill: Option<String>,
        command: String,
        reason: String,
    },
    /// An MCP tool call was approved and was sent to its server.
    McpCallStarted {
        server: String,
        tool: String,
        /// The arguments as JSON text, secrets redacted.
        arguments: String,
    },
    /// An MCP tool call came back (or failed: `error`).
    McpCallFinished {
        server: String,
        tool: String,
        duration_ms: u64,
        /// The server said the tool failed (`isError`), or the call itself failed.
        is_error: bool,
        /// Bytes of the result's text before the cap.
        result_bytes: u64,
        /// The result was cut to its head and tail.
        truncated: bool,
        /// Why the call failed (a crash, a timeout, a malformed answer), secrets redacted.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// An MCP tool call the model made was not sent: the policy, a person, no terminal to ask on.
    McpCallDenied {
        server: String,
        tool: String,
        reason: String,
    },
    /// A file tool (`Read`, `Write`, `Edit`, `Glob`, `Grep`) did its job.
    FileTool {
        tool: String,
        /// The file or folder, relative to the working folder when inside it.
        path: String,
        /// Bytes read or written; for `Glob` and `Grep`, what they found.
        bytes: u64,
    },
    /// The model wrote a tool call as the text of its reply; it is run as that call, through the
    /// same approval as a native one.
    ToolCallRecovered {
        /// The offered tool it calls (`activate_skill` when the model named a skill as a tool).
        tool: String,
        /// Its arguments, redacted.
        arguments: String,
        /// How it was written (`fenced json`, `tool_call tags` …).
        shape: String,
    },
    /// The answer rests on nothing that ran: a skill was activated and no command ran, the
    /// answer repeats the skill's example output, or it is a call that could not be run.
    AnswerUnverified {
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        skill: Option<String>,
    },
    /// The model's reply rested on nothing that ran (as for `AnswerUnverified`); it is not shown
    /// as the answer and the model is asked once more, told why.
    AnswerRetried {
        reason: String,
    },
    /// A hook blocked: a result's acceptance (`PostToolUse`: the reason goes to the model), a
    /// prompt (`UserPromptSubmit`), the end of a turn (`Stop`). A blocked tool call is a
    /// `CommandDenied` whose reason names the `PreToolUse` hook.
    HookBlocked {
        event: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        reason: String,
        /// Where the blocking hook came from: its settings file, or `skill NAME`.
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    },
    /// A hook failed to give an answer (a crash, exit 1 or 127, a timeout, output that is not
    /// JSON). `blocked`: it fails closed, so the failure blocked; else the call went on.
    HookFailed {
        event: String,
        command: String,
        /// The settings file it came from.
        source: String,
        message: String,
        blocked: bool,
    },
    MessageDelta {
        text: String,
    },
    Message {
        text: String,
    },
    Warning {
        message: String,
    },
    Error {
        message: String,
        code: i32,
        /// What beneath the error its message does not already say (`caused by: …`), outermost
        /// first; absent when the message says it all.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        causes: Vec<String>,
    },
    Done {
        exit_code: i32,
        llm_calls: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        /// The session this run stored (absent when sessions are not stored).
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        /// Tokens of the whole session, resumed turns included (estimated where the server sent
        /// no usage).
        session_usage: Totals,
    },
}
