//! `Read`: a text file's lines with their numbers, from `offset` for `limit` lines, each cut at a
//! length and all of it redacted; a binary file described by type and size, never dumped.

use super::{ToolRunner, looks_binary};
use crate::agent::outcome::ToolOutcome;

/// Lines returned when the model gives no limit (Claude Code's default).
const DEFAULT_LIMIT: u64 = 2000;
/// Characters of one line kept.
const MAX_LINE_CHARS: usize = 2000;
/// Largest file read.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes of text returned in all.
const MAX_RETURNED_BYTES: usize = 64 * 1024;

impl ToolRunner {
    /// `Read` of `path` for the `current` skill.
    pub(super) fn read_file(
        &self,
        current: Option<&str>,
        path: &str,
        offset: Option<u64>,
        limit: Option<u64>,
    ) -> ToolOutcome {
        let target = match self.places(current).for_reading(path) {
            Ok(target) => target,
            Err(why) => return ToolOutcome::refused(why),
        };
        let meta = match std::fs::metadata(&target.real) {
            Ok(meta) if meta.is_dir() => {
                return ToolOutcome::refused(format!("{} is a folder; use Glob to list it", target.shown));
            }
            Ok(meta) if !meta.is_file() => {
                return ToolOutcome::refused(format!("{} is not a regular file", target.shown));
            }
            Ok(meta) => meta,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
        };
        if meta.len() > MAX_FILE_BYTES {
            return ToolOutcome::failed(format!(
                "{} is {} bytes, over the {} MiB a read takes; read a part with a command (head, sed -n)",
                target.shown,
                meta.len(),
                MAX_FILE_BYTES >> 20
            ));
        }
        let bytes = match std::fs::read(&target.real) {
            Ok(bytes) => bytes,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
        };
        self.file_event("Read", &target.shown, bytes.len() as u64);
        if looks_binary(&bytes) {
            return ToolOutcome::ok(format!(
                "{} is a binary file ({} bytes{}); it is not shown. Convert it with a command the skill names (pdftotext, a script)",
                target.shown,
                bytes.len(),
                kind_of(&bytes).map(|k| format!(", {k}")).unwrap_or_default()
            ));
        }
        let text = self
            .settings
            .redactor
            .redact(&String::from_utf8_lossy(&bytes))
            .into_owned();
        ToolOutcome::ok(numbered(&text, offset.unwrap_or(1), limit.unwrap_or(DEFAULT_LIMIT)))
    }
}

/// Lines `offset..offset+limit` (1-based) of `text` as `cat -n` shows them, with a last line
/// saying what was left out.
fn numbered(text: &str, offset: u64, limit: u64) -> String {
    let total = text.lines().count();
    if total == 0 {
        return "(the file is empty)\n".into();
    }
    let start = usize::try_from(offset.max(1) - 1).unwrap_or(usize::MAX);
    let limit = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
    let mut out = String::new();
    let mut shown = 0;
    for (i, line) in text.lines().enumerate().skip(start).take(limit) {
        if out.len() > MAX_RETURNED_BYTES {
            break;
        }
        let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
        let marker = if cut.len() < line.len() { " …(line cut)" } else { "" };
        out.push_str(&format!("{:>6}\t{cut}{marker}\n", i + 1));
        shown += 1;
    }
    if start >= total {
        return format!("(the file has {total} lines; offset {offset} is past its end)\n");
    }
    if start + shown < total {
        out.push_str(&format!(
            "(lines {}-{} of {total}; read on with offset {})\n",
            start + 1,
            start + shown,
            start + shown + 1
        ));
    }
    out
}

/// What common binary files are, by their first bytes.
fn kind_of(bytes: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 7] = [
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive (also DOCX, XLSX, PPTX)"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"\x7fELF", "an executable"),
        (b"SQLite format 3", "an SQLite database"),
    ];
    KINDS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, kind)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_the_rest_is_named() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(numbered(text, 1, 2000), "     1\ta\n     2\tb\n     3\tc\n     4\td\n");
        let part = numbered(text, 2, 2);
        assert!(part.starts_with("     2\tb\n     3\tc\n"), "{part}");
        assert!(part.contains("read on with offset 4"), "{part}");
        assert!(numbered(text, 9, 2).contains("past its end"));
        assert_eq!(numbered("", 1, 10), "(the file is empty)\n");
        assert_eq!(kind_of(b"%PDF-1.7"), Some("a PDF document"));
    }
}
