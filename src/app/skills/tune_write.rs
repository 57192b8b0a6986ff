//! Writing a tuned description back: the `description:` of SKILL.md's frontmatter (its other
//! lines untouched), else `skill.json`'s `description`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::exit::AppError;

/// Put `description` into the skill whose SKILL.md is `skill_file` (in `dir`); the file written.
pub fn write_description(skill_file: &Path, dir: &Path, description: &str) -> Result<PathBuf, AppError> {
    let cannot = |path: &Path, e: String| AppError::config(format!("cannot write {}: {e}", path.display()));
    let text = std::fs::read_to_string(skill_file).map_err(|e| cannot(skill_file, e.to_string()))?;
    if let Some(new) = with_front_description(&text, description) {
        std::fs::write(skill_file, new).map_err(|e| cannot(skill_file, e.to_string()))?;
        return Ok(skill_file.to_path_buf());
    }
    let manifest = dir.join("skill.json");
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
        return Err(cannot(&manifest, "it is not a JSON object".into()));
    };
    map.insert("description".into(), Value::String(description.to_string()));
    let text = serde_json::to_string_pretty(&json).map_err(|e| cannot(&manifest, e.to_string()))?;
    std::fs::write(&manifest, text + "\n").map_err(|e| cannot(&manifest, e.to_string()))?;
    Ok(manifest)
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
        let doc = crate::skills::frontmatter::split(&new);
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
}
