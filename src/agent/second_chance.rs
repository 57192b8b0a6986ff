//! One second chance per turn for an answer that rests on nothing (docs/configuration.md "Small
//! local models"). Small models activate a skill and then answer at once, copy its example output,
//! imitate a tool's result, or parrot the refusal of a command they ran before activating
//! anything. Such a reply is not shown as the answer: the model is told what was wrong and asked
//! once more to run the command (a real small model did so in the bench); a second unbacked
//! answer is shown and marked as before. Only under the compact prompt, the one small models
//! get: a capable model that answers from a skill's instructions alone usually means to, and an
//! extra request would only cost it time and tokens (its answer is still marked).

use super::grounding::{self, Unbacked};
use super::prompt::PromptMode;
use super::turn::Agent;
use crate::llm::types::ChatMessage;
use crate::output::Event;

/// The wording the model gets, in sections (`## name` then its text).
const PROMPT: &str = include_str!("../../prompts/second_chance.md");

/// The text of the section `name` of [`PROMPT`] (empty if absent, which a unit test rules out).
fn section(name: &str) -> &'static str {
    PROMPT
        .split("## ")
        .find_map(|s| s.strip_prefix(name).and_then(|rest| rest.strip_prefix('\n')))
        .map(str::trim)
        .unwrap_or_default()
}

/// Why the model gets a second chance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Retry {
    /// Its answer is unbacked, as the grounding judge says.
    Unbacked(Unbacked),
    /// It proposed a command with no skill active (refused), ran nothing, and answered;
    /// `candidates` are the skills whose words best match the request (best first).
    NoSkillActive { candidates: Vec<String> },
    /// It answered about a file of the working folder that nothing read or ran on.
    UnreadFile { file: String, candidates: Vec<String> },
    /// A command ran and succeeded, and the answer uses none of what it printed (`quote`, its
    /// first lines). Not a fake, so a second such answer is shown unmarked.
    OutputUnused { quote: String },
    /// The active skill's last command failed (or succeeded, and the answer carries none of its
    /// figures), and the answer tells the user to run one of the skill's commands (`command`)
    /// instead of running it: the 1.5B model, its summary refused before the log was parsed,
    /// explained the two steps to the user. Not a fake either.
    ToldUserToRun { command: String },
}

impl Retry {
    /// One line for the user and `--json`: what was wrong with the reply set aside.
    pub(super) fn reason(&self) -> String {
        match self {
            Retry::Unbacked(u) => u.reason(),
            Retry::UnreadFile { file, .. } => Unbacked::UnreadFile { file: file.clone() }.reason(),
            Retry::NoSkillActive { .. } => {
                "the model answered after its command was refused for want of an active skill, with nothing run".into()
            }
            Retry::OutputUnused { quote } => {
                format!("the answer uses nothing the command printed ({quote:?})")
            }
            Retry::ToldUserToRun { command } => {
                format!("the answer tells the user to run {command:?} instead of running it")
            }
        }
    }

