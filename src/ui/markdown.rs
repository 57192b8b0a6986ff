//! Streaming markdown for the terminal: tokens are printed as they arrive, and each finished
//! line that carries markup is redrawn in place, styled (headings, lists, quotes, code, bold).

use console::{Style, measure_text_width};

/// Turns a stream of answer text into what to write to a terminal.
pub(crate) struct MarkdownStream {
    styled: bool,
    width: usize,
    line: String,
    in_code: bool,
}

impl MarkdownStream {
    /// `styled`: a colour terminal (`NO_COLOR` unset); `width`: its columns.
    pub(crate) fn new(styled: bool, width: usize) -> Self {
        Self {
            styled,
            width: width.max(20),
            line: String::new(),
            in_code: false,
        }
    }

    /// The bytes to write for `text`: the raw text now, plus a styled redraw of each line it ends.
    pub(crate) fn push(&mut self, text: &str) -> String {
        if !self.styled {
            return text.to_string();
        }
        let mut out = String::new();
        for piece in text.split_inclusive('\n') {
            match piece.strip_suffix('\n') {
                Some(rest) => {
                    out.push_str(rest);
                    self.line.push_str(rest);
                    out.push_str(&self.redraw());
                    out.push('\n');
                    self.line.clear();
                }
                None => {
                    out.push_str(piece);
                    self.line.push_str(piece);
                }
            }
        }
        out
    }

    /// Redraw an unfinished last line at the end of the answer.
    pub(crate) fn finish(&mut self) -> String {
        if !self.styled || self.line.is_empty() {
            self.line.clear();
            return String::new();
        }
        let out = self.redraw();
        self.line.clear();
        out
    }

    /// Erase the raw line just printed (it may have wrapped) and print it styled.
    fn redraw(&mut self) -> String {
        let Some(styled) = self.style_line() else {
            return String::new();
        };
        let rows = measure_text_width(&self.line).div_ceil(self.width).max(1);
        let up = if rows > 1 {
            format!("\x1b[{}A", rows - 1)
        } else {
            String::new()
        };
        format!("{up}\r\x1b[J{styled}")
    }

    /// The styled form of the current line, or `None` when it has no markup.
    fn style_line(&mut self) -> Option<String> {
        let line = self.line.as_str();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_code = !self.in_code;
            return Some(Style::new().dim().apply_to(line).to_string());
        }
        if self.in_code {
            return Some(Style::new().cyan().apply_to(line).to_string());
        }
        if let Some(level) = heading_level(trimmed) {
            let text = trimmed[level..].trim();
            let style = if level == 1 {
                Style::new().bold().underlined()
            } else {
                Style::new().bold()
            };
            return Some(style.apply_to(text).to_string());
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(rest) = trimmed.strip_prefix("- ").or_else(|| trimmed.strip_prefix("* ")) {
            return Some(format!("{indent}• {}", inline(rest)));
        }
        if let Some(rest) = trimmed.strip_prefix("> ") {
            return Some(format!("{}{}", Style::new().dim().apply_to("│ "), inline(rest)));
        }
        if line.contains("**") || line.contains('`') {
            return Some(inline(line));
        }
        None
    }
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    (1..=6)
        .contains(&hashes)
        .then_some(hashes)
        .filter(|&n| line[n..].starts_with(' '))
}

/// `**bold**` and `` `code` `` within a line.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let bold = rest.find("**");
        let code = rest.find('`');
        let (start, marker, style) = match (bold, code) {
            (Some(b), Some(c)) if c < b => (c, "`", Style::new().cyan()),
            (Some(b), _) => (b, "**", Style::new().bold()),
            (None, Some(c)) => (c, "`", Style::new().cyan()),
            (None, None) => break,
        };
        let after = &rest[start + marker.len()..];
        let Some(end) = after.find(marker) else { break };
        out.push_str(&rest[..start]);
        out.push_str(&style.apply_to(&after[..end]).to_string());
        rest = &after[end + marker.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_mode_passes_text_through() {
        let mut md = MarkdownStream::new(false, 80);
        assert_eq!(md.push("# Title\n**x**"), "# Title\n**x**");
        assert_eq!(md.finish(), "");
    }

    #[test]
    fn styled_lines_are_redrawn_and_plain_ones_left_alone() {
        console::set_colors_enabled(true);
        let mut md = MarkdownStream::new(true, 80);
        let out = md.push("plain words\n");
        assert_eq!(out, "plain words\n");
        let out = md.push("# Ti");
        assert_eq!(out, "# Ti");
        let out = md.push("tle\n- item **bold**\n");
        assert!(out.contains("\r\x1b[J\x1b[1m\x1b[4mTitle"), "{out:?}");
        assert!(out.contains("• item \x1b[1mbold\x1b[0m"), "{out:?}");
        let out = md.push("```\nlet x = 1;\n```\n");
        assert!(out.contains("\x1b[36mlet x = 1;"), "{out:?}");
    }

    #[test]
    fn wrapped_lines_move_the_cursor_up() {
        console::set_colors_enabled(true);
        let mut md = MarkdownStream::new(true, 20);
        let out = md.push(&format!("## {}\n", "x".repeat(45)));
        assert!(out.contains("\x1b[2A\r\x1b[J"), "{out:?}");
    }
}
