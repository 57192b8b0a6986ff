//! The exit codes (docs/design.md#exit-codes) and the error type that carries one to `main`.

use std::fmt;

/// The documented process exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitCode {
    Answered = 0,
    Internal = 1,
    Usage = 2,
    Config = 3,
    Llm = 4,
    StepLimit = 5,
    /// Answered, but a command the model proposed was denied or could not be approved.
    Denied = 6,
    /// `skills audit` found something of medium or high severity.
    AuditFindings = 7,
    /// `skills audit` found something critical.
    AuditCritical = 8,
    /// With `--require-tool`: answered, but the answer rests on nothing that ran.
    Unverified = 9,
    Interrupted = 130,
}

impl ExitCode {
    /// The numeric process exit status.
    pub(crate) fn code(self) -> i32 {
        self as i32
    }
}

/// An error that knows which exit code it ends the process with.
#[derive(Debug)]
pub(crate) struct AppError {
    pub(crate) code: ExitCode,
    pub(crate) message: String,
}

impl AppError {
    /// An error ending the run with `code`.
    pub(crate) fn new(code: ExitCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// A configuration error (exit 3).
    pub(crate) fn config(message: impl Into<String>) -> Self {
        Self::new(ExitCode::Config, message)
    }

    /// A usage error (exit 2).
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::new(ExitCode::Usage, message)
    }

    /// An internal error, or a failed check (exit 1).
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(ExitCode::Internal, message)
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AppError {}
