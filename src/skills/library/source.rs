//! What `agent skills add SOURCE` was given: a local folder, a git URL, or `owner/repo` (GitHub),
//! each optionally followed by `@REF` (branch, tag or commit) and `#SUBDIR` (a folder inside).

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Where skills are fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// A folder on this machine, copied as it is.
    Local(PathBuf),
    /// A git repository, fetched with the system `git`.
    Git(String),
}

/// A parsed SOURCE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    pub(crate) location: Location,
    /// `@REF`: a branch, tag or commit (git only).
    pub(crate) reference: Option<String>,
    /// `#SUBDIR`: a relative folder inside the repository or folder.
    pub(crate) subdir: Option<String>,
}

/// Why a SOURCE cannot be used; each says what a good one looks like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SourceError {
    #[error("the source is empty; give a folder, a git URL or owner/repo")]
    Empty,
    #[error(
        "{0:?} is neither a folder here nor a git source; give a folder (./my-skill), a git URL \
         (https://host/owner/repo.git) or owner/repo for GitHub, optionally with @REF and #SUBDIR"
    )]
    Unrecognised(String),
    #[error("#{0}: the subfolder must be a relative path inside the source, without `..`")]
    BadSubdir(String),
    #[error("@{0}: that is not a usable git ref (no spaces, no leading `-`)")]
    BadRef(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::Local(p) => write!(f, "{}", p.display())?,
            Location::Git(url) => f.write_str(url)?,
        }
        if let Some(r) = &self.reference {
            write!(f, "@{r}")?;
        }
        if let Some(s) = &self.subdir {
            write!(f, "#{s}")?;
        }
        Ok(())
    }
}

impl Source {
    /// The location as the lock file records it: the git URL, or the folder's absolute path.
    pub(crate) fn location_text(&self) -> String {
        match &self.location {
            Location::Local(p) => p.display().to_string(),
            Location::Git(url) => url.clone(),
        }
    }

    /// Parse SOURCE; relative folders are taken from `cwd`. A string that names an existing
    /// folder as a whole is that folder, even when it holds `@` or `#`.
    pub(crate) fn parse(text: &str, cwd: &Path) -> Result<Self, SourceError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SourceError::Empty);
        }
        if !is_url(text) && folder(text, cwd).is_dir() {
            return Ok(Self {
                location: Location::Local(folder(text, cwd)),
                reference: None,
                subdir: None,
            });
        }
        let (rest, subdir) = match text.rsplit_once('#') {
            Some((rest, sub)) => (rest, Some(check_subdir(sub)?)),
            None => (text, None),
        };
        let ref_start = path_start(rest);
        let (base, reference) = match rest[ref_start..].rfind('@') {
            Some(at) => {
                let at = ref_start + at;
                (&rest[..at], Some(check_ref(&rest[at + 1..])?))
            }
            None => (rest, None),
        };
        let location = if is_url(base) || is_scp_like(base) {
            Location::Git(base.to_string())
        } else if looks_like_path(base) || folder(base, cwd).exists() {
            let path = folder(base, cwd);
            // A local repository with a ref is fetched with git; without one it is copied.
            if reference.is_some() {
                Location::Git(path.display().to_string())
            } else {
                Location::Local(path)
            }
        } else if is_shorthand(base) {
            Location::Git(format!("https://github.com/{}.git", base.trim_end_matches(".git")))
        } else {
            return Err(SourceError::Unrecognised(text.to_string()));
        };
        Ok(Self {
            location,
            reference,
            subdir,
        })
    }
}

fn folder(text: &str, cwd: &Path) -> PathBuf {
    let expanded = match text.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map_or_else(|| PathBuf::from(text), |h| PathBuf::from(h).join(rest)),
        None => PathBuf::from(text),
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    // The lock records this path, and `../src/x` would mean another folder from elsewhere.
    std::fs::canonicalize(&joined).unwrap_or(joined)
}

fn is_url(text: &str) -> bool {
    ["https://", "http://", "ssh://", "git://", "file://", "git+ssh://"]
        .iter()
        .any(|scheme| text.starts_with(scheme))
}

/// `git@host:owner/repo.git`
fn is_scp_like(text: &str) -> bool {
    match text.split_once(':') {
        Some((head, tail)) => head.contains('@') && !head.contains('/') && !tail.is_empty() && !tail.starts_with("//"),
        None => false,
    }
}

