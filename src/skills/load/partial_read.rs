//! Reading only the front of a `SKILL.md`: what routing needs (the frontmatter, or for an SCP
//! skill its `## Description` section) is at the top, and a body can be 100 KB.
//!
//! The first read is `FIRST_READ` bytes; it grows (doubling) only while the fields the catalog
//! shows could still change with more of the file: a frontmatter block not closed yet, or a
//! description that has to come from markdown that has not ended yet. A file read this way
//! gives the same skill (name, description, dialect, fields) and the same findings about them as
//! the whole file would. What only the whole file can tell — bytes that are not UTF-8, CRLF line
//! endings, or a NUL byte after the front — is reported by `skills check` and `skills show`,
//! which read it whole.

use std::io::{self, Read};

use serde_json::{Map, Value};

use super::fields::{
    BINARY_SNIFF_BYTES, DescriptionSource, SkillText, markdown_description_settled, parse_normalized, parse_skill_text,
};
use super::frontmatter::{decided_body_line, normalize};

/// Bytes read first: real frontmatter is 200–1,500 bytes, and the binary-file check looks at
/// this many, so it sees what a whole read would.
pub(crate) const FIRST_READ: usize = BINARY_SNIFF_BYTES;

/// A skill file's front, parsed.
#[derive(Debug)]
pub struct Front {
    pub(crate) text: SkillText,
    /// Bytes read.
    pub read: usize,
    /// Whether everything up to the end of the file (or the cap) was read (the tests check it).
    #[cfg(test)]
    pub(crate) whole: bool,
}

/// Parse the front of the skill file `reader` reads: `FIRST_READ` bytes, then twice as many
/// each round while more of the file could change the result, up to its end or `cap` bytes.
/// `folder` and `manifest` are what [`parse_skill_text`] takes.
pub fn parse_front(
    reader: impl Read,
    cap: u64,
    folder: &str,
    manifest: Option<&Map<String, Value>>,
) -> io::Result<Front> {
    parse_front_with(reader, FIRST_READ, BINARY_SNIFF_BYTES, cap, folder, manifest)
}

/// [`parse_front`] with the first read and the binary check's reach as parameters, so tests can
/// make files of a few lines take several rounds.
fn parse_front_with(
    reader: impl Read,
    first: usize,
    sniff: usize,
    cap: u64,
    folder: &str,
    manifest: Option<&Map<String, Value>>,
) -> io::Result<Front> {
    let mut reader = reader.take(cap);
    let mut buf = Vec::with_capacity(first);
    let mut want = first.max(1);
    loop {
        let missing = (want - buf.len()) as u64;
        (&mut reader).take(missing).read_to_end(&mut buf)?;
        // A short read: the end of the file, or the cap.
        if buf.len() < want {
            return Ok(Front {
                text: parse_skill_text(&buf, folder, manifest),
                read: buf.len(),
                #[cfg(test)]
                whole: true,
            });
        }
        if let Some(text) = parse_if_final(&buf, sniff, folder, manifest) {
            return Ok(Front {
                text,
                read: buf.len(),
                #[cfg(test)]
                whole: false,
            });
        }
        want = want.saturating_mul(2);
    }
}

/// The parse of `read` (the start of a longer file) when no later byte can change it.
fn parse_if_final(read: &[u8], sniff: usize, folder: &str, manifest: Option<&Map<String, Value>>) -> Option<SkillText> {
    if read.len() < sniff {
        return None;
    }
    if read[..sniff].contains(&0) {
        // Binary: nothing of it is read as markdown, whatever follows.
        return Some(parse_skill_text(read, folder, manifest));
    }
    // Whole lines only: a cut line (or UTF-8 character) would parse differently.
    let end = read.iter().rposition(|b| *b == b'\n')?;
    let front = &read[..=end];
    let normalized = normalize(front);
    decided_body_line(&normalized.text)?;
    let text = parse_normalized(front, Some(normalized), folder, manifest);
    let from_fields = matches!(
        text.description_from,
        Some(DescriptionSource::Frontmatter | DescriptionSource::Manifest)
    );
    (from_fields || markdown_description_settled(&text.body)).then_some(text)
}

#[cfg(test)]
#[path = "partial_read_tests.rs"]
mod tests;
