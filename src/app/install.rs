//! `agent completions SHELL` and `agent man`: shell completion and manual pages, both generated
//! from the same clap definitions as the parser, so they never drift from the real flags.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::{AppError, ExitCode};

/// Print the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, AppError> {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "agent", &mut out);
    out.flush()
        .map_err(|e| AppError::internal(format!("cannot write the completion script: {e}")))?;
    Ok(ExitCode::Answered)
}

/// Print agent(1) on stdout, or with `dir` write a page for every command into it.
pub fn man(dir: Option<&Path>) -> Result<ExitCode, AppError> {
    let mut cmd = Cli::command();
    cmd.build();
    let Some(dir) = dir else {
        let mut out = std::io::stdout().lock();
        clap_mangen::Man::new(cmd)
            .render(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| AppError::internal(format!("cannot write the manual page: {e}")))?;
        return Ok(ExitCode::Answered);
    };
    std::fs::create_dir_all(dir).map_err(|e| AppError::config(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    write_pages(&cmd, "agent", dir, &mut written)?;
    let mut out = std::io::stdout().lock();
    for path in written {
        let _ = writeln!(out, "wrote {}", path.display());
    }
    Ok(ExitCode::Answered)
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
