//! Whether a turn's answer rests on something that ran (docs/configuration.md "Small local models"). A small
//! model that activated a skill and then answered without running anything, or copied the
//! example output of the skill's own SKILL.md, prints a confident answer no command produced.
//! Such an answer is marked, never silently passed off: the user sees a line saying so, `--json`
//! carries it, and `--require-tool` turns it into a distinct exit code.

use crate::skills::{Skill, examples};

/// Most bytes of a SKILL.md read to compare an answer with.
const MAX_BODY_BYTES: u64 = 256 * 1024;

/// What one turn did that an answer can rest on.
#[derive(Debug, Default, Clone)]
pub(crate) struct TurnTrace {
    /// Skills activated this turn (by the model, by hand, or before the first request).
    pub(crate) activated: Vec<String>,
    /// Commands and MCP calls that ran (whatever their exit code).
    pub(crate) ran: usize,
    /// Calls of `run_command` or an MCP tool the model made, run or not.
    pub(crate) attempted: usize,
    /// Calls of `run_command` made while no skill was active (refused: activate first).
    pub(crate) unactivated: usize,
    /// What the last command or MCP call that ran returned.
    pub(crate) last_output: Option<String>,
    /// The last command that ran exited with a status other than 0.
    pub(crate) last_failed: bool,
    /// Replies set aside for a second chance this turn (trimmed).
    pub(crate) set_aside: Vec<String>,
    /// The `run_command` calls (name and arguments) of the turn that ran, whatever their exit
    /// status, for telling a small model that repeats one to answer instead.
    pub(crate) commands_run: Vec<String>,
    /// The commands (their text) of those that exited with status 0.
    pub(crate) commands_ok: Vec<String>,
    /// Commands and MCP calls that ran and succeeded (a command: exit status 0).
    pub(crate) succeeded: usize,
    /// What the user said this session, lowercased: a figure the answer repeats from it is no
    /// claim of a result.
    pub(crate) said: String,
    /// The text the turn's commands and MCP calls returned (not activations: their text is the
    /// skill's own SKILL.md).
    pub(crate) outputs: String,
    /// Files of the working folder the request names (`essay.txt`, `data/sales.csv`), when no
    /// earlier turn of the conversation ran anything: an answer about one of them that nothing
    /// read or ran a command on cannot come from it.
    pub(crate) named_files: Vec<String>,
}

impl TurnTrace {
    /// Whether `reply` repeats a reply set aside for a second chance this turn.
    pub(crate) fn repeats_set_aside(&self, reply: &str) -> bool {
        self.set_aside.iter().any(|a| a == reply.trim())
    }
}

/// The exit status a command's result (`agent::tools::run_output`'s text) begins with, if it
/// begins with one.
pub(crate) fn exit_code(result: &str) -> Option<i64> {
    result.lines().next()?.strip_prefix("exit code: ")?.trim().parse().ok()
}

/// Why an answer is not backed by what ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unbacked {
    /// A skill with commands to run was activated, and nothing ran.
    NothingRan { skill: String },
    /// The answer repeats a line of the skill's own SKILL.md that no output of the turn held.
    CopiedExample { skill: String, line: String },
    /// The model wrote a tool call as text that could not be run, and that text is the answer.
    CallAsText { why: String },
    /// The answer is written as a tool's result (`<tool_response>`, `exit code: 0` and `stdout:`)
    /// holding lines no command of this turn printed.
    ImitatedOutput { line: String },
    /// A command was proposed with no skill active (refused) and nothing ran.
    NoSkillActive,
    /// The request names a file of the working folder, and nothing read it or ran: what the
    /// answer says about it is made up (the bench's 1.5B model "counted" the words of a file it
    /// never opened).
    UnreadFile { file: String },
    /// Commands ran and every one failed, and the answer gives a figure (`figure`) that none of
    /// them printed and the user never said (the bench's 1.5B model, its conversion refused with
    /// a usage error, answered "16.3871 liters").
    AllFailed { figure: String },
}

