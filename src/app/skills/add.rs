//! `agent skills add SOURCE` and `agent skills remove NAME`: fetch (the system `git`, or
//! a local folder), choose the skills, put each in place atomically, record it in
//! `skills-lock.json`. Nothing from the skill runs; scripts with CRLF endings or no executable bit
//! are fixed in the installed copy only when `--fix` says so or a person agrees.

use std::path::{Path, PathBuf};

use super::choose::{Wanted, choose};
use super::plan::{Asked, Plan, plan};
use crate::exec::trust::ManifestStore;
use crate::exit::{AppError, ExitCode};
use crate::output::library::{Clash, InstalledSkill, LibraryAsker, Refused, SkillRemoved, SkillsAdded};
use crate::skills::check::portable::{ScriptIssue, ScriptProblem, check_scripts};
use crate::skills::check::refs::script_problems;
use crate::skills::library::git;
use crate::skills::library::install::{self, Candidate, InstallError, find_candidates};
use crate::skills::library::lock::{LockEntry, LockFile, now_rfc3339};
use crate::skills::library::source::{Location, Source};
use crate::skills::load::parse::{FolderLoad, load_skill};

/// What `skills add` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct AddRequest {
    pub(crate) source: String,
    /// `--skill NAME` (repeatable): which skills of a source holding several.
    pub(crate) skills: Vec<String>,
    /// `--fix`: fix script problems in the installed copy without asking.
    pub(crate) fix: bool,
    /// `--all`: every skill of the source, without asking.
    pub(crate) all: bool,
    /// `--force`: install over audit findings of high or critical severity without asking.
    pub(crate) force: bool,
    /// `--as NAME`: install the one chosen skill under this name (folder and own name).
    pub(crate) new_name: Option<String>,
}

/// A fetched source: the tree to install from, and the commit (git sources). The temporary folder
/// of a git fetch lives as long as this.
pub(crate) struct Fetched {
    pub(crate) tree: PathBuf,
    pub(crate) commit: Option<String>,
    _tmp: Option<tempfile::TempDir>,
}

