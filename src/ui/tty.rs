//! The terminal: whether there is one to ask on, and its settings for the time a turn runs.

use std::io::IsTerminal;

/// Whether a person can be asked questions: stdin and stderr are both terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Whether stdin is a terminal (else it is piped input: a one-shot message).
pub fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// While alive, the terminal does not echo `^C` when Ctrl-C is pressed: the echo lands in the
/// spinner's line after it has been drawn and leaves it on screen. Restored on drop.
pub struct QuietInterrupts {
    saved: Option<libc::termios>,
}

impl QuietInterrupts {
    pub fn new() -> Self {
        // SAFETY: isatty/tcgetattr/tcsetattr only read or write the termios struct we own, for fd 0.
        unsafe {
            if libc::isatty(0) != 1 {
                return Self { saved: None };
            }
            let mut term: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut term) != 0 {
                return Self { saved: None };
            }
            let saved = term;
            term.c_lflag &= !libc::ECHOCTL;
            if libc::tcsetattr(0, libc::TCSANOW, &term) != 0 {
                return Self { saved: None };
            }
            Self { saved: Some(saved) }
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
        if let Some(saved) = self.saved {
            // SAFETY: restores the settings read in `new` on the same fd.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, &saved);
            }
        }
    }
}
