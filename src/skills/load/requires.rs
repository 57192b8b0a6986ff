//! What a skill declares it needs (docs/skills.md, "Declaring what a skill needs"): environment
//! variables, programs on `PATH`, places it writes to and whether it reaches the network. Read from
//! the frontmatter's `requires:` and from `skill.json`'s `env[]` entries marked `required: true`;
//! checking them (and confining commands to them) is the business of the agent and the sandbox.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::frontmatter::Finding;
use crate::skills::Severity;
use crate::skills::code;
use crate::support::yaml::kind_of;

/// A skill's declared needs. Empty when it declares none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Requires {
    /// Environment variables that must be set for its commands to work.
    pub(crate) env: Vec<String>,
    /// Programs that must be found on `PATH`.
    pub(crate) bins: Vec<String>,
    /// Paths its commands write to besides its own folder, the working directory and the temp
    /// folder, as written (`~` is expanded by whoever uses them).
    pub(crate) write: Vec<String>,
    /// Its commands open network connections.
    pub(crate) network: bool,
    /// Model Context Protocol servers its instructions call tools of (`requires.mcp`, as
    /// Composio's skills declare `mcp: [rube]`).
    // No `skip_serializing_if`: the catalog cache stores this with postcard, which is not
    // self-describing.
    #[serde(default)]
    pub(crate) mcp: Vec<String>,
}

impl Requires {
    #[cfg(test)]
    /// Nothing declared.
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

fn finding(line: Option<usize>, message: String) -> Finding {
    Finding {
        severity: Severity::Warning,
        code: code::MALFORMED_REQUIRES,
        line: line.or(Some(1)),
        message,
    }
}

/// A list of names in any of its real-world spellings: a YAML list, or one string separated by
/// commas or spaces. Anything else is reported and ignored.
fn names(value: &Value, key: &str, line: Option<usize>, findings: &mut Vec<Finding>) -> Vec<String> {
    let mut out: Vec<String> = match value {
        Value::Null => Vec::new(),
        Value::String(s) => s
            .split(|c: char| c == ',' || c.is_whitespace())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
                Value::Null => None,
                other => {
                    findings.push(finding(
                        line,
                        format!("`requires.{key}` holds a {}; expected names", kind_of(other)),
                    ));
                    None
                }
            })
            .collect(),
        other => {
            findings.push(finding(
                line,
                format!("`requires.{key}` is a {}; expected a list of names", kind_of(other)),
            ));
            Vec::new()
        }
    };
    out.dedup();
    out
}

fn flag(value: &Value, line: Option<usize>, findings: &mut Vec<Finding>) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::String(s) if matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "on") => true,
        Value::String(s) if matches!(s.trim().to_ascii_lowercase().as_str(), "false" | "no" | "off") => false,
        other => {
            findings.push(finding(
                line,
                format!("`requires.network` is {other}; expected true or false (read as false)"),
            ));
            false
        }
    }
}

/// Read the frontmatter's `requires` value (at `line`) and `skill.json`'s required `env[]`.
pub(crate) fn read(
    frontmatter: Option<&Value>,
    manifest: Option<&Map<String, Value>>,
    line: Option<usize>,
    findings: &mut Vec<Finding>,
) -> Requires {
    let mut out = Requires::default();
    match frontmatter {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (key, value) in map {
                match key.as_str() {
                    "env" => out.env = names(value, key, line, findings),
                    "bins" => out.bins = names(value, key, line, findings),
                    "write" => out.write = names(value, key, line, findings),
                    "network" => out.network = flag(value, line, findings),
                    // The spellings real skills use for the MCP servers they need.
                    "mcp" | "mcp_servers" | "mcp-servers" | "mcpServers" => {
                        for name in names(value, key, line, findings) {
                            if !out.mcp.contains(&name) {
                                out.mcp.push(name);
                            }
                        }
                    }
                    other => findings.push(finding(
                        line,
                        format!("unknown `requires.{other}` ignored (known: env, bins, write, network, mcp)"),
                    )),
                }
            }
        }
        Some(other) => findings.push(finding(
            line,
            format!(
                "`requires` is a {}; expected a mapping such as `{{env: [TOKEN], bins: [jq]}}`",
                kind_of(other)
            ),
        )),
    }
    for name in manifest_required_env(manifest) {
        if !out.env.contains(&name) {
            out.env.push(name);
        }
    }
    out
}

/// Names of `skill.json`'s `env[]` entries with `required: true`.
fn manifest_required_env(manifest: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(Value::Array(entries)) = manifest.and_then(|m| m.get("env")) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|e| e.get("required").and_then(Value::as_bool) == Some(true))
        .filter_map(|e| e.get("name").and_then(Value::as_str))
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(front: Value, manifest: Value) -> (Requires, Vec<Finding>) {
        let mut findings = Vec::new();
        let manifest = manifest.as_object().cloned();
        let r = read(Some(&front), manifest.as_ref(), Some(4), &mut findings);
        (r, findings)
    }

    #[test]
    fn reads_every_field_in_its_spellings() {
        let (r, f) = parse(
            json!({"env": ["GITHUB_TOKEN"], "bins": "jq, curl", "write": ["~/.cache/x"], "network": true}),
            Value::Null,
        );
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(r.env, ["GITHUB_TOKEN"]);
        assert_eq!(r.bins, ["jq", "curl"]);
        assert_eq!(r.write, ["~/.cache/x"]);
        assert!(r.network);
        let (r, _) = parse(json!({"network": "yes", "env": "A B"}), Value::Null);
        assert!(r.network);
        assert_eq!(r.env, ["A", "B"]);
    }

    #[test]
    fn mcp_servers_are_a_recognised_need() {
        let (r, f) = parse(json!({"mcp": ["rube"]}), Value::Null);
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(r.mcp, ["rube"]);
        let (r, f) = parse(
            json!({"mcp-servers": "github, rube", "mcp_servers": ["rube"]}),
            Value::Null,
        );
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(r.mcp, ["github", "rube"]);
        let (_, f) = parse(json!({"mcp": {"rube": 1}}), Value::Null);
        assert_eq!(f.len(), 1, "a mapping is still malformed: {f:?}");
    }

    #[test]
    fn manifest_required_env_joins_without_duplicates() {
        let (r, _) = parse(
            json!({"env": ["A"]}),
            json!({"env": [{"name": "A", "required": true}, {"name": "B", "required": true}, {"name": "C"}]}),
        );
        assert_eq!(r.env, ["A", "B"]);
        let mut findings = Vec::new();
        let manifest = json!({"env": [{"name": "TOKEN", "required": true}]});
        let r = read(None, manifest.as_object(), None, &mut findings);
        assert_eq!(r.env, ["TOKEN"]);
        assert!(!r.is_empty());
    }

    #[test]
    fn malformed_values_are_reported_and_ignored() {
        let (r, f) = parse(json!({"env": {"A": 1}, "network": 3, "disk": 1}), Value::Null);
        assert!(r.is_empty());
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(
            f.iter()
                .all(|f| f.code == code::MALFORMED_REQUIRES && f.line == Some(4))
        );
        let (_, f) = parse(json!("jq"), Value::Null);
        assert!(f[0].message.contains("expected a mapping"), "{f:?}");
    }
}
