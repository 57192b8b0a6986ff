//! The interactive chat: a conversation over many turns, slash commands, history, and Ctrl-C
//! that cancels a turn without losing the session.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Frontend, build_agent, finish, report_discovery, turn_failure};
use crate::agent::{Agent, Event};
use crate::cli::Cli;
use crate::config::Config;
use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::FolderTrust;
use crate::exit::{AppError, ExitCode};
use crate::skills::SkillSet;
use crate::skills::discover::{Discovery, discover};
use crate::support::terminal_text::{for_terminal, visible};
use crate::ui::line_editor::{COMMANDS, Input, LineEditor, history_path, message_of};

const PROMPT: &str = "› ";

/// Run the chat until `/exit`, `/quit` or Ctrl-D.
pub async fn run(
    cli: &Cli,
    config: Config,
    discovery: Discovery,
    trust: Arc<FolderTrust>,
    front: &Frontend,
) -> Result<ExitCode, AppError> {
    let mut warnings = discovery.warnings.clone();
    let mut agent = build_agent(cli, &config, discovery, trust, front)?;
    let vi = config
        .env
        .get("AGENT_EDIT_MODE")
        .is_some_and(|m| m.eq_ignore_ascii_case("vi"));
    let editor = LineEditor::new(vi, history_path()).map_err(AppError::config)?;
    set_completions(&editor, agent.skills());
    eprintln!(
        "agent {} · {} at {} · {} skills · /help for commands, Ctrl-D to leave",
        env!("CARGO_PKG_VERSION"),
        visible(agent.model()),
        visible(&config.base_url),
        agent.skills().all().len()
    );
    let sink = &*front.sink;
    loop {
        let input = match editor.read(PROMPT).await.map_err(AppError::internal)? {
            Input::Line(line) => line,
            Input::Cleared => continue,
            Input::End => return Ok(finish(&agent, sink, ExitCode::Answered)),
        };
        let message = message_of(&input);
        if message.is_empty() {
            continue;
        }
        // Secrets typed at the prompt never reach the history file.
        editor.remember(&agent.redactor().redact(&input));
        let text = if let Some(command) = message.strip_prefix('/') {
            match slash(command, &mut agent, &config, &mut warnings, &editor) {
                Slash::Done => continue,
                Slash::Exit => return Ok(finish(&agent, sink, ExitCode::Answered)),
                Slash::Send(text) => text,
            }
        } else {
            message
        };
        turn(&mut agent, &text, front).await;
    }
}

/// One turn; Ctrl-C drops it (the HTTP stream and any running command with it).
async fn turn(agent: &mut Agent, text: &str, front: &Frontend) {
    let _quiet = crate::ui::tty::QuietInterrupts::new();
    front.wait("thinking");
    let outcome = tokio::select! {
        r = agent.run_turn(text) => Some(r),
        _ = tokio::signal::ctrl_c() => None,
    };
    match outcome {
        Some(Ok(_)) => {}
        Some(Err(e)) => {
            turn_failure(&e, &*front.sink);
            agent.close_open_tool_calls("the turn ended with an error");
        }
        None => {
            agent.interrupted();
            front.sink.emit(Event::Warning {
                message: "interrupted; the conversation goes on".into(),
            });
        }
    }
}

enum Slash {
    Done,
    Exit,
    /// Send this text as a message.
    Send(String),
}

fn set_completions(editor: &LineEditor, skills: &SkillSet) {
    let names = skills.names().into_iter().map(str::to_string).collect();
    *editor.skills.lock().unwrap_or_else(|p| p.into_inner()) = names;
}

