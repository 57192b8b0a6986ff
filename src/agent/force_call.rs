//! A call the model must make (docs/configuration.md "Small local models"). Under the compact
//! prompt, once a skill with commands is active and nothing has run, the next request says
//! `tool_choice: "required"`: a server that honours it (llama.cpp constrains the reply to a call
//! by grammar) cannot let a small model describe the command, invent its output or copy the
//! skill's example instead of running it. The call it makes still goes through the same approval
//! and sandbox as any other. At most [`MAX_FORCED`] requests a turn, so a model that only keeps
//! activating skills is let answer in the end (and its answer judged as before); never after a
//! command ran or was denied, so a refusal is not met with the same call again.

use super::grounding;
use super::prompt::PromptMode;
use super::turn::Agent;
use crate::llm::types::ToolChoice;

/// Requests of one turn that may require a call.
pub(super) const MAX_FORCED: u32 = 2;

impl Agent {
    /// What the next request says of tool calls (see the module's doc).
    pub(super) fn tool_choice(&self) -> ToolChoice {
        let Some(current) = self.conversation.current() else {
            return ToolChoice::Auto;
        };
        let due = self.prompt_mode == PromptMode::Compact
            && self.forced_calls < MAX_FORCED
            && self.trace.ran == 0
            && self.commands_denied == 0
            && self.trace.activated.iter().any(|a| a == current)
            && self.skills().get(current).is_some_and(grounding::runs_commands);
        if due { ToolChoice::Required } else { ToolChoice::Auto }
    }
}
