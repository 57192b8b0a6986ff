//! From a skill file's bytes to its fields: the pure, file-system-free half of loading, so the
//! fuzzer and property tests can drive it directly.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::frontmatter::{self, Finding};
use super::markdown_description::collapse_whitespace;
pub(crate) use super::markdown_description::{description_from_markdown, markdown_description_settled};
use crate::skills::{Dialect, Severity, code};
use crate::support::yaml::kind_of;

/// Agent Skills limit on `description`.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 1024;
/// A NUL byte among a file's first this many bytes makes it a binary file, not markdown.
pub(crate) const BINARY_SNIFF_BYTES: usize = 8192;
/// Agent Skills limit on `name`.
pub(crate) const MAX_NAME_CHARS: usize = 64;
const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Descriptions shorter than this rarely say what and when.
const SHORT_DESCRIPTION_CHARS: usize = 20;
const KNOWN_KEYS: [&str; 8] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "version",
    "requires",
];

/// What a skill file says about itself.
#[derive(Debug, Clone, Default)]
pub struct SkillText {
    pub name: String,
    /// `None`: no usable description anywhere, so the skill cannot be routed to.
    pub description: Option<String>,
    pub dialect: Option<Dialect>,
    pub(crate) allowed_tools: Vec<String>,
    pub(crate) version: Option<String>,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<String>,
    /// What the skill declares it needs (`requires:`, `skill.json`'s required `env[]`).
    pub(crate) requires: crate::skills::Requires,
    /// Who may invoke it (`disable-model-invocation`, `user-invocable`, `argument-hint`, `arguments`).
    pub(crate) invocation: super::invocation::Invocation,
    pub(crate) body: String,
    /// Where the description was found, when it was.
    pub(crate) description_from: Option<DescriptionSource>,
    pub findings: Vec<Finding>,
}

/// Where a skill's description came from: discovery reads only the front of a file, and needs
/// to know whether the markdown body was consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DescriptionSource {
    /// The frontmatter's `description`.
    Frontmatter,
    /// `skill.json`'s `description`.
    Manifest,
    /// The markdown: a `## Description` section, else the first paragraph.
    Markdown,
}

fn at(code: &'static str, severity: Severity, line: Option<usize>, message: impl Into<String>) -> Finding {
    Finding {
        severity,
        code,
        line: line.or(Some(1)),
        message: message.into(),
    }
}

/// The frontmatter of a skill file as a map, with its YAML text to find a key's line in.
#[derive(Default)]
struct Frontmatter<'a> {
    fields: Map<String, Value>,
    yaml: &'a str,
    /// 1-based line of the first YAML line.
    first_line: usize,
}

impl Frontmatter<'_> {
    /// The 1-based line of top-level key `key`: looked up only when a finding names it.
    fn line(&self, key: &str) -> Option<usize> {
        frontmatter::key_line(self.yaml, self.first_line, key)
    }

    /// Which dialect a file with this frontmatter is written in.
    fn dialect(&self) -> Dialect {
        if self.fields.is_empty() {
            Dialect::Scp
        } else {
            Dialect::AgentSkills
        }
    }
}

/// A string field of `skill.json`.
fn from_manifest<'m>(manifest: Option<&'m Map<String, Value>>, key: &str) -> Option<&'m str> {
    manifest.and_then(|m| m.get(key)).and_then(Value::as_str)
}

/// Analyse a `SKILL.md`'s bytes. `folder` is the skill folder's name; `manifest` is `skill.json`.
pub fn parse_skill_text(raw: &[u8], folder: &str, manifest: Option<&Map<String, Value>>) -> SkillText {
    parse_normalized(raw, None, folder, manifest)
}

/// [`parse_skill_text`] with `raw` already normalized by the caller (`None`: not yet), so a
/// caller that looked at the text first does not decode it twice.
pub(super) fn parse_normalized(
    raw: &[u8],
    normalized: Option<frontmatter::Normalized<'_>>,
    folder: &str,
    manifest: Option<&Map<String, Value>>,
) -> SkillText {
    let mut out = SkillText::default();
    if is_binary(raw) {
        out.findings.push(at(
            code::BINARY_FILE,
            Severity::Warning,
            None,
            "is a binary file, not markdown",
        ));
        return fill(out, &Frontmatter::default(), folder, manifest);
    }
    let normalized = normalized.unwrap_or_else(|| frontmatter::normalize(raw));
    out.findings.extend(normalized.findings);
    let split = frontmatter::split_parts(&normalized.text);
    out.findings.extend(split.findings);
    let mut fm = Frontmatter::default();
    if let Some(yaml) = split.yaml {
        let parsed = frontmatter::parse_yaml(yaml, split.yaml_line);
        out.findings.extend(parsed.findings);
        fm = Frontmatter {
            fields: parsed.map.unwrap_or_default(),
            yaml,
            first_line: split.yaml_line,
        };
    }
    out.body = split.body.to_string();
    fill(out, &fm, folder, manifest)
}