    /// What the model is told; `fitted` names the skill the agent activated for it.
    pub(super) fn prompt(&self, fitted: Option<&str>) -> String {
        let (why, todo) = match self {
            Retry::Unbacked(Unbacked::NothingRan { skill }) => {
                (section("nothing_ran").replace("{{skill}}", skill), "todo_run")
            }
            Retry::Unbacked(Unbacked::CopiedExample { skill, line }) => (
                section("copied_example")
                    .replace("{{skill}}", skill)
                    .replace("{{line}}", &format!("{line:?}")),
                "todo_run",
            ),
            Retry::Unbacked(Unbacked::ImitatedOutput { line }) => (
                section("imitated_output").replace("{{line}}", &format!("{line:?}")),
                "todo_activate",
            ),
            Retry::Unbacked(Unbacked::CallAsText { why }) => {
                (section("call_as_text").replace("{{detail}}", why), "todo_activate")
            }
            Retry::Unbacked(Unbacked::NoSkillActive) => (section("no_skill_active").to_string(), "todo_activate"),
            Retry::Unbacked(Unbacked::AllFailed { figure }) => (
                section("all_failed").replace("{{figure}}", &format!("{figure:?}")),
                "todo_run",
            ),
            // No skill's words match the request at all: most likely none is needed (the 1.5B
            // model ran `echo 2+2` for "What is 2+2?", then parroted the refusal).
            Retry::NoSkillActive { candidates } if candidates.is_empty() => {
                (section("no_skill_active").to_string(), "todo_direct")
            }
            Retry::NoSkillActive { candidates } => (
                with_candidates(section("no_skill_active").to_string(), candidates, fitted),
                "todo_activate",
            ),
            Retry::Unbacked(Unbacked::UnreadFile { file }) => {
                (section("unread_file").replace("{{file}}", file), "todo_activate")
            }
            Retry::OutputUnused { quote } => (
                section("output_unused").replace("{{quote}}", &format!("{quote:?}")),
                "todo_answer",
            ),
            Retry::ToldUserToRun { command } => (
                section("told_user").replace("{{command}}", &format!("{command:?}")),
                "todo_run",
            ),
            Retry::UnreadFile { file, candidates } => (
                with_candidates(section("unread_file").replace("{{file}}", file), candidates, fitted),
                "todo_activate",
            ),
        };
        let todo = match fitted {
            // The candidates are moot: the agent chose, the model runs.
            Some(skill) => section("fitted").replace("{{skill}}", skill),
            None => section(todo).to_string(),
        };
        section("template").replace("{{why}}", &why).replace("{{todo}}", &todo)
    }

    /// What the model is asked to do next: the step a guided call can hold it to.
    pub(super) fn step(&self) -> Step {
        match self {
            Retry::OutputUnused { .. } => Step::Answer,
            Retry::NoSkillActive { candidates } if candidates.is_empty() => Step::Direct,
            Retry::Unbacked(
                Unbacked::NothingRan { .. } | Unbacked::CopiedExample { .. } | Unbacked::AllFailed { .. },
            )
            | Retry::ToldUserToRun { .. } => Step::Run,
            _ => Step::Activate,
        }
    }

    /// Whether the model asked for a tool with no skill active: the case where the agent picks a
    /// clearly fitting skill for it.
    fn wants_a_skill(&self) -> bool {
        matches!(self, Retry::NoSkillActive { .. } | Retry::UnreadFile { .. })
    }
}

/// What a second chance asks the model to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Run the active skill's command.
    Run,
    /// Activate the skill that fits (or run, once one is active).
    Activate,
    /// Answer from the output of the command that ran.
    Answer,
    /// Answer without a skill.
    Direct,
    /// Answer from what ran, or run the skill's next command (after an empty reply).
    RunOrAnswer,
}

/// `why` followed by the skills that fit the request best, when there are any and the agent did
/// not activate one itself.
fn with_candidates(mut why: String, candidates: &[String], fitted: Option<&str>) -> String {
    if !candidates.is_empty() && fitted.is_none() {
        why.push(' ');
        why.push_str(&section("candidates").replace("{{skills}}", &candidates.join(", ")));
    }
    why
}

/// Most skills a second chance names as fitting the request.
const MAX_CANDIDATES: usize = 2;
/// Most skills a guided activation may choose among.
const MAX_GUIDED_CANDIDATES: usize = 3;

