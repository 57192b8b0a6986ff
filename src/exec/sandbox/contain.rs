//! The walls of a contained command (issue 34 §2): what `auto` runs unasked that is not the
//! skill's own script (`pdftotext in.pdf out.txt`, `python3 -c …`, a pipeline) may write only to
//! the working folder, the temp folders, the places the skill declares and the user's
//! `--allow-write`; not to the skill's own folder; and it reaches the network only when the skill
//! declares `requires.network` or the user allows it (`AGENT_ALLOW_NETWORK=1`). Where the kernel
//! cannot wall in all of that, nothing is contained and `auto` keeps its classic rule.

use std::path::PathBuf;

use super::policy::{Enforcement, Grant, Network, Policy, Skipped, strict_gap};

/// The variables through which uv, pip, npm and LibreOffice are told where their caches (or, for
/// LibreOffice, its profile) are, and the folder of each under the agent's tools' cache.
/// LibreOffice will not start without a writable profile, which it keeps in `~/.config` (read-only
/// to contained commands): office skills' `soffice --headless --convert-to` calls need this one.
/// It is the agent's, never the user's own profile, so a skill cannot plant a macro the user's
/// LibreOffice runs later.
pub(crate) const TOOL_CACHE_VARS: [(&str, &str); 4] = [
    ("UV_CACHE_DIR", "uv"),
    ("PIP_CACHE_DIR", "pip"),
    ("npm_config_cache", "npm"),
    (LIBREOFFICE_PROFILE_VAR, "libreoffice"),
];

/// LibreOffice's variable for its profile folder, which it takes as a `file://` URL.
const LIBREOFFICE_PROFILE_VAR: &str = "UserInstallation";

/// The value of tool cache variable `var` for folder `dir`: the folder itself, or a `file://` URL
/// for LibreOffice.
pub(crate) fn tool_cache_value(var: &str, dir: &std::path::Path) -> String {
    if var == LIBREOFFICE_PROFILE_VAR {
        format!("file://{}", dir.display())
    } else {
        dir.display().to_string()
    }
}

/// What the user allows beyond a skill's walls, from their own settings only (the environment and
/// `~/.config/agent/.env`, never a project's `.env`), and where tools keep their caches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Extra {
    /// `AGENT_ALLOW_COMMANDS`: grants in the `Bash(pdftotext:*)` form, run unasked under `auto`.
    pub(crate) commands: Vec<String>,
    /// `AGENT_ALLOW_NETWORK=1`: contained commands keep the network.
    pub(crate) network: bool,
    /// `$XDG_CACHE_HOME/agent/tools` (else `~/.cache/agent/tools`): the tools' writable caches.
    pub(crate) tool_cache: Option<PathBuf>,
}

impl Extra {
    /// Each tool cache variable with its folder.
    pub(crate) fn tool_dirs(&self) -> impl Iterator<Item = (&'static str, PathBuf)> + '_ {
        self.tool_cache
            .iter()
            .flat_map(|root| TOOL_CACHE_VARS.iter().map(move |(var, sub)| (*var, root.join(sub))))
    }

    /// Make the tools' cache folders (owner-only); what could not be made stays unwritable.
    pub(crate) fn ensure_tool_dirs(&self) {
        use std::os::unix::fs::DirBuilderExt;
        for (_, dir) in self.tool_dirs() {
            if let Err(e) = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir) {
                tracing::debug!("no tool cache at {}: {e}", dir.display());
            }
        }
    }

    /// The user's grants read from `AGENT_ALLOW_COMMANDS`: entries separated by commas,
    /// semicolons or newlines, each `Bash(…)` kept whole (its spaces and commas included).
    pub(crate) fn parse_commands(value: &str) -> Vec<String> {
        let mut out = Vec::new();
        let (mut depth, mut current) = (0usize, String::new());
        for c in value.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && (c == ',' || c == '\n' || c == ';') {
                out.push(std::mem::take(&mut current));
            } else {
                current.push(c);
            }
        }
        out.push(current);
        out.into_iter()
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect()
    }
}

