//! What folder trust and `skills-lock.json` hash, through the real binary: every byte of every
//! file a skill holds, so an edit that keeps each file's size (in `run.sh`, in a file it sources,
//! in a file behind a symlinked folder) needs trust again, and the refusal names the files that
//! changed; Python's `__pycache__/` is no change.

use std::path::{Path, PathBuf};

use crate::common::*;

/// A project skill in the working folder whose `run.sh` sources `lib/helper.sh` (a real folder, or
/// a symlink to `shared` when given) and touches the canary the helper names.
fn project_skill(ws: &Workspace, name: &str, shared: Option<&Path>) -> PathBuf {
    let dir = project_skill_running(
        ws,
        name,
        "#!/bin/sh\n. \"$SKILL_DIR/lib/helper.sh\"\ntouch \"$CANARY_DIR/canary-a\"\necho ran\n",
    );
    let lib = match shared {
        Some(target) => {
            std::os::unix::fs::symlink(target, dir.join("lib")).unwrap();
            target.to_path_buf()
        }
        None => dir.join("lib"),
    };
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("helper.sh"), "echo helper-a\n").unwrap();
    dir
}

async fn run(ws: &Workspace, name: &str) -> (i32, String, String) {
    let mock = MockLlm::start(activate_run_answer(name, "./run.sh", "done")).await;
    let mut cmd = ws.agent(&mock);
    cmd.env("CANARY_DIR", ws.work())
        .args(["--approve", "auto", "--once", "go"]);
    let (code, _, stderr) = run_outcome(cmd).await;
    let result = last_tool_result(&mock.requests().await[2]);
    (code, result, stderr)
}

/// Replace `from` by `to` (the same length) in a file.
fn same_size_edit(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from));
    let before = std::fs::metadata(path).unwrap().len();
    std::fs::write(path, text.replace(from, to)).unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), before);
}

/// `agent trust --force`: these folders hold what the audit cannot read (a symlink out of the
/// skill folder, files past its 1 MB cap), which it reports as `not-audited` and the gate then
/// refuses without a terminal; these tests are about what trust hashes, so they force it.
fn trust(ws: &Workspace) {
    let out = ws.bare_agent().args(["trust", "--force"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Trust the folder, check the skill runs, apply `edit`, and check it is refused naming `file`.
async fn edit_needs_trust_again(ws: &Workspace, name: &str, edit: impl FnOnce(), file: &str) {
    trust(ws);
    let (code, result, stderr) = run(ws, name).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        result.contains("helper-a") && ws.work().join("canary-a").exists(),
        "{result}"
    );
    std::fs::remove_file(ws.work().join("canary-a")).unwrap();
    edit();
    let (code, result, stderr) = run(ws, name).await;
    assert_eq!(code, 6, "{stderr}");
    assert!(!ws.work().join("canary-a").exists() && !ws.work().join("canary-b").exists());
    assert!(
        result.contains("not trusted") && result.contains(&format!("modified: {file}")),
        "the refusal names the file: {result}"
    );
    let out = ws.bare_agent().args(["skills", "show", name]).output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(shown.contains(&format!("modified: {file}")), "{shown}");
}

#[tokio::test]
async fn a_same_size_edit_of_run_sh_needs_trust_again() {
    let ws = Workspace::new();
    let dir = project_skill(&ws, "edited", None);
    let edit = || same_size_edit(&dir.join("run.sh"), "canary-a", "canary-b");
    edit_needs_trust_again(&ws, "edited", edit, "run.sh").await;
}

#[tokio::test]
async fn a_same_size_edit_of_a_sourced_file_needs_trust_again() {
    let ws = Workspace::new();
    let dir = project_skill(&ws, "sourced", None);
    let edit = || same_size_edit(&dir.join("lib/helper.sh"), "helper-a", "helper-b");
    edit_needs_trust_again(&ws, "sourced", edit, "lib/helper.sh").await;
}

#[tokio::test]
async fn a_same_size_edit_behind_a_symlinked_folder_needs_trust_again() {
    let ws = Workspace::new();
    let shared = ws.dir.path().join("shared-lib");
    let dir = project_skill(&ws, "linked", Some(&shared));
    assert!(dir.join("lib").is_symlink());
    let edit = || same_size_edit(&shared.join("helper.sh"), "helper-a", "helper-b");
    edit_needs_trust_again(&ws, "linked", edit, "lib/helper.sh").await;
}

#[tokio::test]
async fn python_caches_do_not_change_a_trusted_skill() {
    let ws = Workspace::new();
    let dir = project_skill(&ws, "py", None);
    trust(&ws);
    let cache = dir.join("lib/__pycache__");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("helper.cpython-312.pyc"), "compiled").unwrap();
    let (code, result, stderr) = run(&ws, "py").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("helper-a"), "{result}");
}

