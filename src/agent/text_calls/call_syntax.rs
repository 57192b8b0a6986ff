//! A call written in a programming language's syntax: `run_command("scripts/roman.py MCMXCIV")`,
//! `Run_command('scripts/b64.py encode "agent skills"')`, `activate_skill(name="json-query")`.
//! The bench's 1.5B model wrote these when told to call run_command (three of its failures in
//! one run). Only string arguments are read, and only a reply that is nothing but the call
//! (in backticks or a fence at most): a call inside a sentence is a mention.

use serde_json::{Map, Value};

use super::{Offer, TextCall};

/// The parameter a single positional argument fills, per tool.
const POSITIONAL: [(&str, &str); 3] = [
    ("activate_skill", "name"),
    ("run_command", "command"),
    ("search_skills", "query"),
];

/// The call `text` is, when it is one of an offered tool in call syntax with string arguments.
pub(super) fn read(text: &str, offer: &Offer<'_>) -> Option<TextCall> {
    let text = unwrapped(text.trim());
    let open = text.find('(')?;
    let written = text[..open].trim().trim_start_matches("functions.");
    let name = offer.tools.iter().find(|t| t.eq_ignore_ascii_case(written))?;
    let inner = text[open + 1..]
        .trim_end()
        .trim_end_matches(';')
        .trim_end()
        .strip_suffix(')')?;
    let arguments = arguments(inner, name)?;
    Some(TextCall {
        name: name.clone(),
        arguments: Value::Object(arguments).to_string(),
    })
}

/// `text` without one fence around it (one pair of single backticks is gone already:
/// [`super::read`] takes them off every reply).
fn unwrapped(text: &str) -> &str {
    if let Some(body) = text.strip_prefix("```").and_then(|t| t.strip_suffix("```")) {
        // The fence's language tag, if any, ends at the first line break.
        return match body.split_once('\n') {
            Some((tag, rest)) if !tag.contains('(') => rest.trim(),
            _ => body.trim(),
        };
    }
    text
}

/// The arguments between the parentheses: one string literal (the tool's positional
/// parameter), or `key="value"` pairs, separated by commas. Anything else is not read.
fn arguments(inner: &str, tool: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let (key, after_key) = match keyword(rest) {
            Some((key, after)) => (key.to_string(), after),
            None if map.is_empty() => {
                let (_, param) = POSITIONAL.iter().find(|(t, _)| *t == tool)?;
                (param.to_string(), rest)
            }
            None => return None,
        };
        let (value, after) = literal(after_key)?;
        map.insert(key, Value::String(value));
        rest = after.trim_start();
        rest = match rest.strip_prefix(',') {
            Some(more) => more.trim_start(),
            None if rest.is_empty() => rest,
            None => return None,
        };
    }
    (!map.is_empty()).then_some(map)
}

/// `key=` (or `key:`) at the start of `text`: the key and what follows the sign.
fn keyword(text: &str) -> Option<(&str, &str)> {
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let key = &text[..end];
    let after = text[end..].trim_start();
    let after = after.strip_prefix('=').or_else(|| after.strip_prefix(':'))?;
    (!key.is_empty()).then_some((key, after.trim_start()))
}

/// A string literal in single or double quotes at the start of `text` (backslash escapes
/// `\\`, `\"`, `\'`, `\n`, `\t`): its value and what follows it.
fn literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                other => value.push(other),
            },
            c if c == quote => return Some((value, &text[i + c.len_utf8()..])),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole reply read as the turn reads it ([`super::super::read`]), when it is a call in
    /// call syntax.
    fn offer_read(text: &str) -> Option<(String, Value)> {
        let tools = ["activate_skill".to_string(), "run_command".to_string()];
        let offer = Offer {
            tools: &tools,
            skills: &[],
        };
        match super::super::read(text, &offer) {
            super::super::Reading::Calls {
                mut calls,
                shape: "call syntax",
            } => {
                let call = calls.remove(0);
                Some((call.name, serde_json::from_str(&call.arguments).unwrap()))
            }
            _ => None,
        }
    }

    #[test]
    fn what_the_bench_model_wrote_is_read() {
        let (name, args) = offer_read("run_command(\"scripts/json_get.py config.json server.port\")").unwrap();
        assert_eq!(name, "run_command");
        assert_eq!(args["command"], "scripts/json_get.py config.json server.port");
        let (name, args) = offer_read("Run_command('scripts/b64.py encode \"agent skills\"')").unwrap();
        assert_eq!(name, "run_command");
        assert_eq!(args["command"], "scripts/b64.py encode \"agent skills\"");
    }

    #[test]
    fn keywords_fences_and_escapes_are_read() {
        let (name, args) = offer_read("`activate_skill(name=\"json-query\")`").unwrap();
        assert_eq!(
            (name.as_str(), &args["name"]),
            ("activate_skill", &Value::from("json-query"))
        );
        let (_, args) = offer_read("```python\nrun_command(command='echo \\'hi\\'');\n```").unwrap();
        assert_eq!(args["command"], "echo 'hi'");
        let (_, args) = offer_read("functions.run_command( \"a\\\\b\" )").unwrap();
        assert_eq!(args["command"], "a\\b");
    }

    #[test]
    fn mentions_and_other_shapes_are_not_calls() {
        for text in [
            "To run it, call run_command(\"ls\").",
            "run_command(\"ls\") and then answer",
            "run_command(ls)",
            "run_command(\"ls\", 42)",
            "run_command(\"unterminated)",
            "delete_everything(\"now\")",
            "run_command()",
            "print(\"hello\")",
        ] {
            assert_eq!(offer_read(text), None, "{text}");
        }
    }
}
