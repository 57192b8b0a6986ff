//! The skills that ship inside the binary (`skills/` of the source tree, embedded by `build.rs`),
//! so `agent --once "weather in Tokyo"` works from any folder right after `cargo install`. They are
//! written once per version to `$XDG_DATA_HOME/agent/bundled/<digest>/` (default
//! `~/.local/share/agent/bundled/`) and found there as the last skill root: any skill of the same
//! name elsewhere wins, silently. Their folder is read-only to their own commands, like an
//! installed skill's. `AGENT_BUNDLED_SKILLS=0` turns them off.
//!
//! The copy on disk is the binary's, not the user's: anything could have edited it since it was
//! written (its folder is read-only to commands, not to other programs). So it is compared with the
//! embedded files when a run starts and again before each of its commands ([`restore`]), and what
//! differs is put back — changed and missing files rewritten, extra files removed — so the skill
//! still works and what runs is what shipped (docs/sandbox.md, "Bundled skills run as shipped").
//! Saying so is the caller's.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/bundled_skills.rs"));

/// The folder holding every bundled skill below `data_home` (`$XDG_DATA_HOME`), written there
/// first when this version's copy is missing. A copy is named by a digest of the embedded files,
/// so an upgrade writes a fresh one (and removes older copies) and never trusts stale files.
pub(crate) fn ensure(data_home: &Path) -> io::Result<PathBuf> {
    let parent = data_home.join("agent").join("bundled");
    let dir = parent.join(digest());
    if dir.is_dir() {
        // Before anything of it is read: an edited SKILL.md could grant its commands more.
        for (name, restored) in restore_all(&dir)? {
            tracing::warn!("the bundled skill {name} was changed on disk; restored {restored:?}");
            remember(name, restored);
        }
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
pub(crate) fn names() -> Vec<&'static str> {
    let mut names: Vec<&str> = FILES.iter().filter_map(|(rel, _, _)| rel.split('/').next()).collect();
    names.dedup();
    names
}

/// What was restored when the run started, per skill, until a command says so.
static RESTORED: std::sync::Mutex<Vec<(String, Vec<String>)>> = std::sync::Mutex::new(Vec::new());

fn remember(name: String, files: Vec<String>) {
    if let Ok(mut list) = RESTORED.lock() {
        list.push((name, files));
    }
}

/// Put every bundled skill below `root` (a copy written by [`ensure`]) back as the binary has it,
/// and remove anything else there (a skill planted among the bundled ones would be trusted as
/// one). Returns, per skill (or `(bundled folder)` for removed extras), the paths restored.
pub(crate) fn restore_all(root: &Path) -> io::Result<Vec<(String, Vec<String>)>> {
    let names = names();
    let mut out = Vec::new();
    let mut extra = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !names.contains(&name.as_str()) {
            remove_entry(&entry.path())?;
            extra.push(name);
        }
    }
    if !extra.is_empty() {
        out.push(("(bundled folder)".to_string(), extra));
    }
    for name in names {
        let restored = restore(&root.join(name))?;
        if !restored.is_empty() {
            out.push((name.to_string(), restored));
        }
    }
    Ok(out)
}

/// Put the bundled skill in `skill_dir` back as the binary has it: every embedded file of it
/// rewritten where it is missing or differs (content or execute bit), every other entry removed
/// (a symlink itself, never what it points to). Returns the paths, relative to the skill's
/// folder, that were restored; empty when all was as shipped.
pub(crate) fn restore(skill_dir: &Path) -> io::Result<Vec<String>> {
    let name = skill_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let prefix = format!("{name}/");
    let files: Vec<(&str, &[u8], bool)> = FILES
        .iter()
        .filter_map(|(rel, bytes, exec)| rel.strip_prefix(prefix.as_str()).map(|r| (r, *bytes, *exec)))
        .collect();
    if files.is_empty() {
        return Err(io::Error::other(format!("{name} is not a bundled skill")));
    }
    let mut restored = Vec::new();
    for extra in extras(skill_dir, &files)? {
        remove_entry(&skill_dir.join(&extra))?;
        restored.push(extra);
    }
    for (rel, bytes, exec) in &files {
        let path = skill_dir.join(rel);
        if same(&path, bytes, *exec) {
            continue;
        }
        if std::fs::symlink_metadata(&path).is_ok() {
            remove_entry(&path)?;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        std::fs::set_permissions(
            &path,
            std::fs::Permissions::from_mode(if *exec { 0o555 } else { 0o444 }),
        )?;
        restored.push((*rel).to_string());
    }
    restored.sort();
    restored.dedup();
    Ok(restored)
}

/// What [`ensure`] restored when the run started, per skill, handed out once (the run's first
/// command of a bundled skill says so).
pub(crate) fn restored_at_start() -> Vec<(String, Vec<String>)> {
    RESTORED
        .lock()
        .map(|mut list| std::mem::take(&mut *list))
        .unwrap_or_default()
}

/// Whether `path` is a regular file (not a link) with exactly `bytes` and the execute bit `exec`.
fn same(path: &Path, bytes: &[u8], exec: bool) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    let executable = meta.permissions().mode() & 0o111 != 0;
    meta.is_file()
        && meta.len() == bytes.len() as u64
        && executable == exec
        && std::fs::read(path).is_ok_and(|on_disk| on_disk == bytes)
}

