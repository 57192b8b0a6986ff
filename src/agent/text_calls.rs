//! Tool calls a model wrote as text (docs/configuration.md "Small local models"). Small local models often
//! answer a request that needs a tool with the call itself as their reply: fenced JSON,
//! `<tool_call>` tags, `{"function": …, "parameters": …}`, the arguments as a JSON string, a
//! skill's name where the tool's should be, or call syntax (`run_command("…")`). Printed as the answer, that is a fake answer with
//! exit 0. A reply whose whole text (or its one fenced block, with little else around it) is a
//! call to an offered tool is read as that call, and the turn runs it through the same approval
//! path as a native call. Text that only mentions a command is never run: nothing but a call
//! shaped as a call is taken.

use serde_json::{Map, Value};

mod call_syntax;

/// Most characters of prose around a fenced call for the reply to still count as that call.
const MAX_PROSE_AROUND: usize = 240;

/// Most calls taken from one reply (as for native calls).
const MAX_CALLS: usize = 16;

/// One call read from a reply's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextCall {
    /// The offered tool it calls.
    pub(crate) name: String,
    /// Its arguments as a JSON object's text.
    pub(crate) arguments: String,
}

/// What a reply's text came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Prose: the answer.
    Answer,
    /// One or more calls of offered tools; `shape` names how they were written.
    Calls { calls: Vec<TextCall>, shape: &'static str },
    /// Shaped as a call, but not one that can be run; `why` says what is wrong with it.
    Unusable { why: String },
}

/// What the reader knows of the session: the tools offered and the skills' names.
pub(crate) struct Offer<'a> {
    pub(crate) tools: &'a [String],
    pub(crate) skills: &'a [String],
}

/// Read `text` as a reply of the model that made no native call.
pub(crate) fn read(text: &str, offer: &Offer<'_>) -> Reading {
    let text = in_backticks(text.trim());
    if let Some((call, shape)) = named_call(text, offer) {
        return Reading::Calls {
            calls: vec![call],
            shape,
        };
    }
    if let Some(call) = call_syntax::read(text, offer) {
        return Reading::Calls {
            calls: vec![call],
            shape: "call syntax",
        };
    }
    let Some((payloads, shape)) = payloads(text.trim()) else {
        return Reading::Answer;
    };
    let mut calls = Vec::new();
    let mut problem = None;
    for payload in payloads {
        for object in objects(&payload) {
            match call_of(&object, offer) {
                Ok(found) => calls.extend(found),
                Err(why) => problem = Some(why),
            }
        }
    }
    match (calls.is_empty(), problem) {
        (false, _) => {
            calls.truncate(MAX_CALLS);
            Reading::Calls { calls, shape }
        }
        (true, Some(why)) => Reading::Unusable { why },
        (true, None) => Reading::Answer,
    }
}

/// `text` without one pair of single backticks around the whole of it (`` `{"name": …}` ``, as
/// the bench's 1.5B model wrote a call); a fence, or backticks inside, leave it as it is.
fn in_backticks(text: &str) -> &str {
    match text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        Some(inner) if !inner.contains('`') => inner.trim(),
        _ => text,
    }
}

/// The tools whose name a model may write before its arguments (`activate_skill {"name": …}`).
const TOOL_NAMES: [&str; 4] = ["activate_skill", "run_command", "read_skill_file", "search_skills"];

/// Whether a reply that begins with `start` may turn out to be a call written as text: its
/// streaming is held back until the reply is whole. Only the shapes [`read`] takes.
pub(crate) fn may_be_call(start: &str) -> bool {
    let s = start.trim_start();
    let named = s
        .trim_start_matches('`')
        .trim_start_matches("functions.")
        .to_ascii_lowercase();
    ["{", "[", "<", "```"].iter().any(|p| s.starts_with(p)) || TOOL_NAMES.iter().any(|n| named.starts_with(n))
}

