//! The skill roots of a run in precedence order (docs/design.md#skill-roots): `--skills-dir`,
//! `AGENT_SKILLS_PATH`, the project's, the user's, other agents' project and user folders, then
//! the bundled skills. `config` reads the settings into a [`Given`]; the order is decided here.

use std::path::{Path, PathBuf};

use super::{RootDir, RootKind, SkillRoot, Tool, other_project_roots, own_project_roots, user_roots};

/// What the settings of a run say about its roots, already read (and checked) by `config`.
#[derive(Debug, Clone)]
pub(crate) struct Given<'a> {
    /// Each `--skills-dir`, absolute, in order.
    pub(crate) flags: Vec<PathBuf>,
    /// Each entry of `AGENT_SKILLS_PATH`, absolute, in order; `None` when it is not set.
    pub(crate) env_path: Option<Vec<PathBuf>>,
    /// The working folder, whose project roots count.
    pub(crate) cwd: &'a Path,
    /// The user's home folder, when there is one.
    pub(crate) home: Option<&'a Path>,
    /// The other agents whose folders are searched, in order (`AGENT_OTHER_AGENTS`).
    pub(crate) others: &'a [Tool],
    /// The data folder the bundled skills are written below (`$XDG_DATA_HOME`); `None` when
    /// there is none or `AGENT_BUNDLED_SKILLS` turns them off.
    pub(crate) bundled_data_home: Option<PathBuf>,
}

/// The skill roots, in precedence order (docs/design.md#skill-roots).
pub(crate) fn in_order(given: Given<'_>) -> Vec<SkillRoot> {
    // The skills shipped in the binary are a starting point, not part of a library someone chose
    // by naming its folders: a run given `--skills-dir` or `AGENT_SKILLS_PATH` (a skill author's
    // CI, a test) sees only what it named and the user's own.
    let named = !given.flags.is_empty() || given.env_path.is_some();
    let mut roots: Vec<SkillRoot> = given
        .flags
        .into_iter()
        .map(|path| SkillRoot::new(path, RootKind::Flag))
        .collect();
    roots.extend(
        given
            .env_path
            .into_iter()
            .flatten()
            .map(|path| SkillRoot::new(path, RootKind::EnvPath)),
    );
    let (cwd, home, others) = (given.cwd, given.home, given.others);
    let root = |kind: RootKind| move |r: RootDir| SkillRoot::new(r.path, kind).of(r.tool);
    roots.extend(own_project_roots(cwd, home).into_iter().map(root(RootKind::Project)));
    let (own_user, other_user) = match home {
        Some(home) => user_roots(home, others),
        None => (Vec::new(), Vec::new()),
    };
    roots.extend(own_user.into_iter().map(root(RootKind::User)));
    roots.extend(
        other_project_roots(cwd, home, others)
            .into_iter()
            .map(root(RootKind::Project)),
    );
    roots.extend(other_user.into_iter().map(root(RootKind::User)));
    if !named && let Some(dir) = given.bundled_data_home.as_deref().and_then(bundled_root) {
        roots.push(SkillRoot::new(dir, RootKind::Bundled));
    }
    roots
}

/// The folder of the bundled skills below `data_home`, written out on first use; `None` when it
/// cannot be written.
fn bundled_root(data_home: &Path) -> Option<PathBuf> {
    match crate::skills::bundled::ensure(data_home) {
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
