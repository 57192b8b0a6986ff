//! `activate_skill`: hand the model a skill's instructions, its folder and its files, once.

use super::ToolRunner;
use crate::agent::conversation::Conversation;
use crate::agent::outcome::{Activation, ToolOutcome};
use crate::agent::prompt;
use crate::output::Event;
use crate::sessions::freshness::body_hash;
use crate::skills::Skill;
use crate::skills::arguments::{Arguments, claude_skill_dir, substitute};
use crate::skills::catalog::model_line;

/// Most files listed on activation.
const MAX_LISTED_FILES: usize = 100;

/// What activating a skill reads from its folder.
struct SkillFiles {
    body: std::io::Result<String>,
    files: Vec<String>,
    /// The hash of the body before its dynamic context was filled in (what a resumed session
    /// compares with the file), once filled.
    hash: Option<String>,
    /// Whether `skill_selected` was already said (before the dynamic context's commands).
    announced: bool,
}

impl SkillFiles {
    /// Blocking: the `SKILL.md` body (a checked, capped read) and the bundled file list.
    fn read(skill: &Skill) -> Self {
        Self {
            body: skill
                .read_body()
                .map(|body| claude_skill_dir(body, &skill.dir.display().to_string())),
            files: skill.bundled_files(MAX_LISTED_FILES),
            hash: None,
            announced: false,
        }
    }

    /// The body with its dynamic context left unrun, saying `why`.
    fn unfilled(mut self, why: &str) -> Self {
        if let Ok(body) = &self.body {
            self.hash = Some(body_hash(body));
            self.body = Ok(super::dynamic::leave_dynamic(body, why));
        }
        self
    }
}

impl ToolRunner {
    /// Invoke by hand with arguments (`/NAME ARGS`, `--skill NAME ARGS`): the skill's
    /// instructions with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and declared names replaced, given
    /// anew even when the skill is already active (the arguments differ). Also returns whether
    /// the body held any placeholder (else the arguments are the user's request).
    pub(crate) async fn invoke(
        &self,
        conversation: &Conversation,
        name: &str,
        args: &Arguments,
    ) -> (ToolOutcome, bool) {
        let Some(skill) = self.skills.get(name).cloned() else {
            return (self.unknown_skill(name), false);
        };
        let mut files = SkillFiles::read(&skill);
        let mut placeholders = false;
        if let Ok(body) = &files.body {
            let substituted = substitute(body, args, &skill.invocation.arguments);
            placeholders = substituted.placeholders;
            files.body = Ok(substituted.text);
        }
        // With placeholders the substituted body is new to the conversation even if the skill is held.
        if placeholders || !conversation.holds(&skill.name) {
            self.fill_files(&skill, &mut files).await;
        }
        (
            self.activate_with(conversation, name, Some(files), placeholders),
            placeholders,
        )
    }

    /// Activate again where nothing is awaited (instructions sent again on resuming or compacting): reads
    /// the skill's files on this thread and leaves its dynamic context unrun, saying so.
    pub(crate) fn activate(&self, conversation: &Conversation, name: &str) -> ToolOutcome {
        let files = self.not_yet_held(conversation, name).map(|skill| {
            SkillFiles::read(&skill)
                .unfilled("instructions sent again (a resumed or compacted session) do not run their commands again")
        });
        self.activate_with(conversation, name, files, false)
    }

    /// Activate by hand (preactivation, `/skill NAME`): its dynamic context runs.
    pub(crate) async fn activate_now(&self, conversation: &Conversation, name: &str) -> ToolOutcome {
        let mut files = self
            .not_yet_held(conversation, name)
            .map(|skill| SkillFiles::read(&skill));
        if let (Some(files), Some(skill)) = (files.as_mut(), self.skills.get(name).cloned()) {
            self.fill_files(&skill, files).await;
        }
        self.activate_with(conversation, name, files, false)
    }

