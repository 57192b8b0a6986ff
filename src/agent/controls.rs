//! What the chat and the application may do with an agent between turns: reset the
//! conversation, switch the model or the approval policy, swap the skill set after a re-scan,
//! activate a skill by hand, and mend the conversation after a cancelled or failed turn.

use super::outcome::Refusal;
use crate::exec::approval::ApprovalPolicy;
use crate::skills::SkillSet;
use crate::skills::arguments::Arguments;

use super::outcome::ToolOutcome;
use super::prompt;
use super::turn::Agent;

/// A skill invoked by hand, and what to send the model next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invoked {
    /// The skill's name as loaded.
    pub(crate) skill: String,
    /// Its folder.
    pub(crate) dir: String,
    /// The user message of the turn that follows.
    pub(crate) request: String,
}

impl Agent {
    /// Forget the conversation; keep skills, model and settings.
    pub(crate) fn reset(&mut self) {
        self.conversation.reset();
    }

    /// The model requests go to.
    pub(crate) fn model(&self) -> &str {
        self.llm.model()
    }

    /// Send the next requests to `model`.
    pub(crate) fn set_model(&mut self, model: &str) {
        self.llm.set_model(model.to_string());
        self.conversation.record(&crate::sessions::Record::Model {
            model: model.to_string(),
        });
    }

    /// The approval policy in force.
    pub(crate) fn approval(&self) -> ApprovalPolicy {
        self.tools.approval()
    }

    /// Change the approval policy for the rest of the session.
    pub(crate) fn set_approval(&mut self, policy: ApprovalPolicy) {
        self.tools.set_approval(policy);
    }

    /// The skills the model can use.
    pub(crate) fn skills(&self) -> &SkillSet {
        &self.tools.skills
    }

    /// Over the catalog budget with an embeddings model, fetch the skills' embeddings in the
    /// background (from the cache folder, else the endpoint), so the first ranking only has to
    /// embed the request. A failure is reported by that ranking.
    pub(crate) fn prefetch_rankings(&self) {
        let retriever = self.tools.retriever();
        if self.skills().fits(self.catalog_budget) || retriever.model().is_none() {
            return;
        }
        let skills = self.skills().clone();
        tokio::spawn(async move { retriever.prefetch(&skills).await });
    }

    /// Replace the skill set (after a re-scan) and the catalog in the system prompt.
    pub(crate) fn set_skills(&mut self, skills: SkillSet) {
        self.conversation.keep_skills(|name| skills.get(name).is_some());
        self.conversation
            .set_system(prompt::system_prompt(&skills, self.catalog_budget, self.prompt_mode));
        self.tools.skills = skills;
        self.unfreeze_catalog();
        self.prefetch_rankings();
    }

    /// Leave the skills' memory to the process's exit: a run about to end would otherwise free
    /// every skill of a big library one allocation at a time (milliseconds at thousands of
    /// skills) while the user waits for the prompt. Only memory is left: a skill set holds no
    /// file, process or lock.
    pub(crate) fn leave_skills_to_exit(&mut self) {
        std::mem::forget(std::mem::take(&mut self.tools.skills));
    }

    /// Forget that the conversation holds these skills' instructions (their files changed), so
    /// activating one again sends its instructions as they are now.
    pub(crate) fn forget_skills(&mut self, names: &[String]) {
        self.conversation.keep_skills(|name| !names.iter().any(|n| n == name));
    }

    /// The user's messages so far, oldest first.
    pub(crate) fn user_turns(&self) -> Vec<&str> {
        self.conversation.user_turns()
    }

    /// Both sides of the conversation so far, for `/history`.
    pub(crate) fn history(&self) -> Vec<crate::output::chat::HistoryEntry> {
        self.conversation.history()
    }

    /// Invoke a skill by hand with arguments (`/NAME ARGS`, `--skill NAME ARGS`; a `context: fork`
    /// skill runs as its sub-conversation, `agent/fork.rs`): activate it with
    /// its placeholders replaced, recorded as if the model had called `activate_skill`, and return
    /// the user message to send: the arguments themselves when the body has no placeholder, else
    /// a short request to follow the instructions (which now hold them).
    pub(crate) async fn invoke_by_hand(&mut self, name: &str, args: &Arguments) -> Result<Invoked, Refusal> {
        if let Some(forked) = self.invoke_fork(name, args).await {
            return forked;
        }
        let (outcome, placeholders) = self.tools.invoke(&self.conversation, name, args).await;
        let (skill, dir) = self.record_by_hand(&outcome)?;
        let request = if !placeholders && !args.is_empty() {
            args.raw.clone()
        } else {
            prompt::invoked(&skill, placeholders)
        };
        Ok(Invoked { skill, dir, request })
    }

    /// Activate a skill on the user's say-so, recorded as if the model had called
    /// `activate_skill`, so it is never injected twice. Returns the skill's folder, or why not.
    pub(crate) async fn activate_by_hand(&mut self, name: &str) -> Result<String, Refusal> {
        let outcome = self.tools.activate_now(&self.conversation, name).await;
        self.record_by_hand(&outcome).map(|(_, dir)| dir)
    }

    /// Put an activation made on the user's say-so into the conversation, as if the model had
    /// called `activate_skill`; returns the skill's name and folder, or why it was not activated.
    fn record_by_hand(&mut self, outcome: &ToolOutcome) -> Result<(String, String), Refusal> {
        let ToolOutcome::Ok {
            activated: Some(activation),
            ..
        } = outcome
        else {
            return Err(outcome.message().to_string());
        };
        let skill = activation.skill.clone();
        let dir = self
            .skills()
            .get(&skill)
            .map(|s| s.dir.display().to_string())
            .unwrap_or_default();
        self.conversation.activated_by_hand(&skill, outcome);
        // The turn's answer is judged against it like an activation the model made.
        self.trace.activated.push(skill.clone());
        Ok((skill, dir))
    }

    /// After a turn was cancelled: answer its open tool calls and mark the answer as interrupted
    /// (see [`super::conversation::Conversation::interrupted`]).
    pub(crate) fn interrupted(&mut self) {
        self.count_abandoned_call();
        self.conversation.interrupted();
        // What the cancelled turn activated and ran is not what the next turn's answer rests on.
        self.reset_trace();
    }

    /// After a failed turn, answer tool calls that got no result so the conversation stays valid
    /// for the next request.
    pub(crate) fn close_open_tool_calls(&mut self, reason: &str) {
        self.conversation.close_open_tool_calls(reason);
    }
}
