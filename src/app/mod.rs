//! The application: builds the pieces from configuration and runs one command — chat, one-shot,
//! or a subcommand. `ui` renders and asks; `agent` runs turns; this layer decides what happens.

mod chat;
mod endpoint;
mod eval;
mod folder_trust;
mod install;
mod skill_new;
mod skills;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::agent::{Agent, AgentOptions, Event, EventSink, TurnError};
use crate::cli::{Cli, Command, SkillsCommand};
use crate::config::Config;
use crate::exec::trust::FolderTrust;
use crate::exit::{AppError, ExitCode};
use crate::llm::cassette::{Player, Recorder, Scrubber, Tape};
use crate::llm::{LlmClient, LlmSettings};
use crate::skills::discover::{Discovery, discover};
use crate::skills::{Severity, SkillSet};
use crate::support::redact::Redactor;

use crate::ui::approve::TerminalApprover;
use crate::ui::human::HumanRenderer;
use crate::ui::json::JsonWriter;
use folder_trust::Ask;

/// Most bytes of piped stdin taken as context.
const MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// Drops events: `skills eval` reports per case, not per event.
struct Quiet;

impl EventSink for Quiet {
    fn emit(&self, _event: Event) {}
}

/// Where events go: the sink every layer emits to, and the human renderer when there is one
/// (the chat and approval prompts drive its spinner).
#[derive(Clone)]
pub struct Frontend {
    pub sink: Arc<dyn EventSink>,
    pub human: Option<Arc<HumanRenderer>>,
}

impl Frontend {
    /// Show a spinner while waiting, on a terminal in human mode.
    pub fn wait(&self, label: &str) {
        if let Some(h) = &self.human {
            h.wait(label);
        }
    }
}

