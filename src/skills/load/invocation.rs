//! Who may invoke a skill, and the other tools' frontmatter extensions: `disable-model-invocation`,
//! `user-invocable`, `argument-hint` and `arguments` (Claude Code), Codex's `agents/openai.yaml`
//! `policy.allow_implicit_invocation`, and what `agent` does with every other key those tools
//! define (honoured, ignored with a finding, or ignored silently).

use std::path::Path;

use serde_json::{Map, Value};

use super::frontmatter::Finding;
use crate::skills::{Diagnostic, Severity, code};
use crate::support::fs::read_whole;
use crate::support::yaml::{document, kind_of};

/// Bytes of `agents/openai.yaml` read at most; a larger one is ignored with a warning.
const MAX_OPENAI_YAML_BYTES: u64 = 256 * 1024;

/// How a skill may be invoked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Invocation {
    /// The model may pick it: it is in the catalog and the `activate_skill` enum.
    pub(crate) model: bool,
    /// It is offered to people: `/NAME` completion and `/help`.
    pub(crate) user: bool,
    /// What the arguments look like (`[environment]`), shown in completion and `/help`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) argument_hint: Option<String>,
    /// Names declared in `arguments:`, standing for the arguments in order (`$issue`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) arguments: Vec<String>,
    /// `context: fork`: the skill runs as a sub-conversation that returns only its answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) fork: bool,
    /// `model:` (Claude Code): the model the skill asks for (`inherit` is read as none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) wants_model: Option<String>,
    /// `agent:` (Claude Code's subagent type for a fork), as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// `paths:`: globs relative to the working folder; offered to the model only where one
    /// matches a file (`skills::paths`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) paths: Vec<String>,
    /// `hooks:` (Claude Code): the skill's own hooks, as written (a mapping of events); they run
    /// while the skill is active, as its commands (docs/hooks.md#hooks-in-a-skill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) hooks: Option<Value>,
}

impl Default for Invocation {
    fn default() -> Self {
        Self {
            model: true,
            user: true,
            argument_hint: None,
            arguments: Vec::new(),
            fork: false,
            wants_model: None,
            agent: None,
            paths: Vec::new(),
            hooks: None,
        }
    }
}

/// What `agent` does with a key that another tool defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Treatment {
    /// Read and acted on.
    Honoured,
    /// Not acted on, and the difference matters to the skill: a finding says so.
    Noted(Severity, &'static str),
    /// Not acted on; nothing about the skill changes that a person would notice.
    Silent,
}

/// Other tools' frontmatter keys and what `agent` does with each (docs/skills.md, "Skills from other tools").
pub(crate) const OTHER_TOOL_KEYS: [(&str, Treatment); 12] = [
    ("argument-hint", Treatment::Honoured),
    ("disable-model-invocation", Treatment::Honoured),
    ("user-invocable", Treatment::Honoured),
    ("arguments", Treatment::Honoured),
    ("hooks", Treatment::Honoured),
    (
        "when_to_use",
        Treatment::Noted(
            Severity::Info,
            "`when_to_use` (Claude Code) is not read: agent routes on `description` alone, so say when to use the skill there",
        ),
    ),
    ("model", Treatment::Honoured),
    ("effort", Treatment::Silent),
    ("context", Treatment::Honoured),
    ("agent", Treatment::Honoured),
    ("paths", Treatment::Honoured),
    ("shell", Treatment::Silent),
];

/// What `agent` does with frontmatter key `key` of another tool, if another tool defines it.
pub(crate) fn treatment(key: &str) -> Option<Treatment> {
    OTHER_TOOL_KEYS.iter().find(|(k, _)| *k == key).map(|(_, t)| *t)
}

/// Read the invocation keys of a frontmatter mapping; `line` finds a key's line.
pub(crate) fn from_frontmatter(
    fields: &Map<String, Value>,
    line: &dyn Fn(&str) -> Option<usize>,
) -> (Invocation, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut out = Invocation::default();
    if let Some(v) = fields.get("disable-model-invocation") {
        out.model = !flag(v, "disable-model-invocation", false, line, &mut findings);
    }
    if let Some(v) = fields.get("user-invocable") {
        out.user = flag(v, "user-invocable", true, line, &mut findings);
    }
    match fields.get("argument-hint") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => out.argument_hint = Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        // `argument-hint: [env]` is YAML for a list; people mean the text they typed.
        Some(Value::Array(items)) => {
            let words: Vec<String> = items.iter().map(scalar_text).collect();
            out.argument_hint = Some(format!("[{}]", words.join(", ")));
        }
        Some(other) => findings.push(Finding {
            code: code::WRONG_TYPE,
            severity: Severity::Warning,
            line: line("argument-hint"),
            message: format!(
                "`argument-hint` is a {}; expected text such as \"[environment]\"",
                kind_of(other)
            ),
        }),
    }
    if let Some(v) = fields.get("arguments") {
        out.arguments = crate::skills::arguments::declared_arguments(v);
    }
    fork_fields(fields, line, &mut out, &mut findings);
    if let Some(v) = fields.get("hooks").filter(|v| !v.is_null()) {
        let (kept, problems) = super::skill_hooks::read(v);
        out.hooks = kept;
        findings.extend(problems.into_iter().map(|message| Finding {
            code: code::MALFORMED_HOOKS,
            severity: Severity::Warning,
            line: line("hooks"),
            message,
        }));
    }
    for (key, treatment) in OTHER_TOOL_KEYS {
        if let Treatment::Noted(severity, message) = treatment
            && fields.contains_key(key)
        {
            findings.push(Finding {
                code: code::OTHER_TOOL_KEY,
                severity,
                line: line(key),
                message: message.to_string(),
            });
        }
    }
    (out, findings)
}

