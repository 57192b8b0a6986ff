//! Noticing that skills changed on disk while a chat runs, without asking about every file every
//! turn. By default the file system tells (`events`: inotify on Linux, FSEvents on macOS): each
//! root, each folder in it and its `agents/` folder are watched, and an event only marks what it
//! concerns; nothing is read until the next turn asks. Where events cannot be had (the watch
//! limit reached, a network file system, `AGENT_WATCH=poll`) each turn compares stamps instead
//! (`poll`), the catalog cache's own [`Stamp`](super::cache::Stamp) of each folder and of the
//! files loading reads.

mod barrier;
mod events;
mod poll;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::skills::roots::skill_dirs::is_ignored;

/// An `AGENT_WATCH` value that is not a watch mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "AGENT_WATCH={value} is not a watch mode: use auto (file-system events), poll (a check before \
     every turn) or off (only /reload)"
)]
pub(crate) struct BadMode {
    /// The value as read (trimmed, lower case).
    pub(crate) value: String,
}

/// How a chat learns that skills changed (`AGENT_WATCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Events from the file system, polling where they cannot be had.
    Auto,
    /// A stamp check before every turn.
    Poll,
    /// Only `/reload`.
    Off,
}

impl Mode {
    /// The mode `AGENT_WATCH` names (unset or empty: [`Mode::Auto`]).
    pub(crate) fn parse(value: Option<&str>) -> Result<Self, BadMode> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "auto") => Ok(Self::Auto),
            Some("poll") => Ok(Self::Poll),
            Some("off") => Ok(Self::Off),
            Some(other) => Err(BadMode {
                value: other.to_string(),
            }),
        }
    }
}

/// What changed since the last look.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Folders of a root (as `root/name`) whose loaded files changed, or that appeared,
    /// disappeared or were re-pointed.
    pub(crate) folders: BTreeSet<PathBuf>,
    /// A root itself changed (appeared, vanished, or events were lost): anything may have.
    pub(crate) roots: bool,
}

impl Changes {
    /// Whether nothing changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.folders.is_empty() && !self.roots
    }

    /// Take what was collected, leaving nothing.
    fn take(&mut self) -> Option<Self> {
        (!self.is_empty()).then(|| std::mem::take(self))
    }
}

/// The watch over a chat's skill roots.
pub struct SkillWatch {
    roots: Vec<PathBuf>,
    state: State,
}

enum State {
    /// Watches are being set up on a thread of their own (thousands of folders take a while);
    /// the first look waits for it.
    Starting(std::thread::JoinHandle<Result<events::Events, events::WatchError>>),
    Events(events::Events),
    Polling(poll::Poll),
    Off,
}

impl SkillWatch {
    /// Start watching `roots` as `mode` says. Call it right after the scan it is to compare with.
    pub fn start(mode: Mode, roots: Vec<PathBuf>) -> Self {
        let state = match mode {
            Mode::Off => State::Off,
            Mode::Poll => State::Polling(poll::Poll::stamped(&roots)),
            Mode::Auto => match events::unwatchable(&roots) {
                Some(why) => {
                    tracing::debug!("skill roots polled: {why}");
                    State::Polling(poll::Poll::stamped(&roots))
                }
                None => {
                    let watched = roots.clone();
                    State::Starting(std::thread::spawn(move || events::Events::start(watched)))
                }
            },
        };
        Self { roots, state }
    }

    /// What changed since the last look, if anything: with events a lock and nothing else, when
    /// polling a stamp of each folder and of the files loading reads.
    pub fn changes(&mut self) -> Option<Changes> {
        self.finish_setup();
        match &mut self.state {
            State::Events(events) => events.take(),
            State::Polling(poll) => poll.check(),
            State::Starting(_) | State::Off => None,
        }
    }

    /// Before the scan that takes in `changes`: watch what appeared, again what was re-pointed,
    /// and compare with what is there now from here on (a change made while the scan reads is
    /// then seen again next turn, never lost).
    pub(crate) fn follow(&mut self, changes: &Changes) {
        self.finish_setup();
        match &mut self.state {
            State::Events(events) => {
                if let Err(why) = events.follow(changes) {
                    self.fall_back(&why);
                }
            }
            State::Polling(poll) => *poll = poll::Poll::stamped(&self.roots),
            State::Starting(_) | State::Off => {}
        }
    }

