//! How a skill's commands use the paths they name: which scripts they run through an interpreter
//! (`python scripts/x.py`, `python -m scripts.x`: no executable bit needed), which files they
//! produce (`-o out.sh`, `> report.md`: not expected to exist yet), and which names are only
//! examples (`your_server.py`, `a.py`). Real skills use all three on every page; counting them as
//! missing or unrunnable files buried the few real problems.

/// Programs that run the script named after them, so the script needs no executable bit.
const INTERPRETERS: [&str; 19] = [
    "python", "python2", "python3", "py", "pypy", "pypy3", "node", "nodejs", "bun", "bash", "sh", "zsh", "ruby",
    "perl", "php", "rscript", "tsx", "ts-node", "lua",
];
/// Runners that start an interpreter or a script themselves (`uv run x.py`, `deno run x.ts`).
const RUNNERS: [&str; 6] = ["uv", "poetry", "pipenv", "deno", "npx", "uvx"];
/// Options after which a command names a file it writes.
const OUTPUT_OPTIONS: [&str; 8] = ["-o", "--output", "--out", "-O", ">", ">>", "--output-file", "--outfile"];
/// Programs whose arguments are files or folders they create.
const CREATORS: [&str; 2] = ["mkdir", "touch"];
/// File stems that stand for "your file here" in examples.
const PLACEHOLDER_STEMS: [&str; 14] = [
    "foo",
    "bar",
    "baz",
    "example",
    "sample",
    "script",
    "script_name",
    "file",
    "filename",
    "app",
    "main",
    "server",
    "setup",
    "test",
];
/// Extensions of languages whose scripts are normally run through their interpreter.
pub(crate) const INTERPRETED_EXTENSIONS: [&str; 10] =
    [".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".r", ".lua"];

/// What one command (a fenced line or a code span, split at `&&`, `||`, `;` and `|`) says about
/// the paths it names.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Scripts run through an interpreter, as written (`scripts/x.py`) or derived from a module
    /// (`-m scripts.x` gives `scripts/x.py`).
    pub(crate) interpreted: Vec<String>,
    /// Files and folders the command writes.
    pub(crate) produced: Vec<String>,
}

impl Usage {
    /// Add what `command` says; `words` are its words, the program first.
    pub(crate) fn add(&mut self, words: &[&str]) {
        if let Some(script) = interpreted_script(words) {
            self.interpreted.push(script);
        }
        self.produced.extend(produced(words));
    }

    /// Whether `path` (relative to the skill) is run through an interpreter somewhere: named as
    /// is, with `./`, or by its bare file name.
    pub(crate) fn runs_through_interpreter(&self, path: &str) -> bool {
        let path = clean(path);
        let base = base_name(path);
        self.interpreted.iter().any(|i| {
            let i = clean(i);
            i == path || (!i.contains('/') && i == base)
        })
    }

    /// Whether `path` is something the commands create rather than read.
    pub(crate) fn produces(&self, path: &str) -> bool {
        let path = clean(path).trim_end_matches('/');
        self.produced.iter().any(|p| clean(p).trim_end_matches('/') == path)
    }
}

/// `path` without a leading `./` and the skill-folder variables.
pub(crate) fn clean(path: &str) -> &str {
    let path = ["\"$SKILL_DIR\"/", "$SKILL_DIR/", "${SKILL_DIR}/"]
        .iter()
        .find_map(|p| path.strip_prefix(p))
        .unwrap_or(path);
    path.trim_start_matches("./")
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The program of a command word: `/usr/bin/python3.11` is `python3`.
fn program(word: &str) -> String {
    let name = base_name(word).to_lowercase();
    // `python3.11`, `python3.12`: the version suffix names the same interpreter.
    match name.split_once('.') {
        Some((stem, version)) if version.chars().all(|c| c.is_ascii_digit()) && stem.starts_with("python") => {
            stem.to_string()
        }
        _ => name,
    }
}

/// The script a command runs through an interpreter, if it does.
fn interpreted_script(words: &[&str]) -> Option<String> {
    let mut rest = words.iter().map(|w| unquote(w));
    let mut first = program(rest.next()?);
    if RUNNERS.contains(&first.as_str()) {
        // `uv run [python] x.py`, `deno run x.ts`: the runner's verb, then maybe an interpreter.
        let mut peek: Vec<&str> = rest
            .by_ref()
            .skip_while(|w| *w == "run" || w.starts_with('-'))
            .collect();
        if peek
            .first()
            .is_some_and(|w| INTERPRETERS.contains(&program(w).as_str()))
        {
            peek.remove(0);
        }
        return script_argument(&peek);
    }
    if first == "exec" || first == "env" || first == "time" {
        first = program(rest.next()?);
    }
    if !INTERPRETERS.contains(&first.as_str()) {
        return None;
    }
    script_argument(&rest.collect::<Vec<_>>())
}

/// The script among an interpreter's arguments: the first word that is not an option, or the
/// module after `-m` as a path.
fn script_argument(args: &[&str]) -> Option<String> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if *arg == "-m" {
            let module = args.next()?;
            return Some(format!("{}.py", module.replace('.', "/")));
        }
        if arg.starts_with('-') {
            continue;
        }
        return Some(clean(arg).to_string());
    }
    None
}

