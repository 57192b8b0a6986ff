//! Talking to the model: the one-shot run (`--once`, piped stdin) and the start of the chat, and
//! how a turn's end becomes an exit code.

use std::io::Read;
use std::sync::Arc;

use super::{Run, chat, endpoint, session};
use crate::agent::{Agent, TurnError};
use crate::cli::Cli;
use crate::exit::{AppError, ExitCode};
use crate::output::{Event, EventSink};
use crate::skills::Severity;
use crate::skills::discover::{Discovery, discover_with};

/// Most bytes of piped stdin taken as context.
const MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// One turn for a message given on the command line or piped in; else the chat.
pub(super) async fn chat_or_once(mut run: Run<'_>) -> Result<ExitCode, AppError> {
    // Read while discovery asks the file system about every skill: the index a big library's
    // first request ranks with is then ready (and checked to be this library's) when needed.
    *run.index_preload.get_mut().unwrap_or_else(|p| p.into_inner()) =
        crate::skills::catalog::preload_index(run.config.cache.as_ref());
    let discovery = discover_with(&run.config.skill_roots, &run.config.routing_scan());
    crate::support::phases::mark("discovery");
    let sink: Arc<dyn EventSink> = run.front.output.clone();
    let detail = match (run.cli.verbose > 0, run.cli.json) {
        (true, _) => Detail::Full,
        (false, true) => Detail::Summary,
        (false, false) => Detail::News,
    };
    report_discovery(&discovery, &*sink, detail);
    if let Some(name) = &run.cli.skill {
        return super::skill_once::skill_once(run, discovery, name).await;
    }
    let message = initial_message(run.cli)?;
    endpoint::discover(run.cli, &mut run.config).await?;
    let Some(message) = message else {
        run.chat = true;
        return chat::run(run, discovery).await;
    };
    let (mut agent, _) = session::started_agent(&run, discovery)?;
    let code = one_turn(&run, &mut agent, &message).await;
    agent.leave_skills_to_exit();
    Ok(code)
}

/// Run the one turn of a one-shot and return its exit code (Ctrl-C ends it with 130).
pub(super) async fn one_turn(run: &Run<'_>, agent: &mut Agent, message: &str) -> ExitCode {
    let sink: Arc<dyn EventSink> = run.front.output.clone();
    let _quiet = crate::ui::tty::QuietInterrupts::new();
    let source = if agent.user_turns().is_empty() {
        "startup"
    } else {
        "resume"
    };
    agent.session_start_hooks(source).await;
    run.front.output.waiting("thinking");
    let outcome = tokio::select! {
        r = agent.run_turn(message) => r,
        _ = tokio::signal::ctrl_c() => {
            // Dropping the turn drops any running command, whose guard kills its process group.
            agent.interrupted();
            sink.emit(Event::Warning { message: "interrupted".into() });
            return finish(agent, &*sink, ExitCode::Interrupted);
        }
    };
    let code = match outcome {
        Ok(_) if agent.commands_denied() > 0 => ExitCode::Denied,
        Ok(_) if run.cli.require_tool && agent.unbacked().is_some() => ExitCode::Unverified,
        Ok(_) => ExitCode::Answered,
        Err(e) => turn_failure(&e, &*sink),
    };
    agent.session_end_hooks("other").await;
    finish(agent, &*sink, code)
}

/// Report a turn that ended without an answer; returns the exit code it stands for.
pub(super) fn turn_failure(err: &TurnError, sink: &dyn EventSink) -> ExitCode {
    let code = match err {
        TurnError::Llm(e) => {
            if let Some(snippet) = &e.snippet {
                tracing::debug!(raw = %snippet, "response that caused the error");
            }
            ExitCode::Llm
        }
        TurnError::StepLimit { .. } => ExitCode::StepLimit,
        // Refused before it was sent, as a denied command is refused before it runs.
        TurnError::PromptBlocked { .. } => ExitCode::Denied,
    };
    let message = err.to_string();
    sink.emit(Event::Error {
        causes: crate::exit::untold_causes(&message, std::error::Error::source(err)),
        message,
        code: code.code(),
    });
    code
}

