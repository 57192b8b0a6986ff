//! The turn loop's side of weak models (docs/configuration.md "Small local models"): a reply that may be a call
//! written as text is held back from the screen until it is whole, then read ([`text_calls`]);
//! calls found run as native ones, through the same approval path; an answer is judged against
//! what ran ([`grounding`]) and marked when nothing backs it.

use serde_json::Value;

use super::grounding::{self, TurnTrace, Unbacked};
use super::outcome::ToolOutcome;
use super::prompt::PromptMode;
use super::text_calls::{self, Offer, Reading};
use super::tools::files::is_file_tool;
use super::turn::Agent;
use crate::llm::ToolCall;
use crate::llm::types::FunctionCall;
use crate::mcp::hub::PREFIX;
use crate::output::Event;

/// Streaming of one reply: passed on at once, or held while it may still be a call as text.
#[derive(Debug)]
pub(super) enum Hold {
    /// Nothing but white space yet.
    Undecided(String),
    /// Prose: every piece goes out as it comes.
    Streaming,
    /// It began like a call: kept until the reply is whole.
    Holding(String),
}

impl Default for Hold {
    fn default() -> Self {
        Hold::Undecided(String::new())
    }
}

impl Hold {
    /// What of `piece` may be shown now.
    pub(super) fn pass(&mut self, piece: String) -> Option<String> {
        match self {
            Hold::Streaming => Some(piece),
            Hold::Holding(held) => {
                held.push_str(&piece);
                None
            }
            Hold::Undecided(seen) => {
                seen.push_str(&piece);
                if seen.trim_start().is_empty() || text_calls::undecided(seen) {
                    return None;
                }
                let seen = std::mem::take(seen);
                if text_calls::may_be_call(&seen) {
                    *self = Hold::Holding(seen);
                    None
                } else {
                    *self = Hold::Streaming;
                    Some(seen)
                }
            }
        }
    }

    /// The text held back, if any.
    pub(super) fn into_held(self) -> Option<String> {
        match self {
            Hold::Holding(text) | Hold::Undecided(text) if !text.is_empty() => Some(text),
            _ => None,
        }
    }
}

impl Agent {
    /// Calls written as `text` (the whole reply of a response without native calls), as tool
    /// calls to run, each announced; `None` when the text is an answer (marked as unbacked when
    /// it is an unusable call).
    pub(super) fn text_calls(&mut self, text: &str, tools: &Value) -> Option<Vec<ToolCall>> {
        let offered: Vec<String> = tools
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let skills: Vec<String> = self.skills().names().iter().map(|n| n.to_string()).collect();
        let offer = Offer {
            tools: &offered,
            skills: &skills,
        };
        let reading = match text_calls::read(text, &offer) {
            Reading::Answer if offered.iter().any(|t| t == "run_command") => self.command_meant(text),
            other => other,
        };
        match reading {
            Reading::Answer => {
                // Calls shown amid prose are not run; with nothing run, the answer rests on none.
                if self.trace.ran == 0
                    && let Some(tool) = text_calls::call_in_prose(text, &offer)
                {
                    self.unbacked = Some(Unbacked::CallAsText {
                        why: format!("a call of {tool} inside an explanation, which is not run"),
                    });
                }
                None
            }
            Reading::Unusable { why } => {
                self.unbacked = Some(Unbacked::CallAsText { why });
                None
            }
            Reading::Calls { calls, shape } => {
                let turn = self.conversation.user_turns().len();
                // A reply the server held to a call's schema is that call, however it reads.
                let shape = match self.guidance.last {
                    Some(_) => "guided",
                    None => shape,
                };
                Some(
                    calls
                        .into_iter()
                        .enumerate()
                        .map(|(i, call)| {
                            self.emit(Event::ToolCallRecovered {
                                tool: call.name.clone(),
                                arguments: self.redactor.redact(&call.arguments).into_owned(),
                                shape: shape.to_string(),
                            });
                            ToolCall {
                                id: format!("call_text_{turn}_{}_{i}", self.llm_calls()),
                                kind: "function",
                                function: FunctionCall {
                                    name: call.name,
                                    arguments: call.arguments,
                                },
                            }
                        })
                        .collect(),
                )
            }
        }
    }

    /// A reply with no call in it that still means to run a command, for a small model (compact
    /// prompt) with a skill active: nothing but one fenced command line, before anything ran or
    /// after its second chance told it to call run_command; after that second chance also one
    /// quoted invocation of the skill's own script in a sentence ("run `./scripts/roman.py
    /// 1987`"). Anywhere else, and for a capable model, such text is only shown: text that
    /// mentions a command is not a call. What is taken goes through approval like any call.
    fn command_meant(&self, text: &str) -> Reading {
        let compact = self.prompt_mode == PromptMode::Compact && self.conversation.current().is_some();
        let fenced = compact && (self.second_chance_used || self.trace.ran == 0);
        let command = fenced
            .then(|| text_calls::bare_command(text))
            .flatten()
            .filter(|c| self.names_a_program(c))
            .map(|c| (c, "fenced command"))
            .or_else(|| {
                (compact && self.second_chance_used)
                    .then(|| text_calls::quoted_own_script(text))
                    .flatten()
                    .map(|c| (c, "quoted script"))
            });
        match command {
            Some((command, shape)) => Reading::Calls {
                calls: vec![text_calls::run_command(&command)],
                shape,
            },
            None => Reading::Answer,
        }
    }

