//! Command-line interface: flags and subcommands (docs/usage.md).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub(crate) mod help;

use crate::exec::approval::ApprovalPolicy;
use crate::exec::sandbox::Mode as SandboxMode;

/// A skill format whose rules `skills check --spec` applies to every skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SpecArg {
    /// The Agent Skills spec: YAML frontmatter with `name` and `description`, no extra keys.
    AgentSkills,
}

/// `agent`: a terminal agent that turns plain skill folders into capabilities of an LLM.
#[derive(Debug, Parser)]
#[command(name = "agent", version, about, long_about = None, after_long_help = help::after_long_help())]
pub struct Cli {
    /// Run one turn with this message, print the answer and exit.
    #[arg(long, value_name = "MSG")]
    pub(crate) once: Option<String>,

    /// Invoke this skill by hand for one turn (as /NAME ARGS in the chat): $ARGUMENTS, $0, $1 and so on
    /// in its SKILL.md take ARGS; without them, ARGS is the request.
    #[arg(long, value_name = "NAME")]
    pub(crate) skill: Option<String>,

    /// With --skill: the skill's arguments, e.g. agent --skill deploy "staging eu-west".
    #[arg(value_name = "ARGS", requires = "skill")]
    pub(crate) args: Option<String>,

    /// Add a skill root (repeatable; searched before every other root).
    #[arg(long = "skills-dir", value_name = "DIR")]
    pub(crate) skills_dirs: Vec<PathBuf>,

    /// OpenAI-compatible base URL (e.g. http://localhost:11434/v1).
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,

    /// Model name sent to the endpoint.
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,

    /// Approval policy for commands the model proposes.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub(crate) approve: Option<ApprovalPolicy>,

    /// Run every proposed command without asking (same as --approve yes).
    #[arg(long, short = 'y', conflicts_with = "approve")]
    pub(crate) yes: bool,

    /// Seconds before a command is killed.
    #[arg(long, value_name = "SECS")]
    pub(crate) timeout: Option<u64>,

    /// Maximum tool steps in one turn.
    #[arg(long, value_name = "N")]
    pub(crate) max_steps: Option<u32>,

    /// Exit 9 when the answer rests on nothing that ran: a skill was activated but no command ran,
    /// the answer repeats the skill's example output, or the model wrote a call it could not make.
    /// Without it such an answer is only marked (a warning; `answer_unverified` in --json).
    #[arg(long)]
    pub(crate) require_tool: bool,

    /// How much the kernel confines commands: on (writes only to the skill's folder, the working
    /// directory, the temp folder and declared paths), strict (also no network unless the skill
    /// declares it), off.
    #[arg(long, value_enum, value_name = "MODE")]
    pub(crate) sandbox: Option<SandboxMode>,

    /// Let commands of every skill write here too (repeatable; relative to the working directory).
    #[arg(long = "allow-write", value_name = "PATH")]
    pub(crate) allow_write: Vec<String>,

    /// Ask the endpoint for one complete response instead of a token stream.
    #[arg(long)]
    pub(crate) no_stream: bool,

    /// Save every LLM exchange of this run (redacted) to a JSONL cassette.
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    pub(crate) record: Option<PathBuf>,

    /// Serve the LLM side of this run from a cassette: no network, no key. Commands still run.
    #[arg(long, value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,

    /// Go on with the newest session started in this working directory.
    #[arg(short = 'c', long = "continue", conflicts_with_all = ["resume", "replay"])]
    pub(crate) continue_session: bool,

    /// Go on with session ID (an unambiguous prefix is enough); without ID, pick one on the
    /// terminal from a list of recent sessions.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "", conflicts_with = "replay")]
    pub(crate) resume: Option<String>,

    /// Do not store this run as a session (same as AGENT_SESSIONS=0).
    #[arg(long)]
    pub(crate) no_session: bool,

    /// Run no hooks this run, neither yours nor a project's (same as AGENT_HOOKS=0).
    #[arg(long)]
    pub(crate) no_hooks: bool,

