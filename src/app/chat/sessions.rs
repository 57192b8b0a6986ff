//! The chat's session commands: `/sessions`, `/resume ID`, `/fork`, `/export [FILE]`,
//! `/usage`, and the two that ask the model or the server, `/context` and `/compact [FOCUS]`.

use std::path::PathBuf;

use super::Chat;
use super::commands::{Flow, refuse};
use crate::app::session::{app_error, list, new_session, store, take_up, write_file};
use crate::app::session_commands::{default_export_path, format_name};
use crate::output::ChatReply;
use crate::output::session::{CompactReport, SessionExported, UsageReport};
use crate::sessions::export::{Format, render};
use crate::sessions::{Journal, SessionError, SessionId, SessionStore};

/// Sessions `/sessions` lists.
const LIST_LIMIT: usize = 10;

/// A command that awaits the model or the server, run by the chat loop.
pub(in crate::app) enum Deferred {
    Usage,
    Context,
    Compact(Option<String>),
    Mcp,
    /// `/NAME ARGS`, `/skill NAME ARGS`: `send` the request that follows from it.
    Invoke {
        name: String,
        args: String,
        send: bool,
    },
}

/// The session store, or a refusal naming `command`.
fn store_or_refuse(chat: &Chat<'_>, command: &str) -> Option<SessionStore> {
    let found = store();
    if found.is_none() {
        refuse(
            chat,
            command,
            "there is no home folder to store sessions in: set HOME (or XDG_STATE_HOME)",
        );
    }
    found
}

/// `/sessions`: the recent stored sessions.
pub(super) fn sessions(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let Some(store) = store_or_refuse(chat, "sessions") else {
        return Flow::Done;
    };
    match list(&store, LIST_LIMIT) {
        Ok(list) => chat.say(ChatReply::Sessions(list)),
        Err(e) => return refuse(chat, "sessions", &e.message),
    }
    Flow::Done
}

/// `/resume ID`: go on with another stored session instead of this one.
pub(super) fn resume(chat: &mut Chat<'_>, arg: &str) -> Flow {
    if arg.is_empty() {
        return refuse(
            chat,
            "resume",
            "usage: /resume ID (a prefix is enough; /sessions lists them)",
        );
    }
    let Some(store) = store_or_refuse(chat, "resume") else {
        return Flow::Done;
    };
    let id = match store.find(arg) {
        Ok(id) => id,
        Err(e) => return refuse(chat, "resume", &e.to_string()),
    };
    if chat.agent.session_id().as_deref() == Some(id.as_str()) {
        return refuse(chat, "resume", &format!("session {id} is the one this chat is in"));
    }
    let loaded = if chat.run.config.sessions.store {
        let start = new_session(&chat.run, chat.agent.model());
        match store.open(&id, start, chat.run.redactor.clone()) {
            Ok(opened) => {
                chat.agent.set_journal(Journal::new(opened.writer));
                opened.loaded
            }
            Err(e) => return refuse(chat, "resume", &e.to_string()),
        }
    } else {
        match store.load(&id) {
            Ok(loaded) => loaded,
            Err(e) => return refuse(chat, "resume", &e.to_string()),
        }
    };
    let resumed = take_up(&mut chat.agent, &loaded, false);
    chat.say(ChatReply::Resumed(resumed));
    Flow::Done
}

/// The session this chat stores, or a refusal naming `command`.
fn current(chat: &Chat<'_>, command: &str) -> Option<(SessionStore, SessionId)> {
    let store = store_or_refuse(chat, command)?;
    let id = chat.agent.session_id().and_then(|id| SessionId::parse(&id));
    match id {
        Some(id) => Some((store, id)),
        None => {
            refuse(
                chat,
                command,
                "this chat is not stored as a session (AGENT_SESSIONS=0, --no-session, --replay, or the folder \
                 could not be written)",
            );
            None
        }
    }
}