#[tokio::test]
async fn a_same_size_edit_of_an_installed_skill_needs_trust_again() {
    let ws = Workspace::new();
    let src = ws.dir.path().join("greet");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets, for tests of installed skills.\n---\nRun ./run.sh\n",
    )
    .unwrap();
    write_script(&src.join("run.sh"), "#!/bin/sh\necho hello-a\n");
    let add = ws
        .bare_agent()
        .args(["skills", "add", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(add.status.code(), Some(0), "{}", String::from_utf8_lossy(&add.stderr));
    let installed = ws.home().join(".agents/skills/greet");
    let (code, result, stderr) = run(&ws, "greet").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("hello-a"), "{result}");

    same_size_edit(&installed.join("run.sh"), "hello-a", "hello-b");
    let (code, result, stderr) = run(&ws, "greet").await;
    assert_eq!(code, 6, "{stderr}");
    assert!(
        !result.contains("hello-b") && result.contains("modified: run.sh"),
        "{result}"
    );
    let out = ws.bare_agent().args(["skills", "show", "greet"]).output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(shown.contains("modified: run.sh"), "{shown}");
}

#[tokio::test]
async fn a_skill_too_large_to_verify_is_never_trusted_and_says_why() {
    let ws = Workspace::new();
    let dir = project_skill(&ws, "huge", None);
    // Sparse: over the 256 MB that are verified, without writing them.
    let big = std::fs::File::create(dir.join("model.bin")).unwrap();
    big.set_len(257 * 1024 * 1024).unwrap();
    trust(&ws);
    let (code, result, stderr) = run(&ws, "huge").await;
    assert_eq!(code, 6, "{stderr}");
    assert!(!ws.work().join("canary-a").exists(), "an unverifiable skill ran");
    assert!(
        result.contains("cannot be verified") && result.contains("too much to verify"),
        "{result}"
    );
}

#[tokio::test]
async fn an_edit_past_the_first_thousand_files_or_four_megabytes_needs_trust_again() {
    let ws = Workspace::new();
    let dir = project_skill(&ws, "padded", None);
    // A thousand files sorted before `run.sh`, and a script padded past 4 MB with a comment.
    for i in 0..1000 {
        std::fs::write(dir.join(format!("a{i:04}")), "x").unwrap();
    }
    let script = dir.join("run.sh");
    let mut text = std::fs::read_to_string(&script).unwrap();
    text.push_str(&format!("#{}\n", "x".repeat(5 * 1024 * 1024)));
    text.push_str("echo last-line-a\n");
    std::fs::write(&script, text).unwrap();
    trust(&ws);
    let (code, result, stderr) = run(&ws, "padded").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(result.contains("last-line-a"), "{result}");
    same_size_edit(&script, "last-line-a", "last-line-b");
    let (code, result, stderr) = run(&ws, "padded").await;
    assert_eq!(code, 6, "{stderr}");
    assert!(
        !result.contains("last-line-b") && result.contains("modified: run.sh"),
        "{result}"
    );
}
