//! What `skills add` does with each chosen skill before anything is put in place: install it,
//! leave it (already installed from this source, under whatever folder), leave out a template
//! skeleton (`--all` only), or report a clash — its folder or the name it gives itself is
//! already used in the root, or by an earlier skill of the same source — with the `--as` command
//! that takes it under a free name. A library of several collections shares names (`pdf`,
//! `skill-creator`): every skill whose name is free goes in, the others are named.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::choose::folder_name;
use crate::output::library::{Clash, ClashKind, SkippedTemplate};
use crate::skills::library::install::Candidate;
use crate::skills::library::lock::LockFile;
use crate::skills::library::source::{Location, Source};
use crate::skills::library::templates::skeleton_reason;
use crate::skills::load::parse::{FolderLoad, Reading, load_skill_as};

/// Longest name `--as` suggests (the Agent Skills limit).
const MAX_NAME: usize = 64;

/// One skill to install: the candidate, its folder in the root, its folder in the source.
pub(super) type Todo<'a> = (&'a Candidate, String, Option<String>);

/// What becomes of each chosen skill.
#[derive(Default)]
pub(super) struct Plan<'a> {
    pub(crate) todo: Vec<Todo<'a>>,
    pub(crate) already: Vec<String>,
    pub(crate) clashes: Vec<Clash>,
    pub(crate) templates: Vec<SkippedTemplate>,
}

/// How `skills add` was asked to install: the source, its root, `--all` and `--as`.
pub(super) struct Asked<'s> {
    pub(crate) source: &'s Source,
    pub(crate) root: &'s Path,
    pub(crate) all: bool,
    pub(crate) new_name: Option<&'s str>,
}

/// Sort `chosen` into a [`Plan`] against `root` and its lock file.
pub(super) fn plan<'a>(asked: &Asked<'_>, lock: &LockFile, chosen: &[&'a Candidate]) -> Plan<'a> {
    let location = asked.source.location_text();
    let at_git_root = matches!(asked.source.location, Location::Git(_)) && asked.source.subdir.is_none();
    let mut names = names_in(asked.root);
    let mut plan = Plan::default();
    for &candidate in chosen {
        let subdir = join_subdirs(asked.source.subdir.as_deref(), candidate.subdir.as_deref());
        if asked.all
            && let Some(reason) = skeleton_reason(candidate)
        {
            plan.templates.push(SkippedTemplate {
                name: candidate.name.clone(),
                subdir,
                reason,
            });
            continue;
        }
        // Installed from this source before, under its own folder or another (`--as`).
        let installed = lock.skills.iter().find(|(folder, e)| {
            e.source == location && e.subdir == subdir && std::fs::symlink_metadata(asked.root.join(folder)).is_ok()
        });
        if let Some((folder, _)) = installed {
            plan.already.push(folder.clone());
            continue;
        }
        let natural = folder_name(candidate, asked.source, at_git_root && candidate.subdir.is_none());
        let folder = asked.new_name.map_or(natural, str::to_string);
        let own = asked.new_name.unwrap_or(&candidate.name).to_string();
        let taken = taken(asked.root, &folder, &own, &names);
        match taken {
            Some((kind, taken_by)) => {
                let fix = fix_command(asked.source, candidate, &folder, &names);
                plan.clashes.push(Clash {
                    skill: source_folder(candidate, &folder),
                    name: candidate.name.clone(),
                    subdir,
                    kind,
                    taken_by,
                    fix,
                });
            }
            None => {
                // Later skills of this source see this one as taken.
                let here = candidate
                    .subdir
                    .as_ref()
                    .map_or_else(|| candidate.dir.clone(), PathBuf::from);
                names.insert(folder.clone(), (here.clone(), ClashKind::SameSource));
                names.insert(own, (here, ClashKind::SameSource));
                plan.todo.push((candidate, folder, subdir));
            }
        }
    }
    plan
}

/// Names in use, each with what uses it: every folder of the root and the name each gives itself.
type Names = HashMap<String, (PathBuf, ClashKind)>;

/// The folder names of `root` and the names its skills give themselves.
fn names_in(root: &Path) -> Names {
    let mut names = Names::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return names;
    };
    for entry in entries.filter_map(Result::ok) {
        let folder = entry.file_name().to_string_lossy().into_owned();
        if folder.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        if let FolderLoad::Skill(skill) = load_skill_as(&entry.path(), root, Reading::Front)
            && skill.name != folder
        {
            names.entry(skill.name).or_insert((entry.path(), ClashKind::NameTaken));
        }
        names.insert(folder, (entry.path(), ClashKind::FolderTaken));
    }
    names
}