impl Unbacked {
    /// One line for the user and `--json`.
    pub(crate) fn reason(&self) -> String {
        match self {
            Unbacked::NothingRan { skill } => {
                format!("the skill {skill} was activated but no command ran: nothing in this answer comes from it")
            }
            Unbacked::CopiedExample { skill, line } => format!(
                "the answer repeats example output from the skill {skill}'s SKILL.md ({line:?}), which no command produced"
            ),
            Unbacked::ImitatedOutput { line } => {
                format!("the answer is written as a command's output ({line:?}) that no command of this turn printed")
            }
            Unbacked::NoSkillActive => "a command was proposed with no skill active and refused; nothing ran, so \
                 nothing in this answer comes from a command"
                .to_string(),
            Unbacked::UnreadFile { file } => format!(
                "the request names {file}, which nothing in this turn read or ran a command on: nothing in this \
                 answer comes from it"
            ),
            Unbacked::AllFailed { figure } => format!(
                "every command of this turn failed, and the answer gives {figure:?}, which none of them printed"
            ),
            Unbacked::CallAsText { why } => format!(
                "the model wrote a tool call as text that cannot be run ({why}); nothing ran. A model that calls \
                 tools natively (a larger one) does better; AGENT_PROMPT=compact helps small ones"
            ),
        }
    }

    /// The skill it is about, when one.
    pub(crate) fn skill(&self) -> Option<&str> {
        match self {
            Unbacked::NothingRan { skill } | Unbacked::CopiedExample { skill, .. } => Some(skill),
            Unbacked::CallAsText { .. }
            | Unbacked::ImitatedOutput { .. }
            | Unbacked::NoSkillActive
            | Unbacked::UnreadFile { .. }
            | Unbacked::AllFailed { .. } => None,
        }
    }
}

/// Judge `answer` against what the turn did; `skill` looks an activated skill up by name.
pub(crate) fn judge<'a>(
    answer: &str,
    trace: &TurnTrace,
    skill: impl Fn(&str) -> Option<&'a Skill>,
) -> Option<Unbacked> {
    if answer.trim().is_empty() {
        return None;
    }
    if let Some(line) = imitated_line(answer, &trace.outputs) {
        return Some(Unbacked::ImitatedOutput { line });
    }
    for name in &trace.activated {
        let Some(skill) = skill(name) else { continue };
        let body = body_of(skill);
        if let Some(line) = copied_line(answer, &body, &trace.outputs) {
            return Some(Unbacked::CopiedExample {
                skill: skill.name.clone(),
                line,
            });
        }
        // A command that ran and failed is said by its own lines, and an answer from them is
        // not a fake. A denied one ran nothing: an answer after it rests on nothing either (the
        // bench's 1.5B model, denied, answered with an output it made up).
        if trace.ran == 0 && has_commands(skill, &body) {
            return Some(Unbacked::NothingRan {
                skill: skill.name.clone(),
            });
        }
    }
    if trace.ran > 0
        && trace.succeeded == 0
        && let Some(figure) = unsourced_figure(answer, &trace.outputs, &trace.said)
    {
        return Some(Unbacked::AllFailed { figure });
    }
    // The model skipped activation, its command was refused, and it answered anyway (the 1.5B
    // model then gave a conversion "result" of its own).
    if trace.unactivated > 0 && trace.ran == 0 {
        return Some(Unbacked::NoSkillActive);
    }
    match trace.named_files.first() {
        Some(file) if trace.ran == 0 => Some(Unbacked::UnreadFile { file: file.clone() }),
        _ => None,
    }
}

/// A figure of `answer` (a word with two digits or more, `16.3871`, `12:04`) that neither
/// `outputs` nor the user's words `said` hold: a result it claims from nowhere.
fn unsourced_figure(answer: &str, outputs: &str, said: &str) -> Option<String> {
    answer
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| w.chars().filter(char::is_ascii_digit).count() >= 2)
        .find(|w| !outputs.contains(w) && !said.contains(&w.to_lowercase()))
        .map(str::to_string)
}

/// Whether `answer` carries a figure (a run of digits) that `output` printed and the user's
/// words `said` do not hold, or `output` printed none of its own to carry.
pub(crate) fn uses_figures(answer: &str, output: &str, said: &str) -> bool {
    let digits = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect()
    };
    let printed: Vec<String> = digits(output.split_once('\n').map_or("", |(_, rest)| rest))
        .into_iter()
        .filter(|d| !digits(said).contains(d))
        .collect();
    let given = digits(answer);
    printed.is_empty() || printed.iter().any(|d| given.contains(d))
}

/// Most words of a request looked at as file names, and most files kept.
const MAX_NAMED: (usize, usize) = (200, 4);

