//! Places no skill can be granted, whatever it declares (docs/design.md#sandbox): the agent's own
//! configuration, state, cache and skill roots (a skill writing there could turn the sandbox and
//! approvals off for every later run, trust any folder, or plant a skill), and the places whose
//! content runs later outside any sandbox — shell startup files, `~/.ssh`, `~/.gnupg`, autostart
//! entries, systemd user units, crontabs, git's configuration and the working folder's `.git`
//! (hooks, `core.fsmonitor`). Only the user's own `--allow-write` opens one, and the policy marks
//! it.
//!
//! A declared path is refused when it is inside such a place or holds one (`~/.config` holds
//! `~/.config/agent`), judged both as written and with symlinks resolved, so a skill's
//! `data -> ~/.ssh` is judged as `~/.ssh`. A place lying *beneath* a writable place (the working
//! folder is `~/.config`) is kept out of it by [`super::guard`]; each place's [`Kind`] says what
//! to do when it does not exist yet.

use std::path::{Path, PathBuf};

/// Files and folders under `$HOME` that run code later, with what they are.
const HOME_PLACES: &[(&str, &str)] = &[
    (".bashrc", "a shell startup file"),
    (".bash_profile", "a shell startup file"),
    (".bash_login", "a shell startup file"),
    (".bash_logout", "a shell startup file"),
    (".profile", "a shell startup file"),
    (".zshrc", "a shell startup file"),
    (".zshenv", "a shell startup file"),
    (".zprofile", "a shell startup file"),
    (".zlogin", "a shell startup file"),
    (".zlogout", "a shell startup file"),
    (".kshrc", "a shell startup file"),
    (".cshrc", "a shell startup file"),
    (".tcshrc", "a shell startup file"),
    (".xprofile", "a session startup file"),
    (".xinitrc", "a session startup file"),
    (".xsession", "a session startup file"),
    (".xsessionrc", "a session startup file"),
    (".pam_environment", "a session startup file"),
    (".config/fish", "a shell startup folder"),
    (".config/environment.d", "a session startup folder"),
    (".ssh", "your SSH keys and configuration"),
    (".gnupg", "your GnuPG keys"),
    (".config/autostart", "programs started at login"),
    (".config/systemd", "systemd user units"),
    (".local/share/systemd", "systemd user units"),
    (".gitconfig", "git's configuration"),
    (".config/git", "git's configuration"),
];

/// Folders of the system that hold crontabs.
const SYSTEM_PLACES: &[(&str, &str)] = &[
    ("/var/spool/cron", "crontabs"),
    ("/etc/cron.d", "crontabs"),
    ("/etc/crontab", "crontabs"),
];

/// Files in a working folder that other tools run on their own.
const WORK_PLACES: &[(&str, &str)] = &[
    (".git", "the repository's git folder (hooks, configuration)"),
    (".envrc", "direnv's file (run when you enter the folder)"),
    (".vscode", "editor tasks and settings"),
    (".idea", "editor tasks and settings"),
];

/// The places of [`HOME_PLACES`] and [`SYSTEM_PLACES`] that are folders: one missing beneath a
/// writable place is created empty so it can be kept read-only; a missing startup *file* is not
/// (an empty `~/.bash_profile` would stop bash reading `~/.profile`).
const FOLDER_PLACES: &[&str] = &[
    ".config/fish",
    ".config/environment.d",
    ".ssh",
    ".gnupg",
    ".config/autostart",
    ".config/systemd",
    ".local/share/systemd",
    ".config/git",
    "/var/spool/cron",
    "/etc/cron.d",
];

/// What a protected place is, which decides what is done when it lies beneath a writable place
/// but does not exist yet (a mount needs something to mount on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A folder: created empty before the command, then kept read-only.
    Folder,
    /// A file: cannot be created on the user's behalf, so a command that could create it is not
    /// run without asking.
    File,
    /// A project skill root: skills planted there run commands only once the folder is trusted with
    /// their content (docs/design.md#folder-trust), so a missing one is neither created nor a
    /// reason to ask.
    ProjectRoot,
    /// `.git`, `.envrc` and the like in the working folder: kept read-only where they exist,
    /// removed after the command where it creates them (see [`super::planted`]).
    Work,
}

