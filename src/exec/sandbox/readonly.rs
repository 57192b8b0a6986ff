//! A mount namespace of the command's own (docs/sandbox.md, "Read-only inside writable folders"),
//! for what Landlock cannot do:
//! - Landlock has no right for a file's mode, owner, times or extended attributes, so a confined
//!   command could `chmod 0666 ~/.ssh/authorized_keys`. In the namespace every mount but the
//!   writable places is read-only, so that fails ("Read-only file system"), as writes do.
//! - Landlock only grants, so it cannot take a right back below a writable folder. A command may
//!   write the working folder but not its `.git` (a hook or `core.fsmonitor` planted there runs at
//!   the user's next plain `git status`, outside any sandbox), nor `.envrc`, `.vscode`, `.idea`,
//!   `.githooks` or `.husky`, which other tools run on their own: each is bound onto itself
//!   read-only.
//!
//! The child enters a user and mount namespace of its own (which only it and its descendants
//! see), binds the writable places onto themselves, remounts every other mount read-only (keeping
//! its other flags), binds the kept places read-only, and only then enters Landlock, which forbids
//! it to mount or unmount anything, so none of this can be undone.
//!
//! The child's part is async-signal-safe like the rest of the confinement: every path, map line
//! and mount flag is prepared by the agent; the child makes only system calls. Where user
//! namespaces are unavailable (some container runtimes, distributions that restrict them), a probe
//! says so once and the places stay writable, which `skills show` states.

use super::policy::{Grant, Writable};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Names that other tools run on their own, kept read-only in every writable folder holding them.
pub(crate) const KEPT_READ_ONLY: &[&str] = &[".git", ".envrc", ".vscode", ".idea", ".githooks", ".husky"];

/// What a child needs for its namespace, prepared by the agent.
#[derive(Debug)]
pub(crate) struct ReadOnly {
    setgroups: CString,
    uid_map: CString,
    gid_map: CString,
    uid_line: Vec<u8>,
    gid_line: Vec<u8>,
    /// The writable places: bound onto themselves first, so they stay writable below.
    writable: Vec<CString>,
    /// Every other mount of the system, with the flags that remount it read-only keeping the
    /// flags it has (a user namespace may not clear `nosuid`, `nodev`, `noexec` or the atime mode).
    system: Vec<(CString, libc::c_ulong)>,
    /// Folders between a writable place and a kept place, bound onto themselves so they are mount
    /// points, which cannot be renamed or removed (the kept place cannot be carried away).
    pinned: Vec<CString>,
    /// Places inside writable folders to keep read-only, bound onto themselves and remounted so.
    kept: Vec<(CString, libc::c_ulong)>,
}

impl ReadOnly {
    /// Prepare a namespace where only `writable` (existing paths) can be changed at all — file
    /// modes, owners, times and extended attributes included, which Landlock does not cover — and
    /// `kept` (inside them) cannot, nor can the `pinned` folders leading to them be renamed.
    /// `None` when a path cannot be named to the kernel.
    pub(crate) fn prepare(writable: &[PathBuf], pinned: &[PathBuf], kept: &[PathBuf]) -> Option<Self> {
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
        let kept = kept
            .iter()
            .map(|p| Some((c(p)?, remount_flags(p)?)))
            .collect::<Option<Vec<_>>>()?;
        let system = system_mounts()
            .into_iter()
            .filter(|(point, _)| !writable.iter().any(|w| point.starts_with(w)))
            .filter_map(|(point, flags)| Some((c(&point)?, flags)))
            .collect();
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Some(Self {
            setgroups: CString::new("/proc/self/setgroups").ok()?,
            uid_map: CString::new("/proc/self/uid_map").ok()?,
            gid_map: CString::new("/proc/self/gid_map").ok()?,
            uid_line: format!("{uid} {uid} 1").into_bytes(),
            gid_line: format!("{gid} {gid} 1").into_bytes(),
            writable: writable.iter().map(|p| c(p)).collect::<Option<Vec<_>>>()?,
            system,
            pinned: pinned.iter().map(|p| c(p)).collect::<Option<Vec<_>>>()?,
            kept,
        })
    }

    /// In the forked child, before Landlock: a namespace of its own where everything but the
    /// writable places is mounted read-only, and the kept places inside them too. System calls
    /// only (no allocation); errors are raw OS errors.
    pub(crate) fn enter(&self) -> io::Result<()> {
        // SAFETY: unshare affects only the calling (single-threaded, forked) process.
        check(unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) })?;
        write_proc(&self.setgroups, b"deny")?;
        write_proc(&self.uid_map, &self.uid_line)?;
        write_proc(&self.gid_map, &self.gid_line)?;
        for path in &self.writable {
            // A place that vanished since the policy was made stays read-only, as under Landlock.
            let _ = bind(path);
        }
        for (path, flags) in &self.system {
            // A mount that cannot be remounted (not reachable by this user) stays as it was:
            // Landlock still refuses writes there; only metadata changes stay possible.
            let _ = remount(path, *flags);
        }
        // After the remounts: a pinned folder keeps the flags of the mount it is on.
        for path in &self.pinned {
            bind(path)?;
        }
        for (path, flags) in &self.kept {
            bind(path)?;
            remount(path, *flags)?;
        }
        enter_cwd_again();
        Ok(())
    }
}

