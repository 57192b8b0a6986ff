//! A skill's declared needs (`requires: {env, bins, mcp}` and `skill.json`'s required `env[]`),
//! checked against the environment its commands would get (docs/design.md#child-environment) before
//! anything runs, so a skill that needs `GITHUB_TOKEN` or `jq` says so up front instead of failing
//! halfway.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a missing variable can be set, for messages.
pub(crate) const WHERE_TO_SET: &str =
    "set it in ~/.config/agent/.env, in the .env of a trusted project folder, or in the environment";

/// One declared need and whether it is met.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Need {
    /// `env` or `bin`.
    pub(crate) kind: NeedKind,
    pub(crate) name: String,
    pub(crate) met: bool,
    /// For a program found: where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) found_at: Option<PathBuf>,
}

/// What kind of thing a skill needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum NeedKind {
    /// An environment variable with a non-empty value.
    Env,
    /// A program on `PATH` (or a path to one, relative to the skill folder).
    Bin,
    /// A Model Context Protocol server whose tools the skill's instructions call.
    Mcp,
}

/// Why an MCP server a skill needs is missing, for messages.
pub(crate) const MCP_UNAVAILABLE: &str = "add it with `agent mcp add NAME -- COMMAND` or `agent mcp add NAME --url URL`; until then the tools the skill's instructions name do not exist here";

/// Every declared need of a skill, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Needs {
    pub(crate) needs: Vec<Need>,
}

impl Needs {
    /// Check `env` and `bins` against `child_env` (the variables a command of the skill would get,
    /// its `PATH` included); `dir` is the skill folder, for programs named by a path.
    pub(crate) fn check(env: &[String], bins: &[String], child_env: &BTreeMap<String, String>, dir: &Path) -> Self {
        let mut needs = Vec::new();
        for name in dedup(env) {
            needs.push(Need {
                kind: NeedKind::Env,
                met: child_env.get(name).is_some_and(|v| !v.is_empty()),
                name: name.to_string(),
                found_at: None,
            });
        }
        let path = child_env.get("PATH").map_or("", String::as_str);
        for name in dedup(bins) {
            let found_at = find_program(name, path, dir);
            needs.push(Need {
                kind: NeedKind::Bin,
                met: found_at.is_some(),
                name: name.to_string(),
                found_at,
            });
        }
        Self { needs }
    }

    /// Add the MCP servers a skill declares (`requires.mcp`), each met when `available` names it.
    pub(crate) fn with_mcp(mut self, servers: &[String], available: &[String]) -> Self {
        for name in dedup(servers) {
            self.needs.push(Need {
                kind: NeedKind::Mcp,
                met: available.iter().any(|a| a == name),
                name: name.to_string(),
                found_at: None,
            });
        }
        self
    }

    /// The needs that are not met.
    pub(crate) fn missing(&self) -> impl Iterator<Item = &Need> {
        self.needs.iter().filter(|n| !n.met)
    }

    #[cfg(test)]
    pub(crate) fn all_met(&self) -> bool {
        self.missing().next().is_none()
    }

    /// What is missing and where to fix it, in one sentence; `None` when nothing is.
    pub(crate) fn explain(&self, skill: &str) -> Option<String> {
        let vars: Vec<&str> = self.missing_of(NeedKind::Env);
        let bins: Vec<&str> = self.missing_of(NeedKind::Bin);
        let servers: Vec<&str> = self.missing_of(NeedKind::Mcp);
        if vars.is_empty() && bins.is_empty() && servers.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !vars.is_empty() {
            parts.push(format!(
                "the environment variable{} {} ({WHERE_TO_SET})",
                plural(vars.len()),
                vars.join(", ")
            ));
        }
        if !bins.is_empty() {
            parts.push(format!(
                "the program{} {} (not found on PATH: install {} or add {} folder to PATH)",
                plural(bins.len()),
                bins.join(", "),
                if bins.len() == 1 { "it" } else { "them" },
                if bins.len() == 1 { "its" } else { "their" },
            ));
        }
        if !servers.is_empty() {
            parts.push(format!(
                "the MCP server{} {}, which {} not configured ({MCP_UNAVAILABLE})",
                plural(servers.len()),
                servers.join(", "),
                if servers.len() == 1 { "is" } else { "are" },
            ));
        }
        Some(format!("skill {skill} needs {}", parts.join(" and ")))
    }

