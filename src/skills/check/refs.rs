//! Files a `SKILL.md` names — in code spans, fenced commands and links — that are not in the
//! skill's folder, or scripts it runs that are not executable: the instructions would send the
//! model to a path that fails.
//!
//! Only unmistakable references can be missing, so prose is never misread: `./x`, paths under the
//! conventional `scripts/`, `references/` and `assets/` folders, bare script names (`run.sh`), and
//! relative link targets. Absolute paths, URLs, `..`, globs and placeholders are left alone. A
//! bare name is found anywhere in the skill (`comment.py` for `scripts/comment.py`); what the
//! commands write, example names, folder-tree drawings and `./place` arguments (the working
//! folder's, not the skill's) are not files to look for (`usage`). A file name written as a plain
//! word (`see FORMS.md`) is checked only for letter case: reported when the skill has it as
//! `forms.md`, never as missing.

mod prose;
mod usage;

use std::path::{Path, PathBuf};

use super::portable::{ScriptIssue, ScriptProblem};
use crate::skills::load::parse::is_executable;
use crate::skills::{Diagnostic, Severity, Skill, code};
pub(crate) use usage::Usage;

/// Folders the Agent Skills layout bundles files in.
const BUNDLE_DIRS: [&str; 3] = ["scripts/", "references/", "assets/"];
/// Extensions that make a bare file name a script reference.
const SCRIPT_EXTENSIONS: [&str; 6] = [".sh", ".py", ".js", ".rb", ".pl", ".ts"];
/// Most files of one skill that a bare name is looked up among.
const MAX_FILES: usize = 2000;

/// One path the skill file names, where, and whether it is in command position.
#[derive(Debug, PartialEq, Eq)]
struct Reference {
    path: String,
    line: usize,
    command: bool,
}

/// What a skill file names and how its commands use it.
#[derive(Debug, Default)]
struct Named {
    references: Vec<Reference>,
    usage: Usage,
}

/// A finding for each named file that is missing (or present only in another letter case), and
/// for each script run as a command that cannot be executed.
pub(crate) fn check_references(skill: &Skill) -> Vec<Diagnostic> {
    let Ok(text) = std::fs::read_to_string(&skill.skill_file) else {
        return Vec::new();
    };
    // Checked as the model reads it: `${CLAUDE_SKILL_DIR}/x` names `./x`.
    let text = crate::skills::arguments::claude_skill_dir(text, ".");
    let named = references(&text);
    let files = SkillFiles::new(&skill.dir);
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for r in &named.references {
        if seen.contains(&r.path.as_str()) || named.usage.produces(&r.path) {
            continue;
        }
        seen.push(&r.path);
        if let Some(d) = file_finding(skill, &files, r, &named.usage) {
            out.push(d);
        }
    }
    let prose = prose::plain_mentions(&text);
    for (name, line) in &prose {
        if !seen.contains(&name.as_str()) {
            seen.push(name);
            out.extend(prose::case_only(skill, &files, name, *line));
        }
    }
    out
}

/// The finding for one reference, if it needs one.
fn file_finding(skill: &Skill, files: &SkillFiles, r: &Reference, usage: &Usage) -> Option<Diagnostic> {
    let relative = usage::clean(&r.path);
    let target = skill.dir.join(relative);
    let finding = |code, message| Diagnostic::new(code, Severity::Warning, &skill.skill_file, Some(r.line), message);
    if target.exists() {
        let runs_directly = r.command && !usage.runs_through_interpreter(&r.path);
        return (runs_directly && is_script(&r.path) && target.is_file() && !is_executable(&target)).then(|| {
            finding(
                code::NOT_EXECUTABLE,
                format!("runs `{}`, which is not executable; run `chmod +x {relative}`", r.path),
            )
        });
    }
    let bare = !relative.trim_end_matches('/').contains('/');
    if bare && files.has_name(relative) {
        return None;
    }
    if let Some(actual) = files.in_other_case(relative, bare) {
        return Some(finding(
            code::FILE_NAME_CASE,
            format!(
                "names `{}`, but the skill's file is `{actual}`: names are case-sensitive here, so the path fails; write `{actual}`",
                r.path
            ),
        ));
    }
    // A file to read that the model's read finds by its name (`read_skill_file` resolves it the
    // same way) is not missing; a path a command runs (itself, or through an interpreter) must
    // be exact.
    let by_name = crate::skills::roots::skill_dirs::unique_by_name(&files.relative, relative);
    let runs = r.command || usage.runs_through_interpreter(&r.path);
    if !runs && by_name.is_some() {
        return None;
    }
    let message = match (sibling_with(&skill.dir, relative), by_name) {
        (_, Some(found)) => format!(
            "runs `{}`, which is not there; the skill's file of that name is `{found}`: write that path",
            r.path
        ),
        (Some(other), None) => format!(
            "names `{}`, which is a file of the skill `{other}` beside it, not of this one: run from this skill's \
             folder it fails; bundle a copy, or name that skill's folder (`$AGENT_SKILLS_PATH` lists the skill roots)",
            r.path
        ),
        (None, None) => format!(
            "names `{}`, which is not in the skill folder; add the file or fix the path",
            r.path
        ),
    };
    Some(finding(code::MISSING_FILE, message))
}

