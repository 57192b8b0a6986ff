//! The settings without a flag and the exit codes, as one table each: the end of `--help` and the
//! ENVIRONMENT and EXIT STATUS sections of the manual page are both made from them.

/// Where a setting without a flag comes from, first match wins.
pub(crate) const SETTINGS_SOURCES: &str = "Settings without a flag come from the environment, then a trusted folder's .env, then \
~/.config/agent/.env ($XDG_CONFIG_HOME/agent/.env), one NAME=value a line.";

/// Every variable a person sets, with what it does.
pub(crate) const ENVIRONMENT: [(&str, &str); 33] = [
    (
        "AGENT_API_KEY, OPENAI_API_KEY",
        "the API key (AGENT_ wins), sent to whatever base URL is set; not needed for a local server",
    ),
    (
        "ANTHROPIC_API_KEY",
        "Anthropic's key: set alone (no OpenAI key), it chooses Anthropic's Messages API",
    ),
    (
        "AGENT_PROVIDER",
        "openai (chat completions, local servers) or anthropic (the Messages API); default: by the keys set",
    ),
    (
        "AGENT_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL",
        "the endpoint; default https://api.openai.com/v1 (Anthropic: https://api.anthropic.com), or with \
         nothing set and no key a server answering on 127.0.0.1 (Ollama 11434, llama.cpp 8080, LM Studio 1234, vLLM 8000)",
    ),
    (
        "AGENT_MODEL",
        "the model; default gpt-4.1-mini at OpenAI, claude-sonnet-5-5 at Anthropic, else the one model the server lists",
    ),
    (
        "AGENT_MAX_TOKENS, AGENT_PRICES",
        "longest answer of a Messages API request (16384); prices per million tokens, 'model=in,out[,cache_write,cache_read];...'",
    ),
    ("AGENT_APPROVE", "ask, auto, yes or no (as --approve)"),
    ("AGENT_TIMEOUT", "seconds before a command is killed (60)"),
    ("AGENT_MAX_STEPS", "tool steps in one turn (10)"),
    (
        "AGENT_MCP_TIMEOUT, AGENT_MCP_TOOLS_BUDGET",
        "seconds an MCP tool call may take, and bytes of MCP tool schemas per request",
    ),
    ("AGENT_BUNDLED_SKILLS", "0 leaves out the skills built into the binary"),
    ("AGENT_SANDBOX", "on, strict or off (as --sandbox)"),
    (
        "AGENT_ALLOW_WRITE",
        "extra writable paths, ':'-separated (as --allow-write)",
    ),
    (
        "AGENT_ALLOW_COMMANDS, AGENT_ALLOW_NETWORK",
        "yours only (never a project's .env): commands auto runs unasked, as 'Bash(pdftotext:*), Bash(gh:*)'; 1 lets \
         contained commands use the network",
    ),
    (
        "AGENT_SKILLS_PATH",
        "extra skill roots, ':'-separated, searched after --skills-dir",
    ),
    (
        "AGENT_OTHER_AGENTS",
        "other agents' skill folders read: claude,codex,gemini,opencode (default) or none",
    ),
    ("AGENT_STREAM", "0 asks for whole responses (as --no-stream)"),
    (
        "AGENT_TOOL_CHECK",
        "0 does not ask a local server whether its model can call tools",
    ),
    ("AGENT_RETRIES", "retries of a failed request (2)"),
    (
        "AGENT_CONNECT_TIMEOUT, AGENT_IDLE_TIMEOUT",
        "seconds to connect (10), and of silence (120)",
    ),
    ("AGENT_SESSIONS", "0 stores no sessions (as --no-session)"),
    (
        "AGENT_HOOKS, AGENT_HOOKS_FAIL",
        "yours only: 0 runs no hooks (as --no-hooks); closed makes a failing hook block (docs/hooks.md)",
    ),
    (
        "AGENT_CONTEXT_WINDOW, AGENT_COMPACT_AT",
        "the model's window in tokens, and when history is compacted (80%)",
    ),
    (
        "AGENT_HISTORY_BUDGET",
        "bytes of conversation before old outputs are shortened",
    ),
    ("AGENT_CATALOG_BUDGET", "bytes of skill catalog per request (8192)"),
    ("AGENT_PROMPT", "full, compact (for small local models), or auto"),
    (
        "AGENT_TEMPERATURE",
        "sampling temperature 0-2; default: 0 with the compact prompt",
    ),
    (
        "AGENT_GUIDED_CALLS",
        "hold a small model to the tool call it failed to write: auto (llama.cpp), on, off",
    ),
    (
        "AGENT_EMBED_MODEL",
        "embeddings model for ranking skills by meaning, or off",
    ),
    (
        "AGENT_PREACTIVATE, AGENT_CACHE",
        "1 activates a clear winner first; 0 keeps no skill cache",
    ),
    ("AGENT_EDIT_MODE", "emacs or vi key bindings in the chat"),
    (
        "AGENT_WATCH",
        "how the chat notices skill edits: auto (events), poll, off",
    ),
    (
        "NO_COLOR, COLUMNS, RUST_LOG, XDG_*",
        "no colours; table width; log filter (as -v); where state, config and cache live",
    ),
];

