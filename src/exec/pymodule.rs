//! `python3 -m scripts.x` as the skill's own code (issue 34 §3): Python skills written for other
//! agents run their modules by name, so their sibling imports work. Python looks a module up in
//! the working folder first (where commands run), then on `PYTHONPATH` (where the skill's folder
//! is put, see `env`): the module counts as the skill's only when it is a file inside the skill's
//! folder AND the working folder holds nothing of that name to be found before it. What was
//! checked is then what Python runs.

use std::path::{Path, PathBuf};

/// Interpreters that take `-m MODULE`.
const PYTHONS: [&str; 2] = ["python3", "python"];

/// Whether `words` run a module of the skill in `dir` (`python3 -m scripts.x ARGS`) that the
/// working folder `workdir` does not shadow.
pub(crate) fn runs_skill_module(words: &[String], dir: &Path, workdir: &Path) -> bool {
    let [program, flag, module, ..] = words else {
        return false;
    };
    if !PYTHONS.contains(&program.as_str()) || flag != "-m" {
        return false;
    }
    let Some(parts) = module_parts(module) else {
        return false;
    };
    let shadowed = parts.first().is_some_and(|top| {
        ["", ".py"]
            .iter()
            .any(|ext| workdir.join(format!("{top}{ext}")).exists())
    });
    !shadowed && module_file(dir, &parts).is_some()
}

/// The dotted name's parts, when every part is a plain identifier.
fn module_parts(module: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = module.split('.').collect();
    let plain = |p: &&str| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    parts.iter().all(plain).then_some(parts)
}

/// The file Python would run for `parts` under `dir` (`a/b.py`, or `a/b/__main__.py` for a
/// package), when it is a regular file whose real path stays inside `dir`.
fn module_file(dir: &Path, parts: &[&str]) -> Option<PathBuf> {
    let root = std::fs::canonicalize(dir).ok()?;
    let base: PathBuf = parts.iter().collect();
    let mut as_file = dir.join(&base);
    as_file.set_extension("py");
    [as_file, dir.join(&base).join("__main__.py")]
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .find(|real| real.starts_with(&root) && real.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_module_in_the_skill_folder_is_its_own_unless_the_working_folder_shadows_it() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, work) = (tmp.path().join("skill"), tmp.path().join("work"));
        std::fs::create_dir_all(dir.join("scripts/tool")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(dir.join("scripts/x.py"), "").unwrap();
        std::fs::write(dir.join("scripts/tool/__main__.py"), "").unwrap();
        let own = |s: &str| runs_skill_module(&words(s), &dir, &work);
        assert!(own("python3 -m scripts.x in.pdf"));
        assert!(own("python -m scripts.tool"));
        assert!(!own("python3 -m scripts.missing"));
        assert!(!own("python3 -m http.server"));
        assert!(!own("python3 -m scripts..x"));
        assert!(!own("node -m scripts.x"));
        assert!(!own("python3 scripts.x"));
        // A `scripts` folder in the working folder would be found first: not the skill's.
        std::fs::create_dir_all(work.join("scripts")).unwrap();
        assert!(!own("python3 -m scripts.x"));
    }
}
