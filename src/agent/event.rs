//! The one `Event` type the loop emits, and the two interfaces front ends implement.

use serde::Serialize;

use crate::exec::approval::ApprovalPolicy;
use crate::exec::trust::Assessment;
use crate::llm::types::Usage;

/// Everything that happens during a session, in order. Renderers decide how to show it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Session {
        version: &'static str,
        model: String,
        base_url: String,
        skills: usize,
        approve: ApprovalPolicy,
    },
    SkillSelected {
        skill: String,
        dir: String,
    },
    CommandStarted {
        skill: String,
        command: String,
        cwd: String,
        /// The words it runs as, without a shell, when it was pre-approved as a literal command;
        /// absent when it runs with `sh -c`.
        #[serde(skip_serializing_if = "Option::is_none")]
        argv: Option<Vec<String>>,
    },
    CommandFinished {
        skill: String,
        command: String,
        exit_code: Option<i32>,
        signal: Option<i32>,
        duration_ms: u64,
        stdout_bytes: u64,
        stderr_bytes: u64,
        timed_out: bool,
        /// The last few lines of stderr, secrets redacted: why a failed command failed.
        stderr_tail: Vec<String>,
    },
    CommandDenied {
        skill: Option<String>,
        command: String,
        reason: String,
    },
    MessageDelta {
        text: String,
    },
    Message {
        text: String,
    },
    Warning {
        message: String,
    },
    Error {
        message: String,
        code: i32,
    },
    Done {
        exit_code: i32,
        llm_calls: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
}

/// Receives events as they happen.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: Event);
}

/// What a person is asked before a command runs.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub skill: String,
    pub command: String,
    pub cwd: String,
}

/// Asks a person whether a command may run. Called on a blocking thread.
pub trait Approver: Send + Sync {
    /// Whether a person is there to ask at all.
    fn can_ask(&self) -> bool;
    /// Ask; `true` means run it.
    fn ask(&self, request: &ApprovalRequest) -> bool;
    /// Ask whether a folder (its `.env` and project skills) may be trusted, showing what changed.
    fn ask_trust(&self, assessment: &Assessment) -> bool;
}
