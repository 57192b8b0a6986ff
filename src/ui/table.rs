//! Aligned tables that fit the terminal: a header row, columns padded to their widest cell, and
//! the last column (the one with prose) cut at a word with `…` so no row wraps.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Space between columns.
const GAP: &str = "  ";
/// The prose column never gets narrower than this; below it a droppable column goes first.
const MIN_LAST_WIDTH: usize = 24;

/// A table whose last column is prose.
pub(crate) struct Table<'a> {
    pub(crate) headers: &'a [&'a str],
    pub(crate) rows: Vec<Vec<String>>,
    /// A column that may be left out when the terminal is too narrow for it.
    pub(crate) droppable: Option<usize>,
}

impl Table<'_> {
    /// The lines of the table within `width` columns (no trailing spaces). Cells must already be
    /// safe for the terminal and hold no newlines.
    pub(crate) fn render(&self, width: usize) -> Vec<String> {
        let columns = self.headers.len();
        let Some(last) = columns.checked_sub(1) else {
            return Vec::new();
        };
        let widths = self.widths();
        let fixed =
            |shown: &[usize]| -> usize { shown[..shown.len() - 1].iter().map(|&c| widths[c] + GAP.len()).sum() };
        let shown = self.shown(width);
        let room = width.saturating_sub(fixed(&shown)).max(MIN_LAST_WIDTH);
        let header: Vec<String> = self.headers.iter().map(|h| h.to_string()).collect();
        std::iter::once(&header)
            .chain(&self.rows)
            .map(|row| {
                let mut line = String::new();
                for &col in &shown {
                    let cell = row.get(col).map_or("", String::as_str);
                    if col == last {
                        line.push_str(&cut_at_word(cell, room));
                    } else {
                        line.push_str(cell);
                        line.push_str(&" ".repeat(widths[col] - cell.width()));
                        line.push_str(GAP);
                    }
                }
                line.trim_end().to_string()
            })
            .collect()
    }

    /// Whether the droppable column is left out at `width`.
    pub(crate) fn drops_a_column(&self, width: usize) -> bool {
        self.shown(width).len() < self.headers.len()
    }

    /// Each column's widest cell, header included.
    fn widths(&self) -> Vec<usize> {
        let widest = |col: usize| {
            self.rows
                .iter()
                .map(|r| r.get(col).map_or(0, |c| c.width()))
                .chain([self.headers[col].width()])
                .max()
                .unwrap_or(0)
        };
        (0..self.headers.len()).map(widest).collect()
    }

    /// The columns shown at `width`: all, or all but the droppable one when the prose column
    /// would get less than its minimum.
    fn shown(&self, width: usize) -> Vec<usize> {
        let columns = self.headers.len();
        let widths = self.widths();
        let mut shown: Vec<usize> = (0..columns).collect();
        let fixed: usize = widths[..columns.saturating_sub(1)].iter().map(|w| w + GAP.len()).sum();
        if let Some(drop) = self.droppable.filter(|&d| d + 1 < columns)
            && fixed + MIN_LAST_WIDTH > width
        {
            shown.retain(|&c| c != drop);
        }
        shown
    }
}

/// `text` as lines of at most `width` display columns, broken at spaces (a word longer than a
/// line gets a line of its own, as it is).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` within `max` display columns: whole when it fits, else cut after the last whole word
/// that fits (mid-word only when the first word alone is too long) and marked with `…`.
pub(crate) fn cut_at_word(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_string();
    }
    let budget = max.saturating_sub(1);
    let mut used = 0;
    let mut end = 0;
    let mut last_break = None;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            if c.is_whitespace() {
                last_break = Some(i);
            }
            break;
        }
        if c.is_whitespace() {
            last_break = Some(i);
        }
        used += w;
        end = i + c.len_utf8();
    }
    let cut = last_break.filter(|&b| b > 0).unwrap_or(end);
    let kept = text[..cut].trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '('));
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_word_and_marks_it() {
        assert_eq!(cut_at_word("short", 10), "short");
        assert_eq!(cut_at_word("Current weather for a city", 16), "Current weather…");
        assert_eq!(cut_at_word("Current weather, now", 17), "Current weather…");
        assert_eq!(cut_at_word("Supercalifragilistic", 8), "Superca…");
        assert_eq!(cut_at_word("时间和天气的技能", 9), "时间和天…");
    }

    #[test]
    fn fits_the_width_and_drops_a_column_when_narrow() {
        let table = Table {
            headers: &["NAME", "ROOT", "DESCRIPTION"],
            rows: vec![
                vec![
                    "time".into(),
                    "./skills".into(),
                    "Local time in a city or zone, offline".into(),
                ],
                vec![
                    "weather".into(),
                    "~/.agents/skills".into(),
                    "Current weather for a city".into(),
                ],
            ],
            droppable: Some(1),
        };
        let wide = table.render(80);
        assert_eq!(wide[0], "NAME     ROOT              DESCRIPTION");
        assert_eq!(
            wide[1],
            "time     ./skills          Local time in a city or zone, offline"
        );
        let narrow = table.render(60);
        assert!(narrow.iter().all(|l| l.width() <= 60), "{narrow:#?}");
        assert_eq!(narrow[1], "time     ./skills          Local time in a city or zone…");
        let tiny = table.render(36);
        assert_eq!(tiny[0], "NAME     DESCRIPTION");
        assert_eq!(tiny[1], "time     Local time in a city or…");
        assert!(tiny.iter().all(|l| l.width() <= 36), "{tiny:#?}");
    }
}
