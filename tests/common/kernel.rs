//! Kernel features some tests need (Landlock at an ABI, mount namespaces for commands), and the
//! one way a test without them is skipped: visibly, with the reason, never as a silent pass.
//!
//! A skip prints `SKIP <test>: <reason>` straight to the process's stderr (libtest captures only
//! the print macros, so the line shows even when the test passes). With `AGENT_TEST_NO_SKIP=1`
//! in the environment a missing feature fails the test instead: `.ci/run` sets it, because the
//! machine CI runs on has every feature these tests need.

use std::io::Write;

/// Why this kernel cannot run what needs Landlock at `abi` or newer, if it cannot.
pub fn landlock(abi: u32) -> Result<(), String> {
    let k = agent::exec::sandbox::Kernel::detect();
    if k.abi >= abi {
        Ok(())
    } else {
        Err(format!(
            "this kernel offers Landlock ABI {} (the test needs {abi})",
            k.abi
        ))
    }
}

/// Why commands cannot get a mount namespace of their own here, if they cannot (then the
/// protected places beneath a writable folder cannot be kept, and commands are asked about).
pub fn namespaces() -> Result<(), String> {
    agent::exec::sandbox::readonly::available().map_err(|e| e.to_string())
}

/// Whether `need` holds; when it does not, reports the part of the test it guards as skipped
/// (or fails under `AGENT_TEST_NO_SKIP=1`). For checks inside a test that runs on regardless.
pub fn offers(need: Result<(), String>) -> bool {
    match need {
        Ok(()) => true,
        Err(reason) => {
            skipped(&format!("part of the test: {reason}"));
            false
        }
    }
}

/// Reports a skip, or fails the test when skips are not allowed.
pub fn skipped(reason: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var("AGENT_TEST_NO_SKIP").is_ok_and(|v| v == "1") {
        panic!("{test} cannot run here ({reason}) and AGENT_TEST_NO_SKIP=1 forbids skipping it");
    }
    let _ = writeln!(std::io::stderr(), "SKIP {test}: {reason}");
}

/// Skips the rest of the test (see the module doc) unless every kernel feature named holds:
/// `require_kernel!(kernel::landlock(3), kernel::namespaces());`.
macro_rules! require_kernel {
    ($($need:expr),+ $(,)?) => {
        $(
            if let Err(reason) = $need {
                $crate::common::kernel::skipped(&reason);
                return;
            }
        )+
    };
}
pub(crate) use require_kernel;
