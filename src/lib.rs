//! `agent`: a terminal agent that turns plain skill folders into capabilities of an LLM.
//!
//! The binary (`src/main.rs`) parses the flags and hands them to [`app::run`]; the modules are a
//! library so that tests, benchmarks and fuzz targets drive the same code. Imports point one way,
//! down this picture (`tests/suite/architecture.rs` holds the same arrows in its table `ALLOWED`
//! and fails on any import that is not one of them):
//!
//! ```text
//! main ──▶ app ──┬──▶ ui ──────────────────────┐
//!                ├──▶ acp ──▶ agent, mcp ──────┤
//!                │                             ▼
//!                └──▶ agent ──▶ sessions ──▶ output ──▶ llm ─────────────────────▶ support
//!                       │                      │                                   ▲
//!                       ├──▶ mcp ──────────────┴──▶ exec ──▶ skills ──▶ audit ─────┘
//!                       └──▶ hooks ─────────────────▶ exec
//!   cli, config and exit sit beside app, which uses them.
//!
//! every arrow, a room skipping down the picture included:
//!   support, exit  nothing of the crate
//!   audit        ▶ support
//!   skills       ▶ audit, support
//!   exec         ▶ skills, support
//!   llm          ▶ support
//!   mcp          ▶ exec, support
//!   hooks        ▶ exec, support
//!   output       ▶ audit, exec, llm, skills, support
//!   sessions     ▶ llm, output, support
//!   agent        ▶ audit, exec, hooks, llm, mcp, output, sessions, skills, support
//!   ui           ▶ audit, exec, output, skills, support
//!   acp          ▶ agent, exec, mcp, output, support
//!   cli          ▶ exec
//!   config       ▶ cli, exec, exit, llm, sessions, skills, support
//!   app          ▶ every room above
//! ```
//!
//! - [`app`]: builds the pieces from configuration and runs one command — the chat, a one-shot
//!   turn, `skills …`, `trust`, `completions`, `man` — saying everything through `output`.
//! - `acp`: the editor's front end (`agent acp`): the Agent Client Protocol over stdio, whose
//!   SDK writes its frames; a session's events become its updates, its questions permission requests.
//! - [`ui`]: the only writers: the human and JSON renderers, the terminal's approval and trust
//!   questions, line editing, markdown, tables, terminal settings.
//! - [`agent`]: the turn loop over a conversation and a tool runner whose calls come back as typed
//!   outcomes; the catalog and prompts; routing for `skills eval`.
//! - [`output`]: the vocabulary between them: the turn's `Event`s, the `Report`s of commands and
//!   chat replies, the `Output`/`EventSink` traits and the `Approver` questions.
//! - [`mcp`]: MCP servers through `rmcp`: configuration, connections, the tool-list cache.
//! - [`llm`]: the OpenAI-compatible client, stream folding, retries, cassettes, model discovery.
//! - [`skills`]: skill roots and their order (`skills::roots`), discovery, lenient loading of both
//!   dialects (`skills::load`), diagnostics with stable codes, checks beyond loading
//!   (`skills::check`: lint, references, script portability, declared needs), retrieval
//!   (`skills::retrieval`), the catalog, skeletons, invoking by hand (arguments), the
//!   modification-time check, and the skill library (`skills::library`: sources, git, atomic
//!   installs, `skills-lock.json`, diffs).
//! - [`audit`]: the static audit of a skill folder, its directory digest and publisher signatures.
//! - `hooks`: the user's own commands at fixed points of a session, in Claude Code's settings
//!   format: loading, matchers, running them with the event on stdin, their decisions.
//! - [`exec`]: approval (the plan that runs is the plan approved), processes and their trees,
//!   output capture, the child environment, folder trust.
//! - [`support`]: the leaf several layers share: redaction, safe file reads, YAML as JSON, the
//!   cache-file format, outside text made safe for the terminal.
//! - [`sessions`]: stored sessions: records, the append-only store with its lock,
//!   loading and replaying, exports (md, html, json), context estimates, compaction helpers.
//! - [`cli`], [`config`], [`exit`]: the flags, the resolved settings, the exit codes.
//!
//! Where new things go: a subcommand is a `cli::Command` variant dispatched in `app` to a function
//! that returns its `output::Report` (rendered in `ui::report_text` and documented in
//! docs/events.md); a chat command is one entry of the table in `app/chat/commands.rs`; a tool the
//! model can call is a `agent::tools::ToolRequest` variant, a schema in `prompts/` and an arm of
//! `ToolRunner::dispatch`.

pub(crate) mod acp;
pub mod agent;
pub mod app;
pub mod audit;
pub mod cli;
pub mod config;
pub mod exec;
pub mod exit;
pub(crate) mod hooks;
pub mod llm;
pub mod mcp;
pub mod output;
pub mod sessions;
pub mod skills;
pub mod support;
pub mod ui;