    #[cfg(test)]
    /// The tool result the model gets instead of running a command: what is missing, and that it
    /// should tell the user rather than try again.
    pub(crate) fn refusal(&self, skill: &str) -> Option<String> {
        self.explain(skill).map(|why| {
            format!(
                "error: not run: {why}. Nothing of this skill can run until the user provides it; \
                 tell the user exactly what is missing and where to set it, and do not retry."
            )
        })
    }

    fn missing_of(&self, kind: NeedKind) -> Vec<&str> {
        self.missing()
            .filter(|n| n.kind == kind)
            .map(|n| n.name.as_str())
            .collect()
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The names in order, without repeats or blanks.
fn dedup(names: &[String]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// Where `name` would be run from: a name with a `/` is a path (relative to `dir`), else the
/// first executable file of that name in `path`'s folders.
pub(crate) fn find_program(name: &str, path: &str, dir: &Path) -> Option<PathBuf> {
    if name.contains('/') {
        let candidate = dir.join(name);
        return crate::support::fs::is_executable_file(&candidate).then_some(candidate);
    }
    std::env::split_paths(path)
        .filter(|folder| !folder.as_os_str().is_empty())
        .map(|folder| folder.join(name))
        .find(|candidate| crate::support::fs::is_executable_file(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn mcp_servers_are_needs_met_only_when_available() {
        let dir = tempfile::tempdir().unwrap();
        let needs = Needs::check(&[], &[], &env(&[]), dir.path()).with_mcp(&strings(&["rube", "rube"]), &[]);
        assert_eq!(needs.needs.len(), 1);
        let text = needs.explain("stripe-automation").unwrap();
        assert!(
            text.starts_with("skill stripe-automation needs the MCP server rube, which is not configured"),
            "{text}"
        );
        let met = Needs::check(&[], &[], &env(&[]), dir.path()).with_mcp(&strings(&["rube"]), &strings(&["rube"]));
        assert!(met.all_met() && met.explain("x").is_none());
    }

    #[test]
    fn variables_count_when_set_and_not_empty() {
        let dir = tempfile::tempdir().unwrap();
        let child = env(&[("GITHUB_TOKEN", "x"), ("EMPTY", "")]);
        let needs = Needs::check(
            &strings(&["GITHUB_TOKEN", "EMPTY", "NOPE", "NOPE"]),
            &[],
            &child,
            dir.path(),
        );
        let missing: Vec<&str> = needs.missing().map(|n| n.name.as_str()).collect();
        assert_eq!(missing, ["EMPTY", "NOPE"]);
        let text = needs.explain("deploy").unwrap();
        assert!(
            text.starts_with("skill deploy needs the environment variables EMPTY, NOPE"),
            "{text}"
        );
        assert!(text.contains("~/.config/agent/.env"), "{text}");
    }

    #[test]
    fn programs_are_looked_up_on_the_childs_path() {
        let bin = tempfile::tempdir().unwrap();
        let tool = bin.path().join("jq");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(bin.path().join("plain"), "").unwrap();
        let skill = tempfile::tempdir().unwrap();
        std::fs::create_dir(skill.path().join("scripts")).unwrap();
        let own = skill.path().join("scripts/run");
        std::fs::write(&own, "").unwrap();
        std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o700)).unwrap();
        let child = env(&[("PATH", &format!("/nonexistent::{}", bin.path().display()))]);
        let needs = Needs::check(
            &[],
            &strings(&["jq", "plain", "scripts/run", "gone"]),
            &child,
            skill.path(),
        );
        assert_eq!(needs.needs[0].found_at.as_deref(), Some(tool.as_path()));
        let missing: Vec<&str> = needs.missing().map(|n| n.name.as_str()).collect();
        assert_eq!(missing, ["plain", "gone"]);
        let refusal = needs.refusal("x").unwrap();
        assert!(refusal.contains("programs plain, gone (not found on PATH"), "{refusal}");
        assert!(refusal.contains("do not retry"), "{refusal}");
    }

    #[test]
    fn nothing_declared_nothing_missing() {
        let needs = Needs::check(&[], &[], &BTreeMap::new(), Path::new("/"));
        assert!(needs.all_met());
        assert_eq!(needs.explain("x"), None);
    }
}
