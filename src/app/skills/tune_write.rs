//! Writing a tuned description back: the `description:` of SKILL.md's frontmatter (its other
//! lines untouched), else `skill.json`'s `description`. The file written must be inside the skill
//! folder once symlinks are resolved (a SKILL.md linking to `~/.bashrc` must not make the tuner
//! write there), and it is replaced atomically, so a crash leaves the old file or the new one.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::exit::{AppError, Cause, ExitCode};

/// Why a file of the skill is not one the tuner may write.
#[derive(Debug, thiserror::Error)]
enum NotInside {
    #[error("{0}")]
    Unresolved(#[source] std::io::Error),
    #[error("it resolves to {}, outside the skill folder; the tuner writes only inside it", .0.display())]
    Outside(PathBuf),
    #[error("it is not a regular file")]
    NotAFile,
    #[error("it is not a JSON object")]
    NotAnObject,
}

/// `cannot write PATH: why`, a configuration error keeping `why` beneath.
fn cannot(path: &Path, why: impl Into<Cause>) -> AppError {
    AppError::context(ExitCode::Config, format!("cannot write {}", path.display()), why)
}

/// Put `description` into the skill whose SKILL.md is `skill_file` (in `dir`); the file written.
pub(crate) fn write_description(skill_file: &Path, dir: &Path, description: &str) -> Result<PathBuf, AppError> {
    let target = inside(skill_file, dir).map_err(|e| cannot(skill_file, e))?;
    let text = std::fs::read_to_string(&target).map_err(|e| cannot(skill_file, e))?;
    if let Some(new) = with_front_description(&text, description) {
        replace(&target, new.as_bytes()).map_err(|e| cannot(skill_file, e))?;
        return Ok(skill_file.to_path_buf());
    }
    let manifest = dir.join("skill.json");
    let manifest_target = inside(&manifest, dir).map_err(|e| cannot(&manifest, e))?;
    let mut json: Value = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| {
            AppError::config(format!(
                "{} has no frontmatter and there is no readable skill.json: put the description in by hand",
                skill_file.display()
            ))
        })?;
    let Some(map) = json.as_object_mut() else {
        return Err(cannot(&manifest, NotInside::NotAnObject));
    };
    map.insert("description".into(), Value::String(description.to_string()));
    let text = serde_json::to_string_pretty(&json).map_err(|e| cannot(&manifest, e))?;
    replace(&manifest_target, (text + "\n").as_bytes()).map_err(|e| cannot(&manifest, e))?;
    Ok(manifest)
}

/// `file` resolved through symlinks, when that is a regular file inside the skill folder `dir`
/// (itself resolved); else why not.
fn inside(file: &Path, dir: &Path) -> Result<PathBuf, NotInside> {
    let root = std::fs::canonicalize(dir).map_err(NotInside::Unresolved)?;
    let target = std::fs::canonicalize(file).map_err(NotInside::Unresolved)?;
    if !target.starts_with(&root) {
        return Err(NotInside::Outside(target));
    }
    if !target.is_file() {
        return Err(NotInside::NotAFile);
    }
    Ok(target)
}

/// Replace `target` with `bytes` atomically: a temporary file beside it, renamed over it.
fn replace(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let parent = target.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
    tmp.write_all(bytes)?;
    if let Ok(meta) = std::fs::metadata(target) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.persist(target).map(drop).map_err(|e| e.error)
}

/// `text` with its frontmatter's `description` (and the lines that continue it) replaced by one
/// line, or added after `name:`; `None` when the file has no frontmatter.
fn with_front_description(text: &str, description: &str) -> Option<String> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let first = lines.first()?.trim_start_matches('\u{feff}').trim_end();
    if first != "---" {
        return None;
    }
    let close = lines.iter().skip(1).position(|l| l.trim_end() == "---")? + 1;
    // A JSON string is a YAML double-quoted scalar: any text, one line.
    let line = format!("description: {}{newline}", Value::String(description.to_string()));
    let at = (1..close).find(|&i| lines[i].starts_with("description:"));
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match at {
        Some(i) => {
            let mut end = i + 1;
            while end < close && (lines[end].starts_with([' ', '\t']) || lines[end].trim().is_empty()) {
                end += 1;
            }
            out.splice(i..end, [line]);
        }
        None => {
            let after = (1..close).find(|&i| lines[i].starts_with("name:")).map_or(1, |i| i + 1);
            out.insert(after, line);
        }
    }
    Some(out.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_is_replaced_with_its_continuation_lines() {
        let text =
            "---\nname: pdf\ndescription: >\n  Old folded\n  text.\nlicense: MIT\n---\n# Body\ndescription: not this\n";
        let new = with_front_description(text, "Fills PDF forms: \"AcroForm\". Use when…").unwrap();
        assert_eq!(
            new,
            "---\nname: pdf\ndescription: \"Fills PDF forms: \\\"AcroForm\\\". Use when…\"\nlicense: MIT\n---\n# Body\ndescription: not this\n"
        );
        let doc = crate::skills::load::frontmatter::split(&new);
        assert!(doc.body.contains("not this"));
        let crlf = "---\r\nname: x\r\n---\r\nbody\r\n";
        assert_eq!(
            with_front_description(crlf, "New.").unwrap(),
            "---\r\nname: x\r\ndescription: \"New.\"\r\n---\r\nbody\r\n"
        );
        assert!(with_front_description("# No front\n", "x").is_none());
    }

    #[test]
    fn scp_skills_get_it_in_skill_json() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("SKILL.md");
        std::fs::write(&skill, "# Weather\n\nCurrent weather.\n").unwrap();
        std::fs::write(
            dir.path().join("skill.json"),
            r#"{"name":"weather","description":"old"}"#,
        )
        .unwrap();
        let written = write_description(&skill, dir.path(), "Current weather for a city.").unwrap();
        assert!(written.ends_with("skill.json"));
        let json: Value = serde_json::from_str(&std::fs::read_to_string(written).unwrap()).unwrap();
        assert_eq!(json["description"], "Current weather for a city.");
        std::fs::remove_file(dir.path().join("skill.json")).unwrap();
        assert!(write_description(&skill, dir.path(), "x").is_err());
    }

    #[test]
    fn a_skill_file_linking_out_of_the_folder_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("bashrc");
        std::fs::write(&outside, "---\nname: x\ndescription: old\n---\n").unwrap();
        let skill = dir.path().join("skill");
        std::fs::create_dir(&skill).unwrap();
        std::os::unix::fs::symlink(&outside, skill.join("SKILL.md")).unwrap();
        let err = write_description(&skill.join("SKILL.md"), &skill, "New.").unwrap_err();
        assert!(err.message.contains("outside the skill folder"), "{}", err.message);
        assert!(std::fs::read_to_string(&outside).unwrap().contains("old"));

        // A link inside the folder is followed, and stays a link.
        std::fs::remove_file(skill.join("SKILL.md")).unwrap();
        std::fs::write(skill.join("real.md"), "---\nname: x\ndescription: old\n---\n").unwrap();
        std::os::unix::fs::symlink("real.md", skill.join("SKILL.md")).unwrap();
        write_description(&skill.join("SKILL.md"), &skill, "New.").unwrap();
        assert!(
            std::fs::read_to_string(skill.join("real.md"))
                .unwrap()
                .contains("\"New.\"")
        );
        assert!(
            std::fs::symlink_metadata(skill.join("SKILL.md"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