/// The folder name of a skill beside `dir` (same root) that has `relative`, when one does: a
/// reference to another skill's script (`scripts/generate_schematic.py` of `scientific-schematics`).
fn sibling_with(dir: &Path, relative: &str) -> Option<String> {
    if !relative.contains('/') {
        return None;
    }
    let mut found: Vec<String> = std::fs::read_dir(dir.parent()?)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.path() != dir && e.path().join(relative).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The files of one skill folder, relative to it, listed once.
struct SkillFiles {
    relative: Vec<String>,
}

impl SkillFiles {
    fn new(dir: &Path) -> Self {
        let relative = crate::skills::roots::skill_dirs::files_below(dir, MAX_FILES)
            .into_iter()
            .filter_map(|(p, _)| Some(p.strip_prefix(dir).ok()?.to_string_lossy().into_owned()))
            .collect();
        Self { relative }
    }

    /// Whether a file called `name` is anywhere in the skill (`comment.py` for `scripts/comment.py`).
    fn has_name(&self, name: &str) -> bool {
        self.relative.iter().any(|f| f.rsplit('/').next() == Some(name))
    }

    /// The skill's own spelling of `path` when it exists only in another letter case; for a bare
    /// name, of a file with that name anywhere.
    fn in_other_case(&self, path: &str, bare: bool) -> Option<String> {
        let path = path.trim_end_matches('/');
        let same = |f: &str| {
            let f = f.trim_end_matches('/');
            if bare {
                f.rsplit('/').next().is_some_and(|n| n.eq_ignore_ascii_case(path))
            } else {
                f.eq_ignore_ascii_case(path) || f.to_lowercase().starts_with(&format!("{}/", path.to_lowercase()))
            }
        };
        let found = self.relative.iter().find(|f| same(f))?;
        Some(if bare || found.len() == path.len() {
            found.clone()
        } else {
            found[..path.len()].to_string()
        })
    }
}

/// The script problems of a skill worth fixing: those of [`super::portable::check_scripts`],
/// less the missing executable bit of a script nothing runs directly — one its instructions run
/// through an interpreter (`python scripts/x.py`), one in a language that is run that way
/// (`.py`, `.js`, …) and never named as a command, or a shell library other scripts `source`.
pub(crate) fn script_problems(dir: &Path, entry: Option<&str>, skill_file: &Path) -> Vec<ScriptProblem> {
    let named = std::fs::read_to_string(skill_file)
        .map(|t| references(&crate::skills::arguments::claude_skill_dir(t, ".")))
        .unwrap_or_default();
    let direct: Vec<PathBuf> = named
        .references
        .iter()
        .filter(|r| r.command && !named.usage.runs_through_interpreter(&r.path))
        .map(|r| dir.join(usage::clean(&r.path)))
        .collect();
    let problems = super::portable::check_scripts(dir, entry);
    let sourced = sourced_names(&problems, dir);
    problems
        .into_iter()
        .filter(|p| {
            if p.issue != ScriptIssue::NotExecutable || direct.contains(&p.path) {
                return true;
            }
            let relative = p.path.strip_prefix(dir).unwrap_or(&p.path).to_string_lossy();
            let is_entry = entry.is_some_and(|e| usage::clean(e) == relative);
            let name = p
                .path
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            let interpreted_language = usage::INTERPRETED_EXTENSIONS.iter().any(|e| name.ends_with(e));
            is_entry
                || !(named.usage.runs_through_interpreter(&relative) || interpreted_language || sourced.contains(&name))
        })
        .collect()
}

/// File names (lowercase) that the skill's scripts `source` or `.`-include: libraries, not entries.
fn sourced_names(problems: &[ScriptProblem], dir: &Path) -> Vec<String> {
    if !problems.iter().any(|p| p.issue == ScriptIssue::NotExecutable) {
        return Vec::new();
    }
    let mut names = Vec::new();
    for (path, _) in crate::skills::roots::skill_dirs::files_below(dir, MAX_FILES) {
        let Ok(read) = crate::support::fs::read_regular(&path, crate::skills::load::parse::MAX_SKILL_FILE_BYTES) else {
            continue;
        };
        for line in read.text().lines() {
            let line = line.trim_start();
            let Some(rest) = line.strip_prefix("source ").or_else(|| line.strip_prefix(". ")) else {
                continue;
            };
            // `. "$(dirname "$0")/lib.sh"` splits into several words; the name ends one of them.
            for word in rest.split_whitespace() {
                let word = word.trim_matches(|c: char| matches!(c, '"' | '\''));
                names.push(word.rsplit('/').next().unwrap_or(word).to_lowercase());
            }
        }
    }
    names
}

/// Whether a path names something meant to be run.
fn is_script(path: &str) -> bool {
    let path = usage::clean(path);
    path.starts_with("scripts/") || SCRIPT_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

/// Every reference in a skill file, in order, and how its commands use what they name.
fn references(text: &str) -> Named {
    let mut named = Named::default();
    let mut in_fence = false;
    for (idx, line) in text.lines().enumerate() {
        let number = idx + 1;
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if usage::is_tree_line(line) {
            continue;
        }
        if in_fence {
            let command = line.trim_start().trim_start_matches("$ ");
            commands(command, number, (true, false), &mut named);
            continue;
        }
        let mut prose = String::new();
        let mut line_so_far = String::new();
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 {
                let hypothetical = is_hypothetical(&line_so_far, &prose);
                commands(span, number, (told_to_run(&prose), hypothetical), &mut named);
            } else {
                prose = span.to_string();
                line_so_far.push_str(&span.to_lowercase());
            }
        }
        for target in link_targets(line) {
            if let Some(path) = as_path(target, true) {
                named.references.push(Reference {
                    path,
                    line: number,
                    command: false,
                });
            }
        }
    }
    named
}

/// Whether prose just before a code span tells the reader to run it ("Run `scripts/x.sh`").
fn told_to_run(prose: &str) -> bool {
    let last = prose.trim_end().rsplit(char::is_whitespace).next().unwrap_or_default();
    let last = last.trim_end_matches(':').to_lowercase();
    matches!(last.as_str(), "run" | "execute" | "runs" | "invoke")
}

/// Whether a code span only imagines a file: its line gives examples ("Example: `assets/logo.png`",
/// "e.g. `references/finance.md`"), or an article introduces it ("a `create_docx.py` script").
fn is_hypothetical(line_so_far: &str, prose: &str) -> bool {
    let last = prose.trim_end().rsplit(char::is_whitespace).next().unwrap_or_default();
    line_so_far.contains("example")
        || line_so_far.contains("e.g.")
        || matches!(last.to_lowercase().as_str(), "a" | "an")
}

/// The commands of one fenced line or code span, split at `&&`, `||`, `;` and `|`. A lone word
/// in a code span is a command only when prose says to run it (`alone_is_command`) or it starts
/// with `./`: "see `scripts/x.py`" names a file, it does not run it. A `hypothetical` span names
/// no file of the skill, though its commands still say how scripts are run.
fn commands(text: &str, line: usize, (alone_is_command, hypothetical): (bool, bool), named: &mut Named) {
    for command in text.split(['|', ';', '&']) {
        let words: Vec<&str> = command.split_whitespace().collect();
        named.usage.add(&words);
        if hypothetical {
            continue;
        }
        let alone = words.len() == 1;
        for (i, word) in words.iter().enumerate() {
            let Some(path) = as_path(word, false) else {
                continue;
            };
            let command = i == 0 && (!alone || alone_is_command || path.starts_with("./"));
            // `./output`, `./data/x/` as arguments are places in the working folder the command
            // reads or writes, not files of the skill.
            if i > 0 && path.starts_with("./") && !is_bundled(&path) && !has_extension(&path) {
                continue;
            }
            named.references.push(Reference { path, line, command });
        }
    }
}

fn is_bundled(path: &str) -> bool {
    let path = usage::clean(path);
    BUNDLE_DIRS.iter().any(|d| path.starts_with(d))
}

fn has_extension(path: &str) -> bool {
    let base = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
    base.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty())
}

