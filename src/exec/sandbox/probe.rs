//! Checking on this machine that confinement really holds: a confined child tries to create a
//! file in a folder it may not write, and must fail (used by `agent sandbox status`).

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use super::policy::{Network, Policy};
use super::{Confinement, Kernel, Mode};

/// What the check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "result", content = "detail")]
pub(crate) enum Probe {
    /// The confined child could not write outside its folders.
    Enforced,
    /// The confined child wrote where it should not have: the sandbox does not hold here.
    NotEnforced,
    /// There is no Landlock to check.
    Unavailable,
    /// The check itself could not run (no `sh`, no temp folder…).
    Failed(String),
}

/// Run the check with the sandbox the kernel offers.
pub(crate) fn run(kernel: &Kernel) -> Probe {
    if !kernel.filesystem() {
        return Probe::Unavailable;
    }
    let stamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("agent-sandbox-probe-{}-{stamp}", std::process::id()));
    if let Err(e) = std::fs::create_dir(&dir) {
        return Probe::Failed(format!("cannot create {}: {e}", dir.display()));
    }
    let result = attempt(kernel, dir.join("canary"));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn attempt(kernel: &Kernel, canary: PathBuf) -> Probe {
    let policy = Policy {
        mode: Mode::On,
        in_force: kernel.name(),
        write: Vec::new(),
        skipped: Vec::new(),
        network: Network::Open,
        read_only: Vec::new(),
        // Checked as commands will run: in their own mount namespace where the machine allows it.
        read_only_unavailable: super::readonly::available().err().map(|e| e.to_string()),
        guard: super::guard::Guard::default(),
        kernel: kernel.clone(),
    };
    let confinement = match Confinement::build(&policy) {
        Ok(Some(c)) => c,
        Ok(None) => return Probe::Unavailable,
        Err(e) => return Probe::Failed(e.to_string()),
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(": > \"$1\"")
        .arg("sh")
        .arg(&canary)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: the hook only makes async-signal-safe system calls (see `Confinement::hook`).
    unsafe { cmd.pre_exec(confinement.hook()) };
    match crate::exec::tree::run_registered(&mut cmd) {
        Err(e) => Probe::Failed(format!("cannot start sh: {e}")),
        Ok(_) if canary.exists() => Probe::NotEnforced,
        Ok(out) if out.status.success() => Probe::NotEnforced,
        Ok(_) => Probe::Enforced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_agrees_with_the_kernel() {
        let kernel = Kernel::detect();
        let expected = if kernel.filesystem() {
            Probe::Enforced
        } else {
            Probe::Unavailable
        };
        assert_eq!(run(&kernel), expected);
        assert_eq!(run(&Kernel::with_abi(0)), Probe::Unavailable);
    }
}
