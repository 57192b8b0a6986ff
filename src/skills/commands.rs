//! How a skill's commands begin: the programs and scripts its instructions tell the model to run
//! (`./run.sh`, `scripts/query.sh`, `python3 scripts/roman.py`, `gh`). A guided call holds a small
//! model's command to these (docs/configuration.md "Small local models"): the bench's 1.5B model
//! passed a skill's argument as the command (`SELECT COUNT(*) FROM orders` for the database
//! skill), which no shell can run.

use std::path::Path;

use super::Skill;

/// Most beginnings kept: a skill documenting more is held to the first ones found.
const MAX_STARTS: usize = 16;
/// Most bundled files looked at when matching words to them.
const MAX_FILES: usize = 200;

/// Programs that run the script named after them; `python3 scripts/x.py` begins with both words.
const INTERPRETERS: [&str; 12] = [
    "python", "python3", "bash", "sh", "node", "ruby", "perl", "deno", "bun", "uv", "npx", "pwsh",
];

/// How one of a skill's commands begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Start {
    /// The words it begins with: `./` before a bundled file at the top of the skill's folder,
    /// none before one in a subfolder.
    pub(crate) text: String,
    /// Every command line of the instructions that begins so goes on with arguments: held to a
    /// start, the bench's 1.5B model wrote `scripts/query.sh` with no query at all.
    pub(crate) needs_argument: bool,
}

/// The ways `skill`'s commands begin, from its instructions `body`, first found first: its entry
/// script, the programs its `allowed-tools` name, then the first word (two for an interpreter and
/// its script) of each command line of its code blocks that names a bundled file or a program on
/// `path`. Inline code is looked at only when no code block has a command (the database skill
/// names its scripts in prose). With none of these, its scripts. Empty when nothing is known:
/// then nothing is held to a start.
pub(crate) fn starts(skill: &Skill, body: &str, path: &str) -> Vec<Start> {
    let files = skill.bundled_files(MAX_FILES);
    let judge = Judge {
        files: &files,
        dir: &skill.dir,
        path,
    };
    // Each start found, and whether that line went on with arguments (`None`: not a line).
    let mut found: Vec<(String, Option<bool>)> = skill.entry.iter().map(|e| (e.clone(), None)).collect();
    for tool in &skill.allowed_tools {
        if let Some(start) = allowed_start(tool) {
            found.push((start, None));
        }
    }
    let mut from_body = block_starts(body, &judge);
    if from_body.is_empty() {
        // Inline code in prose names formats and words as often as commands (the database
        // skill's rows print "as `col | col`", and `col` is a program): its bundled files only.
        from_body = inline_code(body)
            .filter_map(|c| judge.start_of(c))
            .filter(|(start, _)| judge.bundled(start.split_whitespace().last().unwrap_or(start)))
            .collect();
    }
    found.extend(from_body);
    if found.is_empty() {
        // Instructions that name no command: the skill's scripts are what it has to run.
        found = files
            .iter()
            .filter(|f| is_script(f))
            .map(|f| (f.clone(), None))
            .collect();
    }
    let mut starts: Vec<Start> = Vec::new();
    // Starts some command line of the instructions gives alone: their arguments are optional.
    let mut bare: Vec<String> = Vec::new();
    for (text, with_arguments) in found {
        let plain = text.strip_prefix("./").unwrap_or(&text);
        // A bundled file at the top of the folder runs as `./run.sh`: bare, the shell looks for
        // it on PATH (the 1.5B model's `run.sh Tokyo` was "not found"). One in a subfolder runs
        // with or without the `./`.
        let text = match !plain.contains('/') && files.iter().any(|f| f == plain) {
            true => format!("./{plain}"),
            false => plain.to_string(),
        };
        if plain.is_empty() {
            continue;
        }
        if with_arguments == Some(false) {
            bare.push(text.clone());
        }
        match starts.iter_mut().find(|s| s.text == text) {
            Some(start) => start.needs_argument |= with_arguments == Some(true),
            None => starts.push(Start {
                needs_argument: with_arguments == Some(true),
                text,
            }),
        }
    }
    for start in &mut starts {
        start.needs_argument &= !bare.contains(&start.text);
    }
    starts.truncate(MAX_STARTS);
    starts
}

