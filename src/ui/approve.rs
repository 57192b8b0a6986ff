//! Asking on the terminal whether a command may run or a project's skills may be trusted.

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

    /// Print `question` on the terminal and read the answer; anything but y/yes is no.
    fn prompt_yes(&self, question: &str) -> bool {
        let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
            return false;
        };
        let mut writer = &tty;
        let _ = write!(writer, "{question}");
        let _ = writer.flush();
        let mut answer = String::new();
        if BufReader::new(&tty).read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }
}

impl Approver for TerminalApprover {
    fn can_ask(&self) -> bool {
        self.interactive
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        self.prompt_yes(&format!(
            "Run {} in {}? (cwd {}) [y/N] ",
            request.command, request.skill, request.cwd
        ))
    }

    fn ask_trust(&self, folder: &str) -> bool {
        self.prompt_yes(&format!(
            "The skills in {folder} come with this project and can run commands on this machine.\n\
             Trust this folder from now on? [y/N] "
        ))
    }
}
