//! What one skill's commands may write and reach: the user's settings for the run ([`Settings`],
//! built once) combined with what the skill declares (`requires.write`, `requires.network`) into a
//! [`Policy`], which the approval prompt and `skills show` display and `super::confine` enforces.
//!
//! Decisions, documented in docs/sandbox.md and docs/safety.md:
//! - `requires.write` entries expand a leading `~` to `$HOME`; relative ones are relative to the
//!   skill's folder (as paths in a skill's body are). `--allow-write` paths are relative to the
//!   working directory, as any path on a command line.
//! - The temp folder is `$TMPDIR` when set, else `/tmp`; `/dev/shm` is writable too.
//! - The working directory, the temp folder and a skill's `requires.write` entries are left
//!   read-only when they are `/`, `$HOME` or a folder above it: starting `agent` in `~` must not
//!   make the whole home writable, nor may a skill's declaration; only the user's `--allow-write` can.
//! - A path that does not exist is skipped and listed as such: Landlock grants rights on existing
//!   files and folders only, and creating one on a skill's behalf would be a write the user never saw.

use std::path::{Component, Path, PathBuf};

use super::guard::{self, Guard};
use super::protected::Protected;
use super::{Kernel, Mode};

/// Why a folder is writable (shown next to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Grant {
    /// The active skill's own folder.
    SkillFolder,
    /// The folder `agent` was started in.
    WorkingDir,
    /// `$TMPDIR` (or `/tmp`) and `/dev/shm`.
    Temp,
    /// The skill's `requires.write`.
    Declared,
    /// `--allow-write` or `AGENT_ALLOW_WRITE`.
    AllowWrite,
    /// The agent's per-user caches for uv, pip and npm (`UV_CACHE_DIR` …), see [`super::contain`].
    ToolCache,
}

/// One place a command may write.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Writable {
    pub(crate) path: PathBuf,
    pub(crate) grant: Grant,
    /// A single file rather than a folder: it can be written in place, not replaced or removed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) file: bool,
    /// The path with symlinks resolved, for telling whether a denied path was inside.
    #[serde(skip)]
    pub(crate) real: PathBuf,
    /// Where the path really leads, when a symlink makes that somewhere else: what is granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) target: Option<PathBuf>,
    /// The protected place this (user-granted) path opens, in words (`~/.ssh: your SSH keys`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) protected: Option<String>,
}

/// A place that would have been writable but is not, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Skipped {
    pub(crate) path: String,
    pub(crate) grant: Grant,
    pub(crate) reason: String,
}

/// What a command may reach over the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Network {
    /// Whatever the user's machine can reach.
    Open,
    /// TCP connect and bind, other internet sockets, abstract Unix sockets and signals to processes
    /// outside the sandbox are refused (`strict`, for a skill that does not declare the network).
    Off,
}

/// Whether a policy can be applied as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Enforcement {
    /// The command runs confined.
    Confined,
    /// The command runs unconfined: the sandbox is off, or unavailable under `on`.
    Unconfined,
    /// The command must not run: `strict` was asked for and the kernel cannot enforce it.
    Refused(String),
}

/// The user's sandbox settings for one run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub(crate) mode: Mode,
    pub(crate) kernel: Kernel,
    /// The folder `agent` was started in.
    pub(crate) cwd: PathBuf,
    pub(crate) home: Option<PathBuf>,
    /// `$TMPDIR`, else `/tmp`.
    pub(crate) temp: PathBuf,
    /// `--allow-write` and `AGENT_ALLOW_WRITE` paths, `~` expanded, made absolute.
    pub(crate) allow_write: Vec<PathBuf>,
    /// Places no skill declaration can open.
    pub(crate) protected: Protected,
    /// The user's own allowances and the tools' caches (issue 34).
    pub(crate) extra: super::contain::Extra,
}

impl Settings {
    /// Settings from the mode, the kernel, the working directory, `$HOME`, `$TMPDIR` and the
    /// user's extra writable paths (as typed: `~` is expanded, relative paths join `cwd`).
    pub fn new(
        mode: Mode,
        kernel: Kernel,
        cwd: &Path,
        home: Option<&Path>,
        tmpdir: Option<&str>,
        allow_write: &[String],
    ) -> Self {
        let temp = tmpdir
            .filter(|t| t.starts_with('/'))
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
        let allow_write = allow_write
            .iter()
            .filter(|p| !p.trim().is_empty())
            .map(|p| expand(p, home, cwd))
            .collect();
        Self {
            mode,
            kernel,
            cwd: cwd.to_path_buf(),
            home: home.map(Path::to_path_buf),
            temp,
            allow_write,
            protected: Protected::default(),
            extra: super::contain::Extra::default(),
        }
    }

