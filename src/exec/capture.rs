//! Reading one output stream of a command into a bounded buffer: head and tail kept, the middle
//! counted and dropped, so memory stays flat whatever the command prints.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

use crate::support::redact::{End, Redactor};

/// One output stream, bounded: head and tail kept, the middle counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Captured {
    /// Head, a cut marker when bytes were dropped, and tail; invalid UTF-8 replaced.
    pub(crate) text: String,
    /// Bytes the command wrote in total.
    pub(crate) total_bytes: u64,
    pub(crate) truncated: bool,
    /// The output was not valid UTF-8.
    pub(crate) binary: bool,
}

/// Receives each piece of a stream as it is read, before any cap: a live view of a running
/// command (the pieces are raw bytes; the receiver decodes and redacts them).
#[derive(Clone)]
pub(crate) struct Live(pub Arc<LiveFn>);

/// What a [`Live`] calls with each piece.
pub(crate) type LiveFn = dyn Fn(&[u8]) + Send + Sync;

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Live")
    }
}

/// Bytes of a stream shown from its start and from its end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    pub(crate) head: usize,
    pub(crate) tail: usize,
}

/// Read a stream to its end, or until `stop` turns true (an escaped process may hold the pipe
/// open forever), keeping at most `head + tail` bytes plus, on each side, the length of the
/// longest secret form (so a secret straddling a cut is seen whole and redacted before the cut).
/// Each piece read also goes to `live`, if there is one.
pub(crate) async fn capture(
    mut reader: impl AsyncRead + Unpin,
    caps: Caps,
    redactor: Redactor,
    mut stop: watch::Receiver<bool>,
    live: Option<Live>,
) -> Captured {
    let slack = redactor.longest();
    let head_cap = caps.head + slack;
    let tail_cap = if caps.tail > 0 { caps.tail + slack } else { 0 };
    let mut head = Vec::with_capacity(head_cap.min(64 * 1024));
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            biased;
            read = reader.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            // Also ends the read when the sender is gone (the command's run was dropped).
            _ = stop.wait_for(|stop| *stop) => break,
        };
        total += n as u64;
        if let Some(live) = &live {
            (live.0)(&buf[..n]);
        }
        let mut chunk = &buf[..n];
        if head.len() < head_cap {
            let take = (head_cap - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if tail_cap > 0 && !chunk.is_empty() {
            if chunk.len() >= tail_cap {
                tail.clear();
                tail.extend(&chunk[chunk.len() - tail_cap..]);
            } else {
                let overflow = (tail.len() + chunk.len()).saturating_sub(tail_cap);
                tail.drain(..overflow);
                tail.extend(chunk);
            }
        }
    }
    assemble(&head, &Vec::from(tail), total, caps, &redactor)
}

/// Head and tail as the model sees them: secrets redacted first, then cut to the caps (a cut never
/// halves a secret nor its marker), with a marker for the bytes left out.
fn assemble(head: &[u8], tail: &[u8], total: u64, caps: Caps, redactor: &Redactor) -> Captured {
    let contiguous = total == (head.len() + tail.len()) as u64;
    let truncated = total > (caps.head + caps.tail) as u64;
    let binary = head.contains(&0) || tail.contains(&0) || !utf8_ok(head, true) || !utf8_ok(tail, contiguous);
    let (head_text, tail_text) = if contiguous {
        let whole = String::from_utf8_lossy(&[head, tail].concat()).into_owned();
        if !truncated {
            return Captured {
                text: redactor.redact(&whole).into_owned(),
                total_bytes: total,
                truncated,
                binary,
            };
        }
        (whole.clone(), whole)
    } else {
        (
            String::from_utf8_lossy(head).into_owned(),
            String::from_utf8_lossy(tail).into_owned(),
        )
    };
    let shown_head = redactor.redact_and_cut(&head_text, caps.head, End::First);
    let shown_tail = if caps.tail > 0 {
        redactor.redact_and_cut(&tail_text, caps.tail, End::Last)
    } else {
        String::new()
    };
    let (kept_head, kept_tail) = (caps.head.min(head.len()), caps.tail.min(tail.len()));
    let cut = total.saturating_sub((caps.head + caps.tail) as u64);
    Captured {
        text: format!("{shown_head}\n[… {cut} bytes cut; first {kept_head} and last {kept_tail} kept …]\n{shown_tail}"),
        total_bytes: total,
        truncated,
        binary,
    }
}

/// Valid UTF-8, tolerating a character split at the cut edges.
fn utf8_ok(bytes: &[u8], starts_clean: bool) -> bool {
    let start = if starts_clean {
        0
    } else {
        bytes.iter().take(3).take_while(|b| (*b & 0xC0) == 0x80).count()
    };
    match std::str::from_utf8(&bytes[start..]) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_secret_straddling_a_cut_is_redacted_whole() {
        let vars = BTreeMap::from([("GITHUB_TOKEN".to_string(), "ghp_0123456789abcdef".to_string())]);
        let redactor = Redactor::from_env(&vars);
        let caps = Caps { head: 10, tail: 10 };
        // The secret starts 4 bytes before the head cap and, at the end, 4 bytes before the tail cap.
        let text = format!(
            "{}ghp_0123456789abcdef{}ghp_0123456789abcdef{}",
            "a".repeat(6),
            "m".repeat(100),
            "z".repeat(6)
        );
        let slack = redactor.longest();
        let (head, tail) = (
            &text.as_bytes()[..10 + slack],
            &text.as_bytes()[text.len() - 10 - slack..],
        );
        let out = assemble(head, tail, text.len() as u64, caps, &redactor);
        assert!(out.truncated);
        assert!(!out.text.contains("ghp_"), "{}", out.text);
        assert!(
            out.text.starts_with("aaaaaa[REDACTED:GITHUB_TOKEN]\n[…"),
            "{}",
            out.text
        );
        assert!(out.text.ends_with("…]\n[REDACTED:GITHUB_TOKEN]zzzzzz"), "{}", out.text);
    }
}