    /// Print one JSON event per line on stdout instead of human output.
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// More diagnostics on stderr (-v debug, -vv trace). RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// `--skills-dir` where a subcommand looks at skills (`agent skills list --skills-dir DIR`); the
/// chat's own is on [`Cli`]. Kept apart so `completions`, `man` and `sessions` do not list it.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct RootArgs {
    /// Add a skill root (repeatable; searched before every other root).
    #[arg(id = "sub_skills_dirs", long = "skills-dir", value_name = "DIR", global = true)]
    pub(crate) skills_dirs: Vec<PathBuf>,
}

/// `--sandbox` and `--allow-write` where a subcommand confines commands or reports how it would.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct SandboxArgs {
    /// How much the kernel confines commands: on (the default), strict (no network either), off.
    #[arg(
        id = "sub_sandbox",
        long = "sandbox",
        value_enum,
        value_name = "MODE",
        global = true,
        hide_possible_values = true
    )]
    pub(crate) sandbox: Option<SandboxMode>,
    /// Let commands of every skill write here too (repeatable; relative to the working directory).
    #[arg(id = "sub_allow_write", long = "allow-write", value_name = "PATH", global = true)]
    pub(crate) allow_write: Vec<String>,
}

/// `--record` and `--replay` for `skills eval`, which talks to the model as a chat does.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct CassetteArgs {
    /// Save every LLM exchange of this run (redacted) to a JSONL cassette.
    #[arg(
        id = "sub_record",
        long = "record",
        value_name = "FILE",
        conflicts_with = "sub_replay"
    )]
    pub(crate) record: Option<PathBuf>,
    /// Serve the LLM side of this run from a cassette: no network, no key.
    #[arg(id = "sub_replay", long = "replay", value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,
}

impl Cli {
    /// The command line with a subcommand's own `--skills-dir`, `--sandbox`, `--allow-write`,
    /// `--record` and `--replay` moved to where the rest of the program reads them, after any
    /// given before the subcommand.
    pub fn hoist_subcommand_flags(mut self) -> Self {
        let (roots, confinement, cassette) = match &mut self.command {
            Some(Command::Skills { roots, action }) => {
                let (confinement, cassette) = match action {
                    SkillsCommand::Show { confinement, .. } => (std::mem::take(confinement), CassetteArgs::default()),
                    SkillsCommand::Eval {
                        confinement, cassette, ..
                    }
                    | SkillsCommand::Tune {
                        confinement, cassette, ..
                    } => (std::mem::take(confinement), std::mem::take(cassette)),
                    _ => (SandboxArgs::default(), CassetteArgs::default()),
                };
                (std::mem::take(roots), confinement, cassette)
            }
            Some(Command::Acp {
                roots,
                confinement,
                approve,
            }) => {
                self.approve = approve.take().or(self.approve);
                (
                    std::mem::take(roots),
                    std::mem::take(confinement),
                    CassetteArgs::default(),
                )
            }
            Some(Command::Sandbox { confinement, .. }) => (
                RootArgs::default(),
                std::mem::take(confinement),
                CassetteArgs::default(),
            ),
            _ => return self,
        };
        self.skills_dirs.extend(roots.skills_dirs);
        self.sandbox = confinement.sandbox.or(self.sandbox);
        self.allow_write.extend(confinement.allow_write);
        self.record = cassette.record.or(self.record.take());
        self.replay = cassette.replay.or(self.replay.take());
        self
    }
}

