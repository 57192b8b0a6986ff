//! Saying so when a failed command looks like the sandbox stopped it.
//!
//! What can be known, honestly: the command's own mount namespace refuses with `EROFS`, Landlock
//! (where that namespace is unavailable) with `EACCES`, and the kernel records denials only in its
//! audit log, which an ordinary user cannot read. So the agent reads what the command said. A
//! failure whose stderr reports "Read-only file system", "Permission denied" or "Operation not
//! permitted" about a
//! path outside the places it may write is named as the sandbox's doing, with the path. So is a
//! path in a place kept read-only inside them (`.git`, the agent's own configuration beneath a
//! working folder of `~/.config`), named with what that place is. Any other path inside them is
//! the file's own permissions, not the sandbox: no hint. A denial that names no
//! path "may have been" the sandbox; under `strict` with the network off, so may a failed connection.

use std::path::{Path, PathBuf};

use super::policy::{Enforcement, Grant, Network, Policy};

/// At most this many paths are named.
const MAX_PATHS: usize = 3;

/// Why a failure looks like the sandbox's doing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Hint {
    /// Paths the command was refused that lie outside the places it may write.
    pub(crate) paths: Vec<String>,
    /// The network is closed for this command (`strict`) and the failure may be that.
    pub(crate) network: bool,
    /// A refused path lies in an installed skill's own folder, which its commands never write.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) installed: bool,
    /// The places kept read-only inside the writable folders that refused paths lie in, in words
    /// (`~/.config/agent: the agent's configuration`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) kept: Vec<String>,
    /// Hosts the command failed to connect to while the network was closed to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) hosts: Vec<String>,
}

impl Hint {
    /// One sentence for the model and the user, saying what to do about it.
    pub(crate) fn message(&self) -> String {
        let fix = "the skill can declare `requires.write`, or the user can pass `--allow-write PATH`";
        let net_fix = "the skill can declare `requires.network: true`, or the user can allow it with \
                       AGENT_ALLOW_NETWORK=1 in ~/.config/agent/.env (with --sandbox on, not strict)";
        // An installed skill's own folder is inside a skill root: the more useful advice first.
        if self.installed {
            return format!(
                "blocked by the sandbox: an installed skill's own folder is read-only to its commands, so running it \
                 never changes it, and any skill's folder is to a command that is not its own script ({}); write \
                 outputs into the working folder instead (give the script an output path there)",
                self.paths.join(", ")
            );
        }
        if !self.kept.is_empty() {
            return format!(
                "blocked by the sandbox: {} lies in a protected place ({}), read-only to commands even inside the \
                 folders they may write, because the agent or other tools read or run it later; no skill can be \
                 granted it (not even by `requires.write`), only the user's `--allow-write` of exactly that place \
                 opens it",
                self.paths.join(", "),
                self.kept.join("; ")
            );
        }
        if !self.hosts.is_empty() && self.paths.is_empty() {
            return format!(
                "blocked by the sandbox: connecting to {} (this command has no network); {net_fix}",
                self.hosts.join(", ")
            );
        }
        match (self.paths.is_empty(), self.network) {
            (false, _) => format!(
                "blocked by the sandbox: writing outside the folders this skill may write ({}); {fix}",
                self.paths.join(", ")
            ),
            (true, true) => format!(
                "this may have been blocked by the sandbox: this command may not use the network ({net_fix}), and it may write only in the working directory, the temp folder and the places it was granted ({fix})"
            ),
            (true, false) => format!(
                "this may have been blocked by the sandbox: it may write only in its folder, the working directory and the temp folder; {fix}"
            ),
        }
    }
}

impl Hint {
    /// This hint with the protected places its refused paths lie in named (a write to
    /// `~/.config/agent/.env` from an ordinary working folder): `requires.write` cannot open them.
    pub(crate) fn naming_protected(mut self, protected: &super::protected::Protected, cwd: &Path) -> Self {
        for path in &self.paths {
            if let Some(what) = protected.containing(&real_path(&resolve(path, cwd)))
                && !self.kept.contains(&what)
            {
                self.kept.push(what);
            }
        }
        self
    }
}

