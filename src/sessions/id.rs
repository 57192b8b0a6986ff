//! Session ids: `20261201-112233-k3f9`, the UTC time a session started plus four random
//! characters. Sorting ids sorts sessions by age, and any unambiguous prefix names one.

use std::fmt;
use std::time::SystemTime;

/// Characters of the random tail: lowercase letters and digits, easy to type and to say.
const TAIL_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
/// Length of the random tail.
const TAIL_LEN: usize = 4;
/// `YYYYMMDD-HHMMSS-` before the tail.
const TIME_LEN: usize = 16;
/// `YYYYMMDD-HHMMSS`: the part of an id that is the second its session started.
pub(crate) const SECOND_LEN: usize = TIME_LEN - 1;

/// The name of one session, and of its file (`<id>.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(String);

impl SessionId {
    /// A new id for a session starting at `now`.
    pub(crate) fn new(now: SystemTime) -> Self {
        let tail: String = (0..TAIL_LEN)
            .map(|_| char::from(TAIL_CHARS[fastrand::usize(..TAIL_CHARS.len())]))
            .collect();
        Self(format!("{}{tail}", time_part(now)))
    }

    /// An id read from a file name or typed by a user, if it has the shape of one.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        is_valid(text).then(|| Self(text.to_string()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `YYYYMMDD-HHMMSS-` in UTC.
fn time_part(now: SystemTime) -> String {
    // "2026-12-01T11:22:33Z": keep the digits, a dash between date and time.
    let stamp = humantime::format_rfc3339_seconds(now).to_string();
    let (date, time) = stamp.split_once('T').unwrap_or((&stamp, ""));
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    format!("{}-{}-", digits(date), digits(time))
}

/// Whether `text` is `DDDDDDDD-DDDDDD-` followed by the random tail.
fn is_valid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == TIME_LEN + TAIL_LEN
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 15 => *b == b'-',
            0..TIME_LEN => b.is_ascii_digit(),
            _ => TAIL_CHARS.contains(b),
        })
}

/// Whether `text` could begin an id: what a user may type to name a session.
pub(crate) fn is_prefix(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= TIME_LEN + TAIL_LEN
        && text
            .bytes()
            .all(|b| b == b'-' || b.is_ascii_digit() || TAIL_CHARS.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ids_sort_by_time_and_parse_back() {
        let early = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_124_153); // 2026-12-01T11:22:33Z
        let id = SessionId::new(early);
        assert!(id.as_str().starts_with("20261201-112233-"), "{id}");
        assert_eq!(SessionId::parse(id.as_str()), Some(id.clone()));
        let later = SessionId::new(early + Duration::from_secs(1));
        assert!(later > id);
    }

    #[test]
    fn only_the_shape_of_an_id_parses() {
        assert!(SessionId::parse("20261201-112233-k3f9").is_some());
        for bad in [
            "",
            "20261201-112233-K3F9",
            "20261201-112233-k3f",
            "20261201_112233-k3f9",
            "../../etc/passwd",
        ] {
            assert!(SessionId::parse(bad).is_none(), "{bad}");
        }
        assert!(is_prefix("2026"));
        assert!(is_prefix("20261201-11"));
        assert!(!is_prefix("../x") && !is_prefix(""));
    }
}
