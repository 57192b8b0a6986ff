//! What the model and the user read of a command that ran: its exit status and capped output
//! for the model, the last lines of stderr for the `command_finished` event.

use crate::exec::process::CommandOutput;

/// Lines of stderr a `command_finished` event carries, and the most characters of each.
pub(super) const STDERR_TAIL_LINES: usize = 5;
const STDERR_TAIL_CHARS: usize = 300;

/// The model's text of a command that ran: how it ended, then stdout and stderr as captured.
pub(super) fn format_output(out: &CommandOutput, timeout_secs: u64) -> String {
    let mut text = match (out.timed_out, out.exit_code, out.signal) {
        (true, _, _) => format!("timed out after {timeout_secs}s and was killed\n"),
        (false, Some(code), _) => format!("exit code: {code}\n"),
        (false, None, Some(sig)) => format!("killed by signal {sig}\n"),
        (false, None, None) => "exit status unknown\n".to_string(),
    };
    for (label, cap) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if cap.total_bytes == 0 {
            continue;
        }
        let binary = if cap.binary {
            " (binary data, shown lossily)"
        } else {
            ""
        };
        text.push_str(&format!("{label}{binary}:\n{}", cap.text));
        if !cap.text.ends_with('\n') {
            text.push('\n');
        }
    }
    if out.stdout.total_bytes == 0 && out.stderr.total_bytes == 0 {
        text.push_str("(no output)\n");
    }
    text
}

/// The last `n` non-blank lines of `text` as a terminal would show them (a `\r` redraw keeps
/// only what came after it), each cut to [`STDERR_TAIL_CHARS`].
pub(super) fn last_lines(text: &str, n: usize) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .map(|l| l.rsplit('\r').next().unwrap_or(l).trim_end())
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(|l| match l.char_indices().nth(STDERR_TAIL_CHARS) {
            Some((cut, _)) => format!("{}…", &l[..cut]),
            None => l.to_string(),
        })
        .collect();
    lines.reverse();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_is_the_last_visible_lines() {
        let text = "one\n\ntwo\n  \nprogress 10%\rprogress 100%\nthree\n";
        assert_eq!(last_lines(text, 3), ["two", "progress 100%", "three"]);
        assert_eq!(last_lines("", 3), Vec::<String>::new());
        let long = "x".repeat(STDERR_TAIL_CHARS + 10);
        assert_eq!(last_lines(&long, 1)[0].chars().count(), STDERR_TAIL_CHARS + 1);
    }
}
