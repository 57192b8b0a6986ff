//! What this machine's kernel can enforce: the Landlock ABI it reports, the one `agent` uses, and
//! whether the seccomp network filter can be built for this architecture.

/// The newest Landlock ABI whose rights `agent` has been tested with. A newer kernel is used at this
/// level, so a kernel upgrade never changes what commands may do without a test having seen it.
pub(crate) const TESTED_ABI: u32 = 7;

/// Hidden test setting, read from the real environment only (never from a `.env`): pretend the
/// kernel offers at most this Landlock ABI (`0`: none), to exercise the warning and refusal paths
/// on a machine that has Landlock.
pub(crate) const ABI_OVERRIDE_VAR: &str = "AGENT_SANDBOX_ABI";

/// The sandbox features the running kernel offers, as `agent` will use them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Kernel {
    /// The Landlock ABI the kernel reports (0: none).
    pub(crate) reported_abi: u32,
    /// The ABI `agent` uses: the reported one, capped at `TESTED_ABI` and by `AGENT_SANDBOX_ABI`.
    pub abi: u32,
    /// Whether `AGENT_SANDBOX_ABI` lowered it.
    pub(crate) simulated: bool,
    /// Why there is no Landlock, when there is none.
    pub missing: Option<String>,
    /// Whether the seccomp filter that `strict` adds can be built for this architecture.
    pub(crate) seccomp: bool,
}

impl Kernel {
    /// Ask the kernel, then apply `AGENT_SANDBOX_ABI` from the process environment.
    pub fn detect() -> Self {
        let cap = std::env::var(ABI_OVERRIDE_VAR).ok();
        Self::from_query(query_abi(), cap.as_deref())
    }

    #[cfg(test)]
    /// A kernel that offers exactly `abi` (benchmarks and tests of policies).
    pub(crate) fn with_abi(abi: u32) -> Self {
        Self::from_query(Ok(abi), None)
    }

    fn from_query(reported: Result<u32, String>, cap: Option<&str>) -> Self {
        let (reported_abi, mut missing) = match reported {
            Ok(v) => (v, None),
            Err(why) => (0, Some(why)),
        };
        let cap = cap.and_then(|v| v.trim().parse::<u32>().ok());
        let mut abi = reported_abi.min(TESTED_ABI);
        let simulated = cap.is_some_and(|c| c < abi);
        if let Some(c) = cap.filter(|c| *c < abi) {
            abi = c;
            if abi == 0 {
                missing = Some(format!("{ABI_OVERRIDE_VAR}=0 pretends this kernel has no Landlock"));
            }
        }
        let seccomp = seccompiler::TargetArch::try_from(std::env::consts::ARCH).is_ok();
        Self {
            reported_abi,
            abi,
            simulated,
            missing,
            seccomp,
        }
    }

    /// What is in force when commands are confined: `landlock-v7`, or `unavailable`.
    pub fn name(&self) -> String {
        if self.abi == 0 {
            "unavailable".into()
        } else {
            format!("landlock-v{}", self.abi)
        }
    }

    /// Landlock can confine the filesystem at all.
    pub fn filesystem(&self) -> bool {
        self.abi >= 1
    }

    /// Truncating a file outside the writable folders is refused too (ABI 3); without it, a
    /// command can still empty any file the user can write, so the sandbox is partial.
    pub(crate) fn truncate(&self) -> bool {
        self.abi >= 3
    }

    /// TCP connect and bind can be refused (ABI 4).
    pub(crate) fn tcp(&self) -> bool {
        self.abi >= 4
    }

    /// ioctl on devices opened inside the sandbox can be refused (ABI 5): this is what stops a
    /// command from typing into the user's terminal (`TIOCSTI`).
    pub(crate) fn device_ioctl(&self) -> bool {
        self.abi >= 5
    }

    /// Signals and abstract Unix sockets can be scoped to the sandbox (ABI 6).
    pub(crate) fn scopes(&self) -> bool {
        self.abi >= 6
    }

    /// The ABI as the `landlock` crate names it.
    pub(crate) fn landlock_abi(&self) -> landlock::ABI {
        landlock::ABI::from(i32::try_from(self.abi).unwrap_or(i32::MAX))
    }
}

/// The Landlock ABI version the kernel reports, or why there is none. The reason is text: the
/// errno is read into it (nothing lies beneath), and it is shown as-is by `sandbox status`.
fn query_abi() -> Result<u32, String> {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with a null attribute, size 0 and the VERSION flag, landlock_create_ruleset(2) only
    // returns the ABI version or an error: it creates nothing and reads or writes no memory. The
    // `landlock` crate keeps this query private, and the version is what the user needs to see.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if v >= 1 {
        return Ok(u32::try_from(v).unwrap_or(u32::MAX));
    }
    let errno = std::io::Error::last_os_error().raw_os_error();
    Err(match errno {
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built into this kernel but not enabled (add `landlock` to the `lsm=` boot parameter)".into()
        }
        Some(libc::ENOSYS) => "this kernel has no Landlock (it needs Linux 5.13 or newer built with it)".into(),
        _ => "the Landlock system call is refused here (a container's seccomp profile?)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_lowers_the_abi_and_zero_means_missing() {
        let k = Kernel::from_query(Ok(7), Some("3"));
        assert_eq!((k.reported_abi, k.abi, k.simulated), (7, 3, true));
        assert!(k.filesystem() && k.truncate() && !k.tcp());
        assert_eq!(k.name(), "landlock-v3");

        let k = Kernel::from_query(Ok(7), Some("0"));
        assert_eq!(k.abi, 0);
        assert_eq!(k.name(), "unavailable");
        assert!(k.missing.as_deref().is_some_and(|m| m.contains(ABI_OVERRIDE_VAR)));
    }

    #[test]
    fn a_cap_never_raises_and_newer_kernels_are_used_at_the_tested_level() {
        let k = Kernel::from_query(Ok(2), Some("9"));
        assert_eq!((k.abi, k.simulated), (2, false));
        let k = Kernel::from_query(Ok(12), Some("junk"));
        assert_eq!((k.reported_abi, k.abi), (12, TESTED_ABI));
        assert!(k.tcp() && k.device_ioctl() && k.scopes());
    }

    #[test]
    fn a_kernel_without_landlock_says_why() {
        let k = Kernel::from_query(Err("no Landlock".into()), None);
        assert_eq!((k.reported_abi, k.abi), (0, 0));
        assert!(!k.filesystem());
        assert_eq!(k.missing.as_deref(), Some("no Landlock"));
    }

    #[test]
    fn the_real_query_answers_without_failing() {
        // Whatever this machine offers, asking must not crash and must agree with itself.
        let k = Kernel::detect();
        assert_eq!(k.abi == 0, k.missing.is_some());
    }
}