/// Run the program; returns the process exit code.
pub async fn run(cli: Cli) -> i32 {
    // Generated from the flag definitions alone: no configuration can break them.
    let generated = match &cli.command {
        Some(Command::Completions { shell }) => Some(install::completions(*shell)),
        Some(Command::Man { dir }) => Some(install::man(dir.as_deref())),
        _ => None,
    };
    if let Some(result) = generated {
        return result
            .unwrap_or_else(|e| {
                eprintln!("error: {}", e.message);
                e.code
            })
            .code();
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            let err = AppError::config(format!("cannot determine the working directory: {e}"));
            return report(&frontend(&cli, Redactor::NONE), Err(err));
        }
    };
    if let Some(dirs) = trust_request(&cli, &cwd) {
        let front = frontend(&cli, Redactor::NONE);
        return report(&front, folder_trust::trust_command(&dirs, &cwd, cli.json));
    }
    let ask = ask_mode(&cli);
    let settled = folder_trust::settle(&cwd, ask);
    let redactor = settled
        .as_ref()
        .map(|s| Redactor::from_env(&s.env.merged()))
        .unwrap_or_default();
    let front = frontend(&cli, redactor);
    let result = match settled {
        Ok(settled) => {
            for message in settled.notes {
                if ask == Ask::WarnDotenv {
                    // A listing's stdout is one JSON document with --json: keep notes off it.
                    eprintln!("warning: {message}");
                } else {
                    front.sink.emit(Event::Warning { message });
                }
            }
            match Config::resolve(&cli, settled.env, &cwd) {
                Ok(config) => dispatch(&cli, config, settled.trust, &front).await,
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    };
    report(&front, result)
}

/// The human or JSON front end, redacting `redactor`'s secrets.
fn frontend(cli: &Cli, redactor: Redactor) -> Frontend {
    if cli.json {
        return Frontend {
            sink: Arc::new(JsonWriter::new(redactor)),
            human: None,
        };
    }
    let human = Arc::new(HumanRenderer::new(cli.verbose > 0, redactor));
    Frontend {
        sink: human.clone(),
        human: Some(human),
    }
}

/// The exit code of a run, after showing its error if it failed.
fn report(front: &Frontend, result: Result<ExitCode, AppError>) -> i32 {
    match result {
        Ok(code) => code.code(),
        Err(err) => {
            front.sink.emit(Event::Error {
                message: err.message.clone(),
                code: err.code.code(),
            });
            err.code.code()
        }
    }
}

/// The folders `agent trust` (or the old `agent skills trust`) names, if that is this run.
fn trust_request(cli: &Cli, cwd: &Path) -> Option<Vec<PathBuf>> {
    match &cli.command {
        Some(Command::Trust { dir }) => Some(dir.iter().cloned().collect()),
        Some(Command::Skills {
            action: SkillsCommand::Trust { dirs },
        }) => {
            eprintln!(
                "note: `agent skills trust` moved to `agent trust [DIR]`, which trusts the whole folder: its .env and its skills"
            );
            Some(folder_trust::legacy_targets(dirs, cwd))
        }
        _ => None,
    }
}

/// Runs that talk to the model ask about an undecided folder on a terminal; listings only warn.
fn ask_mode(cli: &Cli) -> Ask {
    let talks = matches!(
        &cli.command,
        None | Some(Command::Skills {
            action: SkillsCommand::Eval { .. }
        })
    );
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    match (talks, interactive) {
        (true, true) => Ask::Person,
        (true, false) => Ask::WarnAll,
        (false, _) => Ask::WarnDotenv,
    }
}

async fn dispatch(cli: &Cli, config: Config, trust: Arc<FolderTrust>, front: &Frontend) -> Result<ExitCode, AppError> {
    let discovery = discover(&config.skill_roots);
    if let Some(Command::Completions { .. } | Command::Man { .. }) = &cli.command {
        return Err(AppError::internal(
            "completions and man pages are written before configuration",
        ));
    }
    if let Some(Command::Skills { action }) = &cli.command {
        if let SkillsCommand::Eval { cases, threshold } = action {
            let quiet = Frontend {
                sink: Arc::new(Quiet),
                human: None,
            };
            let config = endpoint::settle(cli, config).await?;
            let agent = build_agent(cli, &config, discovery, trust, &quiet)?;
            return eval::run(agent, cases, *threshold, cli.json).await;
        }
        return skills::run(action, &config, &discovery, &trust, cli.json);
    }
    let sink = &*front.sink;
    report_discovery(&discovery, sink, cli.json || cli.verbose > 0);
    let message = initial_message(cli)?;
    let config = endpoint::settle(cli, config).await?;
    let message = match message {
        Some(m) => m,
        None => return chat::run(cli, config, discovery, trust, front).await,
    };
    let mut agent = build_agent(cli, &config, discovery, trust, front)?;
    let _quiet = crate::ui::tty::QuietInterrupts::new();
    front.wait("thinking");
    let outcome = tokio::select! {
        r = agent.run_turn(&message) => r,
        _ = tokio::signal::ctrl_c() => {
            // Dropping the turn drops any running command, whose guard kills its process group.
            sink.emit(Event::Warning { message: "interrupted".into() });
            return Ok(finish(&agent, sink, ExitCode::Interrupted));
        }
    };
    let code = match outcome {
        Ok(_) if agent.commands_denied() > 0 => ExitCode::Denied,
        Ok(_) => ExitCode::Answered,
        Err(e) => turn_failure(&e, sink),
    };
    Ok(finish(&agent, sink, code))
}

pub fn turn_failure(err: &TurnError, sink: &dyn EventSink) -> ExitCode {
    let code = match err {
        TurnError::Llm(e) => {
            if let Some(snippet) = &e.snippet {
                tracing::debug!(raw = %snippet, "response that caused the error");
            }
            ExitCode::Llm
        }
        TurnError::StepLimit { .. } => ExitCode::StepLimit,
    };
    sink.emit(Event::Error {
        message: err.to_string(),
        code: code.code(),
    });
    code
}

pub fn finish(agent: &Agent, sink: &dyn EventSink, code: ExitCode) -> ExitCode {
    sink.emit(Event::Done {
        exit_code: code.code(),
        llm_calls: agent.llm_calls(),
        usage: agent.usage(),
    });
    code
}

/// Skipped skills and shadowed names always; per-skill warnings in full when `detailed`.
pub fn report_discovery(discovery: &Discovery, sink: &dyn EventSink, detailed: bool) {
    for d in &discovery.skipped {
        sink.emit(Event::Warning {
            message: format!("skill skipped: {d}"),
        });
    }
    for d in &discovery.warnings {
        sink.emit(Event::Warning { message: d.to_string() });
    }
    let with_warnings: Vec<&str> = discovery
        .skills
        .iter()
        .filter(|s| s.diagnostics.iter().any(|d| d.severity >= Severity::Warning))
        .map(|s| s.name.as_str())
        .collect();
    if detailed {
        for skill in &discovery.skills {
            for d in skill.diagnostics.iter().filter(|d| d.severity >= Severity::Warning) {
                sink.emit(Event::Warning { message: d.to_string() });
            }
        }
    } else if !with_warnings.is_empty() {
        sink.emit(Event::Warning {
            message: format!(
                "{} skill(s) loaded with problems ({}); see `agent skills show NAME` or run with -v",
                with_warnings.len(),
                with_warnings.join(", ")
            ),
        });
    }
}

/// The one-shot message, if this run is one: `--once` (plus piped stdin) or piped stdin alone.
fn initial_message(cli: &Cli) -> Result<Option<String>, AppError> {
    let stdin = std::io::stdin();
    let piped = if stdin.is_terminal() { None } else { read_stdin()? };
    let piped = piped.filter(|input| !input.trim().is_empty() || cli.once.is_none());
    match (&cli.once, piped) {
        (Some(msg), Some(input)) if msg.trim().is_empty() => Ok(Some(input.trim().to_string())),
        (Some(msg), Some(input)) => Ok(Some(format!("{msg}\n\nInput:\n```\n{}\n```", input.trim_end()))),
        (Some(msg), None) if msg.trim().is_empty() => Err(AppError::usage(
            "--once was given an empty message: say what to do, e.g. --once \"weather in Tokyo\"",
        )),
        (Some(msg), None) => Ok(Some(msg.clone())),
        (None, Some(input)) if !input.trim().is_empty() => Ok(Some(input.trim().to_string())),
        (None, Some(_)) => Err(AppError::usage(
            "stdin was empty: pipe a message in, or use --once \"MESSAGE\"",
        )),
        (None, None) => Ok(None),
    }
}

fn read_stdin() -> Result<Option<String>, AppError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_STDIN_BYTES)
        .read_to_end(&mut buf)
        .map_err(|e| AppError::usage(format!("cannot read stdin: {e}")))?;
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

