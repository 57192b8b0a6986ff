//! The field tables of `docs/events.md`, read so that tests hold every real `--json` line (events,
//! chat replies, subcommand documents) and every example of that document to them.

use std::collections::BTreeMap;

use serde_json::Value;

/// One documented field.
#[derive(Debug)]
pub struct Field {
    pub types: Vec<String>,
    pub required: bool,
}

/// Which part of the document a section is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Events,
    Chat,
    Subcommands,
}

/// Objects, and arrays whose items are objects, documented in a section of their own:
/// (section, field) → the object's section.
const NESTED: [((&str, &str), &str); 36] = [
    (("checked", "portability"), "field support"),
    (("help", "commands"), "command"),
    (("history", "entries"), "history entry"),
    (("help", "skills"), "skill command"),
    (("skills", "skills"), "summary"),
    (("skills list", "skills"), "summary"),
    (("skills list", "findings"), "diagnostic"),
    (("skills show", "diagnostics"), "diagnostic"),
    (("skills show", "needs"), "need"),
    (("skills search", "results"), "hit"),
    (("skills check", "skills"), "checked"),
    (("skills check", "problems"), "diagnostic"),
    (("checked", "findings"), "diagnostic"),
    (("skills eval", "cases"), "case"),
    (("sessions", "sessions"), "session_summary"),
    (("sessions list", "sessions"), "session_summary"),
    (("skills show", "sandbox"), "policy"),
    (("policy", "write"), "writable"),
    (("policy", "skipped"), "skipped"),
    (("skills add", "installed"), "installed skill"),
    (("skills add", "clashes"), "clash"),
    (("skills add", "templates"), "skipped template"),
    (("skills add", "refused"), "refused skill"),
    (("installed skill", "fixed"), "script problem"),
    (("installed skill", "unfixed"), "script problem"),
    (("skills outdated", "skills"), "outdated skill"),
    (("skills update", "skills"), "skill update"),
    (("mcp list", "servers"), "mcp_server"),
    (("mcp", "servers"), "mcp_server"),
    (("mcp tools", "tools"), "mcp_tool"),
    (("hooks list", "hooks"), "hook"),
    (("skills audit", "skills"), "audited skill"),
    (("audited skill", "findings"), "finding"),
    (("skills audit", "counts"), "counts"),
    (("audited skill", "counts"), "counts"),
    (("skills verify", "skills"), "verified skill"),
];

