//! Asking on the terminal whether a command may run.

use std::io::{BufRead, BufReader, Write};

use crate::agent::Approver;
use crate::agent::event::ApprovalRequest;

/// Asks on `/dev/tty`, so it works even when stdout is piped.
pub struct TerminalApprover {
    interactive: bool,
}

impl TerminalApprover {
    pub fn new(interactive: bool) -> Self {
        Self { interactive }
    }
}

impl Approver for TerminalApprover {
    fn can_ask(&self) -> bool {
        self.interactive
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
            return false;
        };
        let mut writer = &tty;
        let _ = write!(
            writer,
            "Run {} in {}? (cwd {}) [y/N] ",
            request.command, request.skill, request.cwd
        );
        let _ = writer.flush();
        let mut answer = String::new();
        if BufReader::new(&tty).read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }
}
