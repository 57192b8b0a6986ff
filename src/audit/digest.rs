//! The deterministic directory digest of a skill (docs/skills-lock.md, "Digest"): the algorithm
//! proposed for `skill_digest` in the Agent Skills repository (agentskills/agentskills#358), so
//! a publisher's tool and `agent` agree on it. For each regular file below the folder, sorted by
//! its `/`-separated relative path as bytes, the line `PATH 0x00 HEX 0x0A` is hashed, HEX being
//! the lowercase hex SHA-256 of the file; the digest is `sha256-` and the unpadded base64url of
//! that hash. `.git/` and the signature file `SKILL.sig` are left out (the signature covers the
//! digest, so it cannot be part of it). A symlink counts as `PATH 0x00 link:TARGET 0x0A`, so a
//! changed link changes the digest without the link being followed.

use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine;
use sha2::{Digest, Sha256};

/// The file holding a publisher's minisign signature of the digest.
pub(crate) const SIGNATURE_FILE: &str = "SKILL.sig";

/// Most files a digest covers; a folder with more cannot be digested (an error says so).
const MAX_FILES: usize = 20_000;

/// Why a folder has no digest.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DigestError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{0} holds more than {MAX_FILES} files; a skill that large is not digested")]
    TooMany(PathBuf),
}

/// The digest of the skill folder `dir`.
pub(crate) fn digest_dir(dir: &Path) -> Result<String, DigestError> {
    let mut entries = Vec::new();
    collect(dir, "", &mut entries)?;
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut outer = Sha256::new();
    for (rel, value) in &entries {
        outer.update(rel.as_bytes());
        outer.update([0]);
        outer.update(value.as_bytes());
        outer.update([b'\n']);
    }
    Ok(format!(
        "sha256-{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(outer.finalize())
    ))
}

/// (relative path, hex hash or `link:TARGET`) of every file below `dir/prefix`.
fn collect(dir: &Path, prefix: &str, out: &mut Vec<(String, String)>) -> Result<(), DigestError> {
    let here = dir.join(prefix);
    let read_err = |source| DigestError::Read {
        path: here.clone(),
        source,
    };
    for entry in std::fs::read_dir(&here).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type().map_err(read_err)?;
        if kind.is_dir() {
            if name != ".git" {
                collect(dir, &rel, out)?;
            }
            continue;
        }
        if rel == SIGNATURE_FILE {
            continue;
        }
        if out.len() >= MAX_FILES {
            return Err(DigestError::TooMany(dir.to_path_buf()));
        }
        let path = entry.path();
        let value = if kind.is_symlink() {
            let target = std::fs::read_link(&path).map_err(|source| DigestError::Read {
                path: path.clone(),
                source,
            })?;
            format!("link:{}", target.to_string_lossy())
        } else if kind.is_file() {
            hash_file(&path)?
        } else {
            // FIFOs, sockets, devices hold no content of a skill.
            continue;
        };
        out.push((rel, value));
    }
    Ok(())
}

/// The lowercase hex SHA-256 of a regular file, streamed.
fn hash_file(path: &Path) -> Result<String, DigestError> {
    let fail = |source| DigestError::Read {
        path: path.to_path_buf(),
        source,
    };
    let (mut file, _) = crate::support::fs::open_regular(path).map_err(fail)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(fail)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
