//! What a folder brings, as content hashes: its project skill folders and its `.env`. A hash
//! changes when any file of a skill changes, is added or removed, so trust given to one version
//! does not carry over to the next.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::support::fs::read_regular;
use crate::support::skill_dirs::{PROJECT_SKILL_ROOTS, find_skill_file, is_ignored};

/// Most files of one skill folder that are hashed; more are counted into the hash by number.
const MAX_FILES: usize = 1000;
/// Most bytes of one file that are hashed (its size is always included).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Most bytes hashed for one skill folder in total.
const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;

/// The hex SHA-256 of some bytes.
pub fn hash_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key of a project's MCP configuration in a trust record, beside its skills' keys: its
/// servers are commands from the repository, trusted (and re-asked on change) like a skill.
pub const MCP_CONFIG_KEY: &str = ".mcp.json";

/// Largest `.mcp.json` hashed and read.
const MAX_MCP_CONFIG_BYTES: u64 = 1 << 20;

/// The content hash of `folder`'s `.mcp.json`, and what each server in it would start
/// (`name: command args…` or `name: URL`), when there is one.
pub fn mcp_config(folder: &Path) -> Option<(String, Vec<String>)> {
    let read = read_regular(&folder.join(MCP_CONFIG_KEY), MAX_MCP_CONFIG_BYTES).ok()?;
    let parsed: serde_json::Value = serde_json::from_slice(&read.bytes).unwrap_or_default();
    let servers = parsed
        .get("mcpServers")
        .and_then(serde_json::Value::as_object)
        .map(|servers| {
            servers
                .iter()
                .map(|(name, s)| {
                    let words: Vec<&str> = s
                        .get("command")
                        .or_else(|| s.get("url"))
                        .into_iter()
                        .chain(
                            s.get("args")
                                .and_then(serde_json::Value::as_array)
                                .into_iter()
                                .flatten(),
                        )
                        .filter_map(serde_json::Value::as_str)
                        .collect();
                    format!("{name}: {}", words.join(" "))
                })
                .collect()
        })
        .unwrap_or_default();
    Some((hash_bytes(&read.bytes), servers))
}

/// The skill folders a folder's own project roots (`./.agents/skills`, `./skills`) hold; see
/// [`skills_in_roots`].
pub fn project_skills(folder: &Path) -> Vec<(String, PathBuf)> {
    let roots: Vec<PathBuf> = PROJECT_SKILL_ROOTS.iter().map(|r| folder.join(r)).collect();
    skills_in_roots(folder, &roots)
}

/// The skill folders `roots` hold, as (key, folder): the key is the folder's path relative to
/// `folder` (`skills/weather`, `../.agents/skills/deploy` for a parent's), which is how trust
/// records name it.
pub fn skills_in_roots(folder: &Path, roots: &[PathBuf]) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for root_dir in roots {
        let root_dir = root_dir.clone();
        if find_skill_file(&root_dir).is_some() {
            found.push((relative_key(folder, &root_dir), root_dir));
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&root_dir) else {
            continue;
        };
        let mut dirs: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| !is_ignored(&e.file_name().to_string_lossy()))
            .map(|e| e.path())
            .filter(|p| p.is_dir() && find_skill_file(p).is_some())
            .map(|p| (relative_key(folder, &p), p))
            .collect();
        dirs.sort();
        found.extend(dirs);
    }
    found
}

/// How trust records name `dir`: relative to `folder` when inside it, `../…` when inside one of
/// its parents (a parent's `.agents/skills`), else its absolute path.
pub fn relative_key(folder: &Path, dir: &Path) -> String {
    for (up, ancestor) in folder.ancestors().enumerate() {
        if let Ok(rel) = dir.strip_prefix(ancestor) {
            if up > 0 && ancestor.parent().is_none() {
                break;
            }
            let mut key = "../".repeat(up);
            key.push_str(&rel.display().to_string());
            return key;
        }
    }
    dir.display().to_string()
}

/// The content hash of a skill folder: every file's relative path, kind, size and (capped) bytes,
/// in path order. Symlinked files are hashed by their target's content; symlinked folders by where
/// they point (not entered, so a loop cannot trap the walk). FIFOs and devices are never opened.
pub fn hash_skill_dir(dir: &Path) -> String {
    let mut hasher = Sha256::new();
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    let mut listed = 0usize;
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            listed += 1;
            if listed > MAX_FILES * 4 {
                break;
            }
            let rel_path = rel.join(entry.file_name());
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                stack.push(rel_path);
            } else {
                files.push((rel_path, kind.is_symlink()));
            }
        }
    }
    files.sort();
    hasher.update(format!("files {}\n", files.len()));
    let mut budget = MAX_TOTAL_BYTES;
    for (rel, is_link) in files.iter().take(MAX_FILES) {
        let path = dir.join(rel);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        if *is_link && path.is_dir() {
            let target = std::fs::read_link(&path).unwrap_or_default();
            hasher.update(format!("link-dir {}\n", target.display()));
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => {
                hasher.update(format!("file {}\n", meta.len()));
                let take = meta.len().min(MAX_FILE_BYTES).min(budget);
                budget -= take;
                if let Ok(read) = read_regular(&path, take) {
                    hasher.update(&read.bytes);
                }
            }
            Ok(meta) => hasher.update(format!("special {:?}\n", meta.file_type())),
            Err(e) => hasher.update(format!("unreadable {}\n", e.kind())),
        }
    }
    hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_hash_changes_with_any_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SKILL.md"), "a").unwrap();
        std::fs::create_dir(dir.path().join("scripts")).unwrap();
        std::fs::write(dir.path().join("scripts/x.sh"), "echo").unwrap();
        let first = hash_skill_dir(dir.path());
        assert_eq!(first, hash_skill_dir(dir.path()), "stable");
        std::fs::write(dir.path().join("scripts/x.sh"), "echo!").unwrap();
        let edited = hash_skill_dir(dir.path());
        assert_ne!(first, edited);
        std::fs::write(dir.path().join("scripts/y.sh"), "").unwrap();
        assert_ne!(edited, hash_skill_dir(dir.path()), "a new empty file counts");
    }

    #[test]
    fn fifos_and_link_loops_do_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SKILL.md"), "a").unwrap();
        let fifo = std::ffi::CString::new(dir.path().join("pipe").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo only creates a file at a path we own.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
        let _ = hash_skill_dir(dir.path());
    }

    #[test]
    fn project_skills_are_listed_by_relative_key() {
        let dir = tempfile::tempdir().unwrap();
        for rel in [
            "skills/b",
            "skills/a",
            ".agents/skills/c",
            "skills/.hidden",
            "skills/not-a-skill",
        ] {
            std::fs::create_dir_all(dir.path().join(rel)).unwrap();
        }
        for rel in ["skills/b", "skills/a", ".agents/skills/c", "skills/.hidden"] {
            std::fs::write(dir.path().join(rel).join("SKILL.md"), "x").unwrap();
        }
        let keys: Vec<String> = project_skills(dir.path()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [".agents/skills/c", "skills/a", "skills/b"]);
        let inner = dir.path().join("sub");
        let roots = [dir.path().join(".agents/skills"), inner.join(".claude/skills")];
        std::fs::create_dir_all(inner.join(".claude/skills/d")).unwrap();
        std::fs::write(inner.join(".claude/skills/d/Skill.md"), "x").unwrap();
        let keys: Vec<String> = skills_in_roots(&inner, &roots).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["../.agents/skills/c", ".claude/skills/d"]);
        assert_eq!(relative_key(Path::new("/a/b"), Path::new("/x/y")), "/x/y");
    }
}
