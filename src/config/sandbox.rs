//! The sandbox settings of a run (docs/sandbox.md): `--sandbox` else `AGENT_SANDBOX` else `on`;
//! the writable paths of `--allow-write` together with `AGENT_ALLOW_WRITE` (`:`-separated); and
//! what the kernel offers, asked once.

use std::path::{Path, PathBuf};

use super::Environment;
use crate::cli::Cli;
use crate::exec::sandbox::contain::Extra;
use crate::exec::sandbox::protected::Protected;
use crate::exec::sandbox::{Kernel, Mode, Settings};
use crate::exit::AppError;
use crate::skills::roots::repository_root;

/// The sandbox settings for a run started in `cwd`, with these skill roots out of every skill's
/// reach.
pub(crate) fn resolve(cli: &Cli, env: &Environment, cwd: &Path, skill_roots: &[PathBuf]) -> Result<Settings, AppError> {
    let mode = match (cli.sandbox, env.get("AGENT_SANDBOX")) {
        (Some(mode), _) => mode,
        (None, Some(v)) => Mode::parse(v)
            .ok_or_else(|| AppError::config(format!("AGENT_SANDBOX={v:?} is not one of on, strict, off")))?,
        (None, None) => Mode::default(),
    };
    let mut allow_write = cli.allow_write.clone();
    if let Some(list) = env.get("AGENT_ALLOW_WRITE") {
        allow_write.extend(list.split(':').map(str::to_string));
    }
    let home = env.get("HOME").map(Path::new);
    let protected = Protected::new(
        home,
        |var| env.get(var).map(str::to_string),
        cwd,
        repository_root(cwd).as_deref(),
        skill_roots,
    );
    let mut settings =
        Settings::new(mode, Kernel::detect(), cwd, home, env.get("TMPDIR"), &allow_write).protecting(protected);
    settings.extra = extra(env);
    Ok(settings)
}

/// The user's own allowances (`AGENT_ALLOW_COMMANDS`, `AGENT_ALLOW_NETWORK`), read from the
/// environment and `~/.config/agent/.env` only: a project's `.env` cannot widen what its own
/// skills may do. The tools' caches live under the agent's cache folder.
fn extra(env: &Environment) -> Extra {
    let cache_home = env
        .get_own("XDG_CACHE_HOME")
        .filter(|v| Path::new(v).is_absolute())
        .map(PathBuf::from)
        .or_else(|| env.get_own("HOME").map(|h| Path::new(h).join(".cache")));
    Extra {
        commands: env
            .get_own("AGENT_ALLOW_COMMANDS")
            .map(Extra::parse_commands)
            .unwrap_or_default(),
        network: super::switch(env.get_own("AGENT_ALLOW_NETWORK")) == Some(true),
        tool_cache: cache_home.map(|c| c.join("agent").join("tools")),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn settings(args: &[&str], process: &[(&str, &str)]) -> Result<Settings, AppError> {
        let cli = Cli::try_parse_from(std::iter::once("agent").chain(args.iter().copied())).unwrap();
        resolve(&cli, &Environment::from_maps(process, &[], &[]), Path::new("/w"), &[])
    }

    #[test]
    fn the_flag_beats_the_variable_and_on_is_the_default() {
        assert_eq!(settings(&[], &[]).unwrap().mode, Mode::On);
        assert_eq!(
            settings(&[], &[("AGENT_SANDBOX", "Strict")]).unwrap().mode,
            Mode::Strict
        );
        let s = settings(&["--sandbox", "off"], &[("AGENT_SANDBOX", "strict")]).unwrap();
        assert_eq!(s.mode, Mode::Off);
        let err = settings(&[], &[("AGENT_SANDBOX", "maybe")]).unwrap_err();
        assert!(err.message.contains("on, strict, off"), "{}", err.message);
    }

    #[test]
    fn the_users_allowances_come_from_their_own_settings_never_a_project_folder() {
        let cli = Cli::try_parse_from(["agent"]).unwrap();
        let project = [("AGENT_ALLOW_COMMANDS", "Bash(rm:*)"), ("AGENT_ALLOW_NETWORK", "1")];
        let env = Environment::from_maps(&[("HOME", "/h")], &project, &[]);
        let s = resolve(&cli, &env, Path::new("/w"), &[]).unwrap();
        assert!(s.extra.commands.is_empty() && !s.extra.network);
        assert_eq!(s.extra.tool_cache, Some(PathBuf::from("/h/.cache/agent/tools")));
        let env = Environment::from_maps(&[("HOME", "/h")], &[], &project);
        let s = resolve(&cli, &env, Path::new("/w"), &[]).unwrap();
        assert_eq!(s.extra.commands, ["Bash(rm:*)"]);
        assert!(s.extra.network);
    }

    #[test]
    fn allow_write_joins_flags_and_the_variable() {
        let s = settings(
            &["--allow-write", "out", "--allow-write", "/abs"],
            &[("AGENT_ALLOW_WRITE", "~/a:/b"), ("HOME", "/h"), ("TMPDIR", "/t")],
        )
        .unwrap();
        let expected: Vec<PathBuf> = ["/w/out", "/abs", "/h/a", "/b"].iter().map(PathBuf::from).collect();
        assert_eq!(s.allow_write, expected);
        assert_eq!(s.temp, PathBuf::from("/t"));
        assert_eq!(s.home.as_deref(), Some(Path::new("/h")));
    }
}
