//! Which installed skills a name given to `skills remove`, `update` or `verify` means: the lock
//! files key skills by folder, and a person may use the name the skill gives itself instead (the
//! one `skills list` and the catalog show). Resolved by `crate::skills::resolve`, as every
//! command taking a skill's name is.

use std::path::{Path, PathBuf};

use crate::exit::{AppError, ExitCode};
use crate::skills::library::lock::{LockEntry, LockFile};
use crate::skills::load::parse::{FolderLoad, Reading, load_skill_as};
use crate::skills::resolve::{Named, resolve, unknown};

/// One lock entry: its root, its folder name (the key) and what the lock records.
pub(super) type Entry = (PathBuf, String, LockEntry);

/// The lock entries of `roots` (in order); with `only`, in each root the one skill that name
/// means, by its own name or its folder's. A name no root knows is a usage error naming the
/// nearest names, as `skills show` gives.
pub(super) fn entries(roots: &[&Path], only: Option<&str>) -> Result<Vec<Entry>, AppError> {
    let mut found = Vec::new();
    let mut everyone: Vec<(String, String)> = Vec::new();
    for root in roots {
        let lock = LockFile::read(root).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
        let Some(wanted) = only else {
            found.extend(
                lock.skills
                    .into_iter()
                    .map(|(name, entry)| (root.to_path_buf(), name, entry)),
            );
            continue;
        };
        let names: Vec<(String, String)> = lock
            .skills
            .keys()
            .map(|folder| {
                (
                    own_name(&root.join(folder), root).unwrap_or_else(|| folder.clone()),
                    folder.clone(),
                )
            })
            .collect();
        let named: Vec<Named<'_>> = names.iter().map(|(name, folder)| Named { name, folder }).collect();
        if let Some((_, folder)) = resolve(wanted, &named).and_then(|i| names.get(i))
            && let Some(entry) = lock.skills.get(folder)
        {
            found.push((root.to_path_buf(), folder.clone(), entry.clone()));
        }
        everyone.extend(names);
    }
    if let Some(wanted) = only
        && found.is_empty()
    {
        let named: Vec<Named<'_>> = everyone.iter().map(|(name, folder)| Named { name, folder }).collect();
        return Err(AppError::usage(unknown(
            wanted,
            &named,
            "installed skill",
            "only skills installed with `agent skills add` are in skills-lock.json; `agent skills list` shows every skill",
        )));
    }
    Ok(found)
}

/// The name the skill in `dir` gives itself, when it loads.
fn own_name(dir: &Path, root: &Path) -> Option<String> {
    match load_skill_as(dir, root, Reading::Front) {
        FolderLoad::Skill(skill) => Some(skill.name),
        _ => None,
    }
}