pub fn build_agent(
    cli: &Cli,
    config: &Config,
    discovery: Discovery,
    trust: Arc<FolderTrust>,
    front: &Frontend,
) -> Result<Agent, AppError> {
    let sink = front.sink.clone();
    let base_env = config.env.merged();
    let redactor = Redactor::from_env(&base_env);
    let tape = tape(cli, &redactor, &discovery)?;
    if !matches!(tape, Tape::Replay(_)) {
        config.require_key()?;
    }
    let notice_sink = sink.clone();
    let llm = LlmClient::new(
        LlmSettings {
            base_url: config.base_url.clone(),
            api_key: config.api_key.as_ref().map(|k| k.value.clone()),
            key_var: config.api_key.as_ref().map(|k| k.var),
            model: config.model.clone(),
            stream: config.stream,
            retries: config.retries,
            connect_timeout: config.connect_timeout,
            idle_timeout: config.idle_timeout,
            tape,
            redactor: redactor.clone(),
        },
        Arc::new(move |message| notice_sink.emit(Event::Warning { message })),
    )
    .map_err(|e| AppError::new(ExitCode::Llm, e.message))?;
    let skills = SkillSet::new(discovery.skills);
    let options = AgentOptions {
        approve: config.approve,
        command_timeout: config.command_timeout,
        max_steps: config.max_steps,
        base_env,
        redactor,
        skill_roots: config.skill_roots.iter().map(|r| r.path.clone()).collect(),
        trust,
        history_budget: config.history_budget,
        catalog_budget: config.catalog_budget,
        preactivate: config.preactivate,
    };
    sink.emit(Event::Session {
        version: env!("CARGO_PKG_VERSION"),
        model: config.model.clone(),
        base_url: config.base_url.clone(),
        skills: skills.all().len(),
        approve: config.approve,
    });
    let approver = Arc::new(TerminalApprover::new(config.interactive, front.human.clone()));
    Ok(Agent::new(llm, skills, options, sink, approver))
}

/// The cassette this run records to or replays from, if any.
fn tape(cli: &Cli, redactor: &Redactor, discovery: &Discovery) -> Result<Tape, AppError> {
    let scrubber = || {
        let dirs: Vec<(String, std::path::PathBuf)> = discovery
            .skills
            .iter()
            .map(|s| (s.name.clone(), s.dir.clone()))
            .collect();
        Scrubber::new(redactor.clone(), &dirs)
    };
    Ok(match (&cli.record, &cli.replay) {
        (Some(path), _) => Tape::Record(Arc::new(Recorder::create(path, scrubber()).map_err(AppError::config)?)),
        (None, Some(path)) => Tape::Replay(Arc::new(Player::open(path, scrubber()).map_err(AppError::config)?)),
        (None, None) => Tape::Off,
    })
}
