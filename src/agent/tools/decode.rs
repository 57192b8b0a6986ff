//! Decoding a tool call the model made: a pure function, so the fuzzer can drive it. A call that
//! cannot be decoded is refused with a message that shows the model how to make it.

use serde_json::Value;

use crate::agent::outcome::ToolOutcome;
use crate::support::yaml::kind_of;

/// A tool call the model made, decoded and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRequest {
    Activate { name: String },
    Run { command: String },
    Read { skill: String, path: String },
    Search { query: String },
}

/// Decode a tool call; the error is the refusal that tells the model how to fix it.
pub fn decode_call(name: &str, raw_args: &str) -> Result<ToolRequest, ToolOutcome> {
    let args = parse_args(raw_args).map_err(|e| {
        ToolOutcome::refused(format!(
            "the arguments of {name} are not a JSON object ({e}); send e.g. {}",
            example(name)
        ))
    })?;
    let need = || ToolOutcome::refused(format!("{name} needs {}", example(name)));
    match name {
        "activate_skill" => str_arg(&args, "name")
            .map(|n| ToolRequest::Activate { name: n.to_string() })
            .ok_or_else(need),
        "run_command" => str_arg(&args, "command")
            .map(|c| ToolRequest::Run { command: c.to_string() })
            .ok_or_else(need),
        "read_skill_file" => match (str_arg(&args, "skill"), str_arg(&args, "path")) {
            (Some(skill), Some(path)) => Ok(ToolRequest::Read {
                skill: skill.to_string(),
                path: path.to_string(),
            }),
            _ => Err(need()),
        },
        "search_skills" => str_arg(&args, "query")
            .map(|q| ToolRequest::Search { query: q.to_string() })
            .ok_or_else(need),
        other => Err(ToolOutcome::refused(format!(
            "there is no tool named {other:?}; use activate_skill, run_command or read_skill_file"
        ))),
    }
}

fn parse_args(raw: &str) -> Result<serde_json::Map<String, Value>, String> {
    if raw.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        // Some models double-encode: a JSON string holding the object.
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err("got a string".into()),
        },
        Ok(other) => Err(format!("got {}", kind_of(&other))),
        Err(e) => Err(e.to_string()),
    }
}

fn str_arg<'a>(args: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

fn example(tool: &str) -> &'static str {
    match tool {
        "activate_skill" => r#"{"name": "<skill>"}"#,
        "run_command" => r#"{"command": "<shell command>"}"#,
        "read_skill_file" => r#"{"skill": "<skill>", "path": "<relative path>"}"#,
        "search_skills" => r#"{"query": "<keywords>"}"#,
        _ => "{}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(result: Result<ToolRequest, ToolOutcome>) -> String {
        match result {
            Err(ToolOutcome::Refused { message }) => message,
            other => panic!("not a refusal: {other:?}"),
        }
    }

    #[test]
    fn calls_decode_or_explain() {
        assert_eq!(
            decode_call("run_command", r#"{"command":"ls"}"#),
            Ok(ToolRequest::Run { command: "ls".into() })
        );
        assert!(refusal(decode_call("run_command", "{}")).contains(r#"{"command": "<shell command>"}"#));
        assert!(decode_call("read_skill_file", r#"{"skill":"a"}"#).is_err());
        assert!(refusal(decode_call("fly", "{}")).contains("no tool named"));
    }

    #[test]
    fn args_parse_leniently() {
        assert!(parse_args("").unwrap().is_empty());
        assert_eq!(parse_args(r#""{\"name\":\"x\"}""#).unwrap()["name"], "x");
        assert!(parse_args("[1]").is_err());
        assert!(parse_args("{bad").is_err());
    }
}
