//! Guided calls (docs/configuration.md "Small local models"): when the agent knows what the next
//! reply must be, a tool call, and the model has shown it will not write one, the request carries
//! a JSON schema of that call and the server (llama.cpp: `AGENT_GUIDED_CALLS`) holds the reply to
//! it. On the bench's 1.5B model the second chance after "activated, ran nothing" drew apologies
//! ("I don't have the ability to run commands"); held to the schema, it wrote the skill's command.
//! Only run_command (its command held to how the active skill's commands begin) and
//! activate_skill (its name one of the offered skills) are ever guided.

use serde_json::{Value, json};

use super::outcome::ToolOutcome;
use super::prompt::PromptMode;
use super::second_chance::Step;
use super::turn::Agent;
use crate::output::Event;
use crate::skills::commands::Start;

/// Most guided requests in one turn: each follows a failure of the model's own, and a model that
/// keeps failing under guidance is not helped by more of it.
const MAX_PER_TURN: u32 = 3;

/// The call a guided request holds the reply to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Guide {
    /// `activate_skill` with one of `skills`.
    Activate { skills: Vec<String> },
    /// `run_command`, the command beginning with one of `starts` (any command when empty); with
    /// `or_answer`, an answer (`{"answer": …}`) instead is as good.
    Run { starts: Vec<Start>, or_answer: bool },
}

impl Guide {
    /// The JSON schema of the reply: `{"name": …, "arguments": {…}}`, the shape small models
    /// write calls in when they write them as text, read back by `text_calls`.
    pub(super) fn schema(&self) -> Value {
        let (name, arguments) = match self {
            Guide::Activate { skills } => (
                "activate_skill",
                object(json!({"name": {"type": "string", "enum": skills}}), &["name"]),
            ),
            Guide::Run { starts, .. } => {
                let mut command = json!({"type": "string", "minLength": 1});
                if let Some(pattern) = crate::skills::commands::pattern(starts) {
                    command["pattern"] = Value::from(pattern);
                }
                ("run_command", object(json!({"command": command}), &["command"]))
            }
        };
        let call = object(
            json!({"name": {"const": name}, "arguments": arguments}),
            &["name", "arguments"],
        );
        match self {
            Guide::Run { or_answer: true, .. } => json!({"anyOf": [
                object(json!({"answer": {"type": "string", "minLength": 1}}), &["answer"]),
                call
            ]}),
            _ => call,
        }
    }
}

/// An object schema with exactly `properties`, all of `required` present.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// How the turn stands with guided calls.
#[derive(Debug, Default)]
pub(super) struct Guidance {
    /// Guided calls are on for this session (`AGENT_GUIDED_CALLS`).
    pub(super) on: bool,
    /// The guide of the next request, if any.
    pub(super) next: Option<Guide>,
    /// The guide the last request carried: its reply is read as that call.
    pub(super) last: Option<Guide>,
    /// Guided requests this turn.
    pub(super) used: u32,
    /// Example values held back this turn (each only once).
    pub(super) excused: Vec<String>,
}

impl Guidance {
    /// A new turn: no guide pending, none used.
    pub(super) fn reset(&mut self) {
        self.next = None;
        self.last = None;
        self.used = 0;
        self.excused.clear();
    }

    /// The answer a reply to a guide that allowed one holds (`{"answer": "…"}`), if it is one.
    pub(super) fn answer_in(&self, content: &str) -> Option<String> {
        if !matches!(self.last, Some(Guide::Run { or_answer: true, .. })) {
            return None;
        }
        let value: Value = serde_json::from_str(content.trim()).ok()?;
        let object = value.as_object().filter(|o| o.len() == 1)?;
        object.get("answer")?.as_str().map(str::to_string)
    }

    /// The schema the next request carries, if any; the guide is spent by asking.
    pub(super) fn take(&mut self) -> Option<Value> {
        self.last = self.next.take();
        if self.last.is_some() {
            self.used += 1;
        }
        self.last.as_ref().map(Guide::schema)
    }
}

