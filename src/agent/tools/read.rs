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
pub fn read_inside(dir: &Path, rel: &str) -> Result<String, ToolOutcome> {
    let rel_path = Path::new(rel);
    if rel_path.is_absolute() || rel_path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(ToolOutcome::refused(format!(
            "{rel:?} is outside the skill folder; give a path relative to it without `..`"
        )));
    }
    let root =
        std::fs::canonicalize(dir).map_err(|e| ToolOutcome::failed(format!("cannot open the skill folder: {e}")))?;
    let target = std::fs::canonicalize(dir.join(rel_path))
        .map_err(|e| ToolOutcome::failed(format!("cannot open {rel:?}: {e}")))?;
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
    let mut text = read.text();
    if read.truncated() {
        text.push_str(&format!(
            "\n[… file is {} bytes; only the first {MAX_READ_BYTES} are shown]",
            read.size
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(result: Result<String, ToolOutcome>) -> String {
        result.unwrap_err().message().to_string()
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