/// Subcommands besides chatting.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List, inspect, check, create, install, update and remove skills.
    Skills {
        #[command(flatten)]
        roots: RootArgs,
        #[command(subcommand)]
        action: SkillsCommand,
    },
    /// Print a shell completion script, e.g. `agent completions bash > ~/.local/share/bash-completion/completions/agent`.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the manual page agent(1) as roff (`agent man | man -l -`), or write every page into DIR.
    Man {
        /// Write agent.1, agent-skills.1, agent-skills-check.1 and the rest into this folder instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// What the sandbox can enforce on this machine (alone: `status`).
    Sandbox {
        #[command(flatten)]
        confinement: SandboxArgs,
        #[command(subcommand)]
        action: Option<SandboxCommand>,
    },
    /// Trust a folder (default: the working directory): its .env is read and its project skills
    /// (./.agents/skills, ./skills, parents' .agents/skills up to the repository root, other
    /// agents' .claude/skills and the like) may run commands, as they are now; a change asks again.
    Trust {
        /// The folder to trust.
        #[arg(conflicts_with = "skill")]
        dir: Option<PathBuf>,
        /// Instead, trust an installed skill (`skills add`) as it is now, after it was edited:
        /// its new content hash is recorded in skills-lock.json.
        #[arg(long, value_name = "NAME")]
        skill: Option<String>,
        /// Trust the folder (or with --skill, the skill) even when the audit finds something of
        /// high or critical severity in it (without it, `agent trust` refuses and names the
        /// findings; with --skill on a terminal it asks).
        #[arg(long)]
        force: bool,
    },
    /// MCP servers, a second source of tools beside skills: add, list, their tools, remove.
    Mcp {
        #[command(subcommand)]
        action: McpCommand,
    },
    /// Browse, export and remove stored sessions (`agent -c` and `agent --resume ID` go on with
    /// one); alone: `list`.
    Sessions {
        #[command(subcommand)]
        action: Option<SessionsCommand>,
    },
    /// Hooks in Claude Code's format (your settings.json, a trusted project's
    /// .claude/settings.json): alone, `list`.
    Hooks {
        #[command(subcommand)]
        action: Option<HooksCommand>,
    },
    /// Serve the Agent Client Protocol on stdin and stdout, for an editor (Zed, JetBrains IDEs,
    /// Neovim, Emacs): `"command": "agent", "args": ["acp"]` in its agent settings.
    #[command(long_about = ACP_ABOUT)]
    Acp {
        #[command(flatten)]
        roots: RootArgs,
        #[command(flatten)]
        confinement: SandboxArgs,
        /// Approval policy for commands the model proposes (as before `acp`), so an editor's
        /// `"args": ["acp", "--approve", "auto"]` works too.
        #[arg(id = "acp_approve", long = "approve", value_enum, value_name = "POLICY")]
        approve: Option<ApprovalPolicy>,
    },
}

/// `agent acp --help`.
const ACP_ABOUT: &str = "Serve the Agent Client Protocol (ACP) on stdin and stdout, for an editor.

The editor starts `agent acp` and talks JSON-RPC to it: each of its sessions is a session of
ours, in the folder the editor names, with the skills, approvals, sandbox and stored sessions of
the chat. Add it to Zed's settings.json:

  \"agent_servers\": { \"agent\": { \"type\": \"custom\", \"command\": \"agent\", \"args\": [\"acp\"] } }

Flags of the run go before `acp` (`agent --model NAME acp`); --approve, --skills-dir, --sandbox
and --allow-write also after it (`\"args\": [\"acp\", \"--approve\", \"auto\"]`).

Commands the policy would ask about are asked in the editor (allow once, always for the skill,
reject); --approve no, the sandbox and deny rules refuse what no editor can allow. A folder that
is not trusted is asked about in the editor before its first project skill runs a command.
Sessions are stored as usual and can be loaded again from the editor. The MCP servers the editor
passes (stdio, HTTP) are used beside your own. Stdout carries only protocol messages: logs go to
stderr (-v for more). When the editor goes away, running commands are stopped and agent exits 0.

Details: docs/editors.md.";

/// `agent hooks ...`
#[derive(Debug, Subcommand)]
pub(crate) enum HooksCommand {
    /// Every configured hook: its event, matcher and command, the file it comes from, whether it
    /// runs here (a project's only once the folder is trusted), and its last failure.
    List,
}

/// A format `agent sessions export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// Markdown, readable in any viewer.
    Md,
    /// One self-contained HTML page: no scripts, commands and outputs folded.
    Html,
    /// The session's records as one JSON document.
    Json,
}

