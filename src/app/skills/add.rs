//! `agent skills add SOURCE` and `agent skills remove NAME` (SPEC §10): fetch (the system `git`, or
//! a local folder), choose the skills, put each in place atomically, record it in
//! `skills-lock.json`. Nothing from the skill runs; scripts with CRLF endings or no executable bit
//! are fixed in the installed copy only when `--fix` says so or a person agrees.

use std::path::{Path, PathBuf};

use crate::exec::trust::hash_skill_dir;
use crate::exit::AppError;
use crate::output::library::{Choice, InstalledSkill, LibraryAsker, SkillRemoved, SkillsAdded};
use crate::skills::library::git;
use crate::skills::library::install::{self, Candidate, InstallError, find_candidates};
use crate::skills::library::lock::{LockEntry, LockFile, now_rfc3339};
use crate::skills::library::source::{Location, Source};
use crate::skills::parse::{Loaded, load_skill};
use crate::skills::portable::check_scripts;

/// What `skills add` was asked.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    pub source: String,
    /// `--skill NAME` (repeatable): which skills of a source holding several.
    pub skills: Vec<String>,
    /// `--fix`: fix script problems in the installed copy without asking.
    pub fix: bool,
    /// `--force`: install over audit findings of high or critical severity without asking.
    pub force: bool,
}

/// A fetched source: the tree to install from, and the commit (git sources). The temporary folder
/// of a git fetch lives as long as this.
pub struct Fetched {
    pub tree: PathBuf,
    pub commit: Option<String>,
    _tmp: Option<tempfile::TempDir>,
}

/// Fetch `source` (a git clone into a temporary folder, or the local folder as it is) and resolve
/// its `#SUBDIR`.
pub async fn fetch(source: &Source) -> Result<Fetched, AppError> {
    let (base, commit, tmp) = match &source.location {
        Location::Local(dir) => (dir.clone(), None, None),
        Location::Git(url) => {
            let tmp = tempfile::Builder::new()
                .prefix("agent-skill-")
                .tempdir()
                .map_err(|e| AppError::config(format!("cannot make a temporary folder to fetch into: {e}")))?;
            let commit = git::fetch(url, source.reference.as_deref(), tmp.path())
                .await
                .map_err(|e| AppError::config(format!("cannot fetch {source}: {e}")))?;
            (tmp.path().to_path_buf(), Some(commit), Some(tmp))
        }
    };
    let tree = match &source.subdir {
        Some(sub) => base.join(sub),
        None => base,
    };
    if !tree.is_dir() {
        return Err(AppError::usage(format!(
            "{source}: there is no folder {} in it",
            source.subdir.as_deref().unwrap_or(".")
        )));
    }
    Ok(Fetched {
        tree,
        commit,
        _tmp: tmp,
    })
}

/// Install the skills `request` names from its source into `root`.
pub async fn add(
    request: &AddRequest,
    cwd: &Path,
    root: &Path,
    project: bool,
    asker: &dyn LibraryAsker,
) -> Result<SkillsAdded, AppError> {
    let source = Source::parse(&request.source, cwd).map_err(|e| AppError::usage(e.to_string()))?;
    let mut lock = LockFile::read(root).map_err(|e| AppError::config(e.to_string()))?;
    let fetched = fetch(&source).await?;
    let candidates = find_candidates(&fetched.tree);
    let chosen = choose(&source, &candidates, &request.skills, asker)?;
    let mut installed = Vec::new();
    for candidate in chosen {
        let name = folder_name(candidate);
        super::verify::require_signature(&candidate.dir, &source.location_text())?;
        let skill = install_one(candidate, &name, root, false, (request.fix, request.force), asker)?;
        let subdir = join_subdirs(source.subdir.as_deref(), candidate.subdir.as_deref());
        let entry = LockEntry {
            source: source.location_text(),
            reference: source.reference.clone(),
            commit: fetched.commit.clone(),
            subdir: subdir.clone(),
            installed_at: now_rfc3339(),
            hash: skill.hash.clone(),
            audit: skill.audit.clone(),
            digest: skill.digest.clone(),
        };
        lock.skills.insert(name.clone(), entry);
        // Written after each skill, so a failure later leaves every installed one recorded.
        lock.write(root).map_err(|e| AppError::config(e.to_string()))?;
        installed.push(InstalledSkill {
            source: source.location_text(),
            reference: source.reference.clone(),
            commit: fetched.commit.clone(),
            subdir,
            ..skill
        });
    }
    Ok(SkillsAdded {
        root: root.to_path_buf(),
        lock: LockFile::path(root),
        installed,
        project,
    })
}

/// The folder name a candidate is installed as: its skill name when that can be a folder name,
/// else the folder it came in.
fn folder_name(candidate: &Candidate) -> String {
    if install::check_name(&candidate.name).is_ok() {
        return candidate.name.clone();
    }
    candidate
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| candidate.name.clone())
}

/// `#SUBDIR` of the source joined with where the skill was found below it.
fn join_subdirs(source: Option<&str>, found: Option<&str>) -> Option<String> {
    match (source, found) {
        (Some(a), Some(b)) => Some(format!("{a}/{b}")),
        (a, b) => a.or(b).map(str::to_string),
    }
}