/// Every exit code and what it means (docs/design.md#exit-codes).
pub(crate) const EXIT_STATUS: [(&str, &str); 11] = [
    ("0", "answered"),
    (
        "1",
        "internal error, or a failed `skills check`, `skills eval`, `skills verify` or `sandbox status`, or an \
         outdated skill (`skills outdated`)",
    ),
    ("2", "usage error"),
    ("3", "configuration error (no key, bad URL, unreadable skill folder)"),
    ("4", "LLM error after retries"),
    ("5", "stopped at the tool-step limit"),
    ("6", "answered, but a proposed command was denied"),
    ("7", "audit findings (or an install or trust refused over high ones)"),
    (
        "8",
        "a critical audit finding (or an install or trust refused over one, or over a required signature)",
    ),
    (
        "9",
        "with --require-tool: answered, but the answer rests on nothing that ran (without the flag: 0 and \
         a warning)",
    ),
    ("130", "interrupted"),
];

/// The end of `--help`: the settings without a flag, and the exit codes.
pub(crate) fn after_long_help() -> String {
    let mut text = format!("{SETTINGS_SOURCES}\n");
    for (name, meaning) in ENVIRONMENT {
        text.push_str(&format!("  {name}: {meaning}\n"));
    }
    text.push_str("\nExit status:\n");
    for (code, meaning) in EXIT_STATUS {
        text.push_str(&format!("  {code:>3}  {meaning}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_code_of_the_program_is_listed() {
        use crate::exit::ExitCode;
        // The match has no wildcard: a new code does not compile until it is listed here too.
        let next = |code: ExitCode| match code {
            ExitCode::Answered => Some(ExitCode::Internal),
            ExitCode::Internal => Some(ExitCode::Usage),
            ExitCode::Usage => Some(ExitCode::Config),
            ExitCode::Config => Some(ExitCode::Llm),
            ExitCode::Llm => Some(ExitCode::StepLimit),
            ExitCode::StepLimit => Some(ExitCode::Denied),
            ExitCode::Denied => Some(ExitCode::AuditFindings),
            ExitCode::AuditFindings => Some(ExitCode::AuditCritical),
            ExitCode::AuditCritical => Some(ExitCode::Unverified),
            ExitCode::Unverified => Some(ExitCode::Interrupted),
            ExitCode::Interrupted => None,
        };
        let mut code = Some(ExitCode::Answered);
        let mut seen = 0;
        while let Some(c) = code {
            let number = c.code().to_string();
            assert!(EXIT_STATUS.iter().any(|(n, _)| *n == number), "{number}");
            seen += 1;
            code = next(c);
        }
        assert_eq!(seen, EXIT_STATUS.len(), "no code is listed twice or made up");
    }
}
