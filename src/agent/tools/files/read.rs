//! `Read`: a text file's lines with their numbers, from `offset` for `limit` lines, each cut at a
//! length and all of it redacted and capped; a binary file described by type and size, never
//! dumped. A big file is read line by line, so a part of a log of any size can be read.

use std::io::BufRead;

use super::{ToolRunner, looks_binary};
use crate::agent::outcome::ToolOutcome;

/// Lines returned when the model gives no limit (Claude Code's default).
const DEFAULT_LIMIT: u64 = 2000;
/// Characters of one line kept.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes of text returned in all: about what a command's output keeps (head and tail), twice.
const MAX_RETURNED_BYTES: usize = 32 * 1024;
/// Bytes looked at to tell text from binary.
const SNIFF_BYTES: usize = 8192;
/// Bytes of a file scanned to count its lines after the part returned: past this, the count
/// is left out rather than paid for.
const MAX_COUNTED_BYTES: u64 = 64 * 1024 * 1024;

impl ToolRunner {
    /// `Read` of `path` for the `current` skill; `buffer`: its text as an editor holds it, read
    /// instead of the disk.
    pub(super) fn read_file(
        &self,
        current: Option<&str>,
        path: &str,
        offset: Option<u64>,
        limit: Option<u64>,
        buffer: Option<String>,
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
        let window = Window {
            start: offset.unwrap_or(1).max(1),
            limit: limit.unwrap_or(DEFAULT_LIMIT).max(1),
        };
        let redact = |line: &str| self.settings.redactor.redact(line).into_owned();
        if let Some(text) = buffer {
            self.file_event("Read", &target.shown, text.len() as u64);
            return match window.take(std::io::Cursor::new(text.as_bytes())) {
                Ok(part) => ToolOutcome::ok(part.render(&window, redact)),
                Err(e) => ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
            };
        }
        let file = match std::fs::File::open(&target.real) {
            Ok(file) => file,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
        };
        let mut reader = std::io::BufReader::new(file);
        let head = match reader.fill_buf() {
            Ok(head) => head,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
        };
        self.file_event("Read", &target.shown, meta.len());
        if looks_binary(&head[..head.len().min(SNIFF_BYTES)]) {
            return ToolOutcome::ok(format!(
                "{} is a binary file ({} bytes{}); it is not shown. Convert it with a command the skill names (pdftotext, a script)",
                target.shown,
                meta.len(),
                kind_of(head, &target.shown)
                    .map(|k| format!(", {k}"))
                    .unwrap_or_default()
            ));
        }
        let part = match window.take(reader) {
            Ok(part) => part,
            Err(e) => return ToolOutcome::failed(format!("cannot read {}: {e}", target.shown)),
        };
        ToolOutcome::ok(part.render(&window, redact))
    }
}

/// Which lines to return: from `start` (1-based) for `limit` lines.
struct Window {
    start: u64,
    limit: u64,
}

/// The lines read, and what is known of the rest.
struct Part {
    /// `(number, text, bytes the line had)` of each line returned.
    lines: Vec<(u64, String, usize)>,
    /// Lines in the file, when counted to the end.
    total: Option<u64>,
    /// Whether the returned text reached its cap before the window's end.
    capped: bool,
}

impl Window {
    /// Read `reader` line by line: the window's lines kept, the rest counted (up to a bound).
    fn take(&self, mut reader: impl BufRead) -> std::io::Result<Part> {
        let mut part = Part {
            lines: Vec::new(),
            total: None,
            capped: false,
        };
        let (mut number, mut bytes, mut kept_bytes) = (0u64, 0u64, 0usize);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let n = read_line_capped(&mut reader, &mut buf, MAX_LINE_CHARS * 4)?;
            if n == 0 {
                part.total = Some(number);
                return Ok(part);
            }
            number += 1;
            bytes += n as u64;
            let wanted = number >= self.start && number < self.start.saturating_add(self.limit);
            if wanted && !part.capped {
                let text = String::from_utf8_lossy(&buf);
                let text = text.trim_end_matches(['\n', '\r']);
                kept_bytes += text.len().min(MAX_LINE_CHARS * 4) + 8;
                if kept_bytes > MAX_RETURNED_BYTES && !part.lines.is_empty() {
                    part.capped = true;
                } else {
                    let full = n - (buf.len() - text.len());
                    part.lines.push((number, text.to_string(), full));
                }
            }
            if bytes > MAX_COUNTED_BYTES && number >= self.start.saturating_add(self.limit) {
                return Ok(part);
            }
        }
    }
}

