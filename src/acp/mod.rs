//! `agent acp`: the Agent Client Protocol over stdin and stdout, through the protocol's official
//! SDK (docs/editors.md, docs/design.md#editors). An editor is a front end like the terminal: its
//! sessions are our sessions, their turns emit the same `output::Event`s, made here into
//! `session/update` notifications (`updates.rs`), and the questions the agent asks go to the
//! editor as `session/request_permission` (`permission.rs`) through the same approval layer.
//!
//! Stdout carries only the SDK's protocol frames; nothing here prints (logs go through
//! `tracing` to stderr). How a session is built from configuration is `app/acp.rs`'s business,
//! behind [`Sessions`].

mod mcp_servers;
mod permission;
mod updates;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, ContentChunk, Implementation, InitializeRequest,
    InitializeResponse, LoadSessionRequest, LoadSessionResponse, McpCapabilities, NewSessionRequest,
    NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse, SessionId, SessionNotification,
    SessionUpdate, StopReason, TextContent,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error as RpcError, Stdio};
use futures::future::BoxFuture;
use tokio::sync::oneshot;

use crate::agent::{Agent, TurnError};
use crate::mcp::ServerConfig;
use crate::output::{Approver, Output};

/// How long, after the editor went away, running turns get to stop (their commands killed).
const WIND_DOWN: std::time::Duration = std::time::Duration::from_secs(10);

/// What an editor's session is opened with.
pub(crate) struct Opening {
    /// The working folder the editor names (absolute).
    pub(crate) cwd: PathBuf,
    /// The editor's MCP servers for this session, beside the user's own.
    pub(crate) mcp_servers: Vec<ServerConfig>,
    /// The stored session to go on with (`session/load`), by id.
    pub(crate) load: Option<String>,
    /// Where the session's events go.
    pub(crate) output: Arc<dyn Output>,
    /// Who the session's questions go to.
    pub(crate) approver: Arc<dyn Approver>,
}

/// Builds the agent of a session from configuration (`app/acp.rs`).
pub(crate) trait Sessions: Send + Sync + 'static {
    /// The agent of a new or loaded session, its stored session attached; the error is said to
    /// the editor.
    fn open(&self, opening: Opening) -> BoxFuture<'_, Result<Agent, String>>;
}

/// One session of the editor's.
struct Slot {
    agent: tokio::sync::Mutex<Agent>,
    /// Ends the running turn, as Ctrl-C does in the chat.
    cancel: Mutex<Option<oneshot::Sender<()>>>,
    /// Where its events become updates (open tool calls are closed after a turn).
    editor: Arc<updates::Editor>,
}