/// One place, as named, where its own entry lives, and with symlinks resolved as far as it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// As named (`~/.config/agent`).
    pub(crate) path: PathBuf,
    /// Where the entry itself lives: its parent resolved, its own name kept. It differs from
    /// `real` when the place is a symlink.
    pub(crate) entry: PathBuf,
    /// Where it leads, symlinks resolved as far as it exists.
    pub(crate) real: PathBuf,
    /// What it is, in words.
    pub(crate) what: &'static str,
    /// What is done when it lies beneath a writable place but does not exist.
    pub(crate) kind: Kind,
}

impl Place {
    /// `~/.ssh: your SSH keys and configuration`.
    pub(crate) fn describe(&self) -> String {
        format!("{}: {}", self.path.display(), self.what)
    }
}

/// Every protected place of a run. Symlinks are resolved once per run, the first time a place is
/// judged (some 40 places, hundreds of `readlink` calls), not for every command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Protected {
    named: Vec<(PathBuf, &'static str, Kind)>,
    places: std::sync::OnceLock<Vec<Place>>,
}

impl PartialEq for Protected {
    fn eq(&self, other: &Self) -> bool {
        self.named == other.named
    }
}

impl Eq for Protected {}

impl Protected {
    /// The places for a user whose home is `home`, whose `XDG_*_HOME` are read with `xdg`, working
    /// in `cwd` (and in the repository `repo`, if any), with these skill roots.
    pub(crate) fn new(
        home: Option<&Path>,
        xdg: impl Fn(&str) -> Option<String>,
        cwd: &Path,
        repo: Option<&Path>,
        skill_roots: &[PathBuf],
    ) -> Self {
        let mut out = Self::default();
        if let Some(home) = home {
            for (var, default, what) in [
                ("XDG_CONFIG_HOME", ".config", "the agent's configuration"),
                (
                    "XDG_STATE_HOME",
                    ".local/state",
                    "the agent's state (trust records, sessions)",
                ),
                ("XDG_CACHE_HOME", ".cache", "the agent's cache"),
                ("XDG_DATA_HOME", ".local/share", "the agent's data"),
            ] {
                let base = xdg(var)
                    .filter(|v| v.starts_with('/'))
                    .map_or_else(|| home.join(default), PathBuf::from);
                out.add(base.join("agent"), what, Kind::Folder);
            }
            for (rel, what) in HOME_PLACES {
                out.add(home.join(rel), what, folder_or_file(rel));
            }
        }
        for (path, what) in SYSTEM_PLACES {
            out.add(PathBuf::from(path), what, folder_or_file(path));
        }
        for folder in std::iter::once(cwd).chain(repo) {
            for (rel, what) in WORK_PLACES {
                out.add(folder.join(rel), what, Kind::Work);
            }
            // Their hooks run as the user's own commands, outside the sandbox (docs/hooks.md); one
            // a command creates is a change folder trust asks about before any of it runs.
            for rel in crate::exec::trust::HOOK_SETTINGS {
                out.add(
                    folder.join(rel),
                    "project settings whose hooks run outside the sandbox",
                    Kind::Work,
                );
            }
        }
        let tools = crate::skills::roots::OTHER_AGENTS;
        let project = crate::skills::roots::project_roots(cwd, home, &tools);
        for root in skill_roots {
            let kind = if project.iter().any(|p| &p.path == root) {
                Kind::ProjectRoot
            } else {
                Kind::Folder
            };
            out.add(root.clone(), "a skill root (skills there run later)", kind);
        }
        out
    }

    fn add(&mut self, path: PathBuf, what: &'static str, kind: Kind) {
        self.named.push((path, what, kind));
    }

