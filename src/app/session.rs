//! The stored session of a run that talks to the model (docs/design.md#sessions): a new one, or the
//! one `-c` or `--resume [ID]` names (a fork of it when another agent holds it), attached to the
//! agent before its first turn; and the `session` event that opens the run (with the sandbox's
//! warnings after it). A folder that cannot be written is one warning: the run goes on unstored.

use std::path::Path;

use super::Run;
use crate::agent::Agent;
use crate::exit::{AppError, ExitCode};
use crate::llm::tool_support::ToolSupport;
use crate::output::session::{SessionList, SessionResumed};
use crate::output::{Event, EventSink};
use crate::sessions::replay::replay;
use crate::sessions::store::unix_seconds;
use crate::sessions::summary::summarize;
use crate::sessions::{Journal, NewSession, SessionError, SessionFile, SessionId, SessionStore};
use crate::skills::discover::Discovery;
use crate::support::public_url::without_credentials;
use crate::ui::pick::{Pick, pick_session};

/// Most sessions the picker of `--resume` offers.
const PICK_LIMIT: usize = 20;

/// The session folder of this run, `None` without a home folder to put it in.
pub(super) fn store() -> Option<SessionStore> {
    SessionStore::default_dir().map(SessionStore::at)
}

/// What a new session file's header says about this run.
pub(super) fn new_session(run: &Run<'_>, model: &str) -> NewSession {
    NewSession {
        model: model.to_string(),
        base_url: without_credentials(&run.config.base_url),
        provider: Some(run.config.provider.id().to_string()),
        skill_roots: run
            .config
            .skill_roots
            .iter()
            .map(|r| r.path.display().to_string())
            .collect(),
        // The run's working folder: the process's, or the one an editor's session names.
        cwd: run.config.sandbox.cwd.display().to_string(),
        parent: None,
        chat: run.chat,
    }
}

/// The working directory as a header records it.
pub(super) fn cwd_text() -> String {
    std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default()
}

/// A session error as the run's error: an id that names no session (or several) is a usage
/// error (exit 2); a session that cannot be read or written is a configuration error (exit 3).
pub(super) fn app_error(err: SessionError) -> AppError {
    let code = match err {
        SessionError::NotFound(_) | SessionError::Ambiguous { .. } => ExitCode::Usage,
        _ => ExitCode::Config,
    };
    AppError::from_source(code, err)
}

/// The run's agent, its session attached and the `session` event out. Every entry point that
/// talks to the model (chat, one-shot, `--skill`) starts here, so none runs without its session.
pub(super) fn started_agent(run: &Run<'_>, discovery: Discovery) -> Result<(Agent, Option<SessionResumed>), AppError> {
    let approver = run.front.approver(run.config.interactive);
    let mut agent = super::build::agent(run, discovery, run.front.output.clone(), approver)?;
    let resumed = start(run, &mut agent, &*run.front.output)?;
    // Over the budget, every run of the same library would say so: once per library and budget,
    // every time with -v or --json.
    let library = format!(
        "{} skills, budget {}",
        agent.skills().routable().count(),
        run.config.catalog_budget
    );
    let detailed = run.cli.json || run.cli.verbose > 0;
    if !detailed && !super::notices::is_news("catalog", vec![library]) {
        agent.catalog_notice_said();
    }
    Ok((agent, resumed))
}