/// Everything the server shares between its handlers.
struct Server {
    sessions: Arc<dyn Sessions>,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    /// What the client said it can do (`initialize`).
    client: Mutex<Option<agent_client_protocol::v1::schema::ClientCapabilities>>,
    /// Tasks running a prompt, a new or a loaded session: waited for when the editor goes away.
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Server {
    /// The open session `id`, if there is one.
    fn slot(&self, id: &SessionId) -> Option<Arc<Slot>> {
        lock(&self.slots).get(id.0.as_ref()).cloned()
    }

    /// Keep `task` to wait for when the editor goes away (finished ones are let go).
    fn track(&self, task: tokio::task::JoinHandle<()>) {
        let mut tasks = lock(&self.tasks);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }
}

/// `m` locked; a panic elsewhere while it was held does not lose what it holds.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Serve the protocol on stdin and stdout until the editor closes stdin; then every running turn
/// is cancelled (its commands' process trees killed) before this returns.
pub(crate) async fn serve(sessions: Arc<dyn Sessions>) -> Result<(), RpcError> {
    let server = Arc::new(Server {
        sessions,
        slots: Mutex::default(),
        client: Mutex::default(),
        tasks: Mutex::default(),
    });
    let (s1, s2, s3, s4, s5) = (
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
    );
    let served = agent_client_protocol::Agent
        .v1()
        .name("agent")
        .on_receive_request(
            async move |request: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                *lock(&s1.client) = Some(request.client_capabilities.clone());
                responder.respond(initialized(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder: Responder<NewSessionResponse>, cx| {
                let opening = (request.cwd, request.mcp_servers, None);
                open_later(&s2, opening, cx, Reply::New(responder));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder: Responder<LoadSessionResponse>, cx| {
                let opening = (request.cwd, request.mcp_servers, Some(request.session_id.0.to_string()));
                open_later(&s3, opening, cx, Reply::Load(responder));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder: Responder<PromptResponse>, cx| {
                prompt(&s4, request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                cancel(&s5, &notification.session_id);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await;
    wind_down(&server).await;
    served
}

/// The answer to `initialize`: protocol version 1 (or the client's, if older), and what this agent
/// does, honestly. Sessions load; prompts are text
/// (and links to resources, which every agent takes); the editor's MCP servers may be stdio or
/// HTTP, not SSE.
fn initialized(request: &InitializeRequest) -> InitializeResponse {
    InitializeResponse::new(request.protocol_version.min(ProtocolVersion::V1))
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new())
                .mcp_capabilities(McpCapabilities::new().http(true)),
        )
        .agent_info(Implementation::new("agent", env!("CARGO_PKG_VERSION")).title("agent"))
}

/// The response a session being opened owes.
enum Reply {
    New(Responder<NewSessionResponse>),
    Load(Responder<LoadSessionResponse>),
}

/// Open a session on a task of its own (skills are found, servers configured, a stored session
/// read and replayed), answering `reply` when done; the dispatch loop goes on meanwhile.
fn open_later(
    server: &Arc<Server>,
    (cwd, mcp, load): (
        PathBuf,
        Vec<agent_client_protocol::v1::schema::McpServer>,
        Option<String>,
    ),
    cx: ConnectionTo<Client>,
    reply: Reply,
) {
    let server_for_task = server.clone();
    let task = tokio::spawn(async move {
        let server = server_for_task;
        let answer = open(&server, cwd, mcp, load.clone(), &cx).await;
        let sent = match (answer, reply) {
            (Ok(id), Reply::New(responder)) => responder.respond(NewSessionResponse::new(id)),
            (Ok(_), Reply::Load(responder)) => responder.respond(LoadSessionResponse::new()),
            (Err(e), Reply::New(responder)) => responder.respond_with_error(e),
            (Err(e), Reply::Load(responder)) => responder.respond_with_error(e),
        };
        if let Err(e) = sent {
            tracing::debug!("session answer not sent: {e}");
        }
    });
    server.track(task);
}

/// An error the editor is told in the response: `invalid_params` with our words as its message.
fn refused(message: impl Into<String>) -> RpcError {
    RpcError::new(RpcError::invalid_params().code, message.into())
}

/// Open (or, for `session/load` of a session open here already, find) a session and answer with
/// its id; a loaded session's conversation is replayed first, as `session/update`s.
async fn open(
    server: &Arc<Server>,
    cwd: PathBuf,
    mcp: Vec<agent_client_protocol::v1::schema::McpServer>,
    load: Option<String>,
    cx: &ConnectionTo<Client>,
) -> Result<SessionId, RpcError> {
    if !cwd.is_absolute() {
        return Err(refused(format!("cwd must be an absolute path: {}", cwd.display())));
    }
    let open_already = load.as_ref().and_then(|id| lock(&server.slots).get(id).cloned());
    if let (Some(id), Some(slot)) = (&load, open_already) {
        let agent = slot.agent.lock().await;
        updates::replay(cx, &SessionId::new(id.as_str()), &agent.history());
        return Ok(SessionId::new(id.as_str()));
    }
    let mcp_servers = mcp_servers::configured(&mcp).map_err(refused)?;
    let editor = Arc::new(updates::Editor::new(cx.clone()));
    let reads_files = lock(&server.client).as_ref().is_some_and(|c| c.fs.read_text_file);
    let approver = Arc::new(permission::EditorApprover::new(editor.clone(), reads_files));
    let opening = Opening {
        cwd,
        mcp_servers,
        load: load.clone(),
        output: editor.clone(),
        approver,
    };
    let agent = server.sessions.open(opening).await.map_err(refused)?;
    let id = load
        .or_else(|| agent.session_id())
        .unwrap_or_else(|| format!("unstored-{:016x}", fastrand::u64(..)));
    let session = SessionId::new(id.as_str());
    editor.started(session.clone());
    if lock(&server.slots).contains_key(&id) {
        return Err(refused(format!("session {id} is open already")));
    }
    updates::replay(cx, &session, &agent.history());
    let slot = Arc::new(Slot {
        agent: tokio::sync::Mutex::new(agent),
        cancel: Mutex::default(),
        editor,
    });
    lock(&server.slots).insert(id, slot);
    Ok(session)
}

/// `session/prompt`: the turn runs on a task of its own and answers with its stop reason.
fn prompt(
    server: &Arc<Server>,
    request: PromptRequest,
    responder: Responder<PromptResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), RpcError> {
    let Some(slot) = server.slot(&request.session_id) else {
        return responder.respond_with_error(refused(format!("no session {} here", request.session_id.0)));
    };
    let text = prompt_text(&request.prompt);
    let task = tokio::spawn(async move {
        let answer = turn(&slot, &text).await;
        let sent = match answer {
            Ok(stop) => responder.respond(PromptResponse::new(stop)),
            Err(e) => responder.respond_with_error(e),
        };
        if let Err(e) = sent {
            tracing::debug!("prompt answer not sent: {e}");
        }
    });
    server.track(task);
    Ok(())
}

/// One turn of a session, ended early by `session/cancel`; its stop reason, or the error the
/// editor is told (the model could not be reached).
async fn turn(slot: &Slot, text: &str) -> Result<StopReason, RpcError> {
    let mut agent = slot.agent.lock().await;
    let (cancel, cancelled) = oneshot::channel();
    *lock(&slot.cancel) = Some(cancel);
    // Dropping the turn drops any running command, whose guard kills its process tree: the
    // chat's Ctrl-C.
    let outcome = tokio::select! {
        r = agent.run_turn(text) => Some(r),
        _ = cancelled => None,
    };
    lock(&slot.cancel).take();
    let answer = match outcome {
        None => {
            agent.interrupted();
            slot.editor.close_open("cancelled");
            return Ok(StopReason::Cancelled);
        }
        Some(Ok(_)) => Ok(StopReason::EndTurn),
        Some(Err(TurnError::StepLimit { .. })) => Ok(StopReason::MaxTurnRequests),
        Some(Err(TurnError::PromptBlocked { .. })) => Ok(StopReason::Refusal),
        Some(Err(e @ TurnError::Llm(_))) => Err(RpcError::new(RpcError::internal_error().code, e.to_string())),
    };
    if !matches!(answer, Ok(StopReason::EndTurn)) {
        agent.close_open_tool_calls("the turn ended with an error");
    }
    slot.editor.close_open("the turn ended before it finished");
    answer
}

/// The text of a prompt: its text blocks, and the resources it links to (by their URI, which the
/// model may read with the file tools), in order.
fn prompt_text(blocks: &[ContentBlock]) -> String {
    let parts: Vec<String> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            ContentBlock::ResourceLink(link) => Some(format!("[{}]({})", link.name, link.uri)),
            _ => None,
        })
        .collect();
    parts.join("\n")
}

/// `session/cancel`: the running turn of that session, if any, ends as Ctrl-C ends it.
fn cancel(server: &Server, id: &SessionId) {
    let Some(slot) = server.slot(id) else {
        tracing::debug!("cancel for an unknown session {}", id.0);
        return;
    };
    if let Some(cancel) = lock(&slot.cancel).take() {
        let _ = cancel.send(());
    }
}

/// The editor went away: cancel every running turn and wait (a while) for them to end, so no
/// command outlives the connection; then the sessions (and their MCP servers) are let go.
async fn wind_down(server: &Server) {
    let slots: Vec<Arc<Slot>> = lock(&server.slots).drain().map(|(_, s)| s).collect();
    for slot in &slots {
        if let Some(cancel) = lock(&slot.cancel).take() {
            let _ = cancel.send(());
        }
    }
    let tasks: Vec<_> = lock(&server.tasks).drain(..).collect();
    if tokio::time::timeout(WIND_DOWN, futures::future::join_all(tasks))
        .await
        .is_err()
    {
        tracing::warn!(
            "turns still running {} s after the editor went away",
            WIND_DOWN.as_secs()
        );
    }
    // The user's SessionEnd hooks, as when a chat ends.
    let ended = futures::future::join_all(slots.iter().map(|slot| async move {
        slot.agent.lock().await.session_end_hooks("other").await;
    }));
    if tokio::time::timeout(WIND_DOWN, ended).await.is_err() {
        tracing::warn!(
            "SessionEnd hooks still running {} s after the editor went away",
            WIND_DOWN.as_secs()
        );
    }
}

/// A text chunk of a session update.
pub(crate) fn text_chunk(text: impl Into<String>) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text.into())))
}