    /// These settings with `protected` kept out of every skill's reach.
    pub(crate) fn protecting(mut self, protected: Protected) -> Self {
        self.protected = protected;
        self
    }

    /// What the commands of the skill in `skill_dir` may do, given what it declares.
    pub fn policy(&self, skill_dir: &Path, declared_write: &[String], declares_network: bool) -> Policy {
        let (write, skipped) = self.grants(Some(skill_dir), declared_write);
        let network = if self.mode == Mode::Strict && !declares_network {
            Network::Off
        } else {
            Network::Open
        };
        let (read_only, read_only_unavailable, guard) = self.walls(&write);
        Policy {
            mode: self.mode,
            in_force: self.sandbox_name(),
            write,
            skipped,
            network,
            read_only,
            read_only_unavailable,
            guard,
            kernel: self.kernel.clone(),
        }
    }

    /// The writable places of a skill in `skill_dir` (none: the run's own) declaring
    /// `declared_write`, and those skipped, with why.
    pub(super) fn grants(&self, skill_dir: Option<&Path>, declared_write: &[String]) -> (Vec<Writable>, Vec<Skipped>) {
        let mut builder = Builder {
            home: self.home.as_deref(),
            protected: &self.protected,
            write: Vec::new(),
            skipped: Vec::new(),
        };
        if let Some(dir) = skill_dir {
            builder.add(dir.to_path_buf(), Grant::SkillFolder, false);
        }
        builder.add(self.cwd.clone(), Grant::WorkingDir, true);
        builder.add(self.temp.clone(), Grant::Temp, true);
        if Path::new("/dev/shm").is_dir() {
            builder.add(PathBuf::from("/dev/shm"), Grant::Temp, true);
        }
        let base = skill_dir.unwrap_or(&self.cwd);
        for entry in declared_write.iter().filter(|e| !e.trim().is_empty()) {
            if entry.starts_with('~') && !entry.starts_with("~/") && entry != "~" {
                builder.skip(entry, Grant::Declared, "only `~` and `~/…` are expanded".into());
                continue;
            }
            builder.add(expand(entry, self.home.as_deref(), base), Grant::Declared, true);
        }
        for path in &self.allow_write {
            builder.add(path.clone(), Grant::AllowWrite, false);
        }
        // Only once made (a command's run makes them): `skills show` lists no missing cache.
        for (_, dir) in self
            .extra
            .tool_dirs()
            .filter(|(_, d)| skill_dir.is_some() && d.is_dir())
        {
            builder.add(dir, Grant::ToolCache, false);
        }
        (builder.write, builder.skipped)
    }

    /// What stays read-only inside the writable places `write` (`.git` and the like, and the
    /// protected places beneath them), why the machine cannot do that if it cannot, and the guard.
    pub(super) fn walls(&self, write: &[Writable]) -> (Vec<PathBuf>, Option<String>, Guard) {
        if self.mode == Mode::Off || !self.kernel.filesystem() {
            return (Vec::new(), None, Guard::default());
        }
        // The reason is shown as text in the run's sandbox report; nothing lies beneath it but
        // the io error its text already quotes.
        let unavailable = super::readonly::available().err().map(|e| e.to_string());
        let guard = guard::beneath(write, &self.protected, unavailable.is_none());
        let mut kept = super::readonly::kept_read_only(write);
        for (path, _) in &guard.kept {
            if !kept.contains(path) {
                kept.push(path.clone());
            }
        }
        (kept, unavailable, guard)
    }

    /// What is in force for this run: `landlock-v7`-style, `unavailable`, or `off`.
    pub(crate) fn sandbox_name(&self) -> String {
        match self.mode {
            Mode::Off => "off".into(),
            Mode::On | Mode::Strict => self.kernel.name(),
        }
    }

