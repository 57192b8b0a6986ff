//! `agent acp`: the editor's sessions built as the chat's are (docs/editors.md). The protocol
//! itself is `acp/`; this builds, for each session the editor opens, the configuration of its
//! folder (folder trust decided without asking: an untrusted folder's project skills are asked
//! about in the editor before their first command), its skills, its MCP servers (the user's and
//! the editor's) and its stored session, new or taken up.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::folder_trust::{self, Ask};
use super::once::{Detail, report_discovery};
use super::{Run, endpoint, session};
use crate::acp::{Opening, Sessions};
use crate::agent::Agent;
use crate::cli::Cli;
use crate::config::Config;
use crate::exit::{AppError, ExitCode};
use crate::output::{Event, EventSink};
use crate::skills::discover::discover_with;
use crate::support::redact::Redactor;
use crate::ui::Frontend;

/// Builds the editor's sessions from the command line it started `agent acp` with.
struct FromConfig {
    cli: Arc<Cli>,
}

impl Sessions for FromConfig {
    fn open(&self, opening: Opening) -> BoxFuture<'_, Result<Agent, String>> {
        Box::pin(async move { open(&self.cli, opening).await.map_err(|e| told(&e)) })
    }
}

/// Serve the editor until it closes stdin; exit 0 then, whatever its sessions did.
pub(super) async fn run(cli: Cli) -> i32 {
    let sessions = Arc::new(FromConfig { cli: Arc::new(cli) });
    match crate::acp::serve(sessions).await {
        Ok(()) => ExitCode::Answered.code(),
        // Stdout is the protocol's: the failure goes to the log (stderr), cause and all.
        Err(e) => {
            tracing::error!(error = ?e, "the editor's connection failed: {e}");
            ExitCode::Internal.code()
        }
    }
}

/// The agent of one session of the editor's, in its folder.
async fn open(cli: &Cli, opening: Opening) -> Result<Agent, AppError> {
    let cwd = opening.cwd.as_path();
    if !cwd.is_dir() {
        return Err(AppError::usage(format!("{} is not a folder", cwd.display())));
    }
    let decided = folder_trust::decide(cwd, Ask::WarnAll)?;
    let sink: Arc<dyn EventSink> = opening.output.clone();
    for message in decided.notes {
        sink.emit(Event::Warning { message });
    }
    let redactor = Redactor::from_env(&decided.env.merged());
    // A person is there, in the editor: the policy asks by default, as on a terminal.
    let mut config = Config::resolve(cli, decided.env, cwd, true)?;
    endpoint::discover(cli, &mut config).await?;
    let resume = match &opening.load {
        Some(id) => Some(stored(id)?),
        None => None,
    };
    let run = Run {
        cli,
        config,
        trust: decided.trust,
        front: Frontend::editor(opening.output.clone(), opening.approver.clone()),
        redactor,
        index_preload: std::sync::Mutex::default(),
        chat: true,
        resume,
        editor_mcp: opening.mcp_servers,
    };
    let discovery = discover_with(&run.config.skill_roots, &run.config.routing_scan());
    report_discovery(&discovery, &*sink, Detail::Summary);
    let (mut agent, resumed) = session::started_agent(&run, discovery)?;
    agent
        .session_start_hooks(if resumed.is_some() { "resume" } else { "startup" })
        .await;
    tracing::debug!(cwd = %cwd.display(), session = ?agent.session_id(), "editor session open");
    Ok(agent)
}

/// An error as the editor is told it: its message, then what beneath it the message does not say.
fn told(err: &AppError) -> String {
    std::iter::once(err.message.clone())
        .chain(err.causes().into_iter().map(|c| format!("caused by: {c}")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The stored session `id` names (exactly, or by a prefix of one).
fn stored(id: &str) -> Result<crate::sessions::SessionId, AppError> {
    let Some(store) = session::store() else {
        return Err(AppError::config(
            "there is no home folder to find stored sessions in: set HOME (or XDG_STATE_HOME)",
        ));
    };
    store.find(id).map_err(session::app_error)
}
