//! Building the agent of a run: the LLM client (with its cassette, if any), the skill set, the
//! loop's options (the `session` event that opens the run comes with its stored session:
//! `super::session::started_agent`).

use std::path::PathBuf;
use std::sync::Arc;

use super::Run;
use crate::agent::prompt::PromptMode;
use crate::agent::retrieve::Retriever;
use crate::agent::tools::RunnerSettings;
use crate::agent::{Agent, AgentOptions};
use crate::config::Config;
use crate::exit::{AppError, ExitCode};
use crate::llm::cassette::{CassetteError, Player, Recorder, Scrubber, Tape};
use crate::llm::embeddings::EmbeddingsSettings;
use crate::llm::{LlmClient, LlmSettings};
use crate::output::{Approver, Event, EventSink};
use crate::skills::SkillSet;
use crate::skills::discover::Discovery;

/// The agent for this run over the skills `discovery` found; its events go to `sink` and its
/// questions to `approver`.
pub(super) fn agent(
    run: &Run<'_>,
    discovery: Discovery,
    sink: Arc<dyn EventSink>,
    approver: Arc<dyn Approver>,
) -> Result<Agent, AppError> {
    let config = &run.config;
    let tape = checked_tape(run, &discovery)?;
    let mcp = mcp_hub(run, &tape);
    let llm = llm_with(run, tape, sink.clone())?;
    let preload = run.index_preload.lock().unwrap_or_else(|p| p.into_inner()).take();
    let mut found = discovery.skills;
    crate::skills::paths::mark_unmatched(&mut found, &config.sandbox.cwd);
    let skills = SkillSet::with_cache(found, config.cache.clone()).with_preloaded(preload);
    let compact = compact_prompt(config);
    let options = AgentOptions {
        tools: RunnerSettings {
            approve: config.approve,
            command_timeout: config.command_timeout,
            base_env: config.env.merged(),
            redactor: run.redactor.clone(),
            workdir: config.sandbox.cwd.clone(),
            skill_roots: config.skill_roots.iter().map(|r| r.path.clone()).collect(),
            trust: run.trust.clone(),
            sandbox: config.sandbox.clone(),
            retriever: Arc::new(retriever(config)),
            mcp,
            prompt_mode: if compact { PromptMode::Compact } else { PromptMode::Full },
            hooks: super::hooks::session_hooks(run, &*sink),
            mcp_budget: if compact {
                config.mcp_tools_budget.min(COMPACT_MCP_BUDGET)
            } else {
                config.mcp_tools_budget
            },
        },
        max_steps: config.max_steps,
        history_budget: config.history_budget,
        catalog_budget: if compact {
            config.catalog_budget.min(COMPACT_CATALOG_BUDGET)
        } else {
            config.catalog_budget
        },
        // A clear winner activated before the first request saves a round trip, which on a
        // CPU-only server is tens of seconds of prompt processing.
        preactivate: config.preactivate.unwrap_or(compact),
        context_window: config.sessions.context_window,
        compact_at: config.sessions.compact_at,
        prompt_mode: if compact { PromptMode::Compact } else { PromptMode::Full },
        // Only llama.cpp is known to hold a reply to a JSON schema while tools are offered.
        guided_calls: compact && config.guided_calls.unwrap_or_else(|| on_llama_cpp(config)),
    };
    Ok(Agent::new(llm, skills, options, sink, approver))
}

/// Bytes of skill catalog per request in the compact prompt: the dozen or so skills most relevant
/// to the session's first request.
const COMPACT_CATALOG_BUDGET: usize = 1024;
/// Bytes of MCP tool schemas per request in the compact prompt.
const COMPACT_MCP_BUDGET: usize = 2048;

/// Whether the run uses the compact prompt: `AGENT_PROMPT` says, else what a local server says
/// about its model (small, or a small context).
fn compact_prompt(config: &Config) -> bool {
    match config.compact_prompt {
        Some(chosen) => chosen,
        None => config.server_facts.as_ref().is_some_and(|f| f.wants_compact()),
    }
}

/// Whether the model server, asked, said it is llama.cpp.
fn on_llama_cpp(config: &Config) -> bool {
    config
        .server_facts
        .as_ref()
        .is_some_and(|f| f.kind == Some(crate::llm::tool_support::ServerKind::LlamaCpp))
}