    /// The user's `--allow-write` folders that do not exist yet, created now (Landlock grants
    /// rights on existing places only, and the user named this one), each said in a line; one
    /// that cannot be created stays unwritable, and the line says why.
    pub(crate) fn prepare_allow_write(&self) -> Vec<String> {
        if self.mode == Mode::Off || !self.kernel.filesystem() {
            return Vec::new();
        }
        self.allow_write
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_err())
            .map(|p| match std::fs::create_dir_all(p) {
                Ok(()) => format!("--allow-write {}: it did not exist; created it (empty) so commands can write there", p.display()),
                Err(e) => format!("--allow-write {}: it does not exist and could not be created ({e}), so commands cannot write there", p.display()),
            })
            .collect()
    }

    /// What to tell the user once per run when the sandbox cannot do what the mode promises.
    pub(crate) fn warning(&self) -> Option<String> {
        let k = &self.kernel;
        match self.mode {
            Mode::Off => None,
            Mode::On if !k.filesystem() => Some(format!(
                "the sandbox is unavailable ({}): commands run unconfined and can write anywhere you can",
                k.missing.as_deref().unwrap_or("no Landlock")
            )),
            Mode::On if !k.truncate() => Some(format!(
                "the sandbox is partial (Landlock ABI {}): commands can still truncate files outside the folders they may write; Linux 6.2 or newer closes this",
                k.abi
            )),
            Mode::On => None,
            Mode::Strict => strict_gap(k).map(|gap| {
                format!("--sandbox strict cannot be enforced here ({gap}): commands will not run; use --sandbox on to run them with writes confined only")
            }),
        }
    }
}

/// What `strict` needs that the kernel lacks, if anything.
pub(super) fn strict_gap(k: &Kernel) -> Option<String> {
    if !k.filesystem() {
        Some(k.missing.clone().unwrap_or_else(|| "no Landlock".into()))
    } else if !k.truncate() || !k.tcp() {
        Some(format!(
            "Landlock ABI {}; network rules need ABI 4, Linux 6.7 or newer",
            k.abi
        ))
    } else if !k.seccomp {
        Some(format!(
            "no seccomp filter for {}, so UDP cannot be refused",
            std::env::consts::ARCH
        ))
    } else {
        None
    }
}

/// What one skill's commands may write and reach.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Policy {
    /// The mode the user asked for.
    pub(crate) mode: Mode,
    /// What is in force: `landlock-v7`-style, `unavailable`, or `off`.
    pub(crate) in_force: String,
    /// Where commands may write (besides `/dev/null` and terminal-like devices).
    pub(crate) write: Vec<Writable>,
    /// Places that were asked for but are not writable, with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) skipped: Vec<Skipped>,
    pub(crate) network: Network,
    /// Places inside writable folders kept read-only (`.git`, `.envrc` …), see [`super::readonly`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) read_only: Vec<PathBuf>,
    /// Why this machine gives commands no mount namespace of their own, if it does not: the
    /// places above then stay writable, and file modes, owners and times everywhere changeable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) read_only_unavailable: Option<String>,
    /// The protected places beneath the writable ones and how they are kept (docs/sandbox.md,
    /// "Protected places inside a writable folder").
    #[serde(skip)]
    pub(crate) guard: Guard,
    #[serde(skip)]
    pub(crate) kernel: Kernel,
}

impl Policy {
    /// Whether this policy can be applied: confined, unconfined, or refused under `strict`.
    pub(crate) fn enforcement(&self) -> Enforcement {
        let k = &self.kernel;
        match self.mode {
            Mode::Off => Enforcement::Unconfined,
            Mode::On if k.filesystem() => Enforcement::Confined,
            Mode::On => Enforcement::Unconfined,
            Mode::Strict => {
                let gap = if self.network == Network::Off {
                    strict_gap(k)
                } else if !k.truncate() {
                    Some(k.missing.clone().unwrap_or_else(|| format!("Landlock ABI {}", k.abi)))
                } else {
                    None
                };
                match gap {
                    None => Enforcement::Confined,
                    Some(gap) => Enforcement::Refused(format!(
                        "not run: --sandbox strict cannot be enforced on this machine ({gap}); the user can run agent with --sandbox on"
                    )),
                }
            }
        }
    }

