//! A temp folder of its own for every command (docs/design.md#child-environment): `TMPDIR` points
//! into it, the sandbox lets the command write there, and it is removed when the command ends. The
//! shared temp folder is not always writable to commands (when `HOME` is under `/tmp`, as in
//! containers and CI jobs, the rule that keeps `HOME` out of reach leaves all of `/tmp` read-only),
//! and `mktemp` must work anyway. Python's bytecode caches go there too (`PYTHONPYCACHEPREFIX`), so
//! Python never reads or writes a cache inside a skill's folder, which trust does not hash.

use std::path::Path;

/// One command's temp folder; removed, with whatever the command left in it, when dropped.
#[derive(Debug)]
pub(crate) struct PrivateTemp {
    dir: tempfile::TempDir,
}

impl PrivateTemp {
    /// A new folder (mode 0700) in `base`, else in the system's temp folder.
    pub(crate) fn create(base: &Path) -> std::io::Result<Self> {
        let builder = || {
            let mut b = tempfile::Builder::new();
            b.prefix("agent-cmd-");
            b
        };
        let dir = builder()
            .tempdir_in(base)
            .or_else(|_| builder().tempdir_in(std::env::temp_dir()))?;
        Ok(Self { dir })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The child's variables that point into it: `TMPDIR` and `PYTHONPYCACHEPREFIX`.
    pub(crate) fn child_vars(&self) -> [(String, String); 2] {
        let dir = self.path();
        [
            ("TMPDIR".into(), dir.display().to_string()),
            ("PYTHONPYCACHEPREFIX".into(), dir.join("pycache").display().to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_gets_its_own_folder_and_it_goes_away() {
        let base = tempfile::tempdir().unwrap();
        let a = PrivateTemp::create(base.path()).unwrap();
        let b = PrivateTemp::create(base.path()).unwrap();
        assert_ne!(a.path(), b.path());
        assert!(a.path().starts_with(base.path()));
        std::fs::write(a.path().join("left"), "x").unwrap();
        let vars = a.child_vars();
        assert_eq!(vars[0], ("TMPDIR".to_string(), a.path().display().to_string()));
        assert!(vars[1].1.starts_with(&vars[0].1));
        let gone = a.path().to_path_buf();
        drop(a);
        assert!(!gone.exists());
        let fallback = PrivateTemp::create(Path::new("/nonexistent-base")).unwrap();
        assert!(fallback.path().starts_with(std::env::temp_dir()));
    }
}
