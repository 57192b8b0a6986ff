//! Files that are not text: executables (ELF, PE, Mach-O) and archives a skill ships. A skill is
//! instructions and scripts a person can read; a binary is neither, and a password-protected
//! archive is how the 2026 campaigns got their payloads past scanners.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::indicators::Indicators;
use super::{Class, Finding, Level};

/// What a non-text file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinaryKind {
    Executable(&'static str),
    Archive(&'static str),
    /// A known data format (an image, a PDF, a font, a database): nothing a shell runs.
    Media,
    /// Some other binary: its printable runs are scanned like text, since a NUL byte is all it
    /// takes to make a script or markdown file "binary".
    Other,
}

/// What `bytes` (a file's first bytes) are, or `None` for text.
pub(crate) fn binary_kind(bytes: &[u8]) -> Option<BinaryKind> {
    let magic: &[(&[u8], BinaryKind)] = &[
        (b"\x7fELF", BinaryKind::Executable("ELF")),
        (b"MZ", BinaryKind::Executable("Windows PE")),
        (b"\xfe\xed\xfa\xce", BinaryKind::Executable("Mach-O")),
        (b"\xfe\xed\xfa\xcf", BinaryKind::Executable("Mach-O")),
        (b"\xce\xfa\xed\xfe", BinaryKind::Executable("Mach-O")),
        (b"\xcf\xfa\xed\xfe", BinaryKind::Executable("Mach-O")),
        (b"\xca\xfe\xba\xbe", BinaryKind::Executable("Mach-O universal")),
        (b"PK\x03\x04", BinaryKind::Archive("zip")),
        (b"7z\xbc\xaf\x27\x1c", BinaryKind::Archive("7z")),
        (b"Rar!\x1a\x07", BinaryKind::Archive("rar")),
        (b"\x89PNG\r\n\x1a\n", BinaryKind::Media),
        (b"\xff\xd8\xff", BinaryKind::Media),
        (b"GIF8", BinaryKind::Media),
        (b"%PDF-", BinaryKind::Media),
        (b"wOFF", BinaryKind::Media),
        (b"wOF2", BinaryKind::Media),
        (b"\x00\x01\x00\x00\x00", BinaryKind::Media),
        (b"OTTO", BinaryKind::Media),
        (b"SQLite format 3\x00", BinaryKind::Media),
        (b"\x00\x00\x01\x00", BinaryKind::Media),
    ];
    if let Some((_, kind)) = magic.iter().find(|(m, _)| bytes.starts_with(m)) {
        // "MZ" also starts text files; a PE has its header offset within the file.
        if *kind == BinaryKind::Executable("Windows PE") && !looks_like_pe(bytes) {
            return text_or_other(bytes);
        }
        return Some(*kind);
    }
    text_or_other(bytes)
}

fn looks_like_pe(bytes: &[u8]) -> bool {
    let Some(offset) = bytes.get(0x3c..0x40) else {
        return false;
    };
    let at = u32::from_le_bytes([offset[0], offset[1], offset[2], offset[3]]) as usize;
    bytes.get(at..at + 4) == Some(b"PE\0\0")
}

/// A NUL byte in the first 8 KiB marks a binary file; RIFF (WebP, WAV) and the ISO media
/// boxes (MP4, HEIC) are data.
fn text_or_other(bytes: &[u8]) -> Option<BinaryKind> {
    let head = &bytes[..bytes.len().min(8192)];
    memchr::memchr(0, head)?;
    let media = bytes.starts_with(b"RIFF") || bytes.get(4..8) == Some(b"ftyp");
    Some(if media { BinaryKind::Media } else { BinaryKind::Other })
}

/// Whether a file of `kind` has its content scanned by the text rules (text, or an unknown
/// binary's printable runs), so reading only part of it leaves something unaudited.
pub(crate) fn is_scanned(kind: Option<BinaryKind>) -> bool {
    matches!(kind, None | Some(BinaryKind::Other))
}

/// The text the rules read of a file of `kind`: all of it for text; for an unknown binary its
/// printable runs (every other byte a line break, so a run is never glued to the next); nothing
/// for executables, archives and media.
pub(crate) fn text_of(bytes: &[u8], kind: Option<BinaryKind>) -> Option<String> {
    match kind {
        None => Some(String::from_utf8_lossy(bytes).into_owned()),
        Some(BinaryKind::Other) => {
            let printable: Vec<u8> = bytes
                .iter()
                .map(|&b| {
                    if b >= 0x20 || b == b'\t' || b == b'\n' {
                        b
                    } else {
                        b'\n'
                    }
                })
                .collect();
            Some(String::from_utf8_lossy(&printable).into_owned())
        }
        Some(_) => None,
    }
}

/// Whether a zip's first entry is encrypted (general-purpose flag bit 0).
fn zip_encrypted(bytes: &[u8]) -> bool {
    bytes.get(6).is_some_and(|flags| flags & 1 == 1)
}

/// Report an executable or archive `rel`, and a known payload hash.
pub(crate) fn check_binary(rel: &Path, bytes: &[u8], kind: BinaryKind, data: &Indicators, findings: &mut Vec<Finding>) {
    let mut push = |rule: &str, class, severity, evidence: String, why: &str, advice: &str| {
        findings.push(Finding {
            rule: rule.to_string(),
            class,
            severity,
            file: rel.to_path_buf(),
            line: 0,
            evidence,
            why: why.to_string(),
            advice: advice.to_string(),
        });
    };
    if !data.hashes.is_empty() {
        let hash: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
        if data.hashes.contains(&hash) {
            push(
                "ioc-hash",
                Class::Indicator,
                Level::Critical,
                format!("sha256 {hash}"),
                "this file is a known malicious payload",
                "do not install the skill; delete the file",
            );
        }
    }
    match kind {
        BinaryKind::Executable(format) => push(
            "shipped-executable",
            Class::Payload,
            Level::High,
            format!("{format} executable"),
            "the skill ships a compiled program nobody can read",
            "install the program from its vendor instead, or not at all",
        ),
        BinaryKind::Archive(format) if format == "zip" && zip_encrypted(bytes) => push(
            "password-archive",
            Class::Payload,
            Level::Critical,
            "encrypted zip archive".to_string(),
            "a password-protected archive hides its content from malware scanners",
            "do not open it; do not install the skill",
        ),
        BinaryKind::Archive(format) => push(
            "shipped-archive",
            Class::Payload,
            Level::Medium,
            format!("{format} archive"),
            "an archive's content is not audited",
            "unpack it somewhere harmless and audit what it holds",
        ),
        BinaryKind::Media | BinaryKind::Other => {}
    }
}