impl Agent {
    /// Guide the next request to the call `step` asks for, when guided calls are on and the
    /// turn has guides left: a run of the active skill's command, or, when none is active, an
    /// activation of one of `candidates` (the offered skills whose words match the request; with
    /// none, no guide: "What is 2+2?" needs no skill, and a guide would force one on it).
    pub(super) fn guide_next(&mut self, step: Step, candidates: &[String]) {
        if !self.guidance.on || self.guidance.used >= MAX_PER_TURN {
            return;
        }
        self.guidance.next = match (step, self.conversation.current()) {
            (Step::Answer | Step::Direct, _) => None,
            (Step::Run | Step::Activate, Some(skill)) => Some(Guide::Run {
                starts: self.starts_of(skill),
                or_answer: false,
            }),
            // The skill's next command, one that has not run this turn; with none left there is
            // nothing to guide to, and a model that stays silent leaves the output as the answer
            // (the 1.5B model, its hash printed, was guided on to the other algorithms).
            (Step::RunOrAnswer, Some(skill)) => {
                let starts = self.not_yet_run(self.starts_of(skill));
                (!starts.is_empty()).then_some(Guide::Run {
                    starts,
                    or_answer: true,
                })
            }
            (Step::Activate, None) if !candidates.is_empty() => Some(Guide::Activate {
                skills: candidates.to_vec(),
            }),
            (Step::Run | Step::Activate | Step::RunOrAnswer, None) => None,
        };
    }

    /// After the calls of a guided activation: the next request runs the skill's command, as the
    /// second chance asked, unless something ran already.
    pub(super) fn guide_after_calls(&mut self) {
        if matches!(self.guidance.last, Some(Guide::Activate { .. })) && self.trace.ran == 0 {
            self.guide_next(Step::Run, &[]);
        }
        self.guidance.last = None;
    }

    /// Those of `starts` that no command that succeeded this turn began with (one that failed
    /// may be the next step still: the log skill's summary, run before the log was parsed).
    fn not_yet_run(&self, starts: Vec<Start>) -> Vec<Start> {
        starts
            .into_iter()
            .filter(|s| {
                let one = std::slice::from_ref(s);
                !self
                    .trace
                    .commands_ok
                    .iter()
                    .any(|c| crate::skills::commands::after_start(c, one).is_some())
            })
            .collect()
    }

    /// How the commands of the skill `name` begin ([`crate::skills::commands::starts`]).
    pub(super) fn starts_of(&self, name: &str) -> Vec<Start> {
        self.skill_commands(name).0
    }

    /// How the commands of the skill `name` begin, and its instructions they were read from
    /// (both empty for a skill that is not there).
    fn skill_commands(&self, name: &str) -> (Vec<Start>, String) {
        let Some(skill) = self.skills().get(name) else {
            return (Vec::new(), String::new());
        };
        let body = skill.read_body().unwrap_or_default();
        let path = std::env::var("PATH").unwrap_or_default();
        (crate::skills::commands::starts(skill, &body, &path), body)
    }
}

/// Words a shell runs that are no file on `PATH`: its keywords and builtins.
const SHELL_WORDS: [&str; 45] = [
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function",
    "select", "time", "cd", "export", "source", "alias", "unset", "set", "eval", "exec", "exit", "return", "read",
    "printf", "echo", "test", "true", "false", "type", "command", "builtin", "hash", "ulimit", "umask", "wait", "trap",
    "shift", "local", "declare", "let", "readonly",
];