    /// Run the dynamic context of `files`' body as `skill`'s commands and put their output in
    /// place; `skill_selected` is said first, so the commands' events follow it.
    async fn fill_files(&self, skill: &Skill, files: &mut SkillFiles) {
        let Ok(body) = &files.body else {
            return;
        };
        files.hash = Some(body_hash(body));
        if crate::skills::dynamic::markers(body).is_empty() {
            return;
        }
        self.emit(Event::SkillSelected {
            skill: skill.name.clone(),
            dir: skill.dir.display().to_string(),
        });
        files.announced = true;
        files.body = Ok(self.fill_dynamic(skill, body).await);
    }

    /// Activate for the model: the skill's files are read off the async threads. A skill only a
    /// person may invoke (`disable-model-invocation`) is refused unless a person already did.
    pub(super) async fn activate_off_thread(&self, conversation: &Conversation, name: &str) -> ToolOutcome {
        if let Some(skill) = self.skills.get(name)
            && !skill.invocation.model
            && !conversation.holds(&skill.name)
        {
            return ToolOutcome::refused(format!(
                "the skill {} is invoked only by the user, not by you; if it fits, tell the user they can run /{} themselves",
                model_line(&skill.name),
                model_line(&skill.name)
            ));
        }
        let mut files = match self.not_yet_held(conversation, name) {
            Some(skill) => tokio::task::spawn_blocking(move || SkillFiles::read(&skill)).await.ok(),
            None => None,
        };
        if let (Some(files), Some(skill)) = (files.as_mut(), self.skills.get(name).cloned()) {
            self.fill_files(&skill, files).await;
        }
        self.activate_with(conversation, name, files, false)
    }

    /// The skill called `name`, when activating it must read its files.
    fn not_yet_held(&self, conversation: &Conversation, name: &str) -> Option<Skill> {
        self.skills.get(name).filter(|s| !conversation.holds(&s.name)).cloned()
    }

    /// `anew`: give the instructions even when the conversation holds them already.
    fn activate_with(
        &self,
        conversation: &Conversation,
        name: &str,
        files: Option<SkillFiles>,
        anew: bool,
    ) -> ToolOutcome {
        let Some(skill) = self.skills.get(name).cloned() else {
            return self.unknown_skill(name);
        };
        let dir = skill.dir.display().to_string();
        if conversation.holds(&skill.name) && !anew {
            return ToolOutcome::Ok {
                text: format!(
                    "Skill {} is already active; its instructions are above. Its folder: {dir}; commands run in {}. \
                     Do not activate it again: run the command its instructions give with run_command, or answer \
                     from the output you already have.",
                    model_line(&skill.name),
                    self.settings.workdir.display()
                ),
                activated: Some(Activation {
                    skill: skill.name,
                    dir,
                    hash: None,
                }),
            };
        }
        let SkillFiles {
            body,
            mut files,
            hash,
            announced,
        } = files.unwrap_or_else(|| SkillFiles::read(&skill));
        let body = match body {
            Ok(b) => b,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", skill.skill_file.display())),
        };
        if !announced {
            self.emit(Event::SkillSelected {
                skill: skill.name.clone(),
                dir: dir.clone(),
            });
        }
        if files.len() == MAX_LISTED_FILES {
            files.push("… (more not listed)".into());
        }
        let files = if files.is_empty() {
            "(none besides SKILL.md)".to_string()
        } else {
            files.join(", ")
        };
        let workdir = self.settings.workdir.display().to_string();
        let mut text = prompt::activation_in(self.settings.prompt_mode, &skill.name, &dir, &workdir, &files, &body);
        // Declared needs are checked now, not halfway through the skill's first command.
        if let Some(why) = self.unmet(&skill) {
            self.emit(Event::Warning { message: why.clone() });
            text.push_str("\n\n");
            text.push_str(&prompt::unmet_needs(&why));
        }
        ToolOutcome::Ok {
            text,
            activated: Some(Activation {
                skill: skill.name,
                dir,
                hash: Some(hash.unwrap_or_else(|| body_hash(&body))),
            }),
        }
    }
}