fn slash(
    command: &str,
    agent: &mut Agent,
    config: &Config,
    warnings: &mut Vec<crate::skills::Diagnostic>,
    editor: &LineEditor,
) -> Slash {
    let (name, arg) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
    let arg = arg.trim();
    match name {
        "help" => {
            for (cmd, help) in COMMANDS {
                eprintln!("  {cmd:<10} {help}");
            }
            eprintln!(
                "  Multi-line: end a line with \\ to continue, or wrap text in \"\"\" … \"\"\"; pastes arrive whole."
            );
            eprintln!("  Ctrl-C cancels a running turn or clears the line; Ctrl-D leaves.");
        }
        "skills" => show_skills(agent.skills(), agent.folder_trust(), warnings),
        "skill" => {
            let (skill, message) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
            if skill.is_empty() {
                eprintln!("usage: /skill NAME [message]");
                return Slash::Done;
            }
            match agent.activate_by_hand(skill) {
                Ok(dir) => eprintln!("▸ skill {} ({}) activated", visible(skill), visible(&dir)),
                Err(e) => {
                    eprintln!("{}", visible(e.trim_start_matches("error: ")));
                    return Slash::Done;
                }
            }
            if !message.trim().is_empty() {
                return Slash::Send(message.trim().to_string());
            }
        }
        "reset" => {
            agent.reset();
            eprintln!("conversation cleared");
        }
        "model" if arg.is_empty() => eprintln!("model: {}", visible(agent.model())),
        "model" => {
            agent.set_model(arg);
            eprintln!("model is now {}", visible(arg));
        }
        "approve" if arg.is_empty() => eprintln!("approval policy: {}", agent.approval().as_str()),
        "approve" => match ApprovalPolicy::parse(arg) {
            Some(policy) => {
                agent.set_approval(policy);
                eprintln!("approval policy is now {}", policy.as_str());
            }
            None => eprintln!("unknown policy {arg:?}: use ask, auto, yes or no"),
        },
        "history" => {
            let turns = agent.user_turns();
            if turns.is_empty() {
                eprintln!("no messages yet");
            }
            for (i, t) in turns.iter().enumerate() {
                eprintln!("{}", numbered(i + 1, &agent.redactor().redact(t)));
            }
        }
        "reload" => {
            let found = discover(&config.skill_roots);
            report_discovery(&found, &*agent.sink(), false);
            *warnings = found.warnings;
            let count = found.skills.len();
            agent.set_skills(SkillSet::new(found.skills));
            set_completions(editor, agent.skills());
            eprintln!("{count} skills loaded");
        }
        "exit" | "quit" => return Slash::Exit,
        other => {
            let guess = COMMANDS.iter().map(|(c, _)| *c).find(|c| {
                let c = &c[1..];
                c.starts_with(other.get(..2).unwrap_or(other)) || other.starts_with(c)
            });
            match guess {
                Some(g) => eprintln!("unknown command /{other}; did you mean {g}? /help lists them"),
                None => eprintln!("unknown command /{other}; /help lists them"),
            }
        }
    }
    Slash::Done
}

fn show_skills(skills: &SkillSet, trust: &FolderTrust, warnings: &[crate::skills::Diagnostic]) {
    if skills.is_empty() {
        eprintln!("no skills found; see the README, \"Where skills come from\"");
    }
    let width = crate::ui::skill_list::terminal_width(&console::Term::stderr());
    if !skills.is_empty() {
        for line in crate::ui::skill_list::table_lines(skills.all(), trust, width) {
            eprintln!("  {line}");
        }
    }
    let shadowed: HashSet<String> = warnings
        .iter()
        .filter(|w| w.message.contains("is shadowed"))
        .map(|w| w.to_string())
        .collect();
    for w in shadowed {
        eprintln!("  shadowed: {}", visible(&w));
    }
}

/// A message as `/history` shows it: numbered, every line of it, continuation lines indented
/// under the first, control characters shown escaped.
fn numbered(n: usize, message: &str) -> String {
    let text = for_terminal(message);
    let mut lines = text.lines();
    let mut out = format!("{n:>3}. {}", lines.next().unwrap_or_default());
    for line in lines {
        out.push_str("\n     ");
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_shows_whole_messages() {
        assert_eq!(numbered(1, "one line"), "  1. one line");
        assert_eq!(
            numbered(12, "first\nsecond\n\x1b[2Jthird"),
            " 12. first\n     second\n     \\x1b[2Jthird"
        );
    }
}
