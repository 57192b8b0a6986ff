//! `hooks:` in a skill's frontmatter (Claude Code; docs/skills.md#hooks-in-a-skill): the same
//! structure as the `hooks` object of a settings file, in YAML. This reads its shape for
//! `skills check` and keeps the mapping as written; the hooks room turns it into hooks when the
//! skill is active (`agent::hooked::skill`). Nothing here fails a skill: a malformed part is a
//! finding and is not used.

use serde_json::Value;

use crate::support::yaml::kind_of;

/// The events a skill's hooks run for in `agent` (docs/hooks.md#hooks-in-a-skill). The hooks
/// room holds the same list as `HookEvent::FOR_SKILLS`; skills cannot see it (the import order).
pub(crate) const SKILL_EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "Stop"];

/// The `hooks` mapping to keep (`None`: nothing usable) and what is wrong with it, one line each.
pub(crate) fn read(value: &Value) -> (Option<Value>, Vec<String>) {
    let Some(events) = value.as_object() else {
        return (
            None,
            vec![format!(
                "`hooks` is a {}; expected a mapping of events (PreToolUse: …) as in Claude Code's settings; the skill's hooks are not used",
                kind_of(value)
            )],
        );
    };
    let mut problems = Vec::new();
    for (event, groups) in events {
        if !SKILL_EVENTS.contains(&event.as_str()) {
            problems.push(format!(
                "`hooks.{event}` is not run for a skill by agent (only {}); ignored",
                SKILL_EVENTS.join(", ")
            ));
            continue;
        }
        let Some(groups) = groups.as_array() else {
            problems.push(format!(
                "`hooks.{event}` is a {}; expected a list of {{matcher, hooks}} entries; ignored",
                kind_of(groups)
            ));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            group_problems(&format!("hooks.{event}[{i}]"), group, &mut problems);
        }
    }
    (Some(value.clone()), problems)
}

/// What is wrong with one `{matcher, hooks: [...]}` entry at `at`.
fn group_problems(at: &str, group: &Value, problems: &mut Vec<String>) {
    let Some(group) = group.as_object() else {
        problems.push(format!(
            "`{at}` is a {}; expected a mapping with `hooks`; ignored",
            kind_of(group)
        ));
        return;
    };
    if let Some(matcher) = group.get("matcher").filter(|m| !m.is_string() && !m.is_null()) {
        problems.push(format!(
            "`{at}.matcher` is a {}; expected text; the entry is ignored",
            kind_of(matcher)
        ));
    }
    let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
        problems.push(format!("`{at}` has no `hooks` list; ignored"));
        return;
    };
    for (j, hook) in hooks.iter().enumerate() {
        let at = format!("{at}.hooks[{j}]");
        let kind = hook.get("type").and_then(Value::as_str).unwrap_or("command");
        let command = hook.get("command").and_then(Value::as_str).map(str::trim).unwrap_or("");
        if !hook.is_object() {
            problems.push(format!("`{at}` is a {}; expected a mapping; ignored", kind_of(hook)));
        } else if kind != "command" {
            problems.push(format!(
                "`{at}` is of type {kind:?}; only \"command\" hooks run; ignored"
            ));
        } else if command.is_empty() {
            problems.push(format!("`{at}` has no `command`; ignored"));
        } else if hook.get("timeout").is_some_and(|t| t.as_f64().is_none_or(|t| t <= 0.0)) {
            problems.push(format!(
                "`{at}.timeout` is not a positive number of seconds; the default is used"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_codes_shape_reads_without_problems() {
        let value = json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "check.sh", "once": true}]}]
        });
        let (kept, problems) = read(&value);
        assert_eq!(kept, Some(value));
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn every_malformed_part_is_named() {
        let (kept, problems) = read(&json!("rm -rf /"));
        assert!(kept.is_none());
        assert!(problems[0].contains("`hooks` is a string"), "{problems:?}");
        let value = json!({
            "SessionStart": [{"hooks": [{"command": "x"}]}],
            "PreToolUse": "guard.sh",
            "PostToolUse": [
                "fmt.sh",
                {"matcher": 3, "hooks": [{"command": "a"}]},
                {"matcher": "Write"},
                {"hooks": [{"type": "prompt", "prompt": "ok?"}, {"type": "command"}, {"command": "b", "timeout": "soon"}]}
            ]
        });
        let (kept, problems) = read(&value);
        assert!(kept.is_some());
        for part in [
            "hooks.SessionStart",
            "`hooks.PreToolUse` is a string",
            "`hooks.PostToolUse[0]` is a string",
            "hooks.PostToolUse[1].matcher",
            "`hooks.PostToolUse[2]` has no `hooks`",
            "\"prompt\"",
            "`hooks.PostToolUse[3].hooks[1]` has no `command`",
            "hooks[2].timeout",
        ] {
            assert!(problems.iter().any(|p| p.contains(part)), "{part} in {problems:?}");
        }
        assert_eq!(problems.len(), 8, "{problems:?}");
    }
}
