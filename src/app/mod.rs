//! The application: builds the pieces from configuration and runs one command — chat, one-shot,
//! or a subcommand. `ui` renders and asks; `agent` runs turns; this layer decides what happens
//! and says so only through `output` (events and reports), never by printing.
//!
//! Where things go: a new subcommand is a `cli::Command` variant dispatched in `dispatch` (or
//! `skills::run` for `skills …`) to a function that returns its `Report`; a new chat command is
//! one entry of `chat::commands::COMMANDS`.

mod acp;
mod build;
mod chat;
mod completions;
mod endpoint;
mod folder_trust;
mod hooks;
mod install;
mod mcp;
mod notices;
mod once;
mod sandbox;
mod session;
mod session_commands;
mod skill_once;
mod skills;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::{Cli, Command, SkillsCommand};
use crate::config::Config;
use crate::exec::trust::FolderTrust;
use crate::exit::{AppError, ExitCode};
use crate::output::{Event, Report};
use crate::support::redact::Redactor;
use crate::ui::{Frontend, FrontendOptions};
use folder_trust::Ask;

/// What every command of a run shares once configuration is settled.
pub(crate) struct Run<'a> {
    pub(crate) cli: &'a Cli,
    pub(crate) config: Config,
    /// What this run may use of the working folder.
    pub(crate) trust: Arc<FolderTrust>,
    pub(crate) front: Frontend,
    /// The run's secret redaction, built once from the settled environment.
    pub(crate) redactor: Redactor,
    /// The search index being read on another thread while discovery runs (a one-shot or a
    /// chat over a big library ranks with it at once); the skill set takes it.
    pub(crate) index_preload: std::sync::Mutex<Option<crate::skills::catalog::IndexPreload>>,
    /// This run is the chat (not a one-shot): its session is marked so, and `-c` prefers one.
    pub(crate) chat: bool,
    /// The stored session to go on with that an editor names (`agent acp`'s `session/load`).
    pub(crate) resume: Option<crate::sessions::SessionId>,
    /// MCP servers an editor passes with its session (`agent acp`), beside the configured ones.
    pub(crate) editor_mcp: Vec<crate::mcp::ServerConfig>,
}

