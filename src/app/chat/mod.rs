//! The interactive chat: a conversation over many turns, slash commands, history, and Ctrl-C
//! that cancels a turn without losing the session.

mod commands;

use super::once::{finish, turn_failure};
use super::{Run, build};
use crate::agent::Agent;
use crate::exit::{AppError, ExitCode};
use crate::output::{ChatReply, Event, Report};
use crate::skills::Diagnostic;
use crate::skills::discover::Discovery;
use crate::ui::line_editor::{Input, LineEditor, history_path, message_of};
use commands::Flow;

const PROMPT: &str = "› ";

/// A chat in progress: the agent, the run it belongs to, and the terminal it reads from.
pub(super) struct Chat<'a> {
    agent: Agent,
    run: Run<'a>,
    /// Findings of the last scan that belong to no skill (shadowed names, unreadable roots).
    warnings: Vec<Diagnostic>,
    editor: LineEditor,
}

impl Chat<'_> {
    /// Show a command's answer.
    fn say(&self, reply: ChatReply) {
        self.run.front.output.report(Report::Chat(reply));
    }

    /// Skill names for Tab completion after `/skill `.
    fn set_completions(&self) {
        let names = self.agent.skills().names().into_iter().map(str::to_string).collect();
        self.editor.set_skills(names);
    }
}

/// Run the chat until `/exit`, `/quit` or Ctrl-D.
pub(super) async fn run(run: Run<'_>, discovery: Discovery) -> Result<ExitCode, AppError> {
    let warnings = discovery.warnings.clone();
    let approver = run.front.approver(run.config.interactive);
    let agent = build::agent(&run, discovery, run.front.output.clone(), approver)?;
    // While the user types the first message, not after.
    agent.prefetch_rankings();
    let vi = run
        .config
        .env
        .get("AGENT_EDIT_MODE")
        .is_some_and(|m| m.eq_ignore_ascii_case("vi"));
    let editor = LineEditor::new(vi, history_path(), commands::names()).map_err(AppError::config)?;
    let mut chat = Chat {
        agent,
        run,
        warnings,
        editor,
    };
    chat.set_completions();
    chat.say(ChatReply::ChatStarted {
        version: env!("CARGO_PKG_VERSION"),
        model: chat.agent.model().to_string(),
        base_url: chat.run.config.base_url.clone(),
        skills: chat.agent.skills().all().len(),
    });
    loop {
        let input = match chat.editor.read(PROMPT).await.map_err(AppError::internal)? {
            Input::Line(line) => line,
            Input::Cleared => continue,
            Input::End => break,
        };
        let message = message_of(&input);
        if message.is_empty() {
            continue;
        }
        // Secrets typed at the prompt never reach the history file.
        chat.editor.remember(&chat.run.redactor.redact(&input));
        let text = match message.strip_prefix('/') {
            Some(command) => match commands::dispatch(&mut chat, command) {
                Flow::Done => continue,
                Flow::Exit => break,
                Flow::Send(text) => text,
            },
            None => message,
        };
        turn(&mut chat, &text).await;
    }
    Ok(finish(&chat.agent, &*chat.run.front.output, ExitCode::Answered))
}

/// One turn; Ctrl-C drops it (the HTTP stream and any running command with it).
async fn turn(chat: &mut Chat<'_>, text: &str) {
    let _quiet = crate::ui::tty::QuietInterrupts::new();
    let output = chat.run.front.output.clone();
    output.waiting("thinking");
    let outcome = tokio::select! {
        r = chat.agent.run_turn(text) => Some(r),
        _ = tokio::signal::ctrl_c() => None,
    };
    match outcome {
        Some(Ok(_)) => {}
        Some(Err(e)) => {
            turn_failure(&e, &*output);
            chat.agent.close_open_tool_calls("the turn ended with an error");
        }
        None => {
            chat.agent.interrupted();
            output.emit(Event::Warning {
                message: "interrupted; the conversation goes on".into(),
            });
        }
    }
}
