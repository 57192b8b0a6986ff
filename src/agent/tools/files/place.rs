//! Where a file tool may look and write (docs/running-skills.md "File tools"): the working folder
//! (relative paths are taken from it), and for reading also the active skill's folder. A path is
//! judged with symlinks resolved as far as it exists, so a link inside the folder cannot lead a
//! read or a write outside it; a write never goes into a place other tools run on their own
//! (`.git`, `.envrc`, editor folders) or one the sandbox protects.

use crate::agent::outcome::Refusal;
use std::path::{Component, Path, PathBuf};

use crate::exec::sandbox::readonly::KEPT_READ_ONLY;

/// Why a path may not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WriteRefused {
    /// Outside the working folder, the folder itself, or the active skill's: the model can pick
    /// another path.
    Elsewhere(String),
    /// Inside a place other tools run on their own (`.git`, `.envrc` …): a denial the user sees.
    Kept(String),
}

/// The folders a file tool works in.
pub(crate) struct Places<'a> {
    /// The user's working folder.
    pub(crate) workdir: &'a Path,
    /// The active skill's folder (read only), if a skill is active.
    pub(crate) skill_dir: Option<&'a Path>,
}

/// A path a tool may use: as the user would name it, and with symlinks resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Shown to the user and the model: relative to the working folder when inside it.
    pub(crate) shown: String,
    /// What is really read or written.
    pub(crate) real: PathBuf,
}

impl Places<'_> {
    /// `path` for reading: inside the working folder or the active skill's folder.
    /// A relative path found only in the skill's folder is read there: skills say "read
    /// references/api.md" of their own files.
    pub(crate) fn for_reading(&self, path: &str) -> Result<Resolved, Refusal> {
        let mut real = self.real(path)?;
        if !real.exists()
            && Path::new(path.trim()).is_relative()
            && let Some(skill) = self.skill_dir
            && let Ok(in_skill) = self.real_in(skill, path)
            && in_skill.exists()
            && in_skill.starts_with(real_or_same(skill))
        {
            real = in_skill;
        }
        let roots = std::iter::once(self.workdir).chain(self.skill_dir);
        if roots.map(real_or_same).any(|root| real.starts_with(&root)) {
            return Ok(self.resolved(real));
        }
        Err(format!(
            "{path} is outside the working folder{}: file tools reach only those (symlinks are followed \
             before this is judged); ask the user to copy the file into the working folder, or to start agent there",
            if self.skill_dir.is_some() {
                " and the active skill's folder"
            } else {
                ""
            }
        ))
    }

    /// `path` for writing: inside the working folder, not the active skill's folder, not inside
    /// a place other tools run on their own.
    pub(crate) fn for_writing(&self, path: &str) -> Result<Resolved, WriteRefused> {
        let real = self.real(path).map_err(WriteRefused::Elsewhere)?;
        let root = real_or_same(self.workdir);
        let Ok(inside) = real.strip_prefix(&root) else {
            return Err(WriteRefused::Elsewhere(format!(
                "{path} is outside the working folder (symlinks are followed before this is judged): file tools \
                 write only there; write inside it, or tell the user where the result should go"
            )));
        };
        if inside.as_os_str().is_empty() {
            return Err(WriteRefused::Elsewhere(format!(
                "{path} is the working folder itself, not a file"
            )));
        }
        if let Some(kept) = inside.components().find_map(|c| match c {
            Component::Normal(name) => KEPT_READ_ONLY.iter().find(|k| name == **k),
            _ => None,
        }) {
            return Err(WriteRefused::Kept(format!(
                "{path} is inside {kept}, which other tools run on their own (git hooks, direnv, editor tasks): \
                 file tools never write there"
            )));
        }
        if let Some(skill) = self.skill_dir.map(real_or_same)
            && real.starts_with(&skill)
        {
            return Err(WriteRefused::Elsewhere(format!(
                "{path} is inside the active skill's folder, which is read-only"
            )));
        }
        Ok(self.resolved(real))
    }

    /// `path` joined to the working folder, `.` and `..` taken out, symlinks resolved as far as
    /// the path exists (the rest appended as named).
    fn real(&self, path: &str) -> Result<PathBuf, Refusal> {
        self.real_in(self.workdir, path)
    }

    /// [`Self::real`] taken from `base` instead of the working folder.
    fn real_in(&self, base: &Path, path: &str) -> Result<PathBuf, Refusal> {
        if path.trim().is_empty() {
            return Err("the path is empty".into());
        }
        if path.contains('\0') {
            return Err("the path holds a NUL byte".into());
        }
        let joined = base.join(path.trim());
        let mut clean = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    clean.pop();
                }
                Component::CurDir => {}
                other => clean.push(other.as_os_str()),
            }
        }
        Ok(resolve_existing(&clean))
    }

    fn resolved(&self, real: PathBuf) -> Resolved {
        let root = real_or_same(self.workdir);
        let shown = real
            .strip_prefix(&root)
            .map_or_else(|_| real.display().to_string(), |rel| rel.display().to_string());
        let shown = if shown.is_empty() { ".".to_string() } else { shown };
        Resolved { shown, real }
    }
}

/// `path` with symlinks resolved, or as it is when it cannot be.
fn real_or_same(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The longest existing ancestor of `path` resolved, with the rest appended: a file that does not
/// exist yet is judged by where its folder really is.
fn resolve_existing(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&current) {
            return rest
                .iter()
                .rev()
                .fold(real, |acc, part: &std::ffi::OsString| acc.join(part));
        }
        match (current.file_name().map(ToOwned::to_owned), current.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                current = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let work = t.path().join("work");
        let skill = t.path().join("skill");
        std::fs::create_dir_all(work.join("sub")).unwrap();
        std::fs::create_dir_all(work.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "x").unwrap();
        std::fs::write(t.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(t.path().join("secret"), work.join("link")).unwrap();
        std::os::unix::fs::symlink(t.path(), work.join("up")).unwrap();
        (t, work, skill)
    }

    #[test]
    fn reads_stay_in_the_working_and_skill_folders() {
        let (_t, work, skill) = setup();
        let places = Places {
            workdir: &work,
            skill_dir: Some(&skill),
        };
        assert_eq!(places.for_reading("sub/../a.txt").unwrap().shown, "a.txt");
        assert!(
            places
                .for_reading(&skill.join("SKILL.md").display().to_string())
                .is_ok()
        );
        for outside in ["../secret", "link", "up/secret", "/etc/passwd", "sub/../../secret"] {
            assert!(places.for_reading(outside).is_err(), "{outside}");
        }
    }

    #[test]
    fn writes_stay_in_the_working_folder_and_out_of_kept_places() {
        let (_t, work, skill) = setup();
        let places = Places {
            workdir: &work,
            skill_dir: Some(&skill),
        };
        assert_eq!(
            places.for_writing("new/dir/out.json").unwrap().shown,
            "new/dir/out.json"
        );
        for refused in [
            "../x",
            "link",
            "up/x",
            ".git/hooks/pre-commit",
            "sub/.git/config",
            ".envrc",
            "a/.vscode/tasks.json",
            ".",
            "",
        ] {
            assert!(places.for_writing(refused).is_err(), "{refused:?}");
        }
        assert!(places.for_writing(&skill.join("run.sh").display().to_string()).is_err());
    }
}