/// `agent sessions ...`
#[derive(Debug, Subcommand)]
pub(crate) enum SessionsCommand {
    /// Stored sessions, newest first: id, when, working directory, first message, turns, tokens.
    List {
        /// Show at most this many (0: all).
        #[arg(long, default_value_t = 0)]
        limit: usize,
    },
    /// One session in full, as Markdown.
    Show {
        /// Session id, or an unambiguous prefix of one.
        id: String,
    },
    /// Write a session as Markdown, HTML or JSON (to stdout, or to FILE).
    Export {
        /// Session id, or an unambiguous prefix of one.
        id: String,
        /// The format (default: from FILE's extension, else md).
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<ExportFormat>,
        /// Write to FILE instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete a stored session.
    Rm {
        /// Session id, or an unambiguous prefix of one.
        id: String,
    },
}

/// `agent mcp ...`
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Add a server to your mcp.json (or ./.mcp.json with --project): a stdio server's command
    /// after `--`, or --url for streamable HTTP. `${VAR}` in the command, --env, --url and
    /// --header is expanded from the environment when the server starts.
    Add {
        /// The server's name: tools reach the model as mcp__NAME__TOOL.
        name: String,
        /// A streamable HTTP server's URL instead of a command.
        #[arg(long, value_name = "URL", conflicts_with = "command")]
        url: Option<String>,
        /// An HTTP header, `Name: value` (repeatable).
        #[arg(long = "header", value_name = "HEADER", requires = "url")]
        headers: Vec<String>,
        /// A variable for a stdio server, `KEY=VALUE` (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A tool `--approve auto` may run without asking (repeatable; `*` for all of this server's).
        #[arg(long = "auto-approve", value_name = "TOOL", conflicts_with = "project")]
        auto_approve: Vec<String>,
        /// Write ./.mcp.json (this project, shared with Claude Code) instead of your mcp.json.
        #[arg(long)]
        project: bool,
        /// The folder a stdio server starts in (default: the configuration file's folder; never
        /// the folder `agent` later runs in). Relative paths are taken from here and stored whole.
        #[arg(long, value_name = "DIR", conflicts_with = "url")]
        cwd: Option<String>,
        /// The stdio server's command and arguments, after `--`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// The configured servers: where each is configured, what it starts, whether it answers, how
    /// many tools it has, and what confines it.
    List,
    /// Each tool of every server (or of SERVER): its name for the model, description and schema.
    Tools {
        /// Only this server.
        server: Option<String>,
    },
    /// Remove a server from your mcp.json (or ./.mcp.json with --project).
    Remove {
        /// The server's name.
        name: String,
        /// Remove it from ./.mcp.json instead.
        #[arg(long)]
        project: bool,
    },
}

/// `agent sandbox ...`
#[derive(Debug, Subcommand)]
pub(crate) enum SandboxCommand {
    /// Report the kernel's Landlock ABI, the rules it gives, the seccomp filter, and whether a
    /// confined command really cannot write outside its folders (checked by running one).
    Status,
}

/// `agent skills keys ...`
#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Trust a publisher's minisign public key (the `RW…` line of its .pub file) for checking the
    /// SKILL.sig signatures of skills; kept in ~/.config/agent/skill-keys.json.
    Add {
        /// The public key, base64.
        key: String,
        /// A note saying whose key it is.
        #[arg(long, value_name = "TEXT")]
        comment: Option<String>,
        /// Require a valid signature by this key for every skill installed or updated from a
        /// source starting with SOURCE (e.g. https://github.com/acme/).
        // This doc comment is the option's --help text, where the address stays as written.
        #[allow(rustdoc::bare_urls)]
        #[arg(long = "require-for", value_name = "SOURCE")]
        require_for: Option<String>,
    },
}