/// Attach this run's session to `agent` and open the run with the `session` event: a new
/// session, or the one `-c`/`--resume` names, taken up. Returns what was resumed.
fn start(run: &Run<'_>, agent: &mut Agent, sink: &dyn EventSink) -> Result<Option<SessionResumed>, AppError> {
    let store = store();
    let target = match &store {
        Some(_) if run.resume.is_some() => run.resume.clone(),
        Some(store) => target(run, store)?,
        None if run.cli.continue_session || run.cli.resume.is_some() => {
            return Err(AppError::config(
                "there is no home folder to find stored sessions in: set HOME (or XDG_STATE_HOME)",
            ));
        }
        None => None,
    };
    let mut warnings = Vec::new();
    let loaded = match (&store, &target) {
        (Some(store), Some(id)) => Some(attach_existing(run, store, id, agent, &mut warnings)?),
        (Some(store), None) if run.config.sessions.store => {
            attach_new(run, store, agent, &mut warnings);
            None
        }
        _ => None,
    };
    let model = loaded
        .as_ref()
        .filter(|_| run.cli.model.is_none())
        .and_then(|l| replay(&l.records).model.or_else(|| Some(l.header.model.clone())))
        .unwrap_or_else(|| agent.model().to_string());
    sink.emit(Event::Session {
        version: env!("CARGO_PKG_VERSION"),
        model,
        base_url: without_credentials(&run.config.base_url),
        skills: agent.skills().all().len(),
        approve: run.config.approve,
        sandbox: run.config.sandbox.sandbox_name(),
        sandbox_mode: run.config.sandbox.mode,
        session_id: agent.session_id(),
        resumed: loaded.as_ref().map(|l| l.header.id.clone()),
        model_calls_tools: match &run.config.tool_support {
            Some(ToolSupport::Yes) => Some(true),
            Some(ToolSupport::No { .. }) => Some(false),
            Some(ToolSupport::Unknown) | None => None,
        },
    });
    if let Some(ToolSupport::No { said }) = &run.config.tool_support
        && !agent.skills().all().is_empty()
    {
        warnings.push(no_tools_warning(agent.model(), said, agent.skills().all().len()));
    }
    // Said once per run: what the chosen sandbox mode promises that this machine cannot keep.
    let sandbox = &run.config.sandbox;
    warnings.splice(
        0..0,
        sandbox
            .warning()
            .into_iter()
            .chain(sandbox.prepare_allow_write())
            .chain(sandbox.protected_warning()),
    );
    for message in warnings {
        sink.emit(Event::Warning { message });
    }
    let Some(loaded) = loaded else {
        return Ok(None);
    };
    Ok(Some(take_up(agent, &loaded, run.cli.model.is_some())))
}

/// Said once at the start of a run whose model cannot call tools, while skills are there.
fn no_tools_warning(model: &str, said: &str, skills: usize) -> String {
    format!(
        "model {model} cannot call tools ({said}): none of the {skills} skills can be used with it, and an \
         answer that claims to have used one is made up. Choose a model that can call tools with --model NAME \
         or AGENT_MODEL (for llama.cpp: one whose chat template supports tools, and llama-server --jinja)"
    )
}

/// Take up `loaded` in `agent` (its journal already set) and say how it went.
pub(super) fn take_up(agent: &mut Agent, loaded: &SessionFile, keep_model: bool) -> SessionResumed {
    let done = agent.resume(loaded, keep_model);
    SessionResumed {
        resumed: loaded.header.id.clone(),
        session_id: agent.session_id(),
        turns: done.turns,
        lost_turn: done.lost_turn,
        changed: done.changed,
        vanished: done.vanished,
        model: agent.model().to_string(),
    }
}

/// The session `-c` or `--resume` names, if either was given.
fn target(run: &Run<'_>, store: &SessionStore) -> Result<Option<SessionId>, AppError> {
    if run.cli.continue_session {
        return continued(store, run.chat).map(Some);
    }
    match run.cli.resume.as_deref() {
        None => Ok(None),
        Some("") => pick(run, store).map(Some),
        Some(prefix) => store.find(prefix).map(Some).map_err(app_error),
    }
}

/// The session `-c` goes on with: the newest one started in this folder that reached the model;
/// for the chat, the newest chat among them if there is one (a one-shot run in between is not
/// the conversation a person means to go on with).
fn continued(store: &SessionStore, chat: bool) -> Result<SessionId, AppError> {
    let cwd = cwd_text();
    if chat && let Some(id) = store.latest_in(&cwd, true).map_err(app_error)? {
        return Ok(id);
    }
    match store.latest_in(&cwd, false).map_err(app_error)? {
        Some(id) => Ok(id),
        None => Err(AppError::usage(format!(
            "no stored session was started in {cwd}; `agent sessions list` shows them all, `agent --resume ID` \
             goes on with one"
        ))),
    }
}

/// For `-c`, before anything else (configuration, the server): that there is a session to go
/// on with, so a folder without one is a usage error at once, not after a key check or a probe.
pub(super) fn check_continue(cli: &crate::cli::Cli) -> Result<(), AppError> {
    if !cli.continue_session || cli.command.is_some() {
        return Ok(());
    }
    match store() {
        Some(store) => continued(&store, false).map(|_| ()),
        // Said by `start`, with the rest of the configuration.
        None => Ok(()),
    }
}

