//! Loading one skill folder in either dialect: frontmatter fields, `skill.json`, markdown sections.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::frontmatter::{self, Finding, kind_of};
use super::{Diagnostic, Dialect, Severity, Skill};

/// Bytes of a `SKILL.md` that are read at most; the rest of a larger file is ignored.
pub const MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;
/// Agent Skills limit on `description`.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Agent Skills limit on `name`.
pub const MAX_NAME_CHARS: usize = 64;
const MAX_COMPATIBILITY_CHARS: usize = 500;
const KNOWN_KEYS: [&str; 7] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "version",
];

/// Result of looking at one folder below a skill root.
#[derive(Debug)]
pub enum Loaded {
    Skill(Box<Skill>),
    /// The folder has a skill file, but nothing usable as a description.
    Skipped(Diagnostic),
    /// The folder is not a skill (no `SKILL.md`).
    NotASkill,
}

/// Read a file, at most [`MAX_SKILL_FILE_BYTES`] of it.
pub fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_SKILL_FILE_BYTES)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// The skill file of a folder: `SKILL.md`, else `skill.md`.
pub fn find_skill_file(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// Load the skill in `dir`, found under `root`.
pub fn load_skill(dir: &Path, root: &Path) -> Loaded {
    let Some(file) = find_skill_file(dir) else {
        return Loaded::NotASkill;
    };
    let mut diags = Vec::new();
    let mut push = |f: Finding| diags.push(Diagnostic::new(f.severity, &file, f.line, f.message));
    if file.file_name().is_some_and(|n| n == "skill.md") {
        push(Finding {
            severity: Severity::Info,
            line: None,
            message: "lowercase `skill.md`; `SKILL.md` is the usual name".into(),
        });
    }
    let raw = match read_capped(&file) {
        Ok(raw) => raw,
        Err(e) => {
            return Loaded::Skipped(Diagnostic::new(
                Severity::Error,
                &file,
                None,
                format!("cannot read: {e}"),
            ));
        }
    };
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    if size > MAX_SKILL_FILE_BYTES {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!(
                "is {size} bytes; only the first {MAX_SKILL_FILE_BYTES} are read — move detail into references/"
            ),
        });
    }
    let manifest = read_manifest(dir, &mut diags);
    let mut push = |f: Finding| diags.push(Diagnostic::new(f.severity, &file, f.line, f.message));
    let binary = raw.iter().take(8192).any(|b| *b == 0);
    let (fields, body) = if binary {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: "is a binary file, not markdown".into(),
        });
        (Map::new(), String::new())
    } else {
        let normalized = frontmatter::normalize(&raw);
        normalized.findings.into_iter().for_each(&mut push);
        let split = frontmatter::split(&normalized.text);
        split.findings.into_iter().for_each(&mut push);
        let mut fields = Map::new();
        if let Some(yaml) = &split.yaml {
            let parsed = frontmatter::parse_yaml(yaml, split.yaml_line);
            parsed.findings.into_iter().for_each(&mut push);
            fields = parsed.map.unwrap_or_default();
        }
        (fields, split.body)
    };
    let dialect = if fields.is_empty() {
        Dialect::Scp
    } else {
        Dialect::AgentSkills
    };
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    let mut name = string_field(&fields, "name", &mut push)
        .or_else(|| {
            manifest
                .as_ref()
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    if dialect == Dialect::AgentSkills && name.is_none() {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("frontmatter has no `name`; using the folder name `{folder_name}`"),
        });
    }
    let name = name.take().unwrap_or_else(|| folder_name.clone());
    for problem in name_problems(&nfkc(&name)) {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("name `{name}` {problem}"),
        });
    }
    if nfkc(&name) != nfkc(&folder_name) && dialect == Dialect::AgentSkills {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("name `{name}` does not match its folder `{folder_name}`"),
        });
    }

    let description = string_field(&fields, "description", &mut push)
        .or_else(|| {
            manifest
                .as_ref()
                .and_then(|m| m.get("description"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .map(|d| collapse_whitespace(&d))
        .filter(|d| !d.is_empty())
        .or_else(|| description_from_markdown(&body));
    let Some(description) = description else {
        return Loaded::Skipped(Diagnostic::new(
            Severity::Error,
            &file,
            None,
            "no description found: add `description:` frontmatter, a skill.json `description`, or a `## Description` section",
        ));
    };
    if dialect == Dialect::AgentSkills && !fields.contains_key("description") {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: "frontmatter has no `description`; took it from the markdown".into(),
        });
    }
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("description is {chars} characters (limit {MAX_DESCRIPTION_CHARS})"),
        });
    }

    let compatibility = match fields.get("compatibility") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            push(Finding {
                severity: Severity::Warning,
                line: None,
                message: format!("`compatibility` is a {}, not a string", kind_of(other)),
            });
            Some(other.to_string())
        }
    };
    if let Some(c) = &compatibility
        && c.chars().count() > MAX_COMPATIBILITY_CHARS
    {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("`compatibility` is over {MAX_COMPATIBILITY_CHARS} characters"),
        });
    }
    if let Some(m) = fields.get("metadata")
        && !m.is_object()
        && !m.is_null()
    {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!("`metadata` is a {}, not a mapping", kind_of(m)),
        });
    }
    for key in fields.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        push(Finding {
            severity: Severity::Warning,
            line: None,
            message: format!(
                "unknown frontmatter key `{key}` ignored (allowed: name, description, license, compatibility, metadata, allowed-tools)"
            ),
        });
    }
    if fields.contains_key("version") {
        push(Finding {
            severity: Severity::Info,
            line: None,
            message: "`version` is not an Agent Skills field; `metadata: {version: …}` is the portable place".into(),
        });
    }
    let allowed_tools = fields.get("allowed-tools").map(parse_allowed_tools).unwrap_or_default();
    let version = fields
        .get("version")
        .or_else(|| manifest.as_ref().and_then(|m| m.get("version")))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    let license = fields
        .get("license")
        .or_else(|| manifest.as_ref().and_then(|m| m.get("license")))
        .and_then(Value::as_str)
        .map(str::to_string);
    let entry = find_entry(dir, manifest.as_ref(), &mut diags);

    Loaded::Skill(Box::new(Skill {
        name,
        description,
        dir: dir.to_path_buf(),
        skill_file: file.clone(),
        root: root.to_path_buf(),
        root_kind: super::discover::RootKind::Flag,
        dialect,
        entry,
        allowed_tools,
        version,
        license,
        compatibility,
        diagnostics: diags,
    }))
}

