//! The exit codes (docs/design.md#exit-codes) and the error type that carries one to `main`.

use std::error::Error;
use std::fmt;

/// The error underneath an `AppError`, kept whole so its chain can be shown (and inspected).
pub(crate) type Cause = Box<dyn Error + Send + Sync + 'static>;

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

/// An error that knows which exit code it ends the process with. Each room's error converts to
/// it once, at the top (its `From` impl or the app/ boundary), keeping the room's error as `source`.
#[derive(Debug)]
pub(crate) struct AppError {
    pub(crate) code: ExitCode,
    /// What went wrong and how to fix it, as the user reads it.
    pub(crate) message: String,
    /// The error this one stands for, if any; `causes` shows what of its chain the message lacks.
    pub(crate) source: Option<Cause>,
}

impl AppError {
    /// An error ending the run with `code`.
    pub(crate) fn new(code: ExitCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            source: None,
        }
    }

    /// An error ending the run with `code` that stands for `source`: the message is `source`'s
    /// own text (rooms' errors already name the cause and the fix), the error is kept beneath.
    pub(crate) fn from_source(code: ExitCode, source: impl Into<Cause>) -> Self {
        let source = source.into();
        Self {
            code,
            message: source.to_string(),
            source: Some(source),
        }
    }

    /// `context: source` ending the run with `code`, the way ripgrep's `.context(...)` reads:
    /// what was being done (the path, the server), then why it failed, the error kept beneath.
    pub(crate) fn context(code: ExitCode, context: impl fmt::Display, source: impl Into<Cause>) -> Self {
        let source = source.into();
        Self {
            code,
            message: format!("{context}: {source}"),
            source: Some(source),
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

    /// The texts of the cause chain the message does not already say (see `untold_causes`).
    pub(crate) fn causes(&self) -> Vec<String> {
        untold_causes(
            &self.message,
            self.source.as_deref().map(|e| e as &(dyn Error + 'static)),
        )
    }
}

/// The texts of the chain from `first` down that `message` does not already say, outermost
/// first: a cause whose text is part of the message (or of a cause kept before it) is not repeated,
/// so an error that quotes its source reads once.
pub(crate) fn untold_causes(message: &str, first: Option<&(dyn Error + 'static)>) -> Vec<String> {
    let mut said = message.to_string();
    let mut causes = Vec::new();
    let mut next = first;
    while let Some(cause) = next {
        let text = cause.to_string();
        let text = text.trim();
        if !text.is_empty() && !said.contains(text) {
            said.push('\n');
            said.push_str(text);
            causes.push(text.to_string());
        }
        next = cause.source();
    }
    causes
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for AppError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a source beneath it, as a room's error wrapping an io error reads.
    #[derive(Debug, thiserror::Error)]
    #[error("cannot read {path}")]
    struct Reading {
        path: String,
        #[source]
        source: std::io::Error,
    }

    fn denied() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied")
    }

    #[test]
    fn an_io_error_survives_to_the_app_error_as_its_source() {
        let err = AppError::context(ExitCode::Config, "cannot write /x/y", denied());
        assert_eq!(err.code, ExitCode::Config);
        assert_eq!(err.message, "cannot write /x/y: permission denied");
        let io = Error::source(&err).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(io.map(std::io::Error::kind), Some(std::io::ErrorKind::PermissionDenied));
        // The message already says the cause, so it is not shown twice.
        assert!(err.causes().is_empty(), "{:?}", err.causes());
    }

    #[test]
    fn a_cause_the_message_does_not_say_is_shown_once() {
        let room = Reading {
            path: "/x/keys.json".into(),
            source: denied(),
        };
        let err = AppError::from_source(ExitCode::Config, room);
        assert_eq!(err.message, "cannot read /x/keys.json");
        assert_eq!(err.causes(), vec!["permission denied".to_string()]);
        // Wrapping it once more repeats nothing the outer message already says.
        let outer = AppError::context(ExitCode::Config, "loading keys", err);
        assert_eq!(outer.message, "loading keys: cannot read /x/keys.json");
        assert_eq!(outer.causes(), vec!["permission denied".to_string()]);
    }

    #[test]
    fn an_error_without_a_source_has_no_causes() {
        let err = AppError::usage("no such command");
        assert_eq!(err.code.code(), 2);
        assert!(Error::source(&err).is_none() && err.causes().is_empty());
    }
}