/// A hint for a command that ran under `policy` in `cwd`, failed, and wrote `stderr`; `None`
/// when it succeeded, ran unconfined, or nothing points at the sandbox.
pub(crate) fn explain(policy: &Policy, succeeded: bool, stderr: &str, cwd: &Path) -> Option<Hint> {
    if succeeded || policy.enforcement() != Enforcement::Confined {
        return None;
    }
    let network = policy.network == Network::Off;
    let mut denied_lines = 0;
    let mut candidates = Vec::new();
    let mut connect_failed = false;
    let mut hosts: Vec<String> = Vec::new();
    for line in stderr.lines() {
        let lower = line.to_lowercase();
        // Node reports a write refused on the way (`mkdir -p` of a folder it may not make) as ENOENT.
        let refused_make = lower.contains("enoent")
            && ["mkdir", "rename", "copyfile", "symlink", "link '"]
                .iter()
                .any(|w| lower.contains(w));
        let denied = lower.contains("permission denied")
            || lower.contains("operation not permitted")
            || lower.contains("read-only file system")
            || lower.contains("eacces")
            || lower.contains("erofs")
            || refused_make;
        if denied {
            denied_lines += 1;
            candidates.extend(paths_in(line));
        }
        // `curl: (7) Failed to connect`, bash's `connect: Permission denied` for /dev/tcp.
        let about_network = ["connect", "socket", "/dev/tcp/", "/dev/udp/"]
            .iter()
            .any(|w| lower.contains(w));
        if about_network && (denied || lower.contains("fail") || lower.contains("could")) {
            connect_failed = true;
            if network {
                hosts.extend(host_in(line).filter(|h| !hosts.contains(h)));
            }
        }
    }
    // Device and `/proc` paths are left alone: writing to them is allowed, or not ours to judge.
    let outside: Vec<String> = candidates
        .iter()
        .filter(|c| !c.starts_with("/proc/") && !c.starts_with("/dev/"))
        .filter(|c| !may_write(policy, &resolve(c, cwd)))
        .take(MAX_PATHS)
        .cloned()
        .collect();
    if !outside.is_empty() {
        let locked: Vec<PathBuf> = policy
            .skipped
            .iter()
            .filter(|s| s.grant == Grant::SkillFolder)
            .map(|s| real_path(Path::new(&s.path)))
            .collect();
        let installed = outside
            .iter()
            .any(|p| locked.iter().any(|l| real_path(&resolve(p, cwd)).starts_with(l)));
        let mut kept: Vec<String> = Vec::new();
        for what in outside.iter().filter_map(|p| kept_place(policy, &resolve(p, cwd))) {
            if !kept.contains(&what) {
                kept.push(what);
            }
        }
        return Some(Hint {
            paths: outside,
            network,
            installed,
            kept,
            hosts,
        });
    }
    let unexplained = denied_lines > 0 && candidates.is_empty();
    (unexplained || (network && connect_failed)).then_some(Hint {
        paths: Vec::new(),
        network,
        installed: false,
        kept: Vec::new(),
        hosts,
    })
}

/// The host a failed connection names, in the words tools print it: curl's `connect to HOST
/// port N`, wget's `Connecting to HOST`, Node's `connect EACCES ADDRESS:PORT`.
fn host_in(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    let after = ["connect to ", "connecting to ", "connect eacces ", "connect eperm "]
        .iter()
        .find_map(|m| lower.find(m).map(|i| &line[i + m.len()..]))?;
    let word = after.split_whitespace().next()?;
    let host = word.trim_matches(|c: char| matches!(c, '(' | ')' | '\'' | '"' | ',' | ':' | '.'));
    let port = after
        .split_whitespace()
        .nth(2)
        .filter(|_| after.split_whitespace().nth(1) == Some("port"))
        .map(|p| p.trim_end_matches(|c: char| !c.is_ascii_digit()));
    (!host.is_empty()).then(|| match port {
        Some(p) if !p.is_empty() => format!("{host}:{p}"),
        _ => host.to_string(),
    })
}

/// Path-like words of one message line: quoted text that looks like a path, and bare words that
/// start like one.
fn paths_in(line: &str) -> Vec<String> {
    const QUOTES: [(char, char); 4] = [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')];
    let mut found = Vec::new();
    let mut rest = line;
    let mut unquoted = String::new();
    while let Some((start, open, close)) = QUOTES
        .iter()
        .filter_map(|(o, c)| rest.find(*o).map(|i| (i, *o, *c)))
        .min_by_key(|(i, _, _)| *i)
    {
        unquoted.push_str(&rest[..start]);
        let after = &rest[start + open.len_utf8()..];
        let Some(end) = after.find(close) else {
            rest = after;
            break;
        };
        let quoted = &after[..end];
        if quoted.contains('/') || quoted.starts_with('~') {
            found.push(quoted.to_string());
        }
        rest = &after[end + close.len_utf8()..];
    }
    unquoted.push_str(rest);
    for word in unquoted.split_whitespace() {
        let word = word.trim_end_matches([':', ',', ';', '.', ')']);
        if word.starts_with('/') || word.starts_with("./") || word.starts_with("../") {
            found.push(word.to_string());
        }
    }
    found
}

/// `path` made absolute against the command's working directory.
fn resolve(path: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) }
}

/// Whether `path` lies in a place the policy lets commands write (lexically, or once symlinks in
/// its nearest existing ancestor are resolved), and not in a place kept read-only inside it.
fn may_write(policy: &Policy, path: &Path) -> bool {
    let real = real_path(path);
    let inside = policy
        .write
        .iter()
        .any(|w| path.starts_with(&w.path) || real.starts_with(&w.real));
    inside && kept_place(policy, path).is_none()
}

/// The place kept read-only inside the writable folders that `path` lies in, in words.
fn kept_place(policy: &Policy, path: &Path) -> Option<String> {
    // Without a mount namespace of its own, nothing is kept: the places are plainly writable.
    if policy.read_only_unavailable.is_some() {
        return None;
    }
    let real = real_path(path);
    let place = policy.read_only.iter().find(|k| real.starts_with(k))?;
    let named = policy
        .guard
        .kept
        .iter()
        .find(|(p, _)| p == place)
        .map(|(_, what)| what.clone());
    Some(named.unwrap_or_else(|| {
        format!(
            "{}: other tools run what is there on their own (git hooks, direnv, editor tasks)",
            place.display()
        )
    }))
}

/// `path` with symlinks resolved in its longest existing prefix (the file itself may not exist).
fn real_path(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut tail = Vec::new();
    while let Some(parent) = existing.parent() {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return tail.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
        }
        if let Some(name) = existing.file_name() {
            tail.push(name.to_os_string());
        }
        existing = parent;
    }
    path.to_path_buf()
}

#[cfg(test)]
#[path = "hint_tests.rs"]
mod tests;
