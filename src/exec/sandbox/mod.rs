//! The second wall (docs/design.md#sandbox): approval decides *what* runs, the sandbox decides what
//! a running command can *do*. Where the kernel offers Landlock, a skill's command and everything
//! it starts may read whatever the user can read but write only to a few folders; under `strict` it
//! may also not open network connections unless the skill declares that it needs them.
//!
//! - [`Mode`]: `on`, `strict` or `off`, as the user chose.
//! - `kernel`: what this machine's Landlock can enforce.
//! - `contain`: the tighter walls of a command `auto` runs unasked that is not the skill's own.
//! - [`policy`]: what one skill's commands may write and reach, from the user's settings and what
//!   the skill declares (`requires.write`, `requires.network`).
//! - `confine`: a policy turned into a Landlock ruleset (and, under `strict`, a seccomp filter),
//!   built by the agent and entered by the child between fork and exec.
//! - `netfilter`: the seccomp program for what Landlock's network rules do not cover.
//! - `protected` and `guard`: places no skill can be granted, kept read-only also beneath a
//!   writable place.
//! - `planted`: removing what a command planted that runs later (`.envrc`, a nested `.git`).
//! - `hint`: saying so when a failed command looks like the sandbox stopped it.
//! - `probe`: checking on this machine that a confined child really cannot write.

pub(crate) mod confine;
pub(crate) mod contain;
pub(crate) mod guard;
pub(crate) mod hint;
pub(crate) mod kernel;
pub(crate) mod netfilter;
pub(crate) mod planted;
pub mod policy;
pub(crate) mod probe;
pub(crate) mod protected;
pub mod readonly;

use std::fmt;

pub use confine::Confinement;
pub use kernel::Kernel;
pub(crate) use policy::{Policy, Settings};

/// How much the sandbox confines commands; also the values of `--sandbox` (clap reads the variant
/// names, `AGENT_SANDBOX` goes through `Mode::parse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Writes confined to the skill's folder, the working directory, the temp folder and declared
    /// paths; the network open.
    #[default]
    On,
    /// Writes confined, and no network unless the skill declares `requires.network: true`.
    Strict,
    /// No confinement at all.
    Off,
}

impl Mode {
    /// `on`, `strict` or `off` (any case); `None` for anything else.
    pub(crate) fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "on" => Some(Self::On),
            "strict" => Some(Self::Strict),
            "off" => Some(Self::Off),
            _ => None,
        }
    }

    /// The word a user types for this mode.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Strict => "strict",
            Self::Off => "off",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a command cannot be confined as its policy asks.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `strict` was asked for and the kernel cannot enforce it; nothing runs unconfined.
    #[error("{0}")]
    Refused(String),
    /// The kernel refused the ruleset the policy describes.
    #[error("cannot build the Landlock ruleset: {0}; run with --sandbox off to run commands unconfined")]
    Ruleset(#[from] landlock::RulesetError),
    /// A folder of the ruleset could not be opened.
    #[error("cannot open a folder for the Landlock ruleset: {0}")]
    Path(#[from] landlock::PathFdError),
    /// The seccomp program for `strict` could not be built for this machine.
    #[error("cannot build the network filter for --sandbox strict: {0}")]
    Filter(#[from] seccompiler::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_in_any_case_and_print_back() {
        for mode in [Mode::On, Mode::Strict, Mode::Off] {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
            assert_eq!(Mode::parse(&mode.to_string().to_uppercase()), Some(mode));
        }
        assert_eq!(Mode::parse(" strict "), Some(Mode::Strict));
        assert_eq!(Mode::parse("yes"), None);
        assert_eq!(Mode::default(), Mode::On);
    }
}