/// What a command writes: the word after an output option (or joined to it by `=`), and the
/// arguments of `mkdir` and `touch`.
fn produced(words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let creator = words.first().is_some_and(|w| CREATORS.contains(&program(w).as_str()));
    for (i, word) in words.iter().enumerate() {
        let word = unquote(word);
        if creator && i > 0 && !word.starts_with('-') {
            out.push(clean(word).to_string());
        }
        if let Some((option, value)) = word.split_once('=')
            && OUTPUT_OPTIONS.contains(&option)
        {
            out.push(clean(value).to_string());
        }
        if let Some(stripped) = word.strip_prefix('>').filter(|s| !s.is_empty() && !s.starts_with('>')) {
            out.push(clean(stripped).to_string());
        }
        if OUTPUT_OPTIONS.contains(&word)
            && let Some(next) = words.get(i + 1)
        {
            out.push(clean(unquote(next)).to_string());
        }
    }
    out
}

fn unquote(word: &str) -> &str {
    word.trim_matches(|c: char| matches!(c, '"' | '\''))
}

/// Whether a named path is an example rather than a file: `your_server.py`, `my-analysis.py`,
/// `path/to/x`, a one-letter stem (`a.py`), or a stem that stands for any file (`script.py`,
/// `app.py`); and library names written like files (`Node.js`, `p5.js`).
pub(crate) fn is_placeholder(path: &str) -> bool {
    let path = clean(path);
    let lower = path.to_lowercase();
    if lower.contains("path/to/") {
        return true;
    }
    let example_part = lower.split('/').any(|part| {
        ["your_", "your-", "my_", "my-", "some_", "some-"]
            .iter()
            .any(|p| part.starts_with(p))
    });
    if example_part {
        return true;
    }
    let base = base_name(path);
    let Some((stem, ext)) = base.rsplit_once('.') else {
        return false;
    };
    let single_letter = stem.chars().count() == 1;
    let library =
        !path.contains('/') && ext == "js" && stem.chars().any(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    single_letter || library || PLACEHOLDER_STEMS.contains(&stem.to_lowercase().as_str())
}

/// Whether a line draws a folder tree (`├── x.py`): it shows some project's layout, often not
/// the skill's own.
pub(crate) fn is_tree_line(line: &str) -> bool {
    line.contains(['├', '└', '│'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(commands: &[&str]) -> Usage {
        let mut u = Usage::default();
        for c in commands {
            u.add(&c.split_whitespace().collect::<Vec<_>>());
        }
        u
    }

    #[test]
    fn scripts_run_through_an_interpreter() {
        let u = usage(&[
            "python scripts/a.py --in x",
            "python3.11 -u ./scripts/b.py",
            "python -m scripts.tools.c",
            "uv run python $SKILL_DIR/scripts/d.py",
            "bash scripts/e.sh",
            "/usr/bin/env node f.js",
            "./scripts/g.sh",
            "cat scripts/h.py",
        ]);
        assert_eq!(
            u.interpreted,
            [
                "scripts/a.py",
                "scripts/b.py",
                "scripts/tools/c.py",
                "scripts/d.py",
                "scripts/e.sh",
                "f.js"
            ]
        );
        assert!(u.runs_through_interpreter("./scripts/a.py"));
        assert!(
            u.runs_through_interpreter("scripts/f.js"),
            "a bare name covers the file anywhere"
        );
        assert!(!u.runs_through_interpreter("scripts/g.sh"));
        assert!(
            !u.runs_through_interpreter("other/a.py"),
            "a path with a folder names that folder only"
        );
    }

    #[test]
    fn files_commands_write() {
        let u = usage(&[
            "python scripts/gen.py chipseq -o qc.sh --input x",
            "tool --output=out/report.md",
            "echo hi > ./notes.txt",
            "mkdir -p ./figures",
        ]);
        assert_eq!(u.produced, ["qc.sh", "out/report.md", "notes.txt", "figures"]);
        assert!(u.produces("./qc.sh") && u.produces("figures/"));
        assert!(!u.produces("scripts/gen.py"));
    }

    #[test]
    fn example_names_are_not_files() {
        for p in [
            "your_server.py",
            "a.py",
            "./data/your_task/config.yaml",
            "my-analysis.py",
            "script.py",
            "Node.js",
            "p5.js",
            "path/to/x.sh",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for p in [
            "scripts/extract.sh",
            "comment.py",
            "references/forms.md",
            "chart.js",
            "run.sh",
        ] {
            assert!(!is_placeholder(p), "{p}");
        }
    }
}