fn looks_like_path(text: &str) -> bool {
    text.starts_with('/') || text.starts_with("./") || text.starts_with("../") || text.starts_with("~/") || text == "."
}

/// `owner/repo` with GitHub's characters.
fn is_shorthand(text: &str) -> bool {
    let mut parts = text.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty() && !p.starts_with('.') && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Where the path of a git source starts: an `@` before it belongs to a user name, not a ref.
fn path_start(text: &str) -> usize {
    if let Some(scheme_end) = text.find("://") {
        let after = scheme_end + 3;
        return text[after..].find('/').map_or(text.len(), |i| after + i);
    }
    if is_scp_like(text) {
        return text.find(':').map_or(0, |i| i + 1);
    }
    0
}

fn check_subdir(sub: &str) -> Result<String, SourceError> {
    let trimmed = sub.trim().trim_matches('/');
    let path = Path::new(trimmed);
    let fine = !trimmed.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    if fine {
        Ok(trimmed.to_string())
    } else {
        Err(SourceError::BadSubdir(sub.to_string()))
    }
}

fn check_ref(reference: &str) -> Result<String, SourceError> {
    let fine = !reference.is_empty()
        && !reference.starts_with('-')
        && !reference
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ':');
    if fine {
        Ok(reference.to_string())
    } else {
        Err(SourceError::BadRef(reference.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Source, SourceError> {
        Source::parse(text, Path::new("/nonexistent/cwd"))
    }

    fn git(url: &str, reference: Option<&str>, subdir: Option<&str>) -> Source {
        Source {
            location: Location::Git(url.into()),
            reference: reference.map(Into::into),
            subdir: subdir.map(Into::into),
        }
    }

    #[test]
    fn git_sources_with_refs_and_subfolders() {
        assert_eq!(
            parse("acme/skills@v1.2#skills/deploy").unwrap(),
            git(
                "https://github.com/acme/skills.git",
                Some("v1.2"),
                Some("skills/deploy")
            )
        );
        assert_eq!(
            parse("https://user@host.example/acme/skills.git@feature/x").unwrap(),
            git("https://user@host.example/acme/skills.git", Some("feature/x"), None)
        );
        assert_eq!(
            parse("git@github.com:acme/skills.git").unwrap(),
            git("git@github.com:acme/skills.git", None, None)
        );
        assert_eq!(
            parse("git@github.com:acme/skills@main#a").unwrap(),
            git("git@github.com:acme/skills", Some("main"), Some("a"))
        );
        assert_eq!(
            parse("file:///tmp/repo@abc123").unwrap(),
            git("file:///tmp/repo", Some("abc123"), None)
        );
        assert_eq!(parse("file:///tmp/repo").unwrap().to_string(), "file:///tmp/repo");
    }

    #[test]
    fn folders_are_copied_unless_a_ref_asks_for_git() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::create_dir_all(cwd.join("my@skill")).unwrap();
        assert_eq!(
            Source::parse("my@skill", cwd).unwrap().location,
            Location::Local(cwd.join("my@skill").canonicalize().unwrap())
        );
        // Recorded without `..`, so the lock means the same folder from anywhere.
        std::fs::create_dir_all(cwd.join("sub")).unwrap();
        assert_eq!(
            Source::parse("../my@skill", &cwd.join("sub")).unwrap().location,
            Location::Local(cwd.join("my@skill").canonicalize().unwrap())
        );
        assert_eq!(
            Source::parse("./repo#x", cwd).unwrap(),
            Source {
                location: Location::Local(cwd.join("./repo")),
                reference: None,
                subdir: Some("x".into())
            }
        );
        let with_ref = Source::parse("/srv/repo@v1", cwd).unwrap();
        assert_eq!(with_ref.location, Location::Git("/srv/repo".into()));
    }

    #[test]
    fn bad_sources_say_why() {
        assert_eq!(parse(" "), Err(SourceError::Empty));
        assert!(matches!(parse("just-a-word"), Err(SourceError::Unrecognised(_))));
        assert!(matches!(parse("a/b#../etc"), Err(SourceError::BadSubdir(_))));
        assert!(parse("a/b#/abs").is_ok(), "leading slashes are trimmed");
        assert!(matches!(parse("a/b@-x"), Err(SourceError::BadRef(_))));
        assert!(matches!(parse("a/b@"), Err(SourceError::BadRef(_))));
    }
}
