//! Reading the `hooks` object of Claude Code-format settings files: the user's own
//! `$XDG_CONFIG_HOME/agent/settings.json`, and a project's settings files
//! (`crate::exec::trust::HOOK_SETTINGS`) once the folder is
//! trusted with them (docs/hooks.md#where-hooks-come-from). Everything else in those files
//! (permissions, env, model) is Claude Code's and is left alone. What cannot be used is said, and
//! the rest of the file still counts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::{Hook, HookEvent, Matcher, OnFailure};

/// Seconds a hook may run when its settings do not say (Claude Code's default).
const DEFAULT_TIMEOUT_SECS: u64 = 60;
/// Largest settings file read.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// The user's own settings file, `$XDG_CONFIG_HOME/agent/settings.json`.
pub(crate) fn user_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "agent").map(|d| d.config_dir().join("settings.json"))
}

/// The hooks of one file, and what in it could not be used.
#[derive(Debug, Clone, Default)]
pub(crate) struct Loaded {
    pub(crate) hooks: Vec<Hook>,
    pub(crate) problems: Vec<String>,
}

/// The hooks of the settings file `path` (a missing file has none).
pub(crate) fn load_file(path: &Path) -> Loaded {
    let text = match crate::support::fs::read_whole(path, MAX_SETTINGS_BYTES) {
        Ok(read) => read.text(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::default(),
        Err(e) => return problem(format!("cannot read {}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Loaded::default();
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => from_value(&value, path),
        Err(e) => problem(format!(
            "{} is not valid JSON ({e}); its hooks are not used until it is fixed",
            path.display()
        )),
    }
}

fn problem(message: String) -> Loaded {
    Loaded {
        hooks: Vec::new(),
        problems: vec![message],
    }
}

/// The hooks of a parsed settings file `value` read from `source`.
pub(super) fn from_value(value: &Value, source: &Path) -> Loaded {
    match value.get("hooks") {
        None => Loaded::default(),
        Some(events) => from_events(events, source),
    }
}

/// The hooks in the frontmatter of the skill `skill` (`events`: its `hooks:` mapping), for the
/// events a skill's hooks run for ([`HookEvent::FOR_SKILLS`]); their source is `skill NAME`
/// (docs/hooks.md#hooks-in-a-skill).
pub(crate) fn skill_hooks(skill: &str, events: &Value) -> Loaded {
    let source = PathBuf::from(format!("skill {skill}"));
    let mut loaded = from_events(events, &source);
    let mut dropped: Vec<&str> = loaded
        .hooks
        .iter()
        .map(|h| h.event)
        .filter(|e| !HookEvent::FOR_SKILLS.contains(e))
        .map(HookEvent::name)
        .collect();
    dropped.dedup();
    loaded.problems.extend(dropped.into_iter().map(|event| {
        format!(
            "{}: {event} hooks are not run for a skill (only {}); ignored",
            source.display(),
            HookEvent::FOR_SKILLS.map(HookEvent::name).join(", ")
        )
    }));
    loaded.hooks.retain(|h| HookEvent::FOR_SKILLS.contains(&h.event));
    loaded
}

/// The hooks of a `hooks` object `events` read from `source`.
fn from_events(events: &Value, source: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    let Some(events) = events.as_object() else {
        loaded
            .problems
            .push(format!("{}: `hooks` is not an object of events", source.display()));
        return loaded;
    };
    for (name, groups) in events {
        let Some(event) = HookEvent::parse(name) else {
            loaded.problems.push(format!(
                "{}: the hook event {name:?} is not supported by agent and is ignored (supported: {})",
                source.display(),
                HookEvent::ALL.map(HookEvent::name).join(", ")
            ));
            continue;
        };
        for group in groups.as_array().into_iter().flatten() {
            group_hooks(event, group, source, &mut loaded);
        }
    }
    loaded
}

/// One `{ "matcher": …, "hooks": [ … ] }` entry of an event.
fn group_hooks(event: HookEvent, group: &Value, source: &Path, loaded: &mut Loaded) {
    let at = || format!("{} ({})", source.display(), event.name());
    let matcher = match group.get("matcher") {
        None | Some(Value::Null) => Matcher::any(),
        Some(Value::String(written)) => match Matcher::parse(written) {
            Ok(m) => m,
            Err(e) => {
                loaded.problems.push(format!("{}: {e}; its hooks are not used", at()));
                return;
            }
        },
        // A matcher that is not text would otherwise match every tool.
        Some(_) => {
            loaded
                .problems
                .push(format!("{}: a matcher that is not text; its hooks are not used", at()));
            return;
        }
    };
    for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
        let kind = hook.get("type").and_then(Value::as_str).unwrap_or("command");
        let command = hook.get("command").and_then(Value::as_str).map(str::trim).unwrap_or("");
        if kind != "command" {
            loaded.problems.push(format!(
                "{}: hooks of type {kind:?} are not supported (only \"command\"); ignored",
                at()
            ));
            continue;
        }
        if command.is_empty() {
            loaded
                .problems
                .push(format!("{}: a hook without a command is ignored", at()));
            continue;
        }
        let timeout = hook
            .get("timeout")
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(Duration::from_secs(DEFAULT_TIMEOUT_SECS), Duration::from_secs_f64);
        let on_failure = match hook.get("onFailure").and_then(Value::as_str) {
            Some("block") => OnFailure::Block,
            _ => OnFailure::Pass,
        };
        loaded.hooks.push(Hook {
            event,
            matcher: matcher.clone(),
            command: command.to_string(),
            timeout,
            on_failure,
            once: hook.get("once").and_then(Value::as_bool).unwrap_or(false),
            source: source.to_path_buf(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_hooks_object_is_read_as_claude_code_writes_it() {
        let value = json!({
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [
                        {"type": "command", "command": "guard.sh", "timeout": 5, "onFailure": "block"},
                        {"type": "prompt", "prompt": "is this safe?"}
                    ]},
                    {"matcher": "(bad", "hooks": [{"type": "command", "command": "x"}]}
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "check.sh"}]}],
                "SubagentStop": [{"hooks": [{"type": "command", "command": "y"}]}]
            }
        });
        let loaded = from_value(&value, Path::new("/p/.claude/settings.json"));
        assert_eq!(loaded.hooks.len(), 2);
        let guard = &loaded.hooks[0];
        assert_eq!(
            (guard.event, guard.command.as_str()),
            (HookEvent::PreToolUse, "guard.sh")
        );
        assert_eq!(guard.timeout, Duration::from_secs(5));
        assert_eq!(guard.on_failure, OnFailure::Block);
        assert!(guard.matcher.matches("Bash") && !guard.matcher.matches("Write"));
        let stop = &loaded.hooks[1];
        assert_eq!(stop.timeout, Duration::from_secs(DEFAULT_TIMEOUT_SECS));
        assert_eq!(stop.on_failure, OnFailure::Pass);
        assert_eq!(loaded.problems.len(), 3, "{:?}", loaded.problems);
        assert!(loaded.problems.iter().any(|p| p.contains("SubagentStop")));
        assert!(loaded.problems.iter().any(|p| p.contains("\"prompt\"")));
    }

    #[test]
    fn a_skill_s_hooks_are_its_own_and_only_for_the_skill_events() {
        let value = json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "once": true}]}],
            "PostToolUse": [{"matcher": 7, "hooks": [{"type": "command", "command": "everything.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "check.sh"}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "hello.sh"}]}]
        });
        let loaded = skill_hooks("deploy", &value);
        let got: Vec<(HookEvent, &str, bool)> = loaded
            .hooks
            .iter()
            .map(|h| (h.event, h.command.as_str(), h.once))
            .collect();
        assert_eq!(
            got,
            [
                (HookEvent::PreToolUse, "guard.sh", true),
                (HookEvent::Stop, "check.sh", false)
            ]
        );
        assert_eq!(loaded.hooks[0].source, PathBuf::from("skill deploy"));
        assert!(
            loaded.problems.iter().any(|p| p.contains("not text")),
            "{:?}",
            loaded.problems
        );
        assert!(skill_hooks("x", &json!(["a"])).hooks.is_empty());
    }

    #[test]
    fn a_file_that_is_not_json_is_said_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("settings.json");
        std::fs::write(&bad, "{ nope").unwrap();
        let loaded = load_file(&bad);
        assert!(loaded.hooks.is_empty());
        assert!(loaded.problems[0].contains("not valid JSON"));
        assert!(load_file(&dir.path().join("missing.json")).problems.is_empty());
    }
}