/// What the words of a command line are matched against.
struct Judge<'a> {
    /// The skill's bundled files, relative to its folder.
    files: &'a [String],
    dir: &'a Path,
    /// `PATH`, where a program is looked for.
    path: &'a str,
}

impl Judge<'_> {
    /// How `line` begins, when it is a command: an interpreter and a bundled script, a bundled
    /// file, or a program found on `PATH`; and whether the line goes on with arguments (a `#`
    /// comment is none). Assignments (`FOO=1 cmd`) are skipped.
    fn start_of(&self, line: &str) -> Option<(String, Option<bool>)> {
        let line = line.trim().trim_start_matches("$ ");
        let line = line.split(" #").next().unwrap_or(line);
        let mut words = line.split_whitespace().skip_while(|w| is_assignment(w)).peekable();
        let first = words.next()?;
        if INTERPRETERS.contains(&first)
            && let Some(script) = words.peek().copied().filter(|w| self.bundled(w))
        {
            words.next();
            return Some((format!("{first} {script}"), Some(words.next().is_some())));
        }
        if self.bundled(first) {
            return Some((first.to_string(), Some(words.next().is_some())));
        }
        let plain = first.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c));
        (plain && super::check::needs_met::find_program(first, self.path, self.dir).is_some())
            .then(|| (first.to_string(), Some(words.next().is_some())))
    }

    /// Whether `word` names one of the bundled files: as it is, after `./`, or after a variable
    /// or placeholder for the skill's folder (`$SKILL_DIR/run.sh`, `{baseDir}/scripts/a.py`).
    fn bundled(&self, word: &str) -> bool {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        let plain = word.strip_prefix("./").unwrap_or(word);
        self.files
            .iter()
            .any(|f| plain == f || (word.ends_with(&format!("/{f}")) && word.contains(['$', '{'])))
    }
}

/// Whether the bundled file `rel` is a script to run: in `scripts/` or `bin/`, or at the top
/// with a script's extension.
fn is_script(rel: &str) -> bool {
    const EXTENSIONS: [&str; 6] = [".sh", ".py", ".js", ".mjs", ".rb", ".pl"];
    let in_folder = rel.starts_with("scripts/") || rel.starts_with("bin/");
    (in_folder || !rel.contains('/')) && EXTENSIONS.iter().any(|e| rel.ends_with(e))
}

/// Values the command lines of `body`'s code blocks pass to one of `starts`: their positional
/// arguments that look like data (a digit, a dot, a slash or an `=` in them: `essay.md`,
/// `aGVsbG8=`, `1969-07-20`), not options nor an option's value. A small model copies them into
/// its command (the bench's 1.5B model counted the example's `essay.md` for a request about
/// `essay.txt`, and decoded the example's `aGVsbG8=`).
pub(crate) fn example_values(body: &str, starts: &[Start]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in body.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let line = line.trim().trim_start_matches("$ ");
        let line = line.split(" #").next().unwrap_or(line);
        let Some(rest) = fenced.then(|| after_start(line, starts)).flatten() else {
            continue;
        };
        let mut after_option = false;
        for word in rest.split_whitespace() {
            let option = word.starts_with('-');
            let value = unquoted(word);
            let data = value.chars().any(|c| c.is_ascii_digit() || "./=".contains(c));
            if !option && !after_option && data && !values.iter().any(|v| v == value) {
                values.push(value.to_string());
            }
            after_option = option && !word.contains('=');
        }
    }
    values
}

