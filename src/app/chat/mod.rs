//! The interactive chat: a conversation over many turns, slash commands, history, and Ctrl-C
//! that cancels a turn without losing the session.

mod commands;
mod sessions;

use super::once::{finish, turn_failure};
use super::{Run, session};
use crate::agent::Agent;
use crate::exit::{AppError, ExitCode};
use crate::output::{ChatReply, Event, Report};
use crate::support::public_url::without_credentials;
use std::time::SystemTime;

use crate::skills::discover::{Discovery, discover_with};
use crate::skills::watch::{Changes, Mode, SkillWatch};
use crate::skills::{Diagnostic, SkillSet};
use crate::ui::line_editor::{Input, LineEditor, SlashSkill, history_path, message_of};
use commands::Flow;

const PROMPT: &str = "› ";

/// A chat in progress: the agent, the run it belongs to, and the terminal it reads from.
pub(super) struct Chat<'a> {
    agent: Agent,
    run: Run<'a>,
    /// Findings of the last scan that belong to no skill (shadowed names, unreadable roots).
    warnings: Vec<Diagnostic>,
    editor: LineEditor,
    /// What tells the chat that skills changed on disk.
    watch: SkillWatch,
    /// When the last scan ran: after a `/reload` with nothing known of what changed, the
    /// skills whose files are newer have their instructions sent again.
    scanned_at: SystemTime,
    /// Scans since the chat started, for the debug log.
    rescans: usize,
}

impl Chat<'_> {
    /// Show a command's answer.
    fn say(&self, reply: ChatReply) {
        self.run.front.output.report(Report::Chat(reply));
    }

    /// Scan the skill folders again: the new skills replace the old ones, instructions of edited
    /// skills are sent again when activated, and Tab completion follows. `changes` is what the
    /// watch saw; the catalog cache re-reads only folders whose stamps changed. Returns how many
    /// skills.
    fn rescan(&mut self, changes: &Changes) -> usize {
        // Watched again before the scan reads: a change made while it reads is marked for the
        // next turn rather than lost.
        self.watch.follow(changes);
        let started = SystemTime::now();
        let mut found = discover_with(&self.run.config.skill_roots, &self.run.config.routing_scan());
        crate::skills::paths::mark_unmatched(&mut found.skills, &self.run.config.sandbox.cwd);
        crate::app::once::report_discovery(&found, &*self.run.front.output, crate::app::once::Detail::News);
        let edited: Vec<String> = found
            .skills
            .iter()
            .filter(|s| {
                changes.folders.contains(&s.dir)
                    || (changes.folders.is_empty() && modified(&s.skill_file).is_none_or(|t| t >= self.scanned_at))
            })
            .map(|s| s.name.clone())
            .collect();
        self.scanned_at = started;
        self.warnings = found.warnings;
        let count = found.skills.len();
        self.agent
            .set_skills(SkillSet::with_cache(found.skills, self.run.config.cache.clone()));
        self.agent.forget_skills(&edited);
        self.set_completions();
        self.rescans += 1;
        tracing::debug!(rescans = self.rescans, "skills scanned again");
        count
    }

    /// `/reload`: scan again, whatever the watch saw.
    fn reload(&mut self) -> usize {
        let changes = self.watch.changes().unwrap_or_default();
        self.rescan(&changes)
    }

    /// At the start of a turn: when the watch saw a skill edited, added or removed on disk since
    /// the last scan, scan again and say so.
    fn rescan_if_changed(&mut self) {
        let Some(changes) = self.watch.changes() else {
            return;
        };
        let skills = self.rescan(&changes);
        self.say(ChatReply::Reloaded { skills });
    }

    /// Skill names for Tab completion after `/skill `, and the skills completed as `/NAME` (with
    /// their argument hints) at the start of a line.
    fn set_completions(&self) {
        let offered = commands::skill_commands(self.agent.skills());
        self.editor.set_skills(offered.iter().map(|s| s.name.clone()).collect());
        let slash = offered
            .into_iter()
            .filter(|s| !commands::is_builtin(&s.name))
            .map(|s| SlashSkill {
                name: s.name,
                hint: s.hint,
            })
            .collect();
        self.editor.set_slash_skills(slash);
    }
}

/// Run the chat until `/exit`, `/quit` or Ctrl-D.
pub(super) async fn run(run: Run<'_>, discovery: Discovery) -> Result<ExitCode, AppError> {
    // As soon after the scan as can be: a change between the two is not seen until the next one.
    let mode =
        Mode::parse(run.config.env.get("AGENT_WATCH")).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    let watch = SkillWatch::start(mode, root_paths(&run));
    let warnings = discovery.warnings.clone();
    let (mut agent, resumed) = session::started_agent(&run, discovery)?;
    agent
        .session_start_hooks(if resumed.is_some() { "resume" } else { "startup" })
        .await;
    // While the user types the first message, not after.
    agent.prefetch_rankings();
    let vi = run
        .config
        .env
        .get("AGENT_EDIT_MODE")
        .is_some_and(|m| m.eq_ignore_ascii_case("vi"));
    let editor = LineEditor::new(vi, history_path(), commands::names())
        .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    let mut chat = Chat {
        agent,
        run,
        warnings,
        editor,
        watch,
        scanned_at: SystemTime::now(),
        rescans: 0,
    };
    chat.set_completions();
    chat.say(ChatReply::ChatStarted {
        version: env!("CARGO_PKG_VERSION"),
        model: chat.agent.model().to_string(),
        base_url: without_credentials(&chat.run.config.base_url),
        skills: chat.agent.skills().all().len(),
        session_id: chat.agent.session_id(),
    });
    if let Some(resumed) = resumed {
        chat.say(ChatReply::Resumed(resumed));
    }
    loop {
        let input = match chat
            .editor
            .read(PROMPT)
            .await
            .map_err(|e| AppError::from_source(ExitCode::Internal, e))?
        {
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
        chat.rescan_if_changed();
        let text = match message.strip_prefix('/') {
            Some(command) => match commands::dispatch(&mut chat, command) {
                Flow::Done => continue,
                Flow::Exit => break,
                Flow::Later(command) => match sessions::run_deferred(&mut chat, command).await {
                    Some(text) => text,
                    None => continue,
                },
            },
            None => message,
        };
        turn(&mut chat, &text).await;
    }
    chat.agent.session_end_hooks("prompt_input_exit").await;
    Ok(finish(&chat.agent, &*chat.run.front.output, ExitCode::Answered))
}

/// The folders of every skill root, for the watch.
fn root_paths(run: &Run<'_>) -> Vec<std::path::PathBuf> {
    run.config.skill_roots.iter().map(|r| r.path.clone()).collect()
}

/// When a file was last modified, if that can be told.
fn modified(path: &std::path::Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
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