    /// Whether the first word of `command` (after `NAME=value` settings) is something to run: a
    /// path to a file of the active skill or the working folder, or a program on the `PATH`. A
    /// fenced line that is none (the 1.5B model fenced the skill's example output,
    /// "2023-10-10 15:30 JST") is not taken as a command.
    pub(super) fn names_a_program(&self, command: &str) -> bool {
        let Some(first) = command.split_whitespace().find(|w| !w.contains('=')) else {
            return false;
        };
        let skill_dir = self
            .conversation
            .current()
            .and_then(|n| self.skills().get(n))
            .map(|s| s.dir.clone());
        let workdir = self.tools.workdir();
        if first.contains('/') {
            return skill_dir
                .iter()
                .chain([&workdir.to_path_buf()])
                .any(|dir| dir.join(first).is_file());
        }
        let path = std::env::var("PATH").unwrap_or_default();
        crate::skills::check::needs_met::find_program(first, &path, workdir).is_some()
    }

    /// Note what one tool call came to, for judging the turn's answer.
    pub(super) fn trace_call(&mut self, name: &str, outcome: &ToolOutcome) {
        if let ToolOutcome::Ok { activated: Some(a), .. } = outcome {
            self.trace.activated.push(a.skill.clone());
        }
        // Only what ran counts as output: an activation's text is the skill's own SKILL.md,
        // examples included.
        if name == "run_command" || name.starts_with(PREFIX) || is_file_tool(name) {
            self.trace.attempted += 1;
            if let ToolOutcome::Ok { text, .. } = outcome {
                self.trace.ran += 1;
                self.trace.last_output = Some(text.clone());
                self.trace.last_failed = grounding::exit_code(text).is_some_and(|c| c != 0);
                if !self.trace.last_failed {
                    self.trace.succeeded += 1;
                }
            }
            self.trace.outputs.push_str(outcome.message());
            self.trace.outputs.push('\n');
        }
    }

    /// Judge the turn's `answer` against what ran; an unbacked one is said (and kept for the
    /// exit code). The trace starts again for the next turn.
    pub(super) fn judge_answer(&mut self, answer: &str) {
        let trace = std::mem::take(&mut self.trace);
        if self.unbacked.is_none() {
            let skills = self.skills();
            let verdict = grounding::judge(answer, &trace, |name| skills.get(name));
            self.unbacked = verdict;
        }
        if let Some(unbacked) = &self.unbacked {
            self.emit(Event::AnswerUnverified {
                reason: unbacked.reason(),
                skill: unbacked.skill().map(str::to_string),
            });
        }
    }

    /// Why the last turn's answer is not backed by anything that ran, if it is not.
    pub(crate) fn unbacked(&self) -> Option<&Unbacked> {
        self.unbacked.as_ref()
    }

    /// The files of the working folder `request` names, for judging the turn's answer; none once
    /// an earlier turn ran something, whose output the answer may rest on.
    pub(super) fn files_named(&self, request: &str) -> Vec<String> {
        let ran_before = self.conversation.messages().iter().any(|m| m.role == "tool");
        if ran_before {
            return Vec::new();
        }
        grounding::named_files(request, self.tools.workdir())
    }

    /// Whether the call `signature` repeats a command that ran earlier in the turn (its output,
    /// or its failure, is above already),
    /// under the compact prompt: a small model that loops on one call (the bench's 1.5B model ran
    /// the same query six times, its output unchanged), or goes back to a skill's first step
    /// after its second (the database skill's schema after the query), is told to answer instead.
    /// A capable model that runs a command again means to (a test after an edit), and is never
    /// stopped.
    pub(super) fn runs_again(&self, signature: &str) -> bool {
        self.prompt_mode == PromptMode::Compact
            && signature.starts_with("run_command(")
            && self.trace.commands_run.iter().any(|s| s == signature)
    }

    /// The answer to a repeated command ([`Self::runs_again`]); the next request is guided to an
    /// answer or the skill's next command, since a model that repeats itself is stuck.
    pub(super) fn not_run_again(&mut self) -> ToolOutcome {
        self.guide_next(super::second_chance::Step::RunOrAnswer, &[]);
        ToolOutcome::refused(
            "not run again: this command already ran in this turn, and its output is above. Answer the user's \
             request from that output, or run the next command the skill's instructions give for it.",
        )
    }

    /// Forget what the turn did (a cancelled or failed turn).
    pub(super) fn reset_trace(&mut self) {
        self.trace = TurnTrace::default();
    }
}
