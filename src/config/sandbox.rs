//! The sandbox settings of a run (docs/sandbox.md): `--sandbox` else `AGENT_SANDBOX` else `on`;
//! the writable paths of `--allow-write` together with `AGENT_ALLOW_WRITE` (`:`-separated); and
//! what the kernel offers, asked once.

use std::path::{Path, PathBuf};

use super::Environment;
use crate::cli::Cli;
use crate::exec::sandbox::protected::Protected;
use crate::exec::sandbox::{Kernel, Mode, Settings};
use crate::exit::AppError;
use crate::support::skill_roots::repository_root;

/// The sandbox settings for a run started in `cwd`, with these skill roots out of every skill's
/// reach.
pub fn resolve(cli: &Cli, env: &Environment, cwd: &Path, skill_roots: &[PathBuf]) -> Result<Settings, AppError> {
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
    Ok(Settings::new(mode, Kernel::detect(), cwd, home, env.get("TMPDIR"), &allow_write).protecting(protected))
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
