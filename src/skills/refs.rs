//! Files a `SKILL.md` names — in code spans, fenced commands and links — that are not in the
//! skill's folder, or scripts it runs that are not executable: the instructions would send the
//! model to a path that fails.
//!
//! Only unmistakable references count, so prose is never misread: `./x`, paths under the
//! conventional `scripts/`, `references/` and `assets/` folders, bare script names (`run.sh`), and
//! relative link targets. Absolute paths, URLs, `..`, globs and placeholders are left alone.

use super::parse::is_executable;
use super::{Diagnostic, Severity, Skill, code};

/// Folders the Agent Skills layout bundles files in.
const BUNDLE_DIRS: [&str; 3] = ["scripts/", "references/", "assets/"];
/// Extensions that make a bare file name a script reference.
const SCRIPT_EXTENSIONS: [&str; 6] = [".sh", ".py", ".js", ".rb", ".pl", ".ts"];

/// One path the skill file names, where, and whether it is in command position.
#[derive(Debug, PartialEq, Eq)]
struct Reference {
    path: String,
    line: usize,
    command: bool,
}

/// A finding for each named file that is missing, and for each script run as a command that
/// cannot be executed.
pub fn check_references(skill: &Skill) -> Vec<Diagnostic> {
    let Ok(text) = std::fs::read_to_string(&skill.skill_file) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    // Checked as the model reads it: `${CLAUDE_SKILL_DIR}/x` names `./x`.
    let text = super::invoke::claude_skill_dir(text);
    for r in references(&text) {
        if seen.contains(&r.path) {
            continue;
        }
        seen.push(r.path.clone());
        let target = skill.dir.join(r.path.trim_start_matches("./"));
        if !target.exists() {
            out.push(Diagnostic::new(
                code::MISSING_FILE,
                Severity::Warning,
                &skill.skill_file,
                Some(r.line),
                format!(
                    "names `{}`, which is not in the skill folder; add the file or fix the path",
                    r.path
                ),
            ));
        } else if r.command && is_script(&r.path) && target.is_file() && !is_executable(&target) {
            out.push(Diagnostic::new(
                code::NOT_EXECUTABLE,
                Severity::Warning,
                &skill.skill_file,
                Some(r.line),
                format!(
                    "runs `{}`, which is not executable; run `chmod +x {}`",
                    r.path,
                    r.path.trim_start_matches("./")
                ),
            ));
        }
    }
    out
}

/// Whether a path names something meant to be run.
fn is_script(path: &str) -> bool {
    let path = path.trim_start_matches("./");
    path.starts_with("scripts/") || SCRIPT_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

/// Every reference in a skill file, in order.
fn references(text: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (idx, line) in text.lines().enumerate() {
        let number = idx + 1;
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            let command = line.trim_start().trim_start_matches("$ ");
            words(command, number, &mut out);
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 {
                words(span, number, &mut out);
            }
        }
        for target in link_targets(line) {
            if let Some(path) = as_path(target, true) {
                out.push(Reference {
                    path,
                    line: number,
                    command: false,
                });
            }
        }
    }
    out
}

/// The references among the words of one command or code span; the first word is the command.
fn words(text: &str, line: usize, out: &mut Vec<Reference>) {
    for (i, word) in text.split_whitespace().enumerate() {
        if let Some(path) = as_path(word, false) {
            out.push(Reference {
                path,
                line,
                command: i == 0,
            });
        }
    }
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
            .into_iter()
            .map(|r| (r.path, r.line, r.command))
            .collect()
    }

    #[test]
    fn finds_commands_spans_and_links_but_not_prose() {
        let text = "# T\nRun `scripts/extract.sh FILE.pdf` on it.\n```\n$ ./run.sh Tokyo\nTokyo (Asia/Tokyo): 21:04\n```\n\
                    See [the guide](references/guide.md#top) or [site](https://x.y/a.md).\n\
                    `run.sh` reads `/usr/share/zoneinfo`, `$SKILL_DIR/scripts/a.sh`, `scripts/*.sh`, `../other/run.sh`.\n";
        assert_eq!(
            paths(text),
            [
                ("scripts/extract.sh".into(), 2, true),
                ("./run.sh".into(), 4, true),
                ("references/guide.md".into(), 7, false),
                ("run.sh".into(), 8, true),
                ("scripts/a.sh".into(), 8, true),
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
        std::fs::write(&file, "# P\n\nRun `scripts/extract.sh x` then `scripts/plain.sh`.\n").unwrap();
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
