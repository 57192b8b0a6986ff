//! `agent man`: manual pages, generated from the same clap definitions as the parser, so they
//! never drift from the real flags.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::{AppError, ExitCode};
use crate::output::Report;
use crate::output::report::ManPages;

/// agent(1) as roff, or with `dir` a page for every command written into it.
pub(crate) fn man(dir: Option<&Path>) -> Result<Report, AppError> {
    let mut cmd = Cli::command();
    cmd.build();
    let Some(dir) = dir else {
        let page = page(&cmd, "agent")
            .map_err(|e| AppError::context(ExitCode::Internal, "cannot write the manual page", e))?;
        return Ok(Report::Text(String::from_utf8_lossy(&page).into_owned()));
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot create {}", dir.display()), e))?;
    let mut written = Vec::new();
    write_pages(&cmd, "agent", dir, &mut written)?;
    Ok(Report::ManPages(ManPages { written }))
}

/// `name.1` for `cmd`, then `name-sub.1` for each visible subcommand, depth first.
fn write_pages(cmd: &clap::Command, name: &str, dir: &Path, written: &mut Vec<PathBuf>) -> Result<(), AppError> {
    let path = dir.join(format!("{name}.1"));
    page(cmd, name)
        .and_then(|buf| std::fs::write(&path, buf))
        .map_err(|e| AppError::context(ExitCode::Config, format!("cannot write {}", path.display()), e))?;
    written.push(path);
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}

/// The manual page of `cmd` (a built command) as roff: clap_mangen's sections, a SYNOPSIS that
/// names every option's value, and ENVIRONMENT and EXIT STATUS sections of their own (in place of
/// the catch-all EXTRA that `--help`'s closing text would become).
fn page(cmd: &clap::Command, name: &str) -> std::io::Result<Vec<u8>> {
    let page = cmd.clone().name(name.to_string()).override_usage(synopsis(cmd));
    let has_args = page.get_arguments().any(|a| !a.is_hide_set());
    let has_subcommands = page.get_subcommands().any(|s| !s.is_hide_set());
    let has_version = page.get_version().is_some() || page.get_long_version().is_some();
    let man = clap_mangen::Man::new(page);
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if has_args {
        man.render_options_section(&mut out)?;
    }
    if has_subcommands {
        man.render_subcommands_section(&mut out)?;
    }
    out.extend(sections().into_bytes());
    if has_version {
        man.render_version_section(&mut out)?;
    }
    Ok(once_preamble(&String::from_utf8_lossy(&out)).into_bytes())
}

/// Each section rendered alone starts with roff's two-line apostrophe preamble: keep the first.
fn once_preamble(roff: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    roff.lines()
        .filter(|l| !(l.starts_with(".ie \\n(.g .ds Aq") || l.starts_with(".el .ds Aq")) || seen.insert(*l))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// One SYNOPSIS line: the command, every visible option with its value name (`[--model NAME]`,
/// `[--resume [ID]]`, `[--skills-dir DIR]...`), the arguments, and the subcommand.
fn synopsis(cmd: &clap::Command) -> String {
    let mut parts = vec![cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string()];
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set() && !a.is_positional()) {
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("-{s}|--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => continue,
        };
        let value = if arg.get_action().takes_values() {
            let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
            let value = value_name(arg);
            if optional {
                format!(" [{value}]")
            } else {
                format!(" {value}")
            }
        } else {
            String::new()
        };
        let repeat = if matches!(arg.get_action(), clap::ArgAction::Append | clap::ArgAction::Count) {
            "..."
        } else {
            ""
        };
        parts.push(if arg.is_required_set() {
            format!("{flag}{value}{repeat}")
        } else {
            format!("[{flag}{value}]{repeat}")
        });
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let value = format!("{}{}", value_name(arg), if many { "..." } else { "" });
        parts.push(if arg.is_required_set() {
            format!("<{value}>")
        } else {
            format!("[{value}]")
        });
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        parts.push(if cmd.is_subcommand_required_set() {
            "<COMMAND>".into()
        } else {
            "[COMMAND]".into()
        });
    }
    parts.join(" ")
}

/// An argument's value name (`NAME`), else its id in capitals.
fn value_name(arg: &clap::Arg) -> String {
    arg.get_value_names()
        .map(|names| names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase())
}

/// ENVIRONMENT and EXIT STATUS as roff, from the tables `--help` ends with.
fn sections() -> String {
    use crate::cli::help::{ENVIRONMENT, EXIT_STATUS, SETTINGS_SOURCES};
    let mut out = format!(".SH ENVIRONMENT\n.PP\n{}\n", roff_text(SETTINGS_SOURCES));
    for (name, meaning) in ENVIRONMENT {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff_text(name), roff_text(meaning)));
    }
    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_STATUS {
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", roff_text(meaning)));
    }
    out
}

/// Text safe as one roff text line: backslashes escaped, hyphens as minus signs (so options can
/// be searched for and copied), and a leading `.` or `'` kept from reading as a request.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_text_cannot_start_a_request() {
        assert_eq!(roff_text(".SH x-y \\n"), "\\&.SH x\\-y \\en");
        assert_eq!(roff_text("plain"), "plain");
    }
}