/// Whether `raw` is a binary file: a NUL byte among its first [`BINARY_SNIFF_BYTES`].
fn is_binary(raw: &[u8]) -> bool {
    super::frontmatter::scan::any_byte(&raw[..raw.len().min(BINARY_SNIFF_BYTES)], |b| b == 0)
}

/// The fields of a skill whose findings about its text and body are in `out` already.
fn fill(mut out: SkillText, fm: &Frontmatter<'_>, folder: &str, manifest: Option<&Map<String, Value>>) -> SkillText {
    let dialect = fm.dialect();
    out.dialect = Some(dialect);
    name(&mut out, fm, folder, manifest);
    description(&mut out, fm, manifest);
    other_fields(&mut out, fm);
    let requires = fm.fields.get("requires");
    let requires_line = requires.and_then(|_| fm.line("requires"));
    out.requires = super::requires::read(requires, manifest, requires_line, &mut out.findings);
    out.version = fm
        .fields
        .get("version")
        .or_else(|| manifest.and_then(|m| m.get("version")))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    out.license = fm
        .fields
        .get("license")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| from_manifest(manifest, "license").map(str::to_string));
    out
}

/// The name: frontmatter, else `skill.json`, else the folder; checked against the naming rules.
fn name(out: &mut SkillText, fm: &Frontmatter, folder: &str, manifest: Option<&Map<String, Value>>) {
    let dialect = fm.dialect();
    let declared = string_field(fm, "name", &mut out.findings)
        .or_else(|| from_manifest(manifest, "name").map(Cow::Borrowed))
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    if dialect == Dialect::AgentSkills && declared.is_none() {
        out.findings.push(at(
            code::MISSING_NAME,
            Severity::Warning,
            None,
            format!("frontmatter has no `name`; using the folder name `{folder}`"),
        ));
    }
    out.name = declared.unwrap_or_else(|| folder.to_string());
    let name = out.name.as_str();
    let normal = nfkc(name);
    for problem in name_problems(&normal) {
        out.findings.push(at(
            code::INVALID_NAME,
            Severity::Warning,
            fm.line("name"),
            format!("name `{name}` {problem}"),
        ));
    }
    if dialect == Dialect::AgentSkills && normal != nfkc(folder) {
        out.findings.push(at(
            code::NAME_FOLDER_MISMATCH,
            Severity::Warning,
            fm.line("name"),
            format!("name `{name}` does not match its folder `{folder}`"),
        ));
    }
}

/// The description: frontmatter, else `skill.json`, else the markdown; checked for length.
fn description(out: &mut SkillText, fm: &Frontmatter, manifest: Option<&Map<String, Value>>) {
    let found = string_field(fm, "description", &mut out.findings)
        .map(|d| (d, DescriptionSource::Frontmatter))
        .or_else(|| from_manifest(manifest, "description").map(|d| (Cow::Borrowed(d), DescriptionSource::Manifest)))
        .map(|(d, source)| (collapse_whitespace(&d), source))
        .filter(|(d, _)| !d.is_empty())
        .or_else(|| description_from_markdown(&out.body).map(|d| (d, DescriptionSource::Markdown)));
    out.description_from = found.as_ref().map(|(_, source)| *source);
    out.description = found.map(|(d, _)| d);
    let Some(description) = &out.description else {
        return;
    };
    if fm.dialect() == Dialect::AgentSkills && !fm.fields.contains_key("description") {
        out.findings.push(at(
            code::DESCRIPTION_FROM_MARKDOWN,
            Severity::Warning,
            None,
            "frontmatter has no `description`; took it from the markdown",
        ));
    }
    let line = || fm.line("description");
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        out.findings.push(at(
            code::DESCRIPTION_TOO_LONG,
            Severity::Warning,
            line(),
            format!("description is {chars} characters (limit {MAX_DESCRIPTION_CHARS}); the catalog cuts it there"),
        ));
    } else if chars < SHORT_DESCRIPTION_CHARS {
        out.findings.push(at(
            code::DESCRIPTION_TOO_SHORT,
            Severity::Info,
            line(),
            format!("description is only {chars} characters; say what the skill does and when to use it"),
        ));
    }
}

/// Every key the loader takes without calling it unknown: its own, then other tools' (read, or
/// knowingly ignored), so the list never omits a key it accepts.
fn known_keys() -> String {
    let others: Vec<&str> = super::invocation::OTHER_TOOL_KEYS.iter().map(|(k, _)| *k).collect();
    format!("known: {}; other tools': {}", KNOWN_KEYS.join(", "), others.join(", "))
}