/// `agent skills ...`
#[derive(Debug, Subcommand)]
pub(crate) enum SkillsCommand {
    /// List every discovered skill with its root and dialect.
    List,
    /// Show one skill: metadata, diagnostics, what the sandbox would let it write, and body.
    Show {
        /// The skill's name or its folder's (one starting with `-` works too: `skills show
        /// -21risk-automation`).
        #[arg(allow_hyphen_values = true)]
        name: String,
        #[command(flatten)]
        confinement: SandboxArgs,
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
    /// Audit skills for malicious patterns before they run: download-and-execute lures, payloads,
    /// credential access, exfiltration, reverse shells, persistence, obfuscation, hidden text,
    /// prompt injection, broad grants, imitated names. Nothing is run. Exit 0 clean, 7 findings
    /// (medium or high), 8 critical.
    Audit {
        /// A skill's name or its folder's, a path to a skill folder or a folder holding skills
        /// (`./NAME`), or a source as `skills add` takes it (fetched into a temporary folder);
        /// default: every skill of the configured roots.
        #[arg(allow_hyphen_values = true)]
        target: Option<String>,
        /// Also send each SKILL.md (as quoted data, with the findings) to the configured model
        /// for a second opinion, shown apart; it never changes the findings or the exit code.
        #[arg(long)]
        llm: bool,
    },
    /// Check routing: run each case's prompt through the model (or a --replay cassette) and
    /// compare the skill it activates with the expected one. Exit 1 under the threshold.
    Eval {
        /// YAML or JSON file: `{prompt, expect_skill}` / `{prompt, expect: none}` cases, or
        /// skill-creator's `{query, should_trigger}` cases with a top-level `skill:` (not needed
        /// with --draft).
        #[arg(required_unless_present = "draft")]
        cases: Option<PathBuf>,
        /// Lowest passing fraction of cases, 0.0 to 1.0 (default: the file's `threshold`, else 1.0);
        /// under it the exit code is 1.
        #[arg(long, alias = "threshold", value_name = "RATE")]
        min_rate: Option<f64>,
        /// Times each case is run; a case passes when its skill is chosen in at least half the runs
        /// (should-trigger) or in fewer than half (should-not).
        #[arg(long, default_value_t = 3, value_name = "N")]
        runs: u32,
        /// Cases routed at once (a 429 with retry-after is waited out and retried, AGENT_RETRIES).
        #[arg(long, default_value_t = 1, value_name = "N")]
        jobs: usize,
        /// Ask the model for realistic should / should-not requests for SKILL (near misses included)
        /// and add them to its tests/routing.yaml, keeping the cases already there.
        #[arg(long, value_name = "SKILL", conflicts_with = "cases")]
        draft: Option<String>,
        /// How many cases --draft asks for.
        #[arg(long, default_value_t = 20, value_name = "N", requires = "draft")]
        count: usize,
        #[command(flatten)]
        confinement: SandboxArgs,
        #[command(flatten)]
        cassette: CassetteArgs,
    },
    /// Improve a skill's description against its routing cases: evaluate on the train half, ask
    /// the model for a better description from the failures, keep the best by the validation half.
    /// The result is written only after a yes (--write where nobody can be asked).
    Tune {
        /// The skill to tune.
        skill: String,
        /// Routing cases (default: the skill's tests/routing.yaml).
        #[arg(long, value_name = "FILE")]
        cases: Option<PathBuf>,
        /// Most proposals to try.
        #[arg(long, default_value_t = 5, value_name = "N")]
        iterations: u32,
        /// Times each case is run per evaluation.
        #[arg(long, default_value_t = 3, value_name = "N")]
        runs: u32,
        /// Cases routed at once.
        #[arg(long, default_value_t = 1, value_name = "N")]
        jobs: usize,
        /// Most tokens the tuning may use, counted as the server reports them (else estimated).
        #[arg(long, default_value_t = 500_000, value_name = "TOKENS")]
        budget: u64,
        /// Write the best description into SKILL.md (or skill.json) without asking.
        #[arg(long)]
        write: bool,
        #[command(flatten)]
        confinement: SandboxArgs,
        #[command(flatten)]
        cassette: CassetteArgs,
    },
    /// Lint skills: loader findings, missing files, shadowing, routing and portability problems.
    /// Exit 1 when there is an error (with --strict, also a warning).
    Check {
        /// Skill roots or skill folders to check; default: every configured root.
        dirs: Vec<PathBuf>,
        /// Treat warnings as errors; each skill is held to its own dialect's rules.
        #[arg(long)]
        strict: bool,
        /// Hold every skill to this spec's rules, whatever its dialect (SCP skills then need
        /// frontmatter too).
        #[arg(long, value_enum, value_name = "SPEC")]
        spec: Option<SpecArg>,
    },
    /// Write a working skill skeleton: SKILL.md, an executable run.sh and routing cases for
    /// `skills eval`. Goes into the first writable --skills-dir or AGENT_SKILLS_PATH root, else
    /// ~/.agents/skills; never overwrites.
    New {
        /// Skill name: lowercase letters, digits and single hyphens (also the folder's name).
        name: String,
        /// Plain-markdown SKILL.md plus skill.json (SCP) instead of YAML frontmatter.
        #[arg(long)]
        scp: bool,
        /// Put the skill folder in DIR instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Install skills from a local folder, a git URL or owner/repo (GitHub), with @REF and
    /// #SUBDIR, into ~/.agents/skills (or ./.agents/skills with --project), recorded in
    /// skills-lock.json. Nothing from the skill runs.
    Add {
        /// ./folder, https://host/owner/repo.git, git@host:owner/repo, or owner/repo; then
        /// optionally @REF (branch, tag, commit) and #SUBDIR.
        source: String,
        /// Install this skill of a source holding several (repeatable); without it (or --all), a
        /// terminal asks and anything else lists some and exits 2. A name may start with `-`.
        #[arg(long = "skill", value_name = "NAME", allow_hyphen_values = true)]
        skills: Vec<String>,
        /// Install into ./.agents/skills (this project) instead of ~/.agents/skills.
        #[arg(long)]
        project: bool,
        /// Fix scripts with CRLF line endings or no executable bit in the installed copy without asking.
        #[arg(long)]
        fix: bool,
        /// Install every skill the source holds whose name is free, without asking: skills already
        /// installed from it are left as they are, a skill whose name another skill uses is named
        /// with the --as command that takes it, and template skeletons are left out.
        #[arg(long, conflicts_with = "skills")]
        all: bool,
        /// Install the one chosen skill under NAME (its folder and the name it gives itself), when
        /// its own name is taken.
        #[arg(long = "as", value_name = "NAME", conflicts_with = "all")]
        new_name: Option<String>,
        /// Install even when the audit finds something of high or critical severity, without
        /// asking (a terminal otherwise shows the findings and asks; without one they refuse).
        #[arg(long)]
        force: bool,
    },
    /// Compare each skill installed with `skills add` with its source (git ls-remote, once per
    /// source); exit 1 when one is outdated.
    Outdated,
    /// Fetch installed skills again, show what changed, and replace them after a yes.
    Update {
        /// Only this skill, by its name or its folder's (default: every one in skills-lock.json).
        #[arg(allow_hyphen_values = true)]
        name: Option<String>,
        /// Replace without asking (needed without a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Replace even when the audit of the new version finds something of high or critical
        /// severity, without asking.
        #[arg(long)]
        force: bool,
    },
    /// Recompute the directory digest of each skill installed with `skills add` and compare it
    /// with the one skills-lock.json recorded; check publisher signatures (SKILL.sig) against
    /// your keys. Exit 1 when a digest changed or a signature is invalid.
    Verify {
        /// Only this skill, by its name or its folder's (default: every one in skills-lock.json).
        #[arg(allow_hyphen_values = true)]
        name: Option<String>,
    },
    /// The publisher keys signatures are checked against.
    Keys {
        #[command(subcommand)]
        action: KeysCommand,
    },
    /// Delete a skill installed with `skills add` and its skills-lock.json entry.
    Remove {
        /// The skill's name or its folder's (one starting with `-` works too).
        #[arg(allow_hyphen_values = true)]
        name: String,
        /// Remove it from ./.agents/skills instead of ~/.agents/skills.
        #[arg(long)]
        project: bool,
    },
    /// Moved to `agent trust [DIR]` (kept as an alias): trust the folder these skills belong to.
    Trust {
        /// Project folders, or their skill folders (`./skills`); default: the working directory.
        dirs: Vec<PathBuf>,
    },
}
