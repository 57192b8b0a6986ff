//! Byte scans written so the compiler checks many bytes at once: whole chunks are folded without
//! early exits, since `Iterator::any` stops at every byte and is not vectorized.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_agree_with_iterators_at_every_position() {
        for len in [0, 1, 2, 31, 32, 33, 64, 65, 100] {
            for at in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[at] = b'!';
                assert!(any_byte(&bytes, |b| b == b'!'), "{len} {at}");
                assert!(!any_byte(&bytes, |b| b == b'?'));
                if at + 1 < len {
                    bytes[at + 1] = b'?';
                    assert!(any_pair(&bytes, |x, y| x == b'!' && y == b'?'), "{len} {at}");
                }
                assert!(!any_pair(&bytes, |x, y| x == b'?' && y == b'!'), "{len} {at}");
            }
        }
    }
}