impl Agent {
    /// A command of the active skill held back before it runs, under the compact prompt, where
    /// such commands come from: the model is told why, and the next request is guided to the
    /// skill's command. Two kinds: a first word that is no program, script or shell word (a small
    /// model's `SELECT COUNT(*) FROM orders` for the database skill, which a shell would have
    /// failed on all the same), and a value copied from the skill's example that neither the
    /// request nor anything run this turn gave (`essay.md` for a request about `essay.txt`),
    /// held back once per value: a second time it runs.
    pub(super) fn held_back(&mut self, call: &crate::llm::ToolCall) -> Option<ToolOutcome> {
        if self.prompt_mode != PromptMode::Compact || call.function.name != "run_command" {
            return None;
        }
        let skill = self.conversation.current()?.to_string();
        let command = command_of(call)?.trim().to_string();
        // The skill's instructions are read only where a command is held back, or may be.
        let (reason, told) = match self.no_program(&command) {
            Some(word) => (
                format!("`{word}` is no program or script here"),
                format!(
                    "not run: `{word}` is no program, script or shell command here. {}",
                    how_to_begin(&self.starts_of(&skill))
                ),
            ),
            None => {
                let (value, given) = self.copied_value(&skill, &command)?;
                self.guidance.excused.push(value.clone());
                let given: Vec<String> = given.iter().map(|g| format!("`{g}`")).collect();
                (
                    format!("`{value}` is the value of the skill's example, which the request does not give"),
                    format!(
                        "not run: `{value}` is the value of the skill's example, not one the user gave. Call \
                         run_command again with the values of the user's request ({}).",
                        given.join(", ")
                    ),
                )
            }
        };
        self.emit(Event::CommandDenied {
            skill: Some(skill),
            command,
            reason,
        });
        self.guide_next(Step::Run, &[]);
        Some(ToolOutcome::refused(told))
    }

    /// The first word of `command`, when it is a plain word that names no program, script or
    /// shell word.
    fn no_program(&self, command: &str) -> Option<String> {
        let word = command.split_whitespace().find(|w| !w.contains('='))?;
        let plain = word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        (plain && !SHELL_WORDS.contains(&word) && !self.names_a_program(command)).then(|| word.to_string())
    }

    /// A value `command` passes that only the skill's example gives, where the request gave one of
    /// its own: in an example command line of the skill's instructions, but not in what the user
    /// said this session, not in what ran this turn, not a file of the working folder, and not
    /// held back before; and the request holds a value of its own (`essay.txt`, a base64 text)
    /// that the command leaves out. A command that uses every value the request gives may well
    /// need the example's too (`server.port` for "what port does the server listen on").
    /// Also the request's values the command leaves out, to tell the model.
    fn copied_value(&self, skill: &str, command: &str) -> Option<(String, Vec<String>)> {
        use crate::skills::commands::{after_start, example_values, unquoted};
        let request = self.conversation.user_turns().last().map(|r| r.to_string())?;
        let left_out: Vec<String> = data_words(&request)
            .into_iter()
            .filter(|w| !command.contains(w.as_str()))
            .collect();
        if left_out.is_empty() {
            return None;
        }
        let (starts, body) = self.skill_commands(skill);
        let rest = after_start(command, &starts)?;
        let examples = example_values(&body, &starts);
        let said = self.conversation.user_turns().join("\n").to_lowercase();
        let workdir = self.tools.workdir();
        rest.split_whitespace().map(unquoted).find_map(|value| {
            let copied = examples.iter().any(|e| e == value)
                && !said.contains(&value.to_lowercase())
                && !self.trace.outputs.contains(value)
                && !workdir.join(value).exists()
                && !self.guidance.excused.iter().any(|e| e == value);
            copied.then(|| (value.to_string(), left_out.clone()))
        })
    }
}

/// The command a `run_command` call passes, if it is one with a command.
pub(super) fn command_of(call: &crate::llm::ToolCall) -> Option<String> {
    if call.function.name != "run_command" {
        return None;
    }
    let arguments: Value = serde_json::from_str(&call.function.arguments).ok()?;
    arguments["command"].as_str().map(str::to_string)
}

/// The words of `text` that carry data (a digit, a dot, a slash or an `=` inside them), without
/// the punctuation around them: `essay.txt` of "How many words are in essay.txt?".
fn data_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| "\"'`()[]{}<>,;:!?".contains(c))
                .trim_end_matches('.')
        })
        .filter(|w| w.chars().any(|c| c.is_ascii_digit() || "./=".contains(c)))
        .map(str::to_string)
        .collect()
}

