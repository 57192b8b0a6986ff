//! What the tests of installed skills share (the library, git sources, public layouts, audit
//! trust): local git repositories, skill files and the lock file.

use std::path::Path;
use std::process::Command as Std;

use serde_json::Value;

use super::{Workspace, run_outcome};

/// Run git in `dir` with a fixed identity and `HOME` there (so no user configuration of the
/// machine's, or of a test's own home, applies); returns trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Std::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Writes `text` to `path`, making its folders.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A SKILL.md for `name` with `body`.
pub fn skill_md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill, for tests of installing skills.\n---\n{body}\n")
}

/// The `file://` address of a local repository.
pub fn url(repo: &Path) -> String {
    format!("file://{}", repo.display())
}

/// The user's lock file of installed skills.
pub fn lock(ws: &Workspace) -> Value {
    let text = std::fs::read_to_string(ws.home().join(".agents/skills/skills-lock.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `agent ARGS` with no model: (exit code, stdout, stderr).
pub async fn outcome(ws: &Workspace, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ws.bare_agent();
    cmd.args(args);
    run_outcome(cmd).await
}