/// Names are compared after NFKC normalisation: file systems may store `café` decomposed.
fn nfkc(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc().collect()
}

fn string_field(fields: &Map<String, Value>, key: &str, push: &mut impl FnMut(Finding)) -> Option<String> {
    match fields.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => {
            push(Finding {
                severity: Severity::Warning,
                line: None,
                message: format!("`{key}` is a {}, not a string; ignored it", kind_of(other)),
            });
            None
        }
    }
}

fn read_manifest(dir: &Path, diags: &mut Vec<Diagnostic>) -> Option<Map<String, Value>> {
    let path = dir.join("skill.json");
    let text = std::fs::read_to_string(&path).ok()?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Some(map),
        Ok(other) => {
            diags.push(Diagnostic::new(
                Severity::Warning,
                &path,
                None,
                format!("is a JSON {}, not an object; ignored it", kind_of(&other)),
            ));
            None
        }
        Err(e) => {
            diags.push(Diagnostic::new(
                Severity::Warning,
                &path,
                Some(e.line()),
                format!("is not valid JSON ({e}); ignored it"),
            ));
            None
        }
    }
}

fn find_entry(dir: &Path, manifest: Option<&Map<String, Value>>, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let declared = manifest.and_then(|m| m.get("entry")).and_then(Value::as_str);
    let entry = declared.unwrap_or("run.sh").trim_start_matches("./").to_string();
    let path = dir.join(&entry);
    if !path.is_file() {
        if declared.is_some() {
            diags.push(Diagnostic::new(
                Severity::Warning,
                &dir.join("skill.json"),
                None,
                format!("`entry` names `{entry}`, which does not exist"),
            ));
        }
        return None;
    }
    if !is_executable(&path) {
        diags.push(Diagnostic::new(
            Severity::Warning,
            &path,
            None,
            format!("entry script is not executable; run `chmod +x {entry}`"),
        ));
    }
    Some(entry)
}