/// Fetch `source` (a git clone into a temporary folder, or the local folder as it is) and resolve
/// its `#SUBDIR`.
pub(crate) async fn fetch(source: &Source) -> Result<Fetched, AppError> {
    let (base, commit, tmp) = match &source.location {
        Location::Local(dir) => (dir.clone(), None, None),
        Location::Git(url) => {
            let tmp = tempfile::Builder::new()
                .prefix("agent-skill-")
                .tempdir()
                .map_err(|e| AppError::context(ExitCode::Config, "cannot make a temporary folder to fetch into", e))?;
            let commit = git::fetch(url, source.reference.as_deref(), tmp.path())
                .await
                .map_err(|e| AppError::context(ExitCode::Config, format!("cannot fetch {source}"), e))?;
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

/// Install the skills `request` names from its source into `root`. Skills of this source that
/// are already installed from it are left as they are (re-adding a partly installed repository
/// installs the rest); a folder in the way that came from elsewhere stops the install before
/// anything is put in place. Script problems are asked about once for the whole install.
pub(crate) async fn add(
    request: &AddRequest,
    cwd: &Path,
    root: &Path,
    project: bool,
    asker: &dyn LibraryAsker,
) -> Result<SkillsAdded, AppError> {
    let source = Source::parse(&request.source, cwd).map_err(|e| AppError::from_source(ExitCode::Usage, e))?;
    let mut lock = LockFile::read(root).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    install::clear_leftovers(root);
    let fetched = fetch(&source).await?;
    let candidates = find_candidates(&fetched.tree);
    let searched = searched(&source);
    let wanted = Wanted {
        names: &request.skills,
        all: request.all,
    };
    let chosen = choose(&source, &searched, &candidates, &wanted, asker)?;
    let new_name = checked_new_name(request.new_name.as_deref(), chosen.len())?;
    let asked = Asked {
        source: &source,
        root,
        all: request.all,
        new_name,
    };
    let Plan {
        todo,
        already,
        clashes,
        templates,
    } = plan(&asked, &lock, &chosen);
    if !request.all && !clashes.is_empty() {
        return Err(AppError::usage(clash_error(&clashes)));
    }
    for (candidate, _, _) in &todo {
        super::verify::require_signature(&candidate.dir, &source.location_text())?;
    }
    let problems: Vec<ScriptProblem> = todo.iter().flat_map(|(c, _, _)| problems_of(&c.dir)).collect();
    let fix = fix_decision(request.fix, &problems, todo.len(), asker);
    let (mut installed, mut refused) = (Vec::new(), Vec::new());
    for (candidate, name, subdir) in todo {
        let flags = Flags {
            fix,
            force: request.force,
            rename: new_name.is_some(),
        };
        let skill = match install_one(candidate, &name, root, false, flags, asker) {
            Ok(skill) => skill,
            // `--all` goes on past a skill the audit refused; the command then exits 7 or 8.
            Err(e) if request.all && matches!(e.code, ExitCode::AuditFindings | ExitCode::AuditCritical) => {
                refused.push(Refused {
                    name,
                    subdir,
                    critical: e.code == ExitCode::AuditCritical,
                    message: e.message,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        let renamed_from = new_name.map(|_| candidate.name.clone());
        let entry = lock_entry(&source, fetched.commit.clone(), subdir.clone(), &skill, renamed_from);
        lock.skills.insert(name.clone(), entry);
        // Written after each skill, so a failure later leaves every installed one recorded.
        lock.write(root)
            .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
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
        already,
        clashes,
        templates,
        refused,
        project,
    })
}

/// Where a source was searched for skills, as the "holds no skill" error says it.
fn searched(source: &Source) -> String {
    format!(
        "{} and its folders {MAX_DEPTH_TEXT} (hidden ones only as `skills/.NAME` categories or other agents' folders)",
        source
            .subdir
            .as_deref()
            .map_or_else(|| "the source".to_string(), |s| format!("#{s}"))
    )
}

/// The lock entry of `skill`, just installed from `source` at `commit`.
fn lock_entry(
    source: &Source,
    commit: Option<String>,
    subdir: Option<String>,
    skill: &InstalledSkill,
    renamed_from: Option<String>,
) -> LockEntry {
    LockEntry {
        source: source.location_text(),
        reference: source.reference.clone(),
        commit,
        subdir,
        installed_at: now_rfc3339(),
        hash: skill.hash.clone(),
        audit: skill.audit.clone(),
        digest: skill.digest.clone(),
        renamed_from,
    }
}

/// `--as NAME`, checked: it names one skill, with the Agent Skills naming rules.
fn checked_new_name(new_name: Option<&str>, chosen: usize) -> Result<Option<&str>, AppError> {
    let Some(name) = new_name else {
        return Ok(None);
    };
    if chosen != 1 {
        return Err(AppError::usage(format!(
            "--as gives one skill a new name, and {chosen} were chosen: name the one with --skill NAME"
        )));
    }
    if let Some(why) = crate::skills::skeleton::invalid_name(name) {
        return Err(AppError::usage(format!("--as {name:?}: {why}")));
    }
    Ok(Some(name))
}

/// The error for clashes when only the named skills were asked for: each, and how to take it.
fn clash_error(clashes: &[Clash]) -> String {
    let lines: Vec<String> = clashes
        .iter()
        .map(|c| {
            format!(
                "{}: the name is taken by {}; take it as another: {}",
                c.skill,
                c.taken_by.display(),
                c.fix
            )
        })
        .collect();
    format!("nothing was installed: {}", lines.join("; "))
}

/// How deep a source is searched, as the "holds no skill" error says it.
const MAX_DEPTH_TEXT: &str = "up to 4 levels down";

/// The script problems a skill folder would be installed with (what `skills check` reports).
pub(crate) fn problems_of(dir: &Path) -> Vec<ScriptProblem> {
    match dir.parent().map(|parent| load_skill(dir, parent)) {
        Some(FolderLoad::Skill(skill)) => script_problems(dir, skill.entry.as_deref(), &skill.skill_file),
        _ => check_scripts(dir, None),
    }
}

/// Whether to fix `problems` in the installed copies: `--fix`, or a person's yes to one question
/// for the whole install that names only the kinds of problem present.
pub(crate) fn fix_decision(fix: bool, problems: &[ScriptProblem], skills: usize, asker: &dyn LibraryAsker) -> bool {
    if problems.is_empty() || fix {
        return fix;
    }
    if !asker.can_ask() {
        return false;
    }
    let count = |issue| problems.iter().filter(|p| p.issue == issue).count();
    let kinds: Vec<String> = [
        (ScriptIssue::CrlfLineEndings, "with CRLF line endings"),
        (ScriptIssue::NotExecutable, "without the executable bit"),
    ]
    .into_iter()
    .filter(|(issue, _)| count(*issue) > 0)
    .map(|(issue, what)| format!("{} script(s) {what}", count(issue)))
    .collect();
    let whose = if skills == 1 {
        String::new()
    } else {
        format!(" in {skills} skills")
    };
    asker.confirm(&format!(
        "{}{whose}; fix them in the installed copies?",
        kinds.join(" and ")
    ))
}

/// How one skill is installed: `--fix`, `--force`, and whether it takes its folder's name as its
/// own (`--as`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flags {
    pub(crate) fix: bool,
    pub(crate) force: bool,
    pub(crate) rename: bool,
}

/// Stage, rename the staged copy if asked, audit it (the gate: `super::gate`), fix scripts if
/// allowed, and put one skill in place as `root/name`.
pub(crate) fn install_one(
    candidate: &Candidate,
    name: &str,
    root: &Path,
    replace: bool,
    Flags { fix, force, rename }: Flags,
    asker: &dyn LibraryAsker,
) -> Result<InstalledSkill, AppError> {
    let failed = |e: InstallError| match e {
        InstallError::Exists(_) | InstallError::BadName(_) => AppError::from_source(ExitCode::Usage, e),
        _ => AppError::from_source(ExitCode::Config, e),
    };
    if !replace && std::fs::symlink_metadata(root.join(name)).is_ok() {
        return Err(failed(InstallError::Exists(root.join(name))));
    }
    let staged = install::stage(&candidate.dir, root, name).map_err(failed)?;
    let renamed = if rename {
        crate::skills::library::rename::rename(&staged, name).map_err(|e| {
            AppError::context(
                ExitCode::Usage,
                format!("{}: cannot install it as {name}", candidate.name),
                e,
            )
        })
    } else {
        Ok(())
    };
    let declared = if rename { name } else { &candidate.name };
    let result = renamed
        .and_then(|()| super::gate::check(&staged, name, force, asker))
        .and_then(|verdict| {
            let skill = fix_and_commit(&staged, name, declared, root, replace, fix).map_err(failed)?;
            Ok(InstalledSkill {
                audit: Some(verdict),
                digest: crate::audit::digest::digest_dir(&skill.dir).ok(),
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
    declared_name: &str,
    root: &Path,
    replace: bool,
    fix: bool,
) -> Result<InstalledSkill, InstallError> {
    let problems = problems_of(staged);
    let dir = install::commit(staged, root, name, replace)?;
    let (mut fixed, mut unfixed) = (Vec::new(), Vec::new());
    for problem in problems {
        // The problem was found in the staged copy; the same file now lives in `dir`.
        let moved = match problem.path.strip_prefix(staged) {
            Ok(rel) => ScriptProblem {
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
        declared_name: declared_name.to_string(),
        hash: ManifestStore::load().record(&dir),
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

/// `skills remove NAME` (its own name or its folder's): delete an installed skill and its lock entry. Only skills that `skills
/// add` installed (listed in the lock file) are removed.
pub(crate) fn remove(name: &str, root: &Path) -> Result<SkillRemoved, AppError> {
    let (_, folder, _) = super::installed::entries(&[root], Some(name))?
        .into_iter()
        .next()
        .ok_or_else(|| AppError::internal("a resolved name named no entry"))?;
    let mut lock = LockFile::read(root).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    lock.skills.remove(&folder);
    let dir = root.join(&folder);
    if std::fs::symlink_metadata(&dir).is_ok() {
        install::remove(&dir).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    }
    lock.write(root)
        .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    Ok(SkillRemoved {
        name: folder,
        dir,
        lock: LockFile::path(root),
    })
}
