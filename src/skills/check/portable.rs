//! Scripts that work everywhere: a script saved with CRLF line endings (its `#!` line then names
//! `sh\r`, which does not exist) or without the executable bit (a zip download, a Windows checkout)
//! fails with a baffling error. Both are found here with a stable code and a fix command, and
//! fixed in place on request.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::skills::code;
use crate::skills::roots::skill_dirs::files_below;
use crate::support::fs::read_regular;

/// Bytes of a script that are looked at (and fixed) at most.
const MAX_SCRIPT_BYTES: u64 = 4 * 1024 * 1024;
/// Most files of one skill folder that are looked at.
const MAX_FILES: usize = 2000;

/// What is wrong with a script; serialised as its stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) enum ScriptIssue {
    /// Lines end in CR LF.
    #[serde(rename = "script-crlf")]
    CrlfLineEndings,
    /// No execute bit, though it is meant to be run.
    #[serde(rename = "not-executable")]
    NotExecutable,
}

impl ScriptIssue {
    /// The stable code of this finding (`skills check`, `--json`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            ScriptIssue::CrlfLineEndings => code::SCRIPT_CRLF,
            ScriptIssue::NotExecutable => code::NOT_EXECUTABLE,
        }
    }
}

/// One script problem, with the command that fixes it by hand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct ScriptProblem {
    #[serde(rename = "code")]
    pub(crate) issue: ScriptIssue,
    pub(crate) path: PathBuf,
}

impl ScriptProblem {
    /// What is wrong, for a person.
    pub(crate) fn message(&self) -> String {
        match self.issue {
            ScriptIssue::CrlfLineEndings => {
                "has Windows (CRLF) line endings: the system looks for an interpreter whose name ends in a carriage return and fails".into()
            }
            ScriptIssue::NotExecutable => "is a script without the executable bit: running it fails with \"permission denied\"".into(),
        }
    }

    /// The shell command that fixes it (`agent skills add --fix` runs the same fix itself).
    pub(crate) fn fix_command(&self) -> String {
        let quoted = shell_words::quote(&self.path.to_string_lossy()).into_owned();
        match self.issue {
            ScriptIssue::CrlfLineEndings => format!("sed -i 's/\\r$//' {quoted}"),
            ScriptIssue::NotExecutable => format!("chmod +x {quoted}"),
        }
    }

    /// Fix it in place: strip the carriage returns (writing through a temporary file and a rename,
    /// keeping the file's mode), or add execute bits where read bits are.
    pub(crate) fn fix(&self) -> std::io::Result<()> {
        match self.issue {
            ScriptIssue::CrlfLineEndings => strip_carriage_returns(&self.path),
            ScriptIssue::NotExecutable => {
                let mode = std::fs::metadata(&self.path)?.permissions().mode();
                let exec = (mode & 0o444) >> 2;
                std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(mode | exec | 0o100))
            }
        }
    }
}

/// The scripts of a skill folder and their problems. A script is the entry (`entry`, relative
/// to `dir`), any file under `scripts/`, and any file that starts with `#!`; files under hidden
/// folders and `node_modules` are not looked at.
pub(crate) fn check_scripts(dir: &Path, entry: Option<&str>) -> Vec<ScriptProblem> {
    let mut problems = Vec::new();
    for (path, meant_to_run) in candidates(dir, entry) {
        let Ok(read) = read_regular(&path, MAX_SCRIPT_BYTES) else {
            continue;
        };
        let shebang = read.bytes.starts_with(b"#!");
        if !(shebang || meant_to_run) {
            continue;
        }
        if read.bytes.windows(2).any(|w| w == b"\r\n") {
            problems.push(ScriptProblem {
                issue: ScriptIssue::CrlfLineEndings,
                path: path.clone(),
            });
        }
        let executable = crate::support::fs::is_executable_file(&path);
        // A script under scripts/ without `#!` may be meant for `python3 scripts/x.py`.
        if !executable && (shebang || entry_matches(dir, entry, &path)) {
            problems.push(ScriptProblem {
                issue: ScriptIssue::NotExecutable,
                path,
            });
        }
    }
    problems
}

fn entry_matches(dir: &Path, entry: Option<&str>, path: &Path) -> bool {
    entry.is_some_and(|e| dir.join(e.trim_start_matches("./")) == path)
}

/// Regular files worth looking at, with whether they are meant to be run (the entry, or under
/// `scripts/`), sorted.
fn candidates(dir: &Path, entry: Option<&str>) -> Vec<(PathBuf, bool)> {
    let mut found: Vec<(PathBuf, bool)> = files_below(dir, MAX_FILES)
        .into_iter()
        .filter(|(_, kind)| kind.is_file())
        .map(|(path, _)| {
            let meant = path.starts_with(dir.join("scripts")) || entry_matches(dir, entry, &path);
            (path, meant)
        })
        .collect();
    found.sort();
    found.truncate(MAX_FILES);
    found
}

fn strip_carriage_returns(path: &Path) -> std::io::Result<()> {
    let read = read_regular(path, MAX_SCRIPT_BYTES)?;
    if read.truncated() {
        return Err(std::io::Error::other(format!(
            "is over {MAX_SCRIPT_BYTES} bytes; convert it with the command shown"
        )));
    }
    let mut fixed = Vec::with_capacity(read.bytes.len());
    let mut bytes = read.bytes.iter().peekable();
    while let Some(b) = bytes.next() {
        if *b == b'\r' && bytes.peek() == Some(&&b'\n') {
            continue;
        }
        fixed.push(*b);
    }
    let mode = std::fs::metadata(path)?.permissions().mode();
    let tmp = path.with_file_name(format!(
        ".{}.crlf-{}",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        std::process::id()
    ));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&fixed)?;
    file.sync_all()?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str, mode: u32) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn crlf_and_missing_exec_bits_are_found_and_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("run.sh"), "#!/bin/sh\r\necho hi\r\n", 0o644);
        write(&d.join("scripts/ok.sh"), "#!/bin/sh\necho ok\n", 0o755);
        write(&d.join("scripts/helper.py"), "print('x')\r\n", 0o644);
        write(&d.join("README.md"), "# text\r\n", 0o644);
        write(&d.join(".hidden/x.sh"), "#!/bin/sh\r\n", 0o644);
        let problems = check_scripts(d, Some("run.sh"));
        let found: Vec<(&str, String)> = problems
            .iter()
            .map(|p| (p.issue.code(), p.path.strip_prefix(d).unwrap().display().to_string()))
            .collect();
        assert_eq!(
            found,
            [
                ("script-crlf", "run.sh".to_string()),
                ("not-executable", "run.sh".to_string()),
                ("script-crlf", "scripts/helper.py".to_string()),
            ]
        );
        assert!(
            problems[1].fix_command().starts_with("chmod +x "),
            "{}",
            problems[1].fix_command()
        );
        assert!(problems[0].fix_command().contains("sed -i"));
        for p in &problems {
            p.fix().unwrap();
        }
        assert!(check_scripts(d, Some("run.sh")).is_empty());
        assert_eq!(
            std::fs::read_to_string(d.join("run.sh")).unwrap(),
            "#!/bin/sh\necho hi\n"
        );
        let mode = std::fs::metadata(d.join("run.sh")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        let helper = std::fs::metadata(d.join("scripts/helper.py"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(helper, 0o644, "fixing line endings keeps the mode");
    }
}