/// Which candidates to install: the ones named, the only one, or a person's choice; without a
/// terminal several candidates and no `--skill` are a usage error naming them.
fn choose<'a>(
    source: &Source,
    candidates: &'a [Candidate],
    wanted: &[String],
    asker: &dyn LibraryAsker,
) -> Result<Vec<&'a Candidate>, AppError> {
    let names = || {
        candidates
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if candidates.is_empty() {
        return Err(AppError::usage(format!(
            "{source} holds no skill (a folder with a SKILL.md and a description); name the folder with #SUBDIR"
        )));
    }
    if !wanted.is_empty() {
        let mut picked = Vec::new();
        for name in wanted {
            let found = candidates
                .iter()
                .find(|c| c.name == *name || c.dir.file_name().is_some_and(|f| f.to_string_lossy() == name.as_str()));
            match found {
                Some(c) => picked.push(c),
                None => {
                    return Err(AppError::usage(format!(
                        "{source} has no skill named {name:?}; it has: {}",
                        names()
                    )));
                }
            }
        }
        return Ok(picked);
    }
    if let [only] = candidates {
        return Ok(vec![only]);
    }
    if !asker.can_ask() {
        return Err(AppError::usage(format!(
            "{source} holds {} skills ({}); choose with --skill NAME (repeatable)",
            candidates.len(),
            names()
        )));
    }
    let choices: Vec<Choice> = candidates
        .iter()
        .map(|c| Choice {
            name: c.name.clone(),
            description: c.description.clone(),
            subdir: c.subdir.clone(),
        })
        .collect();
    let picked: Vec<&Candidate> = asker
        .choose(&source.to_string(), &choices)
        .into_iter()
        .filter_map(|i| candidates.get(i))
        .collect();
    if picked.is_empty() {
        return Err(AppError::usage("no skill chosen; nothing was installed"));
    }
    Ok(picked)
}

/// Stage, audit the staged copy (the gate: `super::gate`), fix scripts if allowed, and put one
/// skill in place as `root/name`. `(fix, force)` are `--fix` and `--force`.
pub fn install_one(
    candidate: &Candidate,
    name: &str,
    root: &Path,
    replace: bool,
    (fix, force): (bool, bool),
    asker: &dyn LibraryAsker,
) -> Result<InstalledSkill, AppError> {
    let failed = |e: InstallError| match e {
        InstallError::Exists(_) | InstallError::BadName(_) => AppError::usage(e.to_string()),
        _ => AppError::config(e.to_string()),
    };
    if !replace && std::fs::symlink_metadata(root.join(name)).is_ok() {
        return Err(failed(InstallError::Exists(root.join(name))));
    }
    let staged = install::stage(&candidate.dir, root, name).map_err(failed)?;
    let result = super::gate::check(&staged, name, force, asker).and_then(|verdict| {
        let skill = fix_and_commit(&staged, name, root, replace, fix, asker).map_err(failed)?;
        Ok(InstalledSkill {
            audit: Some(verdict),
            digest: crate::skills::audit::digest::digest_dir(&skill.dir).ok(),
            ..skill
        })
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    result
}

fn fix_and_commit(
    staged: &Path,
    name: &str,
    root: &Path,
    replace: bool,
    fix: bool,
    asker: &dyn LibraryAsker,
) -> Result<InstalledSkill, InstallError> {
    let entry = match load_skill(staged, root) {
        Loaded::Skill(skill) => skill.entry,
        _ => None,
    };
    let problems = check_scripts(staged, entry.as_deref());
    let fix = !problems.is_empty()
        && (fix
            || asker.can_ask()
                && asker.confirm(&format!(
                    "{name}: {} script problem(s) (CRLF line endings, missing executable bit); fix them in the installed copy?",
                    problems.len()
                )));
    let dir = install::commit(staged, root, name, replace)?;
    let (mut fixed, mut unfixed) = (Vec::new(), Vec::new());
    for problem in problems {
        // The problem was found in the staged copy; the same file now lives in `dir`.
        let moved = match problem.path.strip_prefix(staged) {
            Ok(rel) => crate::skills::portable::ScriptProblem {
                path: dir.join(rel),
                ..problem
            },
            Err(_) => problem,
        };
        if fix && moved.fix().is_ok() {
            fixed.push(moved);
        } else {
            unfixed.push(moved);
        }
    }
    Ok(InstalledSkill {
        name: name.to_string(),
        hash: hash_skill_dir(&dir),
        dir,
        source: String::new(),
        reference: None,
        commit: None,
        subdir: None,
        fixed,
        unfixed,
        audit: None,
        digest: None,
    })
}

/// `skills remove NAME`: delete an installed skill and its lock entry. Only skills that `skills
/// add` installed (listed in the lock file) are removed.
pub fn remove(name: &str, root: &Path) -> Result<SkillRemoved, AppError> {
    let mut lock = LockFile::read(root).map_err(|e| AppError::config(e.to_string()))?;
    if lock.skills.remove(name).is_none() {
        let listed: Vec<&str> = lock.skills.keys().map(String::as_str).collect();
        let listed = if listed.is_empty() {
            "it lists none".to_string()
        } else {
            format!("it lists {}", listed.join(", "))
        };
        return Err(AppError::usage(format!(
            "{name} is not in {} ({listed}); only skills installed with `agent skills add` are removed: \
             delete other folders yourself",
            LockFile::path(root).display()
        )));
    }
    let dir = root.join(name);
    if std::fs::symlink_metadata(&dir).is_ok() {
        install::remove(&dir).map_err(|e| AppError::config(e.to_string()))?;
    }
    lock.write(root).map_err(|e| AppError::config(e.to_string()))?;
    Ok(SkillRemoved {
        name: name.to_string(),
        dir,
        lock: LockFile::path(root),
    })
}
