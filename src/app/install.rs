//! `agent completions SHELL` and `agent man`: shell completion and manual pages, both generated
//! from the same clap definitions as the parser, so they never drift from the real flags.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::AppError;
use crate::output::Report;
use crate::output::report::ManPages;

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<Report, AppError> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "agent", &mut script);
    Ok(Report::Text(String::from_utf8_lossy(&script).into_owned()))
}

/// agent(1) as roff, or with `dir` a page for every command written into it.
pub fn man(dir: Option<&Path>) -> Result<Report, AppError> {
    let mut cmd = Cli::command();
    cmd.build();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut page)
            .map_err(|e| AppError::internal(format!("cannot write the manual page: {e}")))?;
        return Ok(Report::Text(String::from_utf8_lossy(&page).into_owned()));
    };
    std::fs::create_dir_all(dir).map_err(|e| AppError::config(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    write_pages(&cmd, "agent", dir, &mut written)?;
    Ok(Report::ManPages(ManPages { written }))
}

/// `name.1` for `cmd`, then `name-sub.1` for each visible subcommand, depth first.
fn write_pages(cmd: &clap::Command, name: &str, dir: &Path, written: &mut Vec<PathBuf>) -> Result<(), AppError> {
    let page = cmd.clone().name(name.to_string());
    let path = dir.join(format!("{name}.1"));
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .and_then(|()| std::fs::write(&path, buf))
        .map_err(|e| AppError::config(format!("cannot write {}: {e}", path.display())))?;
    written.push(path);
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
