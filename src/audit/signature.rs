//! Publisher signatures (docs/skills-lock.md, "Signatures"): a skill may ship `SKILL.sig`, a
//! minisign signature (ed25519) of its directory digest as text (`sha256-…`, [`super::digest`]). It
//! is checked against the public keys the user listed with `agent skills keys add`, kept in
//! `$XDG_CONFIG_HOME/agent/skill-keys.json`; a key may be required for sources starting with a
//! prefix, and an install from such a source then needs a valid signature by it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::digest::SIGNATURE_FILE;
use crate::support::fs::read_whole;

/// Most bytes of a signature or keys file read.
const MAX_BYTES: u64 = 256 * 1024;

/// Where a skill's signature stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// A listed key verifies `SKILL.sig` over the current digest.
    Signed,
    /// No `SKILL.sig`.
    Unsigned,
    /// `SKILL.sig` exists but no listed key verifies it (wrong key, other content, malformed).
    Invalid,
}

impl Status {
    /// The lowercase name (`signed`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Signed => "signed",
            Status::Unsigned => "unsigned",
            Status::Invalid => "invalid",
        }
    }
}

/// One trusted publisher key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Key {
    /// The minisign public key, base64 (`RW…`), as the second line of a `.pub` file holds it.
    pub(crate) key: String,
    /// A note for the user (whose key it is).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) comment: String,
    /// Sources (prefixes of `skills add` sources, e.g. `https://github.com/acme/`) whose skills
    /// must carry a valid signature by this key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) require_for: Vec<String>,
}

/// The user's keys file.
/// Why the keys file cannot be read or written, or a key cannot be listed; each names the file
/// (or the key) and keeps the error underneath.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeysError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{} is not a valid keys file ({source}); fix or remove it", path.display())]
    Invalid { path: PathBuf, source: serde_json::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Encode { path: PathBuf, source: serde_json::Error },
    #[error("{key:?} is not a minisign public key ({source}); give the `RW…` line of the publisher's .pub file")]
    NotAKey {
        key: String,
        source: minisign_verify::Error,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Keys {
    #[serde(default)]
    pub(crate) keys: Vec<Key>,
}

impl Keys {
    /// The keys file's place: `$XDG_CONFIG_HOME/agent/skill-keys.json`.
    pub(crate) fn path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "agent").map(|d| d.config_dir().join("skill-keys.json"))
    }

    /// The keys at `path`; none when there is no file; an error naming the file when it is
    /// unreadable or not valid.
    pub(crate) fn read(path: &Path) -> Result<Self, KeysError> {
        let path_buf = path.to_path_buf();
        match read_whole(path, MAX_BYTES) {
            Ok(read) => {
                serde_json::from_slice(&read.bytes).map_err(|source| KeysError::Invalid { path: path_buf, source })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(KeysError::Read { path: path_buf, source }),
        }
    }

    /// Write the keys to `path`, through a temporary file and a rename.
    pub(crate) fn write(&self, path: &Path) -> Result<(), KeysError> {
        let fail = |source| KeysError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(|source| KeysError::Encode {
            path: path.to_path_buf(),
            source,
        })?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&tmp, text + "\n").map_err(fail)?;
        std::fs::rename(&tmp, path).map_err(fail)
    }

    /// Add `key` (checked to be a minisign public key), or extend the prefixes of a listed one.
    pub(crate) fn add(&mut self, key: &str, comment: &str, require_for: Option<&str>) -> Result<(), KeysError> {
        let key = public_key_text(key);
        if let Err(source) = minisign_verify::PublicKey::from_base64(&key) {
            return Err(KeysError::NotAKey { key, source });
        }
        let entry = match self.keys.iter_mut().position(|k| k.key == key) {
            Some(at) => &mut self.keys[at],
            None => {
                self.keys.push(Key {
                    key: key.clone(),
                    comment: String::new(),
                    require_for: Vec::new(),
                });
                let last = self.keys.len() - 1;
                &mut self.keys[last]
            }
        };
        if !comment.is_empty() {
            entry.comment = comment.to_string();
        }
        if let Some(prefix) = require_for.filter(|p| !entry.require_for.iter().any(|r| r == p)) {
            entry.require_for.push(prefix.to_string());
        }
        Ok(())
    }

    /// The keys a skill from `source` must be signed by (empty: signatures are optional).
    pub(crate) fn required_for(&self, source: &str) -> Vec<&Key> {
        self.keys
            .iter()
            .filter(|k| k.require_for.iter().any(|p| source.starts_with(p.as_str())))
            .collect()
    }
}

/// The base64 key of `text`: the key itself, or a whole `.pub` file (its last non-empty line).
fn public_key_text(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// Whether `SKILL.sig` in `dir` is a valid signature of `digest` by one of `keys`.
pub(crate) fn check(dir: &Path, digest: &str, keys: &[&Key]) -> Status {
    let Ok(read) = read_whole(&dir.join(SIGNATURE_FILE), MAX_BYTES) else {
        return Status::Unsigned;
    };
    let Ok(signature) = minisign_verify::Signature::decode(&read.text()) else {
        return Status::Invalid;
    };
    let verifies = keys.iter().any(|k| {
        minisign_verify::PublicKey::from_base64(&k.key)
            .is_ok_and(|pk| pk.verify(digest.as_bytes(), &signature, false).is_ok())
    });
    if verifies { Status::Signed } else { Status::Invalid }
}
