//! Chat replies as text for a person (they go to stderr): the banner, `/help` with the skills
//! invoked by hand, history, skills, sessions and the rest of the chat commands' answers.

use super::report_text::one;
use super::session_text;
use super::skill_list::table_lines;
use super::table::{Table, cut_at_word};
use crate::output::ChatReply;
use crate::output::chat::HistoryEntry;
use crate::support::terminal_text::{for_terminal, visible};

/// The skills of `/help`: each as its command with its argument hint, and a note when one is
/// reached only through `/skill NAME` because a built-in command has its name. Descriptions are
/// cut at a word to fit `width`, as `skills list` does.
fn skill_help(skills: &[crate::output::chat::SkillCommand], width: usize) -> Vec<String> {
    if skills.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![fit(
        "Skills (/NAME ARGS invokes one by hand; $ARGUMENTS, $0, $1 … in its SKILL.md take the arguments):",
        width,
    )];
    let rows = skills
        .iter()
        .map(|s| {
            let call = match &s.hint {
                Some(hint) => format!("{} {}", one(&s.command), one(hint)),
                None => one(&s.command),
            };
            vec![call, one(&s.description)]
        })
        .collect();
    let table = Table {
        headers: &["", ""],
        rows,
        droppable: None,
    };
    // The table's first line is its (empty) header.
    lines.extend(
        table
            .render(width.saturating_sub(2))
            .into_iter()
            .skip(1)
            .map(|l| format!("  {l}")),
    );
    if skills.iter().any(|s| s.command.starts_with("/skill ")) {
        lines.push(fit(
            "A built-in command wins over a skill of the same name: reach that skill with /skill NAME.",
            width,
        ));
    }
    lines
}

/// The built-in commands of `/help`: name, then help cut at a word to fit `width`.
fn command_help(commands: &[crate::output::chat::CommandHelp], width: usize) -> Vec<String> {
    let rows = commands
        .iter()
        .map(|c| vec![c.name.to_string(), c.help.to_string()])
        .collect();
    let table = Table {
        headers: &["", ""],
        rows,
        droppable: None,
    };
    table
        .render(width.saturating_sub(2))
        .into_iter()
        .skip(1)
        .map(|l| format!("  {l}"))
        .collect()
}

/// A line of `/help` prose, indented, cut at a word to fit `width`.
fn fit(text: &str, width: usize) -> String {
    format!("  {}", cut_at_word(text, width.saturating_sub(2)))
}

/// The chat's first line: version, model, endpoint, skills and session.
fn banner(started: &ChatReply) -> Vec<String> {
    let ChatReply::ChatStarted {
        version,
        model,
        base_url,
        skills,
        session_id,
    } = started
    else {
        return Vec::new();
    };
    let session = session_id
        .as_deref()
        .map(|id| format!(" · session {}", visible(id)))
        .unwrap_or_default();
    vec![format!(
        "agent {version} · {} at {} · {skills} skills{session} · /help for commands, Ctrl-D to leave",
        visible(model),
        visible(base_url),
    )]
}

/// A chat command's answer, as lines on stderr.
pub(super) fn chat(reply: &ChatReply, width: usize) -> Vec<String> {
    match reply {
        started @ ChatReply::ChatStarted { .. } => banner(started),
        ChatReply::Help { commands, skills } => {
            let mut lines = command_help(commands, width);
            lines.extend(skill_help(skills, width));
            lines.push(fit(
                "Multi-line: end a line with \\ to continue, or wrap text in \"\"\" … \"\"\"; pastes arrive whole.",
                width,
            ));
            lines.push(fit(
                "Ctrl-C cancels a running turn or clears the line; Ctrl-D leaves.",
                width,
            ));
            lines
        }
        ChatReply::Skills { skills, shadowed } => {
            let mut lines = Vec::new();
            if skills.is_empty() {
                lines.push("no skills found; see docs/skills.md, \"Where skills come from\"".into());
            } else {
                lines.extend(table_lines(skills, width, None).into_iter().map(|l| format!("  {l}")));
            }
            lines.extend(shadowed.iter().map(|w| format!("  shadowed: {}", visible(w))));
            lines
        }
        ChatReply::SkillActivated { skill, dir } => {
            vec![format!("▸ skill {} ({}) activated", visible(skill), visible(dir))]
        }
        ChatReply::Reset => vec!["conversation cleared".into()],
        ChatReply::Model { model, changed: true } => vec![format!("model is now {}", visible(model))],
        ChatReply::Model { model, changed: false } => vec![format!("model: {}", visible(model))],
        ChatReply::Approval { policy, changed: true } => {
            vec![format!("approval policy is now {}", policy.as_str())]
        }
        ChatReply::Approval { policy, changed: false } => vec![format!("approval policy: {}", policy.as_str())],
        ChatReply::History { entries, .. } if entries.is_empty() => vec!["no messages yet".into()],
        ChatReply::History { entries, .. } => entries.iter().map(history_line).collect(),
        ChatReply::Reloaded { skills } => vec![format!("{skills} skills loaded")],
        ChatReply::UnknownCommand {
            command,
            suggestion: Some(g),
        } => vec![format!(
            "unknown command /{}; did you mean {g}? /help lists them",
            visible(command)
        )],
        ChatReply::UnknownCommand {
            command,
            suggestion: None,
        } => vec![format!("unknown command /{}; /help lists them", visible(command))],
        ChatReply::CommandError { message, .. } => vec![one(message)],
        ChatReply::Sessions(list) => {
            let mut lines: Vec<String> = session_text::list_lines(list, true, width.saturating_sub(2))
                .into_iter()
                .map(|l| format!("  {l}"))
                .collect();
            lines.extend(session_text::list_notes(list));
            lines.push("  /resume ID goes on with one (a prefix of the id is enough)".into());
            lines
        }
        ChatReply::Resumed(r) => session_text::resumed_lines(r),
        ChatReply::Forked { session_id, parent } => vec![format!(
            "forked session {parent}: this chat goes on in {session_id}; {parent} stays as it was"
        )],
        ChatReply::Exported(r) => vec![session_text::exported_line(r)],
        ChatReply::Usage(r) => session_text::usage_lines(r),
        ChatReply::Context(c) => session_text::context_lines(c),
        ChatReply::Compacted(r) => vec![session_text::compacted_line(r)],
        ChatReply::Mcp(list) => {
            let text = super::mcp_text::servers(list);
            text.out.into_iter().chain(text.err).collect()
        }
    }
}

/// One `/history` message: who said it, then every line of the text, later lines indented under
/// the first, control characters shown escaped.
fn history_line(entry: &HistoryEntry) -> String {
    let who = if entry.role == "user" { "you:  " } else { "agent:" };
    let text = for_terminal(&entry.text);
    let mut lines = text.lines();
    let mut out = format!("{who} {}", lines.next().unwrap_or_default());
    for line in lines {
        out.push_str("\n       ");
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_shows_whole_messages_of_both_sides() {
        let entry = |role, text: &str| HistoryEntry {
            role,
            text: text.to_string(),
        };
        assert_eq!(history_line(&entry("user", "one line")), "you:   one line");
        assert_eq!(
            history_line(&entry("assistant", "first\nsecond\n\x1b[2Jthird")),
            "agent: first\n       second\n       \\x1b[2Jthird"
        );
    }
}