/// `](target)` link targets of a markdown line, anchors removed.
fn link_targets(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &line[at + 2..];
            let target = &rest[..rest.find(')')?];
            Some(target.split('#').next().unwrap_or(target).trim())
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// The relative path a word stands for, if it unmistakably names a file of the skill.
fn as_path(word: &str, is_link: bool) -> Option<String> {
    let word = word.trim_matches(|c: char| matches!(c, '"' | '\'' | '(' | ')' | ',' | ';' | ':'));
    let word = ["\"$SKILL_DIR\"/", "$SKILL_DIR/", "${SKILL_DIR}/"]
        .iter()
        .find_map(|p| word.strip_prefix(p))
        .unwrap_or(word);
    let placeholder = |c: char| {
        matches!(
            c,
            '$' | '*' | '?' | '<' | '>' | '{' | '}' | '[' | ']' | '=' | '…' | '|' | '&'
        )
    };
    if word.is_empty()
        || word.contains("://")
        || word.contains("..")
        || word.starts_with(['/', '~', '-', '#'])
        || word.starts_with("mailto:")
        || word.contains(placeholder)
        || usage::is_placeholder(word)
    {
        return None;
    }
    let bundled = word.starts_with("./") || BUNDLE_DIRS.iter().any(|d| word.starts_with(d) && word.len() > d.len());
    let script = !word.contains('/')
        && SCRIPT_EXTENSIONS
            .iter()
            .any(|e| word.ends_with(e) && word.len() > e.len());
    (is_link || bundled || script).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, usize, bool)> {
        references(text)
            .references
            .into_iter()
            .map(|r| (r.path, r.line, r.command))
            .collect()
    }

    #[test]
    fn finds_commands_spans_and_links_but_not_prose() {
        let text = "# T\nRun `scripts/extract.sh FILE.pdf` on it.\n```\n$ ./run.sh Tokyo\nTokyo (Asia/Tokyo): 21:04\n```\n\
                    See [the guide](references/guide.md#top) or [site](https://x.y/a.md).\n\
                    `run.sh` reads `/usr/share/zoneinfo`, `$SKILL_DIR/scripts/fetch.sh`, `scripts/*.sh`, `../other/run.sh`.\n";
        assert_eq!(
            paths(text),
            [
                ("scripts/extract.sh".into(), 2, true),
                ("./run.sh".into(), 4, true),
                ("references/guide.md".into(), 7, false),
                ("run.sh".into(), 8, false),
                ("scripts/fetch.sh".into(), 8, false),
            ]
        );
    }

    #[test]
    fn missing_and_unrunnable_files_are_findings() {
        let dir = tempfile::tempdir().unwrap();
        let skill_dir = dir.path().join("pdf");
        std::fs::create_dir_all(skill_dir.join("scripts")).unwrap();
        std::fs::write(skill_dir.join("scripts/plain.sh"), "#!/bin/sh\n").unwrap();
        let file = skill_dir.join("SKILL.md");
        std::fs::write(
            &file,
            "# P\n\nRun `scripts/extract.sh x`, then run `scripts/plain.sh`.\n",
        )
        .unwrap();
        let mut skill = Skill::synthetic("pdf", "Extracts text from PDF files.");
        skill.dir = skill_dir;
        skill.skill_file = file;
        let found: Vec<String> = check_references(&skill).iter().map(|d| d.message.clone()).collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("`scripts/extract.sh`, which is not in the skill folder"));
        assert!(found[1].contains("chmod +x scripts/plain.sh"));

        std::fs::write(&skill.skill_file, "# P\n\nRun `${CLAUDE_SKILL_DIR}/scripts/gone.sh`.\n").unwrap();
        let found: Vec<String> = check_references(&skill).iter().map(|d| d.message.clone()).collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("`./scripts/gone.sh`, which is not in the skill folder"),
            "{found:?}"
        );
    }
}