/// Look the working directory up again, so it is on the new (writable) bind mount, not the
/// read-only one below it that it was entered on before the namespace existed.
fn enter_cwd_again() {
    let mut buf = [0u8; 4096];
    // SAFETY: getcwd writes at most `buf.len()` bytes into the stack buffer and NUL-terminates it;
    // chdir reads that string. No allocation.
    unsafe {
        let cwd = libc::getcwd(buf.as_mut_ptr().cast(), buf.len());
        if !cwd.is_null() {
            libc::chdir(cwd);
        }
    }
}

/// Bind-mount `path` onto itself (with what is mounted below it).
fn bind(path: &CString) -> io::Result<()> {
    let flags = libc::MS_BIND | libc::MS_REC;
    // SAFETY: a NUL-terminated path owned by the caller; null type and data are allowed.
    check(unsafe { libc::mount(path.as_ptr(), path.as_ptr(), std::ptr::null(), flags, std::ptr::null()) })
}

/// Change the flags of the mount at `path`.
fn remount(path: &CString, flags: libc::c_ulong) -> io::Result<()> {
    // SAFETY: as in `bind`.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            path.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    })
}

/// Every mount point of this process's namespace with its read-only remount flags, from
/// `/proc/self/mountinfo` (its options, not `statvfs`, so no automount is triggered).
fn system_mounts() -> Vec<(PathBuf, libc::c_ulong)> {
    let Ok(read) = crate::support::fs::read_regular(Path::new("/proc/self/mountinfo"), 4 * 1024 * 1024) else {
        return Vec::new();
    };
    read.text()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let (point, options) = (fields.get(4)?, fields.get(5)?);
            // An automount point is left alone: looking it up would mount what it stands for.
            let fs_type = fields.iter().position(|f| *f == "-").and_then(|i| fields.get(i + 1));
            if fs_type == Some(&"autofs") {
                return None;
            }
            Some((PathBuf::from(unescape(point)), flags_of(options.split(','))))
        })
        .collect()
}

/// A mountinfo path with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 8).ok());
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Read-only remount flags keeping these mount options.
fn flags_of<'a>(options: impl Iterator<Item = &'a str>) -> libc::c_ulong {
    let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
    let mut atime = false;
    for option in options {
        flags |= match option {
            "nosuid" => libc::MS_NOSUID,
            "nodev" => libc::MS_NODEV,
            "noexec" => libc::MS_NOEXEC,
            "noatime" => libc::MS_NOATIME,
            "nodiratime" => libc::MS_NODIRATIME,
            "relatime" => libc::MS_RELATIME,
            _ => 0,
        };
        atime |= matches!(option, "noatime" | "relatime");
    }
    if !atime {
        flags |= libc::MS_STRICTATIME;
    }
    flags
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Write `bytes` to a file of `/proc/self` with raw system calls.
fn write_proc(path: &CString, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a NUL-terminated path; the descriptor is closed below.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `bytes` is valid for its length; `fd` is open.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    // SAFETY: `fd` is ours.
    unsafe { libc::close(fd) };
    if usize::try_from(written).ok() == Some(bytes.len()) {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The remount flags that make `path`'s bind mount read-only and keep the mount's other flags.
fn remount_flags(path: &Path) -> Option<libc::c_ulong> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes into the zeroed struct; a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let f = st.f_flag;
    let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    if f & (libc::ST_NOATIME | libc::ST_RELATIME) == 0 {
        flags |= libc::MS_STRICTATIME;
    }
    Some(flags)
}

/// Why this machine does not let a child make places read-only. Kept once per run (so `Clone`,
/// the io error shared), and shown as the reason in `agent doctor` and the sandbox's warnings.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unavailable {
    #[error("no temp folder to check with: {0}")]
    NoTemp(#[source] std::sync::Arc<std::io::Error>),
    #[error("cannot prepare the check")]
    Prepare,
    #[error("the check exited with {0}")]
    Exited(std::process::ExitStatus),
    #[error("user namespaces are unavailable here ({0})")]
    NoNamespaces(#[source] std::sync::Arc<std::io::Error>),
}

/// Whether this machine lets a child make places read-only, checked once per run by a real child
/// (`sh -c :`) doing it to a temp folder; the error says why not.
pub fn available() -> Result<(), Unavailable> {
    static PROBE: OnceLock<Result<(), Unavailable>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

fn probe() -> Result<(), Unavailable> {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().map_err(|e| Unavailable::NoTemp(e.into()))?;
    let ro = ReadOnly::prepare(&[], &[], &[dir.path().to_path_buf()]).ok_or(Unavailable::Prepare)?;
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.args(["-c", ":"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: `enter` makes only async-signal-safe system calls.
    unsafe { cmd.pre_exec(move || ro.enter()) };
    match cmd.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(Unavailable::Exited(status)),
        Err(e) => Err(Unavailable::NoNamespaces(e.into())),
    }
}

/// The places of [`KEPT_READ_ONLY`] that exist directly inside a writable folder
/// (not the temp folders), unless the user's `--allow-write` names them or a place inside them.
pub(super) fn kept_read_only(write: &[Writable]) -> Vec<PathBuf> {
    let allowed: Vec<&Writable> = write.iter().filter(|w| w.grant == Grant::AllowWrite).collect();
    let mut out = Vec::new();
    for w in write
        .iter()
        .filter(|w| !w.file && !matches!(w.grant, Grant::Temp | Grant::ToolCache))
    {
        for name in KEPT_READ_ONLY {
            let place = w.real.join(name);
            let opened = allowed
                .iter()
                .any(|a| a.real.starts_with(&place) || place.starts_with(&a.real));
            if !opened && std::fs::symlink_metadata(&place).is_ok() && !out.contains(&place) {
                out.push(place);
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "readonly_tests.rs"]
mod tests;
