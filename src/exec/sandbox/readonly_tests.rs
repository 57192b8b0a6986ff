use std::os::unix::process::CommandExt;

use super::*;

/// The kept place refuses writes in the child and nowhere else; what the namespace does not
/// cover (a file's mode and times outside the writable places, which Landlock does not cover
/// either) is shown as it is, as docs/sandbox.md says.
#[test]
fn a_kept_place_is_read_only_for_the_child_only() {
    // Without user namespaces there is nothing to check here; sandbox_walls.rs says so aloud.
    if available().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().join(".git");
    std::fs::create_dir(&git).unwrap();
    let ro = ReadOnly::prepare(std::slice::from_ref(&git)).unwrap();
    let script = format!(
        "echo x > '{g}/hook' 2>/dev/null && echo wrote-git; chmod 700 '{g}' 2>/dev/null && echo chmod-git; \
         echo y > '{d}/file' && echo wrote-beside",
        g = git.display(),
        d = dir.path().display(),
    );
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.args(["-c", &script]);
    // SAFETY: `enter` makes only async-signal-safe system calls.
    unsafe { cmd.pre_exec(move || ro.enter()) };
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("wrote-git") && !text.contains("chmod-git"), "{text}");
    assert!(text.contains("wrote-beside"), "{text}");
    assert!(!git.join("hook").exists());
    std::fs::write(git.join("after"), "z").unwrap();
}
