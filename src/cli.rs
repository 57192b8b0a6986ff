//! Command-line interface: flags and subcommands of SPEC §8.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// How proposed commands are approved (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApproveArg {
    Ask,
    Auto,
    Yes,
    No,
}

/// `agent`: a terminal agent that turns plain skill folders into capabilities of an LLM.
#[derive(Debug, Parser)]
#[command(name = "agent", version, about, long_about = None)]
pub struct Cli {
    /// Run one turn with this message, print the answer and exit.
    #[arg(long, value_name = "MSG")]
    pub once: Option<String>,

    /// Add a skill root (repeatable; searched before every other root).
    #[arg(long = "skills-dir", value_name = "DIR", global = true)]
    pub skills_dirs: Vec<PathBuf>,

    /// OpenAI-compatible base URL (e.g. http://localhost:11434/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Model name sent to the endpoint.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Approval policy for commands the model proposes.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub approve: Option<ApproveArg>,

    /// Run every proposed command without asking (same as --approve yes).
    #[arg(long, short = 'y', conflicts_with = "approve")]
    pub yes: bool,

    /// Seconds before a command is killed.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,

    /// Maximum tool steps in one turn.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,

    /// Ask the endpoint for one complete response instead of a token stream.
    #[arg(long)]
    pub no_stream: bool,

    /// Save every LLM exchange of this run (redacted) to a JSONL cassette.
    #[arg(long, value_name = "FILE", global = true, conflicts_with = "replay")]
    pub record: Option<PathBuf>,

    /// Serve the LLM side of this run from a cassette: no network, no key. Commands still run.
    #[arg(long, value_name = "FILE", global = true)]
    pub replay: Option<PathBuf>,

    /// Print one JSON event per line on stdout instead of human output.
    #[arg(long, global = true)]
    pub json: bool,

    /// More diagnostics on stderr (-v debug, -vv trace). RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands besides chatting.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect the skills `agent` can see.
    Skills {
        #[command(subcommand)]
        action: SkillsCommand,
    },
    /// Trust a folder (default: the working directory): its .env is read and its project skills
    /// (./.agents/skills, ./skills) may run commands, as they are now; a change asks again.
    Trust {
        /// The folder to trust.
        dir: Option<PathBuf>,
    },
}

/// `agent skills …`
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List every discovered skill with its root and dialect.
    List,
    /// Show one skill: metadata, diagnostics and body.
    Show {
        /// Skill name.
        name: String,
    },
    /// Rank skills by relevance to a request (the ranking the catalog budget uses).
    Search {
        /// The request to match, e.g. "what's the weather in Oslo".
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// How many results to show.
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// Check routing: run each case's prompt through the model (or a --replay cassette) and
    /// compare the skill it activates with the expected one. Exit 1 under the threshold.
    Eval {
        /// YAML file: a list of `{prompt, expect_skill}` or `{prompt, expect: none}` cases, or a
        /// map with `cases:` and an optional `threshold:`.
        cases: PathBuf,
        /// Lowest passing fraction, 0.0–1.0 (default: the file's `threshold`, else 1.0).
        #[arg(long)]
        threshold: Option<f64>,
    },
    /// Lint skills: loader findings, shadowing, routing and portability problems.
    /// Exit 1 when there is an error (with --strict, also a warning).
    Check {
        /// Skill roots or skill folders to check; default: every configured root.
        dirs: Vec<PathBuf>,
        /// Hold skills to the Agent Skills spec and treat warnings as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Moved to `agent trust [DIR]` (kept as an alias): trust the folder these skills belong to.
    Trust {
        /// Project folders, or their skill folders (`./skills`); default: the working directory.
        dirs: Vec<PathBuf>,
    },
}