/// The run's MCP servers: recorded into the cassette with `--record`; with `--replay`, only what
/// the cassette holds of them (no server starts, none need be configured).
fn mcp_hub(run: &Run<'_>, tape: &Tape) -> Option<Arc<crate::mcp::McpHub>> {
    use crate::mcp::tape::{McpTape, Replay};
    match tape {
        Tape::Record(recorder) => {
            let recorder = recorder.clone();
            super::mcp::hub(run, McpTape::Record(Arc::new(move |line| recorder.write_record(line))))
        }
        Tape::Replay(player) => {
            let replay = Replay::from_lines(player.others())?;
            Some(super::mcp::replaying(run, McpTape::Replay(Arc::new(replay))))
        }
        Tape::Off => super::mcp::hub(run, McpTape::Off),
    }
}

/// The LLM client of this run (with its cassette, if any); notices go to `sink` as warnings.
pub(super) fn llm_client(
    run: &Run<'_>,
    discovery: &Discovery,
    sink: Arc<dyn EventSink>,
) -> Result<LlmClient, AppError> {
    let tape = checked_tape(run, discovery)?;
    llm_with(run, tape, sink)
}

/// The run's cassette, once a key is known to be there when the run talks to a real server.
fn checked_tape(run: &Run<'_>, discovery: &Discovery) -> Result<Tape, AppError> {
    let tape = tape(run, discovery)?;
    if !matches!(tape, Tape::Replay(_)) {
        run.config.require_key()?;
    }
    Ok(tape)
}

/// The LLM client over `tape`; notices go to `sink` as warnings.
fn llm_with(run: &Run<'_>, tape: Tape, sink: Arc<dyn EventSink>) -> Result<LlmClient, AppError> {
    let config = &run.config;
    LlmClient::new(
        LlmSettings {
            provider: match &tape {
                Tape::Replay(player) => player.provider(),
                _ => config.provider,
            },
            max_tokens: config.max_tokens,
            prices: config.prices.clone(),
            base_url: config.base_url.clone(),
            api_key: config.api_key.as_ref().map(|k| k.value.clone()),
            key_var: config.api_key.as_ref().map(|k| k.var),
            base_url_given: config.base_url_given,
            model: config.model.clone(),
            stream: config.stream,
            retries: config.retries,
            connect_timeout: config.connect_timeout,
            idle_timeout: config.idle_timeout,
            temperature: config.temperature.sent(compact_prompt(config)),
            prompt_progress: on_llama_cpp(config),
            tape,
            redactor: run.redactor.clone(),
        },
        Arc::new(move |message| sink.emit(Event::Warning { message })),
    )
    .map_err(|e| AppError::from_source(ExitCode::Llm, e))
}

/// The cassette this run records to or replays from, if any.
fn tape(run: &Run<'_>, discovery: &Discovery) -> Result<Tape, AppError> {
    let scrubber = || {
        let dirs: Vec<(String, PathBuf)> = discovery
            .skills
            .iter()
            .map(|s| (s.name.clone(), s.dir.clone()))
            .collect();
        Scrubber::new(run.redactor.clone(), &dirs, Some(&run.config.sandbox.cwd))
    };
    Ok(match (&run.cli.record, &run.cli.replay) {
        (Some(path), _) => Tape::Record(Arc::new(Recorder::create(path, scrubber()).map_err(bad_cassette)?)),
        (None, Some(path)) => Tape::Replay(Arc::new(Player::open(path, scrubber()).map_err(bad_cassette)?)),
        (None, None) => Tape::Off,
    })
}

/// A cassette that cannot be recorded to or replayed is a configuration error (exit 3), the
/// cassette's error kept beneath.
fn bad_cassette(e: CassetteError) -> AppError {
    AppError::from_source(ExitCode::Config, e)
}

/// How this run ranks skills for a request: by their words, fused with embeddings of the model
/// [`Config::embed_model`] names from the chat's own endpoint and key.
pub(super) fn retriever(config: &Config) -> Retriever {
    let settings = config.embed_model().map(|model| EmbeddingsSettings {
        api_key: config.api_key.as_ref().map(|k| k.value.clone()),
        connect_timeout: config.connect_timeout,
        ..EmbeddingsSettings::new(config.base_url.clone(), model)
    });
    Retriever::new(settings, config.cache.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cassette_that_cannot_be_read_exits_3_with_its_error_beneath() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone.jsonl");
        let err = bad_cassette(Player::open(&missing, Scrubber::default()).err().unwrap());
        assert_eq!(err.code, ExitCode::Config);
        assert!(err.message.starts_with("cannot read the cassette "), "{}", err.message);
        let kept = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<CassetteError>());
        assert!(
            matches!(kept, Some(CassetteError::Read { path, .. }) if *path == missing),
            "{kept:?}"
        );
        // The message already says why (the io error's text), so nothing is repeated beneath it.
        assert!(err.causes().is_empty(), "{:?}", err.causes());
    }
}
