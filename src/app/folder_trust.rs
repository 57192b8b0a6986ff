//! Folder trust at start-up (docs/design.md#folder-trust): read the user's and the working folder's
//! `.env`, ask once on a terminal when the folder is undecided or changed, warn in one line without
//! one, and `agent trust [DIR]`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::app::skills::gate::{self, Gate};
use crate::audit::{Finding, audit_keys};
use crate::config::{Dotenv, Environment, user_dotenv_path};
use crate::exec::trust::{Assessment, DotenvState, FolderTrust, Standing, TrustStore};
use crate::exit::{AppError, ExitCode};
use crate::output::library::LibraryAsker;
use crate::output::report::{Trusted, TrustedFolder};
use crate::skills::roots::{OTHER_AGENTS, other_agents, project_folders, project_roots};
use crate::support::terminal_text::{MAX_NAMED, short_list, visible};
use crate::ui::approve::ask_folder_trust;

/// The settings sources and the working folder's trust, decided for this run.
pub(crate) struct Decided {
    pub(crate) env: Environment,
    pub(crate) trust: Arc<FolderTrust>,
    /// One-line warnings for the user (an ignored `.env`, skills that cannot run commands).
    pub(crate) notes: Vec<String>,
}

/// What a run does about an undecided folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask {
    /// A person is at the terminal and this run talks to the model: ask.
    Person,
    /// Nobody to ask, but this run may run skill commands: warn about them too.
    WarnAll,
    /// A listing or check: only say that the `.env` is ignored.
    WarnDotenv,
}

/// The `.env` of `folder` as the trust decision sees it, and as read.
fn folder_dotenv(folder: &Path, user: Option<&Dotenv>) -> Option<Dotenv> {
    let found = Dotenv::read(&folder.join(".env"))?;
    // The user's own file, reached by standing in its folder, needs no trust.
    let same = user.is_some_and(|u| same_file(&u.path, &found.path));
    (!same).then_some(found)
}

