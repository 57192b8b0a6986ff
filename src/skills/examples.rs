//! Example output in a SKILL.md: the lines of its code blocks that show what a command prints.
//! A small model may copy such a line as its answer instead of running the command; the turn
//! marks an answer that repeats one (`agent::grounding`), and `skills check` names examples that
//! look like live values (a date, a clock time), which an obvious placeholder serves better.

/// Shortest example line (in characters, trimmed) worth comparing: shorter ones are common to any
/// two texts.
pub(crate) const MIN_EXAMPLE_CHARS: usize = 8;

/// Lines of `body` (with their 1-based numbers) that look like output a command printed: inside a
/// code block (fenced or indented), carrying data (a digit), long enough not to be common words,
/// and not a command to type.
pub(crate) fn output_lines(body: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for (i, raw) in body.lines().enumerate() {
        if raw.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let in_block = fenced || raw.starts_with("    ") || raw.starts_with('\t');
        let line = raw.trim();
        if in_block
            && line.chars().count() >= MIN_EXAMPLE_CHARS
            && line.chars().any(|c| c.is_ascii_digit())
            && !looks_like_command(line)
        {
            lines.push((i + 1, line.to_string()));
        }
    }
    lines
}

/// Whether a code line is a command to type rather than output to read.
fn looks_like_command(line: &str) -> bool {
    const STARTS: [&str; 16] = [
        "$", "./", "#", ">", "python", "bash ", "sh ", "curl ", "npm ", "npx ", "pip ", "uv ", "node ", "cd ",
        "export ", "scripts/",
    ];
    STARTS.iter().any(|p| line.starts_with(p)) || line.contains("$SKILL_DIR") || line.contains(" --")
}

/// Whether an example line shows a value that changes from run to run, as real output would: a
/// calendar date (`2026-11-29`) or a clock time (`21:04`).
pub(crate) fn looks_live(line: &str) -> bool {
    let bytes = line.as_bytes();
    let digits =
        |from: usize, n: usize| from + n <= bytes.len() && bytes[from..from + n].iter().all(u8::is_ascii_digit);
    let bounded = |at: usize| at == 0 || !bytes[at - 1].is_ascii_digit();
    (0..bytes.len()).any(|i| {
        let date = bounded(i)
            && digits(i, 4)
            && bytes.get(i + 4) == Some(&b'-')
            && digits(i + 5, 2)
            && bytes.get(i + 7) == Some(&b'-')
            && digits(i + 8, 2);
        // A UTC offset (`+09:00`) is the same every run: not a clock time.
        let offset = i > 0 && matches!(bytes[i - 1], b'+' | b'-');
        let clock = bounded(i) && !offset && digits(i, 2) && bytes.get(i + 2) == Some(&b':') && digits(i + 3, 2);
        date || clock
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_are_those_of_code_blocks_that_are_not_commands() {
        let body = "# t\nIt is 2026-11-29 in prose.\n```\n./run.sh Tokyo 2\nTokyo: 2026-11-29 21:04 JST\n```\n\n    total 42 files\n";
        let lines: Vec<String> = output_lines(body).into_iter().map(|(_, l)| l).collect();
        assert_eq!(lines, ["Tokyo: 2026-11-29 21:04 JST", "total 42 files"]);
    }

    #[test]
    fn live_values_are_dates_and_clock_times() {
        assert!(looks_live("Tokyo: 2026-11-29 21:04 JST"));
        assert!(looks_live("at 09:15 UTC"));
        assert!(!looks_live("Tokyo: <YYYY-MM-DD HH:MM> JST"));
        assert!(!looks_live("version 1.2.3, 42 stars"));
        assert!(!looks_live("ratio 123:4567"));
        assert!(!looks_live("Tokyo: <YYYY-MM-DD HH:MM> JST, UTC+09:00"));
    }
}
