//! Reading a session file back: the header, then every record that parses. A last line without
//! its newline is what a killed agent leaves (it died mid-write); it is ignored with a warning, as
//! is any other line that does not parse, so one bad line never costs the rest of a session.

use super::record::{Header, Record};

/// A session file as read.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFile {
    pub(crate) header: Header,
    /// Every record after the header, in file order.
    pub records: Vec<Record>,
    /// Lines that were skipped, and why (each names its line number).
    pub(crate) warnings: Vec<String>,
    /// Bytes up to the end of the last complete line: appending starts here (a torn tail is cut).
    pub(crate) complete_len: u64,
}

/// Why a file is not a session at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("it is empty")]
    Empty,
    #[error("its first line is not a session header ({0})")]
    NoHeader(String),
}

/// Parse the bytes of a session file.
pub(crate) fn parse(bytes: &[u8]) -> Result<SessionFile, LoadError> {
    let complete_len = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut lines = bytes[..complete_len].split(|b| *b == b'\n');
    let first = lines.next().filter(|l| !l.is_empty()).ok_or(LoadError::Empty)?;
    let header = match serde_json::from_slice::<Record>(first) {
        Ok(Record::Session(header)) => header,
        Ok(_) => return Err(LoadError::NoHeader("it is another kind of record".into())),
        Err(e) => return Err(LoadError::NoHeader(e.to_string())),
    };
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(Record::Unknown) => {}
            Ok(Record::Session(_)) => warnings.push(format!("line {}: a second header; skipped", i + 2)),
            Ok(record) => records.push(record),
            Err(e) => warnings.push(format!("line {}: not a session record ({e}); skipped", i + 2)),
        }
    }
    if complete_len < bytes.len() {
        let line = bytes[..complete_len].iter().filter(|b| **b == b'\n').count() + 1;
        warnings.push(format!(
            "line {line}: cut off (the agent was stopped while writing it); ignored"
        ));
    }
    Ok(SessionFile {
        header,
        records,
        warnings,
        complete_len: complete_len as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ChatMessage;

    fn header_line() -> String {
        let header = crate::sessions::record::test_header("20261201-112233-k3f9", "/w");
        serde_json::to_string(&Record::Session(header)).unwrap() + "\n"
    }

    fn line(record: &Record) -> String {
        serde_json::to_string(record).unwrap() + "\n"
    }

    #[test]
    fn a_torn_last_line_is_ignored_with_a_warning() {
        let hi = line(&Record::Message(ChatMessage::user("hi")));
        let text = format!("{}{hi}{{\"type\":\"message\",\"role\":\"assi", header_line());
        let loaded = parse(text.as_bytes()).unwrap();
        assert_eq!(loaded.records, [Record::Message(ChatMessage::user("hi"))]);
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].starts_with("line 3: cut off"),
            "{:?}",
            loaded.warnings
        );
        assert_eq!(loaded.complete_len as usize, header_line().len() + hi.len());
    }

    #[test]
    fn bad_lines_in_the_middle_cost_only_themselves() {
        let text = format!(
            "{}not json\n{}\n{}",
            header_line(),
            line(&Record::Reset).trim_end(),
            line(&Record::Message(ChatMessage::user("still here")))
        );
        let loaded = parse(text.as_bytes()).unwrap();
        assert_eq!(
            loaded.records,
            [Record::Reset, Record::Message(ChatMessage::user("still here"))]
        );
        assert_eq!(loaded.warnings.len(), 1);
        assert!(loaded.warnings[0].starts_with("line 2: not a session record"));
        assert_eq!(loaded.complete_len as usize, text.len());
    }

    #[test]
    fn a_file_without_a_header_is_not_a_session() {
        assert_eq!(parse(b""), Err(LoadError::Empty));
        assert_eq!(parse(b"{\"type\":\"ses"), Err(LoadError::Empty));
        assert!(matches!(
            parse(line(&Record::Reset).as_bytes()),
            Err(LoadError::NoHeader(_))
        ));
        assert!(matches!(parse(b"garbage\n"), Err(LoadError::NoHeader(_))));
    }
}