/// Entries below `dir` (relative paths) that are neither an embedded file nor a folder holding
/// one. Links are not followed.
fn extras(dir: &Path, files: &[(&str, &[u8], bool)]) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        // Gone (or replaced by a file or link): removed, then written anew.
        if std::fs::symlink_metadata(dir).is_ok() {
            remove_entry(dir)?;
        }
        std::fs::create_dir_all(dir)?;
    }
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            let shown = path.to_string_lossy().into_owned();
            let folder = entry.file_type()?.is_dir();
            let holds = files
                .iter()
                .any(|(f, _, _)| Path::new(f).starts_with(&path) && *f != shown);
            if folder && holds {
                stack.push(path);
            } else if !files.iter().any(|(f, _, _)| *f == shown) || folder {
                out.push(shown);
            }
        }
    }
    Ok(out)
}

/// Remove a file, a link (itself) or a folder with what is in it.
fn remove_entry(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
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
    fn an_edited_copy_is_put_back_as_shipped() {
        let data = tempfile::tempdir().unwrap();
        let dir = ensure(data.path()).unwrap();
        let time = dir.join("time");
        assert_eq!(
            restore(&time).unwrap(),
            Vec::<String>::new(),
            "as shipped: nothing to do"
        );
        let run = time.join("run.sh");
        let shipped = std::fs::read(&run).unwrap();
        std::fs::remove_file(&run).unwrap();
        std::fs::write(&run, "#!/bin/sh\ntouch /tmp/canary\n").unwrap();
        std::fs::create_dir_all(time.join("scripts")).unwrap();
        std::fs::write(time.join("scripts/planted.sh"), "x").unwrap();
        let outside = data.path().join("outside");
        std::fs::write(&outside, "keep").unwrap();
        std::os::unix::fs::symlink(&outside, time.join("link")).unwrap();
        let mut restored = restore(&time).unwrap();
        restored.sort();
        assert_eq!(restored, ["link", "run.sh", "scripts"]);
        assert_eq!(std::fs::read(&run).unwrap(), shipped);
        assert_eq!(std::fs::metadata(&run).unwrap().permissions().mode() & 0o777, 0o555);
        assert!(!time.join("scripts").exists() && std::fs::symlink_metadata(time.join("link")).is_err());
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "keep",
            "a link is removed, not followed"
        );
        // A run that starts finds an edit too, and the next check says so.
        std::fs::remove_file(&run).unwrap();
        std::fs::write(&run, "edited").unwrap();
        assert_eq!(ensure(data.path()).unwrap(), dir);
        assert_eq!(std::fs::read(&run).unwrap(), shipped);
        assert_eq!(restore(&time).unwrap(), Vec::<String>::new());
        let said = restored_at_start();
        assert!(
            said.contains(&("time".to_string(), vec!["run.sh".to_string()])),
            "{said:?}"
        );
        // A skill planted among the bundled ones is removed; a missing one is written anew.
        std::fs::create_dir_all(dir.join("planted")).unwrap();
        std::fs::write(dir.join("planted/SKILL.md"), "x").unwrap();
        std::fs::remove_dir_all(dir.join("weather")).unwrap();
        let all = restore_all(&dir).unwrap();
        assert!(
            all.contains(&("(bundled folder)".to_string(), vec!["planted".to_string()])),
            "{all:?}"
        );
        assert!(all.iter().any(|(n, _)| n == "weather"), "{all:?}");
        assert!(!dir.join("planted").exists() && dir.join("weather/run.sh").is_file());
        assert!(restore(&data.path().join("nope")).is_err());
    }

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