    /// Every place, resolved (once per run).
    pub(crate) fn places(&self) -> &[Place] {
        self.places.get_or_init(|| {
            self.named
                .iter()
                .map(|(path, what, kind)| Place {
                    real: resolve(path),
                    entry: match (path.parent(), path.file_name()) {
                        (Some(parent), Some(name)) => resolve(parent).join(name),
                        _ => path.clone(),
                    },
                    path: path.clone(),
                    what,
                    kind: *kind,
                })
                .collect()
        })
    }

    /// What protected place `real` (a path with symlinks resolved: what a grant really opens) is
    /// inside or holds, in words: `~/.ssh: your SSH keys and configuration`.
    pub(crate) fn conflict(&self, real: &Path) -> Option<String> {
        self.places()
            .iter()
            .find(|p| overlaps(real, &p.path) || overlaps(real, &p.real))
            .map(Place::describe)
    }

    /// What protected place a file written at `real` would be in or hold, project skill roots
    /// aside, in words: the file tools follow commands there (see [`Self::holding`]), so a
    /// skill-creator can edit the skill it just made in `./skills`; folder trust asks again before
    /// anything there runs.
    pub(crate) fn conflict_for_file(&self, real: &Path) -> Option<String> {
        self.places()
            .iter()
            .filter(|p| p.kind != Kind::ProjectRoot)
            .find(|p| overlaps(real, &p.path) || overlaps(real, &p.real))
            .map(Place::describe)
    }

    /// The protected place `real` is inside of (or is), in words.
    pub(crate) fn containing(&self, real: &Path) -> Option<String> {
        self.places()
            .iter()
            .find(|p| real.starts_with(&p.path) || real.starts_with(&p.real) || real.starts_with(&p.entry))
            .map(Place::describe)
    }

    /// The protected place `real` is inside of (or is), project skill roots aside (folder trust
    /// guards what is planted there): a working folder there is not made writable.
    pub(crate) fn holding(&self, real: &Path) -> Option<String> {
        self.places()
            .iter()
            .filter(|p| p.kind != Kind::ProjectRoot)
            .find(|p| real.starts_with(&p.path) || real.starts_with(&p.real) || real.starts_with(&p.entry))
            .map(Place::describe)
    }
}

/// The kind of a place of [`HOME_PLACES`] or [`SYSTEM_PLACES`].
fn folder_or_file(rel: &str) -> Kind {
    if FOLDER_PLACES.contains(&rel) {
        Kind::Folder
    } else {
        Kind::File
    }
}

/// One path is inside the other (or they are the same).
fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// `path` with symlinks resolved as far as it exists: a place that does not exist yet can still
/// be created through a link to its parent.
fn resolve(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return missing.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_inside_or_above_a_protected_place_conflicts() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let work = tmp.path().join("work");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let roots = [home.join(".agents/skills")];
        let p = Protected::new(Some(&home), |_| None, &work, None, &roots);
        let hit = |rel: &str| p.conflict(&resolve(&home.join(rel)));
        assert!(hit(".ssh/authorized_keys").unwrap().contains("SSH"));
        assert!(hit(".config").unwrap().contains("agent's configuration"));
        assert!(hit(".local/state/agent/trust.json").is_some());
        assert!(hit(".agents/skills").unwrap().contains("skill root"));
        assert!(hit(".bashrc").is_some());
        assert!(hit("notes").is_none());
        assert!(hit(".cache/tool").is_none());
        assert!(p.conflict(&work.join(".git/hooks")).is_some());
        for settings in [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".agents/settings.json",
        ] {
            assert!(
                p.conflict_for_file(&work.join(settings)).unwrap().contains("hooks"),
                "{settings}"
            );
        }
        assert!(p.conflict_for_file(&work.join(".claude/notes.md")).is_none());
        // A link inside a skill is judged by where it leads.
        let link = tmp.path().join("data");
        std::os::unix::fs::symlink(home.join(".ssh"), &link).unwrap();
        assert!(p.conflict(&resolve(&link)).is_some());
        let xdg = Protected::new(Some(&home), |_| Some("/elsewhere/config".into()), &work, None, &[]);
        assert!(xdg.conflict(Path::new("/elsewhere/config/agent/.env")).is_some());
    }
}
