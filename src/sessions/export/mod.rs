//! Exporting a session: `md` (readable in any viewer), `html` (one self-contained file, no
//! scripts, commands and outputs collapsible, every piece of text escaped) and `json` (the
//! records). Both text formats walk the same [`Item`]s, so they show the same things.

mod html;
mod md;

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::compact::SUMMARY_ACK;
use super::load::SessionFile;
use super::record::{Header, Interruption, Record};
use super::summary::summarize;

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Markdown,
    Html,
    Json,
}

impl Format {
    /// `md`, `markdown`, `html`, `json`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Self::Markdown),
            "html" | "htm" => Some(Self::Html),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// The format a file name asks for by its extension.
    pub(crate) fn from_path(path: &std::path::Path) -> Option<Self> {
        Self::parse(path.extension()?.to_str()?)
    }
}

/// The session in `format`.
pub(crate) fn render(loaded: &SessionFile, format: Format) -> String {
    match format {
        Format::Markdown => md::render(&summarize(loaded), &items(&loaded.records)),
        Format::Html => html::render(&summarize(loaded), &items(&loaded.records)),
        Format::Json => json(loaded),
    }
}

/// `{"v":1,"session":HEADER,"records":[…]}`: the file's records as one document.
fn json(loaded: &SessionFile) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        v: u32,
        session: &'a Header,
        records: &'a [Record],
    }
    let document = Document {
        v: 1,
        session: &loaded.header,
        records: &loaded.records,
    };
    // Plain data (strings, numbers, vectors): serialising it cannot fail.
    serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
}

/// One thing an export shows, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// A message of the user's: a new turn.
    User(String),
    /// Text of the model's.
    Answer(String),
    /// A skill's instructions entered the conversation; `result` is what the model was given.
    Activated { skill: String, result: String },
    /// A command the model proposed and what came back (`None`: no result was recorded).
    Command { command: String, result: Option<String> },
    /// Another tool call and its result.
    Tool {
        name: String,
        arguments: String,
        result: Option<String>,
    },
    /// The history was compacted into `summary` here.
    Compacted { summary: String, auto: bool },
    /// The turn ended without an answer of its own.
    Interrupted(Interruption),
    /// Something that changed how the session went on: a reset, a model switch, a resume.
    Note(String),
}

/// The records as export items: each tool call paired with its result.
pub(crate) fn items(records: &[Record]) -> Vec<Item> {
    let results: HashMap<&str, &str> = records
        .iter()
        .filter_map(|r| match r {
            Record::Message(m) if m.role == "tool" => Some((m.tool_call_id.as_deref()?, m.content.as_deref()?)),
            _ => None,
        })
        .collect();
    let mut items = Vec::new();
    for record in records {
        match record {
            Record::Message(m) => match m.role {
                "user" => items.push(Item::User(m.content.clone().unwrap_or_default())),
                "assistant" => {
                    if let Some(text) = m
                        .content
                        .as_deref()
                        .map(without_marker)
                        .filter(|t| !t.trim().is_empty() && *t != SUMMARY_ACK)
                    {
                        items.push(Item::Answer(text.to_string()));
                    }
                    let result = |id: &str| results.get(id).map(|r| r.to_string());
                    items.extend(
                        m.tool_calls
                            .iter()
                            .map(|c| call_item(&c.function.name, &c.function.arguments, result(&c.id))),
                    );
                }
                _ => {}
            },
            Record::Compaction { summary, auto, .. } => items.push(Item::Compacted {
                summary: summary.clone(),
                auto: *auto,
            }),
            Record::Interrupted { by } => items.push(Item::Interrupted(*by)),
            Record::Reset => items.push(Item::Note("the conversation was reset (/reset)".into())),
            Record::Model { model } => items.push(Item::Note(format!("model switched to {model}"))),
            Record::Resumed { .. } => items.push(Item::Note("the session was resumed".into())),
            _ => {}
        }
    }
    items
}

/// An answer without the marker an interruption left at its end for the model: the export says
/// the interruption once, from its own record.
fn without_marker(text: &str) -> &str {
    [Interruption::User, Interruption::Lost]
        .iter()
        .find_map(|by| text.trim_end().strip_suffix(by.marker()))
        .map_or(text, str::trim_end)
}

fn call_item(name: &str, arguments: &str, result: Option<String>) -> Item {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let field = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
    match (name, field("command"), field("name")) {
        ("run_command", Some(command), _) => Item::Command { command, result },
        ("activate_skill", _, Some(skill)) => Item::Activated {
            skill,
            result: result.unwrap_or_default(),
        },
        _ => Item::Tool {
            name: name.to_string(),
            arguments: arguments.to_string(),
            result,
        },
    }
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
