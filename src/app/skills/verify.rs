//! `agent skills verify [NAME]` and `agent skills keys add KEY`: recompute the
//! deterministic directory digest of each installed skill against the one `skills-lock.json`
//! recorded, check publisher signatures (`SKILL.sig`) against the user's keys, and list keys.

use std::path::Path;

use crate::audit::digest::digest_dir;
use crate::audit::signature::{self, Keys, Status};
use crate::exit::{AppError, ExitCode};
use crate::output::audit::{KeyAdded, SkillsVerified, VerifiedSkill};

/// The user's keys, or a configuration error naming the file.
fn user_keys() -> Result<Keys, AppError> {
    match Keys::path() {
        Some(path) => Ok(Keys::read(&path)?),
        None => Ok(Keys::default()),
    }
}

/// Verify every skill the lock files of `roots` list (or only the one `only` names, by its own
/// name or its folder's). Exit 1 when a digest
/// changed or a signature is invalid.
pub(crate) fn verify(roots: &[&Path], only: Option<&str>) -> Result<(SkillsVerified, ExitCode), AppError> {
    let keys = user_keys()?;
    let all: Vec<&signature::Key> = keys.keys.iter().collect();
    let mut skills = Vec::new();
    for (root, name, entry) in super::installed::entries(roots, only)? {
        let dir = root.join(&name);
        let digest = digest_dir(&dir).ok();
        let signature = digest
            .as_deref()
            .map_or(Status::Unsigned, |d| signature::check(&dir, d, &all));
        skills.push(VerifiedSkill {
            matches: entry.digest.is_some() && entry.digest == digest,
            recorded: entry.digest,
            digest,
            signature,
            dir,
            name,
        });
    }
    let failed = skills
        .iter()
        .any(|s| (s.recorded.is_some() && !s.matches) || s.signature == Status::Invalid);
    Ok((
        SkillsVerified { skills },
        if failed { ExitCode::Internal } else { ExitCode::Answered },
    ))
}

/// `skills keys add KEY [--comment TEXT] [--require-for SOURCE]`.
pub(crate) fn add_key(key: &str, comment: Option<&str>, require_for: Option<&str>) -> Result<KeyAdded, AppError> {
    let path =
        Keys::path().ok_or_else(|| AppError::config("no configuration folder (HOME is unset) to keep keys in"))?;
    let mut keys = Keys::read(&path)?;
    keys.add(key, comment.unwrap_or(""), require_for)?;
    keys.write(&path)?;
    let added = keys
        .keys
        .iter()
        .find(|k| key.contains(k.key.as_str()))
        .cloned()
        .ok_or_else(|| AppError::internal("the key just added is not in the file"))?;
    Ok(KeyAdded {
        path,
        key: added.key,
        require_for: added.require_for,
    })
}

/// Before installing from `source`: when the user requires signatures for it, the skill at
/// `dir` must carry a valid one by a required key.
pub(crate) fn require_signature(dir: &Path, source: &str) -> Result<(), AppError> {
    let keys = user_keys()?;
    let required = keys.required_for(source);
    if required.is_empty() {
        return Ok(());
    }
    let digest = digest_dir(dir).map_err(|e| AppError::from_source(ExitCode::Config, e))?;
    match signature::check(dir, &digest, &required) {
        Status::Signed => Ok(()),
        status => Err(AppError::new(
            ExitCode::AuditCritical,
            format!(
                "{}: skills from {source} must be signed by a key you listed (`agent skills keys add --require-for`), \
                 but its {} is {}; nothing was installed",
                dir.display(),
                crate::audit::digest::SIGNATURE_FILE,
                if status == Status::Unsigned {
                    "missing"
                } else {
                    "not valid for its content and your keys"
                }
            ),
        )),
    }
}

/// A key that is not a minisign public key is a usage error (exit 2); a keys file that cannot be
/// read or written is a configuration error (exit 3).
impl From<signature::KeysError> for AppError {
    fn from(err: signature::KeysError) -> Self {
        let code = match err {
            signature::KeysError::NotAKey { .. } => ExitCode::Usage,
            _ => ExitCode::Config,
        };
        AppError::from_source(code, err)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_key_that_is_not_one_is_a_usage_error_keeping_the_parser_error() {
        let err = AppError::from(Keys::default().add("not a key", "", None).unwrap_err());
        assert_eq!(err.code, ExitCode::Usage);
        assert!(err.message.contains("is not a minisign public key"), "{}", err.message);
        let beneath = err.source().and_then(Error::source);
        assert!(beneath.is_some_and(|e| e.is::<minisign_verify::Error>()), "{err:?}");
    }

    #[test]
    fn an_unreadable_keys_file_is_a_configuration_error_keeping_the_io_error() {
        let dir = tempfile::tempdir().unwrap();
        // A folder where the file should be: reading it fails with an io error, not "missing".
        let err = AppError::from(Keys::read(dir.path()).unwrap_err());
        assert_eq!(err.code, ExitCode::Config);
        assert!(err.message.starts_with("cannot read "), "{}", err.message);
        let beneath = err.source().and_then(Error::source);
        assert!(beneath.is_some_and(|e| e.is::<std::io::Error>()), "{err:?}");
        assert!(
            err.causes().is_empty(),
            "the message already quotes the io error: {:?}",
            err.causes()
        );
    }
}