/// Whether `start` is too short to tell: it could still grow into a tool's name (in any case:
/// `Run_command(…)` was written too).
pub(crate) fn undecided(start: &str) -> bool {
    let s = start.trim_start().trim_start_matches('`').to_ascii_lowercase();
    s.len() < "functions.".len() && "functions.".starts_with(&s)
        || TOOL_NAMES.iter().any(|n| n.len() > s.len() && n.starts_with(&s))
}

/// A call written as an offered tool's name, then its arguments as a JSON object, bare or in
/// a fence, optionally in parentheses: `activate_skill\n```json\n{"name": "report"}\n````,
/// `run_command({"command": "./run.sh"})`.
fn named_call(text: &str, offer: &Offer<'_>) -> Option<(TextCall, &'static str)> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    let name = text[..end].trim_start_matches("functions.");
    if !offer.tools.iter().any(|t| t == name) {
        return None;
    }
    let after = text[end..].trim_start();
    let colon = after.starts_with(':');
    let rest = after.trim_start_matches(':').trim_start();
    let (rest, parenthesized) = match rest.strip_prefix('(') {
        Some(inner) => (inner.trim_end().strip_suffix(')')?.trim(), true),
        None => (rest, false),
    };
    let body = if rest.starts_with("```") {
        fenced(rest)?
    } else {
        rest.to_string()
    };
    let (arguments, shape) = match serde_json::from_str::<Value>(&body) {
        Ok(Value::Object(arguments)) => (arguments, "tool name then json"),
        _ if parenthesized => return None,
        _ => (plain_arguments(name, &body, colon)?, "tool name then text"),
    };
    let call = TextCall {
        name: name.to_string(),
        arguments: Value::Object(arguments).to_string(),
    };
    Some((call, shape))
}

/// The offered tool a fenced block of `text` calls, when the reply is prose around it (an
/// explanation with the calls it would make, which [`read`] leaves as an answer): not run, since
/// prose that shows a call is not one, but the answer rests on nothing that ran. The bench's
/// 1.5B model explained the query it would run, then gave "its result" as the answer.
pub(crate) fn call_in_prose(text: &str, offer: &Offer<'_>) -> Option<String> {
    text.split("```").skip(1).step_by(2).find_map(|block| {
        objects(without_info_string(block).trim())
            .iter()
            .filter_map(|object| call_of(object, offer).ok())
            .flatten()
            .next()
            .map(|call| call.name)
    })
}

/// Arguments written plainly after a tool's name on one line: the parameter named
/// (`run_command command: ./run.sh Tokyo`), or the value alone after a colon (`run_command:
/// ./run.sh Tokyo`, `colon`). Without either it is prose that begins with the tool's name.
fn plain_arguments(tool: &str, body: &str, colon: bool) -> Option<Map<String, Value>> {
    let body = body.trim();
    if body.is_empty() || body.contains('\n') || body.starts_with(['{', '[', '(', '"', '\'']) {
        return None;
    }
    let param = match tool {
        "run_command" => "command",
        "activate_skill" => "name",
        _ => return None,
    };
    let named = body
        .strip_prefix(param)
        .and_then(|rest| rest.trim_start().strip_prefix([':', '=']))
        .map(str::trim);
    let value = match named {
        Some(value) => value,
        None if colon => body,
        None => return None,
    };
    // A skill's name is one word; a command is any line.
    let one_word = !value.contains(char::is_whitespace);
    (!value.is_empty() && (param == "command" || one_word)).then(|| {
        let mut map = Map::new();
        map.insert(param.to_string(), Value::String(value.to_string()));
        map
    })
}

/// The JSON texts a reply holds as a call, with the shape's name; `None` when it is prose.
fn payloads(text: &str) -> Option<(Vec<String>, &'static str)> {
    for (open, close, shape) in [
        ("<tool_call>", "</tool_call>", "tool_call tags"),
        ("<tools>", "</tools>", "tools tags"),
        ("<function_call>", "</function_call>", "function_call tags"),
    ] {
        if text.starts_with(open) {
            let inner = tagged(text, open, close);
            return (!inner.is_empty()).then_some((inner, shape));
        }
    }
    for prefix in ["[TOOL_CALLS]", "<|python_tag|>"] {
        if let Some(rest) = text.strip_prefix(prefix) {
            return Some((vec![rest.trim().to_string()], "tagged json"));
        }
    }
    if text.starts_with('{') || text.starts_with('[') {
        return Some((vec![text.to_string()], "json"));
    }
    fenced(text).map(|body| (vec![body], "fenced json"))
}