/// `context`, `model`, `agent` and `paths` (Claude Code): how the skill runs and where it is offered.
fn fork_fields(
    fields: &Map<String, Value>,
    line: &dyn Fn(&str) -> Option<usize>,
    out: &mut Invocation,
    findings: &mut Vec<Finding>,
) {
    let mut text = |key: &str| match fields.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Some(other) => {
            findings.push(Finding {
                code: code::WRONG_TYPE,
                severity: Severity::Warning,
                line: line(key),
                message: format!("`{key}` is a {}; expected text; ignored it", kind_of(other)),
            });
            None
        }
    };
    let context = text("context");
    out.wants_model = text("model").filter(|m| !m.eq_ignore_ascii_case("inherit"));
    out.agent = text("agent");
    match context.as_deref() {
        None => {}
        Some("fork") => out.fork = true,
        Some(other) => findings.push(Finding {
            code: code::WRONG_TYPE,
            severity: Severity::Warning,
            line: line("context"),
            message: format!("`context: {other}` is not known; only `fork` is, so the skill runs in the conversation"),
        }),
    }
    out.paths = match fields.get("paths") {
        None | Some(Value::Null) => Vec::new(),
        // Claude Code takes a comma-separated string or a list.
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(scalar_text)
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        Some(other) => {
            findings.push(Finding {
                code: code::WRONG_TYPE,
                severity: Severity::Warning,
                line: line("paths"),
                message: format!(
                    "`paths` is a {}; expected a glob or a list of globs; ignored it",
                    kind_of(other)
                ),
            });
            Vec::new()
        }
    };
    for bad in crate::skills::paths::invalid_globs(&out.paths) {
        findings.push(Finding {
            code: code::WRONG_TYPE,
            severity: Severity::Warning,
            line: line("paths"),
            message: format!("`paths` glob {bad}; it matches nothing"),
        });
    }
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A yes/no key, leniently: booleans, and `"true"`/`"false"`/`"yes"`/`"no"` written as text.
fn flag(
    v: &Value,
    key: &str,
    default: bool,
    line: &dyn Fn(&str) -> Option<usize>,
    findings: &mut Vec<Finding>,
) -> bool {
    let parsed = match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => None,
        },
        Value::Null => return default,
        _ => None,
    };
    parsed.unwrap_or_else(|| {
        findings.push(Finding {
            code: code::WRONG_TYPE,
            severity: Severity::Warning,
            line: line(key),
            message: format!("`{key}` is {v}, not true or false; using {default}"),
        });
        default
    })
}

/// Codex's `agents/openai.yaml` of a skill folder: `Some(false)` when its
/// `policy.allow_implicit_invocation` is false (the model may not pick the skill), with findings
/// about the file itself. Codex's `interface` block is for its own UI and is not read.
pub(crate) fn codex_policy(dir: &Path) -> (Option<bool>, Vec<Diagnostic>) {
    let path = dir.join("agents").join("openai.yaml");
    let warn = |code, message: String| Diagnostic::new(code, Severity::Warning, &path, None, message);
    let read = read_whole(&path, MAX_OPENAI_YAML_BYTES).map(|r| r.text());
    let value = match read.as_deref().map(document) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (None, Vec::new()),
        Err(e) => {
            return (
                None,
                vec![warn(
                    code::OPENAI_YAML_INVALID,
                    format!("cannot be used: {e}; ignored it"),
                )],
            );
        }
        Ok(Err(e)) => {
            let message = format!("is not valid YAML ({e}); ignored it");
            return (None, vec![warn(code::OPENAI_YAML_INVALID, message)]);
        }
        Ok(Ok(value)) => value,
    };
    let mut found = Vec::new();
    if let Some(tools) = value.pointer("/dependencies/tools").and_then(Value::as_array)
        && !tools.is_empty()
    {
        let names: Vec<String> = tools
            .iter()
            .map(|t| {
                t.get("value")
                    .or_else(|| t.get("name"))
                    .map_or_else(|| t.to_string(), scalar_text)
            })
            .collect();
        found.push(warn(
            code::UNSUPPORTED_DEPENDENCY,
            format!(
                "declares tools agent does not provide ({}): instructions that rely on them will fail",
                names.join(", ")
            ),
        ));
    }
    let policy = match value.pointer("/policy/allow_implicit_invocation") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            found.push(warn(
                code::WRONG_TYPE,
                format!("`policy.allow_implicit_invocation` is {other}, not true or false; ignored it"),
            ));
            None
        }
    };
    (policy, found)
}

