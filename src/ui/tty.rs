//! The terminal: whether there is one to ask on, and its settings for the time a turn runs.

use std::io::IsTerminal;

use rustix::termios::{LocalModes, OptionalActions, Termios, isatty, tcgetattr, tcsetattr};

/// Whether a person can be asked questions: stdin and stderr are both terminals.
pub(crate) fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Whether stdin is a terminal (else it is piped input: a one-shot message).
pub(crate) fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// While alive, the terminal does not echo `^C` when Ctrl-C is pressed: the echo lands in the
/// spinner's line after it has been drawn and leaves it on screen. Restored on drop.
pub(crate) struct QuietInterrupts {
    saved: Option<Termios>,
}

impl QuietInterrupts {
    /// Turn off the echo of control characters on stdin's terminal, if it is one.
    pub(crate) fn new() -> Self {
        let stdin = std::io::stdin();
        if !isatty(&stdin) {
            return Self { saved: None };
        }
        let Ok(saved) = tcgetattr(&stdin) else {
            return Self { saved: None };
        };
        let mut quiet = saved.clone();
        quiet.local_modes.remove(LocalModes::ECHOCTL);
        match tcsetattr(&stdin, OptionalActions::Now, &quiet) {
            Ok(()) => Self { saved: Some(saved) },
            Err(_) => Self { saved: None },
        }
    }
}

impl Default for QuietInterrupts {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for QuietInterrupts {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            // Nothing to do if the terminal went away meanwhile.
            let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, saved);
        }
    }
}