/// `docs/events.md` as tables.
#[derive(Debug)]
pub struct EventsDoc {
    /// Section name (`session`, `skills list`, `summary`; `""` for the common fields) → its fields.
    pub tables: BTreeMap<String, BTreeMap<String, Field>>,
    /// Section → the part it is in.
    pub parts: BTreeMap<String, Part>,
    /// Every JSON example, with the section it stands in.
    pub examples: Vec<(String, Value)>,
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl EventsDoc {
    pub fn read() -> Self {
        let doc = std::fs::read_to_string(super::repo_path("docs/events.md")).unwrap();
        let mut out = EventsDoc {
            tables: BTreeMap::new(),
            parts: BTreeMap::new(),
            examples: Vec::new(),
        };
        let mut part = Part::Events;
        let mut section = String::new();
        // Examples belong to the `###` section they stand in, also after a `####` item table.
        let mut owner = String::new();
        let mut in_json = false;
        for line in doc.lines() {
            let heading = line
                .strip_prefix("### `")
                .or_else(|| line.strip_prefix("#### `"))
                .and_then(|l| l.strip_suffix('`'));
            if let Some(name) = heading {
                section = name.to_string();
                if line.starts_with("### ") {
                    owner = section.clone();
                }
                out.tables.entry(section.clone()).or_default();
                out.parts.insert(section.clone(), part);
            } else if let Some(title) = line.strip_prefix("## ") {
                part = match title {
                    "Chat commands" => Part::Chat,
                    "Subcommands" => Part::Subcommands,
                    other => panic!("unexpected part {other:?}"),
                };
            } else if line.starts_with("```json") {
                in_json = true;
            } else if line.starts_with("```") {
                in_json = false;
            } else if in_json {
                let value = serde_json::from_str(line).unwrap_or_else(|e| panic!("bad example {line}: {e}"));
                out.examples.push((owner.clone(), value));
            } else if let Some(rest) = line.strip_prefix("| `") {
                let cells: Vec<&str> = rest.split('|').map(str::trim).collect();
                let name = cells[0].trim_end_matches('`').to_string();
                let types = cells[1].split(" or ").map(str::to_string).collect();
                let required = cells[2] == "required";
                out.tables
                    .entry(section.clone())
                    .or_default()
                    .insert(name, Field { types, required });
            }
        }
        out
    }

    /// The sections of a part, `####` item sections included.
    pub fn sections(&self, part: Part) -> Vec<&str> {
        self.parts
            .iter()
            .filter(|(_, p)| **p == part)
            .map(|(s, _)| s.as_str())
            .collect()
    }

    /// Check an event or chat reply against the table its `type` names; returns the type.
    pub fn validate_typed(&self, line: &Value) -> Result<String, String> {
        let kind = line.get("type").and_then(Value::as_str).ok_or("no type")?;
        if self.parts.get(kind) == Some(&Part::Subcommands) {
            return Err(format!("{kind} is a subcommand, not a type"));
        }
        self.check(&[kind], line, &["v", "type"])?;
        Ok(kind.to_string())
    }

    /// Check a subcommand's document against its section (`skills show` also takes every field of
    /// `summary`).
    pub fn validate_document(&self, section: &str, doc: &Value) -> Result<(), String> {
        if doc.get("type").is_some() {
            return Err(format!("{section}: a document has no type: {doc}"));
        }
        let mut sections = vec![section];
        if section == "skills show" {
            sections.push("summary");
        }
        self.check(&sections, doc, &["v"])
    }

    /// Check `value` against the fields of `sections` plus the `common` fields of the `""` table,
    /// and the items of documented arrays against their own sections.
    fn check(&self, sections: &[&str], value: &Value, common: &[&str]) -> Result<(), String> {
        let obj = value.as_object().ok_or(format!("{sections:?}: not an object"))?;
        let mut fields: BTreeMap<&str, &Field> = BTreeMap::new();
        for section in sections {
            let table = self.tables.get(*section).ok_or(format!("undocumented {section:?}"))?;
            fields.extend(table.iter().map(|(k, f)| (k.as_str(), f)));
        }
        if let Some(shared) = self.tables.get("") {
            fields.extend(
                shared
                    .iter()
                    .filter(|(k, _)| common.contains(&k.as_str()))
                    .map(|(k, f)| (k.as_str(), f)),
            );
        }
        let name = sections[0];
        for (key, v) in obj {
            let field = fields
                .get(key.as_str())
                .ok_or(format!("{name}: undocumented field {key:?}"))?;
            if !field.types.iter().any(|t| t == type_name(v)) {
                return Err(format!("{name}.{key}: {} is not {:?}", type_name(v), field.types));
            }
            let items = sections.iter().find_map(|s| {
                NESTED
                    .iter()
                    .find(|((sec, f), _)| sec == s && f == key)
                    .map(|(_, i)| *i)
            });
            match (items, v) {
                (Some(items), Value::Array(list)) => {
                    for item in list {
                        self.check(&[items], item, &[])?;
                    }
                }
                (Some(items), Value::Object(_)) => self.check(&[items], v, &[])?,
                _ => {}
            }
        }
        for (key, field) in &fields {
            if field.required && !obj.contains_key(*key) {
                return Err(format!("{name}: missing required field {key:?}"));
            }
        }
        if common.contains(&"v") && obj["v"] != 1 {
            return Err(format!("{name}: v is not 1"));
        }
        Ok(())
    }
}
