//! `agent sessions list|show|export|rm`: browsing the stored sessions without talking to a model.

use std::path::{Path, PathBuf};

use super::Run;
use super::session::{app_error, list, store, write_file};
use crate::cli::{ExportFormat, SessionsCommand};
use crate::exit::{AppError, ExitCode};
use crate::output::Report;
use crate::output::session::{SessionExported, SessionRemoved};
use crate::sessions::SessionStore;
use crate::sessions::export::{Format, render};

/// Run one `sessions` subcommand; none is `list`, what a bare `agent sessions` is after.
pub(super) fn run(action: Option<&SessionsCommand>, run: &Run<'_>) -> Result<ExitCode, AppError> {
    let action = action.unwrap_or(&SessionsCommand::List { limit: 0 });
    let store = store().ok_or_else(|| {
        AppError::config("there is no home folder to find stored sessions in: set HOME (or XDG_STATE_HOME)")
    })?;
    let report = match action {
        SessionsCommand::List { limit } => Report::SessionList(list(&store, *limit)?),
        SessionsCommand::Show { id } => Report::Text(exported(&store, id, Format::Markdown)?.1),
        SessionsCommand::Export { id, format, output } => export(&store, id, *format, output.as_deref())?,
        SessionsCommand::Rm { id } => {
            let found = store.find(id).map_err(app_error)?;
            let path = store.remove(&found).map_err(app_error)?;
            Report::SessionRemoved(SessionRemoved {
                removed: found.to_string(),
                path,
            })
        }
    };
    run.front.output.report(report);
    Ok(ExitCode::Answered)
}

/// `sessions export`: to `output` (its extension picks the format when none is given), else to
/// stdout.
fn export(
    store: &SessionStore,
    id: &str,
    format: Option<ExportFormat>,
    output: Option<&Path>,
) -> Result<Report, AppError> {
    let format = match format {
        Some(ExportFormat::Md) => Format::Markdown,
        Some(ExportFormat::Html) => Format::Html,
        Some(ExportFormat::Json) => Format::Json,
        None => output.and_then(Format::from_path).unwrap_or(Format::Markdown),
    };
    let (id, text) = exported(store, id, format)?;
    let Some(path) = output else {
        return Ok(Report::Text(text));
    };
    write_file(path, &text)?;
    Ok(Report::SessionExported(SessionExported {
        id,
        format: format_name(format),
        path: path.to_path_buf(),
    }))
}

/// The session `prefix` names, rendered in `format`: (its id, the text).
pub(super) fn exported(store: &SessionStore, prefix: &str, format: Format) -> Result<(String, String), AppError> {
    let id = store.find(prefix).map_err(app_error)?;
    let loaded = store.load(&id).map_err(app_error)?;
    Ok((id.to_string(), render(&loaded, format)))
}

/// `md`, `html` or `json`.
pub(super) fn format_name(format: Format) -> &'static str {
    match format {
        Format::Markdown => "md",
        Format::Html => "html",
        Format::Json => "json",
    }
}

/// Where `/export` writes when given no file: `session-ID.md` in the `exports` folder beside the
/// sessions (`~/.local/state/agent/exports/`), created when needed. Never the working folder,
/// where it would be an untracked file in the user's checkout.
pub(super) fn default_export_path(store: &SessionStore, id: &str) -> Result<PathBuf, AppError> {
    let dir = store.dir().parent().unwrap_or(store.dir()).join("exports");
    std::fs::create_dir_all(&dir)
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot create {}", dir.display()), e))?;
    Ok(dir.join(format!("session-{id}.md")))
}
