//! Picking a session to go on with, on the terminal (`agent --resume` without an id): the recent
//! sessions numbered, newest first; the answer is a number (Enter takes the first), an id prefix,
//! or `q` to give up.

use super::approve::ask_tty;
use super::session_text::list_lines;
use crate::output::session::SessionList;

/// What the person answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    /// The session at this index of the list (0 is the newest).
    Index(usize),
    /// A session named by (a prefix of) its id.
    Prefix(String),
    /// Nothing: they gave up, or there is no terminal to ask on.
    Cancel,
}

/// Show `list` (already cut to the sessions worth offering) on the terminal and ask which one.
pub(crate) fn pick_session(list: &SessionList) -> Pick {
    let width = super::skill_list::terminal_width(&console::Term::stderr());
    let table = list_lines(list, true, width.saturating_sub(4));
    let mut question = String::new();
    for (i, line) in table.iter().enumerate() {
        let number = if i == 0 { "   ".to_string() } else { format!("{i:>3}") };
        question.push_str(&format!("{number} {line}\n"));
    }
    question.push_str(&format!(
        "Resume which session? [1-{}, or an id; Enter: 1; q: none] ",
        list.sessions.len()
    ));
    parse_answer(&ask_tty(&question), list.sessions.len())
}

/// Read an answer to the question for `count` sessions.
pub(crate) fn parse_answer(answer: &str, count: usize) -> Pick {
    let answer = answer.trim();
    match answer {
        "" if count > 0 => Pick::Index(0),
        "" | "q" | "quit" | "n" | "no" => Pick::Cancel,
        _ => match answer.parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => Pick::Index(n - 1),
            Ok(_) if answer.len() < 4 => Pick::Cancel,
            _ => Pick::Prefix(answer.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_numbers_prefixes_or_nothing() {
        assert_eq!(parse_answer("", 3), Pick::Index(0));
        assert_eq!(parse_answer(" 2 ", 3), Pick::Index(1));
        assert_eq!(parse_answer("9", 3), Pick::Cancel);
        assert_eq!(parse_answer("q", 3), Pick::Cancel);
        assert_eq!(parse_answer("", 0), Pick::Cancel);
        assert_eq!(parse_answer("20261201-11", 3), Pick::Prefix("20261201-11".into()));
        assert_eq!(parse_answer("20261201", 3), Pick::Prefix("20261201".into()));
    }
}
