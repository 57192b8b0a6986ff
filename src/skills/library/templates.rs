//! Which skills of a source are template skeletons that `skills add --all` leaves out: a
//! collection's starting point for new skills (anthropics/skills' `template/`, Composio's
//! `template-skill/`) is not a skill anyone means to run. The rule is narrow, so no real skill is
//! skipped: a folder on the way to the skill (or the skill's own) named exactly `template`,
//! `templates`, `template-skill` or `skill-template` (a leading `_` ignored, letter case too), or a
//! description that is still a placeholder ("Replace with description …", or `skills new`'s
//! "(replace with …)"). `templated-automation`, `venue-templates` and a skill whose body mentions
//! templates are installed as usual; `--skill NAME` installs a skeleton when asked by name.

use super::install::Candidate;

/// Folder names that hold template skeletons.
const TEMPLATE_FOLDERS: [&str; 4] = ["template", "templates", "template-skill", "skill-template"];

/// Why `candidate` is a template skeleton, if it is one.
pub(crate) fn skeleton_reason(candidate: &Candidate) -> Option<&'static str> {
    let folder_named = |part: &str| {
        let part = part.trim_start_matches('_').to_ascii_lowercase();
        TEMPLATE_FOLDERS.contains(&part.as_str())
    };
    let own = candidate.dir.file_name().map(|f| f.to_string_lossy().into_owned());
    let on_the_way = candidate
        .subdir
        .as_deref()
        .unwrap_or_default()
        .split('/')
        .any(folder_named);
    if on_the_way || own.as_deref().is_some_and(folder_named) {
        return Some("a template folder");
    }
    let description = candidate.description.trim_start().to_ascii_lowercase();
    if description.starts_with("replace with") || description.contains(crate::skills::skeleton::PLACEHOLDER) {
        return Some("its description is a placeholder");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(subdir: &str, description: &str) -> Candidate {
        Candidate {
            name: subdir.rsplit('/').next().unwrap_or_default().to_string(),
            description: description.to_string(),
            dir: std::path::Path::new("/tmp/src").join(subdir),
            subdir: Some(subdir.to_string()),
        }
    }

    #[test]
    fn skeletons_of_public_collections_are_found() {
        let real = "Creates PDF files from text. Use when asked for a PDF.";
        assert!(skeleton_reason(&candidate("template", real)).is_some());
        assert!(skeleton_reason(&candidate("template-skill", real)).is_some());
        assert!(skeleton_reason(&candidate("skills/_Templates/basic", real)).is_some());
        let placeholder = "Replace with description of the skill and when Claude should use it.";
        assert!(skeleton_reason(&candidate("skills/starter", placeholder)).is_some());
        let ours = "Does X (replace with what your skill does).";
        assert!(skeleton_reason(&candidate("skills/mine", ours)).is_some());
    }

    #[test]
    fn real_skills_with_template_in_their_names_are_kept() {
        let real = "Automates Templated.io: render images from templates.";
        for subdir in [
            "composio-skills/templated-automation",
            "composio-skills/apitemplate-io-automation",
            "scientific-skills/venue-templates",
            "skills/docx",
        ] {
            assert_eq!(skeleton_reason(&candidate(subdir, real)), None, "{subdir}");
        }
    }
}
