//! Real Landlock on the running kernel: children confined by [`Confinement`] run shell snippets.
//! Each test needs a kernel ABI and says so when it is missing (CI's kernel has them all).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::*;
use crate::exec::sandbox::policy::Settings;
use crate::exec::sandbox::{Kernel, Mode};

struct Place {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Place {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for d in ["home", "work", "temp", "skills/mine", "skills/other"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Self { _tmp: tmp, root }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn settings(&self, mode: Mode) -> Settings {
        Settings::new(
            mode,
            Kernel::detect(),
            &self.p("work"),
            Some(&self.p("home")),
            Some(self.p("temp").to_str().unwrap()),
            &[],
        )
    }

    /// Run `script` with bash in the skill folder, confined by the policy of `skills/mine`.
    fn run(&self, mode: Mode, declares_network: bool, script: &str) -> Output {
        let policy = self
            .settings(mode)
            .policy(&self.p("skills/mine"), &[], declares_network);
        let confinement = Confinement::build(&policy).unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(script).current_dir(self.p("skills/mine"));
        if let Some(c) = confinement {
            // SAFETY: the hook only makes async-signal-safe system calls.
            unsafe { cmd.pre_exec(c.hook()) };
        }
        crate::exec::tree::run_registered(cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()))
            .unwrap()
    }
}

fn kernel_has(abi: u32) -> bool {
    Kernel::detect().abi >= abi
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn writes_land_only_in_the_allowed_places_and_the_agent_stays_free() {
    if !kernel_has(3) {
        return;
    }
    let place = Place::new();
    let script = format!(
        "set -e; echo a > own.txt; echo b > {work}/w.txt; echo c > {temp}/t.txt; echo d > /dev/null; echo e > /dev/stderr; \
         if echo x > {home}/canary 2>/dev/null; then exit 3; fi; \
         if echo x > {other}/canary 2>/dev/null; then exit 4; fi; \
         if mkdir {home}/dir 2>/dev/null; then exit 5; fi; echo done",
        work = place.p("work").display(),
        temp = place.p("temp").display(),
        home = place.p("home").display(),
        other = place.p("skills/other").display(),
    );
    let out = place.run(Mode::On, false, &script);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "done");
    for file in ["skills/mine/own.txt", "work/w.txt", "temp/t.txt"] {
        assert!(place.p(file).exists(), "{file} should have been written");
    }
    assert!(!place.p("home/canary").exists() && !place.p("skills/other/canary").exists());
    assert!(!place.p("home/dir").exists());
    // The agent (this test process) was never confined.
    std::fs::write(place.p("home/after"), "free").unwrap();
}

/// What a refused write says: "Read-only file system" (`EROFS`) in the command's own mount
/// namespace, "Permission denied" (`EACCES`, Landlock's) where there is none.
fn refusal_text() -> &'static str {
    if crate::exec::sandbox::readonly::available().is_ok() {
        "Read-only file system"
    } else {
        "Permission denied"
    }
}

#[test]
fn the_refusal_is_named_and_truncation_is_refused_too() {
    if !kernel_has(3) {
        return;
    }
    let place = Place::new();
    std::fs::write(place.p("home/keep.txt"), "precious").unwrap();
    let script = format!("truncate -s 0 {}/keep.txt", place.p("home").display());
    let out = place.run(Mode::On, false, &script);
    assert!(!out.status.success());
    assert!(stderr(&out).contains(refusal_text()), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(place.p("home/keep.txt")).unwrap(), "precious");
}

#[test]
fn a_setsid_grandchild_is_confined_too() {
    if !kernel_has(1) {
        return;
    }
    let place = Place::new();
    let canary = place.p("home/grandchild");
    let script = format!(
        "setsid bash -c 'echo x > {} 2>/dev/null; echo $? > own-status' & wait",
        canary.display()
    );
    let out = place.run(Mode::On, false, &script);
    assert!(out.status.success(), "{}", stderr(&out));
    let status = std::fs::read_to_string(place.p("skills/mine/own-status")).unwrap();
    assert_ne!(status.trim(), "0", "the grandchild's write must fail");
    assert!(!canary.exists());
}

/// A TCP listener on loopback and a bash snippet that connects to it.
fn connect_script(port: u16) -> String {
    format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
}

#[test]
fn strict_refuses_tcp_and_udp_unless_the_skill_declares_the_network() {
    if !kernel_has(4) || !Kernel::detect().seccomp {
        return;
    }
    let place = Place::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();

    let out = place.run(Mode::Strict, false, &connect_script(port));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Permission denied"), "{}", stderr(&out));
    let udp = place.run(Mode::Strict, false, "exec 3<>/dev/udp/127.0.0.1/9 && echo sent");
    assert!(!udp.status.success(), "UDP must be refused under strict");

    for (mode, network) in [(Mode::Strict, true), (Mode::On, false), (Mode::Off, false)] {
        let out = place.run(mode, network, &connect_script(port));
        assert!(out.status.success(), "{mode} network={network}: {}", stderr(&out));
    }
}

#[test]
fn unix_sockets_and_local_processes_still_work_under_strict() {
    if !kernel_has(4) || !Kernel::detect().seccomp {
        return;
    }
    let place = Place::new();
    let out = place.run(Mode::Strict, false, "echo hi | cat | tr a-z A-Z; ls / > /dev/null");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "HI");
}

#[test]
fn unconfined_policies_build_nothing_and_refusals_are_errors() {
    let place = Place::new();
    let off = place.settings(Mode::Off).policy(&place.p("skills/mine"), &[], false);
    assert!(Confinement::build(&off).unwrap().is_none());
    let strict = Settings::new(Mode::Strict, Kernel::with_abi(0), &place.p("work"), None, None, &[]).policy(
        &place.p("skills/mine"),
        &[],
        false,
    );
    assert!(matches!(Confinement::build(&strict), Err(SandboxError::Refused(_))));
}

#[test]
fn a_declared_file_can_be_written_in_place_but_not_replaced() {
    if !kernel_has(3) {
        return;
    }
    let place = Place::new();
    let rc = place.p("home/.toolrc");
    std::fs::write(&rc, "old").unwrap();
    let declared = [rc.display().to_string()];
    let policy = place
        .settings(Mode::On)
        .policy(&place.p("skills/mine"), &declared, false);
    let c = Confinement::build(&policy).unwrap().unwrap();
    let run = |script: &str| {
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(script);
        // SAFETY: the hook only makes async-signal-safe system calls.
        unsafe { cmd.pre_exec(c.hook()) };
        crate::exec::tree::run_registered(cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()))
            .unwrap()
    };
    let wrote = run(&format!("echo new > {}", rc.display()));
    assert!(wrote.status.success(), "{}", stderr(&wrote));
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "new\n");
    assert!(!run(&format!("rm {}", rc.display())).status.success());
    assert!(Path::new(&rc).exists());
}

/// Landlock's TCP rule does not see a connect made inside `sendto(MSG_FASTOPEN)` (found on 6.18):
/// the seccomp filter of `strict` is what refuses it.
#[test]
fn tcp_fast_open_cannot_slip_past_strict() {
    let python = Path::new("/usr/bin/python3");
    if !kernel_has(4) || !Kernel::detect().seccomp || !python.exists() {
        return;
    }
    let place = Place::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "{} -c 'import socket; socket.socket().sendto(b\"x\", 0x20000000, (\"127.0.0.1\", {port}))'",
        python.display()
    );
    let out = place.run(Mode::Strict, false, &script);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Permission denied"), "{}", stderr(&out));
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "nothing may have connected");
}