impl Policy {
    /// This policy tightened for a contained command, or `None` when the sandbox cannot contain
    /// one here: not enforced, no Landlock network rules (ABI 4) or seccomp filter, or a protected
    /// or kept-read-only place beneath a writable folder that this machine cannot keep read-only.
    pub(crate) fn contained(&self, declares_network: bool, user_allows_network: bool) -> Option<Policy> {
        if self.enforcement() != Enforcement::Confined || strict_gap(&self.kernel).is_some() {
            return None;
        }
        let kept_unavailable = self.read_only_unavailable.is_some() && !self.read_only.is_empty();
        if kept_unavailable || !self.guard.unguarded.is_empty() {
            return None;
        }
        let mut policy = self.clone();
        if !(declares_network || user_allows_network) {
            policy.network = Network::Off;
        }
        let (own, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut policy.write)
            .into_iter()
            .partition(|w| w.grant == Grant::SkillFolder);
        policy.write = kept;
        policy.skipped.extend(own.into_iter().map(|w| Skipped {
            path: w.path.display().to_string(),
            grant: Grant::SkillFolder,
            reason: "a skill's folder is read-only to a command that is not its own script".into(),
        }));
        Some(policy)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{Kernel, Mode, Settings};
    use super::*;

    fn policy(mode: Mode, abi: u32, network: bool) -> (tempfile::TempDir, Policy) {
        let tmp = tempfile::tempdir().unwrap();
        for sub in ["skill", "work", "tmp"] {
            std::fs::create_dir_all(tmp.path().join(sub)).unwrap();
        }
        let p = tmp.path();
        let tmpdir = p.join("tmp").display().to_string();
        let settings = Settings::new(mode, Kernel::with_abi(abi), &p.join("work"), None, Some(&tmpdir), &[]);
        let policy = settings.policy(&p.join("skill"), &[], network);
        (tmp, policy)
    }

    #[test]
    fn a_contained_command_has_no_network_and_no_skill_folder() {
        let (tmp, base) = policy(Mode::On, 7, false);
        assert_eq!(base.network, Network::Open);
        let c = base.contained(false, false).unwrap();
        assert_eq!(c.network, Network::Off);
        assert!(c.write.iter().all(|w| w.grant != Grant::SkillFolder));
        assert!(
            c.write
                .iter()
                .any(|w| w.real == std::fs::canonicalize(tmp.path().join("work")).unwrap())
        );
        assert!(c.skipped.iter().any(|s| Path::new(&s.path).ends_with("skill")));
        assert_eq!(c.child_value(), "strict");
        // Declared by the skill, or allowed by the user: the network stays open.
        assert_eq!(base.contained(true, false).unwrap().network, Network::Open);
        assert_eq!(base.contained(false, true).unwrap().network, Network::Open);
    }

    #[test]
    fn user_grants_are_read_whole() {
        assert_eq!(
            Extra::parse_commands("Bash(pdftotext:*), Bash(gh pr view:*);Bash(a, b)\n"),
            ["Bash(pdftotext:*)", "Bash(gh pr view:*)", "Bash(a, b)"]
        );
        let extra = Extra {
            tool_cache: Some("/c/agent/tools".into()),
            ..Extra::default()
        };
        let dirs: Vec<_> = extra.tool_dirs().collect();
        assert_eq!(dirs[0], ("UV_CACHE_DIR", PathBuf::from("/c/agent/tools/uv")));
        assert_eq!(dirs.len(), 4);
        let (var, dir) = &dirs[3];
        assert_eq!(tool_cache_value(var, dir), "file:///c/agent/tools/libreoffice");
        assert_eq!(tool_cache_value(dirs[1].0, &dirs[1].1), "/c/agent/tools/pip");
    }

    #[test]
    fn nothing_is_contained_where_the_walls_cannot_hold() {
        // No Landlock network rules (ABI 3), no Landlock, or the sandbox off.
        for (mode, abi) in [(Mode::On, 3), (Mode::On, 0), (Mode::Off, 7)] {
            let (_tmp, base) = policy(mode, abi, false);
            assert!(base.contained(false, false).is_none(), "{mode} {abi}");
        }
        let (_tmp, base) = policy(Mode::Strict, 7, false);
        assert!(base.contained(false, false).is_some());
    }
}
