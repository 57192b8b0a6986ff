use std::os::unix::process::CommandExt;

use super::*;

#[test]
fn mount_options_become_remount_flags() {
    assert_eq!(unescape("/a\\040b"), "/a b");
    let f = flags_of("rw,nosuid,relatime".split(','));
    assert_ne!(f & libc::MS_RDONLY, 0);
    assert_ne!(f & libc::MS_NOSUID, 0);
    assert_eq!(f & libc::MS_STRICTATIME, 0);
    assert_ne!(flags_of("rw".split(',')) & libc::MS_STRICTATIME, 0);
    assert!(system_mounts().iter().any(|(p, _)| p == Path::new("/")));
}

/// Only the writable place changes, content and metadata alike; the kept place inside it does not.
#[test]
fn only_writable_places_change_and_kept_ones_do_not() {
    // Without user namespaces there is nothing to check here; sandbox_walls.rs says so aloud.
    if available().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let git = real.join(".git");
    std::fs::create_dir(&git).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keys"), "k").unwrap();
    let ro = ReadOnly::prepare(std::slice::from_ref(&real), &[], std::slice::from_ref(&git)).unwrap();
    let script = format!(
        "echo x > '{g}/hook' 2>/dev/null && echo wrote-git; echo y > file && echo wrote-cwd; \
         chmod 600 file && echo chmod-cwd; chmod 666 '{o}/keys' 2>/dev/null && echo chmod-outside; \
         touch -d 2001-01-01 '{o}/keys' 2>/dev/null && echo touched-outside",
        g = git.display(),
        o = outside.path().display()
    );
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.args(["-c", &script]).current_dir(&real);
    // SAFETY: `enter` makes only async-signal-safe system calls.
    unsafe { cmd.pre_exec(move || ro.enter()) };
    // Registered as a command's own process: a command of another test ending meanwhile would
    // otherwise take this child for one of its orphans and kill it (the agent is their reaper).
    let out = crate::exec::tree::run_registered(
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    )
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    let text = format!("{text}\n(stderr: {err}; status {:?})", out.status);
    assert!(!text.contains("wrote-git") && text.contains("wrote-cwd"), "{text}");
    assert!(text.contains("chmod-cwd"), "{text}");
    assert!(
        !text.contains("chmod-outside") && !text.contains("touched-outside"),
        "{text}"
    );
    assert!(!git.join("hook").exists() && real.join("file").exists());
    std::fs::write(git.join("after"), "z").unwrap();
}