/// One line of `reader` into `buf`, at most `cap` bytes of it kept (the rest consumed, so a
/// file that is one huge line costs no more memory than a short one); the bytes the line had.
fn read_line_capped(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(total);
        }
        let (used, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&available[..used.min(room)]);
        reader.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

impl Part {
    /// The lines as `cat -n` shows them (each `redact`ed, then cut), and a last line saying
    /// what was left out and how to read on.
    fn render(&self, window: &Window, redact: impl Fn(&str) -> String) -> String {
        if self.total == Some(0) {
            return "(the file is empty)\n".into();
        }
        let (Some((first, ..)), Some((last, ..))) = (self.lines.first(), self.lines.last()) else {
            let total = self.total.map_or_else(|| "more".to_string(), |t| t.to_string());
            return format!(
                "(the file has {total} lines; offset {} is past its end)\n",
                window.start
            );
        };
        let mut out = String::new();
        for (number, line, full) in &self.lines {
            let line = redact(line);
            let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
            out.push_str(&format!("{number:>6}\t{cut}"));
            let left = (*full).max(line.len()).saturating_sub(cut.len());
            if left > 0 {
                out.push_str(&format!(" …(line cut: {left} more bytes; Grep finds text in it)"));
            }
            out.push('\n');
        }
        let more = match self.total {
            Some(total) if *last < total => Some(format!("{first}-{last} of {total}")),
            None => Some(format!("{first}-{last}; the file goes on")),
            _ => None,
        };
        if let Some(range) = more {
            let cap = if self.capped {
                ", cut at the size a read returns"
            } else {
                ""
            };
            out.push_str(&format!("(lines {range}{cap}; read on with offset {})\n", last + 1));
        }
        out
    }
}

/// What a binary file is, by its first bytes (and, for a ZIP, its name: office documents are
/// ZIP archives of XML).
fn kind_of(bytes: &[u8], name: &str) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 8] = [
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"\x7fELF", "an executable"),
        (b"SQLite format 3", "an SQLite database"),
        (b"\xd0\xcf\x11\xe0", "an old Office document (OLE)"),
    ];
    let kind = KINDS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, kind)| *kind)?;
    let lower = name.to_ascii_lowercase();
    let office = [".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp"];
    if kind == "a ZIP archive" && office.iter().any(|ext| lower.ends_with(ext)) {
        return Some("an office document: a ZIP archive of XML files; unpack it to read or edit them");
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(text: &str, start: u64, limit: u64) -> String {
        let window = Window { start, limit };
        window.take(text.as_bytes()).unwrap().render(&window, str::to_string)
    }

    #[test]
    fn lines_are_numbered_and_the_rest_is_named() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(numbered(text, 1, 2000), "     1\ta\n     2\tb\n     3\tc\n     4\td\n");
        let part = numbered(text, 2, 2);
        assert!(part.starts_with("     2\tb\n     3\tc\n"), "{part}");
        assert!(part.contains("(lines 2-3 of 4; read on with offset 4)"), "{part}");
        assert!(numbered(text, 9, 2).contains("past its end"));
        assert_eq!(numbered("", 1, 10), "(the file is empty)\n");
        assert_eq!(numbered("no newline", 1, 10), "     1\tno newline\n");
        assert_eq!(numbered("crlf\r\n", 1, 10), "     1\tcrlf\n");
    }

    #[test]
    fn long_lines_and_big_parts_are_cut_with_a_way_on() {
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        let out = numbered(&long, 1, 10);
        assert!(out.contains("line cut: 10 more bytes"), "{}", &out[out.len() - 80..]);
        let many: String = (0..5000).map(|i| format!("{i:0>100}\n")).collect();
        let out = numbered(&many, 1, 5000);
        assert!(out.len() < MAX_RETURNED_BYTES + 200, "{}", out.len());
        assert!(
            out.contains("cut at the size a read returns; read on with offset"),
            "{}",
            &out[out.len() - 120..]
        );
    }

    #[test]
    fn binary_kinds_are_named() {
        assert_eq!(kind_of(b"%PDF-1.7", "a.pdf"), Some("a PDF document"));
        assert!(
            kind_of(b"PK\x03\x04", "Report.DOCX")
                .unwrap()
                .contains("office document")
        );
        assert_eq!(kind_of(b"PK\x03\x04", "a.zip"), Some("a ZIP archive"));
        assert_eq!(kind_of(b"\0\0", "x"), None);
    }
}
