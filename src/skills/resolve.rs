//! The one way a command finds the skill a person named: by the name the skill gives itself (the
//! one the catalog shows) or by its folder's name, which differ for many public skills (Composio's
//! `video-downloader` folder holds `youtube-downloader`, `cloudinary-automation` holds
//! `Cloudinary Automation`). `skills show`, `remove`, `audit`, `update`, `verify`, `trust --skill`,
//! `--skill`, `eval --draft` and `tune` all resolve through here, so each takes both names and a
//! wrong one gets the same "did you mean …" answer.

use crate::skills::arguments::nearest;
use crate::support::terminal_text::visible;

/// Most names a "did you mean" offers: the nearest few, never the whole library.
const MAX_SUGGESTED: usize = 3;

/// One skill as a person may name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Named<'a> {
    /// The name the skill gives itself (frontmatter, `skill.json`, else its folder's).
    pub(crate) name: &'a str,
    /// The name of its folder.
    pub(crate) folder: &'a str,
}

/// Which of the listed skills `wanted` names, by index; `None` when none does. The skill's own
/// name is looked at first, since the catalog shows it; among several skills of that name (one
/// shadowing another), the one whose folder also has it, else the first listed (callers list
/// skills in the order that decides which one runs). Then folder names, the first listed.
pub(crate) fn resolve(wanted: &str, skills: &[Named<'_>]) -> Option<usize> {
    let by_name: Vec<usize> = (0..skills.len()).filter(|&i| skills[i].name == wanted).collect();
    if let Some(&first) = by_name.first() {
        return Some(
            by_name
                .iter()
                .copied()
                .find(|&i| skills[i].folder == wanted)
                .unwrap_or(first),
        );
    }
    skills.iter().position(|s| s.folder == wanted)
}

/// The nearest names to `wanted` among the skills' own names and folder names, each once.
pub(crate) fn suggestions<'a>(wanted: &str, skills: &[Named<'a>]) -> Vec<&'a str> {
    let mut names: Vec<&'a str> = skills.iter().flat_map(|s| [s.name, s.folder]).collect();
    names.sort_unstable();
    names.dedup();
    nearest(wanted, &names, MAX_SUGGESTED)
}

/// What every command says of a name no skill has: `{wanted}: there is no {what} of that name;
/// did you mean …? ({listing})`, with the nearest names only. `what` says which skills were
/// looked at ("skill", "skill installed with `agent skills add`"), `listing` where all are shown.
pub(crate) fn unknown(wanted: &str, skills: &[Named<'_>], what: &str, listing: &str) -> String {
    let near = suggestions(wanted, skills);
    let hint = if near.is_empty() {
        listing.to_string()
    } else {
        let near: Vec<String> = near.iter().map(|n| visible(n).into_owned()).collect();
        format!("did you mean {}? ({listing})", near.join(", "))
    };
    format!("{}: there is no {what} of that name; {hint}", visible(wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<Named<'a>> {
        pairs.iter().map(|&(name, folder)| Named { name, folder }).collect()
    }

    #[test]
    fn either_name_finds_a_skill_whose_folder_differs() {
        let skills = named(&[
            ("youtube-downloader", "video-downloader"),
            ("Cloudinary Automation", "cloudinary-automation"),
        ]);
        assert_eq!(resolve("youtube-downloader", &skills), Some(0));
        assert_eq!(resolve("video-downloader", &skills), Some(0));
        assert_eq!(resolve("Cloudinary Automation", &skills), Some(1));
        assert_eq!(resolve("cloudinary-automation", &skills), Some(1));
        assert_eq!(resolve("video", &skills), None);
    }

    #[test]
    fn the_catalog_name_comes_before_a_folder_name() {
        // Folder `a` holds skill `b`, folder `b` holds skill `c`: `b` is what the catalog shows
        // for folder `a`.
        let skills = named(&[("b", "a"), ("c", "b")]);
        assert_eq!(resolve("b", &skills), Some(0));
        assert_eq!(resolve("a", &skills), Some(0));
        assert_eq!(resolve("c", &skills), Some(1));
        // Two skills calling themselves `pdf`: the one in folder `pdf`, whatever the order.
        let skills = named(&[("pdf", "pdf-2"), ("pdf", "pdf")]);
        assert_eq!(resolve("pdf", &skills), Some(1));
        assert_eq!(resolve("pdf-2", &skills), Some(0));
    }

    #[test]
    fn a_typo_gets_the_nearest_names_not_the_library() {
        let mut pairs = vec![("weather", "weather"), ("youtube-downloader", "video-downloader")];
        let many: Vec<String> = (0..500).map(|i| format!("tool-{i}")).collect();
        pairs.extend(many.iter().map(|n| (n.as_str(), n.as_str())));
        let skills = named(&pairs);
        let message = unknown("weathr", &skills, "skill", "`agent skills list` shows every skill");
        assert_eq!(
            message,
            "weathr: there is no skill of that name; did you mean weather? (`agent skills list` shows every skill)"
        );
        assert_eq!(suggestions("video-donwloader", &skills)[0], "video-downloader");
        let none = unknown("zzzzzzzz", &skills, "skill", "see the list");
        assert_eq!(none, "zzzzzzzz: there is no skill of that name; see the list");
    }
}