/// `compatibility`, `metadata`, `allowed-tools`, `version` and keys the spec does not know.
fn other_fields(out: &mut SkillText, fm: &Frontmatter) {
    let fields = &fm.fields;
    out.compatibility = match fields.get("compatibility") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            out.findings.push(at(
                code::WRONG_TYPE,
                Severity::Warning,
                fm.line("compatibility"),
                format!("`compatibility` is a {}, not a string", kind_of(other)),
            ));
            Some(other.to_string())
        }
    };
    if out
        .compatibility
        .as_ref()
        .is_some_and(|c| c.chars().count() > MAX_COMPATIBILITY_CHARS)
    {
        out.findings.push(at(
            code::COMPATIBILITY_TOO_LONG,
            Severity::Warning,
            fm.line("compatibility"),
            format!("`compatibility` is over {MAX_COMPATIBILITY_CHARS} characters"),
        ));
    }
    if let Some(m) = fields.get("metadata")
        && !m.is_object()
        && !m.is_null()
    {
        out.findings.push(at(
            code::WRONG_TYPE,
            Severity::Warning,
            fm.line("metadata"),
            format!("`metadata` is a {}, not a mapping", kind_of(m)),
        ));
    }
    let (invocation, findings) = super::invocation::from_frontmatter(fields, &|key| fm.line(key));
    out.invocation = invocation;
    out.findings.extend(findings);
    // Other tools' keys are honoured or reported by `invocation`, not as unknown.
    let unknown = |k: &&String| !KNOWN_KEYS.contains(&k.as_str()) && super::invocation::treatment(k).is_none();
    for key in fields.keys().filter(unknown) {
        out.findings.push(at(
            code::UNKNOWN_KEY,
            Severity::Warning,
            fm.line(key),
            format!("unknown frontmatter key `{key}` ignored ({})", known_keys()),
        ));
    }
    if fields.contains_key("version") {
        out.findings.push(at(
            code::VERSION_NOT_IN_SPEC,
            Severity::Info,
            fm.line("version"),
            "`version` is not an Agent Skills field; `metadata: {version: …}` is the portable place",
        ));
    }
    if let Some(tools) = fields.get("allowed-tools") {
        out.allowed_tools = parse_allowed_tools(tools);
        if !matches!(tools, Value::String(_) | Value::Array(_) | Value::Null) {
            out.findings.push(at(
                code::WRONG_TYPE,
                Severity::Warning,
                fm.line("allowed-tools"),
                format!("`allowed-tools` is a {}; expected a string or a list", kind_of(tools)),
            ));
        }
    }
}

/// Names are compared after NFKC normalisation: file systems may store `café` decomposed.
fn nfkc(s: &str) -> Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization;
    // ASCII is its own normal form.
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.nfkc().collect())
}

/// Frontmatter field `key` as text (borrowed when it is a string); a finding when it is a list
/// or a mapping.
fn string_field<'f>(fm: &'f Frontmatter<'_>, key: &str, findings: &mut Vec<Finding>) -> Option<Cow<'f, str>> {
    match fm.fields.get(key)? {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Null => None,
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        other => {
            findings.push(at(
                code::WRONG_TYPE,
                Severity::Warning,
                fm.line(key),
                format!("`{key}` is a {}, not a string; ignored it", kind_of(other)),
            ));
            None
        }
    }
}

/// Why a name breaks the Agent Skills naming rules (empty when it does not).
pub(crate) fn name_problems(name: &str) -> Vec<&'static str> {
    // Most names are fine: lowercase ASCII letters, digits and single inner hyphens.
    let simple = name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if simple {
        return Vec::new();
    }
    let mut problems = Vec::new();
    if name.chars().count() > MAX_NAME_CHARS {
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
pub(crate) fn parse_allowed_tools(value: &Value) -> Vec<String> {
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
    fn simple_names_have_no_problems_like_the_general_rules_say() {
        for name in [
            "",
            "a",
            "pdf-tools",
            "x9-y",
            "-a",
            "a-",
            "a--b",
            "Ab",
            "a b",
            "a_b",
            "é",
            &"a".repeat(64),
            &"a".repeat(65),
        ] {
            let mut general = Vec::new();
            if name.chars().count() > MAX_NAME_CHARS {
                general.push("long");
            }
            if name.chars().any(|c| c.is_uppercase() || c.is_whitespace()) {
                general.push("case or space");
            }
            if name
                .chars()
                .any(|c| !(c.is_alphanumeric() || c == '-' || c.is_whitespace()))
            {
                general.push("characters");
            }
            if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
                general.push("hyphens");
            }
            assert_eq!(name_problems(name).is_empty(), general.is_empty(), "{name:?}");
        }
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
    fn findings_point_at_the_offending_line() {
        let t = parse_skill_text(
            b"---\nname: x\nlicense: MIT\ncolour: red\ndescription: Does x things for you.\n---\n",
            "x",
            None,
        );
        let unknown = t.findings.iter().find(|f| f.code == code::UNKNOWN_KEY).unwrap();
        assert_eq!(unknown.line, Some(4));
        assert_eq!(t.description.as_deref(), Some("Does x things for you."));
    }
}
