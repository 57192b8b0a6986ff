//! Which skills of a source `skills add` installs, and under which folder name: the ones named
//! with `--skill`, all of them with `--all`, the only one, or a person's choice; each keeps the
//! name of the folder it came in, which is what the lock file and updates refer to.

use crate::exit::AppError;
use crate::output::library::{Choice, LibraryAsker};
use crate::skills::library::install::{Candidate, check_name};
use crate::skills::library::source::Source;
use crate::skills::resolve::{Named, resolve, unknown};

/// Most skill names an error lists before it gives only the count.
const NAMES_SHOWN: usize = 5;

/// What was asked of a source: `--skill NAME`s and `--all`.
pub(super) struct Wanted<'a> {
    pub(crate) names: &'a [String],
    pub(crate) all: bool,
}

/// The folder name a candidate is installed as: the folder it came in (`video-downloader`, not
/// its frontmatter's `youtube-downloader` or `Ahrefs Automation`). A skill at the root of a git
/// source came in a temporary folder, so it takes its own name, else the repository's.
pub(super) fn folder_name(candidate: &Candidate, source: &Source, at_git_root: bool) -> String {
    let folder = candidate.dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if !at_git_root && let Some(folder) = folder.filter(|f| check_name(f).is_ok()) {
        return folder;
    }
    if plain(&candidate.name) {
        return candidate.name.clone();
    }
    let repository = source.location_text();
    let repository = repository.trim_end_matches('/').trim_end_matches(".git");
    let repository = repository.rsplit(['/', ':']).next().unwrap_or_default();
    if plain(repository) {
        repository.to_string()
    } else {
        candidate.name.clone()
    }
}

/// Whether a skill's own name makes a folder name that is typed without quoting: lowercase
/// letters, digits, `-`, `_` and `.` (no spaces or capitals, as `Ahrefs Automation` has).
fn plain(name: &str) -> bool {
    check_name(name).is_ok()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
}

/// A short list of names: the first few, then how many more.
pub(super) fn some_names<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = names.len();
    let shown: Vec<&str> = names.take(NAMES_SHOWN).collect();
    match count.saturating_sub(NAMES_SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Which candidates to install: the ones named, all with `--all`, the only one, or a person's
/// choice; without a terminal several candidates and neither `--skill` nor `--all` are a usage
/// error naming a few of them and how many there are.
pub(super) fn choose<'a>(
    source: &Source,
    searched: &str,
    candidates: &'a [Candidate],
    wanted: &Wanted<'_>,
    asker: &dyn LibraryAsker,
) -> Result<Vec<&'a Candidate>, AppError> {
    let names = || some_names(candidates.iter().map(|c| c.name.as_str()));
    if candidates.is_empty() {
        return Err(AppError::usage(format!(
            "{source} holds no skill (a folder with a SKILL.md and a description); searched {searched}; \
             name the folder with #SUBDIR"
        )));
    }
    if wanted.all {
        return Ok(candidates.iter().collect());
    }
    if !wanted.names.is_empty() {
        let mut picked = Vec::new();
        let folders: Vec<String> = candidates
            .iter()
            .map(|c| {
                c.dir
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        let named: Vec<Named<'_>> = candidates
            .iter()
            .zip(&folders)
            .map(|(c, folder)| Named { name: &c.name, folder })
            .collect();
        for name in wanted.names {
            match resolve(name, &named).and_then(|i| candidates.get(i)) {
                Some(c) => picked.push(c),
                None => {
                    let listing = format!("it has {} skill(s): {}", candidates.len(), names());
                    return Err(AppError::usage(unknown(
                        name,
                        &named,
                        &format!("skill in {source}"),
                        &listing,
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
            "{source} holds {} skills ({}); choose with --skill NAME (repeatable), or install them all with --all",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_of_names_are_cut_to_a_few_and_a_count() {
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(some_names(names.iter().copied()), "a, b, c, d, e and 2 more");
        assert_eq!(some_names(names[..2].iter().copied()), "a, b");
    }

    #[test]
    fn the_folder_keeps_the_source_folders_name() {
        let source = Source::parse("https://example.com/acme/tools.git", std::path::Path::new("/")).unwrap();
        let candidate = |dir: &str, name: &str| Candidate {
            name: name.into(),
            description: String::new(),
            dir: dir.into(),
            subdir: None,
        };
        let c = candidate("/tmp/x/composio-skills/ahrefs-automation", "Ahrefs Automation");
        assert_eq!(folder_name(&c, &source, false), "ahrefs-automation");
        let c = candidate("/tmp/x/video-downloader", "youtube-downloader");
        assert_eq!(folder_name(&c, &source, false), "video-downloader");
        let c = candidate("/tmp/agent-skill-1234", "deploy");
        assert_eq!(folder_name(&c, &source, true), "deploy");
        let c = candidate("/tmp/agent-skill-1234", "Deploy Tool");
        assert_eq!(folder_name(&c, &source, true), "tools");
    }
}