/// Run the program; returns the process exit code.
pub async fn run(cli: Cli) -> i32 {
    if let Some(code) = generated(&cli) {
        return code;
    }
    if matches!(cli.command, Some(Command::Acp { .. })) {
        // Its own front end (the protocol on stdout), and a folder per session of the editor's.
        return acp::run(cli).await;
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            let err = AppError::config(format!("cannot determine the working directory: {e}"));
            return report(&Frontend::new(document_only(&cli), Redactor::NONE), Err(err));
        }
    };
    if let Err(err) = session::check_continue(&cli) {
        let options = FrontendOptions {
            json: cli.json,
            ..FrontendOptions::default()
        };
        return report(&Frontend::new(options, Redactor::NONE), Err(err));
    }
    if let Some((dirs, moved, force)) = trust_request(&cli, &cwd) {
        let front = Frontend::new(document_only(&cli), Redactor::NONE);
        if moved {
            front.output.report(Report::Note(
                "`agent skills trust` moved to `agent trust [DIR]`, which trusts the whole folder: its .env and its skills"
                    .into(),
            ));
        }
        let asker = front.library_asker(crate::ui::tty::interactive());
        let result = folder_trust::trust_command(&dirs, &cwd, force, &asker).map(|trusted| {
            front.output.report(Report::Trusted(trusted));
            ExitCode::Answered
        });
        return report(&front, result);
    }
    let interactive = crate::ui::tty::interactive();
    let ask = ask_mode(&cli, interactive);
    let decided = folder_trust::decide(&cwd, ask);
    let redactor = decided
        .as_ref()
        .map(|s| Redactor::from_env(&s.env.merged()))
        .unwrap_or_default();
    // A subcommand's stdout is one JSON document with --json: its warnings go to stderr.
    let front = Frontend::new(
        FrontendOptions {
            json: cli.json,
            document: cli.command.is_some(),
            verbose: cli.verbose > 0,
        },
        redactor.clone(),
    );
    let result = match decided {
        Ok(decided) => {
            for message in decided.notes {
                front.output.emit(Event::Warning { message });
            }
            match Config::resolve(&cli, decided.env, &cwd, interactive) {
                Ok(config) => {
                    crate::support::phases::mark("config");
                    let run = Run {
                        cli: &cli,
                        config,
                        trust: decided.trust,
                        front: front.clone(),
                        redactor,
                        index_preload: std::sync::Mutex::default(),
                        chat: false,
                        resume: None,
                        editor_mcp: Vec::new(),
                    };
                    dispatch(run).await
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    };
    report(&front, result)
}

/// The front end's options for a command that prints one document (or only its error), before
/// configuration is read.
fn document_only(cli: &Cli) -> FrontendOptions {
    FrontendOptions {
        json: cli.json,
        document: true,
        verbose: false,
    }
}

/// `completions` and `man`: generated from the flag definitions alone, so no configuration can
/// break them. `None` for every other command.
fn generated(cli: &Cli) -> Option<i32> {
    let result = match &cli.command {
        Some(Command::Completions { shell }) => completions::completions(*shell),
        Some(Command::Man { dir }) => install::man(dir.as_deref()),
        _ => return None,
    };
    let front = Frontend::new(document_only(cli), Redactor::NONE);
    let result = result.map(|r| {
        front.output.report(r);
        ExitCode::Answered
    });
    Some(report(&front, result))
}

/// The exit code of a run, after showing its error if it failed.
fn report(front: &Frontend, result: Result<ExitCode, AppError>) -> i32 {
    match result {
        Ok(code) => code.code(),
        Err(err) => {
            front.output.emit(Event::Error {
                causes: err.causes(),
                message: err.message,
                code: err.code.code(),
            });
            err.code.code()
        }
    }
}

/// The folders `agent trust` (or the old `agent skills trust`, then `true`) names, and `--force`,
/// if that is this run.
fn trust_request(cli: &Cli, cwd: &Path) -> Option<(Vec<PathBuf>, bool, bool)> {
    match &cli.command {
        Some(Command::Trust {
            dir,
            skill: None,
            force,
        }) => Some((dir.iter().cloned().collect(), false, *force)),
        Some(Command::Skills {
            action: SkillsCommand::Trust { dirs },
            ..
        }) => Some((folder_trust::legacy_targets(dirs, cwd), true, false)),
        _ => None,
    }
}

/// Runs that talk to the model ask about an undecided folder on a terminal; listings only warn.
fn ask_mode(cli: &Cli, interactive: bool) -> Ask {
    let talks = matches!(
        &cli.command,
        None | Some(Command::Skills {
            action: SkillsCommand::Eval { .. },
            ..
        })
    );
    match (talks, interactive) {
        (true, true) => Ask::Person,
        (true, false) => Ask::WarnAll,
        (false, _) => Ask::WarnDotenv,
    }
}

/// The command of this run, once configuration is settled.
async fn dispatch(run: Run<'_>) -> Result<ExitCode, AppError> {
    match &run.cli.command {
        Some(Command::Skills { action, .. }) => skills::run(action, run).await,
        Some(Command::Sandbox { action, .. }) => Ok(sandbox::run(action.as_ref(), &run)),
        Some(Command::Trust {
            skill: Some(name),
            force,
            ..
        }) => {
            let report = skills::trust_installed(name, *force, &run)?;
            run.front.output.report(Report::SkillTrusted(report));
            Ok(ExitCode::Answered)
        }
        Some(Command::Completions { .. } | Command::Man { .. } | Command::Trust { .. } | Command::Acp { .. }) => Err(
            AppError::internal("completions, man pages, trust and acp are handled before configuration"),
        ),
        Some(Command::Sessions { action }) => session_commands::run(action.as_ref(), &run),
        Some(Command::Mcp { action }) => mcp::run(action, &run).await,
        Some(Command::Hooks { .. }) => hooks::list(&run),
        None => once::chat_or_once(run).await,
    }
}
