//! Dynamic context in a skill body (docs/skills.md#dynamic-context): Claude Code's
//! `` !`command` `` markers, found the way a markdown reader sees them, so an example inside a
//! fenced block or inside a larger code span is text, never a command. This module only finds and
//! fills markers; running them is the agent's (`agent/tools/dynamic.rs`), through the same path as
//! any command of the skill.

/// One `` !`command` `` in a body: where it is (byte range, the `!` to the closing backtick) and
/// the command between the backticks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// Byte offset of the `!`.
    pub(crate) start: usize,
    /// Byte offset just past the closing backtick.
    pub(crate) end: usize,
    /// The command, trimmed.
    pub(crate) command: String,
}

/// Most markers of one body that are run; the rest are marked as not run.
pub(crate) const MAX_MARKERS: usize = 16;

/// Every marker of `body`, in order. A marker is `!` directly followed by a code span of exactly
/// one backtick on each side, the `!` starting the line or following a blank or `(`, and not
/// escaped (`\!`). Nothing inside a fenced code block (```` ``` ```` or `~~~`, also Claude Code's
/// unsupported ```` ```! ```` form) or inside another code span counts.
pub(crate) fn markers(body: &str) -> Vec<Marker> {
    let mut found = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        match fence {
            Some(open) => {
                if closes(text, open) {
                    fence = None;
                }
            }
            None => match opens(text) {
                Some(open) => fence = Some(open),
                None => found.extend(in_line(text).into_iter().map(|m| Marker {
                    start: m.start + offset,
                    end: m.end + offset,
                    command: m.command,
                })),
            },
        }
        offset += line.len();
    }
    found
}

/// `body` with each marker replaced by its filling, in order (`fills` has one entry a marker).
pub(crate) fn fill(body: &str, markers: &[Marker], fills: &[String]) -> String {
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    for (marker, text) in markers.iter().zip(fills) {
        out.push_str(body.get(at..marker.start).unwrap_or_default());
        out.push_str(text);
        at = marker.end;
    }
    out.push_str(body.get(at..).unwrap_or_default());
    out
}

/// The fence a line opens: its character and length. Up to three spaces of indent; a backtick
/// fence's info string holds no backtick (else the line is an inline span, as in CommonMark).
fn opens(line: &str) -> Option<(u8, usize)> {
    let rest = strip_indent(line)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let run = rest.bytes().take_while(|&b| b == ch).count();
    if run < 3 || (ch == b'`' && rest[run..].contains('`')) {
        return None;
    }
    Some((ch, run))
}

/// Whether `line` closes a fence opened with `open`: the same character, at least as many, and
/// nothing after but blanks.
fn closes(line: &str, (ch, len): (u8, usize)) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|&b| b == ch).count();
    run >= len && rest[run..].trim().is_empty()
}

/// `line` without up to three leading spaces; `None` when it is indented further.
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// The markers of one line outside a fence, offsets within the line.
fn in_line(line: &str) -> Vec<Marker> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut escaped_at = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                escaped_at = Some(i + 1);
                i += 2;
            }
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let Some(close) = closing_run(bytes, i + run, run) else {
                    // No closing run: these backticks are literal text.
                    i += run;
                    continue;
                };
                let bang = i.checked_sub(1).filter(|&b| bytes[b] == b'!' && escaped_at != Some(b));
                let starts_word = |b: usize| b == 0 || matches!(bytes[b - 1], b' ' | b'\t' | b'(');
                let command = line[i + run..close].trim();
                if let Some(bang) = bang.filter(|&b| run == 1 && starts_word(b) && !command.is_empty()) {
                    found.push(Marker {
                        start: bang,
                        end: close + run,
                        command: command.to_string(),
                    });
                }
                i = close + run;
            }
            _ => i += 1,
        }
    }
    found
}

/// Where the next run of exactly `len` backticks at or after `from` begins.
fn closing_run(bytes: &[u8], from: usize, len: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            if run == len {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(body: &str) -> Vec<String> {
        markers(body).into_iter().map(|m| m.command).collect()
    }

    #[test]
    fn a_line_and_an_inline_marker_are_found() {
        assert_eq!(
            commands("Branch: !`git branch --show-current`\n"),
            ["git branch --show-current"]
        );
        assert_eq!(commands("!`date`\n"), ["date"]);
        assert_eq!(commands("(now !`date +%H`)"), ["date +%H"]);
    }

    #[test]
    fn several_markers_on_one_line_each_count() {
        let body = "A: !`echo a` and B: !`echo b`, plain `code` and !`echo c`\n";
        assert_eq!(commands(body), ["echo a", "echo b", "echo c"]);
        let found = markers(body);
        let filled = fill(body, &found, &["1".into(), "2".into(), "3".into()]);
        assert_eq!(filled, "A: 1 and B: 2, plain `code` and 3\n");
    }

    #[test]
    fn fenced_blocks_are_never_run() {
        let body = "Example:\n```sh\n!`rm -rf x`\n```\n~~~\n!`rm y`\n~~~\n  ```!\n!`rm z`\n  ```\nafter !`echo ok`\n";
        assert_eq!(commands(body), ["echo ok"]);
        // A longer fence is closed only by as long a one.
        assert_eq!(commands("````\n```\n!`rm a`\n````\n!`echo b`\n"), ["echo b"]);
        // An unclosed fence runs to the end.
        assert!(commands("```\n!`rm a`\n").is_empty());
    }

    #[test]
    fn markers_inside_other_code_spans_are_explanation() {
        assert!(commands("Write ``!`date` `` to inject the date.\n").is_empty());
        assert!(commands("Use `!`date`` in a skill.\n").is_empty());
        assert!(commands("The syntax is `` !`cmd` ``.\n").is_empty());
    }

    #[test]
    fn escaped_and_glued_forms_are_text() {
        assert!(commands("\\!`date`\n").is_empty());
        assert!(commands("Done!`x`\n").is_empty());
        assert!(commands("!``date``\n").is_empty());
        assert!(commands("!` `\n").is_empty());
        assert!(commands("an unclosed !`date\n").is_empty());
        // An escaped backtick does not open a span.
        assert_eq!(commands("\\` then !`echo a`\n"), ["echo a"]);
    }

    #[test]
    fn indented_four_spaces_is_not_a_fence() {
        assert_eq!(commands("    ```\n!`echo a`\n"), ["echo a"]);
    }

    #[test]
    fn fill_keeps_unicode_around_markers() {
        let body = "é !`echo x` ü";
        let found = markers(body);
        assert_eq!(fill(body, &found, &["X".into()]), "é X ü");
    }
}
