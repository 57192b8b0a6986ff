//! The skeleton `agent skills new` writes: a skill in either dialect that loads and runs
//! as it is, for an author to replace part by part. `skills check` warns while its description
//! still holds the placeholders, so `--strict` fails on a skeleton shipped unchanged.

use std::io::Write;
use std::path::Path;

use super::Dialect;
use super::load::fields::name_problems;

/// One file of the skeleton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkeletonFile {
    /// Relative to the skill folder.
    pub(crate) path: &'static str,
    pub(crate) content: String,
    pub(crate) executable: bool,
    /// One line on what the file is for, shown after writing it.
    pub(crate) purpose: &'static str,
}

/// What marks the template's placeholder text (both dialects' descriptions hold it).
pub(crate) const PLACEHOLDER: &str = "(replace with ";

const SKILL_MD: &str = include_str!("../../templates/skill/SKILL.md");
const SKILL_MD_SCP: &str = include_str!("../../templates/skill/SKILL.scp.md");
const SKILL_JSON: &str = include_str!("../../templates/skill/skill.json");
const RUN_SH: &str = include_str!("../../templates/skill/run.sh");
const ROUTING_YAML: &str = include_str!("../../templates/skill/routing.yaml");

/// Why `name` cannot name a new skill, if it cannot: the Agent Skills naming rules.
pub(crate) fn invalid_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    let problems = name_problems(name);
    (!problems.is_empty()).then(|| {
        let suggestion: String = name
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        let mut why = format!("the name `{name}` {}", problems.join(", "));
        if !suggestion.is_empty() && suggestion != name {
            why.push_str(&format!("; try `{suggestion}`"));
        }
        why
    })
}

/// The files of a new skill called `name` in `dialect`, to be written in `dir`.
pub(crate) fn skeleton(name: &str, dialect: Dialect, dir: &Path) -> Vec<SkeletonFile> {
    let title: String = {
        let spaced = name.replace('-', " ");
        let mut chars = spaced.chars();
        chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    let fill = |template: &str| {
        template
            .replace("{{name}}", name)
            .replace("{{title}}", &title)
            .replace("{{dir}}", &dir.display().to_string())
    };
    let mut files = vec![SkeletonFile {
        path: "SKILL.md",
        content: fill(if dialect == Dialect::Scp {
            SKILL_MD_SCP
        } else {
            SKILL_MD
        }),
        executable: false,
        purpose: "what the model reads; write the description first, it decides when the skill is picked",
    }];
    if dialect == Dialect::Scp {
        files.push(SkeletonFile {
            path: "skill.json",
            content: fill(SKILL_JSON),
            executable: false,
            purpose: "name, version, description, entry, arguments and environment variables",
        });
    }
    files.push(SkeletonFile {
        path: "run.sh",
        content: fill(RUN_SH),
        executable: true,
        purpose: "the command: input as arguments or stdin, result on stdout, failure on stderr + non-zero exit",
    });
    files.push(SkeletonFile {
        path: "tests/routing.yaml",
        content: fill(ROUTING_YAML),
        executable: false,
        purpose: "routing cases for `agent skills eval`",
    });
    files
}

/// Why a skeleton was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WriteError {
    /// The folder is already there; nothing was touched.
    Exists(String),
    /// The file system refused.
    Io(String),
}

/// Create `dir` (which must not exist yet) and write `files` into it.
pub(crate) fn write(dir: &Path, files: &[SkeletonFile]) -> Result<(), WriteError> {
    let io = |path: &Path, e: std::io::Error| WriteError::Io(format!("cannot create {}: {e}", path.display()));
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    std::fs::create_dir(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => WriteError::Exists(format!(
            "{} already exists; nothing was overwritten. Choose another name, or remove that folder first",
            dir.display()
        )),
        _ => io(dir, e),
    })?;
    for file in files {
        let path = dir.join(file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        if file.executable {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o755);
        }
        options
            .open(&path)
            .and_then(|mut f| f.write_all(file.content.as_bytes()))
            .map_err(|e| io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_spec_and_get_a_suggestion() {
        assert_eq!(invalid_name("pdf-tools"), None);
        let why = invalid_name("PDF Tools").unwrap();
        assert!(why.contains("uppercase") && why.contains("try `pdf-tools`"), "{why}");
        assert!(invalid_name("").is_some());
        assert!(invalid_name("a/b").unwrap().contains("try `a-b`"));
    }

    #[test]
    fn templates_are_filled_for_both_dialects() {
        let files = skeleton("pdf-tools", Dialect::AgentSkills, Path::new("/s/pdf-tools"));
        let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
        assert_eq!(paths, ["SKILL.md", "run.sh", "tests/routing.yaml"]);
        assert!(files[0].content.starts_with("---\nname: pdf-tools\n"));
        assert!(files[0].content.contains("# Pdf tools"));
        assert!(files[2].content.contains("expect_skill: pdf-tools"));
        assert!(files.iter().all(|f| !f.content.contains("{{")));
        let scp = skeleton("pdf-tools", Dialect::Scp, Path::new("/s/pdf-tools"));
        assert_eq!(scp[1].path, "skill.json");
        assert!(serde_json::from_str::<serde_json::Value>(&scp[1].content).is_ok());
        assert!(!scp[0].content.starts_with("---"));
    }
}
