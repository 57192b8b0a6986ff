//! A description for skills without frontmatter: the `## Description` section of the markdown,
//! else its first paragraph (after the title), with whitespace collapsed.

pub(super) fn collapse_whitespace(s: &str) -> String {
    // Most descriptions are one line already: copy those as they are (ASCII, single spaces
    // between words, none at the ends).
    let bytes = s.as_bytes();
    let mut clean = bytes.first() != Some(&b' ') && bytes.last() != Some(&b' ');
    let mut after_space = false;
    for b in bytes {
        let space = *b == b' ';
        if (space && after_space) || (!space && (b.is_ascii_whitespace() || *b == 0x0b || !b.is_ascii())) {
            clean = false;
            break;
        }
        after_space = space;
    }
    if clean {
        return s.to_string();
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_heading(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// The first `## Description` (any level, any case) heading's line index.
fn description_heading(lines: &[&str]) -> Option<usize> {
    lines.iter().position(|l| {
        is_heading(l)
            && l.trim_start()
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("description")
    })
}

/// SCP description: the `## Description` section, else the first paragraph after the H1.
pub fn description_from_markdown(body: &str) -> Option<String> {
    let lines: Vec<&str> = body.lines().collect();
    if let Some(start) = description_heading(&lines) {
        let para = first_paragraph(&lines[start + 1..]);
        if para.is_some() {
            return para;
        }
    }
    let after_h1 = lines.iter().position(|l| l.starts_with("# ")).map_or(0, |i| i + 1);
    first_paragraph(&lines[after_h1..]).or_else(|| first_paragraph(&lines))
}

/// Whether [`description_from_markdown`] answers the same for every text that starts with
/// `body` (whole lines): a `## Description` section whose first paragraph ends within `body`.
/// Discovery reads only the front of a file and reads on while this is false.
pub fn markdown_description_settled(body: &str) -> bool {
    let lines: Vec<&str> = body.lines().collect();
    description_heading(&lines).is_some_and(|start| paragraph_lines(&lines[start + 1..]).1)
}

fn first_paragraph(lines: &[&str]) -> Option<String> {
    let (para, _) = paragraph_lines(lines);
    let text = collapse_whitespace(&para.join(" "));
    (!text.is_empty()).then_some(text)
}

/// The lines of the first paragraph (headings, fenced code, images and comments skipped), and
/// whether something after it ended it (rather than the end of `lines`).
fn paragraph_lines<'a>(lines: &[&'a str]) -> (Vec<&'a str>, bool) {
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