/// `--resume` without an id: ask on the terminal which of the recent sessions.
fn pick(run: &Run<'_>, store: &SessionStore) -> Result<SessionId, AppError> {
    if !run.config.interactive {
        return Err(AppError::usage(
            "--resume without an ID needs a terminal to pick one on: give the id (or a prefix of it); `agent \
             sessions list` shows them",
        ));
    }
    let list = list(store, PICK_LIMIT)?;
    if list.sessions.is_empty() {
        return Err(AppError::usage(format!(
            "there are no stored sessions in {} to resume",
            list.dir.display()
        )));
    }
    match pick_session(&list) {
        Pick::Index(i) => list
            .sessions
            .get(i)
            .and_then(|s| SessionId::parse(&s.id))
            .ok_or_else(|| AppError::internal("the picked session is not in the list")),
        Pick::Prefix(prefix) => store.find(&prefix).map_err(app_error),
        Pick::Cancel => Err(AppError::usage("no session picked; nothing was resumed")),
    }
}

/// Open session `id` for `agent`: appended to when this run stores sessions (a fork of it when
/// another agent holds it), else only read.
fn attach_existing(
    run: &Run<'_>,
    store: &SessionStore,
    id: &SessionId,
    agent: &mut Agent,
    warnings: &mut Vec<String>,
) -> Result<SessionFile, AppError> {
    if !run.config.sessions.store {
        let loaded = store.load(id).map_err(app_error)?;
        warnings.extend(loaded_warnings(&loaded));
        return Ok(loaded);
    }
    let start = new_session(run, agent.model());
    let opened = match store.open(id, start, run.redactor.clone()) {
        Ok(opened) => opened,
        Err(SessionError::Io { .. }) | Err(SessionError::InUse(_)) => {
            // Readable but not writable here: take it up, and say it is not stored further.
            let loaded = store.load(id).map_err(app_error)?;
            warnings.push(format!(
                "session {id} cannot be written to; this run goes on without storing it (AGENT_SESSIONS=0 silences \
                 this)"
            ));
            warnings.extend(loaded_warnings(&loaded));
            return Ok(loaded);
        }
        Err(e) => return Err(app_error(e)),
    };
    if let Some(parent) = &opened.forked_from {
        warnings.push(format!(
            "session {parent} is in use by another running agent: this run goes on in a copy of it, {}",
            opened.writer.id()
        ));
    }
    warnings.extend(loaded_warnings(&opened.loaded));
    agent.set_journal(Journal::new(opened.writer));
    Ok(opened.loaded)
}

/// Start a new session file for `agent`; a folder that cannot be written is a warning.
fn attach_new(run: &Run<'_>, store: &SessionStore, agent: &mut Agent, warnings: &mut Vec<String>) {
    match store.create(new_session(run, agent.model()), run.redactor.clone()) {
        Ok(writer) => agent.set_journal(Journal::new(writer)),
        Err(e) => warnings.push(format!(
            "{e}; this run is not stored as a session (the answer is not affected). Make the folder writable, set \
             XDG_STATE_HOME elsewhere, or set AGENT_SESSIONS=0"
        )),
    }
}

/// What loading a session skipped, one warning each.
fn loaded_warnings(loaded: &SessionFile) -> Vec<String> {
    loaded
        .warnings
        .iter()
        .map(|w| format!("session {}: {w}", loaded.header.id))
        .collect()
}

/// The newest `limit` sessions (0: all), summed up; files that are no sessions are problems.
pub(super) fn list(store: &SessionStore, limit: usize) -> Result<SessionList, AppError> {
    let ids = store.ids().map_err(app_error)?;
    let take = if limit == 0 { ids.len() } else { limit };
    let mut sessions = Vec::new();
    let mut problems = Vec::new();
    for id in ids.iter().take(take) {
        match store.load(id) {
            Ok(loaded) => sessions.push(summarize(&loaded)),
            Err(e) => problems.push(e.to_string()),
        }
    }
    Ok(SessionList {
        dir: store.dir().to_path_buf(),
        sessions,
        problems,
        now: unix_seconds(std::time::SystemTime::now()),
    })
}

/// Write `text` to `path`, the error naming it.
pub(super) fn write_file(path: &Path, text: &str) -> Result<(), AppError> {
    std::fs::write(path, text)
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot write {}", path.display()), e))
}
