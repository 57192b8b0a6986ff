//! `agent completions SHELL`: clap's script for the shell, generated from the same definitions as
//! the parser so it never drifts from the real flags, plus skill names where a skill is named.
//! Skill names depend on where `agent` runs, so the scripts ask `agent skills list` when
//! completing rather than carrying a list.

use clap::{CommandFactory, ValueHint};

use crate::cli::Cli;
use crate::exit::AppError;
use crate::output::Report;

/// What bash and fish get after clap's script: a wrapper that offers skill names where one is
/// typed and leaves every other word to clap's completion.
const BASH_SKILL_NAMES: &str = include_str!("../../templates/completions/skills.bash");
const FISH_SKILL_NAMES: &str = include_str!("../../templates/completions/skills.fish");
const ZSH_SKILL_NAMES: &str = include_str!("../../templates/completions/skills.zsh");

/// Where a skill's name is typed: the subcommand path and the argument's id. The bash and fish
/// templates name the same places in their own terms.
const SKILL_NAME_ARGS: &[(&[&str], &str)] = &[
    (&[], "skill"),
    (&["trust"], "skill"),
    (&["skills", "show"], "name"),
    (&["skills", "tune"], "skill"),
    (&["skills", "eval"], "draft"),
    (&["skills", "update"], "name"),
    (&["skills", "verify"], "name"),
    (&["skills", "remove"], "name"),
];

/// Put in front of a skill-name argument's help for the zsh generator, then taken out again: it
/// finds the argument's line in clap's script whatever its help says.
const MARK: &str = "AGENTSKILLNAMEMARK";

/// The completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> Result<Report, AppError> {
    let mut cmd = Cli::command();
    if shell == clap_complete::Shell::Zsh {
        cmd = mark_skill_names(cmd);
    }
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "agent", &mut script);
    let mut text = String::from_utf8_lossy(&script).into_owned();
    match shell {
        clap_complete::Shell::Bash => text.push_str(BASH_SKILL_NAMES),
        clap_complete::Shell::Fish => text.push_str(FISH_SKILL_NAMES),
        clap_complete::Shell::Zsh => text = zsh_with_skill_names(&text),
        _ => {}
    }
    Ok(Report::Text(text))
}

/// `cmd` with every skill-name argument marked in its help and given no completion of its own
/// (zsh then writes an empty action there, which [`zsh_with_skill_names`] fills).
fn mark_skill_names(cmd: clap::Command) -> clap::Command {
    SKILL_NAME_ARGS
        .iter()
        .fold(cmd, |cmd, (path, id)| mark_at(cmd, path, id))
}

/// `cmd` with argument `id` of the subcommand at `path` marked; unchanged when either is not
/// there (each is looked up first: clap's own lookups would panic).
fn mark_at(cmd: clap::Command, path: &[&str], id: &str) -> clap::Command {
    match path.split_first() {
        Some((first, rest)) if cmd.find_subcommand(first).is_some() => {
            cmd.mut_subcommand(*first, |sub| mark_at(sub, rest, id))
        }
        Some(_) => cmd,
        None if cmd.get_arguments().any(|a| a.get_id().as_str() == id) => cmd.mut_arg(id, |arg| {
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            arg.help(format!("{MARK}{help}")).value_hint(ValueHint::Other)
        }),
        None => cmd,
    }
}

/// clap's zsh script with `_agent_skill_names` as the action of every marked argument, and that
/// function defined before the script's last lines first call `_agent` (so the first completion
/// of a session, which runs the file as it loads, already has it).
fn zsh_with_skill_names(script: &str) -> String {
    let mut out = String::with_capacity(script.len() + ZSH_SKILL_NAMES.len());
    let mut helper_placed = false;
    for line in script.split_inclusive('\n') {
        if !helper_placed && line.starts_with("if [ \"$funcstack[1]\" = \"_agent\" ]") {
            out.push_str(ZSH_SKILL_NAMES);
            out.push('\n');
            helper_placed = true;
        }
        if line.contains(MARK) {
            let line = line.replacen(MARK, "", 1);
            out.push_str(&line.replacen(":' ", ":_agent_skill_names' ", 1));
        } else {
            out.push_str(line);
        }
    }
    if !helper_placed {
        out.push_str(ZSH_SKILL_NAMES);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zsh() -> String {
        match completions(clap_complete::Shell::Zsh) {
            Ok(Report::Text(text)) => text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_skill_name_argument_completes_skill_names_in_zsh() {
        let script = zsh();
        assert!(!script.contains(MARK), "no mark is left behind");
        let places = script.matches(":_agent_skill_names'").count();
        // Each place appears under its own command and again under `help`'s copy of it at most.
        assert!(places >= SKILL_NAME_ARGS.len(), "{places} places");
        for line in script.lines().filter(|l| l.contains("_agent_skill_names'")) {
            assert!(!line.contains("_default"), "{line}");
        }
        let show = script
            .lines()
            .find(|l| l.starts_with("':name -- The skill'\\''s name or its folder"))
            .unwrap_or_default();
        assert!(show.ends_with(":_agent_skill_names' \\"), "{show}");
    }

    #[test]
    fn the_zsh_helper_is_defined_before_the_first_call() {
        let script = zsh();
        let defined = script.find("_agent_skill_names() {").unwrap_or(usize::MAX);
        let first_call = script.find("if [ \"$funcstack[1]\" = \"_agent\" ]").unwrap_or(0);
        assert!(defined < first_call, "{defined} < {first_call}");
    }

    #[test]
    fn bash_and_fish_are_clap_scripts_with_skill_names_after_them() {
        for shell in [clap_complete::Shell::Bash, clap_complete::Shell::Fish] {
            let Ok(Report::Text(text)) = completions(shell) else {
                panic!("{shell}")
            };
            assert!(text.contains("skills list"), "{shell}");
        }
    }
}