    /// Wait for the watches being set up, and poll instead when they could not be.
    fn finish_setup(&mut self) {
        if !matches!(self.state, State::Starting(_)) {
            return;
        }
        let State::Starting(setup) = std::mem::replace(&mut self.state, State::Off) else {
            return;
        };
        match setup.join() {
            Ok(Ok(events)) => self.state = State::Events(events),
            Ok(Err(why)) => self.fall_back(&why),
            Err(_) => self.fall_back(&"the thread setting up watches failed"),
        }
    }

    fn fall_back(&mut self, why: &dyn std::fmt::Display) {
        tracing::debug!("skill roots polled: {why}");
        self.state = State::Polling(poll::Poll::stamped(&self.roots));
    }
}

/// What an event at `path` concerns, below `roots`.
#[derive(Debug, PartialEq, Eq)]
enum Concern {
    /// The skill folder `root/name`.
    Folder(PathBuf),
    /// A root, or a folder on the way to one: anything may have changed.
    Root,
    /// Nothing loading reads (a script, a note, an editor's swap file).
    Nothing,
}

/// Whether loading reads a file of this name in a skill folder (`agents` for `agents/openai.yaml`).
fn loaded_name(name: &str) -> bool {
    ["skill.md", "skill.json", "run.sh", "agents"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

fn concern(path: &Path, roots: &[PathBuf]) -> Concern {
    if roots.iter().any(|r| r.starts_with(path)) {
        return Concern::Root;
    }
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let Some(parent) = path.parent() else {
        return Concern::Nothing;
    };
    let is_root = |p: &Path| roots.iter().any(|r| r == p);
    if is_root(parent) {
        let entry = name(path);
        return if is_ignored(&entry) {
            Concern::Nothing
        } else if loaded_name(&entry) {
            // A root that is itself a skill folder.
            Concern::Root
        } else {
            Concern::Folder(path.to_path_buf())
        };
    }
    let Some(grand) = parent.parent() else {
        return Concern::Nothing;
    };
    if is_root(grand) && loaded_name(&name(path)) {
        return Concern::Folder(parent.to_path_buf());
    }
    let in_agents = name(parent) == "agents" && name(path) == "openai.yaml";
    match grand.parent() {
        Some(root) if in_agents && is_root(root) => Concern::Folder(grand.to_path_buf()),
        _ => Concern::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_a_wrong_one_says_what_to_use() {
        assert_eq!(Mode::parse(None), Ok(Mode::Auto));
        assert_eq!(Mode::parse(Some(" Poll ")), Ok(Mode::Poll));
        assert_eq!(Mode::parse(Some("off")), Ok(Mode::Off));
        let err = Mode::parse(Some("sometimes")).unwrap_err();
        assert_eq!(err.value, "sometimes");
        let text = err.to_string();
        assert!(
            text.contains("AGENT_WATCH=sometimes") && text.contains("poll"),
            "{text}"
        );
    }

    #[test]
    fn events_concern_the_folder_whose_loaded_files_they_touch() {
        let roots = vec![PathBuf::from("/r/skills"), PathBuf::from("/home/u/.claude/skills")];
        let c = |p: &str| concern(Path::new(p), &roots);
        let folder = |p: &str| Concern::Folder(PathBuf::from(p));
        assert_eq!(
            c("/r/skills/a"),
            folder("/r/skills/a"),
            "a folder added, removed or re-pointed"
        );
        assert_eq!(c("/r/skills/a/SKILL.md"), folder("/r/skills/a"));
        assert_eq!(c("/r/skills/a/skill.md"), folder("/r/skills/a"));
        assert_eq!(c("/r/skills/a/skill.json"), folder("/r/skills/a"));
        assert_eq!(c("/r/skills/a/agents/openai.yaml"), folder("/r/skills/a"));
        assert_eq!(c("/r/skills/a/notes.txt"), Concern::Nothing);
        assert_eq!(c("/r/skills/a/.SKILL.md.swp"), Concern::Nothing);
        assert_eq!(c("/r/skills/a/scripts/run.py"), Concern::Nothing);
        assert_eq!(c("/r/skills/.git"), Concern::Nothing);
        assert_eq!(c("/r/skills/SKILL.md"), Concern::Root, "the root is itself a skill");
        assert_eq!(c("/r/skills"), Concern::Root);
        assert_eq!(c("/home/u/.claude"), Concern::Root, "on the way to a missing root");
        assert_eq!(c("/home/u/notes.txt"), Concern::Nothing);
    }
}