/// Whether `a` and `b` are one file once symlinks are resolved (both must exist).
fn same_file(a: &Path, b: &Path) -> bool {
    matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// What trust records of a `.env`: its path, the keys it sets and its content hash.
fn state_of(dotenv: Option<&Dotenv>) -> Option<DotenvState> {
    dotenv.map(|d| DotenvState {
        path: d.path.clone(),
        keys: d.keys(),
        hash: d.hash.clone(),
    })
}

/// Decide what this run may use of the working folder `cwd`, asking if `ask` says so.
pub(crate) fn decide(cwd: &Path, ask: Ask) -> Result<Decided, AppError> {
    let user = user_dotenv_path().and_then(|p| Dotenv::read(&p));
    let folder_env = folder_dotenv(cwd, user.as_ref());
    let trust = Arc::new(
        FolderTrust::open(&trusted_folder(cwd), state_of(folder_env.as_ref()), TrustStore::load())
            .covering(covered_roots(cwd, user.as_ref())),
    );
    let mut assessment = trust.assess();
    trust.adopt(&assessment);
    let mut notes = Vec::new();
    if assessment.needs_decision() && ask == Ask::Person {
        let yes = ask_folder_trust(&assessment, &audit_skills(&assessment, false));
        if let Err(e) = trust.decide(&assessment, yes) {
            notes.push(format!("your answer holds for this session only: {e}"));
        }
        if yes {
            assessment.dotenv_trusted = assessment.snapshot.dotenv.is_some();
            assessment.trusted_skills = assessment.snapshot.skills.clone();
        } else {
            assessment.standing = Standing::Declined;
        }
    }
    notes.extend(untrusted_notes(&assessment, ask));
    let trusted_env = folder_env.filter(|_| assessment.dotenv_trusted);
    let env = Environment::load(user.as_ref(), trusted_env.as_ref())?;
    Ok(Decided { env, trust, notes })
}

/// The folder a trust decision about `cwd` is recorded for: the repository root holding it (the
/// topmost folder whose project skills count, never the home folder), else `cwd` itself. So a
/// decision taken in `proj/sub/dir` also covers runs in `proj`, and the other way round.
fn trusted_folder(cwd: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    project_folders(cwd, home.as_deref())
        .pop()
        .unwrap_or_else(|| cwd.to_path_buf())
}

/// The project roots whose skills a folder's trust covers: its own, its parents' up to the
/// repository root, and the other agents' project folders selected by `AGENT_OTHER_AGENTS` (from
/// the environment or the user's `.env`: the folder's own `.env` is not read before it is
/// trusted; a value that names no agent counts as the default, and configuration reports it).
fn covered_roots(folder: &Path, user: Option<&Dotenv>) -> Vec<PathBuf> {
    let from_user = user.and_then(|u| u.entries.as_ref().ok()).and_then(|entries| {
        entries
            .iter()
            .find(|(k, _)| k == "AGENT_OTHER_AGENTS")
            .map(|(_, v)| v.clone())
    });
    let setting = std::env::var("AGENT_OTHER_AGENTS").ok().or(from_user);
    let tools = other_agents(setting.as_deref()).unwrap_or_else(|_| OTHER_AGENTS.to_vec());
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    project_roots(folder, home.as_deref(), &tools)
        .into_iter()
        .map(|r| r.path)
        .collect()
}

/// One line per thing of the folder that this run will not use, each naming `agent trust`.
fn untrusted_notes(a: &Assessment, ask: Ask) -> Vec<String> {
    let why = match a.standing {
        Standing::Declined => "you chose not to trust this folder",
        Standing::Trusted => "it changed since you trusted this folder",
        Standing::New => "this folder is not trusted",
    };
    let mut notes = Vec::new();
    if let Some(env) = a.snapshot.dotenv.as_ref().filter(|_| !a.dotenv_trusted) {
        notes.push(format!(
            "ignoring {} ({why}): its settings ({}) are not used; run `agent trust` to use them",
            visible(&env.path.display().to_string()),
            named(&env.keys)
        ));
    }
    let untrusted: Vec<String> = a
        .snapshot
        .skills
        .keys()
        .filter(|k| !a.trusted_skills.contains_key(*k) && !crate::exec::trust::is_config_key(k))
        .cloned()
        .collect();
    if ask != Ask::WarnDotenv && !untrusted.is_empty() {
        notes.push(format!(
            "the project skills here ({}) cannot run commands ({why}); run `agent trust` to let them",
            named(&untrusted)
        ));
    }
    notes
}

/// The audit's findings in the project skills of `a` (only those not yet trusted as they are,
/// unless `all`), by skill key.
fn audit_skills(a: &Assessment, all: bool) -> Vec<(String, Vec<Finding>)> {
    let keys = a
        .snapshot
        .skill_keys()
        .filter(|k| all || !a.trusted_skills.contains_key(*k));
    audit_keys(&a.folder, keys)
}

/// The findings of `audit` (by skill key) as the gate sees them, each file named from the folder
/// (`skills/x/run.sh`), so a refusal says where to look.
fn from_folder(audit: Vec<(String, Vec<Finding>)>) -> Vec<Finding> {
    audit
        .into_iter()
        .flat_map(|(key, findings)| {
            findings.into_iter().map(move |f| Finding {
                file: Path::new(&key).join(&f.file),
                ..f
            })
        })
        .collect()
}

/// Names for a one-line warning; "none readable" when a `.env` sets no key that could be read.
fn named(names: &[String]) -> String {
    if names.is_empty() {
        return "none readable".into();
    }
    short_list(names, MAX_NAMED)
}

/// `agent trust [DIR]` (and the old `agent skills trust [DIR…]`): trust each folder as it is now,
/// after the install gate's rule on the audit of its skills: findings of high or critical
/// severity need a yes on a terminal, else `force`.
pub(crate) fn trust_command(
    dirs: &[PathBuf],
    cwd: &Path,
    force: bool,
    asker: &dyn LibraryAsker,
) -> Result<Trusted, AppError> {
    let folders: Vec<PathBuf> = if dirs.is_empty() {
        vec![cwd.to_path_buf()]
    } else {
        dirs.iter()
            .map(|d| if d.is_absolute() { d.clone() } else { cwd.join(d) })
            .collect()
    };
    if let Some(bad) = folders.iter().find(|f| !f.is_dir()) {
        return Err(AppError::usage(format!(
            "{} is not a folder; name the project folder to trust",
            bad.display()
        )));
    }
    let user = user_dotenv_path().and_then(|p| Dotenv::read(&p));
    let mut trusted = Trusted { folders: Vec::new() };
    for folder in folders {
        let dotenv = folder_dotenv(&folder, user.as_ref());
        let trust = FolderTrust::open(&trusted_folder(&folder), state_of(dotenv.as_ref()), TrustStore::load())
            .covering(covered_roots(&folder, user.as_ref()));
        let assessment = trust.assess();
        let findings = from_folder(audit_skills(&assessment, true));
        let label = folder.display().to_string();
        gate::decide(Gate::Folder, &label, &findings, force, asker)?;
        trust
            .decide(&assessment, true)
            .map_err(|e| AppError::from_source(ExitCode::Config, e))?;
        trusted.folders.push(TrustedFolder {
            trusted: trust.folder().to_path_buf(),
            dotenv_keys: assessment.snapshot.dotenv.as_ref().map(|d| d.keys.clone()),
            skills: assessment.snapshot.skill_keys().cloned().collect(),
        });
    }
    Ok(trusted)
}

/// The folders the old `agent skills trust DIR…` meant: it took skill roots (`./skills`,
/// `./.agents/skills`, `./.claude/skills`) or a skill folder in one; trust now belongs to the
/// project folder holding them. A skill folder (it holds a `SKILL.md`) stands for its root.
pub(crate) fn legacy_targets(dirs: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    dirs.iter()
        .map(|d| {
            let abs = if d.is_absolute() { d.clone() } else { cwd.join(d) };
            let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
            let is_skill = ["SKILL.md", "skill.md"].iter().any(|f| abs.join(f).is_file());
            let root = if is_skill {
                abs.parent().map_or(abs.clone(), Path::to_path_buf)
            } else {
                abs
            };
            project_of_root(&root)
        })
        .collect()
}

/// The hidden folders of a project that hold a `skills` root (ours and the other agents',
/// docs/design.md#skill-roots).
const ROOT_HOLDERS: [&str; 5] = [".agents", ".claude", ".codex", ".gemini", ".opencode"];

/// The project folder a skill root belongs to: `P` for `P/skills`, `P/.agents/skills` and the
/// other agents' `P/.NAME/skills`; a folder of any other name is the project itself.
fn project_of_root(root: &Path) -> PathBuf {
    if root.file_name().is_none_or(|n| n != "skills") {
        return root.to_path_buf();
    }
    let Some(parent) = root.parent() else {
        return root.to_path_buf();
    };
    let holder = parent.file_name().is_some_and(|n| ROOT_HOLDERS.iter().any(|h| n == *h));
    match parent.parent() {
        Some(project) if holder => project.to_path_buf(),
        _ => parent.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_alias_trusts_the_project_holding_a_root_or_a_skill_folder() {
        let dir = tempfile::tempdir().unwrap();
        let proj = std::fs::canonicalize(dir.path()).unwrap();
        for skill in ["skills/weather", ".agents/skills/notes", ".claude/skills/pdf"] {
            std::fs::create_dir_all(proj.join(skill)).unwrap();
            std::fs::write(proj.join(skill).join("SKILL.md"), "# S\n\nA skill.\n").unwrap();
        }
        std::fs::create_dir_all(proj.join("other")).unwrap();
        let named = [
            "skills",
            "skills/weather",
            ".agents/skills",
            ".agents/skills/notes",
            ".claude/skills/pdf",
        ];
        let targets = legacy_targets(&named.map(PathBuf::from), &proj);
        assert!(targets.iter().all(|t| t == &proj), "{targets:?}");
        assert_eq!(legacy_targets(&[PathBuf::from("other")], &proj), [proj.join("other")]);
    }
}
