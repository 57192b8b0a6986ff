//! Reading the settings that choose the skill roots (`--skills-dir`, `AGENT_SKILLS_PATH`,
//! `AGENT_OTHER_AGENTS`, the home and data folders, `AGENT_BUNDLED_SKILLS`); their precedence is
//! `skills::roots` (docs/design.md#skill-roots).

use std::path::{Path, PathBuf};

use super::Environment;
use crate::exit::{AppError, ExitCode};
use crate::skills::roots::{Given, SkillRoot, in_order, other_agents};

/// The skill roots, in precedence order (docs/design.md#skill-roots).
pub(super) fn skill_roots(flags: &[PathBuf], env: &Environment, cwd: &Path) -> Result<Vec<SkillRoot>, AppError> {
    let mut named = Vec::new();
    for dir in flags {
        let path = if dir.is_absolute() { dir.clone() } else { cwd.join(dir) };
        if let Err(e) = std::fs::read_dir(&path) {
            return Err(AppError::config(format!(
                "--skills-dir {}: cannot read the folder ({e})",
                dir.display()
            )));
        }
        named.push(path);
    }
    let env_path = env.get("AGENT_SKILLS_PATH").map(|list| {
        list.split(':')
            .filter(|p| !p.is_empty())
            .map(|part| {
                let p = PathBuf::from(part);
                if p.is_absolute() { p } else { cwd.join(p) }
            })
            .collect()
    });
    let others = other_agents(env.get("AGENT_OTHER_AGENTS")).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    let home = home_dir(env);
    Ok(in_order(Given {
        flags: named,
        env_path,
        cwd,
        home: home.as_deref(),
        others: &others,
        bundled_data_home: bundled_data_home(env, home.as_deref()),
    }))
}

/// The data folder the bundled skills are written below; `None` when `AGENT_BUNDLED_SKILLS` is
/// `0` (or `off`, `false`, `no`) or there is no data folder.
fn bundled_data_home(env: &Environment, home: Option<&Path>) -> Option<PathBuf> {
    if env
        .get("AGENT_BUNDLED_SKILLS")
        .is_some_and(crate::support::cache_file::is_off)
    {
        return None;
    }
    env.get("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".local/share")))
}

fn home_dir(env: &Environment) -> Option<PathBuf> {
    env.process
        .get("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}