/// The files of `workdir` that `request` names by a word with a dot or a slash in it
/// (`essay.txt`, `./data/sales.csv`, `"notes.txt"`), as written. Words that are web addresses
/// or name nothing in the folder are no file.
pub(crate) fn named_files(request: &str, workdir: &std::path::Path) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for word in request.split_whitespace().take(MAX_NAMED.0) {
        let word = word
            .trim_matches(|c: char| {
                matches!(
                    c,
                    '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '<' | '>' | ',' | ';' | ':' | '!' | '?'
                )
            })
            .trim_end_matches('.');
        let looks_like_file = word.contains(['.', '/']) && !word.contains("://");
        if !looks_like_file || files.iter().any(|f| f == word) {
            continue;
        }
        let path = std::path::Path::new(word);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            workdir.join(path)
        };
        if path.is_file() {
            files.push(word.to_string());
            if files.len() == MAX_NAMED.1 {
                break;
            }
        }
    }
    files
}

/// A line of an answer dressed as a tool's result that no output of the turn holds. Small models
/// write `<tool_response>` blocks, or `exit code: 0` then `stdout:`, as their answer.
fn imitated_line(answer: &str, outputs: &str) -> Option<String> {
    let dressed = answer.contains("<tool_response>") || (answer.contains("exit code:") && answer.contains("stdout:"));
    if !dressed {
        return None;
    }
    answer
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('<') && !l.starts_with("exit code:") && *l != "stdout:")
        .find(|l| !outputs.contains(l))
        .map(str::to_string)
}

/// Most lines of a command's output quoted back to the model when its answer ignored them.
const MAX_QUOTED_LINES: usize = 3;
/// Most characters of that quote.
const MAX_QUOTED_CHARS: usize = 240;

/// When the last command that ran succeeded and printed something distinctive (its numbers, or
/// without any its words of four letters or more), but `answer` uses none of it: the first lines of what it
/// printed. The bench's 1.5B model ran the right script, then answered with how to install a
/// library, or with a number of its own. `last_output` is a command's result as the model read
/// it ([`crate::agent::tools`]'s "exit code: N" line, then "stdout:" and "stderr:" sections).
pub(crate) fn ignored_output(answer: &str, last_output: &str) -> Option<String> {
    if exit_code(last_output) != Some(0) || answer.trim().is_empty() {
        return None;
    }
    let mut lines = last_output.lines();
    lines.next();
    let printed: Vec<&str> = lines
        .skip_while(|l| *l != "stdout:")
        .skip(1)
        .take_while(|l| *l != "stderr:")
        .filter(|l| !l.trim().is_empty())
        .collect();
    // Values are mostly numbers; where it printed some, the answer must carry one, since the
    // request's own words ("server", "port") come back in any answer. Else its longer words.
    let printed_tokens: Vec<String> = printed.iter().flat_map(|l| tokens(l)).collect();
    let numbers: Vec<String> = printed_tokens
        .iter()
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .cloned()
        .collect();
    let distinctive = match numbers.is_empty() {
        false => numbers,
        true => printed_tokens.into_iter().filter(|t| t.chars().count() >= 4).collect(),
    };
    if distinctive.is_empty() {
        return None;
    }
    let said: std::collections::HashSet<String> = tokens(answer).collect();
    if distinctive.iter().any(|t| said.contains(t)) {
        return None;
    }
    let quote = printed
        .iter()
        .take(MAX_QUOTED_LINES)
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" / ");
    Some(quote.chars().take(MAX_QUOTED_CHARS).collect())
}

/// The lowercase runs of letters and digits of `text`.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}

/// The SKILL.md text of `skill` (empty when it cannot be read).
fn body_of(skill: &Skill) -> String {
    crate::support::fs::read_whole(&skill.skill_file, MAX_BODY_BYTES)
        .map(|r| r.text())
        .unwrap_or_default()
}

/// Whether the skill's instructions have commands to run: an entry script, a `scripts/` folder,
/// or a shell block in its body. A skill of pure guidance (a style guide) has none.
fn has_commands(skill: &Skill, body: &str) -> bool {
    skill.entry.is_some()
        || skill.dir.join("scripts").is_dir()
        || ["```bash", "```sh", "```shell", "```console", "```zsh"]
            .iter()
            .any(|fence| body.contains(fence))
}

/// A line of example output in `body` that `answer` repeats and none of `outputs` holds.
fn copied_line(answer: &str, body: &str, outputs: &str) -> Option<String> {
    examples::output_lines(body)
        .into_iter()
        .map(|(_, line)| line)
        .find(|l| answer.contains(l.as_str()) && !outputs.contains(l.as_str()))
}

#[cfg(test)]
#[path = "grounding_tests.rs"]
mod tests;