    /// The policy for an installed (locked) skill: its own folder is not writable by its
    /// commands, so a run can never change what `skills-lock.json` recorded (outputs belong in the
    /// working folder). Other grants stay.
    pub(crate) fn lock_skill_folder(mut self) -> Self {
        let (own, kept): (Vec<Writable>, Vec<Writable>) = std::mem::take(&mut self.write)
            .into_iter()
            .partition(|w| w.grant == Grant::SkillFolder);
        self.write = kept;
        self.skipped.extend(own.into_iter().map(|w| Skipped {
            path: w.path.display().to_string(),
            grant: Grant::SkillFolder,
            reason: "an installed skill's folder is read-only to its own commands".into(),
        }));
        self
    }

    /// This policy with `dir`, the command's own temp folder, writable too.
    pub(crate) fn with_private_temp(&self, dir: &Path) -> Policy {
        let mut policy = self.clone();
        policy.write.push(Writable {
            path: dir.to_path_buf(),
            grant: Grant::Temp,
            file: false,
            real: std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
            target: None,
            protected: None,
        });
        policy
    }

    /// The child's `AGENT_SANDBOX`: what applies to this command (`strict` means no network).
    pub(crate) fn child_value(&self) -> &'static str {
        match (self.enforcement(), self.network) {
            (Enforcement::Confined, Network::Off) => "strict",
            (Enforcement::Confined, Network::Open) => "on",
            _ => "off",
        }
    }
}

/// Collects writable places, skipping missing and too-broad ones with a reason.
struct Builder<'a> {
    home: Option<&'a Path>,
    protected: &'a Protected,
    write: Vec<Writable>,
    skipped: Vec<Skipped>,
}

impl Builder<'_> {
    /// Add `path` unless it is missing, already listed, or (for places the user did not name:
    /// `guarded`) too broad.
    fn add(&mut self, path: PathBuf, grant: Grant, guarded: bool) {
        let path = normalize(&path);
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return self.skip(&path.display().to_string(), grant, "does not exist".into());
            }
            Err(e) => return self.skip(&path.display().to_string(), grant, e.to_string()),
        };
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let target = (real != path).then(|| real.clone());
        let shown = match &target {
            Some(t) => format!("{} (leads to {})", path.display(), t.display()),
            None => path.display().to_string(),
        };
        if guarded && self.too_broad(&real) {
            let reason = "is your home folder or above it, so it stays read-only (--allow-write it to allow)";
            return self.skip(&shown, grant, reason.into());
        }
        // A working folder inside the agent's own configuration, a skill root or `~/.ssh` would
        // open that place whole.
        if let (true, Grant::WorkingDir | Grant::Temp, Some(what)) = (guarded, grant, self.protected.holding(&real)) {
            let reason = format!("is inside {what}, so it stays read-only (--allow-write it to allow)");
            return self.skip(&shown, grant, reason);
        }
        // Inside a folder already listed: nothing to add.
        if self
            .write
            .iter()
            .any(|w| real == w.real || (!w.file && real.starts_with(&w.real)))
        {
            return;
        }
        let protected = self.protected.conflict(&real);
        if let (Grant::Declared, Some(what)) = (grant, &protected) {
            let reason = format!("touches {what}; no skill can be granted that (only your --allow-write can)");
            return self.skip(&shown, grant, reason);
        }
        self.write.push(Writable {
            path,
            grant,
            file: !meta.is_dir(),
            real,
            target,
            protected: protected.filter(|_| grant == Grant::AllowWrite),
        });
    }

    fn skip(&mut self, path: &str, grant: Grant, reason: String) {
        self.skipped.push(Skipped {
            path: path.to_string(),
            grant,
            reason,
        });
    }

    /// `/`, `$HOME`, or a folder holding `$HOME`.
    fn too_broad(&self, real: &Path) -> bool {
        if real == Path::new("/") {
            return true;
        }
        self.home.is_some_and(|home| {
            let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
            home.starts_with(real)
        })
    }
}

/// `~` and `~/x` under `home`; other relative paths under `base`; `.` and `..` resolved lexically.
fn expand(raw: &str, home: Option<&Path>, base: &Path) -> PathBuf {
    let raw = raw.trim();
    let path = match (raw.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => base.join(raw),
    };
    normalize(&path)
}

/// Resolve `.` and `..` without touching the filesystem (the kernel resolves symlinks later).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