/// The texts between each `open` and `close` (a missing last `close` ends at the text's end,
/// as a model that stops after its call leaves it).
fn tagged(text: &str, open: &str, close: &str) -> Vec<String> {
    text.split(open)
        .skip(1)
        .map(|part| part.split(close).next().unwrap_or(part).trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The body of the reply's one fenced block, when the prose around it is short; `None` for no
/// block or several (an explanation with examples).
fn fenced(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split("```").collect();
    if parts.len() != 3 {
        return None;
    }
    let prose = parts[0].trim().chars().count() + parts[2].trim().chars().count();
    if prose > MAX_PROSE_AROUND {
        return None;
    }
    let body = without_info_string(parts[1]).trim();
    let inner = tagged(body, "<tool_call>", "</tool_call>");
    let body = inner.into_iter().next().unwrap_or_else(|| body.to_string());
    (body.starts_with('{') || body.starts_with('[')).then_some(body)
}

/// A fenced block's text without its info string (`json`, `tool_call`) up to the first newline,
/// when it has one.
fn without_info_string(block: &str) -> &str {
    match block.split_once('\n') {
        Some((info, rest)) if !info.trim_start().starts_with(['{', '[']) => rest,
        _ => block,
    }
}

/// The objects of a payload: one object, an array of them, or several objects one per line. A
/// call in doubled braces (`{{"name": …}}}}`, a template's escaping that Qwen2.5-Coder-1.5B wrote
/// on the bench) is read without its extra one.
fn objects(payload: &str) -> Vec<Map<String, Value>> {
    let found = objects_as_written(payload);
    match payload.strip_prefix('{') {
        Some(inner) if found.is_empty() && inner.trim_start().starts_with('{') => {
            objects_as_written(inner.trim_start())
        }
        _ => found,
    }
}

/// The objects of a payload as it is written (see [`objects`]).
fn objects_as_written(payload: &str) -> Vec<Map<String, Value>> {
    match serde_json::from_str::<Value>(payload) {
        Ok(Value::Object(map)) => vec![map],
        Ok(Value::Array(items)) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
        Ok(_) => Vec::new(),
        Err(_) => serde_json::Deserializer::from_str(payload)
            .into_iter::<Value>()
            .map_while(Result::ok)
            .filter_map(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
    }
}

/// Keys that name the tool of a call written as JSON.
const NAME_KEYS: [&str; 4] = ["name", "function", "tool", "tool_name"];
/// Keys that hold its arguments.
const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "args", "input"];

/// The calls `object` stands for: none when it is not shaped as a call at all (plain JSON data),
/// an error when it is one that cannot be run (an unknown tool).
fn call_of(object: &Map<String, Value>, offer: &Offer<'_>) -> Result<Vec<TextCall>, String> {
    let offered = |tool: &str| offer.tools.iter().any(|t| t == tool);
    // `{"command": "./run.sh"}` alone: what run_command takes, with its name left out.
    if object.len() == 1
        && let Some(Value::String(command)) = object.get("command")
        && offered("run_command")
    {
        return Ok(vec![run_command(command)]);
    }
    // `{"type": "function", "function": {"name": …, "arguments": …}}`, as the API itself writes.
    let (name, arguments) = match object.get("function") {
        Some(Value::Object(inner)) => (inner.get("name"), inner.get("arguments").or(inner.get("parameters"))),
        _ => (
            NAME_KEYS.iter().find_map(|k| object.get(*k)),
            ARGUMENT_KEYS.iter().find_map(|k| object.get(*k)),
        ),
    };
    let Some(Value::String(name)) = name else {
        return Ok(Vec::new());
    };
    // Arguments written beside the name (`{"name": "run_command", "command": "…"}`); a name
    // alone (`{"name": "weather"}`) is data as often as a call.
    let flat: Map<String, Value> = object
        .iter()
        .filter(|(k, _)| !NAME_KEYS.contains(&k.as_str()) && k.as_str() != "type")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let flat = Value::Object(flat);
    let known = |n: &str| {
        let bare = n.trim().trim_start_matches("functions.");
        offered(bare) || offer.skills.iter().any(|s| s.eq_ignore_ascii_case(bare))
    };
    let arguments = match arguments {
        Some(arguments) => arguments,
        // Only for a name that is a tool or a skill: `{"name": "Ada", "age": 36}` is data.
        None if known(name) && flat.as_object().is_some_and(|m| !m.is_empty()) => &flat,
        None => return Ok(Vec::new()),
    };
    let arguments = match arguments {
        Value::Object(map) => map.clone(),
        Value::String(text) if text.trim().is_empty() => Map::new(),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            _ => return Err(format!("its arguments for {name} are not a JSON object")),
        },
        Value::Null => Map::new(),
        _ => return Err(format!("its arguments for {name} are not a JSON object")),
    };
    let bare = name.trim().trim_start_matches("functions.");
    if offered(bare) {
        return Ok(vec![TextCall {
            name: bare.to_string(),
            arguments: Value::Object(arguments).to_string(),
        }]);
    }
    // The skill named as if it were a tool: what the model wants is that skill's instructions,
    // and the command it wrote, if any, after them.
    if let Some(skill) = offer.skills.iter().find(|s| s.eq_ignore_ascii_case(bare))
        && offered("activate_skill")
    {
        let mut calls = vec![TextCall {
            name: "activate_skill".into(),
            arguments: serde_json::json!({ "name": skill }).to_string(),
        }];
        if let Some(Value::String(command)) = arguments.get("command")
            && offered("run_command")
        {
            calls.push(run_command(command));
        }
        return Ok(calls);
    }
    Err(format!(
        "it calls {bare:?}, which is neither an offered tool nor a skill"
    ))
}

/// The one command line of a reply made only of fences and that line (```` ```sh\n./run.sh
/// Tokyo\n``` ````, a `$ ` prompt dropped): what a model writes when told to run a command and
/// it cannot call the tool. Prose, several lines or JSON are not a command.
pub(crate) fn bare_command(text: &str) -> Option<String> {
    let mut fences = 0;
    let mut content = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("```") {
            fences += 1;
        } else {
            content.push(line);
        }
    }
    let [line] = content.as_slice() else {
        return None;
    };
    let command = line.strip_prefix("$ ").unwrap_or(line).trim();
    let shaped = fences >= 2 && !command.is_empty() && !command.starts_with(['{', '[', '<', '#']);
    shaped.then(|| command.to_string())
}