/// The first line of skill file text `text` (1-based) that opens Claude Code's multi-line shell
/// preprocessing, a fenced block opened with ```` ```! ````. Claude Code runs such a block before
/// the model reads the skill; `agent` runs only the one-line `` !`command` `` form
/// (`skills::dynamic`), so the model would read this block's commands instead of their output.
pub(crate) fn shell_preprocessing(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| line.trim_start().starts_with("```!"))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> (Invocation, Vec<Finding>) {
        from_frontmatter(v.as_object().unwrap(), &|_| Some(2))
    }

    #[test]
    fn defaults_and_flags() {
        assert_eq!(read(json!({})).0, Invocation::default());
        let (inv, findings) = read(json!({
            "disable-model-invocation": true,
            "user-invocable": "no",
            "argument-hint": ["environment"],
            "arguments": "env region",
        }));
        assert!(!inv.model && !inv.user);
        assert_eq!(inv.argument_hint.as_deref(), Some("[environment]"));
        assert_eq!(inv.arguments, ["env", "region"]);
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn fork_model_agent_and_paths_are_read() {
        let (inv, findings) = read(json!({
            "context": "fork", "model": "small-model", "agent": "Explore", "paths": "src/**/*.rs, *.toml",
        }));
        assert!(inv.fork && findings.is_empty(), "{findings:?}");
        assert_eq!(inv.wants_model.as_deref(), Some("small-model"));
        assert_eq!(inv.agent.as_deref(), Some("Explore"));
        assert_eq!(inv.paths, ["src/**/*.rs", "*.toml"]);
        let (inv, findings) =
            read(json!({"context": "inline", "model": "inherit", "paths": ["a/*", 3, "b/[x"], "agent": 1}));
        assert!(!inv.fork && inv.wants_model.is_none() && inv.agent.is_none());
        assert_eq!(inv.paths, ["a/*", "3", "b/[x"]);
        assert_eq!(findings.len(), 3, "{findings:?}");
        assert!(findings[2].message.contains("b/[x"), "{findings:?}");
    }

    #[test]
    fn odd_values_are_named_and_defaulted() {
        let (inv, findings) = read(json!({"disable-model-invocation": "maybe", "argument-hint": {"a": 1}}));
        assert!(inv.model);
        assert_eq!(findings.len(), 2);
        assert!(findings[0].message.contains("not true or false"), "{findings:?}");
    }

    #[test]
    fn other_tools_keys_are_classified() {
        let (inv, findings) = read(json!({"hooks": {}, "model": "opus", "when_to_use": "x"}));
        let severities: Vec<Severity> = findings.iter().map(|f| f.severity).collect();
        assert_eq!(severities, [Severity::Info]);
        assert_eq!(inv.hooks, Some(json!({})));
        let (inv, findings) = read(json!({"hooks": ["guard.sh"]}));
        assert!(inv.hooks.is_none());
        assert_eq!(findings[0].code, code::MALFORMED_HOOKS);
        assert_eq!(treatment("hooks"), Some(Treatment::Honoured));
        assert_eq!(treatment("model"), Some(Treatment::Honoured));
        assert_eq!(treatment("effort"), Some(Treatment::Silent));
        assert_eq!(treatment("argument-hint"), Some(Treatment::Honoured));
        assert_eq!(treatment("colour"), None);
    }

    #[test]
    fn claude_code_shell_preprocessing_is_found() {
        assert_eq!(
            shell_preprocessing("---\nname: x\n---\nBranch: !`git branch --show-current`\n"),
            None
        );
        assert_eq!(shell_preprocessing("a\n  ```!\ngit status\n```\n"), Some(2));
        assert_eq!(shell_preprocessing("Done!`x` and ```sh\nrun!\n```\n"), None);
    }

    #[test]
    fn codex_policy_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(codex_policy(dir.path()), (None, Vec::new()));
        std::fs::create_dir(dir.path().join("agents")).unwrap();
        let file = dir.path().join("agents/openai.yaml");
        std::fs::write(
            &file,
            "interface:\n  display_name: X\npolicy:\n  allow_implicit_invocation: false\n",
        )
        .unwrap();
        assert_eq!(codex_policy(dir.path()), (Some(false), Vec::new()));
        std::fs::write(
            &file,
            "policy: {allow_implicit_invocation: 3}\ndependencies:\n  tools:\n    - {type: mcp, value: render}\n",
        )
        .unwrap();
        let (policy, found) = codex_policy(dir.path());
        assert_eq!(policy, None);
        assert_eq!(found.len(), 2);
        assert!(found[0].message.contains("render"), "{found:?}");
        std::fs::write(&file, "policy: [unclosed\n").unwrap();
        assert!(codex_policy(dir.path()).1[0].message.contains("not valid YAML"));
    }
}
