//! A description for skills without frontmatter: the `## Description` section of the markdown,
//! else its first paragraph (after the title), with whitespace collapsed.

use std::str::Lines;

use super::frontmatter::scan::{any_byte, any_pair};

/// `s` with runs of whitespace made one space and none at the ends.
pub(super) fn collapse_whitespace(s: &str) -> String {
    // Most descriptions are one line already: copy those as they are (ASCII, single spaces
    // between words, none at the ends).
    if is_collapsed_ascii(s.as_bytes()) {
        return s.to_string();
    }
    if !s.is_ascii() {
        return s.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    // ASCII whitespace as `char::is_whitespace` sees it: space, `\t`, `\n`, `\x0b`, `\x0c`, `\r`.
    let mut out = String::with_capacity(s.len());
    for word in s
        .split([' ', '\t', '\n', '\x0b', '\x0c', '\r'])
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether `bytes` are ASCII without whitespace other than single spaces between words: what
/// [`collapse_whitespace`] leaves as it is.
fn is_collapsed_ascii(bytes: &[u8]) -> bool {
    let edge = bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ');
    // `\t`, `\n`, `\x0b`, `\x0c` and `\r`, or not ASCII.
    let odd = |b: u8| (b.wrapping_sub(0x09) < 5) | (b >= 0x80);
    !edge && !any_byte(bytes, odd) && !any_pair(bytes, |a, b| (a == b' ') & (b == b' '))
}

fn is_heading(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// The lines after the first `## Description` (any level, any case) heading, if there is one.
fn after_description_heading(body: &str) -> Option<Lines<'_>> {
    let mut lines = body.lines();
    lines.find(|l| {
        is_heading(l)
            && l.trim_start()
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("description")
    })?;
    Some(lines)
}

/// SCP description: the `## Description` section, else the first paragraph after the H1.
pub(crate) fn description_from_markdown(body: &str) -> Option<String> {
    if let Some(section) = after_description_heading(body) {
        let para = first_paragraph(section);
        if para.is_some() {
            return para;
        }
    }
    let mut after_h1 = body.lines();
    if !after_h1.any(|l| l.starts_with("# ")) {
        after_h1 = body.lines();
    }
    first_paragraph(after_h1).or_else(|| first_paragraph(body.lines()))
}

/// Whether [`description_from_markdown`] answers the same for every text that starts with
/// `body` (whole lines): a `## Description` section whose first paragraph ends within `body`.
/// Discovery reads only the front of a file and reads on while this is false.
pub(crate) fn markdown_description_settled(body: &str) -> bool {
    after_description_heading(body).is_some_and(|section| paragraph_lines(section).1)
}

fn first_paragraph<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let (para, _) = paragraph_lines(lines);
    let text = collapse_whitespace(&para.join(" "));
    (!text.is_empty()).then_some(text)
}

/// The lines of the first paragraph (headings, fenced code, images and comments skipped), and
/// whether something after it ended it (rather than the end of `lines`).
fn paragraph_lines<'a>(lines: impl Iterator<Item = &'a str>) -> (Vec<&'a str>, bool) {
    let mut para: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if is_heading(line) {
            if para.is_empty() {
                continue;
            }
            return (para, true);
        }
        if t.is_empty() || t.starts_with("<!--") || t.starts_with("![") || t.starts_with("[![") {
            if !para.is_empty() {
                return (para, true);
            }
            continue;
        }
        para.push(t);
    }
    (para, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general definition the fast paths must agree with.
    fn collapsed(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn collapsing_agrees_with_split_whitespace() {
        let mut samples: Vec<String> = (0u8..=127)
            .map(|b| format!("a{}b {} c", b as char, b as char))
            .collect();
        samples.extend(
            [
                "",
                " ",
                "one line",
                " lead",
                "trail ",
                "two  spaces",
                "folded\nlines\n",
                "tab\there",
                "\u{b}vt\u{c}ff\r\n",
                "nbsp\u{a0}here",
                "next\u{85}line",
                "ü ber",
                "x\u{1c}\u{1f}y",
            ]
            .map(str::to_string),
        );
        // Long enough to span chunks, with the double space at a chunk boundary.
        samples.push(format!("{}  {}", "w".repeat(31), "v".repeat(40)));
        samples.push(format!("{} {}", "w".repeat(31), "v".repeat(40)));
        for s in &samples {
            assert_eq!(collapse_whitespace(s), collapsed(s), "{s:?}");
        }
    }

    #[test]
    fn description_section_then_first_paragraph() {
        let md =
            "# Weather\n\nShows the weather.\n\n## Description\n\nGet the current\nweather for a city.\n\n## Usage\n";
        assert_eq!(
            description_from_markdown(md).unwrap(),
            "Get the current weather for a city."
        );
        let md = "# Weather\n\n![badge](x)\n\nShows the weather\nfor a city.\n\n## Usage\n";
        assert_eq!(description_from_markdown(md).unwrap(), "Shows the weather for a city.");
        assert_eq!(
            description_from_markdown("Just text here.\n").unwrap(),
            "Just text here."
        );
        assert!(description_from_markdown("# Only a title\n").is_none());
    }
}
