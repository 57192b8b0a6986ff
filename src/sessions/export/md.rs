//! The Markdown export: headings per turn, the model's text as it wrote it, and every command,
//! skill and output in a fenced block whose fence no text inside can close.

use std::fmt::Write;

use super::Item;
use crate::output::session::SessionSummary as Overview;
use crate::sessions::record::Interruption;
use crate::support::terminal_text::for_terminal as shown;

/// The session as Markdown.
pub(super) fn render(overview: &Overview, items: &[Item]) -> String {
    let mut out = String::new();
    head(&mut out, overview);
    let mut turn = 0;
    for item in items {
        // `write!` to a String cannot fail.
        let _ = item_md(&mut out, item, &mut turn);
    }
    out
}

fn item_md(out: &mut String, item: &Item, turn: &mut usize) -> std::fmt::Result {
    match item {
        Item::User(text) => {
            *turn += 1;
            write!(out, "\n## Turn {turn}\n\n**You:**\n\n{}\n", quote(text))
        }
        Item::Answer(text) => write!(out, "\n**agent:**\n\n{}\n", shown(text.trim())),
        Item::Activated { skill, .. } => write!(out, "\n*Skill `{}` activated.*\n", inline(skill)),
        Item::Command { command, result } => {
            write!(out, "\n**Command:**\n\n{}", fenced("sh", command))?;
            match result {
                Some(result) => write!(out, "\n**Output:**\n\n{}", fenced("text", result)),
                None => write!(out, "\n*(no result recorded)*\n"),
            }
        }
        Item::Tool {
            name,
            arguments,
            result,
        } => {
            write!(out, "\n**Tool `{}`:**\n\n{}", inline(name), fenced("json", arguments))?;
            match result {
                Some(result) => write!(out, "\n{}", fenced("text", result)),
                None => Ok(()),
            }
        }
        Item::Compacted { summary, auto } => {
            let why = if *auto {
                "automatically, near the context limit"
            } else {
                "with /compact"
            };
            write!(
                out,
                "\n---\n\n*The history was compacted here ({why}). Summary:*\n\n{}\n\n---\n",
                quote(summary)
            )
        }
        Item::Interrupted(by) => write!(out, "\n*{}*\n", interrupted(*by)),
        Item::Note(text) => write!(out, "\n*{}*\n", shown(text)),
    }
}

fn head(out: &mut String, o: &Overview) {
    let _ = write!(
        out,
        "# agent session {}\n\n- Started: {}\n- Working directory: `{}`\n- Model: `{}` at {}\n- Turns: {}\n- Tokens: {} in, {} out{}\n",
        o.id,
        o.started,
        inline(&o.cwd),
        inline(&o.model),
        inline(&o.base_url),
        o.turns,
        o.prompt_tokens,
        o.completion_tokens,
        if o.estimated { " (~estimated)" } else { "" },
    );
    if let Some(parent) = &o.parent {
        let _ = writeln!(out, "- Forked from: {parent}");
    }
}

/// How an export says a turn ended without its answer.
pub(super) fn interrupted(by: Interruption) -> &'static str {
    match by {
        Interruption::User => "Interrupted by the user.",
        Interruption::Lost => "The agent stopped before finishing this turn.",
    }
}

/// Text as a Markdown block quote, so it reads as said, not as structure.
fn quote(text: &str) -> String {
    shown(text.trim())
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_string()
            } else {
                format!("> {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text for inside a code span: on one line, backticks replaced.
fn inline(text: &str) -> String {
    shown(text).replace(['\n', '\r'], " ").replace('`', "'")
}

/// `text` in a fenced code block one backtick longer than any run of backticks in it.
fn fenced(lang: &str, text: &str) -> String {
    let text = shown(text.trim_end());
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{text}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_text_can_close_its_fence() {
        let block = fenced("text", "a\n```\nb ```` c");
        assert!(block.starts_with("`````text\n"), "{block}");
        assert!(block.ends_with("\n`````\n"), "{block}");
        assert_eq!(fenced("sh", "ls"), "```sh\nls\n```\n");
    }

    #[test]
    fn quotes_and_spans_stay_one_thing() {
        assert_eq!(quote("one\n\n# two"), "> one\n>\n> # two");
        assert_eq!(inline("a`b\nc\x1b[2J"), "a'b c\\x1b[2J");
    }
}