/// Send `update` to the editor for `session`; a connection that is gone is only logged.
pub(crate) fn notify(cx: &ConnectionTo<Client>, session: &SessionId, update: SessionUpdate) {
    if let Err(e) = cx.send_notification(SessionNotification::new(session.clone(), update)) {
        tracing::debug!("session update not sent: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::ResourceLink;

    #[test]
    fn a_prompt_is_its_text_and_its_links_in_order() {
        let blocks = [
            ContentBlock::Text(TextContent::new("look at")),
            ContentBlock::ResourceLink(ResourceLink::new("notes.md", "file:///w/notes.md")),
            ContentBlock::Text(TextContent::new("and say why")),
        ];
        assert_eq!(
            prompt_text(&blocks),
            "look at\n[notes.md](file:///w/notes.md)\nand say why"
        );
    }

    #[test]
    fn initialize_answers_version_1_and_what_is_there() {
        let request = InitializeRequest::new(ProtocolVersion::V1);
        let answer = serde_json::to_value(initialized(&request)).unwrap();
        let caps = &answer["agentCapabilities"];
        assert_eq!(answer["protocolVersion"], 1);
        assert_eq!(caps["loadSession"], true);
        assert_eq!(caps["mcpCapabilities"], serde_json::json!({"http": true, "sse": false}));
        assert_eq!(caps["promptCapabilities"]["image"], false);
        assert_eq!(caps["promptCapabilities"]["embeddedContext"], false);
    }
}
