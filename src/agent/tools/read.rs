//! `read_skill_file`: a regular file inside a skill's folder, and nothing outside it.

use std::path::{Component, Path};

use super::ToolRunner;
use crate::agent::outcome::ToolOutcome;
use crate::support::fs::read_regular;

/// Most bytes `read_skill_file` returns.
const MAX_READ_BYTES: u64 = 64 * 1024;

impl ToolRunner {
    /// Off the async threads: even a checked, non-blocking read is disk I/O.
    pub(super) async fn read_skill_file(&self, name: &str, path: &str) -> ToolOutcome {
        let Some(skill) = self.skills.get(name) else {
            return self.unknown_skill(name);
        };
        let (dir, rel) = (skill.dir.clone(), path.to_string());
        match tokio::task::spawn_blocking(move || read_inside(&dir, &rel)).await {
            Ok(Ok(text)) => ToolOutcome::ok(text),
            Ok(Err(refused)) => refused,
            Err(e) => ToolOutcome::failed(format!("reading {path:?} failed: {e}")),
        }
    }
}

/// Read `rel` inside `dir`: a path that leads outside is refused, a file that cannot be read
/// failed.
pub(crate) fn read_inside(dir: &Path, rel: &str) -> Result<String, ToolOutcome> {
    let rel_path = Path::new(rel);
    if rel_path.is_absolute() || rel_path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(ToolOutcome::refused(format!(
            "{rel:?} is outside the skill folder; give a path relative to it without `..`"
        )));
    }
    let root =
        std::fs::canonicalize(dir).map_err(|e| ToolOutcome::failed(format!("cannot open the skill folder: {e}")))?;
    // Instructions name `FORMS.md` where the file is `forms.md`: a path that differs only in
    // letter case is read, and the answer says which file that was.
    let (target, note) = match std::fs::canonicalize(dir.join(rel_path)) {
        Ok(target) => (target, None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match case_insensitive(dir, rel_path) {
            Some(found) => {
                let shown = found.strip_prefix(dir).unwrap_or(&found).display().to_string();
                let target = std::fs::canonicalize(&found)
                    .map_err(|e| ToolOutcome::failed(format!("cannot open {shown:?}: {e}")))?;
                (
                    target,
                    Some(format!(
                        "[{rel:?} does not exist; this is {shown:?}, the same name in other letter case]\n"
                    )),
                )
            }
            None => match by_name(dir, rel) {
                Some(found) => {
                    let shown = found.strip_prefix(dir).unwrap_or(&found).display().to_string();
                    let target = std::fs::canonicalize(&found)
                        .map_err(|e| ToolOutcome::failed(format!("cannot open {shown:?}: {e}")))?;
                    (
                        target,
                        Some(format!(
                            "[{rel:?} does not exist; this is {shown:?}, the skill's only file of that name]\n"
                        )),
                    )
                }
                None => return Err(ToolOutcome::failed(not_found(dir, rel))),
            },
        },
        Err(e) => return Err(ToolOutcome::failed(format!("cannot open {rel:?}: {e}"))),
    };
    if !target.starts_with(&root) {
        return Err(ToolOutcome::refused(format!(
            "{rel:?} leads outside the skill folder (symlink); refused"
        )));
    }
    if target.is_dir() {
        return Err(ToolOutcome::refused(format!("{rel:?} is a folder; name a file in it")));
    }
    let read =
        read_regular(&target, MAX_READ_BYTES).map_err(|e| ToolOutcome::failed(format!("cannot read {rel:?}: {e}")))?;
    let mut text = note.unwrap_or_default();
    text.push_str(&read.text());
    if read.truncated() {
        text.push_str(&format!(
            "\n[… file is {} bytes; only the first {MAX_READ_BYTES} are shown]",
            read.size
        ));
    }
    Ok(text)
}