/// Whether any execute bit is set.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// Why a name breaks the Agent Skills naming rules (empty when it does not).
pub fn name_problems(name: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    let count = name.chars().count();
    if count > MAX_NAME_CHARS {
        problems.push("is longer than 64 characters");
    }
    if name.chars().any(|c| c.is_uppercase()) {
        problems.push("has uppercase letters");
    }
    if name.chars().any(char::is_whitespace) {
        problems.push("has spaces");
    }
    if name
        .chars()
        .any(|c| !(c.is_alphanumeric() || c == '-' || c.is_whitespace()))
    {
        problems.push("has characters other than letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("starts or ends with a hyphen");
    }
    if name.contains("--") {
        problems.push("has consecutive hyphens");
    }
    problems
}

/// `allowed-tools` in its real-world spellings: a space- or comma-separated string, or a list.
/// Separators inside parentheses (`Bash(curl -s x:*)`) do not split.
pub fn parse_allowed_tools(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => split_tools(s),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

fn split_tools(s: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c.is_whitespace() || c == ',') {
            if !current.is_empty() {
                tools.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        tools.push(current);
    }
    tools
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// SCP description: the `## Description` section, else the first paragraph after the H1.
pub fn description_from_markdown(body: &str) -> Option<String> {
    let lines: Vec<&str> = body.lines().collect();
    let heading = |l: &str| l.trim_start().starts_with('#');
    if let Some(start) = lines.iter().position(|l| {
        heading(l)
            && l.trim_start()
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("description")
    }) {
        let para = first_paragraph(&lines[start + 1..], &heading);
        if para.is_some() {
            return para;
        }
    }
    let after_h1 = lines.iter().position(|l| l.starts_with("# ")).map_or(0, |i| i + 1);
    first_paragraph(&lines[after_h1..], &heading)
}

fn first_paragraph(lines: &[&str], heading: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut para: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if heading(line) {
            if para.is_empty() {
                continue;
            }
            break;
        }
        if t.is_empty() || t.starts_with("<!--") || t.starts_with("![") || t.starts_with("[![") {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        para.push(t);
    }
    let text = collapse_whitespace(&para.join(" "));
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allowed_tools_spellings() {
        assert_eq!(parse_allowed_tools(&json!("Bash(git:*) Read")), ["Bash(git:*)", "Read"]);
        assert_eq!(
            parse_allowed_tools(&json!("Read, Grep,Bash(curl -s wttr.in/*)")),
            ["Read", "Grep", "Bash(curl -s wttr.in/*)"]
        );
        assert_eq!(
            parse_allowed_tools(&json!(["Read", "Bash(ls:*)"])),
            ["Read", "Bash(ls:*)"]
        );
    }

    #[test]
    fn names() {
        assert!(name_problems("pdf-tools").is_empty());
        assert!(name_problems("données").is_empty());
        assert!(!name_problems("My Skill").is_empty());
        assert!(!name_problems("-x").is_empty());
        assert!(!name_problems("a--b").is_empty());
        assert!(!name_problems("a_b").is_empty());
    }

    #[test]
    fn description_section_then_first_paragraph() {
        let md =
            "# Weather\n\nShows the weather.\n\n## Description\n\nGet the current\nweather for a city.\n\n## Usage\n";
        assert_eq!(
            description_from_markdown(md).unwrap(),
            "Get the current weather for a city."
        );
        let md = "# Weather\n\n![badge](x)\n\nShows the weather\nfor a city.\n\n## Usage\n";
        assert_eq!(description_from_markdown(md).unwrap(), "Shows the weather for a city.");
        assert_eq!(
            description_from_markdown("Just text here.\n").unwrap(),
            "Just text here."
        );
        assert!(description_from_markdown("# Only a title\n").is_none());
    }
}