/// Most characters of a sentence around a quoted script for it to count as "run this".
const MAX_SENTENCE: usize = 200;

/// The one quoted command of a short reply that runs one of a skill's own files (`./x`,
/// `scripts/x`, or an interpreter then such a path): "To get it, run `./scripts/roman.py 1987`".
/// Any other quoted text, several quotes, or a long reply are not taken.
pub(crate) fn quoted_own_script(text: &str) -> Option<String> {
    if text.chars().count() > MAX_SENTENCE || text.contains("```") {
        return None;
    }
    let parts: Vec<&str> = text.split('`').collect();
    let [_, quoted, _] = parts.as_slice() else {
        return None;
    };
    let command = quoted.trim();
    let mut words = command.split_whitespace();
    let first = words.next()?;
    let path = if ["python3", "python", "bash", "sh", "node"].contains(&first) {
        words.next()?
    } else {
        first
    };
    let own = (path.starts_with("./") || path.starts_with("scripts/")) && !path.contains("..");
    (own && !command.contains(['\n', ';', '&', '|', '$', '>', '<'])).then(|| command.to_string())
}

/// A `run_command` call of `command`.
pub(crate) fn run_command(command: &str) -> TextCall {
    TextCall {
        name: "run_command".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
    }
}

#[cfg(test)]
#[path = "text_calls_tests.rs"]
mod tests;