/// The `done` event of a run that talked to the model.
pub(super) fn finish(agent: &Agent, sink: &dyn EventSink, code: ExitCode) -> ExitCode {
    sink.emit(Event::Done {
        exit_code: code.code(),
        llm_calls: agent.llm_calls(),
        usage: agent.usage(),
        session_id: agent.session_id(),
        session_usage: agent.session_totals(),
    });
    code
}

/// How much of the skills' loading problems a run says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    /// Every problem and shadowed name, every run (`-v`).
    Full,
    /// One summary line every run, shadowed names in full (`--json`: what a script reads does not
    /// depend on what an earlier run said; a library of a thousand public skills made this 236
    /// events burying the run's own).
    Summary,
    /// The summary and shadowing only when they changed since they were last said (a terminal).
    News,
}

/// Skipped skills always; shadowed names and per-skill warnings as `detail` says.
pub(super) fn report_discovery(discovery: &Discovery, sink: &dyn EventSink, detail: Detail) {
    for d in &discovery.skipped {
        sink.emit(Event::Warning {
            message: format!("skill skipped: {d}"),
        });
    }
    // Shadowing is the same every run: said when it changes (always with -v or --json).
    let shadowing = detail != Detail::News || super::notices::shadowing_is_news(&discovery.warnings);
    for d in discovery
        .warnings
        .iter()
        .filter(|d| shadowing || d.code != crate::skills::code::SHADOWED)
    {
        sink.emit(Event::Warning { message: d.to_string() });
    }
    let with_warnings: Vec<&str> = discovery
        .skills
        .iter()
        .filter(|s| s.diagnostics.iter().any(|d| d.severity >= Severity::Warning))
        .map(|s| s.name.as_str())
        .collect();
    let problems = || {
        discovery
            .skills
            .iter()
            .flat_map(|s| s.diagnostics.iter().filter(|d| d.severity >= Severity::Warning))
    };
    let summarise = match detail {
        Detail::Full => {
            for d in problems() {
                sink.emit(Event::Warning { message: d.to_string() });
            }
            false
        }
        Detail::Summary => true,
        // The same problems every run are said once, and again when they change.
        Detail::News => super::notices::is_news("problems", problems().map(ToString::to_string).collect()),
    };
    if summarise && !with_warnings.is_empty() {
        sink.emit(Event::Warning {
            message: problems_summary(&with_warnings, detail),
        });
    }
}

/// Most skill names the one-line summary of skills with problems shows.
const SUMMARY_NAMES: usize = 3;

/// One short line however many skills have problems (a library of a thousand skills made this a
/// 17 KB line): the count, the first few names, and where the details are.
fn problems_summary(names: &[&str], detail: Detail) -> String {
    let shown = names.iter().take(SUMMARY_NAMES).copied().collect::<Vec<_>>().join(", ");
    let more = match names.len().saturating_sub(SUMMARY_NAMES) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let when = match detail {
        Detail::News => "said again when they change; -v says them every run",
        Detail::Full | Detail::Summary => "-v says each",
    };
    format!(
        "{} skill(s) loaded with problems ({shown}{more}); details: `agent skills check` ({when})",
        names.len()
    )
}

/// The one-shot message, if this run is one: `--once` (plus piped stdin) or piped stdin alone.
fn initial_message(cli: &Cli) -> Result<Option<String>, AppError> {
    let piped = if crate::ui::tty::stdin_is_terminal() {
        None
    } else {
        Some(read_stdin()?)
    };
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

/// Piped stdin, at most [`MAX_STDIN_BYTES`] of it.
pub(super) fn read_stdin() -> Result<String, AppError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_STDIN_BYTES)
        .read_to_end(&mut buf)
        .map_err(|e| AppError::context(ExitCode::Usage, "cannot read stdin", e))?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
