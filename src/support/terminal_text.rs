//! Making text that came from outside (model replies, proposed commands, command output, skill
//! names and descriptions) safe to draw on a terminal (docs/design.md#terminal-output).
//!
//! A terminal obeys escape sequences wherever they appear, so a hostile reply could retitle the
//! window, clear the screen, write the clipboard (OSC 52) or redraw the approval prompt. Every piece
//! of outside text passes through one of these functions before a renderer styles or prints it.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Characters that change how the rest of a line is drawn without being visible themselves:
/// bidirectional overrides and isolates (the "Trojan Source" set), zero-width joiners and spaces,
/// the byte-order mark and the Unicode line/paragraph separators.
pub(crate) fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Whether `c` is a control character or an invisible formatting character: never drawn raw,
/// even where newlines and tabs are fine.
pub(crate) fn is_hidden(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

/// Whether `c` must never reach the terminal raw.
fn is_unsafe(c: char, keep_newlines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_newlines,
        c if c.is_control() => true, // C0, DEL and C1 (which include the 8-bit CSI and OSC)
        c => is_invisible_format(c),
    }
}

fn escape_into(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x100 => {
            // Infallible: writing to a String cannot fail.
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

fn escape_where(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c, keep_newlines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c, keep_newlines) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Multi-line outside text (an answer, command output): newlines and tabs kept, every other
/// control or invisible formatting character shown escaped (`\x1b`, `\u{202e}`).
pub(crate) fn for_terminal(text: &str) -> Cow<'_, str> {
    escape_where(text, true)
}

/// One-line outside text (a command in an approval prompt, a skill name): everything invisible,
/// newlines included, shown escaped, so what the user reads is exactly what will run.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    escape_where(text, false)
}

/// Text for a place that must not show escapes at all (the model's own input): controls and
/// invisible formatting characters dropped, newlines and tabs kept.
pub(crate) fn strip_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c, true)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !is_unsafe(*c, true)).collect())
}

/// Most names a one-line list of them shows ([`short_list`]).
pub(crate) const MAX_NAMED: usize = 6;

/// Outside names on one line: each made [`visible`], at most `max` of them, then `+N more`;
/// empty when there are none.
pub(crate) fn short_list(names: &[String], max: usize) -> String {
    let mut shown: Vec<String> = names.iter().take(max).map(|n| visible(n).into_owned()).collect();
    if names.len() > max {
        shown.push(format!("+{} more", names.len() - max));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_sequences_but_keeps_lines() {
        assert_eq!(for_terminal("plain\ttext\n"), "plain\ttext\n");
        assert!(matches!(for_terminal("plain"), Cow::Borrowed(_)));
        assert_eq!(for_terminal("\x1b]0;title\x07hi"), "\\x1b]0;title\\x07hi");
        assert_eq!(for_terminal("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(for_terminal("\u{9b}31m"), "\\x9b31m");
        assert_eq!(for_terminal("x\u{202e}y"), "x\\u{202e}y");
    }

    #[test]
    fn visible_shows_line_breaks_and_carriage_returns() {
        assert_eq!(
            visible("touch x #\r\x1b[2KRun ./run.sh Tokyo"),
            "touch x #\\r\\x1b[2KRun ./run.sh Tokyo"
        );
        assert_eq!(visible("a\nb"), "a\\nb");
    }

    #[test]
    fn short_lists_count_the_rest() {
        let names: Vec<String> = ["a", "b\x1b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(short_list(&names, 5), "a, b\\x1b, c");
        assert_eq!(short_list(&names, 1), "a, +2 more");
        assert_eq!(short_list(&[], 3), "");
    }

    #[test]
    fn strip_keeps_text_only() {
        assert_eq!(strip_controls("ok\x1b[31m red\u{200b}\n"), "ok[31m red\n");
    }
}
