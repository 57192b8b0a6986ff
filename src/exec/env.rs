//! The environment a skill's command runs with (docs/design.md#child-environment).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::sandbox::contain::{Extra, tool_cache_value};
use crate::support::redact::is_secret_name;

/// Variables that hold the agent's own LLM keys (`config/provider.rs` reads them, in an order
/// that depends on the provider); children never see them.
pub(crate) const AGENT_KEY_VARS: [&str; 3] = ["AGENT_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/// The variable naming the user's working folder, where commands run (`SKILL_DIR` names the
/// skill's own folder).
pub(crate) const WORKDIR_VAR: &str = "AGENT_WORKDIR";

/// The user's environment minus the agent's key variables, plus the skill's own variables: both
/// folders, the skill roots, `PYTHONDONTWRITEBYTECODE=1` (Python would otherwise write
/// `__pycache__/` next to a skill's modules: into the skill itself), and the skill's folder first
/// on `PYTHONPATH`, so its scripts import their sibling modules as other agents let them.
pub(crate) fn child_env(
    base: &BTreeMap<String, String>,
    skill_name: &str,
    skill_dir: &Path,
    workdir: &Path,
    skill_roots: &[PathBuf],
) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = base
        .iter()
        .filter(|(k, _)| !AGENT_KEY_VARS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    env.insert("SKILL_DIR".into(), skill_dir.display().to_string());
    env.insert("SKILL_NAME".into(), skill_name.into());
    env.insert(WORKDIR_VAR.into(), workdir.display().to_string());
    env.insert("PYTHONDONTWRITEBYTECODE".into(), "1".into());
    let python_path = match env.get("PYTHONPATH").filter(|p| !p.is_empty()) {
        Some(before) => format!("{}:{before}", skill_dir.display()),
        None => skill_dir.display().to_string(),
    };
    env.insert("PYTHONPATH".into(), python_path);
    let roots: Vec<String> = skill_roots.iter().map(|p| p.display().to_string()).collect();
    env.insert("AGENT_SKILLS_PATH".into(), roots.join(":"));
    env
}

/// Point uv, pip, npm and LibreOffice at the agent's per-user caches for them (`UV_CACHE_DIR` …),
/// which a confined command may write, unless the user's environment `base` names its own.
pub(crate) fn tool_caches(env: &mut BTreeMap<String, String>, base: &BTreeMap<String, String>, extra: &Extra) {
    for (var, dir) in extra.tool_dirs() {
        if !base.contains_key(var) && dir.is_dir() {
            env.insert(var.to_string(), tool_cache_value(var, &dir));
        }
    }
}

/// Remove the secrets (docs/design.md#secrets names) a contained command was not declared to need: it runs
/// unasked, so it gets only the keys its skill's `requires.env` names.
pub(crate) fn without_undeclared_secrets(env: &mut BTreeMap<String, String>, declared: &[String]) {
    env.retain(|name, _| !is_secret_name(name) || declared.iter().any(|d| d == name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_keys_and_adds_skill_vars() {
        let base: BTreeMap<String, String> = [("AGENT_API_KEY", "a"), ("OPENAI_API_KEY", "b"), ("GITHUB_TOKEN", "c")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = child_env(
            &base,
            "w",
            Path::new("/s/w"),
            Path::new("/home/me/proj"),
            &[PathBuf::from("/s"), PathBuf::from("/t")],
        );
        assert!(!env.contains_key("AGENT_API_KEY") && !env.contains_key("OPENAI_API_KEY"));
        assert_eq!(env["GITHUB_TOKEN"], "c");
        assert_eq!(env["SKILL_DIR"], "/s/w");
        assert_eq!(env["SKILL_NAME"], "w");
        assert_eq!(env["AGENT_SKILLS_PATH"], "/s:/t");
        assert_eq!(env["AGENT_WORKDIR"], "/home/me/proj");
        assert_eq!(env["PYTHONDONTWRITEBYTECODE"], "1");
        assert_eq!(env["PYTHONPATH"], "/s/w");
    }

    #[test]
    fn a_contained_command_keeps_only_declared_secrets() {
        let mut env: BTreeMap<String, String> =
            [("GITHUB_TOKEN", "a"), ("AWS_SECRET_ACCESS_KEY", "b"), ("PATH", "/bin")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        without_undeclared_secrets(&mut env, &["GITHUB_TOKEN".to_string()]);
        assert_eq!(env.keys().collect::<Vec<_>>(), ["GITHUB_TOKEN", "PATH"]);
    }
}