/// `rel` below `dir` with each part matched regardless of letter case, when exactly one entry
/// matches at every step.
fn case_insensitive(dir: &Path, rel: &Path) -> Option<std::path::PathBuf> {
    let mut at = dir.to_path_buf();
    for part in rel.components() {
        let Component::Normal(want) = part else {
            continue;
        };
        let want = want.to_str()?.to_lowercase();
        let mut matches = std::fs::read_dir(&at)
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.to_lowercase() == want));
        let found = matches.next()?;
        if matches.next().is_some() {
            return None;
        }
        at = found.path();
    }
    Some(at)
}

/// The skill's only file named as `rel` ends (`references/api.md` for `api.md`), if there is one:
/// the same rule `skills check` holds a named file to.
fn by_name(dir: &Path, rel: &str) -> Option<std::path::PathBuf> {
    let files: Vec<String> = crate::skills::roots::skill_dirs::files_below(dir, 2000)
        .into_iter()
        .filter_map(|(path, _)| path.strip_prefix(dir).ok().map(|r| r.display().to_string()))
        .collect();
    crate::skills::roots::skill_dirs::unique_by_name(&files, rel).map(|f| dir.join(f))
}

/// Why `rel` cannot be read, naming the skill's files closest to it.
fn not_found(dir: &Path, rel: &str) -> String {
    let wanted = rel.to_lowercase();
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_lowercase();
    let mut files: Vec<(f64, String)> = crate::skills::roots::skill_dirs::files_below(dir, 2000)
        .into_iter()
        .filter_map(|(path, _)| path.strip_prefix(dir).ok().map(|r| r.display().to_string()))
        .map(|f| {
            let score =
                strsim::jaro_winkler(&wanted, &f.to_lowercase()).max(strsim::jaro_winkler(&base(&wanted), &base(&f)));
            (score, f)
        })
        .filter(|(score, _)| *score > 0.7)
        .collect();
    files.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let closest: Vec<String> = files.into_iter().take(5).map(|(_, f)| f).collect();
    if closest.is_empty() {
        format!("{rel:?} does not exist in the skill folder")
    } else {
        format!(
            "{rel:?} does not exist in the skill folder; the closest files are: {}",
            closest.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(result: Result<String, ToolOutcome>) -> String {
        result.unwrap_err().message().to_string()
    }

    #[test]
    fn a_name_in_other_letter_case_is_read_and_said() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("Reference")).unwrap();
        std::fs::write(dir.path().join("forms.md"), "fill them").unwrap();
        std::fs::write(dir.path().join("Reference/api.md"), "the api").unwrap();
        let text = read_inside(dir.path(), "FORMS.md").unwrap();
        assert!(
            text.contains("\"forms.md\", the same name in other letter case"),
            "{text}"
        );
        assert!(text.ends_with("fill them"), "{text}");
        assert!(
            read_inside(dir.path(), "reference/API.md")
                .unwrap()
                .ends_with("the api")
        );
        let missing = why(read_inside(dir.path(), "form.md"));
        assert!(missing.contains("closest files are: forms.md"), "{missing}");
        // Two candidates that differ only in case: none is guessed.
        std::fs::write(dir.path().join("Forms.md"), "other").unwrap();
        assert!(why(read_inside(dir.path(), "FORMS.md")).contains("does not exist"));
    }

    #[test]
    fn read_inside_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hi").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
        assert_eq!(read_inside(dir.path(), "a.txt").unwrap(), "hi");
        assert!(matches!(
            read_inside(dir.path(), "../x"),
            Err(ToolOutcome::Refused { .. })
        ));
        assert!(read_inside(dir.path(), "/etc/passwd").is_err());
        assert!(why(read_inside(dir.path(), "link")).contains("outside"));
        let fifo = dir.path().join("pipe");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
        let fifo = read_inside(dir.path(), "pipe");
        assert!(matches!(&fifo, Err(ToolOutcome::Failed { .. })));
        assert!(why(fifo).contains("FIFO"));
    }
}
