//! Our tool calls as Claude Code's hook scripts see theirs (docs/hooks.md#tool-names): the name a
//! matcher is tested against and the `tool_input` on stdin. `run_command` is `Bash` with
//! `command`; `read_skill_file` is `Read` with the file's absolute `file_path`; `activate_skill` is
//! `Skill` with `skill`; the file tools keep their names and fields, paths made absolute; MCP tools
//! are already `mcp__server__tool`. `search_skills` has no counterpart and keeps its name.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::skills::SkillSet;

/// The tool name and `tool_input` hooks see for a call of `name` with `raw_args`; arguments that
/// are not a JSON object are passed as they are under `arguments`.
pub(super) fn view(skills: &SkillSet, workdir: &Path, name: &str, raw_args: &str) -> (String, Value) {
    let args: Map<String, Value> = match serde_json::from_str::<Value>(raw_args) {
        Ok(Value::Object(map)) => map,
        _ => {
            let mut map = Map::new();
            map.insert("arguments".into(), raw_args.into());
            map
        }
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    match name {
        "run_command" => {
            let mut input = json!({ "command": text("command") });
            if let Some(d) = args.get("description") {
                input["description"] = d.clone();
            }
            ("Bash".into(), input)
        }
        "read_skill_file" => {
            let skill = text("skill");
            let path = text("path");
            let file_path = skills
                .get(&skill)
                .map_or_else(|| path.clone(), |s| s.dir.join(&path).display().to_string());
            ("Read".into(), json!({ "file_path": file_path }))
        }
        "activate_skill" => ("Skill".into(), json!({ "skill": text("name") })),
        "Read" | "Write" | "Edit" | "Glob" | "Grep" => {
            let mut input = args.clone();
            // The file tools accept `path` for `file_path`, as weak models write it.
            if !matches!(name, "Glob" | "Grep")
                && let Some(p) = input.remove("path")
            {
                input.entry("file_path").or_insert(p);
            }
            for key in ["file_path", "path"] {
                if let Some(Value::String(p)) = input.get_mut(key) {
                    *p = workdir.join(&*p).display().to_string();
                }
            }
            (name.into(), Value::Object(input))
        }
        _ => (name.into(), Value::Object(args)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_tools_are_seen_under_claude_codes_names_and_fields() {
        let skills = SkillSet::default();
        let work = Path::new("/work/project");
        let (name, input) = view(&skills, work, "run_command", r#"{"command":"rm -rf ../outside"}"#);
        assert_eq!(
            (name.as_str(), &input),
            ("Bash", &json!({"command": "rm -rf ../outside"}))
        );
        let (name, input) = view(&skills, work, "Write", r#"{"path":"a.txt","content":"x"}"#);
        assert_eq!(name, "Write");
        assert_eq!(input, json!({"file_path": "/work/project/a.txt", "content": "x"}));
        let (_, input) = view(
            &skills,
            work,
            "Edit",
            r#"{"file_path":"/abs/b.rs","old_string":"a","new_string":"b"}"#,
        );
        assert_eq!(input["file_path"], "/abs/b.rs");
        let (name, input) = view(&skills, work, "Grep", r#"{"pattern":"x","path":"src"}"#);
        assert_eq!((name.as_str(), &input["path"]), ("Grep", &json!("/work/project/src")));
        assert_eq!(view(&skills, work, "activate_skill", r#"{"name":"pdf"}"#).0, "Skill");
        let (name, input) = view(&skills, work, "mcp__github__create_issue", "not json");
        assert_eq!(
            (name.as_str(), &input["arguments"]),
            ("mcp__github__create_issue", &json!("not json"))
        );
    }
}