/// What follows `line`'s start, when it begins with one of `starts` (with or without `./`, and
/// with or without an interpreter before a script: `python scripts/count.py essay.md`).
pub(crate) fn after_start<'a>(line: &'a str, starts: &[Start]) -> Option<&'a str> {
    let behind_interpreter = line
        .split_once(' ')
        .filter(|(first, _)| INTERPRETERS.contains(first))
        .map(|(_, rest)| rest.trim_start());
    [Some(line), behind_interpreter].into_iter().flatten().find_map(|line| {
        let plain = line.strip_prefix("./").unwrap_or(line);
        starts.iter().find_map(|s| {
            let start = s.text.strip_prefix("./").unwrap_or(&s.text);
            plain
                .strip_prefix(start)
                .filter(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    })
}

/// `word` without the quotes around it.
pub(crate) fn unquoted(word: &str) -> &str {
    word.trim_matches(|c| c == '"' || c == '\'')
}

/// `VAR=value`, as a command line's leading assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The program an `allowed-tools` entry lets run: `Bash(scripts/query.sh:*)` → `scripts/query.sh`,
/// `Bash(gh pr view:*)` → `gh`.
fn allowed_start(tool: &str) -> Option<String> {
    let inner = tool.trim().strip_prefix("Bash(")?.strip_suffix(')')?;
    let command = inner.split(':').next().unwrap_or(inner);
    let mut words = command.split_whitespace();
    let first = words.next()?;
    if first.contains('*') {
        return None;
    }
    match words.next() {
        Some(script) if INTERPRETERS.contains(&first) && !script.contains('*') => Some(format!("{first} {script}")),
        _ => Some(first.to_string()),
    }
}

/// What a command line of `body`'s fenced code blocks begins with: each line of a shell block (no
/// info string, or a shell's), and for a block of code in a language (`python`, `js`) the program
/// that runs it, since its lines are code, not commands (`file = open(…)` would name `file`).
fn block_starts(body: &str, judge: &Judge<'_>) -> Vec<(String, Option<bool>)> {
    const SHELLS: [&str; 7] = ["", "sh", "bash", "shell", "console", "zsh", "text"];
    let mut found = Vec::new();
    let mut block: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(info.split_whitespace().next().unwrap_or("").to_ascii_lowercase()),
            };
            continue;
        }
        match block.as_deref() {
            None => {}
            Some(info) if SHELLS.contains(&info) => found.extend(judge.start_of(line)),
            Some("python" | "py" | "python3") => {
                found.push(("python3".to_string(), Some(true)));
                found.push(("python".to_string(), Some(true)));
            }
            Some("javascript" | "js" | "node") => found.push(("node".to_string(), Some(true))),
            Some(_) => {}
        }
    }
    found
}

/// The command a reply `text` shows in code (a line of a code block, or inline code) that begins
/// with one of `starts`: a small model that tells the user to run the skill's command instead of
/// running it.
pub(crate) fn shown_command<'a>(text: &'a str, starts: &[Start]) -> Option<&'a str> {
    let mut fenced = false;
    let block = text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        fenced
    });
    block
        .chain(inline_code(text))
        .map(|l| l.trim().trim_start_matches("$ "))
        .find(|l| after_start(l, starts).is_some())
}

/// The texts of `body`'s inline code spans (single backticks).
fn inline_code(body: &str) -> impl Iterator<Item = &str> {
    body.lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .flat_map(|line| line.split('`').skip(1).step_by(2))
}

/// A regular expression (as llama.cpp reads a JSON schema's `pattern`: over the string's JSON
/// text) for a command that begins with one of `starts`, then ends (unless the start needs an
/// argument) or goes on after a space. Starts that hold a quote or a backslash are left out
/// (their JSON text differs); `None` when none is left.
pub(crate) fn pattern(starts: &[Start]) -> Option<String> {
    // One character of a JSON string's text: anything but a quote or backslash, or an escape.
    const CHAR: &str = r#"([^"\\]|\\.)"#;
    let alternatives: Vec<String> = starts
        .iter()
        .filter(|s| !s.text.contains(['"', '\\']) && !s.text.chars().any(char::is_control))
        .map(|s| {
            // A path below the skill's folder may be written with `./` or without.
            let dot = match s.text.contains('/') && !s.text.starts_with("./") && !s.text.contains(' ') {
                true => r"(\./)?",
                false => "",
            };
            match s.needs_argument {
                true => format!(r#"{dot}{} ([^"\\ ]|\\.){CHAR}*"#, escape(&s.text)),
                false => format!("{dot}{}( {CHAR}*)?", escape(&s.text)),
            }
        })
        .collect();
    if alternatives.is_empty() {
        return None;
    }
    Some(format!("^({})$", alternatives.join("|")))
}

/// `text` with every character a regular expression treats specially escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
