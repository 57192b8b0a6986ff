//! The system prompt and tool schemas, compiled in from `prompts/`.

use serde_json::Value;

use crate::skills::SkillSet;

const SYSTEM_TEMPLATE: &str = include_str!("../../prompts/system.md");
const NO_SKILLS: &str = include_str!("../../prompts/no_skills.md");
const TOOLS_JSON: &str = include_str!("../../prompts/tools.json");

/// The system prompt with the catalog of every skill's name and description (never bodies).
pub fn system_prompt(skills: &SkillSet) -> String {
    let catalog = if skills.is_empty() {
        NO_SKILLS.to_string()
    } else {
        skills.render()
    };
    SYSTEM_TEMPLATE.replace("{{skills}}", &catalog)
}

/// The tool schemas, with `activate_skill.name` restricted to the known names.
/// With no skills there is nothing to activate or run, so no tools are offered.
pub fn tools(skills: &SkillSet) -> Value {
    if skills.is_empty() {
        return Value::Null;
    }
    // The file is part of the binary and checked by a unit test, so parsing cannot fail at run time.
    let mut tools: Value = serde_json::from_str(TOOLS_JSON).unwrap_or(Value::Null);
    if let Some(slot) = tools.pointer_mut("/0/function/parameters/properties/name/enum") {
        *slot = Value::from(skills.names());
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_json_is_valid_and_names_three_tools() {
        let tools: Value = serde_json::from_str(TOOLS_JSON).unwrap();
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["activate_skill", "run_command", "read_skill_file"]);
        assert!(tools.pointer("/0/function/parameters/properties/name/enum").is_some());
    }

    #[test]
    fn no_skills_no_tools() {
        assert!(tools(&SkillSet::default()).is_null());
        assert!(system_prompt(&SkillSet::default()).contains("no skills"));
    }
}