impl Agent {
    /// Up to `n` skills whose words match the turn's request best, best first.
    fn best_matches(&self, n: usize) -> Vec<String> {
        let Some(request) = self.conversation.user_turns().last().map(|r| r.to_string()) else {
            return Vec::new();
        };
        let skills = self.skills();
        let scores = skills.index().score(&request).scores;
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().enumerate().filter(|(_, s)| *s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked
            .into_iter()
            .take(n)
            .filter_map(|(i, _)| skills.all().get(i).map(|s| s.name.clone()))
            .collect()
    }

    /// Whether a reply coming now could be an answer that gets a second chance, so it is held
    /// back from the screen until it is judged: a skill was activated or a command refused for
    /// want of one, nothing ran yet, and the turn's second chance is unused.
    pub(super) fn answer_in_doubt(&self) -> bool {
        let nothing_ran_yet = self.trace.ran == 0
            && (!self.trace.activated.is_empty() || self.trace.unactivated > 0 || !self.trace.named_files.is_empty());
        // After a command that ran (and left its output), the answer may ignore that output.
        let output_to_use = self.trace.last_output.is_some();
        // After a reply was set aside and a command ran, the next may repeat it (a stuck model).
        let may_repeat = self.trace.ran > 0 && !self.trace.set_aside.is_empty();
        self.prompt_mode == PromptMode::Compact
            && ((!self.second_chance_used && (nothing_ran_yet || output_to_use)) || may_repeat)
    }

    /// When `answer` (a reply without calls) rests on nothing and the turn's second chance is
    /// unused: the reply and the model's instruction go into the conversation, the user is told,
    /// and `true` means ask the model again. When the model wanted a tool with no skill active
    /// (a command refused for want of one, an answer about a file nothing read) and one skill
    /// clearly fits the request, the agent activates it, as it would have before the first
    /// request had the request's words alone been enough ([`Self::clear_fit`]).
    /// With guided calls on, the request that follows is held to the call it asks for
    /// (`offered`: the skills `activate_skill` offers).
    pub(super) async fn second_chance(&mut self, answer: &str, offered: &[String]) -> bool {
        if self.prompt_mode != PromptMode::Compact {
            return false;
        }
        if self.second_chance_used {
            return self.repeat_chance(answer);
        }
        let judged = self.unbacked.clone().or_else(|| {
            let skills = self.skills();
            grounding::judge(answer, &self.trace, |name| skills.get(name))
        });
        let retry = match judged {
            Some(Unbacked::NoSkillActive) => Retry::NoSkillActive {
                candidates: self.best_matches(MAX_CANDIDATES),
            },
            Some(Unbacked::UnreadFile { file }) => Retry::UnreadFile {
                file,
                candidates: self.best_matches(MAX_CANDIDATES),
            },
            Some(unbacked) => Retry::Unbacked(unbacked),
            None => match self
                .trace
                .last_output
                .as_deref()
                .and_then(|o| grounding::ignored_output(answer, o))
            {
                Some(quote) => Retry::OutputUnused { quote },
                None => match self.told_user_to_run(answer) {
                    Some(command) => Retry::ToldUserToRun { command },
                    None => return false,
                },
            },
        };
        self.second_chance_used = true;
        // A call written as text is judged again on the next reply.
        self.unbacked = None;
        self.emit(Event::AnswerRetried { reason: retry.reason() });
        let fitted = match self.clear_fit().filter(|_| retry.wants_a_skill()) {
            // The reply set aside stays out: the activation answers the call it should have made.
            Some(name) => self.activate_by_hand(&name).await.ok().map(|_| name),
            None => None,
        };
        if fitted.is_none() {
            self.conversation
                .remember(ChatMessage::assistant(Some(answer.to_string()), Vec::new()));
        }
        self.trace.set_aside.push(answer.trim().to_string());
        self.conversation
            .remember(ChatMessage::agent_note(retry.prompt(fitted.as_deref())));
        let step = if fitted.is_some() { Step::Run } else { retry.step() };
        // The skills an activation may be guided to: those whose words match the request best,
        // among the offered ones.
        let candidates: Vec<String> = self
            .best_matches(MAX_GUIDED_CANDIDATES)
            .into_iter()
            .filter(|c| offered.is_empty() || offered.contains(c))
            .collect();
        self.guide_next(step, &candidates);
        true
    }

    /// When the model said nothing after a command ran and the turn has not asked it again for
    /// being stuck yet (under the compact prompt): it is asked once more, for the answer or the
    /// skill's next command. The bench's 1.5B model went silent after the first of the database
    /// skill's two steps (its schema), which left the schema as the answer to "how many orders".
    pub(super) fn silence_chance(&mut self) -> bool {
        self.stuck_chance(
            "the model's reply was empty after its command ran",
            "Your last reply was empty.",
        )
    }

    /// When `answer` repeats a reply set aside earlier in the turn, after a command ran: the
    /// model is stuck as surely as a silent one (the 1.5B model, told to run the log skill's
    /// first step, ran it and then wrote again the explanation set aside before).
    fn repeat_chance(&mut self, answer: &str) -> bool {
        if !self.trace.repeats_set_aside(answer) {
            return false;
        }
        self.stuck_chance(
            "the reply repeats one set aside before, after a command ran",
            "Your last reply repeats one that was set aside before.",
        )
    }

    /// Ask a stuck model once more a turn, when a command ran: for the answer from its output, or
    /// the skill's next command (a guided request allows either).
    fn stuck_chance(&mut self, reason: &str, what: &str) -> bool {
        if self.prompt_mode != PromptMode::Compact || self.silence_retried || self.trace.ran == 0 {
            return false;
        }
        self.silence_retried = true;
        self.emit(Event::AnswerRetried { reason: reason.into() });
        self.conversation
            .remember(ChatMessage::agent_note(section("stuck").replace("{{what}}", what)));
        self.guide_next(Step::RunOrAnswer, &[]);
        true
    }

    /// The command of the active skill `answer` tells the user to run, after the skill's last
    /// command failed, or succeeded and the answer carries none of the figures it printed (the
    /// 1.5B model, its divisor count printed, told the user which command would show it).
    fn told_user_to_run(&self, answer: &str) -> Option<String> {
        let output = self.trace.last_output.as_deref()?;
        if !self.trace.last_failed && grounding::uses_figures(answer, output, &self.trace.said) {
            return None;
        }
        let starts = self.starts_of(self.conversation.current()?);
        crate::skills::commands::shown_command(answer, &starts).map(str::to_string)
    }

    /// The one skill whose words clearly beat every other's for the turn's request, unless its
    /// instructions are already in the conversation ([`Agent::clear_winner_for`]). No minimum
    /// coverage, unlike pre-activation: here the model has already shown the request needs a
    /// tool, which is what the coverage guards against for plain chat.
    fn clear_fit(&self) -> Option<String> {
        let request = self.conversation.user_turns().last().map(|r| r.to_string())?;
        self.clear_winner_for(&request, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_is_there_and_filled() {
        for name in [
            "template",
            "candidates",
            "nothing_ran",
            "copied_example",
            "imitated_output",
            "call_as_text",
            "no_skill_active",
            "unread_file",
            "todo_run",
            "todo_activate",
            "fitted",
            "output_unused",
            "todo_answer",
            "todo_direct",
            "stuck",
            "told_user",
            "all_failed",
        ] {
            assert!(!section(name).is_empty(), "{name}");
        }
        let text = Retry::Unbacked(Unbacked::NothingRan { skill: "time".into() }).prompt(None);
        assert!(text.contains("skill time") && text.contains("run_command"), "{text}");
        assert!(!text.contains("{{"), "{text}");
        let text = Retry::NoSkillActive { candidates: Vec::new() }.prompt(None);
        assert!(
            text.contains("No skill") && text.contains("answer it yourself") && !text.contains("{{"),
            "{text}"
        );
        let text = Retry::NoSkillActive {
            candidates: vec!["database".into(), "report".into()],
        }
        .prompt(None);
        assert!(text.contains("database, report") && !text.contains("{{"), "{text}");
        // Once the agent activated the skill that fits, the model is told to run, not to choose.
        let text = Retry::NoSkillActive {
            candidates: vec!["database".into(), "report".into()],
        }
        .prompt(Some("database"));
        assert!(
            text.contains("skill database fits") && text.contains("run_command") && !text.contains("report"),
            "{text}"
        );
        assert!(!text.contains("activate_skill") && !text.contains("{{"), "{text}");
        let text = Retry::OutputUnused { quote: "8080".into() }.prompt(None);
        assert!(
            text.contains("\"8080\"") && text.contains("Answer") && !text.contains("{{"),
            "{text}"
        );
        let text = Retry::UnreadFile {
            file: "essay.txt".into(),
            candidates: vec!["word-count".into()],
        }
        .prompt(None);
        assert!(
            text.contains("essay.txt") && text.contains("word-count") && !text.contains("{{"),
            "{text}"
        );
    }
}
