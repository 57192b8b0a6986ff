//! A [`Policy`] made ready to apply: the Landlock ruleset, built by the agent, and the child's
//! entry into it between fork and exec.
//!
//! Why this shape: the agent is multi-threaded (tokio), so the code that runs in a forked child
//! before exec must be async-signal-safe — no allocation, no locks. Everything that allocates
//! (opening the folders, building the ruleset with the `landlock` crate, compiling the seccomp
//! program, preparing the mount namespace of [`super::readonly`]) happens here in the agent, per
//! command; the child only makes system calls: those of the namespace, then
//! `prctl(PR_SET_NO_NEW_PRIVS)`, `landlock_restrict_self(fd)` and, under `strict`, `seccomp`.
//! The other design, re-executing the agent binary as a small single-threaded launcher that
//! confines itself and then execs the command, costs a second exec (and loading a 20 MB binary)
//! per command; this one costs a fork instead of `posix_spawn`, measured in BENCHMARKS.md.
//!
//! The domain is inherited by every descendant across fork, exec and `setsid`; the agent itself is
//! never confined.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use seccompiler::BpfProgram;

use super::policy::{Enforcement, Network, Policy};
use super::readonly::ReadOnly;
use super::{SandboxError, netfilter};

/// Character devices any command may write (when they exist): output sinks and the terminal.
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];
/// Folders of terminal devices a command may write (pseudo-terminals).
const DEVICE_DIRS: [&str; 1] = ["/dev/pts"];

/// A policy ready for a child to enter: a Landlock ruleset held by the kernel and, when the
/// network is off, the seccomp program.
#[derive(Debug)]
pub struct Confinement {
    ruleset: OwnedFd,
    filter: Option<BpfProgram>,
    /// Places made read-only in a namespace of the child's own before Landlock.
    read_only: Option<ReadOnly>,
}

impl Confinement {
    /// Build what `policy` needs: `None` when commands run unconfined (off, or no Landlock
    /// under `on`); an error when they must not run (`strict` without kernel support) or the
    /// kernel refuses the ruleset.
    pub fn build(policy: &Policy) -> Result<Option<Arc<Self>>, SandboxError> {
        match policy.enforcement() {
            Enforcement::Unconfined => return Ok(None),
            Enforcement::Refused(why) => return Err(SandboxError::Refused(why)),
            Enforcement::Confined => {}
        }
        let filter = match policy.network {
            Network::Off => Some(netfilter::program()?),
            Network::Open => None,
        };
        let read_only = match policy.read_only_unavailable {
            None => {
                // A missing protected folder beneath a writable place is created now, only for a
                // command that runs, so it can be kept read-only (docs/sandbox.md).
                super::guard::create_missing(&policy.guard).map_err(|e| {
                    SandboxError::Refused(format!(
                        "cannot create {} to keep it read-only: {e}",
                        display_list(&policy.guard.create)
                    ))
                })?;
                let writable: Vec<std::path::PathBuf> = policy.write.iter().map(|w| w.real.clone()).collect();
                let prepared = ReadOnly::prepare(&writable, &policy.guard.pinned, &policy.read_only);
                // Places to keep read-only that cannot be named to the kernel (or vanished since the
                // policy was made) are not silently left writable: the command does not run.
                if prepared.is_none() && !policy.read_only.is_empty() {
                    return Err(SandboxError::Refused(format!(
                        "cannot prepare the mount namespace that keeps {} read-only",
                        display_list(&policy.read_only)
                    )));
                }
                prepared
            }
            Some(_) => None,
        };
        Ok(Some(Arc::new(Self {
            ruleset: ruleset(policy)?,
            filter,
            read_only,
        })))
    }

    /// The closure for `Command::pre_exec`: it owns a reference to this confinement, so the
    /// ruleset descriptor stays open until every child that needs it has forked.
    pub fn hook(self: &Arc<Self>) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
        let this = Arc::clone(self);
        move || this.enter()
    }

    /// Confine the calling process. Runs in the forked child before exec, so it is
    /// async-signal-safe: system calls only, no allocation (errors are raw OS errors).
    fn enter(&self) -> io::Result<()> {
        // First, while mounting is still allowed: Landlock forbids it, and so stops the command
        // from undoing it.
        if let Some(read_only) = &self.read_only {
            read_only.enter()?;
        }
        // Required by landlock_restrict_self and seccomp for an unprivileged process; it also means
        // a setuid program (sudo) cannot gain privileges the sandbox would not see.
        rustix::thread::set_no_new_privs(true)?;
        // SAFETY: a plain system call on a descriptor this confinement owns (open until `self`
        // is dropped, which the hook's reference prevents); flags 0.
        let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset.as_raw_fd(), 0u32) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(filter) = &self.filter {
            seccompiler::apply_filter(filter).map_err(|e| match e {
                seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
                _ => io::Error::from_raw_os_error(libc::EINVAL),
            })?;
        }
        Ok(())
    }
}

/// Paths for a message, comma-separated.
fn display_list(paths: &[std::path::PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rights to write, create, remove, rename and truncate below a folder. Never creating device
/// nodes (as root, a block device made in /tmp would be a way around every rule) nor ioctl on
/// devices (opening a terminal anew and typing into it with `TIOCSTI` would be another).
fn folder_rights(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_all(abi) & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev)
}

/// Rights on a single writable file or device: write it in place (and truncate it: `> /dev/null`
/// opens with `O_TRUNC`).
fn file_rights(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_all(abi) & (AccessFs::WriteFile | AccessFs::Truncate)
}

/// The Landlock ruleset for `policy`: read and execute everywhere, write where it says.
fn ruleset(policy: &Policy) -> Result<OwnedFd, SandboxError> {
    let abi = policy.kernel.landlock_abi();
    // Exactly the rights of the ABI in use are asked for, so anything the kernel does not enforce
    // is an error rather than a silently weaker sandbox.
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))?;
    if policy.network == Network::Off {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        if policy.kernel.scopes() {
            ruleset = ruleset.scope(Scope::from_all(abi))?;
        }
    }
    let mut created = ruleset.create()?;
    created = created.add_rule(PathBeneath::new(PathFd::new("/")?, AccessFs::from_read(abi)))?;
    let writable = policy.write.iter().map(|w| (w.path.as_path(), w.file));
    let devices = DEVICES
        .iter()
        .map(|d| (std::path::Path::new(*d), true))
        .chain(DEVICE_DIRS.iter().map(|d| (std::path::Path::new(*d), true)));
    for (path, file) in writable.chain(devices) {
        // A place that vanished since the policy was made stays read-only.
        let Ok(fd) = PathFd::new(path) else {
            tracing::debug!("sandbox: {} is gone; not writable", path.display());
            continue;
        };
        let access = if file { file_rights(abi) } else { folder_rights(abi) };
        created = created.add_rule(PathBeneath::new(fd, access))?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| SandboxError::Refused("the kernel gave no Landlock ruleset".into()))
}

#[cfg(test)]
#[path = "confine_tests.rs"]
mod tests;
