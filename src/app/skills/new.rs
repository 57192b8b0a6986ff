//! `agent skills new NAME [--scp] [--dir DIR]`: write a working skill skeleton and say what next.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::exec::trust::FolderTrust;
use crate::exit::{AppError, ExitCode};
use crate::output::report::SkillNew;
use crate::skills::Dialect;
use crate::skills::roots::RootKind;
use crate::skills::skeleton::{WriteError, invalid_name, skeleton, write};

/// Write the skeleton of `name` (in `dir`, else where [`target_root`] says) and report what was
/// written.
pub(super) fn new(
    name: &str,
    scp: bool,
    dir: Option<&Path>,
    config: &Config,
    trust: &FolderTrust,
) -> Result<SkillNew, AppError> {
    if let Some(why) = invalid_name(name) {
        return Err(AppError::usage(format!(
            "{why}: skill names are lowercase letters, digits and single hyphens (the folder gets the same name)"
        )));
    }
    let root = clean(&target_root(dir, config)?);
    let skill_dir = root.join(name);
    let dialect = if scp { Dialect::Scp } else { Dialect::AgentSkills };
    let files = skeleton(name, dialect, &skill_dir);
    write(&skill_dir, &files).map_err(|e| match e {
        WriteError::Exists(why) => AppError::usage(why),
        WriteError::Io(why) => AppError::config(why),
    })?;
    let found = config.skill_roots.iter().find(|r| same_folder(&r.path, &root));
    // A project's own skills run commands only once its folder is trusted with their content.
    let in_project = found.is_some_and(|r| r.kind == RootKind::Project);
    let untrusted_project = (in_project && !trust.skill_may_run(&skill_dir)).then(|| trust.folder().to_path_buf());
    Ok(SkillNew {
        created: skill_dir,
        dialect,
        files: files.iter().map(|f| f.path).collect(),
        found_by_agent: found.is_some(),
        untrusted_project,
        purposes: files.iter().map(|f| f.purpose).collect(),
    })
}

/// `--dir`, else the first root the user named (`--skills-dir`, then `AGENT_SKILLS_PATH`) that is
/// a writable folder, else the user's own `~/.agents/skills`: found from every folder, and
/// needing no trust step, unlike a project's `./skills`.
fn target_root(dir: Option<&Path>, config: &Config) -> Result<PathBuf, AppError> {
    if let Some(d) = dir {
        let cwd = std::env::current_dir()
            .map_err(|e| AppError::context(ExitCode::Config, "cannot determine the working directory", e))?;
        return Ok(cwd.join(d));
    }
    let named = config
        .skill_roots
        .iter()
        .filter(|r| matches!(r.kind, RootKind::Flag | RootKind::EnvPath))
        .find(|r| r.path.is_dir() && writable(&r.path));
    if let Some(root) = named {
        return Ok(root.path.clone());
    }
    config
        .skill_roots
        .iter()
        .find(|r| r.kind == RootKind::User)
        .map(|r| r.path.clone())
        .ok_or_else(|| AppError::config("no home folder to put the skill in (HOME is unset); pass --dir DIR"))
}

/// `path` without `.` components (`proj/./skills` → `proj/skills`), as a person would write it.
/// `..` is kept: taking it away without asking the file system could name another folder.
fn clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// Whether this process may create entries in `dir`.
fn writable(dir: &Path) -> bool {
    use rustix::fs::{Access, access};
    access(dir, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_without_dot_components() {
        assert_eq!(clean(Path::new("/w/proj/./skills/.")), Path::new("/w/proj/skills"));
        assert_eq!(clean(Path::new("/w/proj/../skills")), Path::new("/w/proj/../skills"));
    }
}
