//! Routing only: which skill the model would activate for a request, without running anything.

use crate::llm::{ChatMessage, LlmError};

use super::prompt;
use super::turn::Agent;

/// What the model did with a request on its first response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// It called `activate_skill` with this name (first such call).
    Skill(String),
    /// It answered, or called another tool, without activating a skill.
    None,
}

impl Agent {
    /// Send `request` in a fresh conversation and report the skill the model activates first.
    pub async fn route(&mut self, request: &str) -> Result<Route, LlmError> {
        let catalog = self.skills().render_within(self.catalog_budget, request);
        let messages = [
            ChatMessage::system(prompt::system_prompt_with(self.skills(), &catalog)),
            ChatMessage::user(self.redactor.redact(request).into_owned()),
        ];
        let tools = prompt::tools(self.skills(), catalog.omitted > 0);
        let sent = super::turn::request_bytes(&messages, &tools);
        let reply = self.llm.complete(&messages, &tools, &mut |_| {}).await?;
        self.count_call(Some(&reply), sent);
        let activated = reply
            .tool_calls
            .iter()
            .find(|c| c.function.name == "activate_skill")
            .and_then(
                |c| match super::tools::decode_call(&c.function.name, &c.function.arguments) {
                    Ok(super::tools::ToolRequest::Activate { name }) => Some(name),
                    _ => None,
                },
            );
        Ok(activated.map_or(Route::None, Route::Skill))
    }
}
