//! A session's `output::Event`s made into `session/update` notifications: the answer streams as
//! `agent_message_chunk`s; skill activations, file tools, commands and MCP calls are tool calls
//! (`tool_call`, then `tool_call_update`s) with their kind, title, status and output.
//!
//! Events carry no call id: a session runs one tool call at a time, so the call a question was
//! asked about (`permission.rs` announces it) is the one the next start or denial belongs to.

use std::sync::{Mutex, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    SessionId, SessionUpdate, ToolCall, ToolCallContent, ToolCallId, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use serde_json::json;

use super::{lock, notify, text_chunk};
use crate::output::chat::HistoryEntry;
use crate::output::{Event, EventSink, Output, Report};

/// Most bytes of a command's live output kept for its tool call (the tail).
const MAX_OUTPUT_BYTES: usize = 16 * 1024;

/// The tool calls of a session that are not finished.
#[derive(Default)]
struct Calls {
    /// Ids handed out so far.
    issued: u64,
    /// The call a question was asked about, announced, not yet started or denied.
    pending: Option<ToolCallId>,
    /// The command or MCP call under way, and the output it printed so far.
    running: Option<(ToolCallId, String)>,
}

/// One session's link to the editor: where its events go.
pub(crate) struct Editor {
    cx: ConnectionTo<Client>,
    /// Set once the session has its id; events before it (while the session opens) are logged.
    session: OnceLock<SessionId>,
    calls: Mutex<Calls>,
}

impl Editor {
    /// A session's link over connection `cx`, not started yet.
    pub(crate) fn new(cx: ConnectionTo<Client>) -> Self {
        Self {
            cx,
            session: OnceLock::new(),
            calls: Mutex::default(),
        }
    }

    /// The session is open under `id`: its events go to the editor from now on.
    pub(crate) fn started(&self, id: SessionId) {
        let _ = self.session.set(id);
    }

    /// The session's id, once it is open.
    pub(crate) fn session(&self) -> Option<&SessionId> {
        self.session.get()
    }

    /// The connection to the editor, for requests (permission, files).
    pub(crate) fn connection(&self) -> &ConnectionTo<Client> {
        &self.cx
    }

    /// Send `update` for this session (nothing before it is open).
    fn send(&self, update: SessionUpdate) {
        if let Some(session) = self.session.get() {
            notify(&self.cx, session, update);
        }
    }

    /// A new tool call id, unique in this session.
    pub(crate) fn new_call(&self) -> ToolCallId {
        let mut calls = lock(&self.calls);
        calls.issued += 1;
        ToolCallId::new(format!("call-{}", calls.issued))
    }

    /// Announce a call a question is about to be asked about: `pending`, until it starts or is
    /// denied.
    pub(crate) fn announce(&self, call: ToolCall) {
        lock(&self.calls).pending = Some(call.tool_call_id.clone());
        self.send(SessionUpdate::ToolCall(call));
    }

    /// A call that starts now: the announced one, else a new one.
    fn start(&self, title: String, kind: ToolKind, input: serde_json::Value) -> ToolCallId {
        let pending = lock(&self.calls).pending.take();
        let id = match pending {
            Some(id) => {
                let fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::InProgress)
                    .title(title)
                    .raw_input(input);
                self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.clone(), fields)));
                id
            }
            None => {
                let id = self.new_call();
                let call = ToolCall::new(id.clone(), title)
                    .kind(kind)
                    .status(ToolCallStatus::InProgress)
                    .raw_input(input);
                self.send(SessionUpdate::ToolCall(call));
                id
            }
        };
        lock(&self.calls).running = Some((id.clone(), String::new()));
        id
    }

    /// A call that is over as soon as it is said (an activation, a file tool, a denial): the
    /// announced one, else a new one.
    fn done_at_once(&self, call: ToolCall) {
        let pending = lock(&self.calls).pending.take();
        match pending {
            Some(id) => {
                let fields = ToolCallUpdateFields::new()
                    .status(call.status)
                    .title(call.title)
                    .content(call.content)
                    .locations(call.locations);
                self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields)));
            }
            None => {
                let mut call = call;
                call.tool_call_id = self.new_call();
                self.send(SessionUpdate::ToolCall(call));
            }
        }
    }

    /// The running call ended: `failed` or completed, with `text` as its output.
    fn finish(&self, failed: bool, text: Option<String>, output: serde_json::Value) {
        let running = lock(&self.calls).running.take();
        let Some((id, live)) = running else {
            return;
        };
        let shown = text.filter(|t| !t.is_empty()).unwrap_or(live);
        let mut fields = ToolCallUpdateFields::new()
            .status(if failed {
                ToolCallStatus::Failed
            } else {
                ToolCallStatus::Completed
            })
            .raw_output(output);
        if !shown.is_empty() {
            fields = fields.content(vec![ToolCallContent::from(shown)]);
        }
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields)));
    }

    /// Output a running command printed: the call shows its tail so far.
    fn output(&self, text: &str) {
        let update = {
            let mut calls = lock(&self.calls);
            let Some((id, live)) = calls.running.as_mut() else {
                return;
            };
            live.push_str(text);
            if live.len() > MAX_OUTPUT_BYTES {
                let mut cut = live.len() - MAX_OUTPUT_BYTES;
                while !live.is_char_boundary(cut) {
                    cut += 1;
                }
                live.drain(..cut);
            }
            let fields = ToolCallUpdateFields::new().content(vec![ToolCallContent::from(live.clone())]);
            ToolCallUpdate::new(id.clone(), fields)
        };
        self.send(SessionUpdate::ToolCallUpdate(update));
    }

    /// After a turn: a call still pending or running did not finish (`why`); it is marked failed.
    pub(crate) fn close_open(&self, why: &str) {
        let (pending, running) = {
            let mut calls = lock(&self.calls);
            (calls.pending.take(), calls.running.take().map(|(id, _)| id))
        };
        for id in pending.into_iter().chain(running) {
            let fields = ToolCallUpdateFields::new()
                .status(ToolCallStatus::Failed)
                .content(vec![ToolCallContent::from(why.to_string())]);
            self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields)));
        }
    }

    /// A question's call that is no command or tool (a folder's trust): over once answered.
    pub(crate) fn settle(&self, id: ToolCallId, agreed: bool) {
        let mut calls = lock(&self.calls);
        if calls.pending.as_ref() == Some(&id) {
            calls.pending = None;
        }
        drop(calls);
        let status = if agreed {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        };
        let fields = ToolCallUpdateFields::new().status(status);
        self.send(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields)));
    }
}

