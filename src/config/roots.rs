//! The skill roots of a run, in precedence order (docs/design.md#skill-roots): `--skills-dir`,
//! `AGENT_SKILLS_PATH`, the project's, the user's, then other agents' project and user folders.

use std::path::{Path, PathBuf};

use super::Environment;
use crate::exit::AppError;
use crate::skills::discover::{RootKind, SkillRoot};
use crate::support::skill_roots::{RootDir, other_agents, other_project_roots, own_project_roots, user_roots};

/// The skill roots, in precedence order (docs/design.md#skill-roots).
pub(super) fn skill_roots(flags: &[PathBuf], env: &Environment, cwd: &Path) -> Result<Vec<SkillRoot>, AppError> {
    let mut roots = Vec::new();
    for dir in flags {
        let path = if dir.is_absolute() { dir.clone() } else { cwd.join(dir) };
        if let Err(e) = std::fs::read_dir(&path) {
            return Err(AppError::config(format!(
                "--skills-dir {}: cannot read the folder ({e})",
                dir.display()
            )));
        }
        roots.push(SkillRoot::new(path, RootKind::Flag));
    }
    if let Some(list) = env.get("AGENT_SKILLS_PATH") {
        for part in list.split(':').filter(|p| !p.is_empty()) {
            let p = PathBuf::from(part);
            let path = if p.is_absolute() { p } else { cwd.join(p) };
            roots.push(SkillRoot::new(path, RootKind::EnvPath));
        }
    }
    let others = other_agents(env.get("AGENT_OTHER_AGENTS")).map_err(|e| AppError::config(e.to_string()))?;
    let home = home_dir(env);
    let root = |kind: RootKind| move |r: RootDir| SkillRoot::new(r.path, kind).of(r.tool);
    roots.extend(
        own_project_roots(cwd, home.as_deref())
            .into_iter()
            .map(root(RootKind::Project)),
    );
    let (own_user, other_user) = match &home {
        Some(home) => user_roots(home, &others),
        None => (Vec::new(), Vec::new()),
    };
    roots.extend(own_user.into_iter().map(root(RootKind::User)));
    roots.extend(
        other_project_roots(cwd, home.as_deref(), &others)
            .into_iter()
            .map(root(RootKind::Project)),
    );
    roots.extend(other_user.into_iter().map(root(RootKind::User)));
    // The skills shipped in the binary are a starting point, not part of a library someone chose
    // by naming its folders: a run given `--skills-dir` or `AGENT_SKILLS_PATH` (a skill author's
    // CI, a test) sees only what it named and the user's own.
    let named = !flags.is_empty() || env.get("AGENT_SKILLS_PATH").is_some();
    if !named && let Some(dir) = bundled_root(env, home.as_deref()) {
        roots.push(SkillRoot::new(dir, RootKind::Bundled));
    }
    Ok(roots)
}

/// The folder of the bundled skills, written out on first use; `None` when `AGENT_BUNDLED_SKILLS`
/// is `0` (or `off`, `false`, `no`), without a data folder, or when it cannot be written.
fn bundled_root(env: &Environment, home: Option<&Path>) -> Option<PathBuf> {
    if env
        .get("AGENT_BUNDLED_SKILLS")
        .is_some_and(crate::support::cache_file::is_off)
    {
        return None;
    }
    let data_home = env
        .get("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".local/share")))?;
    match crate::skills::bundled::ensure(&data_home) {
        Ok(dir) => Some(dir),
        Err(e) => {
            tracing::warn!(
                "the bundled skills could not be written below {}: {e}",
                data_home.display()
            );
            None
        }
    }
}

fn home_dir(env: &Environment) -> Option<PathBuf> {
    env.process
        .get("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}