/// What the model is told of how the skill's commands begin.
fn how_to_begin(starts: &[Start]) -> String {
    let shown: Vec<String> = starts.iter().map(|s| format!("`{}`", s.text)).collect();
    match shown.is_empty() {
        true => "Call run_command with a command the skill's instructions give.".to_string(),
        false => format!(
            "The skill's commands begin with {}: call run_command with one of them and its arguments.",
            shown.join(", ")
        ),
    }
}

/// The skills `tools` offers to activate (the enum of `activate_skill`), in its order.
pub(super) fn offered_skills(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == "activate_skill")
        .and_then(|t| t.pointer("/function/parameters/properties/name/enum"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_held_to_the_skill_starts_and_an_activation_to_the_offered_names() {
        let run = Guide::Run {
            starts: vec![Start {
                text: "scripts/query.sh".into(),
                needs_argument: true,
            }],
            or_answer: false,
        }
        .schema();
        assert_eq!(run["properties"]["name"]["const"], "run_command");
        let command = &run["properties"]["arguments"]["properties"]["command"];
        assert!(command["pattern"].as_str().unwrap().contains(r"scripts/query\.sh"));
        assert_eq!(run["additionalProperties"], false);
        // Nothing known of the skill's commands: any command, but a call all the same.
        let free = Guide::Run {
            starts: Vec::new(),
            or_answer: false,
        }
        .schema();
        assert!(
            free["properties"]["arguments"]["properties"]["command"]
                .get("pattern")
                .is_none()
        );
        // After an empty reply: the command, or an answer.
        let either = Guide::Run {
            starts: Vec::new(),
            or_answer: true,
        }
        .schema();
        assert_eq!(either["anyOf"][0]["required"], json!(["answer"]));
        assert_eq!(either["anyOf"][1]["properties"]["name"]["const"], "run_command");
        let activate = Guide::Activate {
            skills: vec!["database".into(), "report".into()],
        }
        .schema();
        assert_eq!(activate["properties"]["name"]["const"], "activate_skill");
        assert_eq!(
            activate["properties"]["arguments"]["properties"]["name"]["enum"],
            json!(["database", "report"])
        );
    }

    #[test]
    fn a_guide_is_spent_by_asking_and_counted() {
        let mut g = Guidance {
            on: true,
            next: Some(Guide::Run {
                starts: Vec::new(),
                or_answer: true,
            }),
            ..Guidance::default()
        };
        assert!(g.take().is_some());
        assert_eq!((g.used, g.next.is_none(), g.last.is_some()), (1, true, true));
        assert_eq!(g.answer_in(r#" {"answer": "3 orders"} "#).as_deref(), Some("3 orders"));
        assert_eq!(g.answer_in(r#"{"answer": "x", "name": "y"}"#), None);
        assert_eq!(g.answer_in("3 orders"), None);
        assert!(g.take().is_none());
        assert_eq!(g.used, 1);
        g.reset();
        assert_eq!((g.used, g.last.is_none()), (0, true));
    }

    #[test]
    fn data_words_are_the_values_a_request_gives() {
        assert_eq!(data_words("How many words are in essay.txt?"), ["essay.txt"]);
        assert_eq!(
            data_words("Decode this base64 string: c2tpbGxzIGFyZSBmb2xkZXJz (please)."),
            ["base64", "c2tpbGxzIGFyZSBmb2xkZXJz"]
        );
        assert!(data_words("What port does the server listen on?").is_empty());
    }

    #[test]
    fn offered_skills_come_from_the_activation_enum() {
        let tools = json!([
            {"type": "function", "function": {"name": "activate_skill", "parameters": {"properties": {"name": {"enum": ["a", "b"]}}}}},
            {"type": "function", "function": {"name": "run_command"}}
        ]);
        assert_eq!(offered_skills(&tools), ["a", "b"]);
        assert!(offered_skills(&Value::Null).is_empty());
    }
}