impl Editor {
    /// A command ended: its call completes (exit 0) or fails, showing why when it failed.
    fn command_finished(&self, event: Event) {
        let Event::CommandFinished {
            exit_code,
            signal,
            duration_ms,
            timed_out,
            stderr_tail,
            stdout_tail,
            sandbox_hint,
            ..
        } = event
        else {
            return;
        };
        let failed = exit_code != Some(0);
        let mut why: Vec<String> = if failed {
            stderr_tail.into_iter().chain(stdout_tail).collect()
        } else {
            Vec::new()
        };
        why.extend(sandbox_hint);
        let text = (!why.is_empty()).then(|| why.join("\n"));
        let output = json!({
            "exit_code": exit_code, "signal": signal, "duration_ms": duration_ms, "timed_out": timed_out
        });
        self.finish(failed, text, output);
    }
}

/// A finished call's update with `status`, `kind` and `text` as its content.
fn said(title: String, kind: ToolKind, status: ToolCallStatus, text: Option<String>) -> ToolCall {
    let call = ToolCall::new(ToolCallId::new("unset"), title).kind(kind).status(status);
    match text {
        Some(text) => call.content(vec![ToolCallContent::from(text)]),
        None => call,
    }
}

/// The kind of a file tool's call.
fn file_kind(tool: &str) -> ToolKind {
    match tool {
        "Write" | "Edit" => ToolKind::Edit,
        "Glob" | "Grep" => ToolKind::Search,
        _ => ToolKind::Read,
    }
}

impl EventSink for Editor {
    /// The updates an event stands for; what the editor has no place for is logged.
    fn emit(&self, event: Event) {
        match event {
            Event::MessageDelta { text } => self.send(SessionUpdate::AgentMessageChunk(text_chunk(text))),
            Event::SkillSelected { skill, dir } => {
                let call = said(
                    format!("Activate skill {skill}"),
                    ToolKind::Think,
                    ToolCallStatus::Completed,
                    None,
                )
                .locations(vec![ToolCallLocation::new(dir)])
                .raw_input(json!({ "skill": skill }));
                self.done_at_once(call);
            }
            Event::CommandStarted {
                skill, command, cwd, ..
            } => {
                let input = json!({ "command": command, "skill": skill, "cwd": cwd });
                self.start(command, ToolKind::Execute, input);
            }
            Event::CommandOutput { text } => self.output(&text),
            finished @ Event::CommandFinished { .. } => self.command_finished(finished),
            Event::CommandDenied { command, reason, .. } => {
                let call = said(command, ToolKind::Execute, ToolCallStatus::Failed, Some(reason));
                self.done_at_once(call);
            }
            Event::McpCallStarted {
                server,
                tool,
                arguments,
            } => {
                let input = serde_json::from_str(&arguments).unwrap_or(serde_json::Value::String(arguments));
                self.start(format!("{server}: {tool}"), ToolKind::Other, input);
            }
            Event::McpCallFinished {
                is_error,
                error,
                result_bytes,
                duration_ms,
                ..
            } => {
                let output = json!({ "result_bytes": result_bytes, "duration_ms": duration_ms });
                self.finish(is_error, error, output);
            }
            Event::McpCallDenied { server, tool, reason } => {
                let call = said(
                    format!("{server}: {tool}"),
                    ToolKind::Other,
                    ToolCallStatus::Failed,
                    Some(reason),
                );
                self.done_at_once(call);
            }
            Event::FileTool { tool, path, bytes } => {
                let call = said(
                    format!("{tool} {path}"),
                    file_kind(&tool),
                    ToolCallStatus::Completed,
                    None,
                )
                .locations(vec![ToolCallLocation::new(path.clone())])
                .raw_output(json!({ "bytes": bytes }));
                self.done_at_once(call);
            }
            Event::Warning { message } => tracing::warn!("{message}"),
            Event::Error { message, .. } => tracing::warn!("error: {message}"),
            other => tracing::debug!(event = ?other, "not sent to the editor"),
        }
    }
}

impl Output for Editor {
    fn report(&self, report: Report) {
        tracing::debug!(report = ?report, "a report, not sent to the editor");
    }
}

/// A stored conversation told to the editor again (`session/load`): each side's messages as the
/// chunks they would have streamed as.
pub(crate) fn replay(cx: &ConnectionTo<Client>, session: &SessionId, history: &[HistoryEntry]) {
    for entry in history {
        let chunk = text_chunk(entry.text.clone());
        let update = if entry.role == "user" {
            SessionUpdate::UserMessageChunk(chunk)
        } else {
            SessionUpdate::AgentMessageChunk(chunk)
        };
        notify(cx, session, update);
    }
}