/// What uses `folder` (in the root) or `own` (as a skill's name), if anything does.
fn taken(root: &Path, folder: &str, own: &str, names: &Names) -> Option<(ClashKind, PathBuf)> {
    if std::fs::symlink_metadata(root.join(folder)).is_ok() {
        return Some((ClashKind::FolderTaken, root.join(folder)));
    }
    let of = |name: &str| {
        names.get(name).map(|(path, kind)| {
            // A folder of that name holds a skill that calls itself so: the catalog shows it.
            let kind = if *kind == ClashKind::FolderTaken {
                ClashKind::NameTaken
            } else {
                *kind
            };
            (kind, path.clone())
        })
    };
    of(folder).or_else(|| of(own))
}

/// What `--skill` takes for `candidate`: its folder's name in the source, else its own name.
fn source_folder(candidate: &Candidate, folder: &str) -> String {
    match &candidate.subdir {
        Some(sub) => sub.rsplit('/').next().unwrap_or(folder).to_string(),
        None => candidate.name.clone(),
    }
}

/// `agent skills add SOURCE --skill X --as Y` with a free `Y`: the skill's folder name and a
/// word of the source (`pdf-anthropics-skills`), numbered when that is taken too.
fn fix_command(source: &Source, candidate: &Candidate, folder: &str, names: &Names) -> String {
    let location = source.location_text();
    let remote =
        matches!(source.location, Location::Git(_)) && !location.starts_with("file://") && !location.starts_with('/');
    let word = source_word(&location, remote);
    let base: String = format!("{folder}-{word}").chars().take(MAX_NAME).collect();
    let base = base.trim_end_matches('-').to_string();
    let free = std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|n| !names.contains_key(n))
        .unwrap_or(base);
    let skill = source_folder(candidate, folder);
    format!(
        "agent skills add {} --skill {} --as {free}",
        shell_words::quote(&source.to_string()),
        shell_words::quote(&skill)
    )
}

/// A word naming the source, in lowercase letters, digits and single hyphens, at most three
/// parts long: a remote repository's owner (`anthropics`, `openai`), else the folder's own name
/// (a local folder, `file://`).
fn source_word(location: &str, remote: bool) -> String {
    let trimmed = location.trim_end_matches('/').trim_end_matches(".git");
    let mut segments = trimmed.rsplit(['/', ':']).filter(|s| !s.is_empty());
    let last = segments.next().unwrap_or("other");
    let word = if remote { segments.next().unwrap_or(last) } else { last };
    let mut out = String::new();
    for c in word.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: Vec<&str> = out.split('-').filter(|p| !p.is_empty()).take(3).collect();
    if out.is_empty() { "other".into() } else { out.join("-") }
}

/// `#SUBDIR` of the source joined with where the skill was found below it.
pub(super) fn join_subdirs(source: Option<&str>, found: Option<&str>) -> Option<String> {
    match (source, found) {
        (Some(a), Some(b)) => Some(format!("{a}/{b}")),
        (a, b) => a.or(b).map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_names_say_where_the_skill_came_from() {
        assert_eq!(
            source_word("https://github.com/anthropics/skills.git", true),
            "anthropics"
        );
        assert_eq!(
            source_word("https://github.com/K-Dense-AI/claude-scientific-skills", true),
            "k-dense-ai"
        );
        assert_eq!(source_word("git@github.com:openai/skills", true), "openai");
        assert_eq!(
            source_word("/srv/mirrors/ComposioHQ+awesome-claude-skills", false),
            "composiohq-awesome-claude"
        );
        assert_eq!(source_word("/srv/anthropics+skills/", false), "anthropics-skills");
        assert_eq!(
            source_word("file:///tmp/x/awesome-claude-skills.git", false),
            "awesome-claude-skills"
        );
    }
}
