//! Byte scans that look at many bytes at once: whole chunks are folded without early exits, since
//! `Iterator::any` stops at every byte and is not vectorized; single bytes are found by `memchr`.

/// Bytes folded at a time.
const CHUNK: usize = 32;

/// Whether `pred` holds for some byte of `bytes`.
pub(in crate::skills) fn any_byte(bytes: &[u8], pred: impl Fn(u8) -> bool) -> bool {
    let mut chunks = bytes.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, b| acc | pred(*b)) {
            return true;
        }
    }
    chunks.remainder().iter().any(|b| pred(*b))
}

/// Whether `pred` holds for some two neighbouring bytes of `bytes`.
pub(in crate::skills) fn any_pair(bytes: &[u8], pred: impl Fn(u8, u8) -> bool) -> bool {
    let Some(last) = bytes.len().checked_sub(1) else {
        return false;
    };
    let (firsts, seconds) = (&bytes[..last], &bytes[1..]);
    let mut pairs = firsts.chunks_exact(CHUNK).zip(seconds.chunks_exact(CHUNK));
    for (a, b) in &mut pairs {
        if a.iter().zip(b).fold(false, |acc, (x, y)| acc | pred(*x, *y)) {
            return true;
        }
    }
    let done = firsts.len() - firsts.len() % CHUNK;
    firsts[done..].iter().zip(&seconds[done..]).any(|(x, y)| pred(*x, *y))
}

/// The offset of the first `needle` in `bytes`, found with the `memchr` crate's SIMD search
/// (`core`'s byte search compares a word at a time, and `str::find` adds a comparison of the
/// matched character on top).
pub(in crate::skills) fn find_byte(bytes: &[u8], needle: u8) -> Option<usize> {
    memchr::memchr(needle, bytes)
}

/// The lines of `text` as `text.split('\n')` gives them.
pub(in crate::skills) fn split_lines(text: &str) -> SplitLines<'_> {
    SplitLines { rest: Some(text) }
}

/// Iterator of [`split_lines`].
pub(in crate::skills) struct SplitLines<'a> {
    /// What is left to split; `None` once the last line was given.
    rest: Option<&'a str>,
}

impl<'a> Iterator for SplitLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match find_byte(rest.as_bytes(), b'\n') {
            Some(at) => {
                self.rest = Some(&rest[at + 1..]);
                Some(&rest[..at])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_str_split_does() {
        let long = format!("{}\n{}\n\n", "x".repeat(40), "y".repeat(70));
        for text in ["", "a", "a\n", "\n", "a\nb", "\n\na\n\n", "é\nü", long.as_str()] {
            assert_eq!(
                split_lines(text).collect::<Vec<_>>(),
                text.split('\n').collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn scans_agree_with_iterators_at_every_position() {
        for len in [0, 1, 2, 31, 32, 33, 64, 65, 100] {
            for at in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[at] = b'!';
                assert!(any_byte(&bytes, |b| b == b'!'), "{len} {at}");
                assert!(!any_byte(&bytes, |b| b == b'?'));
                assert_eq!(find_byte(&bytes, b'!'), Some(at), "{len} {at}");
                assert_eq!(find_byte(&bytes, b'?'), None);
                if at + 1 < len {
                    bytes[at + 1] = b'?';
                    assert!(any_pair(&bytes, |x, y| x == b'!' && y == b'?'), "{len} {at}");
                }
                assert!(!any_pair(&bytes, |x, y| x == b'?' && y == b'!'), "{len} {at}");
            }
        }
    }
}
