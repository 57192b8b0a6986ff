//! The last few lines of a running command's output, as a terminal shows them under the command:
//! a carriage return starts its line over (a progress counter overwrites itself), and only the
//! last lines are kept, each bounded, so memory stays flat whatever the command prints.

use std::collections::VecDeque;

/// Lines shown while a command runs, and kept on screen once it ends.
pub(crate) const TAIL_LINES: usize = 5;
/// Characters kept of one line: more than any terminal shows of it.
const LINE_CHARS: usize = 1000;

/// A command's output so far, as its last lines.
#[derive(Debug, Default)]
pub(crate) struct LiveTail {
    /// Finished lines, oldest first, at most [`TAIL_LINES`].
    done: VecDeque<String>,
    /// The line being written (no newline yet).
    current: String,
    /// A carriage return was the last character: the line starts over unless a newline follows.
    pending_cr: bool,
}

impl LiveTail {
    /// Take the next piece of output.
    pub(crate) fn push(&mut self, text: &str) {
        for c in text.chars() {
            if std::mem::take(&mut self.pending_cr) && c != '\n' {
                self.current.clear();
            }
            match c {
                '\n' => {
                    self.done.push_back(std::mem::take(&mut self.current));
                    if self.done.len() > TAIL_LINES {
                        self.done.pop_front();
                    }
                }
                '\r' => self.pending_cr = true,
                c if self.current.chars().count() < LINE_CHARS => self.current.push(c),
                _ => {}
            }
        }
    }

    /// The last [`TAIL_LINES`] lines, the unfinished one included, oldest first.
    pub(crate) fn lines(&self) -> Vec<&str> {
        let mut lines: Vec<&str> = self.done.iter().map(String::as_str).collect();
        if !self.current.is_empty() {
            lines.push(&self.current);
        }
        let skip = lines.len().saturating_sub(TAIL_LINES);
        lines.split_off(skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_and_lets_a_carriage_return_overwrite() {
        let mut tail = LiveTail::default();
        tail.push("30 29 28");
        assert_eq!(tail.lines(), ["30 29 28"]);
        tail.push("\r\n");
        for i in 0..7 {
            tail.push(&format!("line {i}\n"));
        }
        tail.push("10%\r");
        tail.push("20%");
        assert_eq!(tail.lines(), ["line 3", "line 4", "line 5", "line 6", "20%"]);
        let mut tail = LiveTail::default();
        tail.push("a\r");
        tail.push("\nb\n");
        assert_eq!(tail.lines(), ["a", "b"]);
    }
}
