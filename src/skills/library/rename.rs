//! `skills add --as NAME`: a skill whose name another skill already uses is installed under a
//! new one. The catalog shows the name the skill gives itself, so the installed copy's own name is
//! changed with its folder: the frontmatter's `name:` line (added when there is none), else
//! `skill.json`'s `name`, else nothing (the folder's name is the skill's). Only the staged copy
//! is changed, before the audit and the content hash, so the lock records what is installed.

use std::path::Path;

use crate::audit::digest::SIGNATURE_FILE;
use crate::skills::roots::skill_dirs::find_skill_file;

/// Why a staged skill could not be renamed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RenameError {
    #[error(
        "it is signed by its publisher ({SIGNATURE_FILE}), and a new name would change its content and break the \
         signature; remove the skill that uses the name, or install this one into another root (--project)"
    )]
    Signed,
    #[error("cannot rename the copy in {path}: {source}")]
    Io { path: String, source: std::io::Error },
}

/// Give the skill staged in `dir` the name `name`, as [the module](self) says.
pub(crate) fn rename(dir: &Path, name: &str) -> Result<(), RenameError> {
    if dir.join(SIGNATURE_FILE).exists() {
        return Err(RenameError::Signed);
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| RenameError::Io { path, source }
    };
    if let Some(file) = find_skill_file(dir) {
        let text = std::fs::read_to_string(&file).map_err(io(&file))?;
        if let Some(renamed) = with_frontmatter_name(&text, name) {
            return std::fs::write(&file, renamed).map_err(io(&file));
        }
    }
    let manifest = dir.join("skill.json");
    if let Ok(text) = std::fs::read_to_string(&manifest)
        && let Ok(serde_json::Value::Object(mut fields)) = serde_json::from_str::<serde_json::Value>(&text)
        && fields.contains_key("name")
    {
        fields.insert("name".into(), serde_json::Value::String(name.into()));
        let mut text = serde_json::to_string_pretty(&fields).map_err(|e| io(&manifest)(e.into()))?;
        text.push('\n');
        return std::fs::write(&manifest, text).map_err(io(&manifest));
    }
    Ok(())
}

/// `text` with its frontmatter's top-level `name:` set to `name` (line endings kept), or a
/// `name:` line added first in it; `None` when `text` has no frontmatter.
fn with_frontmatter_name(text: &str, name: &str) -> Option<String> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = &text[..text.len() - body.len()];
    let mut lines = body.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let ending = if first.ends_with("\r\n") { "\r\n" } else { "\n" };
    // Quoted, so a name YAML would read otherwise (`yes`, `1.0`) stays text.
    let line = format!("name: {}{ending}", serde_json::Value::String(name.into()));
    let mut out = format!("{bom}{first}");
    let mut inside = true;
    let mut replaced = false;
    for l in lines {
        if inside && l.trim_end() == "---" {
            inside = false;
            if !replaced {
                out.push_str(&line);
                replaced = true;
            }
        }
        if inside && !replaced && is_name_line(l) {
            out.push_str(&line);
            replaced = true;
            continue;
        }
        out.push_str(l);
    }
    (!inside).then_some(out)
}

/// A top-level `name:` key (not indented, not `name_x:`).
fn is_name_line(line: &str) -> bool {
    line.strip_prefix("name")
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_line_is_replaced_and_nothing_else() {
        let text = "---\nname: pdf\ndescription: PDF things.\nmetadata:\n  name: inner\n---\nname: in body\n";
        assert_eq!(
            with_frontmatter_name(text, "pdf-anthropic").unwrap(),
            "---\nname: \"pdf-anthropic\"\ndescription: PDF things.\nmetadata:\n  name: inner\n---\nname: in body\n"
        );
        let crlf = "\u{feff}---\r\nname: pdf\r\ndescription: x\r\n---\r\nbody\r\n";
        assert_eq!(
            with_frontmatter_name(crlf, "pdf-2").unwrap(),
            "\u{feff}---\r\nname: \"pdf-2\"\r\ndescription: x\r\n---\r\nbody\r\n"
        );
    }

    #[test]
    fn a_missing_name_is_added_and_no_frontmatter_is_left_alone() {
        assert_eq!(
            with_frontmatter_name("---\ndescription: x\n---\nbody\n", "new").unwrap(),
            "---\ndescription: x\nname: \"new\"\n---\nbody\n"
        );
        assert_eq!(with_frontmatter_name("# Weather\n\nbody\n", "new"), None);
        assert_eq!(with_frontmatter_name("---\nname: x\nunclosed\n", "new"), None);
    }

    #[test]
    fn skill_json_names_are_renamed_and_signed_skills_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SKILL.md"), "# Weather\n\nCurrent weather.\n").unwrap();
        std::fs::write(
            dir.path().join("skill.json"),
            r#"{"name": "weather", "entry": "run.sh"}"#,
        )
        .unwrap();
        rename(dir.path(), "weather-2").unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("skill.json")).unwrap()).unwrap();
        assert_eq!(
            (json["name"].as_str(), json["entry"].as_str()),
            (Some("weather-2"), Some("run.sh"))
        );
        std::fs::write(dir.path().join(SIGNATURE_FILE), "sig").unwrap();
        assert!(matches!(rename(dir.path(), "x"), Err(RenameError::Signed)));
    }
}
