//! What a folder brings: its project skill folders, by the keys trust records name them with.
//! Their content hashes are [`super::digest`]'s.

use std::path::{Path, PathBuf};

use super::digest::hash_bytes;
use crate::skills::roots::skill_dirs::{PROJECT_SKILL_ROOTS, find_skill_file, is_ignored};
use crate::support::fs::read_regular;

/// The key of a project's MCP configuration in a trust record, beside its skills' keys: its
/// servers are commands from the repository, trusted (and re-asked on change) like a skill.
pub(crate) const MCP_CONFIG_KEY: &str = ".mcp.json";

/// A project's settings files that may hold hooks (docs/hooks.md), relative to the folder trust
/// covers: each is a key of a trust record beside the skills, its hooks being commands from the
/// repository.
pub(crate) const HOOK_SETTINGS: [&str; 3] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".agents/settings.json",
];

/// Whether a key of a trust record names a configuration file (`.mcp.json`, a settings file with
/// hooks) rather than a project skill.
pub(crate) fn is_config_key(key: &str) -> bool {
    key == MCP_CONFIG_KEY || HOOK_SETTINGS.contains(&key)
}

/// The hooks of the settings file `key` in `folder`, when it has any: a hash of the `hooks`
/// object alone (an edit to the rest of the file, which Claude Code rewrites as it pleases, is not
/// a change), and what each hook runs (`PreToolUse Bash: ./guard.sh`), for the question. A file
/// that is not JSON has no hooks that could run.
pub(crate) fn hook_settings(folder: &Path, key: &str) -> Option<(String, Vec<String>)> {
    let read = read_regular(&folder.join(key), MAX_MCP_CONFIG_BYTES).ok()?;
    let parsed: serde_json::Value = serde_json::from_slice(&read.bytes).ok()?;
    let hooks = parsed
        .get("hooks")
        .filter(|h| h.as_object().is_some_and(|o| !o.is_empty()))?;
    let mut commands = Vec::new();
    for (event, groups) in hooks.as_object().into_iter().flatten() {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group.get("matcher").and_then(serde_json::Value::as_str).unwrap_or("");
            let list = group.get("hooks").and_then(serde_json::Value::as_array);
            for hook in list.into_iter().flatten() {
                let command = hook.get("command").and_then(serde_json::Value::as_str).unwrap_or("");
                let on = if matcher.is_empty() {
                    String::new()
                } else {
                    format!(" {matcher}")
                };
                commands.push(format!("{event}{on}: {command}"));
            }
        }
    }
    // Sorted keys: the hash is the one recorded before key order was kept (support/json.rs).
    Some((hash_bytes(crate::support::json::canonical(hooks).as_bytes()), commands))
}

/// Largest `.mcp.json` (or settings file) hashed and read.
const MAX_MCP_CONFIG_BYTES: u64 = 1 << 20;

/// The content hash of `folder`'s `.mcp.json`, and what each server in it would start
/// (`name: command args…` or `name: URL`), when there is one.
pub(crate) fn mcp_config(folder: &Path) -> Option<(String, Vec<String>)> {
    let read = read_regular(&folder.join(MCP_CONFIG_KEY), MAX_MCP_CONFIG_BYTES).ok()?;
    let parsed: serde_json::Value = serde_json::from_slice(&read.bytes).unwrap_or_default();
    let servers = parsed
        .get("mcpServers")
        .and_then(serde_json::Value::as_object)
        .map(|servers| {
            servers
                .iter()
                .map(|(name, s)| {
                    let words: Vec<&str> = s
                        .get("command")
                        .or_else(|| s.get("url"))
                        .into_iter()
                        .chain(
                            s.get("args")
                                .and_then(serde_json::Value::as_array)
                                .into_iter()
                                .flatten(),
                        )
                        .filter_map(serde_json::Value::as_str)
                        .collect();
                    format!("{name}: {}", words.join(" "))
                })
                .collect()
        })
        .unwrap_or_default();
    Some((hash_bytes(&read.bytes), servers))
}

/// The skill folders a folder's own project roots (`./.agents/skills`, `./skills`) hold; see
/// [`skills_in_roots`].
pub(crate) fn project_skills(folder: &Path) -> Vec<(String, PathBuf)> {
    let roots: Vec<PathBuf> = PROJECT_SKILL_ROOTS.iter().map(|r| folder.join(r)).collect();
    skills_in_roots(folder, &roots)
}

/// The skill folders `roots` hold, as (key, folder): the key is the folder's path relative to
/// `folder` (`skills/weather`, `../.agents/skills/deploy` for a parent's), which is how trust
/// records name it.
pub(crate) fn skills_in_roots(folder: &Path, roots: &[PathBuf]) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for root_dir in roots {
        let root_dir = root_dir.clone();
        if find_skill_file(&root_dir).is_some() {
            found.push((relative_key(folder, &root_dir), root_dir));
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&root_dir) else {
            continue;
        };
        let mut dirs: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| !is_ignored(&e.file_name().to_string_lossy()))
            .map(|e| e.path())
            .filter(|p| p.is_dir() && find_skill_file(p).is_some())
            .map(|p| (relative_key(folder, &p), p))
            .collect();
        dirs.sort();
        found.extend(dirs);
    }
    found
}

/// How trust records name `dir`: relative to `folder` when inside it, `../…` when inside one of
/// its parents (a parent's `.agents/skills`), else its absolute path.
pub(crate) fn relative_key(folder: &Path, dir: &Path) -> String {
    for (up, ancestor) in folder.ancestors().enumerate() {
        if let Ok(rel) = dir.strip_prefix(ancestor) {
            if up > 0 && ancestor.parent().is_none() {
                break;
            }
            let mut key = "../".repeat(up);
            key.push_str(&rel.display().to_string());
            return key;
        }
    }
    dir.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_skills_are_listed_by_relative_key() {
        let dir = tempfile::tempdir().unwrap();
        for rel in [
            "skills/b",
            "skills/a",
            ".agents/skills/c",
            "skills/.hidden",
            "skills/not-a-skill",
        ] {
            std::fs::create_dir_all(dir.path().join(rel)).unwrap();
        }
        for rel in ["skills/b", "skills/a", ".agents/skills/c", "skills/.hidden"] {
            std::fs::write(dir.path().join(rel).join("SKILL.md"), "x").unwrap();
        }
        let keys: Vec<String> = project_skills(dir.path()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [".agents/skills/c", "skills/a", "skills/b"]);
        let inner = dir.path().join("sub");
        let roots = [dir.path().join(".agents/skills"), inner.join(".claude/skills")];
        std::fs::create_dir_all(inner.join(".claude/skills/d")).unwrap();
        std::fs::write(inner.join(".claude/skills/d/Skill.md"), "x").unwrap();
        let keys: Vec<String> = skills_in_roots(&inner, &roots).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["../.agents/skills/c", ".claude/skills/d"]);
        assert_eq!(relative_key(Path::new("/a/b"), Path::new("/x/y")), "/x/y");
    }
}