/// `/fork`: go on in a new session that starts as a copy of this one.
pub(super) fn fork(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let Some((store, parent)) = current(chat, "fork") else {
        return Flow::Done;
    };
    let forked = store.load(&parent).and_then(|loaded| {
        store.fork(
            &loaded,
            new_session(&chat.run, chat.agent.model()),
            chat.run.redactor.clone(),
        )
    });
    match forked {
        Ok(writer) => {
            let session_id = writer.id().to_string();
            chat.agent.set_journal(Journal::new(writer));
            chat.say(ChatReply::Forked {
                session_id,
                parent: parent.to_string(),
            });
            Flow::Done
        }
        Err(e) => refuse(chat, "fork", &e.to_string()),
    }
}

/// `/export [FILE]`: write this session (format by FILE's extension, Markdown by default).
pub(super) fn export(chat: &mut Chat<'_>, arg: &str) -> Flow {
    let Some((store, id)) = current(chat, "export") else {
        return Flow::Done;
    };
    let path = if arg.is_empty() {
        match default_export_path(&store, id.as_str()) {
            Ok(path) => path,
            Err(e) => return refuse(chat, "export", &e.message),
        }
    } else {
        PathBuf::from(arg)
    };
    let format = Format::from_path(&path).unwrap_or(Format::Markdown);
    let written = store
        .load(&id)
        .map_err(|e: SessionError| app_error(e).message)
        .and_then(|loaded| write_file(&path, &render(&loaded, format)).map_err(|e| e.message));
    match written {
        Ok(()) => chat.say(ChatReply::Exported(SessionExported {
            id: id.to_string(),
            format: format_name(format),
            path,
        })),
        Err(message) => return refuse(chat, "export", &message),
    }
    Flow::Done
}

/// `/usage`: tokens per turn and for the session, and the context in use (asks for the window).
pub(super) fn usage(_chat: &mut Chat<'_>, _arg: &str) -> Flow {
    Flow::Later(Deferred::Usage)
}

/// `/context`: what the next request would hold (asks for the window).
pub(super) fn context(_chat: &mut Chat<'_>, _arg: &str) -> Flow {
    Flow::Later(Deferred::Context)
}

/// `/compact [FOCUS]`: replace the history by a summary (asks the model).
pub(super) fn compact(_chat: &mut Chat<'_>, arg: &str) -> Flow {
    Flow::Later(Deferred::Compact(Some(arg.to_string()).filter(|a| !a.is_empty())))
}

/// Run a command that awaits the model, the server or a skill's commands; the message to send,
/// when the command leads to one.
pub(super) async fn run_deferred(chat: &mut Chat<'_>, command: Deferred) -> Option<String> {
    match command {
        Deferred::Invoke { name, args, send } => {
            return super::commands::invoke_now(chat, &name, &args, send).await;
        }
        Deferred::Usage => {
            let context = chat.agent.context().await;
            chat.say(ChatReply::Usage(UsageReport {
                turns: chat.agent.turn_usage().to_vec(),
                totals: chat.agent.session_totals(),
                context_tokens: context.tokens,
                window: context.window,
            }));
        }
        Deferred::Mcp => {
            chat.run.front.output.waiting("asking the MCP servers");
            let list = crate::app::mcp::list(&chat.run).await;
            chat.say(ChatReply::Mcp(list));
        }
        Deferred::Context => {
            let context = chat.agent.context().await;
            chat.say(ChatReply::Context(context));
        }
        Deferred::Compact(focus) => {
            chat.run.front.output.waiting("compacting");
            match chat.agent.compact(focus.as_deref(), false).await {
                Ok(done) => chat.say(ChatReply::Compacted(CompactReport {
                    replaced: done.replaced,
                    tokens_before: done.tokens_before,
                    tokens_after: done.tokens_after,
                    skills: done.skills,
                })),
                Err(e) => {
                    refuse(
                        chat,
                        "compact",
                        &format!("could not compact ({e}); the conversation goes on as it was"),
                    );
                }
            }
        }
    }
    None
}
