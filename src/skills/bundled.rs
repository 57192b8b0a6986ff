//! The skills that ship inside the binary (`skills/` of the source tree, embedded by `build.rs`),
//! so `agent --once "weather in Tokyo"` works from any folder right after `cargo install`. They are
//! written once per version to `$XDG_DATA_HOME/agent/bundled/<digest>/` (default
//! `~/.local/share/agent/bundled/`) and found there as the last skill root: any skill of the same
//! name elsewhere wins, silently. Their folder is read-only to their own commands, like an
//! installed skill's. `AGENT_BUNDLED_SKILLS=0` turns them off.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/bundled_skills.rs"));

/// The folder holding every bundled skill below `data_home` (`$XDG_DATA_HOME`), written there
/// first when this version's copy is missing. A copy is named by a digest of the embedded files,
/// so an upgrade writes a fresh one (and removes older copies) and never trusts stale files.
pub fn ensure(data_home: &Path) -> io::Result<PathBuf> {
    let parent = data_home.join("agent").join("bundled");
    let dir = parent.join(digest());
    if dir.is_dir() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&parent)?;
    // Written beside, then renamed into place: a run never sees half a copy, and two runs
    // writing at once both end with the one that won the rename.
    let staging = tempfile::Builder::new().prefix(".writing-").tempdir_in(&parent)?;
    write_all(staging.path())?;
    match std::fs::rename(staging.path(), &dir) {
        Ok(()) => {}
        Err(_) if dir.is_dir() => {}
        Err(e) => return Err(e),
    }
    remove_older(&parent, &dir);
    Ok(dir)
}

/// The names of the bundled skills (their folders), in order.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&str> = FILES.iter().filter_map(|(rel, _, _)| rel.split('/').next()).collect();
    names.dedup();
    names
}

/// A short, stable name for this set of files (their paths, modes and contents).
fn digest() -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (rel, bytes, exec) in FILES {
        hasher.update(rel.as_bytes());
        hasher.update(&[0, u8::from(*exec)]);
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    format!("{}-{:016x}", env!("CARGO_PKG_VERSION"), hasher.digest())
}

/// Write every embedded file below `dir`, read-only (scripts executable): the copy is the
/// binary's, not a place to edit.
fn write_all(dir: &Path) -> io::Result<()> {
    for (rel, bytes, exec) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        let mode = if *exec { 0o555 } else { 0o444 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
}

/// Remove copies of other versions (best effort: a failure leaves only disk space behind).
fn remove_older(parent: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A `.writing-…` folder is another run's copy in progress.
        let in_progress = entry.file_name().to_string_lossy().starts_with('.');
        if path != keep && !in_progress && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_skills_are_embedded() {
        let names = names();
        assert!(names.contains(&"weather") && names.contains(&"time"), "{names:?}");
        let run = FILES.iter().find(|(rel, _, _)| *rel == "weather/run.sh").unwrap();
        assert!(run.2, "run.sh keeps its execute bit");
    }

    #[test]
    fn written_once_read_only_and_older_copies_removed() {
        let data = tempfile::tempdir().unwrap();
        let old = data.path().join("agent/bundled/0.0.1-old");
        std::fs::create_dir_all(&old).unwrap();
        let dir = ensure(data.path()).unwrap();
        assert!(dir.join("weather/SKILL.md").is_file());
        let mode = std::fs::metadata(dir.join("weather/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o555);
        assert!(!old.exists(), "an older copy is removed");
        // Present: not written again.
        let stamp = std::fs::metadata(dir.join("weather/SKILL.md"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(ensure(data.path()).unwrap(), dir);
        let again = std::fs::metadata(dir.join("weather/SKILL.md"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(stamp, again);
    }
}
