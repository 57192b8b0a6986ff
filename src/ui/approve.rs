//! Asking on the terminal whether a command may run or a project's skills may be trusted.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};

use super::human::HumanRenderer;
use crate::agent::Approver;
use crate::agent::event::ApprovalRequest;

/// Asks on `/dev/tty`, so it works even when stdout is piped.
pub struct TerminalApprover {
    interactive: bool,
    renderer: Option<Arc<HumanRenderer>>,
    /// Skills the user said "always" for, this session.
    always: Mutex<HashSet<String>>,
}

impl TerminalApprover {
    pub fn new(interactive: bool, renderer: Option<Arc<HumanRenderer>>) -> Self {
        Self {
            interactive,
            renderer,
            always: Mutex::new(HashSet::new()),
        }
    }

    /// Print `question` on the terminal and read the answer, lowercased ("" when unreadable).
    fn prompt(&self, question: &str) -> String {
        if let Some(r) = &self.renderer {
            r.stop_waiting();
        }
        let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
            return String::new();
        };
        let mut writer = &tty;
        let _ = write!(writer, "{question}");
        let _ = writer.flush();
        let mut answer = String::new();
        if BufReader::new(&tty).read_line(&mut answer).is_err() {
            return String::new();
        }
        answer.trim().to_ascii_lowercase()
    }
}

impl Approver for TerminalApprover {
    fn can_ask(&self) -> bool {
        self.interactive
    }

    fn ask(&self, request: &ApprovalRequest) -> bool {
        let mut always = self.always.lock().unwrap_or_else(|p| p.into_inner());
        if always.contains(&request.skill) {
            return true;
        }
        let answer = self.prompt(&format!(
            "Run `{}`\n  skill {} · in {}\n  [y]es / [n]o / [a]lways for {} this session? ",
            request.command, request.skill, request.cwd, request.skill
        ));
        match answer.as_str() {
            "y" | "yes" => true,
            "a" | "always" => {
                always.insert(request.skill.clone());
                true
            }
            _ => false,
        }
    }

    fn ask_trust(&self, folder: &str) -> bool {
        let answer = self.prompt(&format!(
            "The skills in {folder} come with this project and can run commands on this machine.\n\
             Trust this folder from now on? [y/N] "
        ));
        matches!(answer.as_str(), "y" | "yes")
    }
}
